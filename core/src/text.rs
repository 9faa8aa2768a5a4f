//! The text of the trace language's numbers and of messages that quote input, read and written
//! the same way everywhere: [`parse_num`] reads a number (`0x…` or decimal), [`push_line`] and
//! [`push_hex`] write one as `{:#x}` does (on the hot path of `--bench`), and [`quote`],
//! [`escaped`] and [`bounded`] keep a message about hostile input short and printable.

use std::fmt::Write as _;

/// The most characters of the input an error message quotes.
pub const QUOTE_MAX: usize = 40;
/// The longest error message (longer ones are cut): a hostile token cannot make a huge line.
pub const MESSAGE_MAX: usize = 400;

/// `tok` as an error message quotes it: whole when short, else its first [`QUOTE_MAX`]
/// characters and how long it was; control and invisible characters escaped ([`escaped`]).
pub fn quote(tok: &str) -> String {
    let mut out = String::new();
    for (n, c) in tok.chars().enumerate() {
        if n == QUOTE_MAX {
            let _ = write!(out, "… ({} bytes)", tok.len());
            break;
        }
        push_escaped(&mut out, c, false);
    }
    out
}

/// Whether `c` is printed escaped: C0 and C1 controls, DEL, and the invisible format
/// characters that can hide or reorder text (byte-order mark, zero-width, bidi controls).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

fn push_escaped(out: &mut String, c: char, keep_newline: bool) {
    match c {
        '\n' if keep_newline => out.push('\n'),
        c if !hidden(c) => out.push(c),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `msg` with every control or invisible character escaped (`\x1b`, `\u{feff}`), line breaks
/// kept: what a terminal may be shown of an input's bytes.
pub fn escaped(msg: &str) -> String {
    if !msg.chars().any(|c| c != '\n' && hidden(c)) {
        return msg.to_string();
    }
    let mut out = String::with_capacity(msg.len() + 16);
    msg.chars().for_each(|c| push_escaped(&mut out, c, true));
    out
}

/// `msg` cut to [`MESSAGE_MAX`] characters (a last guard; the quotes in it are bounded already).
pub fn bounded(msg: String) -> String {
    match msg.char_indices().nth(MESSAGE_MAX) {
        None => msg,
        Some((cut, _)) => format!("{}…", &msg[..cut]),
    }
}

/// Parse a number: `0x...` hexadecimal or decimal, u64 only.
pub fn parse_num(tok: &str) -> Result<u64, String> {
    let (digits, radix) = match tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (tok, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("`{}` is not a number (use decimal or 0x-prefixed hex)", quote(tok)));
    }
    u64::from_str_radix(digits, radix).map_err(|_| format!("`{}` does not fit in 64 bits", quote(tok)))
}

/// Append `0x` and the lower-case hex digits of `v` (what `{:#x}` prints, without the
/// formatting machinery: replay output is on the hot path of `--bench`).
#[inline]
pub fn push_hex(out: &mut String, v: u64) {
    push_line(out, "", v, "");
}

/// The 16 lower-case hex digits of `v`, most significant first.
///
/// x86_64 with SSE2 (part of its baseline): the eight bytes are split into sixteen nibbles in one
/// register (high nibble of each byte first), and every nibble becomes ASCII at once with one
/// compare and two adds: about a dozen instructions where the portable version takes sixty.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    use std::arch::x86_64::*;
    // SAFETY: these intrinsics only need SSE2, which this build enables (the `cfg` above; it
    // is part of every x86_64 target's baseline). None of them touches memory.
    unsafe {
        // Most significant byte first, in lane 0.
        let b = _mm_cvtsi64_si128(v.swap_bytes() as i64);
        let low4 = _mm_set1_epi8(0x0f);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(b), low4);
        let lo = _mm_and_si128(b, low4);
        // Lane 2k: the high nibble of byte k; lane 2k+1: its low nibble.
        let nib = _mm_unpacklo_epi8(hi, lo);
        // 'a' - '0' - 10 = 39 more for the nibbles past 9.
        let letter = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8(39));
        let ascii = _mm_add_epi8(_mm_add_epi8(nib, _mm_set1_epi8(b'0' as i8)), letter);
        std::mem::transmute::<__m128i, [u8; 16]>(ascii)
    }
}

/// wasm with 128-bit SIMD (see .cargo/config.toml), shaped for what V8 emits on x86_64.
/// wasm has no byte swap (V8 spelled `swap_bytes` out in about 30 instructions) and no unsigned
/// byte compare; a shuffle of two vectors is two `pshufb` and an `or`, and each 128-bit
/// constant costs about four instructions at its use. So: one shuffle of one vector puts each
/// byte, most significant first, in two lanes; 16-bit shifts and masks leave its high nibble
/// in the first and its low nibble in the second; a table lookup (`swizzle`) makes the digits.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    use std::arch::wasm32::*;
    // Lane 0: the least significant byte.
    let b = u64x2(v, 0);
    // Lanes 2k and 2k+1: byte 7 - k.
    let w = i8x16_shuffle::<7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0>(b, b);
    // Per 16-bit lane (its low byte first) holding byte B twice: B >> 4 in the low byte, B & 15
    // in the high one.
    let nib = v128_or(v128_and(u16x8_shr(w, 4), u16x8_splat(0x000f)), v128_and(w, u16x8_splat(0x0f00)));
    let table = u8x16(b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'8', b'9', b'a', b'b', b'c', b'd', b'e', b'f');
    let ascii = i8x16_swizzle(table, nib);
    let mut d = [0u8; 16];
    // SAFETY: a v128 store of 16 bytes into a 16-byte array (no alignment needed).
    unsafe { v128_store(d.as_mut_ptr().cast::<v128>(), ascii) };
    d
}

#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    hex16_swar(v)
}

