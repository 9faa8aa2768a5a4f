// The maple tree view: a B-tree of ranges drawn as boxes of slot cells, keyed by node id so that
// a split, a rebalance or a new root moves boxes instead of redrawing them. Each cell shows its
// slot's range size (the page's K/M/G units; the exact inclusive range in its tooltip) and its
// content: an in-use entry, a NULL hole with its size, or a child; arange nodes draw their gap[]
// per slot as a bar (scaled to the node's largest gap) and mark the slot `meta.gap` names. A
// node's header tells its id, type and fill. A step's focus marks the search path, the slot
// being scanned (fits or not), the hole found, the gap just written and where propagation stops.
//
// Large trees: d3-zoom, a fit that stays readable (it follows the node the step is about when
// the whole tree would be too small), collapse below a depth, and a level of detail that drops
// text before boxes. Every node, drawn or collapsed, is an element with `data-maple-depth`,
// `data-maple-type`, `data-maple-min`, `data-maple-max` and `data-maple-slots` (the dump's
// notation), so a test can compare the page with the core's dump node by node.
//
// It takes a plain `MapleSnapshot` (web/src/maple/bridge.ts): any source of a maple tree (the
// maple-tree trace, an allocator profile's occupied tree) can feed it.
import { select, zoom, zoomIdentity, type D3ZoomEvent, type Selection, type ZoomBehavior, type ZoomTransform } from 'd3';
import { hex, size } from '../format';
import { rangeId, rangeOfId, slotCount, slotsNotation, type MapleNode, type MapleSnapshot } from '../maple/bridge';
import { el } from './common';

export const CELL_W = 62;
export const CELL_H = 46;
const HEAD_H = 18;
const GAP_H = 12;
const LEVEL_GAP = 56;
const SIB_GAP = 18;
const MARGIN = 24;
/** Cell text size (user units; style in mapleTree.css). */
export const CELL_FONT = 11;
/** Below this on-screen text size the cells drop their text (level of detail). */
const LOD_TEXT_PX = 6;
/** The auto fit never makes cell text smaller than this on screen (px): it follows the step instead. */
const READABLE_PX = 8.5;
/** In lecture mode, as the rbtree view: node text at least this on screen. */
export const MAPLE_LECTURE_PX = 16.5;

export interface MapleFocus {
  /** Nodes the current search (or store) went through, in order. */
  path: number[];
  /** The node the step is about. */
  node: number | null;
  /** Scanned slots of `node` in this visit: slot → fits. */
  scanned: Map<number, boolean>;
  /** The slot the step is about (scan, descend, skip, gap update). */
  slot: number | null;
  /** The hole found: its leaf and slot. */
  found: { node: number; slot: number } | null;
  /** Gap updates of this operation so far: node → slots written; `stop` marks where it ended. */
  gaps: { node: number; slot: number; stop: boolean; current: boolean }[];
  /** A store's leaf. */
  store: number | null;
}

export const NO_MAPLE_FOCUS: MapleFocus = { path: [], node: null, scanned: new Map(), slot: null, found: null, gaps: [], store: null };

export interface MapleViewOptions {
  /** Hover on a stored range (its address-bar id, see `rangeId`) or null. */
  onHover?: (id: number | null) => void;
}

