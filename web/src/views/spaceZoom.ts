// The zoomable address-space view: a linear window onto the 64-bit space (bigint, so a few
// pages near the top stay exact), zoomed and panned with d3-zoom from the whole space down to
// single pages, with a hex axis (offsets in K/M/G/T), presets for the vmalloc window and the
// whole space, and the ranges of the current step outlined. The overview bar above shows
// where this window is (its minimap).
import { select, zoom, zoomIdentity, type D3ZoomEvent, type Selection, type ZoomBehavior } from 'd3';
import type { State } from '../bridge';
import { VMALLOC_END, VMALLOC_START } from '../constants';
import { hex, range, size } from '../format';
import { segments, type Segment } from '../layout/space';
import {
  around,
  clampWindow,
  hexAxis,
  SPACE_END,
  windowFromTransform,
  xIn,
  zoomWindow,
  type Window,
} from '../layout/zoom';
import type { FocusRange } from '../player/focus';
import { el, nextId } from './common';
import { drawRanges } from './rangeOverlay';
import { drawnParts, sameParts, setAttr, setAttrs, setClass, setData, setText } from './dom';

const TOP = 24;
const BAR_H = 42;
/** The row under the bar for the labels of new bounds and requests. */
const LABEL_Y = TOP + BAR_H + 15;
const AXIS_Y = LABEL_Y + 8;
const HEIGHT = AXIS_Y + 22;

export interface ZoomSegment extends Segment {
  x0: number;
  x1: number;
}

interface Cluster {
  key: string;
  x0: number;
  x1: number;
  count: number;
  start: bigint;
  end: bigint;
}

export interface SpaceZoomOptions {
  /** An area hovered (its id, and the segment: its range and state), null when it leaves. */
  onHover?: (id: number | null, seg?: Segment | null) => void;
  onAreaClick?: (area: Segment, event: MouseEvent) => void;
  /** The window changed (the overview draws it). */
  onWindow?: (win: Window) => void;
}

