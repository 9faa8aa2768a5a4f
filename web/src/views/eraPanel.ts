// Each era's own structures, for lecture mode: the list walk's busy list (an era without a free
// tree: linux-5.1) with the search's `free_vmap_cache` and the walk's cursor, and the vmap nodes
// (an era with them: linux-6.9 on) with their pools by size and their lazy lists; which era has
// which is the core's registry's word (web/src/eras.ts). Only what the core reports: the state's busy,
// lazy and pooled areas after the micro-step shown, and the operation's events up to it (the
// cache and the cursor are the ones its `cache_use`, `cache_reset`, `walk_tree` and
// `walk_area` events name; the core's state does not carry `free_vmap_cache`).
import './eraPanel.css';
import type { State, StepEvent } from '../bridge';
import { eraOf, type Era } from '../eras';
import { el } from './common';

// Kept apart from ../format (a shared chunk of its own would cost the first open a request).
const hex = (v: bigint): string => `0x${v.toString(16)}`;
/** A page-multiple size as the bar labels it (4K, 12K, 2M). */
const size = (v: bigint): string => (v >= 1n << 20n && v % (1n << 20n) === 0n ? `${v >> 20n}M` : `${v >> 10n}K`);

export type EraKind = 'list' | 'nodes';

export interface ListModel {
  kind: 'list';
  areas: { id: number; start: bigint; end: bigint; cache: boolean; cursor: boolean }[];
  /** The cache the search used (an area id), dropped (why), or not reported in this operation. */
  cache: { id: number } | { dropped: string } | null;
  /** The walk's last step: the area it is at, its candidate address, cached_hole_size. */
  walk: { id: number; addr: bigint; hole: bigint | null } | null;
}

export interface NodesModel {
  kind: 'nodes';
  nodes: {
    node: number;
    busy: number;
    pools: { pool: number; sizes: bigint[]; hot: boolean }[];
    lazy: bigint[];
    lazyHot: boolean;
    hot: boolean;
  }[];
}

export type EraModel = ListModel | NodesModel;

const num = (v: unknown): number => Number(v);
const big = (v: unknown): bigint => BigInt(String(v));

/** What the era view shows for this state and these events (the operation's, up to the micro-step shown). */
export function eraModel(state: State, events: readonly StepEvent[], eras: readonly Era[]): EraModel | null {
  const era = eraOf(eras, state.profile);
  if (era?.freeTree === false) {
    let cache: ListModel['cache'] = null;
    let walk: ListModel['walk'] = null;
    for (const e of events) {
      if (e.kind === 'cache_use') cache = { id: num(e.id) };
      else if (e.kind === 'cache_reset') cache = { dropped: String(e.why) };
      else if (e.kind === 'walk_tree') walk = { id: num(e.id), addr: big(e.addr), hole: null };
      else if (e.kind === 'walk_area') walk = { id: num(e.id), addr: big(e.addr), hole: big(e.cached_hole_size) };
      else if (e.kind === 'allocated' || e.kind === 'alloc_failed') walk = null;
    }
    const cacheId = cache && 'id' in cache ? cache.id : null;
    return {
      kind: 'list',
      areas: state.busy.map((b) => ({ id: b.id, start: b.vaStart, end: b.vaEnd, cache: b.id === cacheId, cursor: walk?.id === b.id })),
      cache,
      walk,
    };
  }
  if (era?.vmapNodes) {
    const last = events.length ? events[events.length - 1] : null;
    const hotNode = last && 'node' in last && typeof last.node === 'number' && last.kind !== 'busy_overlap_missed' ? last.node : null;
    const hotPool = last && 'pool' in last && typeof last.pool === 'number' ? last.pool : null;
    // A lazy enqueue names the area: its node is the one whose lazy list holds it now.
    const enq = last?.kind === 'lazy_enqueue' ? num(last.id) : null;
    const lazyNode = enq === null ? null : (state.lazy.find((a) => a.id === enq)?.node ?? state.busy.find((a) => a.id === enq)?.node ?? null);
    const purge = last?.kind === 'purge_start' || last?.kind === 'purge_area' || last?.kind === 'purge_end';
    const nodes: NodesModel['nodes'] = [];
    for (let n = 0; n < Math.max(1, state.nrNodes); n++) {
      const pools = state.pools
        .filter((p) => p.node === n && p.entries.length > 0)
        .sort((a, b) => a.pool - b.pool)
        .map((p) => ({ pool: p.pool, sizes: p.entries.map((a) => a.vaEnd - a.vaStart), hot: hotNode === n && hotPool === p.pool }));
      // A pool the event names stays listed when empty (a miss, a decay that emptied it).
      if (hotNode === n && hotPool !== null && !pools.some((p) => p.pool === hotPool)) pools.push({ pool: hotPool, sizes: [], hot: true });
      pools.sort((a, b) => a.pool - b.pool);
      const lazy = state.lazy.filter((a) => a.node === n).map((a) => a.vaEnd - a.vaStart);
      const lazyHot = lazyNode === n || (purge && lazy.length > 0);
      nodes.push({ node: n, busy: state.busy.filter((b) => b.node === n && !b.lazy).length, pools, lazy, lazyHot, hot: hotNode === n || lazyHot });
    }
    return { kind: 'nodes', nodes };
  }
  return null;
}

