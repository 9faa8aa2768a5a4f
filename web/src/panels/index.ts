// The workbench: the panels of issues 5, 6 and 7 under the main views, mounted by the page
// (web/src/page/panelHost.ts) with the narrow `AppApi` object it builds. A status strip
// (lazy-freeing gauge, CPUs, current CPU) above tabs: workloads, import and export, vmap
// nodes and pools, compare, charts, and the large-trace navigator. Every trace that comes from
// outside (a generated workload, an import) is read and replayed in a Web Worker first: a bad
// one never reaches the app, a large one stays in the worker.
import './panels.css';
import { Cancelled, RemoteSession, ReplayWorker, WorkerPool } from '../workers/client';
import type { Source } from '../workers/protocol';
import { ChartsPanel } from './chartsPanel';
import { ComparePanel } from './compare';
import { Mirror, type AppApi } from './context';
import { button, grouped, h, seconds } from './dom';
import { parseReport } from './api';
import type { FragPanel, LargeShown, NamedFile } from './frag/fragPanel';
import { ImportExportPanel, type ImportOutcome } from './importExport';
import { LargeTracePanel } from './large';
import { LARGE_OPS } from './limits';
import { NodesPanel, touchesPools } from './nodes';
import { StatusStrip } from './statusStrip';
import { StructPanel } from './structPanel';
import { WorkloadsPanel } from './workloads';
import { eraOf, parseEras } from '../eras';
import init, { eras as coreEras, Loader } from '../pkg-workbench/vmapviz_wasm.js';
import { Session } from '../bridge';
import { coreFor } from '../wasm';
import type { Handover } from './stub';
import { savedTab, TAB_KEY, TABS, WORKBENCH_NOTE, type TabId } from './tabs';

/** The progress of a worker job: a bar, a line of text and Cancel. */
class JobBar {
  readonly root: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly text: HTMLElement;
  private readonly cancel: HTMLButtonElement;
  private onCancel: (() => void) | null = null;
  private t0 = 0;
  private what = '';
  private timer = 0;

  constructor() {
    this.bar = h('progress', { class: 'wb-progress', max: 1, 'aria-label': 'Replay progress', 'data-testid': 'job-progress' });
    this.text = h('span', { class: 'wb-job-text', 'data-testid': 'job-text' });
    this.cancel = button('Cancel', 'cancel-job', 'Stop the replay; nothing changes');
    this.cancel.addEventListener('click', () => this.onCancel?.());
    this.root = h('div', { class: 'wb-job', role: 'status', 'data-testid': 'job' }, this.bar, this.text, this.cancel);
    this.root.hidden = true;
  }

  start(what: string, cancel: () => void): void {
    this.what = what;
    this.onCancel = cancel;
    this.t0 = performance.now();
    this.bar.removeAttribute('value');
    this.text.textContent = `Reading ${what}…`;
    this.root.dataset.state = 'running';
    clearTimeout(this.timer);
    // Quick jobs never show the bar (no flicker).
    this.timer = window.setTimeout(() => (this.root.hidden = false), 120);
  }

  progress(done: number, total: number): void {
    this.bar.max = Math.max(1, total);
    this.bar.value = done;
    this.root.dataset.done = String(done);
    this.root.dataset.total = String(total);
    this.text.textContent = `Replaying ${this.what}: ${grouped(done)} / ${grouped(total)} operations · ${seconds(performance.now() - this.t0)}`;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.root.hidden = true;
    this.root.dataset.state = 'idle';
    this.onCancel = null;
  }
}

export interface Workbench {
  /** Import or generate and open (what the panels use; exposed for tools and tests). */
  open(source: Source, what: string, t0?: number): Promise<ImportOutcome>;
  /**
   * A link's trace of more than LARGE_OPS operations (web/src/player/bigLink.ts): replayed in a
   * worker and shown in the navigator at `step`; `signal` cancels (rejects with `Cancelled`).
   * `text`: the worker found it short after all; the player opens it.
   */
  openLink(source: Source, step: number | 'end', progress: (done: number, total: number) => void, signal: AbortSignal): Promise<LinkOpened>;
  /** The callers of the areas shown, from /proc/vmallocinfo reads (live mode: the before file, the latest read). */
  setCallers(files: NamedFile[]): Promise<void>;
}

