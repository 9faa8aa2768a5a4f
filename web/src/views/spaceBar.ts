// The address-space bar: every area the core reports, in address order, drawn as free, busy,
// lazy or pooled with a fill, a pattern and a label (never colour alone). Widths follow
// layout/space.ts (log2 of the size, so 8K pages and 16E blocks share one bar).
import { select, type Selection } from 'd3';
import type { BumpChunk, State } from '../bridge';
import type { FocusRange } from '../player/focus';
import { VMALLOC_END, VMALLOC_START } from '../constants';
import { hex, range, size } from '../format';
import { clusterSegments, placeSegments, placeTicks, segments, xOf, type PlacedSegment, type Tick } from '../layout/space';
import { nextId } from './common';
import { drawRanges } from './rangeOverlay';
import { drawnParts, sameParts, setAttr, setAttrs, setClass, setText } from './dom';

const BAR_Y = 30;
const BAR_H = 58;
const TICK_ROWS = 2;

/**
 * The bar's type: px a character of each kind of label (no layout read), the tick labels' box
 * and row. Lecture mode draws every label at 16 px (style.css, body.lecture .space-bar) so the
 * back rows read it: its labels need more room, and fewer fit.
 */
interface BarType {
  /** A kind label (bold uppercase, 11 px; 16 in lecture mode). */
  kind: number;
  /** A size label (12 px monospace; 16). */
  size: number;
  /** A tick's address (11 px monospace; 16). */
  tick: number;
  /** The vmalloc window's words (bold 12 px; 16). */
  win: number;
  /** A bump chunk's label (bold 10 px monospace; 16). */
  chunk: number;
  /** An overlay range's words (11 px; 16). */
  over: number;
  /** The box of an 18-digit hex tick label. */
  labelW: number;
  /** A row of tick labels. */
  row: number;
}
const NORMAL_TYPE: BarType = { kind: 7.5, size: 7.3, tick: 7, win: 7.6, chunk: 6.5, over: 7, labelW: 124, row: 16 };
const LECTURE_TYPE: BarType = {
  kind: (7.5 * 16) / 11,
  size: (7.3 * 16) / 12,
  tick: (7 * 16) / 11,
  win: (7.6 * 16) / 12,
  chunk: (6.5 * 16) / 10,
  over: (7 * 16) / 11,
  labelW: Math.ceil((124 * 16) / 11),
  row: 21,
};
const MARGIN_X = 2;
/** Height of a bump chunk's band along the bottom of the bar. */
const CHUNK_H = 14;
/** The row under the ticks for the labels of new bounds and requests. */
const OVERLAY_ROW = 16;

/** Where a tick's label starts, relative to the tick: inside the bar, centred when there is room. */
function labelX(t: Tick, type: BarType): number {
  const width = type.tick * hex(t.addr).length;
  const centred = t.anchor === 'start' ? 0 : t.anchor === 'end' ? -width : -width / 2;
  const box = t.labelX - t.x; // the room placeTicks kept, relative to the tick
  return Math.max(box, Math.min(box + type.labelW - width, centred));
}

const STATE_LABEL: Record<PlacedSegment['state'], string> = {
  free: 'free',
  busy: 'busy',
  lazy: 'lazy',
  pool: 'pool',
  gap: 'gap',
  cluster: 'areas',
};

/** More areas than this and the overview draws runs of small ones as clusters. */
const MAX_AREAS = 400;

export interface SpaceBarOptions {
  /**
   * Called with an area id when the pointer enters an area, null when it leaves; the area itself
   * (its range and state; a gap or a cluster has a null id) comes second.
   */
  onHover?: (id: number | null, area?: PlacedSegment | null) => void;
  /** A click on an area (busy areas offer to be freed). */
  onAreaClick?: (area: PlacedSegment, event: MouseEvent) => void;
}

export interface BarRenderOptions {
  /** Ranges the current step is about, outlined over the bar. */
  ranges?: FocusRange[];
  /** The zoomed view's window `[lo, hi)`, drawn as the minimap's visible window. */
  window?: [bigint, bigint] | null;
  /** Transition length in ms (0: instant). */
  duration?: number;
  /** Two renders with the same key draw the same state (even if not the same object). */
  key?: string;
  /** `node`: busy and lazy areas filled by their vmap node (linux-6.9); patterns still tell the state. */
  colorBy?: 'state' | 'node';
}