/** Sizes as `8K ×2, 12K` (equal sizes counted). */
function sizes(list: bigint[]): string {
  const counts = new Map<bigint, number>();
  for (const s of list) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => (n > 1 ? `${size(s)} ×${n}` : size(s))).join(', ');
}

/** The era's panel: shown in lecture mode when the trace's era has structures of its own. */
export class EraPanel {
  readonly root: HTMLElement;

  constructor(
    before: Element,
    private readonly eras: readonly Era[],
  ) {
    this.root = el('section', 'era-panel');
    this.root.dataset.widget = 'era';
    this.root.hidden = true;
    before.before(this.root);
  }

  /** Draw for this state and events (`on`: lecture mode); returns what it shows. */
  render(state: State, events: readonly StepEvent[], on: boolean): EraKind | null {
    const m = on ? eraModel(state, events, this.eras) : null;
    this.root.hidden = m === null;
    if (!m) {
      delete this.root.dataset.era;
      this.root.replaceChildren();
      return null;
    }
    this.root.dataset.era = m.kind;
    this.root.setAttribute('aria-label', `${m.kind === 'list' ? 'Busy list' : 'vmap nodes'} (${state.profile})`);
    this.root.replaceChildren(...(m.kind === 'list' ? this.list(m) : this.nodes(m)));
    return m.kind;
  }

  private list(m: ListModel): HTMLElement[] {
    const head = el('p', 'era-head');
    head.append(el('strong', '', 'Busy list'), ' (vmap_area_list, by address)');
    const row = el('ol', 'era-list');
    for (const a of m.areas) {
      const li = row.appendChild(el('li', `era-area${a.cache ? ' cache' : ''}${a.cursor ? ' cursor' : ''}`));
      li.dataset.id = String(a.id);
      if (a.cache || a.cursor) li.dataset.lookItem = `busy area #${a.id}${a.cache ? ' (free_vmap_cache)' : ''}${a.cursor ? ' (walk)' : ''}`;
      if (a.cache) li.append(el('span', 'era-tag', 'cache'));
      if (a.cursor) li.append(el('span', 'era-tag walk', 'walk'));
      li.append(el('span', 'era-addr', hex(a.start)), el('span', 'era-size', size(a.end - a.start)));
      li.title = `busy area #${a.id} [${hex(a.start)}, ${hex(a.end)})`;
    }
    if (!m.areas.length) row.append(el('li', 'era-empty', 'no busy areas'));
    const facts = el('p', 'era-facts');
    facts.dataset.testid = 'era-facts';
    const c = m.cache;
    facts.append(
      el('span', 'era-fact', c === null ? 'free_vmap_cache: not used by this operation' : 'id' in c ? `free_vmap_cache: area #${c.id}` : `free_vmap_cache dropped (${c.dropped.replace(/_/g, ' ')})`),
    );
    if (m.walk) {
      facts.append(
        el('span', 'era-fact', `walk: at #${m.walk.id}, candidate ${hex(m.walk.addr)}${m.walk.hole !== null ? `, cached_hole_size ${hex(m.walk.hole)}` : ''}`),
      );
    }
    return [head, row, facts];
  }

  private nodes(m: NodesModel): HTMLElement[] {
    const head = el('p', 'era-head');
    head.append(el('strong', '', 'vmap nodes'), ' (per node: pools of cached free areas by size, the lazy list)');
    const row = el('div', 'era-nodes');
    for (const n of m.nodes) {
      const card = row.appendChild(el('div', `era-node${n.hot ? ' hot' : ''}`));
      card.dataset.node = String(n.node);
      if (n.hot) card.dataset.lookItem = `vmap node ${n.node}`;
      card.append(el('p', 'era-node-title', `node ${n.node} · ${n.busy} busy`));
      const pools = card.appendChild(el('ul', 'era-pools'));
      for (const p of n.pools) {
        const li = pools.appendChild(el('li', `era-pool${p.hot ? ' hot' : ''}`));
        li.dataset.pool = String(p.pool);
        li.append(el('span', 'era-key', `pool[${p.pool}]`), ` ${p.sizes.length ? sizes(p.sizes) : 'empty'}`);
      }
      if (!n.pools.length) pools.append(el('li', 'era-empty', 'pools empty'));
      const lazy = card.appendChild(el('p', `era-lazy${n.lazyHot ? ' hot' : ''}`));
      lazy.append(el('span', 'era-key', 'lazy'), ` ${n.lazy.length ? sizes(n.lazy) : 'empty'}`);
    }
    return [head, row];
  }
}
