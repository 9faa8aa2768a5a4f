// The free tree's overview: shown only while the tree is larger than the part of it in view
// (a lecture screen, a tree of a few levels), a small map of every node, red or black, the
// step's nodes ringed, and a frame around what the view shows. A click or a drag on the map
// moves the view there.
//
//   +------------------------------------+
//   |          tree view                 |
//   |                      +-----------+ |
//   |                      |  ▪   [▪]  | |   [ ] the part in view
//   |                      | ▪ ▪ ▪ ▪ ◘ | |    ◘  a node of the step
//   |                      +-----------+ |
//   +------------------------------------+
import type { ZoomTransform } from 'd3';

/** A node of the laid-out tree (the card's top centre, as d3.tree places it). */
export interface OverviewNode {
  x: number;
  y: number;
  black: boolean;
  /** A node the step is about (not only on its path). */
  marked: boolean;
}

export interface Bounds {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The map's largest size on screen (px); it keeps the tree's proportions inside. */
const MAX_W = 176;
const MAX_H = 108;
/** Smallest drawn node (px), so that a node of a wide tree still shows. */
const MIN_DOT = 2;

export class TreeOverview {
  readonly box: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly paths: { black: SVGPathElement; red: SVGPathElement; marked: SVGPathElement };
  private readonly frame: SVGRectElement;
  private bounds: Bounds = { x0: 0, x1: 0, y0: 0, y1: 0 };
  private scale = 1;
  private drag = false;
  /** Nodes in the tree (none: no map). */
  private count = 0;
  /** Nodes given but not drawn yet (the map was hidden). */
  private pending: { nodes: () => OverviewNode[]; card: { w: number; h: number } } | null = null;
  /** The step's nodes (tree units): the map takes a corner where it covers none of them. */
  private avoid: Bounds[] = [];
  private corner = 'bottom-right';

