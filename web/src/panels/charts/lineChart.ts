// A small D3 line chart shared by the workbench charts: linear or log axes, one line per series
// with a symbol per series (so series differ by shape as well as colour), every point carrying
// the data attributes its series gives it (stable hooks for tests and tools), an optional
// vertical marker, and a legend.
import {
  axisBottom,
  axisLeft,
  line,
  scaleLinear,
  scaleLog,
  select,
  symbol,
  symbolCircle,
  symbolCross,
  symbolDiamond,
  symbolSquare,
  symbolStar,
  symbolTriangle,
  symbolWye,
  type ScaleContinuousNumeric,
} from 'd3';
import type { Era } from '../../eras';

export interface Point {
  x: number;
  y: number;
  /** data-* attributes of the point's element (keys without the `data-` prefix). */
  data?: Record<string, string | number>;
  title?: string;
}

export interface Series {
  key: string;
  label: string;
  color: string;
  /** Index into the symbol list (circle, square, triangle, diamond, wye). */
  symbol: number;
  dashed?: boolean;
  points: Point[];
  /** Draw a symbol at each point (else only the line; the points stay as invisible hooks). */
  marks?: boolean;
  /** Draw beneath the other series (the legend keeps the given order). */
  beneath?: boolean;
}

export interface Axis {
  label: string;
  log?: boolean;
  base?: number;
  format?: (v: number) => string;
  /** Explicit tick values. */
  ticks?: number[];
  domain?: [number, number];
}

export interface ChartSpec {
  title: string;
  subtitle?: string;
  x: Axis;
  y: Axis;
  series: Series[];
  /** A vertical marker at this x (the current step). */
  marker?: number | null;
  width?: number;
  height?: number;
}

const SYMBOLS = [symbolCircle, symbolSquare, symbolTriangle, symbolDiamond, symbolWye, symbolStar, symbolCross];
const M = { top: 42, right: 18, bottom: 44, left: 62 };
const LEGEND_ROW = 18;

/** Powers of the base within [lo, hi], with 2× and 5× steps when there are few decades. */
export function logTicks(lo: number, hi: number, base = 10): number[] {
  const out: number[] = [];
  const e0 = Math.floor(Math.log(lo) / Math.log(base) + 1e-9);
  const e1 = Math.ceil(Math.log(hi) / Math.log(base) - 1e-9);
  const steps = base === 10 && e1 - e0 <= 3 ? [1, 2, 5] : [1];
  for (let e = e0; e <= e1; e++) {
    for (const m of steps) {
      const v = m * base ** e;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(+v.toPrecision(12));
    }
  }
  return out;
}

interface LegendItem {
  s: Series;
  x: number;
  row: number;
}

function legendLayout(series: Series[], width: number): { items: LegendItem[]; rows: number } {
  const items: LegendItem[] = [];
  let x = 0;
  let row = 0;
  for (const s of series) {
    const w = 34 + 6.8 * s.label.length + 14;
    if (x > 0 && x + w > width) {
      x = 0;
      row++;
    }
    items.push({ s, x, row });
    x += w;
  }
  return { items, rows: series.length ? row + 1 : 0 };
}

function scale(a: Axis, values: number[], range: [number, number]): ScaleContinuousNumeric<number, number> {
  const finite = values.filter((v) => Number.isFinite(v) && (!a.log || v > 0));
  let [lo, hi] = a.domain ?? [Math.min(...finite), Math.max(...finite)];
  if (!finite.length && !a.domain) [lo, hi] = a.log ? [1, 10] : [0, 1];
  if (a.log) {
    lo = Math.max(lo, 1e-3);
    if (hi <= lo) hi = lo * 10;
    const s = scaleLog().base(a.base ?? 10).domain([lo, hi]).range(range);
    return a.domain ? s : s.nice();
  }
  if (hi <= lo) hi = lo + 1;
  const s = scaleLinear().domain([Math.min(0, lo), hi]).range(range);
  return a.domain ? s : s.nice();
}

/** What a drawn chart keeps to move its marker without being drawn again. */
const drawn = new WeakMap<SVGSVGElement, { layer: SVGGElement; x: ScaleContinuousNumeric<number, number>; ih: number }>();

