// The fragmentation instrument (issue 62, items 3–5 in the page), loaded on first use: the
// figures of the state the views show (per window: largest free block, free blocks, free space by
// size class; lazy pages against lazy_max_pages; each node's pools), their course over the trace
// (one point per operation, computed by the core in one pass), the callers of the areas when a
// /proc/vmallocinfo or a capture brought them, and the diff of two /proc/vmallocinfo files.
// Every figure comes from the core (core/wasm/src/frag.rs); this file only draws them.
import './frag.css';
import { Vmapviz, vm_diff, vmallocinfo_callers } from '../../pkg-workbench/vmapviz_wasm.js';
import { errorMessage } from '../../bridge';
import { size } from '../../format';
import type { AppApi, Mirror } from '../context';
import { drawChart, moveMarker, shortNum, type Series } from '../charts/lineChart';
import { button, grouped, h } from '../dom';
import type { RemoteSession } from '../../workers/client';
import { installCallerTip } from './callerTip';
import { SeriesKeeper } from './series';
import {
  CallerIndex,
  classLabel,
  human,
  parseCallers,
  parseDiff,
  parseFragmentation,
  parseSeries,
  thin,
  type CallerRow,
  type DiffArea,
  type Fragmentation,
  type FragPoint,
  type VmDiff,
  type WindowFigures,
} from './parse';

/** A file as the panel takes it (a capture's part may be gzipped). */
export interface NamedFile {
  name: string;
  bytes: Uint8Array;
}

/** The large-trace navigator's trace, when it is the one shown (its session stays in its worker). */
export interface LargeShown {
  session: RemoteSession;
  step: number;
}

/**
 * The session measured: the page's own (the player's, in this thread: any size, live mode
 * included) or the large-trace navigator's (in its worker). Its figures are the core's.
 */
interface Measured {
  /** The session itself: a new one starts the chart again. */
  id: object;
  length: number;
  step: number;
  where: string;
  figures(k: number): Promise<string>;
  series(from: number, to: number, every: number): Promise<string>;
}

/** Rows shown per list of the diff and of the callers table (the rest summed in one line). */
const LIST_ROWS = 200;
const CALLER_ROWS = 20;
/** Points the chart draws at most (every n-th state past that; the figures are all computed). */
const CHART_POINTS = 1200;

const hexOf = (v: bigint) => `0x${v.toString(16)}`;
const areas = (n: number) => `${grouped(n)} area${n === 1 ? '' : 's'}`;

function blockText(b: { start: bigint; bytes: number } | null): string {
  return b ? `${human(b.bytes)} at ${hexOf(b.start)}` : 'none';
}

/** A two-column table of figures: one row per label. */
function figuresTable(caption: string, rows: [string, string, Record<string, string | number>?][], attrs: Record<string, string> = {}): HTMLElement {
  const body = h('tbody');
  for (const [k, v, data] of rows) {
    const td = h('td', {}, v);
    for (const [dk, dv] of Object.entries(data ?? {})) td.setAttribute(`data-${dk}`, String(dv));
    body.append(h('tr', {}, h('th', { scope: 'row' }, k), td));
  }
  return h('div', { class: 'frag-scroll' }, h('table', { class: 'frag-table', ...attrs }, h('caption', {}, caption), body));
}

