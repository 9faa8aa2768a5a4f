// The summary line of the header: profile, CPUs, counts of areas, lazy pages.
import { freeNodes, type Index, type State } from '../bridge';
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
  const leaves = i.tree.nodes.filter((n) => n.type === 'leaf');
  const used = leaves.reduce((n, l) => n + l.end + 1, 0);
  const fill = leaves.length > 0 ? `${((100 * used) / (16 * leaves.length)).toFixed(1)} %` : '–';
  return [
    ['height', 'tree height', String(i.tree.height)],
    ['leaf-fill', 'leaf fill', fill],
  ];
}

export class Stats {
  constructor(private readonly root: HTMLElement) {
    root.classList.add('stats');
  }

  render(state: State): void {
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
