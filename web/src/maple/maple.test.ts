// The maple bridge's parsing and notation, the stored ranges the address bar gets, the view's
// layout (no two boxes of a level overlap, parents over their children), the focus of a search,
// and the gap-update narration in the rbtree's words.
import { describe, expect, it } from 'vitest';
import { layoutMaple } from '../views/mapleTree';
import { mapleState, parseMapleFrames, parseMapleSnapshotValue, rangeId, rangeOfId, slotsNotation, storedRanges, type MapleNode } from './bridge';
import { mapleFocus, narrateMaple, searchOf } from './narrate';

/** As core/wasm/src/maple.rs writes it: an arange root over two leaves. */
const TREE = {
  height: 2,
  nodes: [
    {
      id: 4,
      parent: null,
      parent_slot: 0,
      depth: 0,
      type: 'arange',
      min: '0x0',
      max: '0xffffffffffffffff',
      end: 1,
      mgap: 1,
      slots: [
        { piv: '0x7fff', k: 'C', child: 1, gap: '0x1000' },
        { piv: '0xffffffffffffffff', k: 'C', child: 2, gap: '0xffffffffffff7fff' },
      ],
    },
    {
      id: 1,
      parent: 4,
      parent_slot: 0,
      depth: 1,
      type: 'leaf',
      min: '0x0',
      max: '0x7fff',
      end: 2,
      mgap: 0,
      slots: [
        { piv: '0xfff', k: 'N', child: null, gap: null },
        { piv: '0x2fff', k: 'E', child: null, gap: null },
        { piv: '0x7fff', k: 'E', child: null, gap: null },
      ],
    },
    {
      id: 2,
      parent: 4,
      parent_slot: 1,
      depth: 1,
      type: 'leaf',
      min: '0x8000',
      max: '0xffffffffffffffff',
      end: 0,
      mgap: 0,
      slots: [{ piv: '0xffffffffffffffff', k: 'N', child: null, gap: null }],
    },
  ],
};

describe('maple bridge', () => {
  const t = parseMapleSnapshotValue(TREE);

  it('parses nodes with bigint limits and writes the dump notation', () => {
    expect(t.height).toBe(2);
    expect(t.nodes.map((n) => n.id)).toEqual([4, 1, 2]);
    expect(t.nodes[0].max).toBe((1n << 64n) - 1n);
    expect(slotsNotation(t.nodes[0])).toBe('0:0x7fff:C:0x1000 1:0xffffffffffffffff:C:0xffffffffffff7fff');
    expect(slotsNotation(t.nodes[1])).toBe('0:0xfff:N 1:0x2fff:E 2:0x7fff:E');
    expect(() => parseMapleSnapshotValue({ height: 1, nodes: [{ ...TREE.nodes[1], type: 'bogus' }] })).toThrow(/unknown type/);
  });

  it('gives the address bar the stored ranges, named by leaf and slot', () => {
    const r = storedRanges(t);
    expect(r.map((a) => [a.vaStart, a.vaEnd])).toEqual([
      [0x1000n, 0x3000n],
      [0x3000n, 0x8000n],
    ]);
    expect(r.map((a) => rangeOfId(a.id))).toEqual([
      { node: 1, slot: 1 },
      { node: 1, slot: 2 },
    ]);
    expect(rangeId(1, 2)).toBe(r[1].id);
    expect(mapleState(t).busy).toBe(r);
  });

  it('lays out levels without overlap, each parent over its children', () => {
    const boxes = layoutMaple(t.nodes);
    const [root, a, b] = [4, 1, 2].map((id) => boxes.get(id)!);
    expect(a.y).toBe(b.y);
    expect(a.y).toBeGreaterThan(root.y + root.h);
    expect(a.x + a.w).toBeLessThanOrEqual(b.x);
    const mid = root.x + root.w / 2;
    expect(mid).toBeGreaterThanOrEqual(a.x);
    expect(mid).toBeLessThanOrEqual(b.x + b.w);
    // Collapsed below depth 0: only the root is laid out.
    expect([...layoutMaple(t.nodes, 0).keys()]).toEqual([4]);
  });
});

