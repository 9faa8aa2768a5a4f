import { describe, expect, it } from 'vitest';
import { parseState, type State } from '../bridge';
import { clusterSegments, placeSegments, placeTicks, segments, weight, xOf } from './space';

function state(over: Partial<State>): State {
  const base = parseState(
    JSON.stringify({
      busy: [],
      cpu: 0,
      cpus: 1,
      index: { kind: 'free_tree', root: null, nodes: [] },
      lazy: [],
      lazy_max: 8192,
      lazy_nr: 0,
      nr_nodes: 1,
      pools: [],
      profile: 'linux-5.2',
      space: ['0x1', '0xffffffffffffffff'],
      zone_size: '0x1',
    }),
  );
  return { ...base, ...over };
}

const node = (id: number, vaStart: bigint, vaEnd: bigint) => ({
  id,
  vaStart,
  vaEnd,
  subtreeMaxSize: vaEnd - vaStart,
  black: true,
  parent: null,
  left: null,
  right: null,
  depth: 0,
});

describe('segments', () => {
  it('merges free, busy, lazy and pooled areas in address order and fills gaps', () => {
    const s = state({
      space: [0x1000n, 0x10000n],
      index: { kind: 'free_tree', root: 0, nodes: [node(0, 0x8000n, 0x10000n), node(1, 0x1000n, 0x2000n)] },
      busy: [
        { id: 2, vaStart: 0x2000n, vaEnd: 0x4000n, lazy: false, node: 0 },
        { id: 3, vaStart: 0x4000n, vaEnd: 0x5000n, lazy: true, node: 0 },
      ],
      lazy: [{ id: 4, vaStart: 0x5000n, vaEnd: 0x6000n, node: 0 }],
      pools: [{ node: 0, pool: 1, entries: [{ id: 5, vaStart: 0x7000n, vaEnd: 0x8000n }] }],
    });
    const segs = segments(s);
    expect(segs.map((x) => [x.state, x.start, x.end])).toEqual([
      ['free', 0x1000n, 0x2000n],
      ['busy', 0x2000n, 0x4000n],
      ['lazy', 0x4000n, 0x5000n],
      ['lazy', 0x5000n, 0x6000n],
      ['gap', 0x6000n, 0x7000n],
      ['pool', 0x7000n, 0x8000n],
      ['free', 0x8000n, 0x10000n],
    ]);
    expect(segs[0].key).toBe('a1');
    expect(segs[4].id).toBeNull();
  });

  it('cuts the free space at the bounds of maple-rfc bump chunks, so a chunk tail has a width of its own', () => {
    const s = state({
      space: [0x1000n, 0x100000n],
      busy: [{ id: 2, vaStart: 0x10000n, vaEnd: 0x12000n, lazy: false, node: 0 }],
      chunks: [{ base: 0x10000n, limit: 0x20000n, bump: 0x12000n, pages: 2, ownerCpu: 0, current: true }],
    });
    expect(segments(s).map((x) => [x.state, x.start, x.end])).toEqual([
      ['gap', 0x1000n, 0x10000n],
      ['busy', 0x10000n, 0x12000n],
      ['gap', 0x12000n, 0x20000n],
      ['gap', 0x20000n, 0x100000n],
    ]);
  });

  it('draws maple-rfc\'s NULL ranges as free space, but not a bump chunk\'s unused tail (the chunk is occupied whole)', () => {
    const s = state({
      profile: 'maple-rfc',
      initialized: true,
      index: { kind: 'maple', tree: { height: 0, nodes: [] } } as unknown as State['index'],
      space: [0x1000n, 0x100000n],
      busy: [{ id: 2, vaStart: 0x10000n, vaEnd: 0x12000n, lazy: false, node: 0 }],
      chunks: [{ base: 0x10000n, limit: 0x20000n, bump: 0x12000n, pages: 2, ownerCpu: 0, current: true }],
    });
    expect(segments(s).map((x) => [x.state, x.start, x.end, x.id])).toEqual([
      ['free', 0x1000n, 0x10000n, null],
      ['busy', 0x10000n, 0x12000n, 2],
      ['gap', 0x12000n, 0x20000n, null],
      ['free', 0x20000n, 0x100000n, null],
    ]);
    // Not initialised yet: one gap, as for every profile.
    expect(segments({ ...s, initialized: false, busy: [], chunks: [] }).map((x) => x.state)).toEqual(['gap']);
  });

  it('draws a free block grown over the next one (merge both, before the next is erased) over its whole range', () => {
    // free-tree stop 7's micro-steps: #3 [0x101000, 0x200000) has taken in #0 [0x104000, 0x200000).
    const s = state({
      space: [0x100000n, 0x200000n],
      index: { kind: 'free_tree', root: 3, nodes: [node(3, 0x101000n, 0x200000n), node(0, 0x104000n, 0x200000n)] },
      busy: [{ id: 1, vaStart: 0x100000n, vaEnd: 0x101000n, lazy: false, node: 0 }],
    });
    expect(segments(s).map((x) => [x.state, x.id, x.start, x.end])).toEqual([
      ['busy', 1, 0x100000n, 0x101000n],
      ['free', 3, 0x101000n, 0x200000n],
    ]);
  });

  it('shows an uninitialised space as one gap', () => {
    const segs = segments(state({}));
    expect(segs).toHaveLength(1);
    expect(segs[0]).toMatchObject({ state: 'gap', start: 1n, end: 2n ** 64n - 1n });
  });
});

