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
import { zoomFilter } from '../zoomFilter';
import { el, motionMs } from './common';
import { treeToolbar } from './treeToolbar';

export const CELL_W = 62;
/** An unused slot is a narrow dashed cell: the fill still reads at a glance, the tree is narrower. */
export const UNUSED_W = 14;
/** Width of a header character (monospace, 11 units; 0.6 em and a little). */
const HEAD_CHAR_W = 6.7;
export const CELL_H = 46;
const HEAD_H = 18;
const GAP_H = 12;
const LEVEL_GAP = 56;
/** A hover from the bar rests this long on an area before the view goes to its slot off screen. */
export const PEEK_MS = 400;
const PEEK_MOVE_MS = 300;
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
  /** `mab_calc_split`'s cut: drawn on `node` between slot `after` and `after + 1`. */
  cut?: { node: number; after: number } | null;
  /** Keep `node`'s used slots in view up to its data end, nothing marked (a question asked about them). */
  keepEnd?: boolean;
}

export const NO_MAPLE_FOCUS: MapleFocus = { path: [], node: null, scanned: new Map(), slot: null, found: null, gaps: [], store: null, cut: null };

export interface MapleViewOptions {
  /** Hover on a stored range (its address-bar id, see `rangeId`) or null. */
  onHover?: (id: number | null) => void;
  /**
   * Hover on any used slot (a leaf's entry or NULL hole, an internal node's child), with its
   * inclusive range, or null: what an allocator profile's address bar outlines.
   */
  onHoverSlot?: (slot: MapleHover | null) => void;
}

/** A slot under the pointer: its node and index, its inclusive range and its content. */
export interface MapleHover {
  node: number;
  slot: number;
  lo: bigint;
  hi: bigint;
  k: 'E' | 'N' | 'C';
}

/**
 * The slot of a snapshot whose range holds `addr`, going down from the root, and the nodes on
 * the way (root first); null when the tree is empty or does not span it.
 */
export function slotAt(snap: MapleSnapshot, addr: bigint): { node: number; slot: number; path: number[] } | null {
  const byId = new Map(snap.nodes.map((n) => [n.id, n]));
  let n = snap.nodes[0];
  const path: number[] = [];
  while (n && addr >= n.min && addr <= n.max && path.length <= snap.nodes.length) {
    path.push(n.id);
    const used = usedSlots(n);
    let i = 0;
    while (i < used - 1 && n.slots[i].piv < addr) i++;
    const s = n.slots[i];
    if (!s) return null;
    if (s.k !== 'C' || s.child === null) return { node: n.id, slot: i, path };
    const child = byId.get(s.child);
    if (!child) return { node: n.id, slot: i, path };
    n = child;
  }
  return null;
}

