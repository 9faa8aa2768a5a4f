// Compare mode: the app's trace replayed under two or more profiles side by side (each its own
// session, with the trace's `profile` line replaced), stepping in lock-step by operation and,
// inside an operation, by micro-step (frame k of every column at once, a column with fewer
// frames holding its last; each with its own narration and its search path in its own tree),
// each with its own bar and tree, plus a table of the core's work counters for the operation and
// cumulated, and their time series along the trace.
import { compareChecked, compareProfiles, defaultProfile, eraOf, type Era } from '../eras';
import { bytesPerLiveArea, errorMessage, freeNodes, Session, type OpFrames, type State } from '../bridge';
import { yieldToPage } from '../player/opening';
import { at, nextFrame, nextOp, prevFrame, prevOp, type Pos } from '../player/timeline';
import { Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import { COUNTER_KEYS, COUNTER_LABEL, counterKeys, counterLabel, differingSteps, opResult, forProfile, parseCounters, traceProfile, work, zeroCounters, type CounterKey, type Counters } from './api';
import { drawChart, moveMarker, profileStyle, shortNum, type Series } from './charts/lineChart';
import type { AppApi } from './context';
import { button, grouped, h, select } from './dom';
import { columnFrame, frameLabel, frameView, holdNote, lockstepFrames, whyOf } from './lockstep';
import { MiniViews } from './views';

/** Operations whose counters and answers one call to the core gathers while a column builds. */
const SLICE = 2_000;
type Metric = CounterKey | 'work';
const METRICS: Metric[] = ['work', ...COUNTER_KEYS];

interface Column {
  profile: string;
  raw: Vmapviz | null;
  session: Session | null;
  error: string | null;
  /** Counters of each operation of the main view's trace, and prefix sums (cumulative[k] = ops 0..k-1). */
  perOp: Counters[];
  cumulative: Counters[];
  /** What each operation answered (`alloc -> 0x…`, `alloc -> FAIL`, or ''), by step. */
  results: string[];
  root: HTMLElement;
  status: HTMLElement;
  /** The frame counter (`frame 7/23`) and the narration of the micro-step shown. */
  counter: HTMLElement;
  narration: HTMLElement;
  views: MiniViews;
  /** The frames of one operation (session index), fetched once while it is stepped through. */
  framesOf: { op: number; frames: OpFrames | null } | null;
  /** The position (`step:frame`) the column's views show, null before the first. */
  shown: string | null;
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
  /** Columns replayed for `builtTrace`, by profile (kept while the trace stays). */
  private readonly built = new Map<string, Column>();
  private builtTrace: string | null = null;
  private trace: string | null = null;
  /** Bumped by each rebuild: the bars' keys of one build's frames. */
  private builds = 0;
  /** The main view's step k is step k + offset of the compare sessions (1 when a profile line was added). */
  private offset = 0;
  private step = 0;
  /** The operation the counters table names (the columns' step, or the op they play a micro-step of). */
  private tableStep = 0;
  /** The lock-step micro-step inside operation `step` (-1: between operations). */
  private frame = -1;
  private length = 0;
  /** The step shown is the last one (kept there while columns come in). */
  private atEnd = true;
  private visible = false;
  private chartWidth = 0;
  /** What the series chart was last drawn from (see drawSeries). */
  private seriesKey = '';

  /** Lecture view: lecture mode with this panel in the player's place (for a projector). */
  private readonly lectureButton: HTMLButtonElement;

  /** The columns offered: every era of the core's registry. */
  private readonly profiles: string[];

  constructor(
    private readonly app: AppApi,
    private readonly eras: readonly Era[],
  ) {
    this.profiles = compareProfiles(eras);
    const checked = compareChecked(eras);
    // Following the main view micro-step by micro-step (the panels' refresh comes per operation).
    app.onFrame?.(() => {
      if (this.visible && this.follow.checked) this.sync();
    });
    this.lectureButton = button('Lecture view', 'compare-lecture', 'Show compare mode alone, in lecture mode’s large type (for a projector); the Lecture button of the header leaves it');
    this.lectureButton.setAttribute('aria-pressed', 'false');
    this.lectureButton.addEventListener('click', () => this.setLectureView(document.body.dataset.lectureView !== 'compare'));
    // Leaving lecture mode (the header's button, a link) leaves the lecture view too.
    new MutationObserver(() => {
      if (!document.body.classList.contains('lecture') && document.body.dataset.lectureView === 'compare') this.setLectureView(false);
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    const boxes = this.profiles.map((p) => {
      const c = h('input', { type: 'checkbox', name: 'compare-profile', value: p, 'data-profile': p });
      c.checked = checked.includes(p);
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
    // The chart's width, as the layout reports it: reading clientWidth while drawing would force
    // a layout of the whole page (100 ms and more with five columns of a long trace).
    new ResizeObserver(([e]) => {
      const w = Math.round(e.contentRect.width);
      if (w === this.chartWidth) return;
      this.chartWidth = w;
      if (this.visible) this.drawSeries();
    }).observe(this.chart);
    this.note = h('p', { class: 'wb-muted' });
    this.root = h(
      'div',
      { class: 'wb-compare', 'data-widget': 'compare', tabindex: -1 },
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
        b('◀', 'prev', 'Step back one operation, to its start (all profiles; Shift+←)', () => this.moveTo(prevOp(this.pos))),
        b('‹', 'prev-frame', 'Step back one micro-step (all profiles; ←)', () => this.moveTo(prevFrame(this.pos, (op) => this.count(op)))),
        this.label,
        b('›', 'next-frame', 'Step forward one micro-step (all profiles; →)', () => this.moveTo(nextFrame(this.pos, this.length, (op) => this.count(op)))),
        b('▶', 'next', 'Step forward one operation (all profiles; Shift+→)', () => this.moveTo(nextOp(this.pos, this.length))),
        b('»', 'last', 'Go to the end', () => this.go(this.length)),
        this.scrubber,
        this.lectureButton,
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
    // ←/→ a micro-step, Shift+←/→ an operation, while the focus is in the panel (the page's
    // player keeps its keys everywhere else).
    this.root.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || (e.target as HTMLElement).closest('input, textarea, select')) return;
      if (e.key === 'ArrowRight') this.moveTo(e.shiftKey ? nextOp(this.pos, this.length) : nextFrame(this.pos, this.length, (op) => this.count(op)));
      else if (e.key === 'ArrowLeft') this.moveTo(e.shiftKey ? prevOp(this.pos) : prevFrame(this.pos, (op) => this.count(op)));
      else return;
      e.preventDefault();
    });
  }

  /**
   * Lecture mode with the compare panel alone in the page (its controls and columns, large type;
   * panels.css): turned on here, off here or by leaving lecture mode. The keys go to the panel.
   */
  setLectureView(on: boolean): void {
    const body = document.body;
    const lecture = () => document.querySelector<HTMLButtonElement>('[data-tool="lecture"]');
    if (on) {
      body.dataset.lectureView = 'compare';
      if (!body.classList.contains('lecture')) lecture()?.click();
      this.root.focus({ preventScroll: true });
    } else {
      delete body.dataset.lectureView;
      if (body.classList.contains('lecture')) lecture()?.click();
    }
    this.lectureButton.setAttribute('aria-pressed', String(on));
    this.root.dataset.lectureView = String(on);
    for (const c of this.columns) c.views.lecture = on;
    // The columns changed size: draw the position again once the layout has settled.
    requestAnimationFrame(() => {
      for (const c of this.columns) c.views.refit();
      this.show(this.step, this.frame, true);
    });
  }

  private get pos(): Pos {
    return at(this.step, this.frame);
  }

  /** The frames of operation `op` (the main view's numbering) in a column, fetched once per operation. */
  private opFrames(c: Column, op: number): OpFrames | null {
    if (!c.session) return null;
    const k = op + this.offset;
    if (k >= c.session.length) return null;
    if (c.framesOf?.op !== k) c.framesOf = { op: k, frames: c.session.frames(k) };
    return c.framesOf.frames;
  }

  /** Lock-step frames of operation `op`: as many as its longest column. */
  private count(op: number): number {
    return lockstepFrames(this.columns.map((c) => this.opFrames(c, op)?.frames.length ?? 0));
  }

  private moveTo(p: Pos | null): void {
    if (p) this.show(p.op, p.frame);
  }

  /** The compare tab became visible or hidden: only a visible panel replays. */
  setVisible(v: boolean): void {
    this.visible = v;
    if (v) {
      for (const go of this.waiting.splice(0)) go();
      this.refresh();
    }
  }

  /** Builds paused while the panel is hidden (see buildColumns). */
  private readonly waiting: (() => void)[] = [];

  /** Yield to the page, and wait there while the panel is hidden. */
  private async pause(): Promise<void> {
    await yieldToPage();
    if (!this.visible) await new Promise<void>((go) => this.waiting.push(go));
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

  /** Show what the main view shows: its step, and inside an operation its micro-step (lock-step). */
  private sync(): void {
    const k = this.app.currentStep();
    const f = this.app.currentFrame?.() ?? -1;
    if (k !== this.step || f !== this.frame) this.show(k, f);
  }

  /**
   * Show the chosen profiles' columns. A column is replayed once per trace and kept while the
   * trace stays (checking one more profile replays only that one). Each column's replay is one
   * task, its counters and answers come SLICE operations a task, yielding to the page between
   * them, so five profiles of a long trace are never one long task. A column shows what it is
   * doing until it is done; a hidden panel waits to be shown again before it goes on.
   */
  private rebuild(): void {
    const trace = this.trace ?? this.app.currentTrace();
    const newTrace = trace !== this.builtTrace;
    if (newTrace) {
      for (const c of this.built.values()) c.raw?.free();
      this.built.clear();
      this.builtTrace = trace;
    }
    // A build under way for the previous choice stops at its next slice (and frees what it made).
    const token = ++this.builds;
    const chosen = this.profiles.filter((p) => this.checks.get(p)?.checked);
    const named = traceProfile(trace);
    const own = named ?? defaultProfile(this.eras);
    this.offset = named === null ? 1 : 0;
    this.note.textContent = `The main view's trace (${own}) replayed under ${chosen.length} profile${chosen.length === 1 ? '' : 's'}, its profile line replaced; the same operation in every column.`;
    this.columns = chosen.map((p) => this.built.get(p) ?? this.column(p));
    const lectureView = document.body.dataset.lectureView === 'compare';
    for (const c of this.columns) {
      // A column back from the cache is drawn again (the lecture view may have changed meanwhile).
      if (c.views.lecture !== lectureView || !c.root.isConnected) c.shown = null;
      c.views.lecture = lectureView;
    }
    this.cols.replaceChildren(...this.columns.map((c) => c.root));
    for (const c of this.columns) if (c.shown === null && c.session) c.views.refit();
    this.cols.style.setProperty('--cols', String(Math.max(1, this.columns.length)));
    this.columnsChanged(true, newTrace);
    const todo = this.columns.filter((c) => !this.built.has(c.profile));
    if (todo.length) void this.buildColumns(todo, trace, token);
    // Nothing to replay: a build this one replaced will not clear the flag.
    else delete this.root.dataset.building;
  }

  /** A column's elements, before it is replayed. */
  private column(p: string): Column {
    const status = h('p', { class: 'wb-col-status' });
    const counter = h('span', { class: 'wb-col-frame', 'data-testid': 'compare-frame' });
    const narration = h('p', { class: 'wb-col-narration', 'data-testid': 'compare-narration', 'aria-live': 'polite' });
    const barRoot = h('div', { class: 'space-bar-root', 'data-widget': `compare-bar-${p}` });
    const treeRoot = h('div', { class: 'free-tree-root wb-tree wb-tree-small', 'data-widget': `compare-tree-${p}` });
    const style = profileStyle(this.eras, p);
    // An era without a free tree (5.1's list walk) has no tree to draw: a note says why.
    const listWalk = eraOf(this.eras, p)?.freeTree === false;
    const root = h(
      'section',
      { class: 'wb-compare-col', 'data-profile': p, 'data-testid': 'compare-column' },
      h('h4', {}, h('span', { class: 'wb-dot', style: `background:${style.color}` }), h('code', {}, p)),
      status,
      h('div', { class: 'wb-col-step' }, counter, narration),
      barRoot,
      listWalk
        ? h(
            'p',
            { class: 'wb-muted wb-col-note' },
            `${p} keeps no free tree: it walks the busy areas (with the free_vmap_cache hint), and the free space is the gaps between them.`,
          )
        : null,
      treeRoot,
    );
    treeRoot.hidden = listWalk;
    return {
      profile: p,
      raw: null,
      session: null,
      error: null,
      perOp: [],
      cumulative: [zero()],
      results: [],
      root,
      status,
      counter,
      narration,
      views: new MiniViews(barRoot, treeRoot),
      framesOf: null,
      shown: null,
    };
  }

  /** Replay `todo`'s profiles one after the other, a slice of operations per task. */
  private async buildColumns(todo: Column[], trace: string, token: number): Promise<void> {
    const stale = () => token !== this.builds;
    this.root.dataset.building = 'true';
    for (const col of todo) {
      col.root.dataset.busy = 'true';
      col.status.classList.remove('error');
      col.status.textContent = `Replaying the trace under ${col.profile}…`;
    }
    for (const col of todo) {
      await this.pause();
      if (stale()) break;
      let raw: Vmapviz | null = null;
      const perOp: Counters[] = [];
      const cumulative = [zero()];
      const results: string[] = [];
      try {
        raw = Vmapviz.load(forProfile(trace, col.profile, eraOf(this.eras, col.profile)?.bumpOverlay === true));
        const session = new Session(raw);
        const len = raw.len();
        for (let a = 0; a < len; a += SLICE) {
          await this.pause();
          if (stale()) break;
          const b = Math.min(len, a + SLICE);
          // Session operation i is the main view's i - offset (the first is an added profile line).
          parseCounters(raw.counters(a, b)).perOp.forEach((op, j) => {
            if (a + j < this.offset) return;
            perOp.push(op);
            cumulative.push(add(cumulative[cumulative.length - 1], op));
          });
          for (const x of session.summaries(Math.max(a, this.offset), Math.max(b, this.offset))) results.push(opResult(x.output));
          col.status.textContent = `Replaying the trace under ${col.profile}… ${Math.round((100 * b) / Math.max(1, len))} %`;
        }
        if (stale()) {
          raw.free();
          break;
        }
        Object.assign(col, { raw, session, perOp, cumulative, results, error: null });
      } catch (e) {
        raw?.free();
        if (stale()) break;
        Object.assign(col, { raw: null, session: null, error: errorMessage(e) });
        col.root.dataset.error = 'true';
        col.status.textContent = `This trace does not replay under ${col.profile}: ${col.error}`;
        col.status.classList.add('error');
      }
      delete col.root.dataset.busy;
      this.built.set(col.profile, col);
      this.columnsChanged(false, false);
    }
    if (!stale()) delete this.root.dataset.building;
  }

  /** The columns, or what is ready of them, changed: the length, the counters' menu, the step. */
  private columnsChanged(first: boolean, newTrace: boolean): void {
    const ready = this.columns.filter((c) => c.session);
    this.length = Math.max(0, ...ready.map((c) => c.session!.length - this.offset));
    this.scrubber.max = String(this.length);
    // Counters the core sends beyond the known ones (maple-rfc's, say) can be drawn along the trace too.
    const have = new Set([...this.metricSel.options].map((o) => o.value));
    for (const k of counterKeys(ready.map((c) => c.cumulative[c.cumulative.length - 1]))) {
      if (!have.has(k)) this.metricSel.append(h('option', { value: k }, counterLabel(k)));
    }
    // Not following the main view: a new trace shows its end, a view at the end stays there, and
    // one more profile keeps the step shown.
    const want = this.follow.checked ? this.app.currentStep() : newTrace || this.atEnd ? this.length : this.step;
    const frame = this.follow.checked ? (this.app.currentFrame?.() ?? -1) : this.frame;
    this.step = -1;
    this.frame = -1;
    this.show(want, first ? -1 : frame);
  }

  /** Go to step `k` (between operations). */
  go(k: number): void {
    this.show(k, -1);
  }

  /**
   * Show step `k` (frame -1), or lock-step frame `f` of operation `k` (the operation from step
   * k to k + 1): every column its own frame `min(f, n - 1)`, narrated, its search in its tree.
   */
  private show(k: number, f: number, force = false): void {
    const step = Math.max(0, Math.min(this.length, Math.trunc(k)));
    const total = step < this.length && f >= 0 ? this.count(step) : 0;
    const frame = total > 0 ? Math.min(Math.trunc(f), total - 1) : -1;
    const opChanged = step !== this.step;
    this.step = step;
    this.atEnd = step === this.length;
    this.frame = frame;
    this.root.dataset.step = String(step);
    this.root.dataset.frame = String(frame);
    this.root.dataset.frames = String(total);
    this.label.textContent =
      frame >= 0 ? `step ${grouped(step)} / ${grouped(this.length)} · op ${grouped(step + 1)}, micro-step ${frame + 1}/${total}` : `step ${grouped(step)} / ${grouped(this.length)}`;
    this.scrubber.value = String(step);
    for (const c of this.columns) {
      if (!c.session) continue;
      // A column already showing this position (one more column came, say) is left as it is.
      const tag = `${step}:${frame}`;
      if (c.shown === tag && !force) continue;
      c.shown = tag;
      const k = Math.min(step + this.offset, c.session.length);
      const of = frame >= 0 ? this.opFrames(c, step) : null;
      const n = of?.frames.length ?? 0;
      const cf = columnFrame(frame, n);
      let st: State;
      c.root.dataset.frame = String(cf.index);
      c.root.dataset.frames = String(n);
      c.root.dataset.held = String(frame >= 0 && cf.held);
      c.counter.textContent = frame >= 0 ? frameLabel(frame, n) : '';
      c.counter.hidden = frame < 0;
      if (of && cf.index >= 0) {
        const v = frameView(of, cf.index);
        st = v.state;
        const fr = of.frames[cf.index];
        c.views.render(st, { free: v.free, ...(v.maple ? { maple: v.maple } : {}), key: `${this.builds}:${k}:t${fr.tree}:a${fr.areas}` });
        const note = holdNote(frame, n);
        c.narration.replaceChildren(
          ...(v.narration ? [h('b', {}, v.narration.title), ' ', v.narration.text] : [v.event]),
          ...(note ? [' ', h('span', { class: 'wb-col-held' }, `(${note})`)] : []),
        );
        c.narration.dataset.kind = v.narration?.kind ?? '';
        c.narration.dataset.event = v.event;
        c.root.dataset.focusNode = v.node === null ? '' : String(v.node);
        c.status.textContent = `op ${grouped(step + 1)}: ${of.text}`;
      } else {
        st = of ? of.before : c.session.state(k);
        c.views.render(st);
        c.narration.textContent = frame >= 0 ? holdNote(frame, n) : '';
        c.narration.dataset.kind = '';
        c.narration.dataset.event = '';
        c.root.dataset.focusNode = '';
        const last = step > 0 ? c.session.summaries(k - 1, k)[0] : null;
        c.status.textContent = of ? `op ${grouped(step + 1)}: ${of.text}` : last ? `${last.text} → ${last.output.trim().split('\n')[0] || 'done'}` : 'the initial state';
      }
      // The answer of the last operation done (the one that ended at step k).
      const done = step > 0 ? c.session.summaries(k - 1, k)[0] : null;
      c.status.dataset.output = done?.output.trim().split('\n')[0] ?? '';
      c.narration.hidden = frame < 0;
      c.root.dataset.freeBlocks = String(freeNodes(st.index).length);
      c.root.dataset.tree = st.index.kind === 'maple' ? 'maple' : 'free';
    }
    // The counters are per operation: drawn again only when the operation they name changes. At a
    // micro-step the columns play op step + 1, so the table names that one (not the one before).
    const tableStep = frame >= 0 ? Math.min(this.length, step + 1) : step;
    if (opChanged || tableStep !== this.tableStep) {
      this.tableStep = tableStep;
      this.renderTable();
      this.drawSeries();
    }
  }

  private renderTable(): void {
    const cols = this.columns.filter((c) => c.session);
    // The operations done at the end of what the columns show: op k is the one named.
    const k = this.tableStep;
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
    // Why this operation's answers differ, where each column's own events tell it.
    const why = differs
      ? h(
          'tr',
          { 'data-row': 'why', class: 'wb-differs' },
          h('th', { scope: 'row' }, 'why, by its events'),
          ...cols.map((c) => {
            const kk = Math.min(k + this.offset, c.session!.length);
            const reasons = whyOf(c.session!.frames(kk - 1)?.frames.map((f) => f.event) ?? []);
            const earlier = diff.some((d) => d < k);
            const text = reasons.length ? reasons.join('; ') : earlier ? 'its search (the state before it differs too)' : 'its search';
            return h('td', { colspan: 2, class: 'wb-left', 'data-profile': c.profile, 'data-kind': 'why' }, text);
          }),
        )
      : null;
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
    this.table.replaceChildren(head, h('tbody', {}, ...rows, height, bytes, result, ...(why ? [why] : []), summary));
  }

  private drawSeries(): void {
    const m = this.metricSel.value;
    const cumulative = this.cumulativeBox.checked;
    // The same series as drawn last (only the step moved): move the marker, draw nothing else.
    const key = [this.builds, this.chartWidth, m, cumulative, ...this.columns.filter((c) => c.session).map((c) => c.profile)].join('|');
    if (key === this.seriesKey && moveMarker(this.chart, this.tableStep > 0 ? this.tableStep : null)) return;
    this.seriesKey = key;
    const series: Series[] = this.columns
      .filter((c) => c.session)
      .map((c) => {
        const st = profileStyle(this.eras, c.profile);
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
      marker: this.tableStep > 0 ? this.tableStep : null,
      height: 260,
      width: Math.max(420, Math.min(1100, this.chartWidth || 800)),
    });
  }
}
