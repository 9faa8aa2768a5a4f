// The augmented free tree, top-down (d3.tree over the parent/left/right ids the core reports),
// keyed by area id so that a rotation moves nodes instead of redrawing them. Each node is a
// card: R/B marker and red or black fill, [va_start, va_end), the block's size and
// subtree_max_size. A step's focus (from player/focus.ts) marks nodes, puts a callout by the
// node the event is about and outlines the branch the search takes.
//
// Large trees: the view zooms and pans (d3-zoom), fits itself to the panel until the user
// zooms, draws compact nodes past COMPACT_AT nodes, hides labels when they would be too small
// to read (level of detail: labels go before frames do), and can collapse below a depth.
import {
  hierarchy,
  linkVertical,
  select,
  tree,
  zoom,
  zoomIdentity,
  type D3ZoomEvent,
  type HierarchyPointNode,
  type Selection,
  type ZoomBehavior,
  type ZoomTransform,
} from 'd3';
import type { FreeNode } from '../bridge';
import { hex, size } from '../format';
import { collapseBelow, nestTree, rootOf, type TreeDatum } from '../layout/tree';
import { NO_FOCUS, type Focus } from '../player/focus';
import { zoomFilter } from '../zoomFilter';
import { el } from './common';
import { treeToolbar } from './treeToolbar';
import { TreeOverview } from './treeOverview';

export const NODE_W = 188;
export const NODE_H = 86;
const LEVEL_H = 132;
const SMALL_W = 112;
const SMALL_H = 38;
const SMALL_LEVEL_H = 74;
const NIL_W = 30;
const NIL_H = 16;
const MARGIN = 24;
/** Above this many nodes the tree draws compact nodes. */
export const COMPACT_AT = 40;
/** Below this scale a fitted tree is too small to read: fit its height instead. */
const MIN_READABLE = 0.3;
/**
 * A compact tree can be fitted whole down to this scale: its cards then show only their R/B
 * marker and id, drawn at a size that stays readable (see `levelOfDetail`).
 */
const MIN_WHOLE_COMPACT = 0.16;
/** In lecture mode no node text is smaller than this on screen (px). */
export const LECTURE_TEXT_PX = 16.5;
/** The smallest node text in lecture mode (user units; style.css, `body.lecture .free-tree`). */
const LECTURE_FONT = { full: 13, compact: 12 };
/** Marker and id at a medium or far level of detail: this size on screen (px). */
const LOD_LABEL_PX = 10;

type P = HierarchyPointNode<TreeDatum>;
interface Link {
  key: string;
  source: [number, number];
  target: [number, number];
  nil: boolean;
}

interface Geometry {
  compact: boolean;
  w: number;
  h: number;
}

export interface FreeTreeOptions {
  onHover?: (id: number | null) => void;
  /** A click on a node (null: on the background). */
  onSelect?: (id: number | null) => void;
}

export interface TreeRenderOptions {
  initialized?: boolean;
  focus?: Focus;
  /** Transition length in ms (0: instant, as under reduced motion). */
  duration?: number;
}

type NodeEl = SVGGElement & { __node?: FreeNode; __more?: number; __pos?: string; __mark?: string };