/** Fills of vmap nodes (colour-blind-safe Okabe–Ito hues). */
export const NODE_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#999999'];

export class SpaceBar {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly prefix = nextId('sb');
  private state: State | null = null;
  private highlighted: number | null = null;
  /** A range `[lo, hi)` whose areas are outlined too (a maple slot hovered), or null. */
  private span: [bigint, bigint] | null = null;
  private selected: number | null = null;
  private placed: PlacedSegment[] = [];
  private drawnFor: { state: State; parts: unknown[]; width: number; key?: string; colorBy: string } | null = null;
  private opts: BarRenderOptions = {};
  /** The root's width, from the resize observer (rendering never reads layout). */
  private rootWidth = 0;
  /** The type of the last render (lecture mode's is larger). */
  private type: BarType = NORMAL_TYPE;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: SpaceBarOptions = {},
  ) {
    root.classList.add('space-bar');
    this.svg = select(root)
      .append('svg')
      .attr('class', 'space-bar-svg')
      .attr('role', 'img')
      .attr('aria-label', 'Address space: free, busy and lazy areas in address order');
    this.defs();
    this.svg.append('g').attr('class', 'window');
    this.svg.append('g').attr('class', 'areas');
    this.svg.append('g').attr('class', 'chunks');
    this.svg.append('g').attr('class', 'ticks');
    this.svg.append('g').attr('class', 'lens-window');
    this.svg.append('g').attr('class', 'overlay');
    new ResizeObserver((entries) => {
      const w = entries[entries.length - 1].contentRect.width;
      if (w === this.rootWidth) return;
      this.rootWidth = w;
      if (this.state) this.render(this.state, { ...this.opts, duration: 0 });
    }).observe(root);
  }

  /** Hatching, dots and cross-hatching so busy, lazy and pooled areas differ without colour. */
  private defs(): void {
    const defs = this.svg.append('defs');
    const pattern = (name: string, w: number, h: number, rotate = 0) =>
      defs
        .append('pattern')
        .attr('id', `${this.prefix}-${name}`)
        .attr('patternUnits', 'userSpaceOnUse')
        .attr('width', w)
        .attr('height', h)
        .attr('patternTransform', rotate ? `rotate(${rotate})` : null);
    pattern('busy', 8, 8, 45).append('rect').attr('width', 3).attr('height', 8).attr('class', 'pat-busy');
    pattern('lazy', 8, 8).append('circle').attr('cx', 4).attr('cy', 4).attr('r', 1.6).attr('class', 'pat-lazy');
    const cross = pattern('pool', 8, 8, 45);
    cross.append('rect').attr('width', 2).attr('height', 8).attr('class', 'pat-pool');
    cross.append('rect').attr('width', 8).attr('height', 2).attr('class', 'pat-pool');
    pattern('gap', 6, 6, -45).append('rect').attr('width', 2).attr('height', 6).attr('class', 'pat-gap');
    pattern('cluster', 6, 6, 45).append('rect').attr('width', 3).attr('height', 6).attr('class', 'pat-busy');
  }

  render(state: State, options: BarRenderOptions = {}): void {
    this.state = state;
    this.opts = options;
    const ms = options.duration ?? 0;
    if (!this.rootWidth) this.rootWidth = this.root.clientWidth;
    const width = Math.max(320, this.rootWidth - 2 * MARGIN_X);
    // Micro-steps of one operation share its state (or the parts of it the bar draws): only the
    // overlays change then. Otherwise the areas are placed again and each element written only
    // where it changed (joins keyed by area id).
    const colorBy = options.colorBy ?? 'state';
    const parts = drawnParts(state);
    // Lecture mode is a class on the body (no layout read); toggling it resizes the bar, which
    // renders again.
    const type = document.body.classList.contains('lecture') ? LECTURE_TYPE : NORMAL_TYPE;
    const typeChanged = type !== this.type;
    this.type = type;
    if (typeChanged) this.svg.selectAll<SVGGElement, unknown>('g.area').each(function () {
      (this as AreaEl).__w = undefined;
    });
    const same =
      !typeChanged &&
      this.drawnFor &&
      this.drawnFor.width === width &&
      this.drawnFor.colorBy === colorBy &&
      (this.drawnFor.state === state || sameParts(this.drawnFor.parts, parts) || (options.key !== undefined && options.key === this.drawnFor.key));
    if (!same) {
      const placed = placeSegments(clusterSegments(segments(state), MAX_AREAS), width, 6);
      this.placed = placed;
      this.drawnFor = { state, parts, width, key: options.key, colorBy };
      const total = placed.length ? placed[placed.length - 1].x + placed[placed.length - 1].width : width;
      const height = BAR_Y + BAR_H + 8 + TICK_ROWS * type.row + 4 + 2 * OVERLAY_ROW;
      setAttrs(this.svg.node() as SVGSVGElement, {
        width: total + 2 * MARGIN_X,
        height,
        viewBox: `${-MARGIN_X} 0 ${total + 2 * MARGIN_X} ${height}`,
      });
      this.renderWindow(placed);
      this.renderAreas(placed, ms, colorBy, (state.chunks?.length ?? 0) > 0);
      this.renderChunks(placed, state.chunks ?? []);
      this.renderTicks(placed);
      this.highlight(this.highlighted);
    }
    this.renderLensWindow(options.window ?? null);
    this.renderOverlay(options.ranges ?? []);
  }

  /** The zoomed view's visible window, over the overview (a minimap). */
  private renderLensWindow(win: [bigint, bigint] | null): void {
    const placed = this.placed;
    const last = placed[placed.length - 1];
    let data: { x: number; w: number }[] = [];
    if (win && last && placed.length) {
      const lo = win[0] < placed[0].start ? placed[0].start : win[0];
      const hi = win[1] > last.end ? last.end : win[1];
      const x0 = xOf(placed, lo);
      const x1 = xOf(placed, hi);
      if (x0 !== null && x1 !== null && hi > lo) {
        const w = Math.max(4, x1 - x0);
        data = [{ x: Math.min(x0, x1 - w + Math.max(0, x1 - x0)), w }];
      }
    }
    this.svg
      .select<SVGGElement>('g.lens-window')
      .selectAll<SVGRectElement, { x: number; w: number }>('rect')
      .data(data)
      .join((enter) => enter.append('rect').attr('class', 'lens-box').attr('y', BAR_Y - 4).attr('height', BAR_H + 8).attr('rx', 3))
      .each(function (d) {
        setAttrs(this, { x: round(d.x), width: round(d.w) });
      });
  }

  /** Outlines of the ranges the step is about (the block being clipped or merged, and its new bounds). */
  private renderOverlay(ranges: FocusRange[]): void {
    const type = this.type;
    const placed = this.placed;
    const data = ranges
      .map((r, i) => {
        const x0 = xOf(placed, r.start);
        const x1 = xOf(placed, r.end);
        return x0 === null || x1 === null ? null : { ...r, i, x0, x1 };
      })
      .filter((r): r is NonNullable<typeof r> => r !== null);
    const last = placed[placed.length - 1];
    const total = last ? last.x + last.width : 0;
    drawRanges(this.svg, data, (d, words, inset) => {
      const half = (words.length * type.over) / 2 + 4;
      return {
        rect: { x: round(Math.min(d.x0, d.x1 - 3)), y: BAR_Y - 2 + inset, width: round(Math.max(3, d.x1 - d.x0)), height: BAR_H + 4 - 2 * inset },
        text: {
          x: round(Math.max(half, Math.min(total - half, (d.x0 + d.x1) / 2))),
          y: BAR_Y + BAR_H + 8 + TICK_ROWS * type.row + (d.tone === 'old' || d.tone === 'focus' ? 1 : 2) * OVERLAY_ROW,
        },
      };
    });
  }

  private renderAreas(placed: PlacedSegment[], ms: number, colorBy: 'state' | 'node' = 'state', chunked = false): void {
    const type = this.type;
    // Kind and size baselines: the hall's 16 px rows need 19 px each, and over a chunk band
    // (whose label takes the bottom row) both move up.
    const [ky, sy] = type === LECTURE_TYPE ? (chunked ? [17, 36] : [23, 42]) : [25, 42];
    const areas = this.svg
      .select<SVGGElement>('g.areas')
      .selectAll<SVGGElement, PlacedSegment>('g.area')
      .data(placed, (d) => d.key)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'area');
        g.append('rect').attr('class', 'fill');
        g.append('rect').attr('class', 'pattern');
        g.append('text').attr('class', 'label kind');
        g.append('text').attr('class', 'label size');
        g.append('title');
        g.attr('transform', (d) => `translate(${d.x},${BAR_Y})`);
        g.on('mouseenter', (_e, d) => this.handlers.onHover?.(d.id, d))
          .on('mouseleave', () => this.handlers.onHover?.(null, null))
          .on('click', (e: MouseEvent, d) => this.handlers.onAreaClick?.(d, e));
        return g;
      });

    areas.order();
    // Many areas (a long trace) move at once: no transitions then, and each element is only
    // written where it changed.
    const animate = ms > 0 && placed.length <= 400;
    const prefix = this.prefix;
    const label = (d: PlacedSegment) => this.label(d);
    areas.each(function (d) {
      const e = this as AreaEl;
      const cls = `area area-${d.state}`;
      const start = hex(d.start);
      const end = hex(d.end);
      const byNode = colorBy === 'node' && d.vmapNode !== undefined && (d.state === 'busy' || d.state === 'lazy');
      const fill = byNode ? NODE_COLORS[(d.vmapNode ?? 0) % NODE_COLORS.length] : '';
      if (e.__fill !== fill) {
        e.__fill = fill;
        const r = e.querySelector<SVGRectElement>('rect.fill');
        if (r) r.style.fill = fill;
        if (byNode) e.setAttribute('data-node', String(d.vmapNode));
        else e.removeAttribute('data-node');
      }
      // A cluster's make-up (how many areas of each kind) is in its tooltip and data-count.
      const counts = d.state === 'cluster' ? Object.entries(d.counts ?? {}).join(';') : '';
      const [fillRect, patternRect, kindText, sizeText, title] = e.children;
      if (e.__cls !== cls || e.__start !== start || e.__end !== end || e.__counts !== counts) {
        e.__counts = counts;
        e.__cls = cls;
        e.__start = start;
        e.__end = end;
        // Keep hover/selection classes.
        setAttr(e, 'class', `${cls}${e.classList.contains('hl') ? ' hl' : ''}${e.classList.contains('sel') ? ' sel' : ''}`);
        setAttrs(e, {
          'data-state': d.state === 'gap' || d.state === 'cluster' ? null : d.state,
          'data-id': d.id,
          'data-va-start': start,
          'data-va-end': end,
          'data-count': d.state === 'cluster' ? Object.values(d.counts ?? {}).reduce((a, b) => a + b, 0) : null,
        });
        setAttr(fillRect, 'height', BAR_H);
        setAttrs(patternRect, { height: BAR_H, fill: d.state === 'free' ? 'none' : `url(#${prefix}-${d.state})` });
        setText(
          title,
          d.state === 'cluster'
            ? `${Object.entries(d.counts ?? {})
                .map(([k, n]) => `${n} ${k}`)
                .join(', ')} in ${range(d.start, d.end)}: zoom in below to see them one by one`
            : `${label(d)} ${range(d.start, d.end)} · ${size(d.end - d.start)}${d.id !== null ? ` · area #${d.id}` : ''}`,
        );
        e.__w = undefined;
      }
      const tr = `translate(${round(d.x)},${BAR_Y})`;
      if (e.__tr !== tr) {
        const first = e.__tr === undefined;
        e.__tr = tr;
        if (animate && !first) select(e).transition('layout').duration(ms).attr('transform', tr);
        else setAttr(select(e).interrupt('layout').node() as Element, 'transform', tr);
      }
      const w = round(Math.max(1, d.width - 1));
      if (e.__w !== w * 64 + ky) {
        e.__w = w * 64 + ky;
        if (animate) select(e).selectAll<SVGRectElement, unknown>('rect').transition('layout').duration(ms).attr('width', w);
        else {
          select(e).selectAll('rect').interrupt('layout');
          setAttr(fillRect, 'width', w);
          setAttr(patternRect, 'width', w);
        }
        const name = d.state === 'cluster' ? `${Object.values(d.counts ?? {}).reduce((a, b) => a + b, 0)} areas` : label(d);
        const kind = d.width >= type.kind * name.length + 12 ? name : d.width >= 14 ? name[0].toUpperCase() : '';
        setAttrs(kindText, { x: round(d.width / 2), y: ky });
        setText(kindText, kind);
        setAttrs(sizeText, { x: round(d.width / 2), y: sy });
        // The size only where it fits (no layout read).
        const sz = d.state === 'cluster' ? '' : size(d.end - d.start);
        setText(sizeText, d.width >= type.size * sz.length + 6 ? sz : '');
      }
    });
  }

  /**
   * maple-rfc's bump chunks (spec §11.5) as bands along the bottom of the bar: the chunk's range
   * `[base, limit)`, the part handed out so far `[base, bump)` filled, the bump pointer as a line
   * across the bar, and the owner CPU and used pages in the band and its tooltip.
   */
  private renderChunks(placed: PlacedSegment[], chunks: BumpChunk[]): void {
    const type = this.type;
    const data = chunks
      .map((c) => {
        const x0 = xOf(placed, c.base);
        const x1 = xOf(placed, c.limit);
        const xb = xOf(placed, c.bump);
        return x0 === null || x1 === null ? null : { c, x0, x1, xb: xb ?? x0 };
      })
      .filter((d): d is NonNullable<typeof d> => d !== null);
    const y = BAR_Y + BAR_H - CHUNK_H;
    this.svg
      .select<SVGGElement>('g.chunks')
      .selectAll<SVGGElement, (typeof data)[number]>('g.chunk')
      .data(data, (d) => hex(d.c.base))
      .join((enter) => {
        const e = enter.append('g');
        e.append('rect').attr('class', 'chunk-band').attr('y', y).attr('height', CHUNK_H).attr('rx', 2);
        e.append('rect').attr('class', 'chunk-used').attr('y', y + 3).attr('height', CHUNK_H - 6);
        e.append('line').attr('class', 'chunk-bump').attr('y1', BAR_Y - 3).attr('y2', BAR_Y + BAR_H);
        e.append('path').attr('class', 'chunk-bump-mark');
        e.append('text').attr('class', 'chunk-label').attr('y', y + CHUNK_H - 3);
        e.append('title');
        return e;
      })
      .each(function (d) {
        const c = d.c;
        setAttrs(this, {
          class: `chunk chunk-${c.current ? 'current' : 'retired'}`,
          'data-chunk-base': hex(c.base),
          'data-chunk-limit': hex(c.limit),
          'data-bump': hex(c.bump),
          'data-pages': String(c.pages),
          'data-cpu': String(c.ownerCpu),
          'data-chunk-state': c.current ? 'current' : 'retired',
        });
        const [band, used, line, mark, label, title] = this.children;
        setAttrs(band, { x: round(d.x0), width: round(Math.max(2, d.x1 - d.x0)) });
        setAttrs(used, { x: round(d.x0), width: round(Math.max(0, d.xb - d.x0)) });
        setAttrs(line, { x1: round(d.xb), x2: round(d.xb) });
        setAttr(mark, 'd', `M${round(d.xb)},${BAR_Y - 3} l-4,-6 h8 z`);
        setAttr(label, 'x', round(d.xb + 4));
        const full = `CPU ${c.ownerCpu} · ${c.pages} p${c.current ? '' : ' · retired'}`;
        const medium = `CPU ${c.ownerCpu}${c.current ? '' : ' retired'}`;
        const room = d.x1 - d.xb - 6;
        setText(label, [full, medium, `CPU ${c.ownerCpu}`].find((t) => room >= type.chunk * t.length) ?? '');
        setText(
          title,
          `bump chunk ${range(c.base, c.limit)} · ${size(c.limit - c.base)} · owner CPU ${c.ownerCpu} · ` +
            `${c.current ? 'its current chunk' : 'retired (no longer bumped)'} · bump pointer ${hex(c.bump)} · ` +
            `${c.pages} page${c.pages === 1 ? '' : 's'} in use, ${size(c.bump - c.base)} handed out`,
        );
      });
  }

  private renderTicks(placed: PlacedSegment[]): void {
    const type = this.type;
    const ticks = placeTicks(placed, type.labelW, TICK_ROWS);
    const top = BAR_Y + BAR_H;
    this.svg
      .select<SVGGElement>('g.ticks')
      .selectAll<SVGGElement, (typeof ticks)[number]>('g.tick')
      .data(ticks, (d) => d.addr.toString(16))
      .join((enter) => {
        const t = enter.append('g').attr('class', 'tick');
        t.append('line').attr('y1', top);
        t.append('text').attr('text-anchor', 'start');
        return t;
      })
      .each(function (d) {
        setAttrs(this, { class: d.row < 0 ? 'tick unlabelled' : 'tick', transform: `translate(${round(d.x)},0)` });
        const [line, text] = this.children;
        setAttr(line, 'y2', top + 4 + (d.row < 0 ? 0 : d.row * type.row + 2));
        setAttrs(text, { y: top + type.row + Math.max(0, d.row) * type.row, x: labelX(d, type) });
        setText(text, d.row < 0 ? '' : hex(d.addr));
      });
  }

  /** A bracket over the bar marking VMALLOC_START..VMALLOC_END, where vmalloc() allocates. */
  private renderWindow(placed: PlacedSegment[]): void {
    const type = this.type;
    const last = placed[placed.length - 1];
    const total = last ? last.x + last.width : 0;
    const x0 = xOf(placed, VMALLOC_START);
    const x1 = xOf(placed, VMALLOC_END);
    const data = x0 !== null && x1 !== null ? [{ x0, x1 }] : [];
    this.svg
      .select<SVGGElement>('g.window')
      .selectAll<SVGGElement, { x0: number; x1: number }>('g.vmalloc-window')
      .data(data)
      .join((enter) => {
        const w = enter.append('g').attr('class', 'vmalloc-window');
        w.append('path');
        w.append('text').attr('y', BAR_Y - 14).attr('text-anchor', 'middle');
        w.append('title').text(`vmalloc window ${range(VMALLOC_START, VMALLOC_END + 1n)}`);
        return w;
      })
      .each(function (d) {
        const [path, text] = this.children;
        setAttr(path, 'd', `M${d.x0},${BAR_Y - 2} v-8 H${d.x1} v8`);
        const words = d.x1 - d.x0 > 300 ? 'vmalloc window: VMALLOC_START … VMALLOC_END' : 'vmalloc window';
        setText(text, words);
        // Centred over the window, but kept inside the bar (bold 12 px: about 7.6 px a character,
        // a few px to spare at either end; no layout read).
        const half = (words.length * type.win) / 2 + 4;
        setAttr(text, 'x', Math.max(half, Math.min(total - half, (d.x0 + d.x1) / 2)));
      });
  }

  private label(d: PlacedSegment): string {
    if (d.state === 'gap' && this.state && !this.state.initialized) return 'not initialised';
    // A `profile maple-tree` trace is one maple tree: its ranges are stored entries or NULL.
    if (this.state?.profile === 'maple-tree' && (d.state === 'busy' || d.state === 'gap')) return d.state === 'busy' ? 'stored' : 'NULL';
    if (d.state === 'cluster') return 'areas';
    return STATE_LABEL[d.state];
  }

  /** Outline the area with this id (null clears). */
  highlight(id: number | null): void {
    this.highlighted = id;
    const sel = this.selected;
    const span = this.span;
    // Only the areas whose outline changes are written.
    this.svg.selectAll<SVGGElement, PlacedSegment>('g.area').each(function (d) {
      setClass(this, 'hl', (id !== null && d.id === id) || (span !== null && d.start < span[1] && d.end > span[0]));
      setClass(this, 'sel', sel !== null && d.id === sel);
    });
  }

  /**
   * Outline every area (and gap, and cluster) that meets `[lo, hi)`: a maple slot's range
   * hovered in the tree, an entry's areas or a NULL hole's free span; null clears.
   */
  highlightSpan(span: [bigint, bigint] | null): void {
    if (span === this.span || (span && this.span && span[0] === this.span[0] && span[1] === this.span[1])) return;
    this.span = span;
    this.highlight(this.highlighted);
  }

  /** Pin a selection (null clears). */
  select(id: number | null): void {
    this.selected = id;
    this.highlight(this.highlighted);
  }
}

type AreaEl = SVGGElement & { __counts?: string; __cls?: string; __start?: string; __end?: string; __tr?: string; __w?: number; __fill?: string };

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