describe('placeSegments', () => {
  const segs = segments(
    state({
      index: { kind: 'free_tree', root: 0, nodes: [node(0, 1n, 0xffffc90000000000n), node(1, 0xffffc90000002000n, 2n ** 64n - 1n)] },
      busy: [{ id: 2, vaStart: 0xffffc90000000000n, vaEnd: 0xffffc90000002000n, lazy: false, node: 0 }],
    }),
  );

  it('tiles the bar in order with widths growing with log2 of the size', () => {
    const p = placeSegments(segs, 1000);
    expect(p[0].x).toBe(0);
    for (let i = 1; i < p.length; i++) expect(p[i].x).toBeCloseTo(p[i - 1].x + p[i - 1].width, 9);
    const total = p.reduce((a, s) => a + s.width, 0);
    expect(total).toBeCloseTo(1000, 6);
    // 8K (2^13) against ~16E (2^64): 13 : 64.
    expect(p[1].width / p[0].width).toBeCloseTo(13 / 64, 2);
    expect(weight(1n)).toBe(1);
  });

  it('keeps every segment at least minWidth wide, growing the bar if it must', () => {
    const p = placeSegments(segs, 100, 30);
    expect(p.every((s) => s.width >= 30)).toBe(true);
    const many = Array.from({ length: 50 }, () => segs[1]);
    const q = placeSegments(many, 100, 4);
    expect(q.every((s) => s.width === 4)).toBe(true);
    expect(q[49].x).toBe(196);
  });

  it('maps addresses to x linearly inside their segment', () => {
    const p = placeSegments(segs, 1000);
    expect(xOf(p, 1n)).toBe(0);
    expect(xOf(p, 0xffffc90000000000n)).toBeCloseTo(p[1].x, 6);
    expect(xOf(p, 0xffffc90000001000n)).toBeCloseTo(p[1].x + p[1].width / 2, 6);
    expect(xOf(p, 0n)).toBeNull();
  });
});

describe('placeTicks', () => {
  it('labels boundaries on rows without overlaps, always the last one', () => {
    const segs = segments(
      state({
        space: [0n, 0x100000n],
        busy: Array.from({ length: 40 }, (_, i) => ({
          id: i,
          vaStart: BigInt(i) * 0x1000n,
          vaEnd: BigInt(i + 1) * 0x1000n,
          lazy: false,
          node: 0,
        })),
      }),
    );
    const p = placeSegments(segs, 800);
    const ticks = placeTicks(p, 60, 2, 4);
    expect(ticks).toHaveLength(p.length + 1);
    expect(ticks[ticks.length - 1].row).toBeGreaterThanOrEqual(0);
    expect(ticks[0].row).toBe(0);
    expect(ticks.some((t) => t.row < 0)).toBe(true);
    for (const row of [0, 1]) {
      const boxes = ticks.filter((t) => t.row === row).map((t) => t.labelX).sort((a, b) => a - b);
      for (let i = 1; i < boxes.length; i++) expect(boxes[i] - boxes[i - 1]).toBeGreaterThanOrEqual(64);
    }
    for (const t of ticks) {
      expect(t.labelX).toBeGreaterThanOrEqual(0);
      expect(t.labelX + 60).toBeLessThanOrEqual(800 + 1e-9);
    }
  });
});