/** A window's figures and its histogram. */
export function windowView(w: WindowFigures, pooled: boolean): HTMLElement {
  const rows: [string, string, Record<string, string | number>?][] = [
    ['window', `${hexOf(w.start)}–${hexOf(w.end)} (${human(Number(w.end - w.start))})`],
    ['busy', `${areas(w.busyAreas)}, ${human(w.busyBytes)}`, { areas: w.busyAreas, bytes: w.busyBytes }],
    ['lazy', `${areas(w.lazyAreas)}, ${human(w.lazyBytes)}`, { areas: w.lazyAreas, bytes: w.lazyBytes }],
  ];
  if (pooled) rows.push(['pooled', `${areas(w.pooledAreas)}, ${human(w.pooledBytes)}`, { areas: w.pooledAreas, bytes: w.pooledBytes }]);
  rows.push(
    ['free', `${human(w.freeBytes)} in ${grouped(w.freeBlocks)} blocks`, { 'free-bytes': w.freeBytes, 'free-blocks': w.freeBlocks }],
    ['largest free block', blockText(w.largestFree), { bytes: w.largestFree?.bytes ?? 0, start: w.largestFree ? hexOf(w.largestFree.start) : '' }],
    ['largest hole below it', blockText(w.largestHole), { bytes: w.largestHole?.bytes ?? 0, start: w.largestHole ? hexOf(w.largestHole.start) : '' }],
  );
  const table = figuresTable(`${w.name} window`, rows, { 'data-window': w.name });
  const most = Math.max(1, ...w.histogram.map((c) => c.blocks));
  const hist = h(
    'table',
    { class: 'frag-table frag-hist', 'data-histogram': w.name },
    h('caption', {}, `${w.name}: free blocks by size (pages)`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'pages'), h('th', { scope: 'col' }, 'blocks'), h('th', { scope: 'col' }, 'bytes'), h('th', { scope: 'col' }, h('span', { class: 'frag-sr' }, 'share')))),
  );
  const body = h('tbody');
  for (const c of w.histogram) {
    const bar = h('span', { class: 'frag-bar' });
    bar.style.width = `${Math.max(2, (100 * c.blocks) / most)}%`;
    body.append(
      h(
        'tr',
        { 'data-min-pages': c.minPages, 'data-max-pages': c.maxPages, 'data-blocks': c.blocks, 'data-bytes': c.bytes },
        h('th', { scope: 'row' }, classLabel(c)),
        h('td', {}, grouped(c.blocks)),
        h('td', {}, human(c.bytes)),
        h('td', { class: 'frag-bar-cell' }, bar),
      ),
    );
  }
  hist.append(body);
  return h('div', { class: 'frag-window' }, table, h('div', { class: 'frag-scroll' }, hist));
}

/** The lazy pages against the threshold, and the nodes' pools. */
export function lazyAndNodes(f: Fragmentation): HTMLElement {
  const l = f.lazy;
  const meter = h('meter', { min: 0, max: Math.max(1, l.lazyMaxPages), value: Math.min(l.pages, l.lazyMaxPages), 'aria-label': 'lazy pages against lazy_max_pages' });
  const lazy = h(
    'p',
    { class: 'frag-lazy', 'data-testid': 'frag-lazy', 'data-pages': l.pages, 'data-lazy-max-pages': l.lazyMaxPages, 'data-online-cpus': l.onlineCpus },
    h('span', {}, `lazy pages (vmap_lazy_nr) ${grouped(l.pages)} of lazy_max_pages ${grouped(l.lazyMaxPages)} (${l.onlineCpus} online CPU${l.onlineCpus === 1 ? '' : 's'}), ${areas(l.areas)} `),
    meter,
  );
  const out = h('div', { class: 'frag-lazy-nodes' }, lazy);
  if (f.nodes.length) {
    const body = h('tbody');
    for (const n of f.nodes)
      body.append(
        h(
          'tr',
          { 'data-node': n.node, 'data-areas': n.areas, 'data-bytes': n.bytes },
          h('th', { scope: 'row' }, `node ${n.node}`),
          h('td', {}, n.areas ? `${grouped(n.areas)} areas, ${human(n.bytes)}` : 'empty'),
          h('td', {}, n.sizes.map((s) => `${s.pages}p×${s.areas}`).join(' ')),
        ),
      );
    out.append(
      h(
        'div',
        { class: 'frag-scroll' },
        h(
          'table',
          { class: 'frag-table', 'data-testid': 'frag-nodes' },
          h('caption', {}, 'vmap nodes: pools by size'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'node'), h('th', { scope: 'col' }, 'pooled'), h('th', { scope: 'col' }, 'pages × areas'))),
          body,
        ),
      ),
    );
  }
  return out;
}