export class FreeTree {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly viewport: Selection<SVGGElement, unknown, null, undefined>;
  private readonly empty: HTMLElement;
  private readonly zoomer: ZoomBehavior<SVGSVGElement, unknown>;
  private readonly fitButton: HTMLButtonElement;
  private nodes: FreeNode[] | null = null;
  private opts: TreeRenderOptions = {};
  private highlighted: number | null = null;
  private selected: number | null = null;
  /** Fit to the panel on every render until the user zooms or pans. */
  private autoFit = true;
  private bounds = { x0: 0, x1: 0, y0: 0, y1: 0 };
  private positions = new Map<number, [number, number]>();
  private rootId: number | null = null;
  private points: P[] = [];
  private hidden = new Map<number, number>();
  private redrawQueued = false;
  /** A layout has been drawn (so the current transform means something). */
  private laidOut = false;
  /** The shape of the tree last laid out (ids and children), or null when collapsed. */
  private shape: string | null = null;
  private geometry: Geometry = { compact: false, w: NODE_W, h: NODE_H };
  private maxDepth = Infinity;
  private transform: ZoomTransform = zoomIdentity;
  private programmatic = false;
  private readonly overview: TreeOverview;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: FreeTreeOptions = {},
  ) {
    root.classList.add('free-tree');
    ({ fitButton: this.fitButton } = treeToolbar(root, 'Free tree view', [2, 3, 4, 5, 6, 8, 10], {
      depth: (max) => {
        this.maxDepth = max;
        this.autoFit = true;
        this.rerender();
      },
      fit: () => {
        this.autoFit = true;
        this.fit(250);
      },
      whole: () => {
        this.setAutoFit(false);
        this.setTransform(this.fitTransform(true), 250);
      },
      zoomBy: (f) => this.zoomBy(f),
    }));

    this.empty = root.appendChild(el('p', 'empty'));
    this.empty.hidden = true;
    this.svg = select(root)
      .append('svg')
      .attr('class', 'free-tree-svg')
      .attr('role', 'img')
      .attr('aria-label', 'Augmented red-black free tree');
    this.viewport = this.svg.append('g').attr('class', 'viewport');
    this.viewport.append('g').attr('class', 'links');
    this.viewport.append('g').attr('class', 'nodes');
    this.viewport.append('g').attr('class', 'callouts');
    this.zoomer = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.01, 4])
      // A phone: one finger scrolls the page and swipes; two pinch.
      .filter(zoomFilter)
      // The drawing area's size as the observer last saw it: d3-zoom's default reads the SVG's
      // width, which forces a layout on every programmatic move (a third of a step's time).
      .extent((): [[number, number], [number, number]] => {
        if (!this.size.w) {
          const box = (this.svg.node() as SVGSVGElement).getBoundingClientRect();
          this.size = { w: box.width, h: box.height };
        }
        return [
          [0, 0],
          [this.size.w, this.size.h],
        ];
      })
      .on('zoom', (e: D3ZoomEvent<SVGSVGElement, unknown>) => {
        this.transform = e.transform;
        this.viewport.attr('transform', e.transform.toString());
        this.levelOfDetail();
        // A gesture decides whether the map shows; a programmatic move decided it by where it goes.
        this.overview.view(e.transform, this.size, e.sourceEvent != null);
        if (e.sourceEvent && !this.programmatic) this.setAutoFit(false);
        // A compact tree draws only what is near the screen: redraw after a pan or zoom.
        if (this.geometry.compact && !this.programmatic && !this.redrawQueued) {
          this.redrawQueued = true;
          requestAnimationFrame(() => {
            this.redrawQueued = false;
            this.drawVisible(this.opts.focus ?? NO_FOCUS, 0, this.transform);
            this.applyHighlight();
          });
        }
      });
    this.svg.call(this.zoomer).on('dblclick.zoom', null);
    this.overview = new TreeOverview(root, (x, y) => this.goTo(x, y));
    this.svg
      .on('pointermove.focus', (e: PointerEvent) => {
        const box = (this.svg.node() as SVGSVGElement).getBoundingClientRect();
        this.pointer = [e.clientX - box.left, e.clientY - box.top];
      })
      .on('pointerleave.focus', () => {
        this.pointer = null;
      });
    this.svg.on('click', (e: MouseEvent) => {
      if (e.target === this.svg.node()) this.handlers.onSelect?.(null);
    });
    // The drawing area's size, kept from the observer so that rendering never reads layout.
    const svgNode = this.svg.node() as SVGSVGElement;
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      if (r.width === this.size.w && r.height === this.size.h) return;
      this.size = { w: r.width, h: r.height };
      this.rerender();
    }).observe(svgNode);
  }

  private size = { w: 0, h: 0 };

  /**
   * Lecture mode on a panel too short for three levels of full cards at the readable scale
   * (1280×720: 335 px against about 510): compact cards, so that a rotation's three nodes
   * (grandparent, parent, child) are on screen together, each text still LECTURE_TEXT_PX.
   */
  private shortLecture(): boolean {
    if (!document.body.classList.contains('lecture') || this.size.h <= 0) return false;
    const k = LECTURE_TEXT_PX / LECTURE_FONT.full;
    return this.size.h < (2 * LEVEL_H + NODE_H + 2 * MARGIN + 26) * k;
  }

  private rerender(): void {
    if (this.nodes) this.render(this.nodes, { ...this.opts, duration: 0 });
  }

  private setAutoFit(on: boolean): void {
    this.autoFit = on;
    this.fitButton.classList.toggle('active', on);
    this.root.dataset.autoFit = String(on);
  }

  /**
   * Draw a free-tree snapshot (pre-order, as the core reports it). `initialized` false means
   * the allocator has no free space yet (before the first operation).
   */
  render(nodes: FreeNode[], options: TreeRenderOptions = {}): void {
    this.nodes = nodes;
    this.opts = options;
    const initialized = options.initialized ?? true;
    const focus = options.focus ?? NO_FOCUS;
    const ms = options.duration ?? 0;
    if (!this.size.w) {
      const box = (this.svg.node() as SVGSVGElement).getBoundingClientRect();
      this.size = { w: box.width, h: box.height };
    }
    const compactNow = nodes.length > COMPACT_AT || this.shortLecture();
    const shape = Number.isFinite(this.maxDepth) ? null : shapeKey(nodes, compactNow);
    this.root.dataset.nodes = String(nodes.length);
    this.svg.classed('preview', !initialized);
    if (shape !== null && shape === this.shape && this.size.w) {
      // Same shape (a visit, a propagation, a recolour): keep the layout, swap in the new values.
      const byId = new Map(nodes.map((n) => [n.id, n]));
      for (const p of this.points) if (p.data.node) p.data.node = byId.get(p.data.node.id) ?? p.data.node;
      this.empty.hidden = nodes.length > 0 && initialized;
      this.draw(focus, ms);
      return;
    }
    this.shape = shape;
    const keep = new Set<number>([...focus.marks.keys(), ...focus.callouts.map((c) => c.id)]);
    const { tree: nested, hidden } = collapseBelow(nestTree(nodes, rootOf(nodes)), this.maxDepth, keep);
    this.hidden = hidden;
    this.empty.hidden = nested !== null && initialized;
    this.empty.textContent = initialized
      ? 'The free tree is empty: no free block is left.'
      : 'Not initialised yet: the first operation sets up the free space. Shown: the boot block [0x1, 0xffffffffffffffff) it will get (an init line sets its own range).';

    const compact = compactNow;
    const g: Geometry = compact ? { compact, w: SMALL_W, h: SMALL_H } : { compact, w: NODE_W, h: NODE_H };
    if (g.compact !== this.geometry.compact) {
      // Node shapes differ: start afresh.
      this.viewport.selectAll('g.node, g.nil, path.link').remove();
    }
    this.geometry = g;
    this.svg.classed('compact', compact);

    const layout = tree<TreeDatum>()
      .nodeSize([g.w + (compact ? 10 : 20), compact ? SMALL_LEVEL_H : LEVEL_H])
      .separation((a, b) => (a.data.node && b.data.node ? (a.parent === b.parent ? 1 : 1.1) : compact ? 0.35 : 0.62));
    const points: P[] = [];
    if (nested) layout(hierarchy(nested)).eachBefore((p) => points.push(p));
    let x0 = Infinity;
    let x1 = -Infinity;
    let y1 = 0;
    for (const p of points) {
      x0 = Math.min(x0, p.x - g.w / 2);
      x1 = Math.max(x1, p.x + g.w / 2);
      y1 = Math.max(y1, p.y + g.h);
    }
    if (!points.length) x0 = x1 = 0;
    // Room above the root for its callout.
    this.bounds = { x0: x0 - MARGIN, x1: x1 + MARGIN, y0: -MARGIN - 26, y1: y1 + MARGIN };
    this.points = points;
    this.positions = new Map(points.filter((p) => p.data.node).map((p) => [(p.data.node as FreeNode).id, [p.x, p.y]]));
    this.rootId = points[0]?.data.node?.id ?? null;
    this.draw(focus, ms);
  }

  /**
   * Draw the laid-out points for a step: choose where the view goes (fit, or follow the step's
   * nodes), then draw what is in view (a compact tree only draws the nodes near the screen:
   * a thousand offscreen nodes would cost every frame), and move the view.
   */
  private draw(focus: Focus, ms: number): void {
    const target = this.autoFit ? this.fitTransform() : (this.followTarget(focus) ?? this.transform);
    this.drawVisible(focus, ms, target);
    const ids = new Set(this.focusIds(focus));
    const points = this.points;
    this.overview.update(
      this.positions.size,
      () => points.flatMap((p) => (p.data.node ? [{ x: p.x, y: p.y, black: p.data.node.black, marked: ids.has(p.data.node.id) }] : [])),
      this.bounds,
      this.geometry,
      target,
      this.size,
    );
    this.applyHighlight();
    if (this.autoFit) this.setAutoFit(true);
    // A big tree repaints everything it shows on every frame of a pan: jump there instead.
    if (target !== this.transform) this.setTransform(target, this.geometry.compact ? 0 : ms);
    this.levelOfDetail();
  }

  private drawVisible(focus: Focus, ms: number, target: ZoomTransform): void {
    this.laidOut = true;
    const g = this.geometry;
    const at = (p: P): [number, number] => [p.x, p.y];
    let points = this.points;
    if (g.compact) {
      const box = (t: ZoomTransform) => {
        const m = 1.5 * g.w;
        return [(-t.x) / t.k - m, (this.size.w - t.x) / t.k + m, (-t.y) / t.k - m, (this.size.h - t.y) / t.k + m];
      };
      const a = box(this.transform);
      const b = box(target);
      const inView = (p: P) =>
        (p.x >= a[0] && p.x <= a[1] && p.y >= a[2] && p.y <= a[3]) || (p.x >= b[0] && p.x <= b[1] && p.y >= b[2] && p.y <= b[3]);
      const keep = new Set(focus.marks.keys());
      points = points.filter((p) => p.data.node !== null && (inView(p) || keep.has(p.data.node.id) || (p.parent !== null && inView(p.parent))));
    }
    this.root.dataset.drawn = String(points.filter((p) => p.data.node).length);
    this.renderLinks(points, focus, ms, at);
    this.renderNodes(points, focus, this.hidden, ms, at);
    this.renderNils(g.compact ? [] : points.filter((p) => p.data.node === null), at);
    this.renderCallouts(focus, ms);
  }

  private renderLinks(points: P[], focus: Focus, ms: number, at: (p: P) => [number, number]): void {
    const g = this.geometry;
    const takenKey = this.takenKey(focus);
    const links: Link[] = points
      .filter((p) => p.parent && (!g.compact || p.data.node))
      .map((p) => {
        const [px, py] = at(p.parent as P);
        const [cx, cy] = at(p);
        return { key: p.data.key, source: [px, py + g.h], target: [cx, cy], nil: p.data.node === null };
      });
    const path = linkVertical<Link, [number, number]>()
      .source((l) => l.source)
      .target((l) => l.target);
    const sel = this.viewport
      .select<SVGGElement>('g.links')
      .selectAll<SVGPathElement, Link>('path.link')
      .data(links, (l) => l.key)
      .join(
        (enter) =>
          enter
            .append('path')
            .attr('d', path)
            .each(function (l) {
              (this as SVGPathElement & { __d?: string }).__d = path(l) ?? '';
            }),
        (update) => update,
        (exit) => exit.remove(),
      )
      .attr('class', (l) => `link${l.nil ? ' nil' : ''}${l.key === takenKey ? ' taken' : ''}`);
    sel.each(function (l) {
      const e = this as SVGPathElement & { __d?: string };
      const d = path(l) ?? '';
      if (e.__d === d) return;
      e.__d = d;
      if (ms > 0 && e.getAttribute('d')) select(e).transition('layout').duration(ms).attr('d', d);
      else select(e).interrupt('layout').attr('d', d);
    });
  }

  private renderNodes(
    points: P[],
    focus: Focus,
    hidden: Map<number, number>,
    ms: number,
    at: (p: P) => [number, number],
  ): void {
    const g = this.geometry;
    const real = points.filter((p) => p.data.node !== null);
    const layer = this.viewport.select<SVGGElement>('g.nodes');
    const sel = layer
      .selectAll<SVGGElement, P>('g.node')
      .data(real, (p) => p.data.key)
      .join(
        (enter) => {
          const n = enter.append('g').attr('class', 'node').attr('transform', (p) => translate(at(p), -g.w / 2));
          n.append('rect').attr('class', 'card').attr('width', g.w).attr('height', g.h).attr('rx', g.compact ? 6 : 9);
          if (g.compact) {
            n.append('text').attr('class', 'marker').attr('x', 9).attr('y', 15);
            n.append('text').attr('class', 'size').attr('x', g.w / 2).attr('y', 16);
            n.append('text').attr('class', 'id').attr('x', g.w - 6).attr('y', 15);
            n.append('text').attr('class', 'max').attr('x', g.w / 2).attr('y', 31);
          } else {
            n.append('circle').attr('class', 'badge').attr('cx', 17).attr('cy', 17).attr('r', 11);
            n.append('text').attr('class', 'marker').attr('x', 17).attr('y', 21.5);
            n.append('text').attr('class', 'size').attr('x', 36).attr('y', 22);
            n.append('text').attr('class', 'id').attr('x', NODE_W - 10).attr('y', 22);
            n.append('text').attr('class', 'addr start').attr('x', 12).attr('y', 44);
            n.append('text').attr('class', 'addr end').attr('x', 12).attr('y', 59);
            n.append('text').attr('class', 'max').attr('x', 12).attr('y', 77);
          }
          n.append('text').attr('class', 'hidden-count').attr('x', g.w / 2).attr('y', g.h + 16);
          n.append('title');
          n.on('mouseenter', (_e, p) => this.handlers.onHover?.(p.data.node?.id ?? null))
            .on('mouseleave', () => this.handlers.onHover?.(null))
            .on('click', (e: MouseEvent, p) => {
              e.stopPropagation();
              this.handlers.onSelect?.(p.data.node?.id ?? null);
            });
          if (ms > 0 && !g.compact) n.style('opacity', 0).transition('fade').duration(ms).style('opacity', 1);
          return n;
        },
        (update) => update,
        (exit) => {
          exit.each(function () {
            (this as NodeEl).__node = undefined;
          });
          if (ms > 0) exit.attr('data-va-start', null).classed('leaving', true).transition('fade').duration(ms).style('opacity', 0).remove();
          else exit.remove();
          return exit;
        },
      );
    sel.order();
    const compact = g.compact;
    sel.each(function (p) {
      const e = this as NodeEl;
      const n = p.data.node as FreeNode;
      if (e.classList.contains('leaving')) {
        // Back before its fade-out ended (a quick step back): keep it.
        select(e).interrupt('fade').style('opacity', null);
        e.classList.remove('leaving');
      }
      updateNode(e, n, hidden.get(n.id) ?? 0, compact);
      markNode(e, focus.marks.get(n.id));
      const [x, y] = at(p);
      const pos = translate([x, y], -g.w / 2);
      if (e.__pos !== pos) {
        const first = e.__pos === undefined;
        e.__pos = pos;
        if (ms > 0 && !first) select(e).transition('layout').duration(ms).attr('transform', pos);
        else select(e).interrupt('layout').attr('transform', pos);
      }
    });
  }

  private takenKey(focus: Focus): string | null {
    if (!focus.taken || !this.nodes) return null;
    const from = this.nodes.find((n) => n.id === focus.taken?.from);
    const child = from ? (focus.taken.side === 'left' ? from.left : from.right) : null;
    return child !== null && child !== undefined ? `n${child}` : null;
  }

  private renderNils(nils: P[], at: (p: P) => [number, number]): void {
    this.viewport
      .select<SVGGElement>('g.nodes')
      .selectAll<SVGGElement, P>('g.nil')
      .data(nils, (p) => p.data.key)
      .join((enter) => {
        const n = enter.append('g').attr('class', 'nil');
        n.append('rect').attr('width', NIL_W).attr('height', NIL_H).attr('rx', 3);
        n.append('text').attr('x', NIL_W / 2).attr('y', 11.5).text('nil');
        return n;
      })
      .attr('transform', (p) => translate(at(p), -NIL_W / 2));
  }

  /** Callouts: a label above each node the step is about (the test made, old → new max, …). */
  private renderCallouts(focus: Focus, ms: number): void {
    const g = this.geometry;
    const data = focus.callouts.filter((c) => this.positions.has(c.id));
    const sel = this.viewport
      .select<SVGGElement>('g.callouts')
      .selectAll<SVGGElement, (typeof data)[number]>('g.callout')
      .data(data, (c) => `c${c.id}`)
      .join((enter) => {
        const c = enter.append('g').attr('class', 'callout');
        c.append('rect').attr('class', 'bubble').attr('rx', 6);
        c.append('path').attr('class', 'tail');
        c.append('text');
        return c;
      })
      .attr('class', (c) => `callout tone-${c.tone}`)
      .attr('data-callout-for', (c) => c.id);
    sel.each(function (c) {
      const s = select(this);
      const text = s.select<SVGTextElement>('text').text(c.text);
      const lecture = document.body.classList.contains('lecture');
      const fs = lecture ? 15 : g.compact ? 12 : 13;
      const w = Math.max(40, textWidth(c.text, fs) + 20);
      const h = fs + 10;
      text.attr('x', 0).attr('y', -h / 2 + fs * 0.35).attr('text-anchor', 'middle').style('font-size', `${fs}px`);
      s.select('rect.bubble').attr('x', -w / 2).attr('y', -h).attr('width', w).attr('height', h);
      s.select('path.tail').attr('d', 'M-6,0 L0,7 L6,0 Z');
    });
    const positions = this.positions;
    const compact = g.compact;
    const scale = this.calloutScale;
    sel.each(function (c) {
      const [x, y] = positions.get(c.id) ?? [0, 0];
      const t = `translate(${x},${y - 9})`;
      const e = this as SVGGElement & { __pos?: string };
      const full = scale === 1 ? t : `${t} scale(${scale})`;
      if (ms > 0 && e.__pos && !compact) select(e).transition('layout').duration(ms).attr('transform', full);
      else select(e).interrupt('layout').attr('transform', full);
      e.__pos = t;
    });
  }

  /**
   * The transform that shows the whole tree, centred, at most at scale 1 (larger in lecture
   * mode, growing with the panel). A tree too wide to read that way (`whole` false) is shown
   * at the smallest readable scale instead, centred on the node the step is about (or the
   * root); the rest is a pan away. In lecture mode "readable" means node text of at least
   * LECTURE_TEXT_PX on screen.
   */
  private fitTransform(whole = false): ZoomTransform {
    const w = this.size.w || 800;
    const h = this.size.h || 300;
    const b = this.bounds;
    const bw = Math.max(1, b.x1 - b.x0);
    const bh = Math.max(1, b.y1 - b.y0);
    const lecture = document.body.classList.contains('lecture');
    const compact = this.geometry.compact;
    const readable = lecture ? LECTURE_TEXT_PX / (compact ? LECTURE_FONT.compact : LECTURE_FONT.full) : compact ? MIN_WHOLE_COMPACT : MIN_READABLE;
    // A projector wants the cards larger than life when they fit, more so on a larger screen.
    const most = lecture ? Math.max(readable, Math.min(2.4, Math.min(w / 560, h / 360))) : 1;
    let k = Math.min(most, w / bw, h / bh);
    if (!whole && k < readable) {
      // Labels on (the near level of detail), by the tree's height when the panel is tall enough.
      k = lecture ? readable : Math.max(k, Math.min(0.7, Math.max(h / bh, this.geometry.compact ? 0.6 : 0.5)));
      // Stay put while the step's nodes are in view (panning repaints the whole drawing).
      if (Math.abs(this.transform.k - k) < 1e-9 && this.laidOut && this.followTarget(this.opts.focus ?? NO_FOCUS) === null) {
        return this.transform;
      }
      const focus = this.opts.focus ?? NO_FOCUS;
      const ids = this.focusIds(focus);
      const pts = this.pointsOf(ids);
      const primary = pts.length;
      if (!pts.length) pts.push(this.positions.get(this.rootId ?? -1) ?? [0, 0]);
      else pts.push(...this.pointsOf((focus.context ?? []).filter((id) => !ids.includes(id))));
      const top = Math.max(0, (h - bh * k) / 2) * 0.25 - b.y0 * k;
      return this.centreOn(pts, k, top, primary || 1);
    }
    const tx = (w - bw * k) / 2 - b.x0 * k;
    const ty = Math.max(0, (h - bh * k) / 2) * (lecture ? 0.5 : 0.25) - b.y0 * k;
    return zoomIdentity.translate(round(tx), round(ty)).scale(k);
  }

  /** Where the cards of these nodes are (nodes not laid out are left out). */
  private pointsOf(ids: number[]): [number, number][] {
    return ids.map((id) => this.positions.get(id)).filter((p): p is [number, number] => p !== undefined);
  }

  /** The nodes a step is about, the one its narration names first: callouts, then marks (not the path). */
  private focusIds(focus: Focus): number[] {
    const ids = focus.callouts.map((c) => c.id);
    for (const [id, m] of focus.marks) if (!m.every((x) => x === 'path' || x === 'prop-path') && !ids.includes(id)) ids.push(id);
    return ids.filter((id) => this.positions.has(id));
  }

  /** Centre the view on a point of the tree, at the same scale (from the overview). */
  private goTo(x: number, y: number): void {
    this.setAutoFit(false);
    const k = this.transform.k;
    const t = zoomIdentity.translate(this.size.w / 2 - x * k, this.size.h / 2 - y * k).scale(k);
    this.setTransform(t, 0);
    // A compact tree draws what comes near the screen.
    if (this.geometry.compact) {
      this.drawVisible(this.opts.focus ?? NO_FOCUS, 0, this.transform);
      this.applyHighlight();
    }
  }

  /** Fit the tree to the panel (and keep fitting it as it changes). */
  fit(ms = 0): void {
    this.setAutoFit(true);
    this.laidOut = false;
    if (this.nodes) this.draw(this.opts.focus ?? NO_FOCUS, ms);
    else this.setTransform(this.fitTransform(), ms);
  }

  private setTransform(t: ZoomTransform, ms: number): void {
    this.overview.view(t, this.size);
    this.programmatic = true;
    try {
      if (ms > 0) this.svg.transition('zoom').duration(ms).call(this.zoomer.transform, t);
      else {
        this.svg.interrupt('zoom');
        this.zoomer.transform(this.svg, t);
      }
    } finally {
      this.programmatic = false;
    }
  }

  /**
   * Zoom by `f` around the focus: the node the step is about when it is on screen, else the
   * pointer when it is over the tree, else the panel's centre.
   */
  private zoomBy(f: number): void {
    this.setAutoFit(false);
    const { w, h } = this.size;
    const t = this.transform;
    let p: [number, number] | null = null;
    for (const id of this.focusIds(this.opts.focus ?? NO_FOCUS)) {
      const at = this.positions.get(id);
      if (!at) continue;
      const [sx, sy] = t.apply([at[0], at[1] + this.geometry.h / 2]);
      if (sx >= 0 && sx <= w && sy >= 0 && sy <= h) {
        p = [sx, sy];
        break;
      }
    }
    p ??= this.pointer;
    this.programmatic = true;
    if (p) this.zoomer.scaleBy(this.svg, f, p);
    else this.zoomer.scaleBy(this.svg, f);
    this.programmatic = false;
    if (this.geometry.compact) this.drawVisible(this.opts.focus ?? NO_FOCUS, 0, this.transform);
  }

  /** Where the pointer is over the drawing (null: elsewhere). */
  private pointer: [number, number] | null = null;

  /** Without auto-fit: where to pan so that the nodes the step is about are in view (null: they are). */
  private followTarget(focus: Focus): ZoomTransform | null {
    const ids = this.focusIds(focus);
    const primary = this.pointsOf(ids);
    if (!primary.length) return null;
    const { w, h } = this.size;
    const t = this.transform;
    // The nodes the narration also names (a link's parent) come along when all of them fit at
    // this scale; when they cannot, only the step's own nodes count (else every frame would pan).
    const all = [...primary, ...this.pointsOf((focus.context ?? []).filter((id) => !ids.includes(id)))];
    const gw = this.geometry.w;
    const gh = this.geometry.h;
    const span = (ps: [number, number][], i: 0 | 1) => Math.max(...ps.map((p) => p[i])) - Math.min(...ps.map((p) => p[i]));
    const pts = (span(all, 0) + gw) * t.k <= w - 12 && (span(all, 1) + gh) * t.k + 36 <= h - 6 ? all : primary;
    // In view: the whole card, with room for its callout above it.
    const visible = pts.every(([x, y]) => {
      const [sx, sy] = t.apply([x, y]);
      return sx > 20 && sx < w - 20 && sy > 30 && sy + gh * t.k < h - 6;
    });
    if (visible) return null;
    return this.centreOn(pts, t.k, null, primary.length);
  }

  /**
   * A transform at scale `k` that shows the cards at `pts` (with room for a callout above),
   * all of them when they fit, else the first; `top` (the fitted tree's own position) is kept
   * when it already shows them vertically.
   */
  private centreOn(pts: [number, number][], k: number, top: number | null, primary = pts.length): ZoomTransform {
    const { w, h } = this.size;
    const gw = this.geometry.w;
    const gh = this.geometry.h;
    const box = (ps: [number, number][]) => ({
      x0: Math.min(...ps.map((p) => p[0])) - gw / 2,
      x1: Math.max(...ps.map((p) => p[0])) + gw / 2,
      y0: Math.min(...ps.map((p) => p[1])) - 36 / k,
      y1: Math.max(...ps.map((p) => p[1])) + gh,
    });
    const fits = (b: { x0: number; x1: number; y0: number; y1: number }) => (b.x1 - b.x0) * k <= w - 12 && (b.y1 - b.y0) * k <= h - 6;
    // All of them, else the step's own nodes (without the context), else the first.
    let b = box(pts);
    if (!fits(b)) b = box(pts.slice(0, primary));
    if (!fits(b)) b = box(pts.slice(0, 1));
    const tx = w / 2 - ((b.x0 + b.x1) / 2) * k;
    let ty = h / 2 - ((b.y0 + b.y1) / 2) * k;
    // (The fitted tree keeps room above its root for the root's callout.)
    if (top !== null && top + b.y0 * k + 36 >= 0 && top + b.y1 * k <= h - 6) ty = top;
    // A card taller than the panel: its top (and its callout) in view.
    ty = Math.max(ty, -b.y0 * k);
    return zoomIdentity.translate(round(tx), round(ty)).scale(k);
  }

  /**
   * Labels go first when zoomed out (frames stay); the R/B marker and the id go last: at a
   * medium or far level they are drawn at a size that stays readable on screen, and the
   * callouts (what the narration says about a node) keep a readable size too.
   */
  private levelOfDetail(): void {
    const k = this.transform.k;
    // Compact cards carry smaller type: their second line goes first.
    const lod = k < 0.22 ? 'far' : k < (this.geometry.compact ? 0.6 : 0.5) ? 'mid' : 'near';
    if (this.root.dataset.lod !== lod) {
      this.root.dataset.lod = lod;
      this.svg.classed('lod-far', lod === 'far').classed('lod-mid', lod === 'mid');
    }
    // Marker and id: LOD_LABEL_PX on screen, but never wider than a card's share of the row.
    const g = this.geometry;
    const label = lod === 'near' ? null : Math.min(LOD_LABEL_PX / k, g.w / 3.4, g.h * 0.9);
    const fs = label === null ? '' : `${Math.round(label * 2) / 2}px`;
    if (fs !== this.labelSize) {
      this.labelSize = fs;
      (this.svg.node() as SVGSVGElement).style.setProperty('--lod-label', fs || 'inherit');
    }
    const c = Math.round(Math.max(1, Math.min(6, 0.8 / k)) * 100) / 100;
    if (c !== this.calloutScale) {
      this.calloutScale = c;
      this.viewport.selectAll<SVGGElement, unknown>('g.callout').each(function () {
        const e = this as SVGGElement & { __pos?: string };
        if (e.__pos) select(e).interrupt('layout').attr('transform', `${e.__pos} scale(${c})`);
      });
    }
  }

  private labelSize = '';
  private calloutScale = 1;

  /** Outline the node of this area id (hover; null clears). */
  highlight(id: number | null): void {
    this.highlighted = id;
    this.applyHighlight();
  }

  /** Pin a selection (null clears). */
  select(id: number | null): void {
    this.selected = id;
    this.applyHighlight();
  }

  private applyHighlight(): void {
    const h = this.highlighted;
    const s = this.selected;
    this.viewport.selectAll<SVGGElement, P>('g.node').each(function (p) {
      const id = p.data.node?.id;
      this.classList.toggle('hl', h !== null && id === h);
      this.classList.toggle('sel', s !== null && id === s);
    });
  }

  /** Kept for callers of the first version: fit the tree to the panel. */
  centerRoot(): void {
    this.fit(0);
  }
}