  /** `go(x, y)`: centre the view on that point of the tree (tree units). */
  constructor(parent: HTMLElement, go: (x: number, y: number) => void) {
    const box = document.createElement('div');
    box.className = 'tree-overview';
    box.dataset.widget = 'tree-overview';
    box.title = 'The whole tree: click or drag to move the view';
    const svg = box.appendChild(document.createElementNS(SVG_NS, 'svg'));
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Overview of the whole tree; click to move the view');
    const path = (cls: string) => {
      const p = svg.appendChild(document.createElementNS(SVG_NS, 'path'));
      p.setAttribute('class', cls);
      return p;
    };
    this.paths = { black: path('dots black'), red: path('dots red'), marked: path('dots marked') };
    this.frame = svg.appendChild(document.createElementNS(SVG_NS, 'rect'));
    this.frame.setAttribute('class', 'in-view');
    box.hidden = true;
    parent.appendChild(box);
    this.box = box;
    this.svg = svg;
    const at = (e: PointerEvent): [number, number] => {
      const r = svg.getBoundingClientRect();
      return [this.bounds.x0 + (e.clientX - r.left) / this.scale, this.bounds.y0 + (e.clientY - r.top) / this.scale];
    };
    svg.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      this.drag = true;
      svg.setPointerCapture?.(e.pointerId);
      go(...at(e));
    });
    svg.addEventListener('pointermove', (e) => {
      // A drag ends however the button came up (a menu, a window switch, the map hidden).
      if (this.drag && (e.buttons & 1) === 0) this.drag = false;
      if (this.drag) go(...at(e));
    });
    const end = () => {
      this.drag = false;
    };
    for (const ev of ['pointerup', 'pointercancel', 'lostpointercapture'] as const) svg.addEventListener(ev, end);
  }

  /**
   * The nodes of a new layout or step (card size `w` × `h`, tree units), then the view. The
   * nodes are asked for only when the map shows: a tree that fits costs nothing here.
   */
  update(
    count: number,
    nodes: () => OverviewNode[],
    bounds: Bounds,
    card: { w: number; h: number },
    t: ZoomTransform,
    size: { w: number; h: number },
  ): void {
    this.bounds = bounds;
    this.count = count;
    this.pending = { nodes, card };
    const bw = Math.max(1, bounds.x1 - bounds.x0);
    const bh = Math.max(1, bounds.y1 - bounds.y0);
    this.scale = Math.min(MAX_W / bw, MAX_H / bh);
    this.view(t, size);
  }

  /** Draw the nodes given last. */
  private drawNodes(): void {
    if (!this.pending) return;
    const { nodes: list, card } = this.pending;
    this.pending = null;
    const nodes = list();
    const b = this.bounds;
    const s = this.scale;
    this.svg.setAttribute('width', String(Math.max(24, Math.round((b.x1 - b.x0) * s))));
    this.svg.setAttribute('height', String(Math.max(16, Math.round((b.y1 - b.y0) * s))));
    const w = Math.max(MIN_DOT, card.w * s);
    const h = Math.max(MIN_DOT, card.h * s);
    const d = { black: [] as string[], red: [] as string[], marked: [] as string[] };
    for (const n of nodes) {
      const rect = `M${((n.x - b.x0) * s - w / 2).toFixed(1)},${((n.y - b.y0) * s).toFixed(1)}h${w.toFixed(1)}v${h.toFixed(1)}h${(-w).toFixed(1)}z`;
      (n.black ? d.black : d.red).push(rect);
      if (n.marked) d.marked.push(rect);
    }
    for (const k of ['black', 'red', 'marked'] as const) this.paths[k].setAttribute('d', d[k].join(''));
    this.avoid = nodes.filter((n) => n.marked).map((n) => ({ x0: n.x - card.w / 2, x1: n.x + card.w / 2, y0: n.y, y1: n.y + card.h }));
    this.box.dataset.nodes = String(nodes.length);
  }

  /** The frame around the part in view; the map hides when the whole tree is in view. */
  view(t: ZoomTransform, size: { w: number; h: number }, decide = true): void {
    const b = this.bounds;
    const x = -t.x / t.k;
    const y = -t.y / t.k;
    const w = size.w / t.k;
    const h = size.h / t.k;
    // A little slack: the bounds carry a margin around the cards.
    const slack = 30;
    const all = x <= b.x0 + slack && x + w >= b.x1 - slack && y <= b.y0 + slack && y + h >= b.y1 - slack;
    // `decide` false: a move on its way (a transition to where the view goes), which would
    // show the map for its flight and hide it on arrival; the frame follows, the map stays as it is.
    if (decide) {
      const hide = this.count === 0 || !size.w || !size.h || all;
      if (this.box.hidden !== hide) this.box.hidden = hide;
    }
    if (this.box.hidden) return;
    this.drawNodes();
    this.place(t, size);
    const s = this.scale;
    // Clipped to the map, so that a frame larger than the tree on one side still reads.
    const mw = (b.x1 - b.x0) * s;
    const mh = (b.y1 - b.y0) * s;
    const fx = Math.max(0, (x - b.x0) * s);
    const fy = Math.max(0, (y - b.y0) * s);
    const fw = Math.max(2, Math.min(mw, (x + w - b.x0) * s) - fx);
    const fh = Math.max(2, Math.min(mh, (y + h - b.y0) * s) - fy);
    this.frame.setAttribute('x', fx.toFixed(1));
    this.frame.setAttribute('y', fy.toFixed(1));
    this.frame.setAttribute('width', fw.toFixed(1));
    this.frame.setAttribute('height', fh.toFixed(1));
  }

  /** Bottom right, else bottom left when that covers none of the step's nodes. */
  private place(t: ZoomTransform, size: { w: number; h: number }): void {
    const ow = Number(this.svg.getAttribute('width')) + 2;
    const oh = Number(this.svg.getAttribute('height')) + 2;
    const m = 8;
    const corners: [string, number, number][] = [
      ['bottom-right', size.w - m - ow, size.h - m - oh],
      ['bottom-left', m, size.h - m - oh],
    ];
    const covers = ([, x, y]: [string, number, number]) =>
      this.avoid.some((b) => t.x + b.x1 * t.k > x && t.x + b.x0 * t.k < x + ow && t.y + b.y1 * t.k > y && t.y + b.y0 * t.k < y + oh);
    const corner = (corners.find((c) => !covers(c)) ?? corners[0])[0];
    if (corner !== this.corner) {
      this.corner = corner;
      this.box.dataset.corner = corner;
    }
  }
}
