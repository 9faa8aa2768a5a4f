// The summary line of the header: profile, CPUs, counts of areas, lazy pages.
import { freeNodes, type Index, type State } from '../bridge';
import type { MapleSnapshot } from '../maple/bridge';
import { el } from './common';

/**
 * The free space as the era's index holds it: free blocks of the free tree, or for a maple tree
 * (maple-rfc keeps no free-block objects) its NULL holes, the NULL slots of its leaves.
 */
function freeItem(i: Index): [string, string, string] {
  if (i.kind === 'maple') {
    const holes = i.tree.nodes.reduce((n, x) => n + (x.type === 'leaf' ? x.slots.filter((s) => s.k === 'N').length : 0), 0);
    return ['free', 'NULL holes', String(holes)];
  }
  return ['free', 'free blocks', String(freeNodes(i).length)];
}

/**
 * A maple tree's shape (spec §11.11): its height and its leaves' fill (used slots of 16 per
 * leaf), read from the tree the core reports; nothing for a free tree.
 */
function mapleShape(i: Index): [string, string, string][] {
  if (i.kind !== 'maple') return [];
  return [
    ['height', 'tree height', String(i.tree.height)],
    ['leaf-fill', 'leaf fill', leafFill(i.tree.nodes)],
  ];
}

/** Leaf fill of a maple tree's leaves: used slots of 16 per leaf. */
function leafFill(nodes: readonly { type: string; end: number }[]): string {
  const leaves = nodes.filter((n) => n.type === 'leaf');
  const used = leaves.reduce((n, l) => n + l.end + 1, 0);
  return leaves.length > 0 ? `${((100 * used) / (16 * leaves.length)).toFixed(1)} %` : '–';
}

/**
 * A `profile maple-tree` trace is one maple tree, no allocator: its stored ranges, NULL ranges,
 * height, nodes and leaf fill (no CPUs, busy or lazy areas).
 */
function mapleTreeItems(t: MapleSnapshot): [string, string, string][] {
  const leaves = t.nodes.filter((n) => n.type === 'leaf');
  const count = (k: string) => leaves.reduce((n, l) => n + l.slots.filter((s) => s.k === k).length, 0);
  // An empty tree (root NULL) is one NULL range over the whole index space.
  const holes = t.nodes.length === 0 ? 1 : count('N');
  return [
    ['profile', 'profile', 'maple-tree'],
    ['stored', 'stored ranges', String(count('E'))],
    ['free', 'NULL ranges', String(holes)],
    ['height', 'tree height', String(t.height)],
    ['nodes', 'nodes', String(t.nodes.length)],
    ['leaf-fill', 'leaf fill', leafFill(t.nodes)],
  ];
}

export class Stats {
  constructor(private readonly root: HTMLElement) {
    root.classList.add('stats');
  }

  /** The counters of `state`, or of the maple tree `maple` (a `profile maple-tree` trace). */
  render(state: State, maple?: MapleSnapshot): void {
    if (maple) {
      this.show(mapleTreeItems(maple));
      return;
    }
    const lazyAreas = state.busy.filter((b) => b.lazy).length + state.lazy.length;
    const pooled = state.pools.reduce((n, p) => n + p.entries.length, 0);
    const items: [string, string, string][] = [
      ['profile', 'profile', state.profile],
      ['cpus', 'CPUs', String(state.cpus)],
      freeItem(state.index),
      ['busy', 'busy areas', String(state.busy.length - state.busy.filter((b) => b.lazy).length)],
      ['lazy', 'lazy areas', String(lazyAreas)],
      ['lazy-pages', 'lazy pages', `${state.lazyNr} / ${state.lazyMax}`],
    ];
    if (state.nrNodes > 1 || pooled) items.push(['pooled', 'pooled', String(pooled)]);
    items.push(...mapleShape(state.index));
    this.show(items);
  }

  private show(items: [string, string, string][]): void {
    this.root.replaceChildren(
      ...items.map(([key, name, value]) => {
        const d = el('div', `stat stat-${key}`);
        d.dataset.stat = key;
        d.append(el('dt', '', name), el('dd', '', value));
        return d;
      }),
    );
  }
}