/// The portable [`hex16`] (targets without SSE2 or wasm SIMD), eight digits at a time (SWAR: each nibble
/// is spread into its own byte, then turned into ASCII with adds).
#[cfg_attr(
    any(all(target_arch = "x86_64", target_feature = "sse2"), all(target_arch = "wasm32", target_feature = "simd128")),
    allow(dead_code)
)]
#[inline(always)]
fn hex16_swar(v: u64) -> [u8; 16] {
    /// Nibble `k` of `x` into byte `k` of the result (`k = 0` lowest).
    #[inline(always)]
    fn spread(x: u32) -> u64 {
        let mut v = u64::from(x);
        v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
        (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f
    }
    /// Each byte 0..=15 to `'0'..='9'`, `'a'..='f'` (no carry leaves a byte: at most 0x66).
    #[inline(always)]
    fn ascii(n: u64) -> u64 {
        let letter = ((n + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
        n + 0x3030_3030_3030_3030 + letter * 0x27
    }
    let hi = ascii(spread((v >> 32) as u32)).to_be_bytes();
    let lo = ascii(spread(v as u32)).to_be_bytes();
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&hi);
    d[8..].copy_from_slice(&lo);
    d
}

/// The spare capacity [`push_line_reserved`] needs: room for the longest line it writes in
/// place (a longer one is written the checked way).
pub const LINE_ROOM: usize = 64;

/// Append `prefix`, `0x` and the hex digits of `v`, and `suffix` as one line, written
/// straight into the string's spare capacity with fixed-size moves (the lengths are constants
/// once inlined), with no UTF-8 validation of bytes written here.
#[inline(always)]
pub fn push_line(out: &mut String, prefix: &str, v: u64, suffix: &str) {
    out.reserve(LINE_ROOM);
    // SAFETY: the reserve above.
    unsafe { push_line_reserved(out, prefix, v, suffix) }
}

/// [`push_line`] with the room reserved beforehand, for a caller that reserves once for many
/// lines (a replay's run of `alloc` and `free` lines: one capacity test per block of lines,
/// not one per line).
///
/// # Safety
///
/// `out` has at least [`LINE_ROOM`] bytes of spare capacity.
#[inline(always)]
pub unsafe fn push_line_reserved(out: &mut String, prefix: &str, v: u64, suffix: &str) {
    let (p, s) = (prefix.as_bytes(), suffix.as_bytes());
    // The 16 digits are stored whole (only the first `n` are kept), so the suffix and the
    // digits' tail both fit in LINE_ROOM bytes.
    if p.len() + 2 + 16 + s.len() > LINE_ROOM {
        out.push_str(prefix);
        out.push_str(&format!("{v:#x}"));
        out.push_str(suffix);
        return;
    }
    // Significant digits (at least one, for 0), shifted to the top of `v` first, so that
    // they lead the 16 (a 64-bit shift: wasm has no 128-bit one to shift the digits by).
    let n = (64 - (v | 1).leading_zeros()).div_ceil(4) as usize;
    let digits = hex16(v << (64 - 4 * n));
    let at = p.len() + 2;
    let len = at + n + s.len();
    debug_assert!(out.capacity() - out.len() >= LINE_ROOM);
    // SAFETY: the caller left at least LINE_ROOM bytes of spare capacity after `old`, and every
    // write below ends at most `p.len() + 2 + 16 + s.len() <= LINE_ROOM` bytes past `old`
    // (checked above), so all of them stay inside the allocation; `len <= LINE_ROOM` too, so the
    // new length is within the capacity. The bytes that become part of the string,
    // `old..old + len`, are `prefix` (a whole `&str`), ASCII (`0x` and the first `n` bytes of
    // `digits`, all from `hex16`: 0x30..=0x39, 0x61..=0x66; the suffix overwrites the rest) and
    // `suffix` (a whole `&str`), end to end: a concatenation of valid UTF-8 is valid UTF-8.
    unsafe {
        let vec = out.as_mut_vec();
        let old = vec.len();
        let dst = vec.as_mut_ptr().add(old);
        std::ptr::copy_nonoverlapping(p.as_ptr(), dst, p.len());
        std::ptr::copy_nonoverlapping(b"0x".as_ptr(), dst.add(p.len()), 2);
        std::ptr::copy_nonoverlapping(digits.as_ptr(), dst.add(at), 16);
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.add(at + n), s.len());
        vec.set_len(old + len);
        debug_assert!(std::str::from_utf8(&vec[old..]).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::{hex16, hex16_swar, push_hex};

    /// Both digit routines (the one this target runs and the portable one) give the
    /// formatter's 16 digits. (The wasm build's SIMD routine runs in the page's builds: the
    /// contract test replays every conformance vector through them, byte for byte.)
    #[test]
    fn hex16_both_ways_match_the_formatter() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut vals = vec![0u64, 9, 10, 0xf0f0_f0f0_0f0f_0f0f, u64::MAX];
        for k in 0..64 {
            vals.push(1 << k);
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x);
        }
        for v in vals {
            let want = format!("{v:016x}");
            assert_eq!(&hex16(v), want.as_bytes(), "{v:#x}");
            assert_eq!(&hex16_swar(v), want.as_bytes(), "{v:#x} (portable)");
        }
    }

    #[test]
    fn push_hex_prints_like_the_formatter() {
        // Every digit count: each power of 16 and the number just below it.
        let edges = (0..16).flat_map(|k| [1u64 << (4 * k), (1u64 << (4 * k)).wrapping_sub(1)]);
        for v in edges.chain([0xf, 0xffffc90000000000, u64::MAX, 0x1234_5678_9abc_def0, 0xa0b0_c0d0_e0f0_0001]) {
            let mut s = String::new();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
        }
    }
}
