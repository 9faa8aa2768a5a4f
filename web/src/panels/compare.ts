// Compare mode: the app's trace replayed under two or more profiles side by side (each its own
// session, with the trace's `profile` line replaced), stepping in lock-step by operation, each
// with its own bar and tree, plus a table of the core's work counters for the operation and
// cumulated, and their time series along the trace.
import { bytesPerLiveArea, errorMessage, freeNodes, Session, type State } from '../bridge';
import { Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import { COUNTER_KEYS, COUNTER_LABEL, counterKeys, counterLabel, differingSteps, opResult, forProfile, parseCounters, traceProfile, work, zeroCounters, type CounterKey, type Counters } from './api';
import { drawChart, profileStyle, shortNum, type Series } from './charts/lineChart';
import type { AppApi } from './context';
import { button, grouped, h, select } from './dom';
import { MiniViews } from './views';

export const COMPARE_PROFILES = ['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'maple-rfc'];
type Metric = CounterKey | 'work';
const METRICS: Metric[] = ['work', ...COUNTER_KEYS];

interface Column {
  profile: string;
  raw: Vmapviz | null;
  session: Session | null;
  error: string | null;
  /** Counters of each operation, and prefix sums (cumulative[k] = ops 0..k-1). */
  perOp: Counters[];
  cumulative: Counters[];
  /** What each operation answered (`alloc -> 0x…`, `alloc -> FAIL`, or ''), by step. */
  results: string[];
  root: HTMLElement;
  status: HTMLElement;
  views: MiniViews;
}

function zero(): Counters {
  return zeroCounters();
}

function add(a: Counters, b: Counters): Counters {
  const c = { ...a };
  c.ops += b.ops;
  for (const k of Object.keys(b)) if (k !== 'ops') c[k] = (c[k] ?? 0) + b[k];
  return c;
}

function metric(c: Counters, m: string): number {
  return m === 'work' ? work(c) : (c[m] ?? 0);
}

/** The height of a state's index: the maple tree's, or the free rbtree's depth + 1 (null: none). */
function treeHeight(st: State): number | null {
  if (st.index.kind === 'maple') return st.index.tree.height;
  const nodes = st.index.nodes;
  if (!nodes.length) return null;
  return 1 + nodes.reduce((d, n) => Math.max(d, n.depth), 0);
}

export class ComparePanel {
  readonly root: HTMLElement;
  private readonly checks: Map<string, HTMLInputElement> = new Map();
  private readonly follow: HTMLInputElement;
  private readonly cols: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly label: HTMLElement;
  private readonly scrubber: HTMLInputElement;
  private readonly chart: HTMLElement;
  private readonly metricSel: HTMLSelectElement;
  private readonly cumulativeBox: HTMLInputElement;
  private readonly note: HTMLElement;
  private columns: Column[] = [];
  private trace: string | null = null;
  /** The main view's step k is step k + offset of the compare sessions (1 when a profile line was added). */
  private offset = 0;
  private step = 0;
  private length = 0;
  private visible = false;

  constructor(private readonly app: AppApi) {
    const boxes = COMPARE_PROFILES.map((p) => {
      const c = h('input', { type: 'checkbox', name: 'compare-profile', value: p, 'data-profile': p });
      c.checked = p === 'linux-5.1' || p === 'linux-5.2';
      c.addEventListener('change', () => this.rebuild());
      this.checks.set(p, c);
      return h('label', { class: 'wb-check' }, c, h('code', {}, p));
    });
    this.follow = h('input', { type: 'checkbox', name: 'follow' });
    this.follow.checked = true;
    this.follow.addEventListener('change', () => this.follow.checked && this.sync());
    const b = (text: string, action: string, title: string, f: () => void) => {
      const x = button(text, action, title);
      x.addEventListener('click', f);
      return x;
    };
    this.label = h('span', { class: 'step-label', 'data-testid': 'compare-step' });
    this.scrubber = h('input', { type: 'range', min: 0, class: 'scrubber', 'aria-label': 'Compare: step' });
    this.scrubber.addEventListener('input', () => this.go(Number(this.scrubber.value)));
    this.cols = h('div', { class: 'wb-compare-cols', 'data-testid': 'compare-columns' });
    this.table = h('table', { class: 'wb-table', 'data-testid': 'counters-table' });
    this.metricSel = select('metric', METRICS.map((m): [string, string] => [m, COUNTER_LABEL[m]]), 'work');
    this.metricSel.setAttribute('aria-label', 'Counter of the time series');
    this.metricSel.addEventListener('change', () => this.drawSeries());
    this.cumulativeBox = h('input', { type: 'checkbox', name: 'cumulative' });
    this.cumulativeBox.addEventListener('change', () => this.drawSeries());
    this.chart = h('div', { class: 'wb-chart-box', 'data-testid': 'counters-series' });
    this.note = h('p', { class: 'wb-muted' });
    this.root = h(
      'div',
      { class: 'wb-compare', 'data-widget': 'compare' },
      h(
        'div',
        { class: 'wb-row wb-spread' },
        h('div', { class: 'wb-row', role: 'group', 'aria-label': 'Profiles to compare' }, h('span', { class: 'wb-muted' }, 'Profiles'), ...boxes),
        h('label', { class: 'wb-check' }, this.follow, h('span', {}, 'follow the main view')),
      ),
      h(
        'div',
        { class: 'wb-large-controls' },
        b('«', 'first', 'Go to the start', () => this.go(0)),
        b('◀', 'prev', 'Step back one operation (all profiles)', () => this.go(this.step - 1)),
        this.label,
        b('▶', 'next', 'Step forward one operation (all profiles)', () => this.go(this.step + 1)),
        b('»', 'last', 'Go to the end', () => this.go(this.length)),
        this.scrubber,
      ),
      this.note,
      this.cols,
      h('h3', {}, 'Work counters'),
      h('p', { class: 'wb-muted' }, 'Counted by the core from its step events: this operation, and all operations up to this step. Cache lines estimate the distinct nodes touched by an operation.'),
      this.table,
      h(
        'div',
        { class: 'wb-row' },
        h('h3', {}, 'Along the trace'),
        h('label', { class: 'wb-inline-field' }, 'counter ', this.metricSel),
        h('label', { class: 'wb-check' }, this.cumulativeBox, h('span', {}, 'cumulative')),
      ),
      this.chart,
    );
  }

  /** The compare tab became visible or hidden: only a visible panel replays. */
  setVisible(v: boolean): void {
    this.visible = v;
    if (v) this.refresh();
  }

  /** The app changed (trace or step). */
  refresh(): void {
    if (!this.visible) return;
    const t = this.app.currentTrace();
    if (t !== this.trace) {
      this.trace = t;
      this.rebuild();
    } else if (this.follow.checked) this.sync();
  }

  private sync(): void {
    if (this.app.currentStep() !== this.step) this.go(this.app.currentStep());
  }

  private rebuild(): void {
    const trace = this.trace ?? this.app.currentTrace();
    for (const c of this.columns) c.raw?.free();
    this.columns = [];
    const chosen = COMPARE_PROFILES.filter((p) => this.checks.get(p)?.checked);
    const named = traceProfile(trace);
    const own = named ?? 'linux-5.2';
    this.offset = named === null ? 1 : 0;
    this.note.textContent = `The main view's trace (${own}) replayed under ${chosen.length} profile${chosen.length === 1 ? '' : 's'}, its profile line replaced; the same operation in every column.`;
    for (const p of chosen) {
      const status = h('p', { class: 'wb-col-status' });
      const barRoot = h('div', { class: 'space-bar-root', 'data-widget': `compare-bar-${p}` });
      const treeRoot = h('div', { class: 'free-tree-root wb-tree wb-tree-small', 'data-widget': `compare-tree-${p}` });
      const style = profileStyle(p);
      const root = h(
        'section',
        { class: 'wb-compare-col', 'data-profile': p, 'data-testid': 'compare-column' },
        h('h4', {}, h('span', { class: 'wb-dot', style: `background:${style.color}` }), h('code', {}, p)),
        status,
        barRoot,
        p === 'linux-5.1'
          ? h(
              'p',
              { class: 'wb-muted wb-col-note' },
              'linux-5.1 keeps no free tree: it walks the busy areas (with the free_vmap_cache hint), and the free space is the gaps between them.',
            )
          : null,
        treeRoot,
      );
      treeRoot.hidden = p === 'linux-5.1';
      const col: Column = { profile: p, raw: null, session: null, error: null, perOp: [], cumulative: [zero()], results: [], root, status, views: new MiniViews(barRoot, treeRoot) };
      try {
        col.raw = Vmapviz.load(forProfile(trace, p));
        col.session = new Session(col.raw);
        const c = parseCounters(col.raw.counters(0, col.raw.len()));
        col.perOp = c.perOp.slice(this.offset);
        for (const op of c.perOp) col.cumulative.push(add(col.cumulative[col.cumulative.length - 1], op));
        col.results = col.session.summaries(this.offset, col.session.length).map((x) => opResult(x.output));
      } catch (e) {
        col.error = errorMessage(e);
        col.raw?.free();
        col.raw = null;
        col.session = null;
      }
      if (col.error) {
        root.dataset.error = 'true';
        status.textContent = `This trace does not replay under ${p}: ${col.error}`;
        status.classList.add('error');
      }
      this.columns.push(col);
    }
    this.cols.replaceChildren(...this.columns.map((c) => c.root));
    this.cols.style.setProperty('--cols', String(Math.max(1, this.columns.length)));
    this.length = Math.max(0, ...this.columns.map((c) => (c.session?.length ?? 0) - this.offset));
    this.scrubber.max = String(this.length);
    // Counters the core sends beyond the known ones (maple-rfc's, say) can be drawn along the trace too.
    const have = new Set([...this.metricSel.options].map((o) => o.value));
    for (const k of counterKeys(this.columns.filter((c) => c.session).map((c) => c.cumulative[c.cumulative.length - 1]))) {
      if (!have.has(k)) this.metricSel.append(h('option', { value: k }, counterLabel(k)));
    }
    this.step = -1;
    this.go(this.follow.checked ? this.app.currentStep() : this.length);
  }

  go(k: number): void {
    const step = Math.max(0, Math.min(this.length, Math.trunc(k)));
    this.step = step;
    this.root.dataset.step = String(step);
    this.label.textContent = `step ${grouped(step)} / ${grouped(this.length)}`;
    this.scrubber.value = String(step);
    const states: (State | null)[] = [];
    for (const c of this.columns) {
      if (!c.session) {
        states.push(null);
        continue;
      }
      const k = Math.min(step + this.offset, c.session.length);
      const st = c.session.state(k);
      states.push(st);
      c.views.render(st);
      const last = step > 0 ? c.session.summaries(k - 1, k)[0] : null;
      c.status.textContent = last ? `${last.text} → ${last.output.trim().split('\n')[0] || 'done'}` : 'the initial state';
      c.status.dataset.output = last?.output.trim().split('\n')[0] ?? '';
      c.root.dataset.freeBlocks = String(freeNodes(st.index).length);
      c.root.dataset.tree = st.index.kind === 'maple' ? 'maple' : 'free';
    }
    this.renderTable();
    this.drawSeries();
  }

  private renderTable(): void {
    const cols = this.columns.filter((c) => c.session);
    const k = this.step;
    const head = h(
      'thead',
      {},
      h('tr', {}, h('th', { rowspan: 2 }, 'counter'), ...cols.map((c) => h('th', { colspan: 2, 'data-profile': c.profile }, h('code', {}, c.profile)))),
      h('tr', {}, ...cols.flatMap(() => [h('th', {}, k > 0 ? `op ${k}` : 'op —'), h('th', {}, `ops 1–${k}`)])),
    );
    // Every key the columns' counters carry: a counter the core adds shows up as a row.
    const keys = ['work', ...counterKeys(cols.map((c) => c.cumulative[c.cumulative.length - 1]))];
    const rows = keys.map((m) =>
      h(
        'tr',
        { 'data-counter': m },
        h('th', { scope: 'row' }, counterLabel(m)),
        ...cols.flatMap((c) => {
          const op = k > 0 && c.perOp[k - 1] ? metric(c.perOp[k - 1], m) : null;
          const cum = metric(c.cumulative[Math.min(k, c.cumulative.length - 1)], m);
          return [
            h('td', { 'data-profile': c.profile, 'data-kind': 'op' }, op === null ? '—' : grouped(op)),
            h('td', { 'data-profile': c.profile, 'data-kind': 'total' }, grouped(cum)),
          ];
        }),
      ),
    );
    // The state after the step: the index's height and memory.
    const states = cols.map((c) => c.session!.state(Math.min(k + this.offset, c.session!.length)));
    const stateRow = (key: string, label: string, value: (st: State) => string) =>
      h(
        'tr',
        { 'data-row': key, class: 'wb-state-row' },
        h('th', { scope: 'row' }, label),
        ...cols.map((c, i) => h('td', { colspan: 2, 'data-profile': c.profile, 'data-kind': 'state' }, value(states[i]))),
      );
    const height = stateRow('height', 'tree height (rbtree depth, maple height)', (st) => {
      const v = treeHeight(st);
      return v === null ? '—' : String(v);
    });
    const bytes = stateRow('bytes_per_area', 'bytes per live area (index)', (st) => (st.memory ? bytesPerLiveArea(st.memory).toFixed(1) : '—'));
    // The result of this operation in each column, and the operations so far whose results differ.
    const results = cols.map((c) => c.results);
    const diff = differingSteps(results, k);
    const here = k > 0 ? cols.map((c) => c.results[k - 1] ?? '') : cols.map(() => '');
    const differs = k > 0 && here.some((r) => r !== here[0]);
    const result = h(
      'tr',
      { 'data-row': 'result', 'data-differs': String(differs), class: differs ? 'wb-differs' : '' },
      h('th', { scope: 'row' }, 'this operation answered'),
      ...cols.map((c, i) =>
        h('td', { colspan: 2, class: 'wb-left wb-mono', 'data-profile': c.profile, 'data-kind': 'result', 'data-differs': String(k > 0 && here[i] !== here[0]) }, k > 0 ? here[i] || '(no answer)' : '—'),
      ),
    );
    const list = diff.slice(-12).map((d) => `op ${d}`).join(', ');
    const summary = h(
      'tr',
      { 'data-row': 'differing', 'data-count': String(diff.length) },
      h('th', { scope: 'row' }, 'operations whose results differ'),
      h(
        'td',
        { colspan: 2 * cols.length, class: 'wb-left', 'data-kind': 'differing' },
        diff.length === 0
          ? `none in ops 1–${k}`
          : `${grouped(diff.length)} in ops 1–${k}: ${diff.length > 12 ? '…, ' : ''}${list}. A different address comes from a different search (maple-rfc pads aligned requests to size + align − 1, linux-5.1 starts at its cache hint, the bump overlay hands out chunk space) or from a different state before it.`,
      ),
    );
    this.table.replaceChildren(head, h('tbody', {}, ...rows, height, bytes, result, summary));
  }

  private drawSeries(): void {
    const m = this.metricSel.value;
    const cumulative = this.cumulativeBox.checked;
    const series: Series[] = this.columns
      .filter((c) => c.session)
      .map((c) => {
        const st = profileStyle(c.profile);
        const values = cumulative ? c.cumulative.slice(1) : c.perOp;
        const n = values.length;
        // Keep at most ~600 points: a long trace is drawn from every k-th operation.
        const every = Math.max(1, Math.ceil(n / 600));
        const points = [];
        for (let i = 0; i < n; i += every) {
          const v = metric(values[i], m);
          points.push({ x: i + 1, y: v, data: { profile: c.profile, op: i + 1, value: v }, title: `${c.profile}, op ${i + 1}: ${grouped(v)}` });
        }
        return { key: c.profile, label: c.profile, color: st.color, symbol: st.symbol, points, marks: n <= 120 };
      });
    if (!series.length) {
      this.chart.replaceChildren();
      return;
    }
    drawChart(this.chart, {
      title: `${counterLabel(m)}${cumulative ? ', cumulative,' : ''} per operation along the trace`,
      subtitle: 'the line marks the step shown',
      x: { label: 'operation', format: shortNum },
      y: { label: cumulative ? 'cumulative' : 'per operation', format: shortNum },
      series,
      marker: this.step > 0 ? this.step : null,
      height: 260,
      width: Math.max(420, Math.min(1100, this.chart.clientWidth || 800)),
    });
  }
}