/** The vertical line at x = `marker` (none for null or off the axis). */
function placeMarker(layer: SVGGElement, x: ScaleContinuousNumeric<number, number>, ih: number, marker: number | null): void {
  const at = marker !== null && Number.isFinite(x(marker)) ? [marker] : [];
  select(layer)
    .selectAll<SVGLineElement, number>('line.wb-marker')
    .data(at)
    .join('line')
    .attr('class', 'wb-marker')
    .attr('x1', (m) => x(m))
    .attr('x2', (m) => x(m))
    .attr('y1', 0)
    .attr('y2', ih)
    .attr('data-x', (m) => m);
}

/** Move the marker of the chart drawn in `root`; false when there is none (draw it instead). */
export function moveMarker(root: HTMLElement, marker: number | null): boolean {
  const svg = root.querySelector<SVGSVGElement>('svg.wb-chart');
  const d = svg ? drawn.get(svg) : undefined;
  if (!d) return false;
  placeMarker(d.layer, d.x, d.ih, marker);
  return true;
}

/** Draw (or redraw) a chart into `root`; returns the SVG element. */
export function drawChart(root: HTMLElement, spec: ChartSpec): SVGSVGElement {
  const width = spec.width ?? Math.max(320, Math.min(760, root.clientWidth || 560));
  const legend = legendLayout(spec.series, width - M.left - M.right);
  const height = (spec.height ?? 300) + legend.rows * LEGEND_ROW + (legend.rows ? 10 : 0);
  const iw = width - M.left - M.right;
  const ih = height - M.top - M.bottom - legend.rows * LEGEND_ROW - (legend.rows ? 10 : 0);
  const all = spec.series.flatMap((s) => s.points);
  const xAxis: Axis =
    spec.x.ticks && !spec.x.domain ? { ...spec.x, domain: [Math.min(...spec.x.ticks), Math.max(...spec.x.ticks)] } : spec.x;
  const x = scale(xAxis, all.map((p) => p.x), [0, iw]);
  const y = scale(spec.y, all.map((p) => p.y), [ih, 0]);

  const svg = select(root)
    .selectAll<SVGSVGElement, null>('svg.wb-chart')
    .data([null])
    .join('svg')
    .attr('class', 'wb-chart')
    .attr('role', 'img')
    .attr('aria-label', spec.title)
    .attr('width', width)
    .attr('height', height)
    .attr('viewBox', `0 0 ${width} ${height}`);
  svg.selectAll('*').remove();
  svg.append('text').attr('class', 'wb-chart-title').attr('x', 6).attr('y', 16).text(spec.title);
  if (spec.subtitle) svg.append('text').attr('class', 'wb-chart-sub').attr('x', 6).attr('y', 31).text(spec.subtitle);
  const g = svg.append('g').attr('transform', `translate(${M.left},${M.top})`);

  const fmt = (a: Axis) => (v: unknown) => (a.format ? a.format(Number(v)) : String(v));
  const xa = axisBottom(x).tickFormat(fmt(spec.x));
  if (spec.x.ticks) xa.tickValues(spec.x.ticks);
  else if (!spec.x.log) xa.ticks(6);
  else xa.ticks(6);
  const ya = axisLeft(y).tickFormat(fmt(spec.y));
  const [y0, y1] = y.domain();
  const yTicks = spec.y.ticks ?? (spec.y.log ? logTicks(Math.min(y0, y1), Math.max(y0, y1), spec.y.base ?? 10) : null);
  if (yTicks) ya.tickValues(yTicks);
  else ya.ticks(5);
  const grid = axisLeft(y).tickSize(-iw).tickFormat(() => '');
  if (yTicks) grid.tickValues(yTicks);
  else grid.ticks(5);
  g.append('g').attr('class', 'wb-grid').call(grid);
  g.append('g').attr('class', 'wb-axis x').attr('transform', `translate(0,${ih})`).call(xa);
  g.append('g').attr('class', 'wb-axis y').call(ya);
  g.append('text').attr('class', 'wb-axis-label').attr('x', iw / 2).attr('y', ih + 36).attr('text-anchor', 'middle').text(spec.x.label);
  g.append('text')
    .attr('class', 'wb-axis-label')
    .attr('transform', `translate(${-48},${ih / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .text(spec.y.label);

  const layer = g.append('g').attr('class', 'wb-marker-layer').node() as SVGGElement;
  drawn.set(svg.node() as SVGSVGElement, { layer, x, ih });
  placeMarker(layer, x, ih, spec.marker ?? null);

  const ok = (p: Point) => Number.isFinite(x(p.x)) && Number.isFinite(y(p.y));
  const path = line<Point>()
    .defined(ok)
    .x((p) => x(p.x))
    .y((p) => y(p.y));
  const series = g
    .selectAll<SVGGElement, Series>('g.wb-series')
    .data([...spec.series.filter((s) => s.beneath), ...spec.series.filter((s) => !s.beneath)], (s) => s.key)
    .join('g')
    .attr('class', 'wb-series')
    .attr('data-series', (s) => s.key);
  series
    .append('path')
    .attr('class', 'wb-line')
    .attr('fill', 'none')
    .attr('stroke', (s) => s.color)
    .attr('stroke-dasharray', (s) => (s.dashed ? '6 4' : null))
    .attr('d', (s) => path(s.points));
  series.each(function (s) {
    // Points too small to see (a long series) are not drawn: thousands of elements, nothing to hover.
    if (s.marks === false) return;
    const pts = select(this)
      .selectAll<SVGPathElement, Point>('path.wb-pt')
      .data(s.points.filter(ok))
      .join('path')
      .attr('class', 'wb-pt')
      .attr('d', symbol(SYMBOLS[s.symbol % SYMBOLS.length], 52)())
      .attr('transform', (p) => `translate(${x(p.x)},${y(p.y)})`)
      .attr('fill', s.color)
      .attr('data-x', (p) => p.x)
      .attr('data-y', (p) => p.y);
    pts.each(function (p) {
      for (const [k, v] of Object.entries(p.data ?? {})) this.setAttribute(`data-${k}`, String(v));
    });
    pts.append('title').text((p) => p.title ?? `${s.label}: ${p.y}`);
  });

  const lg = svg
    .append('g')
    .attr('class', 'wb-legend')
    .attr('transform', `translate(${M.left + 4},${M.top + ih + 58})`);
  for (const { s, x: lx, row } of legend.items) {
    const item = lg.append('g').attr('transform', `translate(${lx},${row * LEGEND_ROW})`).attr('data-series', s.key);
    item
      .append('line')
      .attr('x1', 0)
      .attr('x2', 26)
      .attr('y1', 0)
      .attr('y2', 0)
      .attr('stroke', s.color)
      .attr('stroke-width', 2)
      .attr('stroke-dasharray', s.dashed ? '6 4' : null);
    item.append('path').attr('d', symbol(SYMBOLS[s.symbol % SYMBOLS.length], 40)()).attr('transform', 'translate(13,0)').attr('fill', s.color);
    item.append('text').attr('x', 32).attr('y', 4).text(s.label);
  }
  return svg.node() as SVGSVGElement;
}

/**
 * A colour (Okabe–Ito, then black) and a symbol for each era by its place in the core's registry
 * (the same in every chart): an era the core adds gets the next pair.
 */
const ERA_COLORS = ['#d55e00', '#0072b2', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];
const ERA_SYMBOLS = [1, 0, 3, 2, 5, 4, 6];

export function profileStyle(eras: readonly Era[], p: string): { color: string; symbol: number } {
  const i = eras.findIndex((e) => e.name === p);
  if (i < 0) return { color: '#555', symbol: 4 };
  return { color: ERA_COLORS[i % ERA_COLORS.length], symbol: ERA_SYMBOLS[i % ERA_SYMBOLS.length] };
}

/** 1000 → 1k, 10000 → 10k, 1e6 → 1M. */
export function shortNum(v: number): string {
  if (v >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  if (v >= 1 || v === 0) return String(+v.toPrecision(3));
  return v.toPrecision(2);
}