export interface MapleRenderOptions {
  focus?: MapleFocus;
  duration?: number;
  lecture?: boolean;
  /** What an empty tree's note says (the default: a maple-tree's first store). */
  empty?: string;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Used slots: `0..=end`, the first `slots.length` of the node's slots. */
function usedSlots(n: MapleNode): number {
  return Math.min(n.slots.length, slotCount(n.type));
}

/** Left edge of slot `i`'s cell in its node: used cells full width, then the narrow unused ones. */
export function cellX(n: MapleNode, i: number): number {
  const u = usedSlots(n);
  return i <= u ? i * CELL_W : u * CELL_W + (i - u) * UNUSED_W;
}

/** A node's header: id, type, fill, limits. */
export function headText(n: MapleNode): string {
  return `#${n.id} ${n.type} · ${n.end + 1}/${slotCount(n.type)} · [${hex(n.min)}, ${hex(n.max)}]`;
}

const widths = new WeakMap<MapleNode, number>();

/**
 * Width of a node's box: every slot (used ones full width, unused ones narrow), or its header
 * if that is wider.
 */
export function nodeWidth(n: MapleNode): number {
  let w = widths.get(n);
  if (w === undefined) {
    w = Math.max(cellX(n, slotCount(n.type)), Math.ceil(headText(n).length * HEAD_CHAR_W + 12));
    widths.set(n, w);
  }
  return w;
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
      out.push({ node: n, i, lo, hi: s.piv, used: true });
      lo = s.piv + 1n;
    } else out.push({ node: n, i, lo: 0n, hi: 0n, used: false });
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

const signatures = new WeakMap<MapleNode, string>();

/** A node's content, for skipping unchanged nodes on redraw (once per node object). */
function signature(n: MapleNode): string {
  let s = signatures.get(n);
  if (s === undefined) {
    s = `${n.type}|${n.depth}|${n.min}|${n.max}|${n.end}|${n.mgap}|${notation(n)}|${n.slots.map((x) => x.child ?? '').join(',')}`;
    signatures.set(n, s);
  }
  return s;
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (t: string) => t.replace(/[&<>"]/g, (c) => ESC[c]);

/** What a drawn node's element holds: its markup and each cell's class before focus. */
export interface NodeMarkup {
  html: string;
  cellClass: string[];
}

/**
 * The drawn content of a node as SVG markup: its frame, its header and one `g.maple-cell` per
 * slot (`data-slot`, the content class, a tooltip with the exact range, the size and content
 * text, arange nodes' gap bar and `meta.gap` mark). Parsed at once when a node comes near the
 * screen or changes, instead of a D3 join per cell; empty texts are left out.
 */
export function nodeMarkup(n: MapleNode): NodeMarkup {
  const w = nodeWidth(n);
  const h = nodeHeight(n);
  const parts = [
    `<rect class="frame" x="0" y="0" width="${w}" height="${h}" rx="4"></rect>`,
    `<text class="head" x="6" y="13">${esc(headText(n))}</text>`,
    '<g class="cells">',
  ];
  const maxGap = n.slots.reduce((m, s) => (s.gap !== null && s.gap > m ? s.gap : m), 0n);
  const cellClass: string[] = [];
  for (const c of cellsOf(n)) {
    const k = content(c);
    const cls = `maple-cell ${k.cls}`;
    cellClass.push(cls);
    parts.push(
      `<g class="${cls}" transform="translate(${cellX(n, c.i)},${HEAD_H})" data-slot="${c.i}"><title>${esc(k.title)}</title>`,
      `<rect class="slot" x="1" y="0" width="${(c.used ? CELL_W : UNUSED_W) - 2}" height="${CELL_H - 2}" rx="2"></rect>`,
    );
    if (k.top) parts.push(`<text class="top" x="${CELL_W / 2}" y="17">${esc(k.top)}</text>`);
    if (k.bottom) parts.push(`<text class="bottom" x="${CELL_W / 2}" y="34">${esc(k.bottom)}</text>`);
    const gap = n.slots[c.i]?.gap ?? null;
    if (gap !== null) {
      const bw = maxGap > 0n ? Math.max(gap > 0n ? 2 : 0, (Number((gap * 1000n) / maxGap) / 1000) * (CELL_W - 6)) : 0;
      parts.push(`<rect class="gapbar" x="3" y="${CELL_H}" height="${GAP_H - 4}" width="${bw}"></rect>`);
    }
    const meta = n.type === 'arange' && c.used ? `${c.i === n.mgap ? '★' : ''}${gap !== null ? size(gap) : ''}` : '';
    if (meta) parts.push(`<text class="meta" x="${CELL_W - 4}" y="${CELL_H + GAP_H - 3}">${esc(meta)}</text>`);
    parts.push('</g>');
  }
  parts.push('</g>');
  return { html: parts.join(''), cellClass };
}

const markups = new Map<string, NodeMarkup>();

/** A node's markup by signature: a node that leaves the screen and comes back reuses it. */
function markupOf(n: MapleNode): NodeMarkup {
  const sig = signature(n);
  let m = markups.get(sig);
  if (!m) {
    // A bounded cache (a leaf's markup is about 4 KB): dropped whole past 1,024 nodes.
    if (markups.size >= 1024) markups.clear();
    m = nodeMarkup(n);
    markups.set(sig, m);
  }
  return m;
}

/** A node's element and what was last written to it (so a frame writes only what changed). */
type NodeEl = SVGGElement & {
  /** Signature of the node whose data attributes are written. */
  __sig?: string;
  /** Signature of the node whose content is drawn (undefined: no content, a placeholder). */
  __drawn?: string;
  /** Cell classes before focus, of the drawn content. */
  __cells?: string[];
  /** The focus key the cells' classes reflect. */
  __focus?: string;
  __cls?: string;
  __pos?: string;
  /** The header's x in the box, when slid right to stay in view (see `stickHeads`). */
  __headX?: number;
};

/** Write an attribute only when its value changes (a write is a style invalidation and a mutation). */
function setAttr(e: Element, name: string, value: string): void {
  if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}

/**
 * The path of the step in words: from the root down to the node the step is about, with the
 * slot taken at each level (`#3 arange slot 1 → #2 leaf slot 3`), the nodes the search also
 * visited off that path (a wasted descent), and the hole once found. Empty without a focus.
 */
export function pathText(nodes: MapleNode[], focus: MapleFocus): string {
  const id = focus.node ?? focus.store ?? focus.found?.node ?? null;
  if (id === null) return '';
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const chain: string[] = [];
  const on = new Set<number>();
  let n = byId.get(id);
  let slot: number | null = focus.node === id ? focus.slot : null;
  while (n && !on.has(n.id)) {
    on.add(n.id);
    chain.unshift(`#${n.id} ${n.type}${slot !== null ? ` slot ${slot}` : ''}`);
    slot = n.parentSlot;
    n = n.parent !== null ? byId.get(n.parent) : undefined;
  }
  if (!chain.length) return '';
  const off = focus.path.filter((x) => !on.has(x));
  const also = off.length ? ` (also visited ${off.map((x) => `#${x}`).join(', ')})` : '';
  const hole = focus.found ? ` · hole: #${focus.found.node} slot ${focus.found.slot}` : '';
  return `${focus.store !== null && focus.node === null ? 'Store' : 'Path'}: ${chain.join(' → ')}${also}${hole}`;
}

/** The focus's gap updates by `node:slot`. */
function gapsByCell(focus: MapleFocus): Map<string, { stop: boolean; current: boolean }> {
  const out = new Map<string, { stop: boolean; current: boolean }>();
  for (const g of focus.gaps) out.set(`${g.node}:${g.slot}`, g);
  return out;
}

export class MapleTreeView {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly viewport: Selection<SVGGElement, unknown, null, undefined>;
  private readonly links: Selection<SVGGElement, unknown, null, undefined>;
  private readonly layer: Selection<SVGGElement, unknown, null, undefined>;
  private readonly zoomer: ZoomBehavior<SVGSVGElement, unknown>;
  private readonly empty: HTMLElement;
  /** The current search's path, root to the node of the step, always in view. */
  private readonly pathLine: HTMLElement;
  private pathKey = '';
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
  /** The slot outlined by a hover (here or on the address bar), and the nodes from the root to it. */
  private hovered: { node: number; slot: number } | null = null;
  private hoverPath = new Set<number>();
  /** The address a hover from the bar is about (`highlightAt`), or null. */
  private hoverAddr: bigint | null = null;
  /** The stored range under the pointer (a leaf's in-use cell), as last reported. */
  private pointed: number | null = null;
  /** The slot under the pointer, `node:slot` ('' for none), as last reported. */
  private pointedSlot = '';
  private shape = '';
  private redrawQueued = false;
  /**
   * A peek: an area hovered elsewhere (the bar) whose slot is off screen here brings the view
   * to it after a short dwell; when the hover ends the view goes back (to the fit, or to where
   * it was). `peek` is the view's transform meanwhile, `peekFrom` the one to go back to.
   */
  private peek: ZoomTransform | null = null;
  private peekFrom: ZoomTransform | null = null;
  private peekTimer: number | null = null;
  private pointerInside = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: MapleViewOptions = {},
  ) {
    // The free tree's panel sizing (and lecture layout) applies; its node styles do not (maple-* classes).
    root.classList.add('free-tree', 'maple-tree');
    ({ fitButton: this.fitButton } = treeToolbar(root, 'Maple tree view', [0, 1, 2, 3], {
      depth: (max) => {
        this.maxDepth = max;
        this.autoFit = true;
        this.shape = '';
        this.rerender();
      },
      fit: () => {
        this.setAutoFit(true);
        this.setTransform(this.fitTransform(false, this.opts.focus), 250, true);
      },
      whole: () => {
        this.setAutoFit(false);
        this.setTransform(this.fitTransform(true), 250, true);
      },
      zoomBy: (f) => this.zoomBy(f),
    }));
    const legend = root.appendChild(el('p', 'maple-legend'));
    legend.innerHTML =
      '<span class="sw entry"></span>in use <span class="sw null"></span>NULL hole <span class="sw child"></span>child ' +
      '<span class="sw gapbar"></span>gap[] (★ meta.gap) <span class="sw path"></span>search path <span class="sw scan"></span>scanned';
    this.pathLine = root.appendChild(el('p', 'maple-path', '\u00a0'));
    this.empty = root.appendChild(el('p', 'empty'));
    this.empty.hidden = true;
    this.svg = select(root).append('svg').attr('class', 'maple-tree-svg').attr('role', 'img').attr('aria-label', 'Maple tree');
    this.viewport = this.svg.append('g').attr('class', 'viewport');
    this.links = this.viewport.append('g').attr('class', 'maple-links');
    this.layer = this.viewport.append('g').attr('class', 'maple-nodes');
    // One pair of listeners for every cell (cells are drawn from markup, without handlers).
    const slotOf = (t: EventTarget | null): MapleHover | null => {
      const cell = t instanceof Element ? t.closest('g.maple-cell') : null;
      const g = cell?.closest<SVGGElement>('g.maple-node');
      const node = g ? this.snap?.nodes.find((n) => n.id === Number(g.getAttribute('data-maple-id'))) : undefined;
      if (!cell || !node) return null;
      const c = cellsOf(node)[Number(cell.getAttribute('data-slot'))];
      const s = node.slots[c?.i ?? -1];
      return c && c.used && s ? { node: node.id, slot: c.i, lo: c.lo, hi: c.hi, k: s.k } : null;
    };
    const pointTo = (t: EventTarget | null) => {
      const h = slotOf(t);
      const key = h ? `${h.node}:${h.slot}` : '';
      if (key === this.pointedSlot) return;
      this.pointedSlot = key;
      // A leaf's stored range by its address-bar id (a maple-tree trace), and any slot by its range.
      const id = h && h.k === 'E' && this.snap?.nodes.find((n) => n.id === h.node)?.type === 'leaf' ? rangeId(h.node, h.slot) : null;
      if (id !== this.pointed) {
        this.pointed = id;
        this.handlers.onHover?.(id);
      }
      this.handlers.onHoverSlot?.(h);
    };
    // Mouse events, as the address bar's: a move from an area of the bar onto a cell then leaves
    // the area (clearing its hover) before it enters the cell (pointer events would come first).
    this.layer.on('mouseover', (e: MouseEvent) => pointTo(e.target));
    this.layer.on('mouseout', (e: MouseEvent) => pointTo(e.relatedTarget));
    // A hover from inside the view never moves it (a cell at its edge is one being pointed at).
    this.svg.on('mouseenter.peek', () => (this.pointerInside = true));
    this.svg.on('mouseleave.peek', () => (this.pointerInside = false));
    this.zoomer = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.005, 4])
      // A phone: one finger scrolls the page and swipes; two pinch.
      .filter(zoomFilter)
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
        this.stickHeads();
        if (e.sourceEvent && !this.programmatic) {
          this.setAutoFit(false);
          // The user takes the view over: a peek under way stays where they leave it.
          this.endPeek(false);
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
    const newTree = snap !== this.snap;
    this.snap = snap;
    this.opts = options;
    if (newTree && this.hovered) {
      // The hover follows the address it is about into the new tree (an area on the bar), or its slot.
      const at = this.hoverAddr !== null ? slotAt(snap, this.hoverAddr) : this.hovered;
      this.hovered = at ? { node: at.node, slot: at.slot } : null;
      this.hoverPath = this.pathTo(this.hovered?.node ?? null);
    }
    const focus = options.focus ?? NO_MAPLE_FOCUS;
    const ms = options.duration ?? 0;
    const nodes = snap.nodes;
    this.data('nodes', String(nodes.length));
    this.data('height', String(snap.height));
    this.empty.hidden = nodes.length > 0;
    this.empty.textContent = options.empty ?? 'The tree is empty (root NULL): the first store creates a root leaf.';
    // Boxes move when the tree's shape or a node's width (its fill, its header) changes.
    const shape = `${this.maxDepth}|${nodes.map((n) => `${n.id}:${n.parent ?? ''}:${nodeWidth(n)}`).join(',')}`;
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
    const target = this.peek ?? (this.autoFit ? this.fitTransform(false, focus) : this.transform);
    // Only the nodes near the screen (where the view is and where it goes) and the focus's are
    // drawn: a few thousand offscreen cells would cost every frame. The others are placeholders.
    const near = this.nearScreen([this.transform, target], ms > 0);
    const keep = new Set([...focus.path, focus.node, focus.store]);
    const drawn = new Set<number>();
    for (const n of nodes) {
      const b = this.boxes.get(n.id);
      if (b && (near(b) || keep.has(n.id))) drawn.add(n.id);
    }
    this.renderPath(nodes, focus);
    this.data('drawn', String(drawn.size));
    this.data('hidden', String(nodes.length - drawn.size));
    this.drawLinks(
      nodes.filter((n) => drawn.has(n.id)),
      focus,
      ms,
    );
    this.drawNodes(nodes, drawn, focus, ms);
    if (target !== this.transform) this.setTransform(target, ms);
    this.levelOfDetail();
  }

  /** The path line: written only when the focus or the tree's shape changed. */
  private renderPath(nodes: MapleNode[], focus: MapleFocus): void {
    const key = `${this.shape}|${focus.path.join(',')}|${focus.node}|${focus.slot}|${focus.store}|${focus.found?.node}:${focus.found?.slot}|${focus.cut?.node}:${focus.cut?.after}`;
    if (key === this.pathKey) return;
    this.pathKey = key;
    this.pathLine.textContent = pathText(nodes, focus) || '\u00a0';
  }

  /**
   * Whether a box is within a quarter screen (at least a few cells) of the view under any of the
   * transforms; a pan draws what it brings on the next frame. `span`: the view moves from the
   * first to the last in an animation, so what lies between them is near too (up to three screens).
   */
  private nearScreen(ts: ZoomTransform[], span = false): (b: Box) => boolean {
    const { w, h } = this.size;
    let rects = ts.map((t) => {
      const m = Math.max(4 * CELL_W, (0.25 * w) / t.k);
      return [-t.x / t.k - m, (w - t.x) / t.k + m, -t.y / t.k - m, (h - t.y) / t.k + m];
    });
    if (span && rects.length > 1) {
      const u = [Math.min(...rects.map((r) => r[0])), Math.max(...rects.map((r) => r[1])), Math.min(...rects.map((r) => r[2])), Math.max(...rects.map((r) => r[3]))];
      // Not across a whole wide tree: beyond three screens the in-between stays empty while it flies by.
      const screens = (u[1] - u[0]) / Math.max(...rects.map((r) => r[1] - r[0]));
      if (screens <= 3) rects = [u];
    }
    return (b) => !w || rects.some((r) => b.x + b.w >= r[0] && b.x <= r[1] && b.y + b.h >= r[2] && b.y <= r[3]);
  }

  /** Outline the cell of a stored range (from the address bar's hover), or none. */
  highlightRange(id: number | null): void {
    this.highlightSlot(id === null ? null : rangeOfId(id));
    this.peekAtHover();
  }

  /**
   * Outline the slot whose range holds `addr` in the tree drawn (an area hovered on the address
   * bar), and the path from the root down to it; null clears.
   */
  highlightAt(addr: bigint | null): void {
    const at = addr !== null && this.snap ? slotAt(this.snap, addr) : null;
    this.highlightSlot(at);
    this.hoverAddr = at ? addr : null;
    this.peekAtHover();
  }

  /**
   * After a dwell of PEEK_MS on a slot hovered from elsewhere that is not wholly on screen,
   * centre the view on it (at the same scale); the hover ended, go back.
   */
  private peekAtHover(): void {
    if (this.peekTimer !== null) clearTimeout(this.peekTimer);
    this.peekTimer = null;
    const h = this.hovered;
    if (!h) {
      this.endPeek(true);
      return;
    }
    if (this.pointerInside) return;
    this.peekTimer = window.setTimeout(() => {
      this.peekTimer = null;
      const t = this.hovered === h ? this.peekTransform(h) : null;
      if (!t) return;
      this.peekFrom ??= this.transform;
      this.peek = t;
      this.data('peek', 'true');
      this.setTransform(t, motionMs(PEEK_MOVE_MS), true);
      if (!motionMs(PEEK_MOVE_MS)) this.rerender();
    }, PEEK_MS);
  }

  /** The view centred on slot `h` at the current scale, or null when the slot is wholly on screen. */
  private peekTransform(h: { node: number; slot: number }): ZoomTransform | null {
    const box = this.boxes.get(h.node);
    const node = this.snap?.nodes.find((n) => n.id === h.node);
    const { w, h: vh } = this.size;
    if (!box || !node || !w || !vh) return null;
    const t = this.transform;
    const x = box.x + cellX(node, h.slot);
    const sx = x * t.k + t.x;
    const sy = box.y * t.k + t.y;
    const inX = sx >= 0 && sx + CELL_W * t.k <= w;
    const inY = sy >= 0 && sy + box.h * t.k <= vh;
    if (inX && inY) return null;
    // Only along the axis it is off: the levels above stay where they were when they can.
    const tx = inX ? t.x : w / 2 - (x + CELL_W / 2) * t.k;
    const ty = inY ? t.y : vh / 2 - (box.y + box.h / 2) * t.k;
    return zoomIdentity.translate(tx, ty).scale(t.k);
  }

  /** End a peek: `back` moves the view back (to the fit, or to where it was before). */
  private endPeek(back: boolean): void {
    if (this.peekTimer !== null) clearTimeout(this.peekTimer);
    this.peekTimer = null;
    if (!this.peek) return;
    const from = this.peekFrom;
    this.peek = null;
    this.peekFrom = null;
    this.data('peek', 'false');
    if (!back) return;
    const t = this.autoFit ? this.fitTransform(false, this.opts.focus) : from;
    if (t) {
      this.setTransform(t, motionMs(PEEK_MOVE_MS), true);
      if (!motionMs(PEEK_MOVE_MS)) this.rerender();
    }
  }

  /** Outline a slot (a hover on it) and the nodes from the root down to its node; null clears. */
  highlightSlot(at: { node: number; slot: number } | null): void {
    this.hoverAddr = null;
    const was = this.hovered;
    if (was?.node === at?.node && was?.slot === at?.slot) return;
    const old = this.hoverPath;
    this.hovered = at ? { node: at.node, slot: at.slot } : null;
    this.hoverPath = this.pathTo(at?.node ?? null);
    // Only the nodes of the old and the new path change.
    const touched = new Set([...old, ...this.hoverPath]);
    if (was) touched.add(was.node);
    if (at) touched.add(at.node);
    const focus = this.opts.focus ?? NO_MAPLE_FOCUS;
    const onPath = new Set(focus.path);
    const gapAt = gapsByCell(focus);
    this.layer
      .selectAll<SVGGElement, MapleNode>('g.maple-node')
      .filter((d) => touched.has(d.id))
      .each((d, i, els) => {
        const g = els[i] as NodeEl;
        this.writeNodeState(g, d, g.__drawn !== undefined, focus, onPath);
        this.applyFocus(g, d, focus, gapAt);
      });
  }

  /** The ids from the root down to a node of the snapshot drawn (empty for none). */
  private pathTo(id: number | null): Set<number> {
    const out = new Set<number>();
    if (id === null || !this.snap) return out;
    const byId = new Map(this.snap.nodes.map((n) => [n.id, n]));
    for (let n = byId.get(id); n && !out.has(n.id); n = n.parent !== null ? byId.get(n.parent) : undefined) out.add(n.id);
    return out;
  }

  /**
   * A node element's class (drawn or a placeholder, its part of the focus, on the hover's path)
   * and `data-hover-slot` on the hovered slot's node (so a test sees it on a placeholder too).
   */
  private writeNodeState(g: NodeEl, d: MapleNode, on: boolean, focus: MapleFocus, onPath: Set<number>): void {
    const hover = this.hoverPath.has(d.id) ? ' hover-path' : '';
    const cls = on
      ? `maple-node${onPath.has(d.id) ? ' on-path' : ''}${d.id === focus.node ? ' current' : ''}${d.id === focus.store ? ' store-leaf' : ''}${hover}`
      : `maple-node placeholder${hover}`;
    if (g.__cls !== cls) {
      g.__cls = cls;
      g.setAttribute('class', cls);
    }
    const slot = this.hovered && this.hovered.node === d.id ? String(this.hovered.slot) : null;
    if (slot === null) {
      if (g.hasAttribute('data-hover-slot')) g.removeAttribute('data-hover-slot');
    } else setAttr(g, 'data-hover-slot', slot);
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
    sel.each(function (d) {
      const cls = onPath.has(d.id) && d.parent !== null && onPath.has(d.parent) ? 'maple-link on-path' : 'maple-link';
      setAttr(this, 'class', cls);
      const to = path(d);
      if (this.getAttribute('d') === to) return;
      if (ms > 0) select(this).transition().duration(ms).attr('d', to);
      else setAttr(select(this).interrupt().node() as SVGPathElement, 'd', to);
    });
  }

  /**
   * Every node of the snapshot is one `g.maple-node` in pre-order, carrying its `data-maple-*`
   * attributes whether drawn or not; only the nodes in `drawn` (near the screen, or on the step's
   * path) hold content. A frame writes only what changed: a node's attributes when its content
   * changed, its content when it comes near the screen or changes (one markup parse), its
   * position when the layout moved it, its cells' classes when its part of the focus changed.
   */
  private drawNodes(nodes: MapleNode[], drawn: Set<number>, focus: MapleFocus, ms: number): void {
    const onPath = new Set(focus.path);
    const gapAt = gapsByCell(focus);
    const sel = this.layer
      .selectAll<SVGGElement, MapleNode>('g.maple-node')
      .data(nodes, (d) => String(d.id))
      .join(
        (enter) => enter.append('g'),
        (update) => update,
        (exit) => exit.remove(),
      );
    sel.each((d, i, els) => {
      const g = els[i] as NodeEl;
      const sig = signature(d);
      if (g.__sig !== sig) {
        g.__sig = sig;
        setAttr(g, 'data-maple-id', String(d.id));
        setAttr(g, 'data-maple-depth', String(d.depth));
        setAttr(g, 'data-maple-type', d.type);
        setAttr(g, 'data-maple-min', hex(d.min));
        setAttr(g, 'data-maple-max', hex(d.max));
        setAttr(g, 'data-maple-end', String(d.end));
        setAttr(g, 'data-maple-slots', notation(d));
      }
      const on = drawn.has(d.id);
      this.writeNodeState(g, d, on, focus, onPath);
      if (!on) {
        if (g.__drawn !== undefined) {
          g.replaceChildren();
          g.__drawn = undefined;
          g.__cells = undefined;
          g.__focus = undefined;
          g.__pos = undefined;
          select(g).interrupt();
          g.removeAttribute('transform');
        }
        return;
      }
      const pos = this.at(d);
      if (g.__drawn !== sig) {
        const m = markupOf(d);
        // An SVG element's innerHTML is parsed in the SVG namespace.
        g.innerHTML = m.html;
        g.__drawn = sig;
        g.__headX = undefined;
        g.__cells = m.cellClass;
        g.__focus = undefined;
      }
      if (g.__pos !== pos) {
        // A node already drawn moves (a split, a rebalance, a new root); one that appears is placed.
        if (ms > 0 && g.__pos !== undefined) select(g).transition().duration(ms).attr('transform', pos);
        else select(g).interrupt().attr('transform', pos);
        g.__pos = pos;
      }
      this.applyFocus(g, d, focus, gapAt);
    });
    this.stickHeads();
  }

  /**
   * A node wider than the view keeps its header (id, type, fill, limits) readable: when the
   * box's left edge is off the view's left, the header slides right with the view, within the box.
   *
   *      view  |                          |
   *    [#0 leaf|· 12/16 · [0x0, 0xff..]   |      before: cut at the view's edge
   *    [       |#0 leaf · 12/16 · [0x0, 0x|ff..]  after: starts at the edge
   */
  private stickHeads(): void {
    const left = -this.transform.x / this.transform.k;
    for (const child of Array.from(this.layer.node()?.children ?? [])) {
      const g = child as NodeEl & { __data__?: MapleNode };
      const d = g.__data__;
      if (g.__drawn === undefined || !d) continue;
      const b = this.boxes.get(d.id);
      if (!b) continue;
      const room = b.w - headText(d).length * HEAD_CHAR_W - 6;
      const x = Math.round(Math.max(6, Math.min(room, left + 6 - b.x)));
      if (g.__headX === x || (g.__headX === undefined && x === 6)) continue;
      g.__headX = x;
      g.querySelector('text.head')?.setAttribute('x', String(x));
    }
  }

  /** The cells' focus classes of a drawn node: written only where its part of the focus changed. */
  private applyFocus(g: NodeEl, d: MapleNode, focus: MapleFocus, gapAt: Map<string, { stop: boolean; current: boolean }>): void {
    const base = g.__cells;
    if (!base) return;
    const cur = d.id === focus.node;
    const found = focus.found !== null && focus.found.node === d.id ? focus.found.slot : -1;
    const hovered = this.hovered !== null && this.hovered.node === d.id ? this.hovered.slot : -1;
    const mine = focus.gaps.filter((x) => x.node === d.id);
    const cut = focus.cut && focus.cut.node === d.id ? focus.cut.after : -1;
    const key = `${cur ? `${focus.slot}|${[...focus.scanned].join(',')}` : ''}|${found}|${mine
      .map((x) => `${x.slot}${x.stop ? 's' : ''}${x.current ? 'c' : ''}`)
      .join(',')}|${hovered}|${cut}`;
    if (g.__focus === key) return;
    g.__focus = key;
    this.drawCut(g, d, cut);
    // The cells' group (not the last child: the split's cut is drawn after it, on top).
    const cells = g.querySelector(':scope > g.cells')?.children;
    if (!cells) return;
    for (let i = 0; i < cells.length && i < base.length; i++) {
      let cls = base[i];
      const scanned = cur ? focus.scanned.get(i) : undefined;
      if (scanned !== undefined) cls += scanned ? ' scanned fits' : ' scanned nofit';
      if (cur && focus.slot === i) cls += ' at-slot';
      if (found === i) cls += ' found';
      const gap = gapAt.get(`${d.id}:${i}`);
      if (gap) cls += `${' gap-written'}${gap.current ? ' gap-current' : ''}${gap.stop ? ' gap-stop' : ''}`;
      if (hovered === i) cls += ' hover';
      setAttr(cells[i], 'class', cls);
    }
  }

  /**
   * The split's cut on the full node: a marked line between slot `after` and `after + 1`, from
   * above the node to below it, with the words "cut after slot N" (none when `after` is -1).
   */
  private drawCut(g: NodeEl, d: MapleNode, after: number): void {
    let cut = g.querySelector<SVGGElement>(':scope > g.split-cut');
    if (after < 0) {
      cut?.remove();
      return;
    }
    if (!cut) {
      cut = document.createElementNS('http://www.w3.org/2000/svg', 'g');
      cut.setAttribute('class', 'split-cut');
      cut.innerHTML = '<line></line><text class="cut-label"></text>';
      g.appendChild(cut);
    }
    const x = Math.min(cellX(d, after + 1), nodeWidth(d));
    const h = nodeHeight(d);
    cut.dataset.after = String(after);
    const [line, text] = Array.from(cut.children);
    for (const [e, a] of [
      [line, { x1: x, x2: x, y1: -10, y2: h + 10 }],
      // Left of the line (the view keeps the node's start and the slot after the cut in view,
      // so the right side can be off screen), unless the cut is too near the node's start.
      [text, after >= 1 ? { x: x - 4, y: -3, 'text-anchor': 'end' } : { x: x + 4, y: -3, 'text-anchor': 'start' }],
    ] as const)
      for (const [k, v] of Object.entries(a)) setAttr(e, k, String(v));
    text.textContent = `cut after slot ${after}`;
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
    const view = w / kk;
    let cx = (b.x0 + b.x1) / 2;
    if (box && box.w + 2 * SIB_GAP <= view) cx = box.x + box.w / 2;
    else if (box) {
      // A node wider than the view: its left edge (the header, the first slots) in view, and
      // the slot of the step too.
      cx = box.x - SIB_GAP + view / 2;
      // The split's cut: the slot right of it in view (the line between the halves).
      const node = this.snap?.nodes.find((n) => n.id === id);
      const want =
        focus.cut && focus.cut.node === id ? focus.cut.after + 1 : focus.node === id ? (focus.keepEnd && node ? node.end : focus.slot) : null;
      if (node && want !== null) {
        const right = box.x + cellX(node, want) + CELL_W + SIB_GAP;
        if (right > cx + view / 2) cx = right - view / 2;
      }
    }
    cx = Math.max(b.x0 + view / 2, Math.min(b.x1 - view / 2, cx));
    // The whole height fits: centred; otherwise the node of the step is, within the tree.
    const cy = box ? box.y + box.h / 2 : b.y0;
    const ty = bh * kk <= h ? (h - bh * kk) / 2 - b.y0 * kk : Math.min(MARGIN, Math.max(h - b.y1 * kk, box ? h / 2 - cy * kk : MARGIN));
    return zoomIdentity.translate(w / 2 - cx * kk, ty).scale(kk);
  }

  /**
   * Move the view. `redraw`: a move of the toolbar's, not of a render, which draws the nodes
   * that came near the screen once it has arrived.
   */
  private setTransform(t: ZoomTransform, ms: number, redraw = false): void {
    this.programmatic = true;
    if (ms > 0) {
      this.svg
        .transition()
        .duration(ms)
        .call(this.zoomer.transform, t)
        .on('interrupt', () => {
          this.programmatic = false;
        })
        .on('end', () => {
          this.programmatic = false;
          if (redraw) this.rerender();
        });
    } else {
      this.svg.call(this.zoomer.transform, t);
      this.programmatic = false;
    }
  }

  private zoomBy(f: number): void {
    this.setAutoFit(false);
    this.svg
      .transition()
      .duration(200)
      .call(this.zoomer.scaleBy, f)
      .on('end', () => this.rerender());
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