function callersTable(caption: string, rows: CallerRow[]): HTMLElement {
  const body = h('tbody');
  for (const r of rows.slice(0, CALLER_ROWS))
    body.append(
      h(
        'tr',
        { 'data-caller': r.caller, 'data-bytes': r.bytes, 'data-areas': r.areas },
        h('th', { scope: 'row', class: 'frag-caller' }, r.caller),
        h('td', {}, grouped(r.areas)),
        h('td', {}, human(r.bytes)),
        h('td', {}, `${r.share.toFixed(1)}%`),
        h('td', {}, r.kinds.join(', ')),
      ),
    );
  const rest = rows.slice(CALLER_ROWS);
  if (rest.length)
    body.append(
      h('tr', {}, h('td', { colspan: 5 }, `… and ${grouped(rest.length)} more callers: ${grouped(rest.reduce((n, r) => n + r.areas, 0))} areas, ${human(rest.reduce((n, r) => n + r.bytes, 0))}`)),
    );
  return h(
    'div',
    { class: 'frag-scroll' },
    h(
      'table',
      { class: 'frag-table frag-callers', 'data-testid': 'frag-callers' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...['caller', 'areas', 'bytes', 'share', 'kinds'].map((t) => h('th', { scope: 'col' }, t)))),
      body,
    ),
  );
}

function diffList(title: string, key: string, list: DiffArea[]): HTMLElement {
  const bytes = list.reduce((n, a) => n + a.bytes, 0);
  const body = h('tbody');
  for (const a of list.slice(0, LIST_ROWS))
    body.append(
      h(
        'tr',
        { 'data-start': hexOf(a.start), 'data-end': hexOf(a.end) },
        h('td', { class: 'frag-mono' }, `${hexOf(a.start)}–${hexOf(a.end)}`),
        h('td', {}, human(a.bytes)),
        h('td', {}, a.kind),
        h('td', { class: 'frag-caller' }, a.caller),
      ),
    );
  if (list.length > LIST_ROWS) body.append(h('tr', {}, h('td', { colspan: 4 }, `… and ${grouped(list.length - LIST_ROWS)} more`)));
  return h(
    'details',
    { class: 'frag-diff-list', 'data-list': key, 'data-count': list.length, 'data-bytes': bytes, open: list.length > 0 && list.length <= 50 },
    h('summary', {}, `${title}: ${grouped(list.length)} areas, ${human(bytes)}`),
    h(
      'div',
      { class: 'frag-scroll' },
      h(
        'table',
        { class: 'frag-table' },
        h('caption', { class: 'frag-sr' }, title),
        h('thead', {}, h('tr', {}, ...['range', 'bytes', 'kind', 'caller (as printed)'].map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    ),
  );
}

/** The figures of both sides of a diff, side by side (the vmalloc window and the lazy pages). */
function diffFigures(d: VmDiff, names: [string, string]): HTMLElement {
  const row = (label: string, f: (x: Fragmentation) => string) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, f(d.a.figures)), h('td', {}, f(d.b.figures)));
  const win = (x: Fragmentation) => x.windows[0];
  const body = h(
    'tbody',
    {},
    row('vmalloc: busy', (x) => `${grouped(win(x).busyAreas)} areas, ${human(win(x).busyBytes)}`),
    row('vmalloc: lazy', (x) => `${grouped(win(x).lazyAreas)} areas, ${human(win(x).lazyBytes)}`),
    row('vmalloc: free', (x) => `${human(win(x).freeBytes)} in ${grouped(win(x).freeBlocks)} blocks`),
    row('vmalloc: largest free block', (x) => blockText(win(x).largestFree)),
    row('vmalloc: largest hole below it', (x) => blockText(win(x).largestHole)),
    row('lazy pages', (x) => `${grouped(x.lazy.pages)} of ${grouped(x.lazy.lazyMaxPages)}`),
  );
  return h(
    'div',
    { class: 'frag-scroll' },
    h(
      'table',
      { class: 'frag-table', 'data-testid': 'diff-figures', 'data-free-blocks-a': win(d.a.figures).freeBlocks, 'data-free-blocks-b': win(d.b.figures).freeBlocks },
      h('caption', {}, 'fragmentation of both files'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'figure'), h('th', { scope: 'col' }, `A: ${names[0]}`), h('th', { scope: 'col' }, `B: ${names[1]}`))),
      body,
    ),
  );
}