describe('maple narration and focus', () => {
  const before = TREE;
  // After erasing [0x1000, 0x2fff]: leaf 1's hole grows to 0x3000 and the root's gap[0] follows.
  const after = {
    ...TREE,
    nodes: [
      { ...TREE.nodes[0], slots: [{ ...TREE.nodes[0].slots[0], gap: '0x3000' }, TREE.nodes[0].slots[1]] },
      { ...TREE.nodes[1], end: 1, slots: [{ piv: '0x2fff', k: 'N', child: null, gap: null }, TREE.nodes[1].slots[2]] },
      TREE.nodes[2],
    ],
  };
  const frames = parseMapleFrames(
    JSON.stringify({
      index: 3,
      line: 5,
      text: 'erase 0x1000 0x2fff',
      output: 'erase 0x1000 0x2fff ok\n',
      trees: [before, after],
      frames: [
        { event: { kind: 'store_begin', first: '0x1000', last: '0x2fff', erase: true }, tree: 0 },
        { event: { kind: 'store_type', store: 'wr_node_store', node: 1, new_end: 1 }, tree: 0 },
        { event: { kind: 'gap_update', node: 4, slot: 0, gap: '0x3000', stop: true }, tree: 1 },
        { event: { kind: 'store_done', height: 2, nodes: 3 }, tree: 1 },
      ],
    }),
  )!;

  it('says a gap update and where it stops, as the rbtree propagation does', () => {
    const n = narrateMaple(frames, 2)!;
    expect(n.fn).toBe('mas_update_gap');
    // #4 is the root: the update stops there whatever its largest gap.
    expect(n.line).toBe('root');
    expect(n.text).toBe('gap of #4 slot 0 (child #1) now 12K (was 4K); #4 is the root: stop.');
    expect(narrateMaple(frames, 1)!.text).toContain('mas_wr_store_type chooses wr_node_store at leaf #1');
    expect(narrateMaple(frames, 9)).toBeNull();
  });

  it('tells two gaps that round to the same size apart in hex (not "≈16E (was ≈16E)")', () => {
    // The root's gap[0] from 2^64 - 0x3000 to 2^64 - 0x2000: both print as ≈16E.
    const wide = (g: string) => ({ ...TREE, nodes: [{ ...TREE.nodes[0], slots: [{ ...TREE.nodes[0].slots[0], gap: g }, TREE.nodes[0].slots[1]] }, TREE.nodes[1], TREE.nodes[2]] });
    const big = parseMapleFrames(
      JSON.stringify({
        index: 3,
        line: 5,
        text: 'erase 0x1000 0x2fff',
        output: 'erase 0x1000 0x2fff ok\n',
        trees: [wide('0xffffffffffffd000'), wide('0xffffffffffffe000')],
        frames: [{ event: { kind: 'gap_update', node: 4, slot: 0, gap: '0xffffffffffffe000', stop: true }, tree: 1 }],
      }),
    )!;
    expect(narrateMaple(big, 0)!.text).toBe('gap of #4 slot 0 (child #1) now 0xffffffffffffe000 (was 0xffffffffffffd000); #4 is the root: stop.');
  });

  it('tells no data end for a store chosen before mas_wr_new_end (a store into an empty tree)', () => {
    const root = parseMapleFrames(
      JSON.stringify({
        index: 0,
        line: 2,
        text: 'store 0x1000 0x1fff',
        output: 'store 0x1000 0x1fff ok\n',
        trees: [before, after],
        frames: [{ event: { kind: 'store_type', store: 'wr_store_root', node: null, new_end: 33 }, tree: 0 }],
      }),
    )!;
    const text = narrateMaple(root, 0)!.text;
    expect(text).toContain('wr_store_root');
    expect(text).not.toContain('data end');
    expect(text).not.toContain('33');
  });

  it('marks the store leaf, then the gap written and where it stopped', () => {
    const f = mapleFocus(frames, 2);
    expect(f.store).toBe(1);
    expect(f.path).toEqual([1, 4]);
    expect(f.gaps).toEqual([{ node: 4, slot: 0, stop: true, current: true }]);
    expect(mapleFocus(frames, 0).gaps).toEqual([]);
  });

  it('follows a search: scanned slots of the node visited, the hole found in the last fitting slot', () => {
    const search = parseMapleFrames(
      JSON.stringify({
        index: 0,
        line: 2,
        text: 'empty 0x0 0xffffffffffffffff 0x1000',
        output: '',
        trees: [before],
        frames: [
          { event: { kind: 'visit', node: 4, min: '0x0', max: '0xffffffffffffffff' }, tree: 0 },
          { event: { kind: 'scan', node: 4, slot: 0, gap: '0x1000', fits: true }, tree: 0 },
          { event: { kind: 'descend', node: 4, slot: 0 }, tree: 0 },
          { event: { kind: 'visit', node: 1, min: '0x0', max: '0x7fff' }, tree: 0 },
          { event: { kind: 'scan', node: 1, slot: 0, gap: '0x1000', fits: true }, tree: 0 },
          { event: { kind: 'found', index: '0x0', last: '0xfff' }, tree: 0 },
        ],
      }),
    )!;
    expect(mapleFocus(search, 1).scanned).toEqual(new Map([[0, true]]));
    const end = mapleFocus(search, 5);
    expect(end.path).toEqual([4, 1]);
    expect(end.found).toEqual({ node: 1, slot: 0 });
    expect(narrateMaple(search, 4)!.text).toBe(
      'Leaf #1 slot 0: the NULL range [0x0, 0xfff] lies inside the window, 0x1000 (4K) ≥ size 0x1000 (4K) → this is the hole.',
    );
    expect(narrateMaple(search, 5)!.text).toContain('index 0x0, last 0xfff');
    expect(searchOf('empty 0x10 0x20 0x4')).toEqual({ min: 0x10n, max: 0x20n, size: 4n });
    expect(searchOf('store 1 2')).toBeNull();
  });
});

// Keep the type import used when the file is type-checked alone.
export type { MapleNode };
