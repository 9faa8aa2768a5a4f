// The frames of real operations, from the view's wasm build (web/src/pkg) through the bridge:
// the trees rebuilt from the core's deltas start on the state before each operation, end on
// the state after it, and are well-formed red-black trees in between.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { freeNodes, parseFrames, parseState, type FreeNode } from './bridge';
import { initSync, Vmapviz } from './pkg/vmapviz_wasm.js';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('./pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

/** 300 one-page areas, every third freed, then allocations of mixed sizes and more frees. */
function trace(): string {
  const lines = ['profile linux-6.1', 'init 0x100000 0x1000000'];
  for (let i = 0; i < 300; i++) lines.push('alloc 0x1000 0x1000 0x100000 0x1000000');
  for (let i = 0; i < 300; i += 3) lines.push(`free 0x${(0x100000 + i * 0x1000).toString(16)}`);
  for (let i = 0; i < 60; i++) lines.push(`alloc 0x${(((i * 7) % 5) + 1) * 0x1000} 0x1000 0x100000 0x1000000`);
  for (let i = 1; i < 300; i += 3) lines.push(`free 0x${(0x100000 + i * 0x1000).toString(16)}`);
  return lines.join('\n');
}

/** Pre-order from the root, parents and depths as the links say. */
function wellFormed(tree: FreeNode[]): void {
  const byId = new Map(tree.map((n) => [n.id, n]));
  const order: number[] = [];
  const walk = (id: number | null, parent: number | null, depth: number) => {
    if (id === null) return;
    const n = byId.get(id)!;
    expect(n.parent).toBe(parent);
    expect(n.depth).toBe(depth);
    order.push(id);
    walk(n.left, id, depth + 1);
    walk(n.right, id, depth + 1);
  };
  walk(tree[0]?.id ?? null, null, 0);
  expect(order).toEqual(tree.map((n) => n.id));
}

describe('frames from the wasm build', () => {
  it('rebuild every snapshot of every operation', () => {
    const v = Vmapviz.load(trace());
    let rotations = 0;
    for (let k = 0; k < v.len(); k++) {
      const f = parseFrames(v.frames(k))!;
      expect(f.trees[0]).toEqual(f.before.index);
      expect(f.trees.at(-1)).toEqual(parseState(v.state(k + 1)).index);
      expect(f.after.index).toEqual(parseState(v.state(k + 1)).index);
      for (const t of f.trees) wellFormed(freeNodes(t));
      for (const fr of f.frames) expect(fr.tree).toBeLessThan(f.trees.length);
      rotations += f.frames.filter((fr) => fr.event.kind === 'rotate').length;
    }
    expect(rotations).toBeGreaterThan(20);
    v.free();
  });
});