export class FragPanel {
  readonly root: HTMLElement;
  private readonly status: HTMLElement;
  private readonly figures: HTMLElement;
  private readonly chartBytes: HTMLElement;
  private readonly chartCounts: HTMLElement;
  private readonly chartLazy: HTMLElement;
  private readonly callers: HTMLElement;
  private readonly diffOut: HTMLElement;
  private readonly diffError: HTMLElement;
  private readonly fileA: HTMLInputElement;
  private readonly fileB: HTMLInputElement;
  /** The chart's points, for the session they belong to. */
  private series: { id: object; keeper: SeriesKeeper } | null = null;
  private shown = '';
  /** A refresh under way (figures are asked for asynchronously); another one is due after it. */
  private running = false;
  private again = false;
  /** The copy of a first-screen build's session in the workbench's core, and the trace version it is of. */
  private copy: Vmapviz | null = null;
  private copyOf = -1;
  /** Each session measured, numbered (the key of what is drawn). */
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;
  /** The callers by area (exposed for tools and tests). */
  index = new CallerIndex();

  constructor(
    private readonly app: AppApi,
    private readonly mirror: Mirror,
    private readonly large: () => LargeShown | null = () => null,
  ) {
    this.status = h('p', { class: 'frag-status', role: 'status', 'data-testid': 'frag-status' });
    this.figures = h('div', { class: 'frag-figures', 'data-testid': 'frag-figures' });
    this.chartBytes = h('div', { class: 'frag-chart', 'data-testid': 'frag-chart-bytes' });
    this.chartCounts = h('div', { class: 'frag-chart', 'data-testid': 'frag-chart-counts' });
    this.chartLazy = h('div', { class: 'frag-chart', 'data-testid': 'frag-chart-lazy' });
    this.callers = h('div', { class: 'frag-callers-box', 'data-testid': 'frag-callers-box' }, h('p', { class: 'panel-note' }, 'Callers show when the trace comes from a /proc/vmallocinfo or a capture bundle (Import & export): hover an area in the address space for its caller and flags.'));
    this.fileA = h('input', { type: 'file', 'data-testid': 'diff-file-a', 'aria-label': 'A: the earlier /proc/vmallocinfo' });
    this.fileB = h('input', { type: 'file', 'data-testid': 'diff-file-b', 'aria-label': 'B: the later /proc/vmallocinfo' });
    this.diffOut = h('div', { class: 'frag-diff-out', 'data-testid': 'diff-out' });
    this.diffError = h('p', { class: 'wb-error', role: 'alert', 'data-testid': 'diff-error' });
    const drop = h('div', { class: 'frag-drop', 'data-testid': 'diff-drop', tabindex: 0, role: 'region', 'aria-label': 'Drop two /proc/vmallocinfo files here' }, 'or drop two files here (the first dropped is A)');
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('frag-drop-on');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('frag-drop-on'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('frag-drop-on');
      const fs = [...(e.dataTransfer?.files ?? [])];
      if (fs.length !== 2) {
        this.diffError.textContent = `Drop two files (A, then B); ${fs.length} came.`;
        return;
      }
      void this.diffFiles(fs[0], fs[1]);
    });
    const go = button('Compare A with B', 'diff-run', 'The diff of the two files: areas that appeared, disappeared or became lazy, and both files’ fragmentation');
    go.addEventListener('click', () => {
      const a = this.fileA.files?.[0];
      const b = this.fileB.files?.[0];
      if (!a || !b) {
        this.diffError.textContent = 'Choose both files first (A, the earlier; B, the later).';
        return;
      }
      void this.diffFiles(a, b);
    });
    const lectureButton = button('Lecture view', 'frag-lecture', 'Show the figures alone, in lecture mode’s large type (for a projector); the Lecture button of the header leaves it');
    lectureButton.setAttribute('aria-pressed', 'false');
    const setLecture = (on: boolean) => {
      const body = document.body;
      const lecture = () => document.querySelector<HTMLButtonElement>('[data-tool="lecture"]');
      if (on) body.dataset.lectureView = 'frag';
      else delete body.dataset.lectureView;
      if (body.classList.contains('lecture') !== on) lecture()?.click();
      lectureButton.setAttribute('aria-pressed', String(on));
      this.root.dataset.lectureView = String(on);
      // The page's main landmark is hidden in the lecture view: the workbench takes its role.
      const host = this.root.closest('[data-widget="workbench"]');
      if (on) host?.setAttribute('role', 'main');
      else host?.removeAttribute('role');
      this.shown = '';
      this.refresh();
    };
    lectureButton.addEventListener('click', () => setLecture(document.body.dataset.lectureView !== 'frag'));
    // Leaving lecture mode (the header's button, a link) leaves the lecture view too.
    new MutationObserver(() => {
      if (!document.body.classList.contains('lecture') && document.body.dataset.lectureView === 'frag') setLecture(false);
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    this.root = h(
      'section',
      { class: 'frag-panel', 'data-widget': 'fragmentation', 'aria-labelledby': 'frag-title', tabindex: -1 },
      h('div', { class: 'frag-head' }, h('h3', { id: 'frag-title' }, 'Fragmentation of the state shown'), lectureButton),
      h(
        'p',
        { class: 'panel-note' },
        'Free space is what the allocator can hand out (free tree blocks; maple-rfc: the empty ranges), per window; lazily freed and pooled areas are not free until a purge or a pool hit. The figures are the core’s (vmap-replay --report fragmentation prints the same).',
      ),
      this.status,
      this.figures,
      h('h3', {}, 'Over the trace'),
      h('div', { class: 'frag-charts' }, this.chartBytes, this.chartCounts, this.chartLazy),
      h('h3', {}, 'Callers'),
      this.callers,
      h('h3', { id: 'frag-diff-title' }, 'Diff of two /proc/vmallocinfo files'),
      h('div', { class: 'frag-diff-in' }, h('label', { class: 'wb-field' }, h('span', { class: 'wb-field-name' }, 'A (earlier)'), this.fileA), h('label', { class: 'wb-field' }, h('span', { class: 'wb-field-name' }, 'B (later)'), this.fileB), go, drop),
      this.diffError,
      this.diffOut,
    );
  }

  /** The session shown: the large-trace navigator's when it holds the trace shown, else the page's. */
  private measured(): Measured | string | null {
    const big = this.large();
    if (big) {
      const r = big.session;
      return {
        id: r,
        length: r.length,
        step: big.step,
        where: ' (the large-trace navigator’s trace, measured in its worker)',
        figures: (k) => r.fragmentation(k),
        series: (from, to, every) => r.fragSeries(from, to, every),
      };
    }
    const s = this.mirror.session();
    if (!s) return null;
    // A maple-tree trace's session (web/src/maple/bridge.ts) says so.
    if ((s as { maple?: boolean }).maple) return 'a maple-tree trace has no address space to measure';
    // The session's own core when it is the workbench's build (a capture, live mode included: any
    // size); the page's first-screen build has no figures (its weight budget): its trace, one
    // the player holds (20,000 operations at most), is replayed once in the workbench's core.
    const own = s.figures;
    if (!own && this.copyOf !== this.mirror.version) {
      this.copyOf = this.mirror.version;
      this.copy?.free();
      this.copy = null;
      this.copy = Vmapviz.load(this.app.currentTrace());
    }
    const fig = own ?? this.copy;
    if (!fig) return null;
    return {
      id: own ? s : fig,
      length: s.length,
      step: this.app.currentStep(),
      where: '',
      figures: (k) => Promise.resolve(fig.fragmentation(k)),
      series: (from, to, every) => Promise.resolve(fig.frag_series(from, to, every)),
    };
  }

  /** Whether the session measured is not `m`'s any more. */
  private stale(m: Measured): boolean {
    try {
      const now = this.measured();
      return typeof now !== 'object' || now?.id !== m.id;
    } catch {
      return true;
    }
  }

  /** Draw the figures of the step shown (the state after that many operations). */
  refresh(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.update();
        } while (this.again);
      } finally {
        this.running = false;
      }
    })();
  }

  private none(text: string): void {
    this.root.dataset.state = 'none';
    this.status.textContent = text;
    this.figures.replaceChildren();
    for (const c of [this.chartBytes, this.chartCounts, this.chartLazy]) c.replaceChildren();
    this.series = null;
  }

  private async update(): Promise<void> {
    let m: Measured | string | null;
    try {
      m = this.measured();
    } catch (e) {
      m = errorMessage(e);
    }
    if (typeof m === 'string' || !m) {
      const key = m ?? '';
      if (key === this.shown) return;
      this.shown = key;
      return this.none(m ? `No figures: ${m}.` : 'No trace is open.');
    }
    const k = Math.max(0, Math.min(m.step, m.length));
    let id = this.ids.get(m.id);
    if (id === undefined) this.ids.set(m.id, (id = this.nextId++));
    const key = `${id}:${m.length}:${k}`;
    if (key === this.shown) return;
    try {
      const f = parseFragmentation(await m.figures(k));
      // Moved on meanwhile: the next round draws the state shown then.
      if (this.again) return;
      this.root.dataset.state = 'ready';
      this.root.dataset.step = String(k);
      this.status.textContent = `${f.profile}, after ${grouped(k)} of ${grouped(m.length)} operations${m.where}.`;
      this.figures.replaceChildren(...f.windows.map((w) => windowView(w, f.nodes.length > 0)), lazyAndNodes(f));
      if (this.series?.id !== m.id) this.series = { id: m.id, keeper: new SeriesKeeper() };
      const keeper = this.series.keeper;
      let grew = false;
      for (let ask = keeper.next(m.length); ask; ask = keeper.next(m.length)) {
        keeper.add(ask, parseSeries(await m.series(ask.from, ask.to, ask.every)));
        grew = true;
        // A slice at a time: the page's thread (or the worker) is free between them.
        await new Promise((r) => setTimeout(r, 0));
        if (this.series?.keeper !== keeper || this.stale(m)) return;
      }
      if (grew || ![this.chartBytes, this.chartCounts, this.chartLazy].every((c) => moveMarker(c, k))) this.drawSeries(k);
      this.shown = key;
    } catch (e) {
      this.shown = key;
      this.none(`No figures: ${errorMessage(e)}.`);
    }
  }

  private drawSeries(k: number): void {
    const keeper = this.series?.keeper;
    const all = keeper?.points ?? [];
    const pts = thin(all, CHART_POINTS);
    const stride = keeper && keeper.every > 1 ? keeper.every : 1;
    const drawn = all.length > CHART_POINTS ? Math.ceil(all.length / CHART_POINTS) * stride : stride;
    const every = drawn > 1 ? ` (every ${grouped(drawn)}th state drawn${stride > 1 ? `, the figures taken every ${grouped(stride)} operations and at the last` : ''})` : '';
    const line = (key: string, label: string, color: string, symbol: number, y: (p: FragPoint) => number, dashed = false): Series => ({
      key,
      label,
      color,
      symbol,
      dashed,
      // A symbol per point on a short trace; on a long one their outlines would hide the line.
      marks: pts.length <= 80,
      points: pts.map((p) => ({ x: p.step, y: y(p), data: { step: p.step, value: y(p) } })),
    });
    this.chartBytes.dataset.points = String(all.length);
    this.chartBytes.dataset.every = String(stride);
    drawChart(this.chartBytes, {
      title: 'vmalloc window: largest free block, largest hole below it',
      subtitle: `bytes (log), after each operation${every}`,
      x: { label: 'operations' },
      y: { label: 'bytes (log)', log: true, base: 1024, format: (b) => size(BigInt(Math.round(b))) },
      series: [
        line('largest-free', 'largest free block', '#1f6f99', 0, (p) => Math.max(1, p.largestFree)),
        line('largest-hole', 'largest hole below it', '#b5521b', 1, (p) => Math.max(1, p.largestHole), true),
      ],
      marker: k,
      height: 220,
    });
    drawChart(this.chartCounts, {
      title: 'vmalloc window: free blocks',
      subtitle: `after each operation${every}`,
      x: { label: 'operations' },
      y: { label: 'free blocks', format: shortNum },
      series: [line('free-blocks', 'free blocks', '#1f6f99', 0, (p) => p.freeBlocks)],
      marker: k,
      height: 220,
    });
    // The threshold is drawn only when the lazy pages come near it (else it flattens them).
    const most = Math.max(0, ...pts.map((p) => p.lazyPages));
    const limit = Math.max(0, ...pts.map((p) => p.lazyMaxPages));
    const near = most * 4 >= limit;
    drawChart(this.chartLazy, {
      title: 'lazy pages (vmap_lazy_nr)',
      subtitle: near ? `against lazy_max_pages (dashed)${every}` : `lazy_max_pages ${grouped(limit)}, far above${every}`,
      x: { label: 'operations' },
      y: { label: 'pages', format: shortNum },
      series: [
        line('lazy-pages', 'lazy pages', '#6b3fa0', 2, (p) => p.lazyPages),
        ...(near ? [line('lazy-max', 'lazy_max_pages', '#6b3fa0', 3, (p) => p.lazyMaxPages, true)] : []),
      ],
      marker: k,
      height: 220,
    });
  }

  /** The callers of the areas, from the files of an import (a vmallocinfo, or a capture's before and after). */
  setCallers(files: NamedFile[]): void {
    const index = new CallerIndex();
    let table: { name: string; rows: CallerRow[] } | null = null;
    const errors: string[] = [];
    // The before file first, the after file last: the later file's line wins on hover, its table shows.
    const rank = (n: string) => (/before/.test(n) ? 0 : /after/.test(n) ? 2 : 1);
    for (const f of [...files].sort((a, b) => rank(a.name) - rank(b.name))) {
      try {
        const c = parseCallers(vmallocinfo_callers(f.name, f.bytes));
        index.add(f.name, c.areas);
        table = { name: f.name, rows: c.table };
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    this.index = index;
    installCallerTip(index);
    this.callers.replaceChildren(
      h('p', { class: 'panel-note', 'data-testid': 'frag-callers-note', 'data-areas': index.size }, `${grouped(index.size)} areas carry their caller (${files.map((f) => f.name).sort((a, b) => rank(a) - rank(b)).join(', ')}): hover an area in the address space to see its caller and flags.`),
      ...errors.map((t) => h('p', { class: 'wb-error', role: 'alert' }, t)),
      table ? callersTable(`the callers holding the most space in ${table.name}`, table.rows) : '',
    );
  }

  private async diffFiles(a: File, b: File): Promise<void> {
    this.diffError.textContent = '';
    try {
      const [ba, bb] = await Promise.all([a.arrayBuffer(), b.arrayBuffer()]);
      this.showDiff({ name: a.name, bytes: new Uint8Array(ba) }, { name: b.name, bytes: new Uint8Array(bb) });
    } catch (e) {
      this.diffError.textContent = errorMessage(e);
    }
  }

  /** The diff of two files (exposed for tools and tests). */
  showDiff(a: NamedFile, b: NamedFile): VmDiff | null {
    this.diffError.textContent = '';
    let d: VmDiff;
    try {
      d = parseDiff(vm_diff(a.name, a.bytes, b.name, b.bytes));
    } catch (e) {
      this.diffOut.replaceChildren();
      this.diffOut.dataset.state = 'error';
      this.diffError.textContent = `Not compared: ${errorMessage(e)}`;
      return null;
    }
    const notes = [...d.a.notes.map((n) => `A: ${n}`), ...d.b.notes.map((n) => `B: ${n}`)];
    if (d.matchedBy === 'caller_and_size') notes.unshift('The addresses are hidden (zero), or hashed in one file only: areas matched by caller and size; none can be seen becoming lazy.');
    this.diffOut.dataset.state = 'ready';
    this.diffOut.replaceChildren(
      h('p', { 'data-testid': 'diff-summary' }, `${a.name} → ${b.name}: ${grouped(d.appeared.length)} appeared, ${grouped(d.disappeared.length)} disappeared, ${grouped(d.becameLazy.length)} became lazy, ${grouped(d.unchanged)} unchanged.`),
      ...notes.map((n) => h('p', { class: 'panel-note' }, n)),
      diffList('appeared (in B, not in A)', 'appeared', d.appeared),
      diffList('disappeared (in A, not in B)', 'disappeared', d.disappeared),
      diffList('became lazy (busy in A, unpurged in B)', 'became-lazy', d.becameLazy),
      diffFigures(d, [a.name, b.name]),
      h('div', { class: 'frag-diff-callers' }, callersTable(`A: the callers holding the most space in ${a.name}`, d.a.callers), callersTable(`B: the callers holding the most space in ${b.name}`, d.b.callers)),
    );
    return d;
  }
}