export interface LinkOpened {
  total: number;
  step: number;
  text: string | null;
}

/**
 * The /proc/vmallocinfo files an opened input carries callers in: a vmallocinfo import, or a
 * capture bundle's before and after files.
 */
function callerFiles(source: Source | null, report: string | null, what: string): NamedFile[] {
  if (source?.kind === 'capture') return source.parts;
  if (source?.kind !== 'import' || !report) return [];
  try {
    if (parseReport(report).format !== 'vmallocinfo') return [];
  } catch {
    return [];
  }
  const bytes = source.bytes ?? (source.text !== undefined ? new TextEncoder().encode(source.text) : null);
  return bytes ? [{ name: what, bytes }] : [];
}

/** A copy of what `callerFiles` may need of a source (a capture's vmallocinfo files, an import's bytes). */
function keepFiles(source: Source): Source | null {
  if (source.kind === 'capture')
    return { ...source, parts: source.parts.filter((p) => /^vmallocinfo\.(before|after)(\.gz)?$/.test(p.name)).map((p) => ({ name: p.name, bytes: p.bytes.slice() })) };
  if (source.kind === 'import') return { ...source, bytes: source.bytes?.slice() };
  return null;
}

/**
 * A session of the workbench's core from operations another instance handed over as bytes
 * (`Loader.ops()`); throws `operation N (byte B): ...` on damaged bytes, and `line N: ...` on
 * an operation the model refuses (operation N is line N of the trace it prints).
 */
export function sessionOf(ops: Uint8Array): Session {
  const l = Loader.from_bytes(ops);
  try {
    l.advance(l.total());
    return new Session(l.finish());
  } finally {
    l.free();
  }
}

/** The workbench's wasm build (web/src/pkg-workbench), initialised once. */
let core: Promise<unknown> | null = null;

/**
 * Mount the workbench in the app's `[data-widget="workbench"]` host, replacing its shell
 * (stub.ts), once its wasm build is ready; `hand` says which tab to show (else the last used).
 */
