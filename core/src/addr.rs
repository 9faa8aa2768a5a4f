//! The address type of the JSON contract between the core and the page.
//!
//! JSON numbers are IEEE doubles: above 2^53 they lose bits, and every address of the vmalloc
//! space is above 2^53. So an address (or a length in the address space) travels as text, a
//! lower-case `"0x…"` string, and whether a field is one is decided by its type: [`Addr`] is
//! text, `u32`/`usize`/`u64` are plain numbers (ids, counts, indices).
//!
//! A few counts have always travelled as hex text too (the work counters, `nr_lazy`, an erase's
//! `successor`); they keep doing so, under their own type [`Hex`], so that the contract stays
//! byte for byte what it was and no reader mistakes them for addresses.
//!
//! The structs the allocator builds on its hot path (the step events, the maple trees' events,
//! [`crate::AreaInfo`], the work counters) hold these types too: both are
//! `#[repr(transparent)]` over `u64`, so an emission site's `Addr(v.va_start)` costs nothing,
//! and a reader takes the integer back with `.0`. No field says how it travels any more; its
//! type does.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An address of the 64-bit space, or a length in it: a lower-case `"0x…"` string in JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Addr(pub u64);

/// A count the contract carries as hex text, like an address (see the module's notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Hex(pub u64);

macro_rules! hex_type {
    ($t:ident, $what:literal) => {
        impl From<u64> for $t {
            #[inline(always)]
            fn from(v: u64) -> $t {
                $t(v)
            }
        }

        impl From<$t> for u64 {
            #[inline(always)]
            fn from(v: $t) -> u64 {
                v.0
            }
        }

        impl PartialEq<u64> for $t {
            fn eq(&self, other: &u64) -> bool {
                self.0 == *other
            }
        }

        impl fmt::LowerHex for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerHex::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{:#x}", self.0)
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                hex::serialize(&self.0, s)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                d.deserialize_str(HexVisitor($what)).map($t)
            }
        }

        impl ts_rs::TS for $t {
            type WithoutGenerics = $t;
            type OptionInnerType = $t;
            fn name(_: &ts_rs::Config) -> String {
                stringify!($t).to_owned()
            }
            fn inline(_: &ts_rs::Config) -> String {
                "`0x${string}`".to_owned()
            }
            fn decl(cfg: &ts_rs::Config) -> String {
                format!("type {} = {};", stringify!($t), <$t as ts_rs::TS>::inline(cfg))
            }
            fn decl_concrete(cfg: &ts_rs::Config) -> String {
                <$t as ts_rs::TS>::decl(cfg)
            }
            fn docs() -> Option<String> {
                Some(
                    concat!(
                        "/**\n * ",
                        $what,
                        ", as lower-case hex text (`0x` and 1 to 16 digits): JSON\n",
                        " * numbers lose precision above 2^53. `BigInt(x)` parses it.\n */\n"
                    )
                    .to_owned(),
                )
            }
            fn output_path() -> Option<std::path::PathBuf> {
                Some(std::path::PathBuf::from(concat!(stringify!($t), ".ts")))
            }
        }
    };
}

hex_type!(Addr, "An address of the 64-bit space, or a length in it");
hex_type!(Hex, "A count the contract has always carried like an address (work counters, `nr_lazy`, `successor`)");

/// A work counter is bumped on every event it counts, as a `u64` would be.
impl std::ops::AddAssign<u64> for Hex {
    #[inline(always)]
    fn add_assign(&mut self, n: u64) {
        self.0 += n;
    }
}

/// `"0x…"` text to a `u64`: `0x` then 1 to 16 hex digits (either case).
struct HexVisitor(&'static str);

impl Visitor<'_> for HexVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a \"0x…\" string", self.0.to_lowercase())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        parse(v).ok_or_else(|| {
            let shown: String = v.chars().take(24).collect();
            E::custom(format!("`{shown}` is not 0x followed by 1 to 16 hex digits"))
        })
    }
}

/// `ALIGN(x, a)` with the kernel's wrap-around.
#[inline(always)]
pub fn align_up(x: u64, a: u64) -> u64 {
    x.wrapping_add(a.wrapping_sub(1)) & !a.wrapping_sub(1)
}

/// `0x` then 1 to 16 hex digits, nothing else.
pub fn parse(s: &str) -> Option<u64> {
    let d = s.strip_prefix("0x")?;
    if d.is_empty() || d.len() > 16 || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(d, 16).ok()
}

/// The hex writer behind [`Addr`] and [`Hex`] (and usable as `#[serde(with = "crate::addr::hex")]`
/// on a plain `u64`, `u32` or `Option<…>` of either, though no contract field needs it now).
pub mod hex {
    use serde::Serializer;

    /// Anything the facade writes as hex: an integer, or an optional one.
    pub trait AsHex {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    }

    impl AsHex for u64 {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            // At most 18 bytes: "0x" and 16 digits; formatted on the stack.
            let mut buf = [0u8; 18];
            let mut n = 2;
            buf[0] = b'0';
            buf[1] = b'x';
            let digits = if *self == 0 { 1 } else { 16 - (self.leading_zeros() as usize) / 4 };
            for i in (0..digits).rev() {
                let nib = ((*self >> (4 * i)) & 0xf) as u8;
                buf[n] = if nib < 10 { b'0' + nib } else { b'a' + nib - 10 };
                n += 1;
            }
            // Only ASCII was written.
            s.serialize_str(std::str::from_utf8(&buf[..n]).unwrap_or("0x0"))
        }
    }

    impl AsHex for u32 {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            u64::from(*self).write(s)
        }
    }

    impl<T: AsHex> AsHex for Option<T> {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                Some(v) => v.write(s),
                None => s.serialize_none(),
            }
        }
    }

    impl<T: AsHex> AsHex for (T, T) {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeTuple;
            struct One<'a, T>(&'a T);
            impl<T: AsHex> serde::Serialize for One<'_, T> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    self.0.write(s)
                }
            }
            let mut t = s.serialize_tuple(2)?;
            t.serialize_element(&One(&self.0))?;
            t.serialize_element(&One(&self.1))?;
            t.end()
        }
    }

    pub fn serialize<T: AsHex, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.write(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_both_ways() {
        for v in [0u64, 1, 9, 10, 0xf, 0x10, 0xffff_c900_0000_0000, u64::MAX, 1 << 60] {
            let json = serde_json::to_string(&Addr(v)).unwrap();
            assert_eq!(json, format!("\"{v:#x}\""));
            assert_eq!(serde_json::from_str::<Addr>(&json).unwrap(), Addr(v));
            assert_eq!(serde_json::to_string(&Hex(v)).unwrap(), json);
        }
        assert_eq!(serde_json::from_str::<Addr>("\"0xABCdef\"").unwrap(), Addr(0xabcdef));
        for bad in ["\"\"", "\"0x\"", "\"12\"", "\"0x1g\"", "\"0x10000000000000000\"", "12", "\" 0x1\""] {
            assert!(serde_json::from_str::<Addr>(bad).is_err(), "{bad}");
        }
        assert_eq!(serde_json::to_string(&Some(Addr(16))).unwrap(), r#""0x10""#);
    }
}
