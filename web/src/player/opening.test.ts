import { describe, expect, it } from 'vitest';
import type { Session } from '../bridge';
import { OpenCancelled, openInSlices, type Slices } from './opening';

/** A fake core opener: `lines` lines of parsing then `ops` operations, each costing `cost` ms. */
function fake(lines: number, ops: number, cost: number, failAt = -1) {
  let t = 0;
  let parsed = 0;
  let replayed = 0;
  const calls: number[] = [];
  let freed = false;
  const slices: Slices = {
    advance(n) {
      calls.push(n);
      for (let i = 0; i < n; i++) {
        if (parsed + replayed === failAt) throw new Error(`line ${failAt + 1}: bad`);
        if (parsed < lines) parsed++;
        else if (replayed < ops) replayed++;
        else break;
        t += cost;
      }
      if (parsed < lines) return [0, parsed, lines];
      if (replayed < ops) return [1, replayed, ops];
      return [2, 1, 1];
    },
    finish: () => ({ length: ops }) as unknown as Session,
    free: () => {
      freed = true;
    },
  };
  return { slices, calls, now: () => t, wasFreed: () => freed };
}

describe('openInSlices', () => {
  it('keeps every slice near the budget and ends with the session', async () => {
    const f = fake(20_000, 20_000, 0.01);
    const progress: number[] = [];
    const s = await openInSlices(f.slices, { budgetMs: 8, now: f.now, yieldNow: async () => {}, onProgress: (p) => progress.push(p.fraction) });
    expect(s.length).toBe(20_000);
    // No slice does more than 2 budgets of work (the doubling overshoots by at most 2x).
    expect(Math.max(...f.calls) * 0.01).toBeLessThanOrEqual(16);
    expect(f.calls.length).toBeGreaterThan(20);
    expect(progress.every((x) => x >= 0 && x <= 1)).toBe(true);
  });

  it('passes the core error on and frees the opener', async () => {
    const f = fake(100, 100, 0.01, 150);
    await expect(openInSlices(f.slices, { now: f.now, yieldNow: async () => {} })).rejects.toThrow('line 151: bad');
    expect(f.wasFreed()).toBe(true);
  });

  it('stops when cancelled', async () => {
    const f = fake(1_000_000, 0, 0.01);
    const ctl = new AbortController();
    let k = 0;
    const p = openInSlices(f.slices, {
      now: f.now,
      signal: ctl.signal,
      yieldNow: async () => {
        if (++k === 3) ctl.abort();
      },
    });
    await expect(p).rejects.toBeInstanceOf(OpenCancelled);
    expect(f.calls.length).toBe(3);
    expect(f.wasFreed()).toBe(true);
  });
});