/** Write a node's values into its card, only what changed since the last time. */
function updateNode(e: NodeEl, n: FreeNode, more: number, compact: boolean): void {
  const o = e.__node;
  if (
    o &&
    e.__more === more &&
    o.id === n.id &&
    o.vaStart === n.vaStart &&
    o.vaEnd === n.vaEnd &&
    o.subtreeMaxSize === n.subtreeMaxSize &&
    o.black === n.black &&
    o.depth === n.depth
  ) {
    e.__node = n;
    return;
  }
  e.__node = n;
  e.__more = more;
  const color = n.black ? 'black' : 'red';
  e.setAttribute('data-id', String(n.id));
  e.setAttribute('data-va-start', hex(n.vaStart));
  e.setAttribute('data-va-end', hex(n.vaEnd));
  e.setAttribute('data-subtree-max-size', hex(n.subtreeMaxSize));
  e.setAttribute('data-color', color);
  e.setAttribute('data-depth', String(n.depth));
  const s = select(e);
  s.classed('red', !n.black).classed('black', n.black).classed('collapsed', more > 0);
  s.select('text.marker').text(n.black ? 'B' : 'R');
  if (compact) {
    s.select('text.size').text(size(n.vaEnd - n.vaStart));
    s.select('text.id').text(`#${n.id}`);
    s.select('text.max').text(`max ${size(n.subtreeMaxSize)}`);
  } else {
    s.select('text.size').text(`size ${size(n.vaEnd - n.vaStart)}`);
    s.select('text.id').text(`#${n.id}`);
    s.select('text.start').text(`[${hex(n.vaStart)},`);
    s.select('text.end').text(` ${hex(n.vaEnd)})`);
    s.select('text.max').text(`subtree max ${size(n.subtreeMaxSize)}`);
  }
  s.select('text.hidden-count').text(more ? `▾ ${more} more` : '');
  s.select('title').text(
    `${color} node #${n.id} at depth ${n.depth}\n` +
      `free block [${hex(n.vaStart)}, ${hex(n.vaEnd)}), ${size(n.vaEnd - n.vaStart)}\n` +
      `subtree_max_size ${hex(n.subtreeMaxSize)} (${size(n.subtreeMaxSize)})` +
      (more ? `\n${more} nodes below are collapsed` : ''),
  );
}