export class SpaceZoom {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly zoomer: ZoomBehavior<SVGSVGElement, unknown>;
  private readonly readout: HTMLElement;
  private readonly prefix = nextId('sz');
  private win: Window = [VMALLOC_START, VMALLOC_END + 1n];
  /** The window at the start of the current zoom gesture (d3-zoom's identity). */
  private base: Window = this.win;
  private state: State | null = null;
  private ranges: FocusRange[] = [];
  private highlighted: number | null = null;
  /** A range `[lo, hi)` whose segments are outlined too (a maple slot hovered), or null. */
  private span: [bigint, bigint] | null = null;
  private resetting = false;
  private width = 800;
  /** The root's width, from the resize observer (drawing never reads layout). */
  private rootWidth = 0;
  private segs: { parts: unknown[]; list: Segment[] } | null = null;
  private drawn: { parts: unknown[] | null; key: string } | null = null;
  private stateKey: string | undefined;
  /** Zoom to the step's ranges when they are out of view or too small to see. */
  follow = true;

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: SpaceZoomOptions = {},
  ) {
    root.classList.add('space-zoom');
    const bar = root.appendChild(el('div', 'zoom-toolbar'));
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Address-space zoom');
    const button = (preset: string, text: string, title: string) => {
      const b = bar.appendChild(el('button', 'btn btn-small', text));
      b.type = 'button';
      b.dataset.preset = preset;
      b.title = title;
      return b;
    };
    button('vmalloc', 'vmalloc window', 'Show VMALLOC_START … VMALLOC_END');
    button('whole', 'whole space', 'Show the whole 64-bit space');
    button('used', 'busy areas', 'Show the busy areas');
    button('focus', 'this step', 'Zoom to the block the current step is about');
    button('out', '−', 'Zoom out');
    button('in', '+', 'Zoom in');
    const follow = bar.appendChild(el('label', 'follow'));
    const box = follow.appendChild(el('input'));
    box.type = 'checkbox';
    box.checked = this.follow;
    follow.append(' follow the step');
    box.addEventListener('change', () => {
      this.follow = box.checked;
    });
    this.readout = bar.appendChild(el('span', 'zoom-readout'));
    this.readout.dataset.testid = 'zoom-readout';
    bar.addEventListener('click', (e) => {
      const p = (e.target as HTMLElement).closest<HTMLButtonElement>('button')?.dataset.preset;
      if (p) this.preset(p);
    });

    this.svg = select(root)
      .append('svg')
      .attr('class', 'space-zoom-svg')
      .attr('height', HEIGHT)
      .attr('role', 'img')
      .attr('aria-label', 'Address space, linear zoom: wheel or drag to zoom and pan');
    const defs = this.svg.append('defs');
    defs
      .append('pattern')
      .attr('id', `${this.prefix}-busy`)
      .attr('patternUnits', 'userSpaceOnUse')
      .attr('width', 8)
      .attr('height', 8)
      .attr('patternTransform', 'rotate(45)')
      .append('rect')
      .attr('width', 3)
      .attr('height', 8)
      .attr('class', 'pat-busy');
    defs
      .append('pattern')
      .attr('id', `${this.prefix}-lazy`)
      .attr('patternUnits', 'userSpaceOnUse')
      .attr('width', 8)
      .attr('height', 8)
      .append('circle')
      .attr('cx', 4)
      .attr('cy', 4)
      .attr('r', 1.6)
      .attr('class', 'pat-lazy');
    this.svg.append('rect').attr('class', 'backdrop').attr('y', TOP).attr('height', BAR_H);
    this.svg.append('g').attr('class', 'segs');
    this.svg.append('g').attr('class', 'overlay');
    this.svg.append('g').attr('class', 'axis');

    this.zoomer = zoom<SVGSVGElement, unknown>()
      .scaleExtent([1e-6, 1e6])
      .on('start', () => {
        if (!this.resetting) this.base = this.win;
      })
      .on('zoom', (e: D3ZoomEvent<SVGSVGElement, unknown>) => {
        if (this.resetting) return;
        this.win = windowFromTransform(this.base, e.transform.k, e.transform.x, this.width);
        this.draw();
      })
      .on('end', () => {
        if (this.resetting) return;
        // Back to the identity, so the next gesture starts from exact bigint bounds.
        this.resetting = true;
        this.zoomer.transform(this.svg, zoomIdentity);
        this.resetting = false;
        this.base = this.win;
      });
    this.svg.call(this.zoomer).on('dblclick.zoom', null);
    new ResizeObserver((entries) => {
      const w = entries[entries.length - 1].contentRect.width;
      if (w === this.rootWidth) return;
      this.rootWidth = w;
      this.draw();
    }).observe(root);
  }

  get window(): Window {
    return this.win;
  }

  /** Forget the state: the next render opens on the busy areas of its state. */
  reset(): void {
    this.state = null;
    this.stateKey = undefined;
  }

  /** Show a window (clamped). */
  setWindow(win: Window): void {
    this.win = clampWindow(win);
    this.base = this.win;
    this.draw();
  }

  preset(name: string): void {
    if (name === 'vmalloc') this.setWindow([VMALLOC_START, VMALLOC_END + 1n]);
    else if (name === 'whole') this.setWindow([0n, SPACE_END]);
    else if (name === 'used') this.setWindow(this.usedWindow());
    else if (name === 'focus') {
      const w = this.focusWindow(true);
      if (w) this.setWindow(w);
    } else if (name === 'in') this.setWindow(zoomWindow(this.win, 2));
    else if (name === 'out') this.setWindow(zoomWindow(this.win, 0.5));
  }

  /** The busy and lazy areas' extent, or the vmalloc window when there are none. */
  usedWindow(): Window {
    const s = this.state;
    const used = s ? [...s.busy, ...s.lazy] : [];
    if (!used.length) return clampWindow([VMALLOC_START, VMALLOC_END + 1n]);
    let lo = used[0].vaStart;
    let hi = used[0].vaEnd;
    for (const a of used) {
      if (a.vaStart < lo) lo = a.vaStart;
      if (a.vaEnd > hi) hi = a.vaEnd;
    }
    return around(lo, hi, 0.8);
  }

  /** A window around the step's small ranges (requests, new bounds), or null. */
  private focusWindow(force: boolean): Window | null {
    // Follow the small things a step makes (a request, new bounds, an area); the blocks a
    // search visits can be the whole space.
    const tones = new Set(['request', 'new', 'busy', 'freed']);
    let rs = this.ranges.filter((r) => tones.has(r.tone));
    if (!rs.length && force) rs = this.ranges;
    if (!rs.length) return null;
    let lo = rs[0].start;
    let hi = rs[0].end;
    for (const r of rs) {
      if (r.start < lo) lo = r.start;
      if (r.end > hi) hi = r.end;
    }
    if (!force) {
      const x0 = xIn(this.win, this.width, lo);
      const x1 = xIn(this.win, this.width, hi);
      const visible = x0 >= 0 && x1 <= this.width && x1 - x0 >= 6;
      if (visible) return null;
    }
    return around(lo, hi, 0.3);
  }

  /** Draw a state; renders with the same `key` draw the same state (even if not the same object). */
  render(state: State, ranges: FocusRange[] = [], key?: string): void {
    const first = this.state === null;
    if (!(key !== undefined && key === this.stateKey && this.state) && !(this.state && sameParts(drawnParts(this.state), drawnParts(state)))) this.state = state;
    this.stateKey = key;
    this.ranges = ranges;
    if (first) this.win = this.usedWindow();
    if (this.follow && ranges.length) {
      const w = this.focusWindow(false);
      if (w) this.win = w;
    }
    this.base = this.win;
    this.draw();
  }

  private draw(): void {
    const state = this.state;
    if (!this.rootWidth) this.rootWidth = this.root.clientWidth;
    this.width = Math.max(200, this.rootWidth);
    const W = this.width;
    const svg = this.svg.node() as SVGSVGElement;
    setAttrs(svg, { width: W, viewBox: `0 0 ${W} ${HEIGHT}` });
    setAttr(svg.querySelector('rect.backdrop') as SVGRectElement, 'width', W);
    const [lo, hi] = this.win;
    setText(this.readout, `${range(lo, hi)} · ${size(hi - lo)} wide`);
    setData(this.root, 'windowStart', hex(lo));
    setData(this.root, 'windowEnd', hex(hi));
    this.handlers.onWindow?.(this.win);

    // Micro-steps of one operation share its state (the parts drawn here) and usually the
    // window: only the overlay changes. Otherwise each segment element is written only where it
    // changed (a join keyed by area id).
    const key = `${lo}|${hi}|${W}`;
    const parts = state ? drawnParts(state) : null;
    if (this.drawn && this.drawn.key === key && (this.drawn.parts === parts || (parts && sameParts(this.drawn.parts, parts)))) {
      this.drawOverlay();
      return;
    }
    this.drawn = { parts, key };
    const segs: ZoomSegment[] = [];
    const clusters: Cluster[] = [];
    if (state && parts) {
      let run: Cluster | null = null;
      if (!this.segs || !sameParts(this.segs.parts, parts)) this.segs = { parts, list: segments(state) };
      for (const s of this.segs.list) {
        if (s.end <= lo || s.start >= hi) continue;
        const x0 = Math.max(-2, xIn(this.win, W, s.start));
        const x1 = Math.min(W + 2, xIn(this.win, W, s.end));
        if (x1 - x0 < 1.5) {
          // Too thin to draw one by one: gather neighbours into one cluster.
          if (run && x0 - run.x1 < 1) {
            run.x1 = Math.max(run.x1, x1);
            run.count++;
            run.end = s.end;
          } else {
            run = { key: `c${s.start.toString(16)}`, x0, x1, count: 1, start: s.start, end: s.end };
            clusters.push(run);
          }
          continue;
        }
        run = null;
        segs.push({ ...s, x0, x1 });
      }
    }
    const prefix = this.prefix;
    const lit = (d: Segment) => this.lit(d);
    this.svg
      .select<SVGGElement>('g.segs')
      .selectAll<SVGGElement, ZoomSegment>('g.seg')
      .data(segs, (d) => d.key)
      .join((enter) => {
        const e = enter.append('g').attr('class', 'seg');
        e.append('rect').attr('class', 'fill').attr('y', TOP).attr('height', BAR_H);
        e.append('rect').attr('class', 'pattern').attr('y', TOP).attr('height', BAR_H);
        e.append('text').attr('class', 'label').attr('y', TOP + BAR_H / 2 + 4);
        e.append('title');
        e.on('mouseenter', (_e, d) => this.handlers.onHover?.(d.id, d))
          .on('mouseleave', () => this.handlers.onHover?.(null, null))
          .on('click', (ev: MouseEvent, d) => this.handlers.onAreaClick?.(d, ev));
        return e;
      })
      .each(function (d) {
        setAttrs(this, {
          'data-state': d.state === 'gap' ? null : d.state,
          'data-id': d.id,
          'data-va-start': hex(d.start),
          'data-va-end': hex(d.end),
        });
        const cls = `seg seg-${d.state}`;
        setAttr(this, 'class', lit(d) ? `${cls} hl` : cls);
        const [fill, pattern, label, title] = this.children;
        const x = r2(d.x0);
        const w = r2(Math.max(1, d.x1 - d.x0 - 1));
        setAttrs(fill, { x, width: w });
        setAttrs(pattern, { x, width: w, fill: d.state === 'busy' || d.state === 'lazy' ? `url(#${prefix}-${d.state})` : 'none' });
        setAttr(label, 'x', r2((Math.max(0, d.x0) + Math.min(W, d.x1)) / 2));
        const px = Math.min(W, d.x1) - Math.max(0, d.x0);
        const full = `${d.state === 'gap' ? 'unmanaged' : d.state} ${size(d.end - d.start)}`;
        setText(label, px > full.length * 7 + 10 ? full : px > 24 ? d.state[0].toUpperCase() : '');
        setText(title, `${d.state} ${range(d.start, d.end)} · ${size(d.end - d.start)}${d.id !== null ? ` · area #${d.id}` : ''}`);
      });

    this.svg
      .select<SVGGElement>('g.segs')
      .selectAll<SVGRectElement, Cluster>('rect.cluster')
      .data(clusters, (c) => c.key)
      .join((enter) => {
        const r = enter.append('rect').attr('class', 'cluster').attr('y', TOP).attr('height', BAR_H);
        r.append('title');
        return r;
      })
      .each(function (c) {
        setAttrs(this, { x: r2(c.x0), width: r2(Math.max(1.5, c.x1 - c.x0)), 'data-count': c.count });
        setText(this.firstElementChild as Element, `${c.count} areas in ${range(c.start, c.end)}: zoom in to see them`);
      });

    this.drawOverlay();
    this.drawAxis();
  }

  private drawOverlay(): void {
    const W = this.width;
    const data = this.ranges
      .map((r, i) => ({ ...r, i, x0: xIn(this.win, W, r.start), x1: xIn(this.win, W, r.end) }))
      .filter((r) => r.x1 >= -2 && r.x0 <= W + 2);
    drawRanges(this.svg, data, (d, words, inset) => {
      const half = (words.length * 7) / 2 + 4;
      return {
        rect: {
          x: r2(Math.max(-3, Math.min(d.x0, d.x1 - 3))),
          y: TOP - 2 + inset,
          width: r2(Math.max(3, Math.min(W + 3, d.x1) - Math.max(-3, d.x0))),
          height: BAR_H + 4 - 2 * inset,
        },
        text: {
          x: r2(Math.max(half, Math.min(W - half, (Math.max(0, d.x0) + Math.min(W, d.x1)) / 2))),
          y: d.tone === 'old' || d.tone === 'focus' ? TOP - 7 : LABEL_Y,
        },
      };
    });
  }

  private drawAxis(): void {
    const axis = hexAxis(this.win, this.width);
    // Keep labels apart: drop any that would overlap the previous one kept.
    let right = -Infinity;
    for (const [i, t] of axis.ticks.entries()) {
      if (!t.label) continue;
      const w = t.label.length * 6.8;
      const anchor = i === 0 && t.x < 80 ? 'start' : t.x > this.width - 80 ? 'end' : 'middle';
      const left = anchor === 'start' ? t.x : anchor === 'end' ? t.x - w : t.x - w / 2;
      if (left < right + 10) t.label = '';
      else right = left + w;
    }
    const W = this.width;
    this.svg
      .select<SVGGElement>('g.axis')
      .selectAll<SVGGElement, (typeof axis.ticks)[number]>('g.tick')
      .data(axis.ticks, (t) => t.addr.toString(16))
      .join((enter) => {
        const t = enter.append('g').attr('class', 'tick');
        t.append('line').attr('y1', AXIS_Y - 4).attr('y2', AXIS_Y + 2);
        t.append('text').attr('y', AXIS_Y + 15);
        return t;
      })
      .each(function (t, i) {
        setAttr(this, 'transform', `translate(${r2(t.x)},0)`);
        const text = this.children[1];
        setAttr(text, 'text-anchor', i === 0 && t.x < 80 ? 'start' : t.x > W - 80 ? 'end' : 'middle');
        setText(text, t.label);
      });
    let caption = this.svg.select<SVGTextElement>('text.axis-step');
    if (caption.empty()) caption = this.svg.append('text').attr('class', 'axis-step').attr('y', 12).attr('text-anchor', 'end');
    const c = caption.node() as SVGTextElement;
    setAttr(c, 'x', W - 4);
    setText(c, axis.step ? `ticks every ${axis.step}` : '');
  }

  highlight(id: number | null): void {
    if (id === this.highlighted) return;
    this.highlighted = id;
    this.relight();
  }

  /** Outline every segment that meets `[lo, hi)` (a maple slot hovered); null clears. */
  highlightSpan(span: [bigint, bigint] | null): void {
    if (span === this.span || (span && this.span && span[0] === this.span[0] && span[1] === this.span[1])) return;
    this.span = span;
    this.relight();
  }

  private lit(d: Segment): boolean {
    const id = this.highlighted;
    const span = this.span;
    return (id !== null && d.id === id) || (span !== null && d.start < span[1] && d.end > span[0]);
  }

  private relight(): void {
    const lit = (d: Segment) => this.lit(d);
    this.svg.selectAll<SVGGElement, ZoomSegment>('g.seg').each(function (d) {
      setClass(this, 'hl', lit(d));
    });
  }
}

function r2(v: number): number {
  return Math.round(v * 100) / 100;
}
