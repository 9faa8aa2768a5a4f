import { describe, expect, it } from 'vitest';
import type { FreeNode } from '../bridge';
import { nestTree, rootOf, treeHeight, type TreeDatum } from './tree';

const n = (id: number, parent: number | null, left: number | null, right: number | null, depth: number): FreeNode => ({
  id,
  vaStart: BigInt(id) * 0x1000n,
  vaEnd: BigInt(id) * 0x1000n + 0x1000n,
  subtreeMaxSize: 0x1000n,
  black: true,
  parent,
  left,
  right,
  depth,
});

const shape = (d: TreeDatum | null): unknown =>
  d === null ? null : d.node === null ? 'nil' : d.children ? [d.node.id, ...d.children.map(shape)] : d.node.id;

describe('nestTree', () => {
  it('nests by left/right ids and pads a lone child with a nil on the other side', () => {
    // 4 has left 2 and right 6; 2 has only a right child 3; 6 has only a left child 5.
    const nodes = [n(4, null, 2, 6, 0), n(2, 4, null, 3, 1), n(3, 2, null, null, 2), n(6, 4, 5, null, 1), n(5, 6, null, null, 2)];
    const t = nestTree(nodes, rootOf(nodes));
    expect(shape(t)).toEqual([4, [2, 'nil', 3], [6, 5, 'nil']]);
    expect(t?.children?.[0].children?.[1].side).toBe('right');
    expect(t?.children?.[0].children?.[0].key).toBe('nil-2-left');
    expect(t?.key).toBe('n4');
    expect(treeHeight(nodes)).toBe(3);
  });

  it('handles the empty tree', () => {
    expect(nestTree([], rootOf([]))).toBeNull();
    expect(treeHeight([])).toBe(0);
  });

  it('refuses a node that is referenced but missing, or reached twice', () => {
    expect(() => nestTree([n(1, null, 2, null, 0)], 1)).toThrow(/node 2/);
    expect(() => nestTree([n(1, null, 2, 2, 0), n(2, 1, null, null, 1)], 1)).toThrow(/twice/);
  });
});