export interface MapleRenderOptions {
  focus?: MapleFocus;
  duration?: number;
  lecture?: boolean;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Width of a node's box: all its slots (used and free), so fill reads at a glance. */
export function nodeWidth(n: MapleNode): number {
  return slotCount(n.type) * CELL_W;
}

export function nodeHeight(n: MapleNode): number {
  return HEAD_H + CELL_H + (n.type === 'arange' ? GAP_H : 0);
}

/**
 * Tidy layout of a pre-order snapshot: each subtree takes the larger of its own box and its
 * children side by side; a parent is centred over its children. Nodes deeper than `maxDepth`
 * are left out (the caller draws placeholders). Pure: returns boxes by node id.
 */
export function layoutMaple(nodes: MapleNode[], maxDepth = Infinity): Map<number, Box> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const kids = new Map<number, number[]>();
  for (const n of nodes) if (n.parent !== null) (kids.get(n.parent) ?? kids.set(n.parent, []).get(n.parent)!).push(n.id);
  const levelY: number[] = [];
  let y = 0;
  for (let d = 0; d <= Math.max(0, ...nodes.map((n) => n.depth)); d++) {
    levelY[d] = y;
    y += HEAD_H + CELL_H + GAP_H + LEVEL_GAP;
  }
  const width = new Map<number, number>();
  // Post-order widths (reverse pre-order visits children before parents).
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i];
    if (n.depth > maxDepth) continue;
    const cs = n.depth < maxDepth ? (kids.get(n.id) ?? []) : [];
    const sum = cs.reduce((s, c) => s + (width.get(c) ?? 0), 0) + Math.max(0, cs.length - 1) * SIB_GAP;
    width.set(n.id, Math.max(nodeWidth(n), sum));
  }
  const out = new Map<number, Box>();
  const place = (id: number, left: number) => {
    const n = byId.get(id);
    if (!n) return;
    const w = width.get(id) ?? nodeWidth(n);
    const nw = nodeWidth(n);
    out.set(id, { x: left + (w - nw) / 2, y: levelY[n.depth] ?? 0, w: nw, h: nodeHeight(n) });
    if (n.depth >= maxDepth) return;
    const cs = kids.get(id) ?? [];
    const sum = cs.reduce((s, c) => s + (width.get(c) ?? 0), 0) + Math.max(0, cs.length - 1) * SIB_GAP;
    let x = left + (w - sum) / 2;
    for (const c of cs) {
      place(c, x);
      x += (width.get(c) ?? 0) + SIB_GAP;
    }
  };
  if (nodes.length) place(nodes[0].id, 0);
  return out;
}

interface Cell {
  key: string;
  node: MapleNode;
  i: number;
  lo: bigint;
  hi: bigint;
  used: boolean;
}

function cellsOf(n: MapleNode): Cell[] {
  const out: Cell[] = [];
  let lo = n.min;
  for (let i = 0; i < slotCount(n.type); i++) {
    const s = n.slots[i];
    if (s) {
      out.push({ key: `${i}`, node: n, i, lo, hi: s.piv, used: true });
      lo = s.piv + 1n;
    } else out.push({ key: `${i}`, node: n, i, lo: 0n, hi: 0n, used: false });
  }
  return out;
}

function content(c: Cell): { cls: string; top: string; bottom: string; title: string } {
  const s = c.node.slots[c.i];
  if (!c.used || !s) return { cls: 'unused', top: '', bottom: '', title: `slot ${c.i}: unused` };
  const span = c.hi - c.lo + 1n;
  const r = `[${hex(c.lo)}, ${hex(c.hi)}]`;
  if (s.k === 'E') return { cls: 'entry', top: size(span), bottom: 'in use', title: `slot ${c.i} ${r}: in use (zero entry), ${size(span)}` };
  if (s.k === 'N') return { cls: 'null', top: size(span), bottom: 'NULL', title: `slot ${c.i} ${r}: NULL hole of ${size(span)}` };
  const gap = s.gap !== null ? `, gap ${size(s.gap)}` : '';
  return { cls: 'child', top: size(span), bottom: `→ #${String(s.child)}`, title: `slot ${c.i} ${r}: child #${String(s.child)}${gap}` };
}

const notations = new WeakMap<MapleNode, string>();

/** The dump notation of a node's slots, computed once per node object. */
function notation(n: MapleNode): string {
  let s = notations.get(n);
  if (s === undefined) {
    s = slotsNotation(n);
    notations.set(n, s);
  }
  return s;
}

/** A node's content, for skipping unchanged nodes on redraw. */
function signature(n: MapleNode): string {
  return `${n.type}|${n.depth}|${n.min}|${n.max}|${n.mgap}|${notation(n)}|${n.slots.map((s) => s.child ?? '').join(',')}`;
}

type NodeEl = SVGGElement & { __sig?: string; __focus?: string };