/** Set a node's step marks (classes `m-*` and `data-mark`), only when they changed. */
function markNode(e: NodeEl, marks: readonly string[] | undefined): void {
  const mark = marks ? marks.join(' ') : '';
  if (e.__mark === mark || (e.__mark === undefined && mark === '')) {
    e.__mark = mark;
    return;
  }
  const old = e.__mark ? e.__mark.split(' ') : [];
  for (const m of old) e.classList.remove(`m-${m}`);
  for (const m of marks ?? []) e.classList.add(`m-${m}`);
  if (mark) e.setAttribute('data-mark', mark);
  else e.removeAttribute('data-mark');
  e.__mark = mark;
}

/** Ids and children in pre-order: two snapshots with the same key lay out the same. */
function shapeKey(nodes: FreeNode[], compact: boolean): string {
  let k = compact ? 'c' : 'f';
  for (const n of nodes) k += `${n.id},${n.left ?? ''},${n.right ?? ''};`;
  return k;
}

function translate([x, y]: [number, number], dx: number): string {
  return `translate(${round(x + dx)},${round(y)})`;
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

/** An estimate of a label's width (no layout read, so rendering stays cheap and deterministic). */
function textWidth(s: string, fontPx: number): number {
  // Bold sans: digits and capitals are wider than the average letter.
  let w = 0;
  for (const c of s) w += /[A-Z0-9≈→≥]/.test(c) ? 0.7 : c === ' ' ? 0.32 : 0.6;
  return w * fontPx;
}