export async function mountWorkbench(app: AppApi, appRoot: HTMLElement, hand?: Handover): Promise<Workbench> {
  core ??= init();
  await core;
  // Every list of profiles, and each test of what an era has, reads the core's registry.
  const eras = parseEras(coreEras());
  let host = appRoot.querySelector<HTMLElement>('[data-widget="workbench"]');
  if (!host) {
    host = h('section', { class: 'panel workbench', 'data-widget': 'workbench' });
    const footer = appRoot.querySelector('.site-footer');
    if (footer) footer.before(host);
    else appRoot.append(host);
  }
  host.classList.add('workbench');

  const mirror = new Mirror(app);
  const pool = new WorkerPool();
  let compute: ReplayWorker | null = null;
  const computeWorker = () => {
    if (!compute?.alive) compute = new ReplayWorker();
    return compute;
  };
  const job = new JobBar();
  const strip = new StatusStrip(mirror, eras);

  let busy = false;
  /** The app's session version when the navigator opened its trace: the trace shown until the app's changes. */
  let largeOf = -1;
  const largeShown = (): LargeShown | null => {
    const r = large.remote;
    return r && app.sessionVersion === largeOf ? { session: r, step: large.current } : null;
  };
  const large = new LargeTracePanel({
    demo: () => {
      void open(
        { kind: 'workload', name: 'fix_size_alloc_test', params: JSON.stringify({ loops: 500_000, seed: 1, cpus: 1, profile: 'linux-5.2' }) },
        'fix_size_alloc_test × 500,000',
      ).catch((e: unknown) => large.showError(e instanceof Error ? e.message : String(e)));
    },
  });

  /** `step`: where a trace small enough for the main view opens (workloads: 0, the start). */
  async function open(source: Source, what: string, t0 = performance.now(), step: number | 'end' = 'end'): Promise<ImportOutcome> {
    if (busy) throw new Error('another trace is being opened; cancel it first');
    busy = true;
    const w = pool.take();
    job.start(what, () => w.terminate());
    host!.dataset.job = 'running';
    try {
      // The files that may carry callers, copied first: the worker takes the bytes sent to it.
      const kept = keepFiles(source);
      const o = await w.open(source, LARGE_OPS, (d, t) => job.progress(d, t));
      const callers = callerFiles(kept, o.report, what);
      if (callers.length) void frag().then((p) => p.setCallers(callers));
      if (o.kind === 'small') {
        w.terminate();
        // A capture's operations, stepped into a session of this build of the core (the
        // workbench's, loaded already): the capture's one replay into a session, with no text.
        if (o.ops) app.openSession(sessionOf(o.ops), step);
        else {
          const core = coreFor(o.text ?? '');
          if (core) await core;
          app.loadTrace(o.text ?? '', step);
        }
        return { summary: `${what}: ${grouped(o.total)} operation${o.total === 1 ? '' : 's'}, opened in the main view.`, report: o.report };
      }
      select('large');
      job.stop();
      largeOf = app.sessionVersion;
      await large.show(new RemoteSession(w, o.total), { what, total: o.total, parseMs: o.parseMs, replayMs: o.replayMs });
      large.setWall(performance.now() - t0);
      return {
        summary: `${what}: ${grouped(o.total)} operations, more than the main view shows (${grouped(LARGE_OPS)}): opened in the large-trace navigator.`,
        report: o.report,
      };
    } catch (e) {
      w.terminate();
      if (e instanceof Cancelled) throw new Error('cancelled: nothing changed.');
      throw e;
    } finally {
      job.stop();
      busy = false;
      host!.dataset.job = 'idle';
      pool.prepare();
    }
  }

  async function openLink(source: Source, step: number | 'end', progress: (done: number, total: number) => void, signal: AbortSignal): Promise<LinkOpened> {
    if (busy) throw new Error('the workbench is opening another trace; cancel it there first');
    busy = true;
    const t0 = performance.now();
    const w = pool.take();
    const stop = () => w.terminate();
    signal.addEventListener('abort', stop);
    host!.dataset.job = 'running';
    try {
      const o = await w.open(source, LARGE_OPS, progress);
      if (o.kind === 'small') {
        w.terminate();
        return { total: o.total, step: 0, text: o.text ?? '' };
      }
      select('large');
      const k = step === 'end' ? o.total : Math.min(o.total, step);
      largeOf = app.sessionVersion;
      await large.show(new RemoteSession(w, o.total), { what: "The link's trace", total: o.total, parseMs: o.parseMs, replayMs: o.replayMs }, k);
      large.setWall(performance.now() - t0);
      return { total: o.total, step: k, text: null };
    } catch (e) {
      w.terminate();
      throw e;
    } finally {
      signal.removeEventListener('abort', stop);
      busy = false;
      host!.dataset.job = 'idle';
      pool.prepare();
    }
  }

  // ---------- panels ----------
  const workloads = new WorkloadsPanel({
    run: async (req) => {
      // A generated trace opens at its start, ready to play.
      if (req.trace) {
        app.loadTrace(req.trace, req.step ?? 0);
        return `Opened “${req.title}” in the main view (${grouped(mirror.session()?.length ?? 0)} operations) at ${req.step ? `op ${req.step + 1}` : 'its start'}; play it with Space or step with →.`;
      }
      return (await open({ kind: 'workload', name: req.name, params: req.params ?? '{}' }, req.name, performance.now(), 0)).summary;
    },
  });
  const io = new ImportExportPanel({ app, open, eras });
  const nodes = new NodesPanel({ openScenario: (s) => app.loadTrace(s.trace, s.step), eras });
  const compare = new ComparePanel(app, eras);
  const charts = new ChartsPanel(computeWorker, eras);
  const structs = new StructPanel(app, eras);
  // The fragmentation instrument: its own chunk, loaded when its tab opens or callers arrive.
  const fragHost = h('div', { class: 'frag-host', 'data-widget': 'fragmentation-host' });
  let fragPanel: FragPanel | null = null;
  let fragLoading: Promise<FragPanel> | null = null;
  function frag(): Promise<FragPanel> {
    fragLoading ??= import('./frag/fragPanel').then((m) => {
      fragPanel = new m.FragPanel(app, mirror, largeShown);
      fragHost.replaceChildren(fragPanel.root);
      shown = '';
      refresh();
      return fragPanel;
    });
    return fragLoading;
  }

  const panels: Record<TabId, HTMLElement> = {
    workloads: workloads.root,
    io: io.root,
    nodes: nodes.root,
    compare: compare.root,
    charts: charts.root,
    frag: fragHost,
    struct: structs.root,
    large: large.root,
  };

  // ---------- tabs ----------
  const tablist = h('div', { class: 'wb-tabs', role: 'tablist', 'aria-label': 'Workbench' });
  const tabs = new Map<TabId, HTMLButtonElement>();
  const sections = new Map<TabId, HTMLElement>();
  for (const [id, title] of TABS) {
    const tab = h('button', { type: 'button', role: 'tab', class: 'wb-tab', id: `wb-tab-${id}`, 'aria-controls': `wb-panel-${id}`, 'data-tab': id }, title);
    tab.addEventListener('click', () => select(id));
    tabs.set(id, tab);
    tablist.append(tab);
    const sec = h('div', { role: 'tabpanel', class: 'wb-tabpanel', id: `wb-panel-${id}`, 'aria-labelledby': `wb-tab-${id}`, 'data-panel': id }, panels[id]);
    sections.set(id, sec);
  }
  tablist.addEventListener('keydown', (e) => {
    const ids = TABS.map(([id]) => id);
    const i = ids.indexOf(current);
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      const next = ids[(i + (e.key === 'ArrowRight' ? 1 : ids.length - 1)) % ids.length];
      select(next);
      tabs.get(next)?.focus();
    }
  });

  let current: TabId = 'workloads';
  function select(id: TabId): void {
    current = id;
    for (const [t, tab] of tabs) {
      const on = t === id;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      sections.get(t)!.hidden = !on;
    }
    host!.dataset.currentTab = id;
    try {
      localStorage.setItem(TAB_KEY, id);
    } catch {
      /* private mode */
    }
    compare.setVisible(id === 'compare');
    if (id === 'charts') void charts.show();
    if (id === 'frag' && !fragPanel) {
      fragHost.textContent = 'Loading the fragmentation instrument…';
      void frag();
    }
    refresh();
  }

  host.replaceChildren(
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'workbench-title' }, 'Workbench'),
      h('p', { class: 'panel-note' }, WORKBENCH_NOTE),
    ),
    strip.root,
    job.root,
    tablist,
    ...sections.values(),
  );
  host.setAttribute('aria-labelledby', 'workbench-title');

  // ---------- following the app ----------
  let shown = '';
  function refresh(): void {
    // The app calls back on every micro-step of its player: redraw only when the operation or
    // the trace changed (or the tab did).
    const state = mirror.state();
    const key = `${mirror.version}:${app.currentStep()}:${current}`;
    if (key === shown) return;
    shown = key;
    strip.render(state);
    if (current === 'nodes') {
      const last = eraOf(eras, state?.profile)?.vmapNodes ? mirror.lastFrames(touchesPools) : null;
      nodes.render(state ? { state, last: last?.frames ?? null, lastAgo: last?.ago } : null);
    }
    if (current === 'compare') compare.refresh();
    if (current === 'struct') structs.render(state?.memory, state?.profile ?? null);
    if (current === 'frag') fragPanel?.refresh();
  }
  app.onChange(refresh);
  large.onStep(() => {
    if (current === 'frag') fragPanel?.refresh();
  });

  select(hand?.tab ?? savedTab());
  if (hand?.focus) tabs.get(current)?.focus();

  pool.prepare();
  // For tools and tests: the instrument, loaded.
  (host as HTMLElement & { fragPanel?: () => Promise<FragPanel> }).fragPanel = frag;
  host.dataset.panelsReady = 'true';
  document.body.dataset.panelsReady = 'true';
  return { open, openLink, setCallers: (files) => frag().then((p) => p.setCallers(files)) };
}
