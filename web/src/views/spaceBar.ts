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

const BAR_Y = 30;
const BAR_H = 58;
const TICK_ROW_H = 16;
const TICK_ROWS = 2;
const LABEL_W = 124; // px of an 18-digit hex label at 11px monospace
const MARGIN_X = 2;
/** Height of a bump chunk's band along the bottom of the bar. */
const CHUNK_H = 14;
/** The row under the ticks for the labels of new bounds and requests. */
const OVERLAY_ROW = 16;

/** Where a tick's label starts, relative to the tick: inside the bar, centred when there is room. */
function labelX(t: Tick): number {
  const width = 7 * hex(t.addr).length; // ~7px a character at 11px monospace
  const centred = t.anchor === 'start' ? 0 : t.anchor === 'end' ? -width : -width / 2;
  const box = t.labelX - t.x; // the room placeTicks kept, relative to the tick
  return Math.max(box, Math.min(box + LABEL_W - width, centred));
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
  /** Called with an area id when the pointer enters an area, null when it leaves. */
  onHover?: (id: number | null) => void;
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
  private selected: number | null = null;
  private placed: PlacedSegment[] = [];
  private drawnFor: { state: State; width: number; key?: string; colorBy: string } | null = null;
  private opts: BarRenderOptions = {};
  /** The root's width, from the resize observer (rendering never reads layout). */
  private rootWidth = 0;

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
    // Micro-steps of one operation share its state: only the overlays change then.
    const colorBy = options.colorBy ?? 'state';
    const same =
      this.drawnFor &&
      this.drawnFor.width === width &&
      this.drawnFor.colorBy === colorBy &&
      (this.drawnFor.state === state || (options.key !== undefined && options.key === this.drawnFor.key));
    if (!same) {
      const placed = placeSegments(clusterSegments(segments(state), MAX_AREAS), width, 6);
      this.placed = placed;
      this.drawnFor = { state, width, key: options.key, colorBy };
      const total = placed.length ? placed[placed.length - 1].x + placed[placed.length - 1].width : width;
      const height = BAR_Y + BAR_H + 8 + TICK_ROWS * TICK_ROW_H + 4 + 2 * OVERLAY_ROW;
      this.svg
        .attr('width', total + 2 * MARGIN_X)
        .attr('height', height)
        .attr('viewBox', `${-MARGIN_X} 0 ${total + 2 * MARGIN_X} ${height}`);
      this.renderWindow(placed);
      this.renderAreas(placed, ms, colorBy);
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
      .join('rect')
      .attr('class', 'lens-box')
      .attr('x', (d) => round(d.x))
      .attr('y', BAR_Y - 4)
      .attr('width', (d) => round(d.w))
      .attr('height', BAR_H + 8)
      .attr('rx', 3);
  }

  /** Outlines of the ranges the step is about (the block being clipped or merged, and its new bounds). */
  private renderOverlay(ranges: FocusRange[]): void {
    const placed = this.placed;
    const data = ranges
      .map((r, i) => {
        const x0 = xOf(placed, r.start);
        const x1 = xOf(placed, r.end);
        return x0 === null || x1 === null ? null : { ...r, i, x0, x1 };
      })
      .filter((r): r is NonNullable<typeof r> => r !== null);
    const g = this.svg
      .select<SVGGElement>('g.overlay')
      .selectAll<SVGGElement, (typeof data)[number]>('g.range')
      .data(data, (d) => `${d.i}`)
      .join((enter) => {
        const r = enter.append('g').attr('class', 'range');
        r.append('rect');
        r.append('text');
        return r;
      })
      .attr('class', (d) => `range tone-${d.tone}`)
      .attr('data-tone', (d) => d.tone)
      .attr('data-va-start', (d) => hex(d.start))
      .attr('data-va-end', (d) => hex(d.end));
    const inset = (d: (typeof data)[number]) => (d.tone === 'new' || d.tone === 'request' || d.tone === 'busy' ? 6 : 0);
    g.select('rect')
      .attr('x', (d) => round(Math.min(d.x0, d.x1 - 3)))
      .attr('y', (d) => BAR_Y - 2 + inset(d))
      .attr('width', (d) => round(Math.max(3, d.x1 - d.x0)))
      .attr('height', (d) => BAR_H + 4 - 2 * inset(d))
      .attr('rx', 3);
    const last = placed[placed.length - 1];
    const total = last ? last.x + last.width : 0;
    g.select('text')
      .text((d) => `${d.label} ${range(d.start, d.end)}`)
      .attr('x', (d) => {
        const half = (`${d.label} ${range(d.start, d.end)}`.length * 7) / 2 + 4;
        return round(Math.max(half, Math.min(total - half, (d.x0 + d.x1) / 2)));
      })
      .attr('y', (d) => BAR_Y + BAR_H + 8 + TICK_ROWS * TICK_ROW_H + (d.tone === 'old' || d.tone === 'focus' ? 1 : 2) * OVERLAY_ROW);
  }

  private renderAreas(placed: PlacedSegment[], ms: number, colorBy: 'state' | 'node' = 'state'): void {
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
        g.on('mouseenter', (_e, d) => this.handlers.onHover?.(d.id))
          .on('mouseleave', () => this.handlers.onHover?.(null))
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
      if (e.__cls !== cls || e.__start !== start || e.__end !== end) {
        const sel = select(e);
        e.__cls = cls;
        e.__start = start;
        e.__end = end;
        // Keep hover/selection classes.
        e.setAttribute('class', `${cls}${e.classList.contains('hl') ? ' hl' : ''}${e.classList.contains('sel') ? ' sel' : ''}`);
        if (d.state === 'gap' || d.state === 'cluster') e.removeAttribute('data-state');
        else e.setAttribute('data-state', d.state);
        if (d.id === null) e.removeAttribute('data-id');
        else e.setAttribute('data-id', String(d.id));
        e.setAttribute('data-va-start', start);
        e.setAttribute('data-va-end', end);
        sel.select('rect.fill').attr('height', BAR_H);
        sel
          .select('rect.pattern')
          .attr('height', BAR_H)
          .attr('fill', d.state === 'free' ? 'none' : `url(#${prefix}-${d.state})`);
        if (d.state === 'cluster') {
          const n = Object.values(d.counts ?? {}).reduce((a, b) => a + b, 0);
          e.setAttribute('data-count', String(n));
        } else e.removeAttribute('data-count');
        sel
          .select('title')
          .text(
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
        else select(e).interrupt('layout').attr('transform', tr);
      }
      const w = round(Math.max(1, d.width - 1));
      if (e.__w !== w) {
        e.__w = w;
        const rects = select(e).selectAll<SVGRectElement, unknown>('rect');
        if (animate) rects.transition('layout').duration(ms).attr('width', w);
        else rects.interrupt('layout').attr('width', w);
        const name = d.state === 'cluster' ? `${Object.values(d.counts ?? {}).reduce((a, b) => a + b, 0)} areas` : label(d);
        const kind = d.width >= 7.5 * name.length + 12 ? name : d.width >= 14 ? name[0].toUpperCase() : '';
        select(e).select('text.kind').attr('x', round(d.width / 2)).attr('y', BAR_H / 2 - 4).text(kind);
        select(e)
          .select('text.size')
          .attr('x', round(d.width / 2))
          .attr('y', BAR_H / 2 + 13)
          .text(d.width >= 34 && d.state !== 'cluster' ? size(d.end - d.start) : '');
      }
    });
  }

  /**
   * maple-rfc's bump chunks (spec §11.5) as bands along the bottom of the bar: the chunk's range
   * `[base, limit)`, the part handed out so far `[base, bump)` filled, the bump pointer as a line
   * across the bar, and the owner CPU and used pages in the band and its tooltip.
   */
  private renderChunks(placed: PlacedSegment[], chunks: BumpChunk[]): void {
    const data = chunks
      .map((c) => {
        const x0 = xOf(placed, c.base);
        const x1 = xOf(placed, c.limit);
        const xb = xOf(placed, c.bump);
        return x0 === null || x1 === null ? null : { c, x0, x1, xb: xb ?? x0 };
      })
      .filter((d): d is NonNullable<typeof d> => d !== null);
    const y = BAR_Y + BAR_H - CHUNK_H;
    const g = this.svg
      .select<SVGGElement>('g.chunks')
      .selectAll<SVGGElement, (typeof data)[number]>('g.chunk')
      .data(data, (d) => hex(d.c.base))
      .join((enter) => {
        const e = enter.append('g');
        e.append('rect').attr('class', 'chunk-band');
        e.append('rect').attr('class', 'chunk-used');
        e.append('line').attr('class', 'chunk-bump');
        e.append('path').attr('class', 'chunk-bump-mark');
        e.append('text').attr('class', 'chunk-label');
        e.append('title');
        return e;
      })
      .attr('class', (d) => `chunk chunk-${d.c.current ? 'current' : 'retired'}`)
      .attr('data-chunk-base', (d) => hex(d.c.base))
      .attr('data-chunk-limit', (d) => hex(d.c.limit))
      .attr('data-bump', (d) => hex(d.c.bump))
      .attr('data-pages', (d) => String(d.c.pages))
      .attr('data-cpu', (d) => String(d.c.ownerCpu))
      .attr('data-chunk-state', (d) => (d.c.current ? 'current' : 'retired'));
    g.select('rect.chunk-band')
      .attr('x', (d) => round(d.x0))
      .attr('y', y)
      .attr('width', (d) => round(Math.max(2, d.x1 - d.x0)))
      .attr('height', CHUNK_H)
      .attr('rx', 2);
    g.select('rect.chunk-used')
      .attr('x', (d) => round(d.x0))
      .attr('y', y + 3)
      .attr('width', (d) => round(Math.max(0, d.xb - d.x0)))
      .attr('height', CHUNK_H - 6);
    g.select('line.chunk-bump')
      .attr('x1', (d) => round(d.xb))
      .attr('x2', (d) => round(d.xb))
      .attr('y1', BAR_Y - 3)
      .attr('y2', BAR_Y + BAR_H);
    g.select('path.chunk-bump-mark').attr('d', (d) => `M${round(d.xb)},${BAR_Y - 3} l-4,-6 h8 z`);
    g.select('text.chunk-label')
      .attr('x', (d) => round(d.xb + 4))
      .attr('y', y + CHUNK_H - 3)
      .text((d) => {
        const full = `CPU ${d.c.ownerCpu} · ${d.c.pages} p${d.c.current ? '' : ' · retired'}`;
        const medium = `CPU ${d.c.ownerCpu}${d.c.current ? '' : ' retired'}`;
        const room = d.x1 - d.xb - 6;
        return [full, medium, `CPU ${d.c.ownerCpu}`].find((t) => room >= 6.5 * t.length) ?? '';
      });
    g.select('title').text(
      (d) =>
        `bump chunk ${range(d.c.base, d.c.limit)} · ${size(d.c.limit - d.c.base)} · owner CPU ${d.c.ownerCpu} · ` +
        `${d.c.current ? 'its current chunk' : 'retired (no longer bumped)'} · bump pointer ${hex(d.c.bump)} · ` +
        `${d.c.pages} page${d.c.pages === 1 ? '' : 's'} in use, ${size(d.c.bump - d.c.base)} handed out`,
    );
  }

  private renderTicks(placed: PlacedSegment[]): void {
    const ticks = placeTicks(placed, LABEL_W, TICK_ROWS);
    const top = BAR_Y + BAR_H;
    const g = this.svg
      .select<SVGGElement>('g.ticks')
      .selectAll<SVGGElement, (typeof ticks)[number]>('g.tick')
      .data(ticks, (d) => d.addr.toString(16))
      .join((enter) => {
        const t = enter.append('g').attr('class', 'tick');
        t.append('line');
        t.append('text');
        return t;
      })
      .attr('class', (d) => (d.row < 0 ? 'tick unlabelled' : 'tick'))
      .attr('transform', (d) => `translate(${round(d.x)},0)`);
    g.select('line')
      .attr('y1', top)
      .attr('y2', (d) => top + 4 + (d.row < 0 ? 0 : d.row * TICK_ROW_H + 2));
    g.select('text')
      .attr('y', (d) => top + 16 + Math.max(0, d.row) * TICK_ROW_H)
      .attr('x', (d) => labelX(d))
      .attr('text-anchor', 'start')
      .text((d) => (d.row < 0 ? '' : hex(d.addr)));
  }

  /** A bracket over the bar marking VMALLOC_START..VMALLOC_END, where vmalloc() allocates. */
  private renderWindow(placed: PlacedSegment[]): void {
    const last = placed[placed.length - 1];
    const total = last ? last.x + last.width : 0;
    const x0 = xOf(placed, VMALLOC_START);
    const x1 = xOf(placed, VMALLOC_END);
    const data = x0 !== null && x1 !== null ? [{ x0, x1 }] : [];
    const g = this.svg
      .select<SVGGElement>('g.window')
      .selectAll<SVGGElement, { x0: number; x1: number }>('g.vmalloc-window')
      .data(data)
      .join((enter) => {
        const w = enter.append('g').attr('class', 'vmalloc-window');
        w.append('path');
        w.append('text');
        w.append('title').text(`vmalloc window ${range(VMALLOC_START, VMALLOC_END + 1n)}`);
        return w;
      });
    g.select('path').attr('d', (d) => `M${d.x0},${BAR_Y - 2} v-8 H${d.x1} v8`);
    g.select<SVGTextElement>('text')
      .text((d) => (d.x1 - d.x0 > 300 ? 'vmalloc window: VMALLOC_START … VMALLOC_END' : 'vmalloc window'))
      .attr('y', BAR_Y - 14)
      .attr('text-anchor', 'middle')
      .attr('x', function (d) {
        // Centred over the window, but kept inside the bar (7 px a character: no layout read).
        const half = ((this.textContent ?? '').length * 7) / 2;
        return Math.max(half, Math.min(total - half, (d.x0 + d.x1) / 2));
      });
  }

  private label(d: PlacedSegment): string {
    if (d.state === 'gap' && this.state && !this.state.initialized) return 'not initialised';
    if (d.state === 'cluster') return 'areas';
    return STATE_LABEL[d.state];
  }

  /** Outline the area with this id (null clears). */
  highlight(id: number | null): void {
    this.highlighted = id;
    const sel = this.selected;
    this.svg
      .selectAll<SVGGElement, PlacedSegment>('g.area')
      .classed('hl', (d) => id !== null && d.id === id)
      .classed('sel', (d) => sel !== null && d.id === sel);
  }

  /** Pin a selection (null clears). */
  select(id: number | null): void {
    this.selected = id;
    this.highlight(this.highlighted);
  }
}

type AreaEl = SVGGElement & { __cls?: string; __start?: string; __end?: string; __tr?: string; __w?: number; __fill?: string };

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
