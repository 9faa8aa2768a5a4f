// The chart over the trace, kept as the session it measures grows: which states to ask the core
// for (every state up to SERIES_POINTS, then one in a power of two, and always the last), in
// slices, so that a long trace is measured a slice at a time (the page's thread, or the
// large-trace worker, is held for one slice only). The figures themselves are the core's.
import type { FragPoint } from './parse';

/** States the chart keeps at most: every state of a trace of up to 20,000 operations. */
export const SERIES_POINTS = 20_001;
/** Operations replayed per request for the chart. */
export const SLICE = 20_000;

/** The stride for a trace of `n` operations: 1 while its n + 1 states fit in `max`, else the least power of two that fits. */
export function strideFor(n: number, max = SERIES_POINTS): number {
  let every = 1;
  while (Math.ceil(n / every) + 1 > max) every *= 2;
  return every;
}

/** A request for points: the states `from`, each multiple of `every` after it, and `to`. */
export interface SeriesAsk {
  from: number;
  to: number;
  every: number;
}

/**
 * The points of one session: state 0, each multiple of `every`, and the last state measured.
 * Growing the session asks only for the states after the last multiple kept; a stride that
 * doubles keeps the points that are still multiples of it.
 */
export class SeriesKeeper {
  points: FragPoint[] = [];
  every = 1;

  constructor(
    private readonly max = SERIES_POINTS,
    private readonly slice = SLICE,
  ) {}

  /** The last state measured (-1: none). */
  get to(): number {
    return this.points.length ? this.points[this.points.length - 1].step : -1;
  }

  /** What to ask for next on the way to `n` operations, or null when the points reach it. */
  next(n: number): SeriesAsk | null {
    if (n === this.to) return null;
    if (n < this.to) this.points = [];
    const every = strideFor(n, this.max);
    if (every !== this.every) {
      this.every = every;
      this.points = this.points.filter((p) => p.step % every === 0);
    }
    // A last state that is no multiple (a slice's end, the old end) goes; the last multiple is
    // asked for again, as the next ask's first point.
    const last = this.points[this.points.length - 1];
    if (last && last.step % every !== 0) this.points.pop();
    const from = this.points.pop()?.step ?? 0;
    // A slice ends on a multiple (or at n): the next one goes on from its end.
    return { from, to: Math.min(n, from + Math.ceil(this.slice / every) * every), every };
  }

  /** The points an ask returned (its `from` first). */
  add(ask: SeriesAsk, pts: FragPoint[]): void {
    if (pts[0]?.step !== ask.from) throw new Error(`the series began at state ${pts[0]?.step}, not ${ask.from}`);
    this.points.push(...pts);
  }
}
