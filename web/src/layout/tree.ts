// The free tree as a nested structure for d3.hierarchy, built from the parent/left/right ids
// the core reports. A node with one child gets a placeholder (`nil`) on the other side, so a
// right child is drawn to the right and a left child to the left.
import type { FreeNode } from '../bridge';

export interface TreeDatum {
  /** Join key: `n<id>` for nodes, `nil-<parent id>-<side>` for placeholders. */
  key: string;
  node: FreeNode | null;
  side: 'left' | 'right' | null;
  children?: TreeDatum[];
}

/**
 * Nest the nodes under `rootId`. Throws when an id is missing or a node is reached twice, so a
 * malformed snapshot is caught instead of drawn wrong.
 */
export function nestTree(nodes: FreeNode[], rootId: number | null): TreeDatum | null {
  if (rootId === null) return null;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const seen = new Set<number>();
  const build = (id: number, side: TreeDatum['side']): TreeDatum => {
    const n = byId.get(id);
    if (!n) throw new Error(`free tree: node ${id} is referenced but not reported`);
    if (seen.has(id)) throw new Error(`free tree: node ${id} is reached twice`);
    seen.add(id);
    const d: TreeDatum = { key: `n${id}`, node: n, side };
    if (n.left !== null || n.right !== null) {
      d.children = [
        n.left !== null ? build(n.left, 'left') : nil(id, 'left'),
        n.right !== null ? build(n.right, 'right') : nil(id, 'right'),
      ];
    }
    return d;
  };
  return build(rootId, null);
}

function nil(parent: number, side: 'left' | 'right'): TreeDatum {
  return { key: `nil-${parent}-${side}`, node: null, side };
}

/** The root id of a pre-order snapshot: the node without a parent (or null when empty). */
export function rootOf(nodes: FreeNode[]): number | null {
  return nodes.find((n) => n.parent === null)?.id ?? null;
}

/** Height of the tree in levels (0 for an empty tree). */
export function treeHeight(nodes: FreeNode[]): number {
  return nodes.reduce((h, n) => Math.max(h, n.depth + 1), 0);
}

/**
 * Collapse the nested tree below `maxDepth` (the root is depth 0): the children of a node at
 * that depth are dropped, except on the paths to the ids in `keep` (nodes the current step is
 * about). Returns the pruned copy and, for each collapsed node id, how many nodes it hides.
 */
export function collapseBelow(
  root: TreeDatum | null,
  maxDepth: number,
  keep: ReadonlySet<number>,
): { tree: TreeDatum | null; hidden: Map<number, number> } {
  const hidden = new Map<number, number>();
  if (root === null || !Number.isFinite(maxDepth)) return { tree: root, hidden };
  const count = (d: TreeDatum): number =>
    (d.node ? 1 : 0) + (d.children ?? []).reduce((n, c) => n + count(c), 0);
  const holds = (d: TreeDatum): boolean =>
    (d.node !== null && keep.has(d.node.id)) || (d.children ?? []).some(holds);
  const walk = (d: TreeDatum, depth: number): TreeDatum => {
    if (!d.children) return d;
    if (depth >= maxDepth && !d.children.some(holds)) {
      const n = d.children.reduce((a, c) => a + count(c), 0);
      if (d.node && n > 0) hidden.set(d.node.id, n);
      return { ...d, children: undefined };
    }
    return { ...d, children: d.children.map((c) => walk(c, depth + 1)) };
  };
  return { tree: walk(root, 0), hidden };
}
