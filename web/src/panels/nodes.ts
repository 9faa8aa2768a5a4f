// vmap nodes (linux-6.9): the areas coloured by the node that keeps them (busy areas by the zone
// of their start, 16-page zones; lazy areas on the node of the CPU that allocated them, as the
// core reports them; pooled areas by their pool's node), each node's
// non-empty pools with their entries in order, and what the last operation did to the pools.
import { select } from 'd3';
import { eraOf, type Era } from '../eras';
import { freeNodes, type FreeNode, type OpFrames, type State, type StepEvent } from '../bridge';
import { hex, range, size } from '../format';
import { placeSegments, segments, type PlacedSegment } from '../layout/space';
import { button, grouped, h } from './dom';
import { NODE_SCENARIOS, type Scenario } from './scenarios';

/** Node colours, distinguishable for the common colour-vision deficiencies; labels carry the number too. */
const NODE_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#7f7f7f'];

/** `a`, `a and b`, `a, b and c`. */
function list(names: string[]): string {
  return names.length < 2 ? (names[0] ?? 'no profile') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export function nodeColor(n: number): string {
  return NODE_COLORS[n % NODE_COLORS.length];
}

export interface NodesOptions {
  /** Open one of the 6.9 scenarios in the app. */
  openScenario: (s: Scenario) => void;
  /** The core's eras: the panel draws a state of an era with vmap nodes. */
  eras: readonly Era[];
}

export interface NodeInputs {
  state: State;
  /** The micro-steps of the latest operation that touched the pools (looking back a few), or null. */
  last: OpFrames | null;
  /** How many operations back `last` is (0: the operation just done). */
  lastAgo?: number;
}

interface StripSeg extends PlacedSegment {
  node: number | null;
}

const STRIP_H = 34;

export class NodesPanel {
  readonly root: HTMLElement;
  private readonly intro: HTMLElement;
  private readonly body: HTMLElement;
  private readonly strip: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly pools: HTMLElement;
  private readonly event: HTMLElement;
  private last: NodeInputs | null = null;

  private readonly eras: readonly Era[];

  constructor(opts: NodesOptions) {
    this.eras = opts.eras;
    this.intro = h(
      'div',
      { class: 'wb-empty', 'data-testid': 'nodes-intro' },
      h('p', {}, `Per-CPU vmap nodes and their pools exist in ${list(opts.eras.filter((e) => e.vmapNodes).map((e) => e.name))}. Open one of the linux-6.9 scenarios:`),
      h(
        'div',
        { class: 'wb-row' },
        ...NODE_SCENARIOS.map((s) => {
          const b = button(s.title, `scenario-${s.name}`, s.description);
          b.addEventListener('click', () => opts.openScenario(s));
          return b;
        }),
      ),
    );
    this.strip = h('div', { class: 'wb-node-strip', 'data-testid': 'node-strip' });
    this.legend = h('ul', { class: 'legend wb-node-legend', 'aria-label': 'Node colours' });
    this.event = h('p', { class: 'wb-pool-event', 'aria-live': 'polite', 'data-testid': 'pool-event' });
    this.pools = h('div', { class: 'wb-pools', 'data-testid': 'pools' });
    this.body = h(
      'div',
      { class: 'wb-nodes-body' },
      h('div', { class: 'wb-row wb-spread' }, h('h3', {}, 'Areas by vmap node'), this.legend),
      h('p', { class: 'wb-muted' }, 'Busy areas belong to the node owning the 16-page zone of their start address; a lazily freed area waits on the node of the CPU that allocated it; pooled areas sit in their node’s pools.'),
      this.strip,
      this.event,
      h('h3', {}, 'Pools'),
      this.pools,
      h(
        'div',
        { class: 'wb-row' },
        ...NODE_SCENARIOS.map((s) => {
          const b = button(s.title, `scenario-${s.name}`, s.description, 'btn btn-small');
          b.addEventListener('click', () => opts.openScenario(s));
          return b;
        }),
      ),
    );
    this.root = h('div', { class: 'wb-nodes', 'data-widget': 'nodes' }, this.intro, this.body);
    new ResizeObserver(() => this.last && this.drawStrip(this.last)).observe(this.strip);
  }

  render(inp: NodeInputs | null): void {
    const nodes = eraOf(this.eras, inp?.state.profile)?.vmapNodes === true;
    this.intro.hidden = nodes;
    this.body.hidden = !nodes;
    this.root.dataset.profile = inp?.state.profile ?? '';
    if (!inp || !nodes) return;
    this.last = inp;
    const st = inp.state;
    this.root.dataset.nodes = String(st.nrNodes);
    const items = Array.from({ length: Math.min(st.nrNodes, 16) }, (_, n) =>
      h('li', {}, h('span', { class: 'swatch wb-node-swatch', style: `background:${nodeColor(n)}` }, String(n)), `node ${n}`),
    );
    if (st.nrNodes > 16) items.push(h('li', {}, `… ${st.nrNodes} nodes`));
    this.legend.replaceChildren(...items);
    this.drawStrip(inp);
    this.renderPools(st);
    this.renderEvent(inp);
  }

  private drawStrip(inp: NodeInputs): void {
    const st = inp.state;
    const width = Math.max(320, this.strip.clientWidth - 4);
    const lazyNode = new Map(st.lazy.map((l) => [l.id, l.node]));
    const busyNode = new Map(st.busy.map((b) => [b.id, b.node]));
    const poolNode = new Map<number, number>();
    for (const p of st.pools) for (const e of p.entries) poolNode.set(e.id, p.node);
    const segs: StripSeg[] = placeSegments(segments(st), width, 6).map((s) => ({
      ...s,
      node:
        s.state === 'busy'
          ? (busyNode.get(s.id ?? -1) ?? null)
          : s.state === 'lazy'
            ? (lazyNode.get(s.id ?? -1) ?? busyNode.get(s.id ?? -1) ?? null)
            : s.state === 'pool'
              ? (poolNode.get(s.id ?? -1) ?? null)
              : null,
    }));
    const total = segs.length ? segs[segs.length - 1].x + segs[segs.length - 1].width : width;
    const svg = select(this.strip)
      .selectAll<SVGSVGElement, null>('svg')
      .data([null])
      .join('svg')
      .attr('class', 'wb-node-svg')
      .attr('role', 'img')
      .attr('aria-label', 'Areas coloured by the vmap node that keeps them')
      .attr('width', total + 4)
      .attr('height', STRIP_H + 4)
      .attr('viewBox', `-2 -2 ${total + 4} ${STRIP_H + 4}`);
    const g = svg
      .selectAll<SVGGElement, StripSeg>('g.seg')
      .data(segs, (d) => d.key)
      .join((enter) => {
        const e = enter.append('g').attr('class', 'seg');
        e.append('rect');
        e.append('text');
        e.append('title');
        return e;
      })
      .attr('class', (d) => `seg seg-${d.state}`)
      .attr('data-state', (d) => d.state)
      .attr('data-node', (d) => d.node)
      .attr('data-va-start', (d) => hex(d.start))
      .attr('data-va-end', (d) => hex(d.end))
      .attr('transform', (d) => `translate(${d.x},0)`);
    g.select('rect')
      .attr('width', (d) => Math.max(1, d.width - 1))
      .attr('height', STRIP_H)
      .attr('rx', 2)
      .style('fill', (d) => (d.node === null ? null : nodeColor(d.node)))
      .style('fill-opacity', (d) => (d.state === 'lazy' ? 0.45 : d.state === 'pool' ? 0.7 : null));
    g.select('text')
      .attr('x', (d) => d.width / 2)
      .attr('y', STRIP_H / 2 + 4)
      .text((d) => {
        if (d.node === null) return d.state === 'free' && d.width >= 40 ? 'free' : '';
        const tag = d.state === 'busy' ? '' : d.state === 'lazy' ? ' lazy' : ' pool';
        const long = `n${d.node}${tag}`;
        return d.width >= 7 * long.length + 6 ? long : d.width >= 20 ? `n${d.node}` : '';
      });
    g.select('title').text(
      (d) => `${d.state} ${range(d.start, d.end)} · ${size(d.end - d.start)}${d.node !== null ? ` · node ${d.node}` : ''}`,
    );
  }

  private renderPools(st: State): void {
    const cards = [];
    for (let n = 0; n < Math.min(st.nrNodes, 64); n++) {
      const pools = st.pools.filter((p) => p.node === n);
      const busy = st.busy.filter((b) => b.node === n && !b.lazy).length;
      const lazy = st.lazy.filter((l) => l.node === n).length;
      if (!pools.length && !busy && !lazy && n >= 8) continue;
      cards.push(
        h(
          'div',
          { class: 'wb-pool-node', 'data-node': n, 'data-testid': 'pool-node' },
          h(
            'h4',
            {},
            h('span', { class: 'swatch wb-node-swatch', style: `background:${nodeColor(n)}` }, String(n)),
            ` node ${n}`,
            h('small', {}, ` · ${busy} busy · ${lazy} lazy · ${pools.length ? `${pools.length} non-empty pool${pools.length === 1 ? '' : 's'}` : 'no pooled area'}`),
          ),
          pools.length
            ? h(
                'ul',
                { class: 'wb-pool-list' },
                ...pools.map((p) =>
                  h(
                    'li',
                    { 'data-testid': 'pool', 'data-node': p.node, 'data-pool': p.pool, 'data-len': p.entries.length },
                    h('span', { class: 'wb-pool-name' }, `pool ${p.pool}`, h('small', {}, ` ${p.pool + 1} page${p.pool ? 's' : ''} · ${p.entries.length} entr${p.entries.length === 1 ? 'y' : 'ies'}`)),
                    h(
                      'ol',
                      { class: 'wb-pool-entries' },
                      ...p.entries.map((e, i) =>
                        h('li', { class: i === 0 ? 'head' : '', 'data-va-start': hex(e.vaStart), title: i === 0 ? 'head: the only entry an allocation looks at' : '' }, h('code', {}, range(e.vaStart, e.vaEnd))),
                      ),
                    ),
                  ),
                ),
              )
            : null,
        ),
      );
    }
    this.pools.replaceChildren(...cards);
    this.pools.dataset.pooled = String(st.pools.reduce((a, p) => a + p.entries.length, 0));
  }

  private renderEvent(inp: NodeInputs): void {
    const f = inp.last;
    const lines = f ? poolStory(f) : [];
    this.event.replaceChildren();
    delete this.event.dataset.kind;
    delete this.event.dataset.treeUnchanged;
    if (!f || !lines.length) {
      this.event.hidden = true;
      return;
    }
    this.event.hidden = false;
    const kinds: string[] = f.frames.map((x) => x.event.kind);
    const main = ['reclaim', 'pool_hit', 'decay', 'pooled', 'pool_rotate', 'pool_miss'].find((k) =>
      k === 'reclaim' ? isReclaim(f) : kinds.includes(k),
    );
    if (main) this.event.dataset.kind = main;
    const same = sameTree(freeNodes(f.before.index), freeNodes(f.after.index));
    this.event.dataset.treeUnchanged = String(same);
    const ago = inp.lastAgo ?? 0;
    this.event.dataset.op = String(f.index + 1);
    this.event.append(h('strong', {}, `${ago === 0 ? 'The last operation' : `Operation ${f.index + 1}, ${ago} operation${ago === 1 ? '' : 's'} ago`}, `, h('code', {}, f.text), ': '), lines.join(' '));
    if (kinds.includes('pool_hit')) {
      this.event.append(
        ' ',
        h('em', {}, same ? `The free tree was not touched: the same ${grouped(freeNodes(f.after.index).length)} blocks, no search.` : 'The free tree changed.'),
      );
    }
  }
}

const POOL_EVENTS = new Set(['pool_hit', 'pool_rotate', 'pool_miss', 'decay', 'pooled', 'purge_start']);

/** Whether an operation did anything with the pools (or purged, which decays them). */
export function touchesPools(f: OpFrames): boolean {
  return f.frames.some((x) => POOL_EVENTS.has(x.event.kind));
}

function isReclaim(f: OpFrames): boolean {
  return f.frames.some((x) => x.event.kind === 'purge_start' && (x.event.cause === 'reclaim' || x.event.cause === 'alloc_retry'));
}

function sameTree(a: FreeNode[], b: FreeNode[]): boolean {
  return a.length === b.length && a.every((n, i) => n.id === b[i].id && n.vaStart === b[i].vaStart && n.vaEnd === b[i].vaEnd && n.black === b[i].black);
}

function field(e: StepEvent, k: string): string {
  const v = e[k];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '?';
}

/** Sentences for what an operation did to the pools (hits, rotations, misses, decay, pooling). */
export function poolStory(f: OpFrames): string[] {
  const out: string[] = [];
  let pooled = 0;
  let pooledWhere = '';
  const merged: string[] = [];
  let inPurge = false;
  for (const { event: e } of f.frames) {
    switch (e.kind) {
      case 'pool_hit':
        out.push(`pool hit: node ${field(e, 'node')}'s pool ${field(e, 'pool')} gave its head [${field(e, 'va_start')}, ${field(e, 'va_end')}) to the busy set.`);
        break;
      case 'pool_rotate':
        out.push(`the head [${field(e, 'va_start')}, ${field(e, 'va_end')}) of node ${field(e, 'node')}'s pool ${field(e, 'pool')} is misaligned for the request: it moved to the end of the pool.`);
        break;
      case 'pool_miss':
        out.push(`node ${field(e, 'node')}'s pool ${field(e, 'pool')} had nothing: the free tree answered.`);
        break;
      case 'merge_start':
        if (inPurge) merged.push(field(e, 'va_start'));
        break;
      case 'purge_end':
        inPurge = false;
        break;
      case 'decay':
        out.push(`decay: node ${field(e, 'node')}'s pool ${field(e, 'pool')} gave ${field(e, 'taken')} entr${Number(e.taken) === 1 ? 'y' : 'ies'} back to the free tree, kept ${field(e, 'kept')}.`);
        break;
      case 'pooled':
        pooled++;
        pooledWhere = `node ${field(e, 'node')}'s pool ${field(e, 'pool')}`;
        break;
      case 'purge_start':
        inPurge = true;
        if (e.cause === 'alloc_retry')
          out.push('the free-tree search failed, so the allocation reclaims: a purge with full decay (every pool emptied into the free tree), then searches once more.');
        else if (e.cause === 'reclaim') out.push('reclaim: a purge with full decay (every pool emptied into the free tree, lazy areas back to the tree).');
        break;
    }
  }
  if (pooled) out.push(`${pooled} lazy area${pooled === 1 ? '' : 's'} joined ${pooled === 1 ? pooledWhere : 'the pools'} at the head instead of the free tree.`);
  // The blocks a purge merges into the free tree (decayed pool entries, lazy areas not pooled), in order.
  if (merged.length) {
    const shown = merged.slice(0, 6).join(', ') + (merged.length > 6 ? ', …' : '');
    const big = merged.map((a) => BigInt(a));
    const desc = big.every((v, i) => i === 0 || v < big[i - 1]);
    const asc = big.every((v, i) => i === 0 || v > big[i - 1]);
    const order = merged.length > 1 && desc ? ' (descending)' : merged.length > 1 && asc ? ' (ascending)' : '';
    out.push(
      merged.length === 1
        ? `1 block went back into the free tree (${shown}).`
        : `${merged.length} blocks went back into the free tree, in this order${order}: ${shown}.`,
    );
  }
  return out;
}
