import { describe, expect, it } from 'vitest';
import { CallerIndex, classLabel, human, parseCallers, parseDiff, parseFragmentation, parseSeries, thin } from './parse';

// The JSON as the facade writes it (core/wasm/src/frag.rs; the fixture of core/tests/suite/frag.rs):
// addresses as hex text, counts as numbers.
const FIG = {
  profile: 'linux-6.18',
  windows: [
    {
      name: 'vmalloc',
      start: '0xffffc90000000000',
      end: '0xffffe8ffffffffff',
      busy_areas: 3,
      busy_bytes: 28672,
      lazy_areas: 1,
      lazy_bytes: 8192,
      pooled_areas: 0,
      pooled_bytes: 0,
      free_bytes: 35184371974144,
      free_blocks: 4,
      largest_free: { start: '0xffffc90000015000', bytes: 35184371957759 },
      largest_hole: { start: '0xffffc9000000b000', bytes: 32768 },
      histogram: [
        { min_pages: 2, max_pages: 4, blocks: 2, bytes: 16384 },
        { min_pages: 8, max_pages: 16, blocks: 1, bytes: 32768 },
      ],
    },
  ],
  lazy: { pages: 2, areas: 1, online_cpus: 3, lazy_max_pages: 16384 },
  nodes: [{ node: 0, areas: 1, bytes: 8192, sizes: [{ pages: 2, areas: 1 }] }],
};

describe('fragmentation JSON', () => {
  it('reads every figure, addresses as bigints', () => {
    const f = parseFragmentation(JSON.stringify(FIG));
    const w = f.windows[0];
    expect(w.start).toBe(0xffffc90000000000n);
    expect(w.largestFree).toEqual({ start: 0xffffc90000015000n, bytes: 35184371957759 });
    expect(w.largestHole?.bytes).toBe(32768);
    expect(w.histogram.map(classLabel)).toEqual(['2-3', '8-15']);
    expect(f.lazy).toEqual({ pages: 2, areas: 1, onlineCpus: 3, lazyMaxPages: 16384 });
    expect(f.nodes[0].sizes).toEqual([{ pages: 2, areas: 1 }]);
  });

  it('refuses a shape that is not the contract', () => {
    expect(() => parseFragmentation(JSON.stringify({ ...FIG, windows: 'x' }))).toThrow(/windows: expected an array/);
    expect(() => parseFragmentation(JSON.stringify({ ...FIG, lazy: { ...FIG.lazy, pages: 'twelve' } }))).toThrow(/lazy.pages/);
    const noBlock = { ...FIG, windows: [{ ...FIG.windows[0], largest_free: null, largest_hole: null }] };
    expect(parseFragmentation(JSON.stringify(noBlock)).windows[0].largestFree).toBeNull();
  });

  it('labels size classes as the command line does', () => {
    const c = (minPages: number, maxPages: number) => classLabel({ minPages, maxPages, blocks: 1, bytes: 1 });
    expect([c(0, 1), c(1, 2), c(2, 4), c(4, 8), c(4294967296, 8589934592)]).toEqual(['<1', '1', '2-3', '4-7', '4294967296-8589934591']);
  });

  it('prints bytes in binary units to a tenth', () => {
    expect([human(0), human(1023), human(1024), human(20480), human(3 * 2 ** 40)]).toEqual(['0 B', '1023 B', '1.0 KiB', '20.0 KiB', '3.0 TiB']);
  });
});

describe('series, callers, diff', () => {
  it('reads a series point per state', () => {
    const p = parseSeries(JSON.stringify({ points: [{ step: 0, largest_free: 10, largest_hole: 0, free_blocks: 1, lazy_pages: 0, lazy_max_pages: 8192 }] }));
    expect(p).toEqual([{ step: 0, largestFree: 10, largestHole: 0, freeBlocks: 1, lazyPages: 0, lazyMaxPages: 8192 }]);
  });

  it('finds an area by its exact range first, then by its start; the later file first', () => {
    const area = (start: bigint, end: bigint, caller: string) => ({ start, end, bytes: Number(end - start), caller, flags: 'vmalloc', kind: 'vmalloc' });
    const idx = new CallerIndex();
    idx.add('before', [area(0x1000n, 0x3000n, 'a+0x1/0x2'), area(0x5000n, 0x6000n, 'b+0x1/0x2')]);
    idx.add('after', [area(0x1000n, 0x3000n, 'c+0x1/0x2')]);
    expect(idx.find(0x1000n, 0x3000n).map((x) => `${x.file}:${x.area.caller}`)).toEqual(['after:c+0x1/0x2', 'before:a+0x1/0x2']);
    expect(idx.find(0x5000n, 0x7000n).map((x) => x.area.caller)).toEqual(['b+0x1/0x2']);
    expect(idx.find(0x9000n, 0xa000n)).toEqual([]);
  });

  it('keeps callers as text', () => {
    const c = parseCallers(
      JSON.stringify({
        areas: [{ start: '0x1000', end: '0x3000', bytes: 8192, caller: '<img src=x>', flags: 'pages=1 vmalloc', kind: 'vmalloc' }],
        table: [{ caller: '<img src=x>', areas: 1, bytes: 8192, share: 100, kinds: ['vmalloc'] }],
      }),
    );
    expect(c.areas[0].caller).toBe('<img src=x>');
    expect(c.table[0].share).toBe(100);
  });

  it('reads a diff and refuses an unknown matching', () => {
    const side = { figures: FIG, address_kind: 'real', notes: [], callers: [] };
    const d = { diff: { matched_by: 'address', appeared: [{ line: 2, start: '0x1000', end: '0x2000', bytes: 4096, caller: 'x', kind: 'vmalloc' }], disappeared: [], became_lazy: [], unchanged: 3 }, a: side, b: side };
    const r = parseDiff(JSON.stringify(d));
    expect(r.appeared[0].start).toBe(0x1000n);
    expect(r.unchanged).toBe(3);
    expect(() => parseDiff(JSON.stringify({ ...d, diff: { ...d.diff, matched_by: 'luck' } }))).toThrow(/matched_by/);
  });

  it('thins points to at most the given count, the last kept', () => {
    const pts = Array.from({ length: 10 }, (_, i) => i);
    expect(thin(pts, 20)).toBe(pts);
    expect(thin(pts, 4)).toEqual([0, 3, 6, 9]);
    expect(thin(pts, 3)).toEqual([0, 5, 9]);
    const many = Array.from({ length: 20_001 }, (_, i) => i);
    const t = thin(many, 1200);
    expect(t.length).toBeLessThanOrEqual(1200);
    expect([t[0], t[t.length - 1]]).toEqual([0, 20_000]);
  });
});
