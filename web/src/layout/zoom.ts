// A linear window onto the 64-bit address space, in bigint so that a window of a few pages
// near 0xffff… stays exact (a float has 53 bits: 2 KiB steps up there). Pure functions for the
// zoomable address-space view: zoom about a point, pan, map addresses to pixels, hex ticks.
import { hex, size } from '../format';

export type Window = [bigint, bigint];

export const SPACE_END = 1n << 64n;
/** The narrowest window: eight pages. */
export const MIN_SPAN = 0x8000n;
const FIX = 40n;
const ONE = 1n << FIX;

/** `v * frac` for a float fraction, in bigint (40 fractional bits). */
export function mulFrac(v: bigint, frac: number): bigint {
  const neg = frac < 0;
  const f = BigInt(Math.round(Math.abs(frac) * Number(ONE)));
  const r = (v * f) >> FIX;
  return neg ? -r : r;
}

/** Keep a window inside [0, 2^64) and at least MIN_SPAN wide, moving it rather than cutting it. */
export function clampWindow([lo, hi]: Window): Window {
  let span = hi - lo;
  if (span < MIN_SPAN) {
    const mid = lo + span / 2n;
    span = MIN_SPAN;
    lo = mid - span / 2n;
  }
  if (span > SPACE_END) span = SPACE_END;
  if (lo < 0n) lo = 0n;
  if (lo + span > SPACE_END) lo = SPACE_END - span;
  return [lo, lo + span];
}

/** Zoom in by `factor` (> 1 zooms in) keeping the address at fraction `anchor` of the width in place. */
export function zoomWindow([lo, hi]: Window, factor: number, anchor = 0.5): Window {
  const span = hi - lo;
  const at = lo + mulFrac(span, anchor);
  const next = factor >= 1 ? mulFrac(span, 1 / factor) : mulFrac(span, 1 / factor);
  const nlo = at - mulFrac(next, anchor);
  return clampWindow([nlo, nlo + next]);
}

/** Pan by a fraction of the width (positive moves towards higher addresses). */
export function panWindow([lo, hi]: Window, frac: number): Window {
  const d = mulFrac(hi - lo, frac);
  return clampWindow([lo + d, hi + d]);
}

/**
 * The window a d3-zoom transform `{k, x}` (relative to the identity at the start of a gesture)
 * shows, given the window `base` of that identity and the view's width in px.
 */
export function windowFromTransform(base: Window, k: number, x: number, width: number): Window {
  const span = base[1] - base[0];
  const f0 = -x / (k * width);
  const f1 = (width - x) / (k * width);
  return clampWindow([base[0] + mulFrac(span, f0), base[0] + mulFrac(span, f1)]);
}

/** The x of an address in a window `width` px wide (may fall outside 0..width). */
export function xIn([lo, hi]: Window, width: number, addr: bigint): number {
  const span = hi - lo;
  if (span <= 0n) return 0;
  // 32 fractional bits of (addr - lo) / span, then scale.
  const q = ((addr - lo) << 32n) / span;
  return (Number(q) / 2 ** 32) * width;
}

/** A window showing `[start, end)` in its middle `fill` fraction. */
export function around(start: bigint, end: bigint, fill = 0.5): Window {
  const span = end > start ? end - start : 1n;
  const wide = mulFrac(span, 1 / fill);
  const lo = start - (wide - span) / 2n;
  return clampWindow([lo, lo + wide]);
}

export interface AxisTick {
  addr: bigint;
  x: number;
  label: string;
}

export interface Axis {
  ticks: AxisTick[];
  /** The spacing of the ticks, `64K`. */
  step: string;
}

/**
 * Ticks at multiples of a power of two, about `minPx` apart. Labels are full hex when there is
 * room; otherwise the first labelled tick carries the full address and the others an offset
 * from it in K/M/G/T (`+64K`).
 */
export function hexAxis(win: Window, width: number, minPx = 90, fullPx = 150): Axis {
  const span = win[1] - win[0];
  if (span <= 0n || width <= 0) return { ticks: [], step: '' };
  let shift = 0n;
  while ((1n << shift) * BigInt(Math.max(1, Math.floor(width))) < span * BigInt(minPx) && shift < 64n) shift++;
  const step = 1n << shift;
  const first = ((win[0] + step - 1n) / step) * step;
  const stepPx = xIn(win, width, win[0] + step);
  const full = stepPx >= fullPx;
  const ticks: AxisTick[] = [];
  let base: bigint | null = null;
  for (let a = first; a <= win[1] && ticks.length < 400; a += step) {
    const x = xIn(win, width, a);
    let label: string;
    if (full) label = hex(a);
    else if (base === null) {
      base = a;
      label = hex(a);
    } else label = `+${size(a - base)}`;
    ticks.push({ addr: a, x, label });
  }
  // The first tick's full label needs room: drop offset labels that would overlap it.
  if (!full && ticks.length > 1) {
    const room = 8 * hex(ticks[0].addr).length;
    for (const t of ticks.slice(1)) if (t.x - ticks[0].x < room) t.label = '';
  }
  return { ticks, step: size(step) };
}