describe('clusterSegments', () => {
  it('keeps big blocks and cuts runs of small areas into clusters', () => {
    const busy = Array.from({ length: 100 }, (_, i) => ({
      id: i + 10,
      vaStart: 0xffffc90000000000n + BigInt(i) * 0x2000n,
      vaEnd: 0xffffc90000000000n + BigInt(i + 1) * 0x2000n,
      lazy: false,
      node: 0,
    }));
    const s = state({
      index: { kind: 'free_tree', root: 0, nodes: [node(0, 1n, 0xffffc90000000000n), node(1, 0xffffc900000c8000n, 2n ** 64n - 1n)] },
      busy,
    });
    const segs = segments(s);
    expect(clusterSegments(segs, 200)).toBe(segs);
    const c = clusterSegments(segs, 12);
    expect(c.length).toBeLessThanOrEqual(12);
    expect(c[0]).toMatchObject({ state: 'free', start: 1n });
    expect(c[c.length - 1]).toMatchObject({ state: 'free', end: 2n ** 64n - 1n });
    const clusters = c.filter((x) => x.state === 'cluster');
    expect(clusters.reduce((n, x) => n + ('counts' in x ? x.counts.busy : 0), 0)).toBe(100);
    for (let i = 1; i < c.length; i++) expect(c[i].start).toBe(c[i - 1].end);
  });

  it('changes only the clusters of the blocks an area leaves (keys stay put)', () => {
    // 1,300 pages, every ninth a hole, as a long trace leaves them; then the page after one hole
    // is freed too: its hole and the one before merge, one segment fewer than before.
    const at = (i: number) => 0xffffc90000000000n + BigInt(i) * 0x2000n;
    const area = (i: number) => ({ id: i + 10, vaStart: at(i), vaEnd: at(i + 1), lazy: false, node: 0 });
    const index = { kind: 'free_tree' as const, root: 0, nodes: [node(0, 1n, at(0)), node(1, at(1300), 2n ** 64n - 1n)] };
    const before = Array.from({ length: 1300 }, (_, i) => i).filter((i) => i % 9 !== 0);
    const a = clusterSegments(segments(state({ index, busy: before.map(area) })), 400);
    const b = clusterSegments(segments(state({ index, busy: before.filter((i) => i !== 9 * 70 + 1).map(area) })), 400);
    expect(a.length).toBeLessThanOrEqual(400);
    expect(b.length).toBeLessThanOrEqual(400);
    expect(a.filter((x) => x.state === 'cluster').length).toBeGreaterThan(100);
    // Every page is in exactly one item, in order, whichever way it is cut.
    for (const c of [a, b]) for (let i = 1; i < c.length; i++) expect(c[i].start).toBe(c[i - 1].end);
    const show = (x: (typeof a)[number]) => `${x.key} ${x.start} ${x.end} ${JSON.stringify('counts' in x ? x.counts : x.state)}`;
    const inB = new Set(b.map(show));
    const inA = new Set(a.map(show));
    const onlyA = a.filter((x) => !inB.has(show(x)));
    const onlyB = b.filter((x) => !inA.has(show(x)));
    // Only what holds the freed page changed (one cluster, or two when it sits on a block's edge).
    expect(onlyA.length).toBeGreaterThanOrEqual(1);
    expect(onlyA.length).toBeLessThanOrEqual(2);
    expect(onlyB.length).toBeLessThanOrEqual(2);
    for (const x of [...onlyA, ...onlyB]) expect(x.start <= at(9 * 70 + 1) && at(9 * 70) <= x.end).toBe(true);
  });
});
