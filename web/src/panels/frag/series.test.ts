import { describe, expect, it } from 'vitest';
import type { FragPoint } from './parse';
import { SeriesKeeper, strideFor, type SeriesAsk } from './series';

/** A state's point as a core would give it: its figures depend on the step alone here. */
const pointAt = (step: number): FragPoint => ({ step, largestFree: 1e6 - step, largestHole: step % 7, freeBlocks: step % 13, lazyPages: step % 5, lazyMaxPages: 16384 });

/** What `frag_series(from, to, every)` answers (core/wasm/src/figures.rs). */
function series(a: SeriesAsk): FragPoint[] {
  const out = [pointAt(a.from)];
  for (let s = a.from + 1; s <= a.to; s++) if (s % a.every === 0 || s === a.to) out.push(pointAt(s));
  return out;
}

/** Drive the keeper to `n` operations; the asks it made. */
function grow(k: SeriesKeeper, n: number): SeriesAsk[] {
  const asks: SeriesAsk[] = [];
  for (let a = k.next(n); a; a = k.next(n)) {
    asks.push(a);
    k.add(a, series(a));
    if (asks.length > 10_000) throw new Error('no end');
  }
  return asks;
}

/** The points wanted for n operations at stride e: 0, every multiple of e, n. */
function wanted(n: number, e: number): number[] {
  const out: number[] = [];
  for (let s = 0; s <= n; s += e) out.push(s);
  if (out[out.length - 1] !== n) out.push(n);
  return out;
}

describe('the chart over a growing trace', () => {
  it('strides: every state up to the limit, then the least power of two that fits', () => {
    expect(strideFor(0, 11)).toBe(1);
    expect(strideFor(10, 11)).toBe(1);
    expect(strideFor(11, 11)).toBe(2);
    expect(strideFor(20, 11)).toBe(2);
    expect(strideFor(21, 11)).toBe(4);
    expect(strideFor(20_000)).toBe(1);
    expect(strideFor(20_001)).toBe(2);
    expect(strideFor(1_000_000)).toBe(64);
  });

  it('a session growing in steps of any size keeps exactly state 0, the multiples of the stride and the last, each the core’s', () => {
    const k = new SeriesKeeper(11, 7);
    let n = 0;
    let asked = 0;
    for (const add of [0, 3, 1, 6, 0, 9, 2, 40, 1, 1, 1, 100, 17, 500]) {
      n += add;
      const asks = grow(k, n);
      const e = strideFor(n, 11);
      expect(k.every).toBe(e);
      expect(k.points.map((p) => p.step)).toEqual(wanted(n, e));
      for (const p of k.points) expect(p).toEqual(pointAt(p.step));
      expect(k.points.length).toBeLessThanOrEqual(11 + 1);
      // Each ask replays one slice at most (rounded up to whole strides), from a state already measured.
      for (const a of asks) expect(a.to - a.from).toBeLessThanOrEqual(Math.ceil(7 / a.every) * a.every);
      asked += asks.reduce((m, a) => m + a.to - a.from, 0);
    }
    // Growing asks again for the new operations and a stride's worth before them, not the whole trace each time.
    expect(asked).toBeLessThan(n + 14 * 64);
  });

  it('nothing new: no ask; a shorter session (a new one) starts again', () => {
    const k = new SeriesKeeper(11, 7);
    grow(k, 30);
    expect(k.next(30)).toBeNull();
    grow(k, 5);
    expect(k.points.map((p) => p.step)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(k.every).toBe(1);
  });

  it('refuses an answer that does not begin where it was asked', () => {
    const k = new SeriesKeeper();
    const a = k.next(10)!;
    expect(() => k.add(a, series({ ...a, from: 1 }))).toThrow(/began at state 1, not 0/);
  });
});