export class MapleTreeView {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly viewport: Selection<SVGGElement, unknown, null, undefined>;
  private readonly links: Selection<SVGGElement, unknown, null, undefined>;
  private readonly layer: Selection<SVGGElement, unknown, null, undefined>;
  private readonly hiddenLayer: Selection<SVGGElement, unknown, null, undefined>;
  private readonly zoomer: ZoomBehavior<SVGSVGElement, unknown>;
  private readonly empty: HTMLElement;
  private readonly depthSelect: HTMLSelectElement;
  private readonly fitButton: HTMLButtonElement;
  private snap: MapleSnapshot | null = null;
  private opts: MapleRenderOptions = {};
  private boxes = new Map<number, Box>();
  private bounds = { x0: 0, x1: 0, y0: 0, y1: 0 };
  private transform: ZoomTransform = zoomIdentity;
  private autoFit = true;
  private programmatic = false;
  private maxDepth = Infinity;
  private size = { w: 0, h: 0 };
  private hovered: number | null = null;
  private shape = '';
  /** The shape whose positions the nodes were last moved to. */
  private laidOut = '';
  private redrawQueued = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: MapleViewOptions = {},
  ) {
    // The free tree's panel sizing (and lecture layout) applies; its node styles do not (maple-* classes).
    root.classList.add('free-tree', 'maple-tree');
    const bar = root.appendChild(el('div', 'tree-toolbar'));
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Maple tree view');
    const button = (cls: string, text: string, title: string) => {
      const b = bar.appendChild(el('button', `btn btn-small ${cls}`, text));
      b.type = 'button';
      b.title = title;
      b.setAttribute('aria-label', title);
      return b;
    };
    this.fitButton = button('fit', 'Fit', 'Fit the tree to the panel, readable (and keep fitting)');
    const whole = button('whole', 'Whole', 'Show the whole tree, however small');
    const zoomOut = button('zoom-out', '−', 'Zoom out');
    const zoomIn = button('zoom-in', '+', 'Zoom in');
    const lab = bar.appendChild(el('label', 'depth-label', 'Depth '));
    this.depthSelect = lab.appendChild(el('select', 'depth'));
    this.depthSelect.setAttribute('aria-label', 'Collapse the tree below a depth');
    for (const v of ['all', '0', '1', '2', '3']) {
      const o = this.depthSelect.appendChild(el('option', '', v === 'all' ? 'all' : `≤ ${v}`));
      o.value = v;
    }
    this.depthSelect.addEventListener('change', () => {
      this.maxDepth = this.depthSelect.value === 'all' ? Infinity : Number(this.depthSelect.value);
      this.autoFit = true;
      this.shape = '';
      this.rerender();
    });
    this.fitButton.addEventListener('click', () => {
      this.setAutoFit(true);
      this.setTransform(this.fitTransform(false), 250);
    });
    whole.addEventListener('click', () => {
      this.setAutoFit(false);
      this.setTransform(this.fitTransform(true), 250);
    });
    zoomIn.addEventListener('click', () => this.zoomBy(1.4));
    zoomOut.addEventListener('click', () => this.zoomBy(1 / 1.4));
    const legend = root.appendChild(el('p', 'maple-legend'));
    legend.innerHTML =
      '<span class="sw entry"></span>in use <span class="sw null"></span>NULL hole <span class="sw child"></span>child ' +
      '<span class="sw gapbar"></span>gap[] (★ meta.gap) <span class="sw path"></span>search path <span class="sw scan"></span>scanned';
    this.empty = root.appendChild(el('p', 'empty'));
    this.empty.hidden = true;
    this.svg = select(root).append('svg').attr('class', 'maple-tree-svg').attr('role', 'img').attr('aria-label', 'Maple tree');
    this.viewport = this.svg.append('g').attr('class', 'viewport');
    this.links = this.viewport.append('g').attr('class', 'maple-links');
    this.layer = this.viewport.append('g').attr('class', 'maple-nodes');
    this.hiddenLayer = this.viewport.append('g').attr('class', 'maple-hidden').attr('display', 'none');
    this.zoomer = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.005, 4])
      .extent((): [[number, number], [number, number]] => {
        if (!this.size.w) this.measure();
        return [
          [0, 0],
          [this.size.w, this.size.h],
        ];
      })
      .on('zoom', (e: D3ZoomEvent<SVGSVGElement, unknown>) => {
        this.transform = e.transform;
        this.viewport.attr('transform', e.transform.toString());
        this.levelOfDetail();
        if (e.sourceEvent && !this.programmatic) {
          this.setAutoFit(false);
          // A pan or a zoom brings other nodes near the screen: draw them on the next frame.
          if (!this.redrawQueued) {
            this.redrawQueued = true;
            requestAnimationFrame(() => {
              this.redrawQueued = false;
              this.rerender();
            });
          }
        }
      });
    this.svg.call(this.zoomer).on('dblclick.zoom', null);
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      if (r.width === this.size.w && r.height === this.size.h) return;
      this.size = { w: r.width, h: r.height };
      this.rerender();
    }).observe(this.svg.node() as SVGSVGElement);
  }

  private measure(): void {
    const box = (this.svg.node() as SVGSVGElement).getBoundingClientRect();
    this.size = { w: box.width, h: box.height };
  }

  private rerender(): void {
    if (this.snap) this.render(this.snap, { ...this.opts, duration: 0 });
  }

  private setAutoFit(on: boolean): void {
    if (this.autoFit === on && this.root.dataset.autoFit === String(on)) return;
    this.autoFit = on;
    this.fitButton.classList.toggle('active', on);
    this.root.dataset.autoFit = String(on);
  }

  /** Draw a snapshot with a step's focus. */
  render(snap: MapleSnapshot, options: MapleRenderOptions = {}): void {
    this.snap = snap;
    this.opts = options;
    const focus = options.focus ?? NO_MAPLE_FOCUS;
    const ms = options.duration ?? 0;
    const nodes = snap.nodes;
    this.data('nodes', String(nodes.length));
    this.data('height', String(snap.height));
    this.empty.hidden = nodes.length > 0;
    this.empty.textContent = 'The tree is empty (root NULL): the first store creates a root leaf.';
    const shape = `${this.maxDepth}|${nodes.map((n) => `${n.id}:${n.type}:${n.parent ?? ''}`).join(',')}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.boxes = layoutMaple(nodes, this.maxDepth);
      let x0 = Infinity;
      let x1 = -Infinity;
      let y1 = 0;
      for (const b of this.boxes.values()) {
        x0 = Math.min(x0, b.x);
        x1 = Math.max(x1, b.x + b.w);
        y1 = Math.max(y1, b.y + b.h);
      }
      if (!this.boxes.size) x0 = x1 = 0;
      this.bounds = { x0: x0 - MARGIN, x1: x1 + MARGIN, y0: -MARGIN, y1: y1 + MARGIN };
    }
    if (!this.size.w) this.measure();
    const target = this.autoFit ? this.fitTransform(false, focus) : this.transform;
    // Only the nodes near the screen (where the view is and where it goes) and the focus's are
    // drawn: a few thousand offscreen cells would cost every frame. The others are placeholders.
    const near = this.nearScreen([this.transform, target]);
    const keep = new Set([...focus.path, focus.node, focus.store]);
    const drawn: MapleNode[] = [];
    const hidden: MapleNode[] = [];
    for (const n of nodes) {
      const b = this.boxes.get(n.id);
      if (b && (near(b) || keep.has(n.id))) drawn.push(n);
      else hidden.push(n);
    }
    this.data('drawn', String(drawn.length));
    this.drawLinks(drawn, focus, ms);
    this.drawNodes(drawn, focus, ms);
    this.drawHidden(hidden);
    if (target !== this.transform) this.setTransform(target, ms);
    this.levelOfDetail();
  }

  /** Whether a box is within a screen's margin of the view under any of the transforms. */
  private nearScreen(ts: ZoomTransform[]): (b: Box) => boolean {
    const { w, h } = this.size;
    const rects = ts.map((t) => {
      const m = 2 * CELL_W * 16;
      return [-t.x / t.k - m, (w - t.x) / t.k + m, -t.y / t.k - m, (h - t.y) / t.k + m];
    });
    return (b) => !w || rects.some((r) => b.x + b.w >= r[0] && b.x <= r[1] && b.y + b.h >= r[2] && b.y <= r[3]);
  }

  /** Outline the cell of a stored range (from the address bar's hover), or none. */
  highlightRange(id: number | null): void {
    const was = this.hovered;
    this.hovered = id;
    // Only the leaves of the old and the new range change.
    const nodes = new Set([was, id].filter((x): x is number => x !== null).map((x) => rangeOfId(x).node));
    this.layer
      .selectAll<SVGGElement, MapleNode>('g.maple-node')
      .filter((d) => nodes.has(d.id))
      .each(function () {
        (this as NodeEl).__focus = undefined;
      })
      .selectAll<SVGGElement, Cell>('g.maple-cell')
      .classed('hover', (c) => id !== null && rangeId(c.node.id, c.i) === id);
  }

  fit(ms = 0): void {
    this.setAutoFit(true);
    this.setTransform(this.fitTransform(false, this.opts.focus), ms);
  }

  /** Show the whole tree, however small (the Whole button): for small copies of the view. */
  fitWhole(ms = 0): void {
    this.setAutoFit(false);
    this.setTransform(this.fitTransform(true), ms);
  }

  private drawLinks(nodes: MapleNode[], focus: MapleFocus, ms: number): void {
    const onPath = new Set(focus.path);
    const data = nodes.filter((n) => n.parent !== null && this.boxes.has(n.parent));
    const path = (n: MapleNode) => {
      const p = this.boxes.get(n.parent as number) as Box;
      const c = this.boxes.get(n.id) as Box;
      const sx = p.x + (n.parentSlot + 0.5) * CELL_W;
      const sy = p.y + p.h;
      const tx = c.x + c.w / 2;
      const ty = c.y;
      const my = (sy + ty) / 2;
      return `M${sx},${sy}C${sx},${my} ${tx},${my} ${tx},${ty}`;
    };
    const sel = this.links
      .selectAll<SVGPathElement, MapleNode>('path.maple-link')
      .data(data, (d) => String(d.id))
      .join((e) => e.append('path').attr('class', 'maple-link').attr('d', path));
    sel.classed('on-path', (d) => onPath.has(d.id) && d.parent !== null && onPath.has(d.parent));
    if (ms > 0) sel.transition().duration(ms).attr('d', path);
    else if (this.laidOut !== this.shape) sel.attr('d', path);
  }

  private drawNodes(nodes: MapleNode[], focus: MapleFocus, ms: number): void {
    const onPath = new Set(focus.path);
    const gapAt = new Map<string, { stop: boolean; current: boolean }>();
    for (const g of focus.gaps) gapAt.set(`${g.node}:${g.slot}`, g);
    const sel = this.layer
      .selectAll<SVGGElement, MapleNode>('g.maple-node')
      .data(nodes, (d) => String(d.id))
      .join(
        (enter) => {
          const g = enter.append('g').attr('class', 'maple-node');
          g.attr('transform', (d) => this.at(d));
          g.append('rect').attr('class', 'frame');
          g.append('text').attr('class', 'head');
          g.append('g').attr('class', 'cells');
          return g;
        },
        (update) => update,
        (exit) => exit.remove(),
      );
    sel
      .classed('on-path', (d) => onPath.has(d.id))
      .classed('current', (d) => d.id === focus.node)
      .classed('store-leaf', (d) => d.id === focus.store);
    if (ms > 0) sel.transition().duration(ms).attr('transform', (d) => this.at(d));
    else if (this.laidOut !== this.shape) sel.attr('transform', (d) => this.at(d));
    this.laidOut = this.shape;
    const me = this;
    sel.each(function (d) {
      const g = this as NodeEl;
      const sig = signature(d);
      if (g.__sig !== sig) {
        g.__sig = sig;
        g.__focus = undefined;
        select(g)
          .attr('data-maple-id', d.id)
          .attr('data-maple-depth', d.depth)
          .attr('data-maple-type', d.type)
          .attr('data-maple-min', hex(d.min))
          .attr('data-maple-max', hex(d.max))
          .attr('data-maple-end', d.end)
          .attr('data-maple-slots', notation(d));
        me.drawCells(select(g), d);
      }
    });
    // Focus classes on cells: only where this node's focus changed since it was last drawn.
    sel.each(function (d) {
      const cur = d.id === focus.node;
      const g = this as NodeEl;
      const mine = focus.gaps.filter((x) => x.node === d.id);
      const key = `${cur ? `${focus.slot}|${[...focus.scanned].join(',')}` : ''}|${focus.found?.node === d.id ? focus.found.slot : ''}|${mine
        .map((x) => `${x.slot}${x.stop ? 's' : ''}${x.current ? 'c' : ''}`)
        .join(',')}|${me.hovered !== null && rangeOfId(me.hovered).node === d.id ? me.hovered : ''}`;
      if (g.__focus === key) return;
      g.__focus = key;
      select(this)
        .selectAll<SVGGElement, Cell>('g.maple-cell')
        .classed('scanned', (c) => cur && focus.scanned.has(c.i))
        .classed('fits', (c) => cur && focus.scanned.get(c.i) === true)
        .classed('nofit', (c) => cur && focus.scanned.get(c.i) === false)
        .classed('at-slot', (c) => cur && focus.slot === c.i)
        .classed('found', (c) => focus.found !== null && focus.found.node === d.id && focus.found.slot === c.i)
        .classed('gap-written', (c) => gapAt.has(`${d.id}:${c.i}`))
        .classed('gap-current', (c) => gapAt.get(`${d.id}:${c.i}`)?.current === true)
        .classed('gap-stop', (c) => gapAt.get(`${d.id}:${c.i}`)?.stop === true)
        .classed('hover', (c) => me.hovered !== null && rangeId(d.id, c.i) === me.hovered);
    });
  }

  private drawCells(g: Selection<SVGGElement, unknown, null, undefined>, n: MapleNode): void {
    const w = nodeWidth(n);
    const h = nodeHeight(n);
    g.select('rect.frame').attr('x', 0).attr('y', 0).attr('width', w).attr('height', h).attr('rx', 4);
    g.select('text.head')
      .attr('x', 6)
      .attr('y', 13)
      .text(`#${n.id} ${n.type} · ${n.end + 1}/${slotCount(n.type)} · [${hex(n.min)}, ${hex(n.max)}]`);
    const maxGap = n.slots.reduce((m, s) => (s.gap !== null && s.gap > m ? s.gap : m), 0n);
    const cells = g
      .select<SVGGElement>('g.cells')
      .selectAll<SVGGElement, Cell>('g.maple-cell')
      .data(cellsOf(n), (c) => c.key)
      .join((e) => {
        const c = e.append('g').attr('class', 'maple-cell');
        c.append('title');
        c.append('rect').attr('class', 'slot');
        c.append('text').attr('class', 'top');
        c.append('text').attr('class', 'bottom');
        c.append('rect').attr('class', 'gapbar');
        c.append('text').attr('class', 'meta');
        return c;
      });
    const handlers = this.handlers;
    cells
      .attr('transform', (c) => `translate(${c.i * CELL_W},${HEAD_H})`)
      .attr('data-slot', (c) => c.i)
      .each(function (c) {
        const k = content(c);
        const cg = select(this);
        cg.attr('class', `maple-cell ${k.cls}`);
        cg.select('title').text(k.title);
        cg.select('rect.slot').attr('x', 1).attr('y', 0).attr('width', CELL_W - 2).attr('height', CELL_H - 2).attr('rx', 2);
        cg.select('text.top').attr('x', CELL_W / 2).attr('y', 17).text(k.top);
        cg.select('text.bottom').attr('x', CELL_W / 2).attr('y', 34).text(k.bottom);
        const s = n.slots[c.i];
        const gap = s?.gap ?? null;
        const bw = gap !== null && maxGap > 0n ? Math.max(gap > 0n ? 2 : 0, Number((gap * 1000n) / maxGap) / 1000 * (CELL_W - 6)) : 0;
        cg.select('rect.gapbar')
          .attr('x', 3)
          .attr('y', CELL_H)
          .attr('height', gap !== null ? GAP_H - 4 : 0)
          .attr('width', bw);
        cg.select('text.meta')
          .attr('x', CELL_W - 4)
          .attr('y', CELL_H + GAP_H - 3)
          .text(n.type === 'arange' && c.used ? `${c.i === n.mgap ? '★' : ''}${gap !== null ? size(gap) : ''}` : '');
      })
      .on('pointerenter', (_e: PointerEvent, c: Cell) => {
        if (n.slots[c.i]?.k === 'E' && n.type === 'leaf') handlers.onHover?.(rangeId(n.id, c.i));
      })
      .on('pointerleave', () => handlers.onHover?.(null));
  }

  /** Collapsed nodes: placeholders that keep the data attributes (not drawn). */
  private drawHidden(nodes: MapleNode[]): void {
    this.hiddenLayer
      .selectAll<SVGGElement, MapleNode>('g.maple-node')
      .data(nodes, (d) => String(d.id))
      .join('g')
      .attr('class', 'maple-node placeholder')
      .each(function (d) {
        const g = this as NodeEl;
        const sig = signature(d);
        if (g.__sig === sig) return;
        g.__sig = sig;
        select(g)
          .attr('data-maple-id', d.id)
          .attr('data-maple-depth', d.depth)
          .attr('data-maple-type', d.type)
          .attr('data-maple-min', hex(d.min))
          .attr('data-maple-max', hex(d.max))
          .attr('data-maple-end', d.end)
          .attr('data-maple-slots', notation(d));
      });
    this.data('hidden', String(nodes.length));
  }

  private at(n: MapleNode): string {
    const b = this.boxes.get(n.id);
    return b ? `translate(${b.x},${b.y})` : 'translate(0,0)';
  }

  /**
   * Where the view goes: the whole tree when it stays readable (`whole` forces it); otherwise
   * the readable scale centred on the node the step is about (or the root).
   */
  private fitTransform(whole: boolean, focus: MapleFocus = NO_MAPLE_FOCUS): ZoomTransform {
    const { w, h } = this.size;
    if (!w || !h) return this.transform;
    const b = this.bounds;
    const bw = Math.max(1, b.x1 - b.x0);
    const bh = Math.max(1, b.y1 - b.y0);
    const k = Math.min(2, w / bw, h / bh);
    const readable = (this.opts.lecture ? MAPLE_LECTURE_PX : READABLE_PX) / CELL_FONT;
    if (whole || k >= readable) {
      return zoomIdentity.translate((w - bw * k) / 2 - b.x0 * k, (h - bh * k) / 2 - b.y0 * k).scale(k);
    }
    // Lecture mode keeps the readable size whatever the height; otherwise up to three levels fit.
    const kk = this.opts.lecture ? readable : Math.min(readable, h / Math.min(bh, 3 * (HEAD_H + CELL_H + GAP_H + LEVEL_GAP)));
    const id = focus.node ?? focus.store ?? focus.found?.node ?? this.snap?.nodes[0]?.id ?? null;
    const box = id !== null ? this.boxes.get(id) : undefined;
    let cx = box ? box.x + (focus.slot !== null ? (focus.slot + 0.5) * CELL_W : box.w / 2) : (b.x0 + b.x1) / 2;
    const cy = box ? box.y + box.h / 2 : b.y0;
    cx = Math.max(b.x0 + w / 2 / kk, Math.min(b.x1 - w / 2 / kk, cx));
    const ty = box ? h / 2 - cy * kk : MARGIN;
    return zoomIdentity.translate(w / 2 - cx * kk, Math.min(MARGIN, Math.max(h - b.y1 * kk, ty))).scale(kk);
  }

  private setTransform(t: ZoomTransform, ms: number): void {
    this.programmatic = true;
    if (ms > 0) {
      this.svg
        .transition()
        .duration(ms)
        .call(this.zoomer.transform, t)
        .on('end interrupt', () => {
          this.programmatic = false;
        });
    } else {
      this.svg.call(this.zoomer.transform, t);
      this.programmatic = false;
    }
  }

  private zoomBy(f: number): void {
    this.setAutoFit(false);
    this.svg.transition().duration(200).call(this.zoomer.scaleBy, f);
  }

  /** Text goes before boxes: below a readable on-screen size the cells keep only their colours. */
  private levelOfDetail(): void {
    const px = CELL_FONT * this.transform.k;
    const lod = px < LOD_TEXT_PX ? 'far' : 'near';
    if (this.data('lod', lod)) this.svg.attr('data-lod', lod);
    this.data('scale', this.transform.k.toFixed(3));
  }

  /**
   * Set a data attribute of the root only when it changes (a write invalidates the styles of
   * everything below it, every frame). True when it changed.
   */
  private data(key: string, value: string): boolean {
    if (this.root.dataset[key] === value) return false;
    this.root.dataset[key] = value;
    return true;
  }
}

/** The address bar's id of a stored range → its leaf and slot (for a hover from the bar). */
export { rangeOfId };
