// Formatting of 64-bit addresses and sizes (bigint) for labels and data attributes.

/** Lower-case `0x` hex without padding, as the core prints it (`0x1`, `0xffffc90000000000`). */
export function hex(v: bigint): string {
  return `0x${v.toString(16)}`;
}

/** Parse a `0x` hex string (or a decimal string/number) into a bigint; throws on anything else. */
export function parseBig(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0[xX][0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new TypeError(`not an unsigned integer: ${JSON.stringify(v)}`);
}

const UNITS = ['', 'K', 'M', 'G', 'T', 'P', 'E'] as const;

/**
 * A byte count with binary units: exact values read `8K`, `2M`, `1.5G`; inexact ones are
 * rounded to three significant digits and marked `≈` (`≈16E` for 2^64 - 2).
 */
export function size(v: bigint): string {
  if (v < 0n) return `-${size(-v)}`;
  let u = 0;
  while (u < UNITS.length - 1 && v >= 1n << BigInt(10 * (u + 1))) u++;
  const unit = 1n << BigInt(10 * u);
  const whole = v / unit;
  const rest = v % unit;
  if (rest === 0n) return `${whole}${UNITS[u]}`;
  // Exact with one or two decimals (1.5K, 1.25M)?
  for (const digits of [1, 2]) {
    const scale = 10n ** BigInt(digits);
    if ((v * scale) % unit === 0n) return `${trimZeros(fixed(v, unit, digits))}${UNITS[u]}`;
  }
  if (u === 0) return `${v}`;
  const digits = whole >= 100n ? 0 : whole >= 10n ? 1 : 2;
  let s = trimZeros(fixed(v, unit, digits, true));
  if (s === '1024' && u < UNITS.length - 1) s = '1';
  return `≈${s}${s === '1' && whole >= 1000n ? UNITS[u + 1] : UNITS[u]}`;
}

/** v / unit with `digits` decimals, truncated (or rounded half up). */
function fixed(v: bigint, unit: bigint, digits: number, round = false): string {
  const scale = 10n ** BigInt(digits);
  let n = (v * scale) / unit;
  if (round && ((v * scale) % unit) * 2n >= unit) n += 1n;
  const s = n.toString().padStart(digits + 1, '0');
  return digits ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** log2 of a positive bigint, as a float (exact for powers of two). */
export function log2(v: bigint): number {
  if (v <= 0n) return 0;
  const bits = v.toString(2).length;
  if (bits <= 52) return Math.log2(Number(v));
  // Keep the 52 top bits so the fraction stays precise.
  const shift = BigInt(bits - 52);
  return Math.log2(Number(v >> shift)) + Number(shift);
}

/** `[0x1000, 0x3000)` */
export function range(start: bigint, end: bigint): string {
  return `[${hex(start)}, ${hex(end)})`;
}
