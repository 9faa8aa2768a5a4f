// A state too large for the page is thinned in the worker: touching areas of one kind merge
// into runs, then the nearest runs, down to the bound; the true counts travel with it.
import { describe, expect, it } from 'vitest';
import { runs, thin } from './thin';

const hex = (n: bigint) => `0x${n.toString(16)}`;
const BASE = 0xffffc90000000000n;
const area = (id: number, start: bigint, pages: bigint, lazy = false) => ({ id, va_start: hex(start), va_end: hex(start + pages * 0x1000n), lazy, node: 0 });

describe('thinning a state', () => {
  it('merges touching areas of the same kind, in address order, and keeps the rest apart', () => {
    // Three touching pages, a lazy one touching them (another kind), a page after a hole.
    const a = [area(3, BASE + 0x2000n, 1n), area(1, BASE, 1n), area(2, BASE + 0x1000n, 1n), area(4, BASE + 0x3000n, 1n, true), area(5, BASE + 0x10000n, 1n)];
    expect(runs(a, 10)).toEqual([
      { id: 1, va_start: hex(BASE), va_end: hex(BASE + 0x3000n), lazy: false, node: 0 },
      { id: 4, va_start: hex(BASE + 0x3000n), va_end: hex(BASE + 0x4000n), lazy: true, node: 0 },
      { id: 5, va_start: hex(BASE + 0x10000n), va_end: hex(BASE + 0x11000n), lazy: false, node: 0 },
    ]);
  });

  it('closes the smallest gaps first, down to the bound', () => {
    // Pages at 0, 2, 4 (gaps of one page) and 100, 200 (gaps of 95 and 99 pages).
    const a = [0n, 2n, 4n, 100n, 200n].map((p, i) => area(i, BASE + p * 0x1000n, 1n));
    const r = runs(a, 3);
    expect(r.map((x) => [x.va_start, x.va_end])).toEqual([
      [hex(BASE), hex(BASE + 5n * 0x1000n)],
      [hex(BASE + 100n * 0x1000n), hex(BASE + 101n * 0x1000n)],
      [hex(BASE + 200n * 0x1000n), hex(BASE + 201n * 0x1000n)],
    ]);
  });

  it('leaves a short state alone and thins a long one, saying what it had', () => {
    const busy = Array.from({ length: 30_000 }, (_, i) => area(i, BASE + BigInt(i) * 0x1000n, 1n));
    const nodes = Array.from({ length: 5_000 }, () => ({}));
    const json = JSON.stringify({ profile: 'linux-5.2', busy, lazy: [], index: { kind: 'free_tree', root: 0, nodes } });
    expect(thin('{"busy":[]}')).toBe('{"busy":[]}');
    const o = JSON.parse(thin(json, 4000, 1000)) as { busy: unknown[]; index: { nodes: unknown[]; root: null }; thinned: unknown };
    expect(o.busy).toEqual([{ id: 0, va_start: hex(BASE), va_end: hex(BASE + 30_000n * 0x1000n), lazy: false, node: 0 }]);
    expect(o.index).toEqual({ kind: 'free_tree', root: null, nodes: [] });
    expect(o.thinned).toEqual({ busy: 30_000, lazy: 0, free: 5_000, runs: 1 });
  });
});
