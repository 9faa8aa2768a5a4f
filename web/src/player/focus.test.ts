// The focus of a rotation keeps the node above the rotated pair in view (issue 33: at 1280×720
// the insert fix-up's case 2 scrolled the grandparent away, so the three nodes it lines up were
// not all on screen).
import { describe, expect, it } from 'vitest';
import type { FreeNode, OpFrames } from '../bridge';
import { focusOf } from './focus';

function node(id: number, parent: number | null, left: number | null, right: number | null, depth: number): FreeNode {
  return { id, vaStart: BigInt(id) << 12n, vaEnd: (BigInt(id) + 1n) << 12n, subtreeMaxSize: 0x1000n, black: parent === null, parent, left, right, depth } as unknown as FreeNode;
}

describe('focusOf a rotation', () => {
  // After case 2's left rotation at the parent #1: the grandparent #0 holds the new node #3 as
  // its left child, and #1 hangs below #3.
  const nodes = new Map<number, FreeNode>([
    [0, node(0, null, 3, null, 0)],
    [3, node(3, 0, 1, null, 1)],
    [1, node(1, 3, null, null, 2)],
  ]);
  const frames = {
    frames: [{ event: { kind: 'rotate', phase: 'insert', case: 2, dir: 'left', old_top: 1, new_top: 3 } }],
  } as unknown as OpFrames;

  it('marks the pair, names the case, and keeps the grandparent in the context', () => {
    const f = focusOf(frames, 0, nodes);
    expect([...f.marks.keys()].sort()).toEqual([1, 3]);
    expect(f.callouts[0]).toMatchObject({ id: 3, text: 'rotate left (case 2)' });
    expect(f.context).toEqual([0]);
  });

  it('has no context when the new top is the root', () => {
    const root = new Map<number, FreeNode>([
      [3, node(3, null, 1, null, 0)],
      [1, node(1, 3, null, null, 1)],
    ]);
    expect(focusOf(frames, 0, root).context).toEqual([]);
  });
});
