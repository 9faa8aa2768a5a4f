// The large-trace navigator: a trace of more than LARGE_OPS operations is replayed in a Web
// Worker (events off, checkpoints every few thousand operations) and stays there; this panel
// asks the worker for the state at any step, the summaries around it and the micro-steps of one
// operation, and draws them with its own bar and tree. The main views keep their trace.
import { freeNodes, type OpSummary, type State } from '../bridge';
import { summarizeOutput } from '../views/player';
import type { RemoteSession } from '../workers/client';
import { THIN_MAX, type Thinned } from '../workers/protocol';
import { button, download, grouped, h, seconds } from './dom';
import { MiniViews } from './views';

const WINDOW_BEFORE = 6;
const WINDOW_AFTER = 8;

export interface LargeInfo {
  what: string;
  total: number;
  parseMs: number;
  replayMs: number;
  /** Wall time from the click to the first drawn state. */
  wallMs?: number;
}

export interface LargeOptions {
  /** Start the demo: replay a 10^6-operation workload. */
  demo: () => void;
}

export class LargeTracePanel {
  readonly root: HTMLElement;
  private session: RemoteSession | null = null;
  private info: LargeInfo | null = null;
  private step = 0;
  private readonly head: HTMLElement;
  private readonly nav: HTMLElement;
  private readonly label: HTMLElement;
  private readonly scrubber: HTMLInputElement;
  private readonly goto: HTMLInputElement;
  private readonly stats: HTMLElement;
  private readonly ops: HTMLOListElement;
  private readonly caption: HTMLElement;
  private readonly views: MiniViews;
  private readonly empty: HTMLElement;
  private readonly play: HTMLButtonElement;
  /** The step wanted while a request is in flight (the latest wins). */
  private wanted: number | null = null;
  private inFlight = false;
  private playing = 0;
  private readonly stepped: (() => void)[] = [];

  constructor(opts: LargeOptions) {
    const demo = button('Replay 10⁶ operations', 'demo', 'fix_size_alloc_test with 500,000 loops: 1,000,001 operations');
    demo.classList.add('primary');
    demo.addEventListener('click', () => opts.demo());
    this.empty = h(
      'div',
      { class: 'wb-empty' },
      h(
        'p',
        {},
        'Traces of more than 20,000 operations are replayed here, in a Web Worker with events off: the page stays responsive, a progress bar shows the replay, and it can be cancelled. Then jump to any step; the worker rebuilds it from the nearest checkpoint, and an operation can be played micro-step by micro-step.',
      ),
      demo,
    );
    this.head = h('p', { class: 'wb-large-head', 'data-testid': 'large-head' });
    this.label = h('span', { class: 'step-label', 'data-testid': 'large-step' });
    this.scrubber = h('input', { type: 'range', min: 0, class: 'scrubber', 'aria-label': 'Large trace: step', 'data-testid': 'large-scrubber' });
    this.scrubber.addEventListener('input', () => this.go(Number(this.scrubber.value)));
    this.goto = h('input', { type: 'number', min: 0, class: 'wb-input wb-goto', 'aria-label': 'Go to step', 'data-testid': 'large-goto' });
    const gotoForm = h('form', { class: 'wb-inline' }, h('label', { class: 'wb-inline-field' }, 'Go to step ', this.goto), button('Go', 'goto'));
    (gotoForm.lastElementChild as HTMLButtonElement).type = 'submit';
    gotoForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.go(Number(this.goto.value));
    });
    const b = (text: string, action: string, title: string, f: () => void) => {
      const x = button(text, action, title);
      x.addEventListener('click', f);
      return x;
    };
    this.play = b('▶ Play the next operation', 'play-op', 'Animate the micro-steps of the next operation, then stand after it', () => void this.playNext());
    const exportText = b('Export text', 'large-export-trace', 'Download this large trace as text', () => void this.export('text'));
    const exportJson = b('Export JSON', 'large-export-json', 'Download this large trace in its JSON form', () => void this.export('json'));
    const controls = h(
      'div',
      { class: 'wb-large-controls' },
      b('«', 'first', 'Go to the start', () => this.go(0)),
      b('◀', 'prev', 'Step back one operation', () => this.go(this.step - 1)),
      this.label,
      b('▶', 'next', 'Step forward one operation', () => this.go(this.step + 1)),
      b('»', 'last', 'Go to the end', () => this.go(this.info?.total ?? 0)),
      this.scrubber,
      gotoForm,
      exportText,
      exportJson,
    );
    this.stats = h('p', { class: 'wb-large-stats', 'data-testid': 'large-stats' });
    this.ops = h('ol', { class: 'ops wb-large-ops', 'aria-label': 'Operations around the step', 'data-testid': 'large-ops' });
    this.ops.addEventListener('click', (e) => {
      const li = (e.target as HTMLElement).closest<HTMLLIElement>('li[data-index]');
      if (li) this.go(Number(li.dataset.index) + 1);
    });
    this.caption = h('p', { class: 'wb-caption', 'aria-live': 'polite', 'data-testid': 'large-caption' });
    const barRoot = h('div', { class: 'space-bar-root', 'data-widget': 'large-space-bar' });
    const treeRoot = h('div', { class: 'free-tree-root wb-tree', 'data-widget': 'large-free-tree' });
    this.views = new MiniViews(barRoot, treeRoot);
    this.nav = h(
      'div',
      { class: 'wb-large-nav', 'data-testid': 'large-nav' },
      this.head,
      controls,
      this.stats,
      barRoot,
      h('div', { class: 'wb-large-cols' }, h('div', { class: 'wb-large-tree' }, treeRoot), h('div', { class: 'wb-large-side' }, this.play, this.caption, this.ops)),
    );
    this.nav.hidden = true;
    this.root = h('div', { class: 'wb-large', 'data-widget': 'large-trace', tabindex: -1 }, this.empty, this.nav);
    this.root.addEventListener('keydown', (e) => {
      if (!this.session || (e.target as HTMLElement).closest('input, textarea, select')) return;
      const k = e.key;
      if (k === 'ArrowLeft') this.go(this.step - 1);
      else if (k === 'ArrowRight') this.go(this.step + 1);
      else if (k === 'Home') this.go(0);
      else if (k === 'End') this.go(this.info?.total ?? 0);
      else return;
      e.preventDefault();
    });
  }

  showError(msg: string): void {
    this.empty.querySelector('.wb-error')?.remove();
    this.empty.append(h('p', { class: 'wb-error', role: 'alert' }, msg));
  }

  get open(): boolean {
    return this.session !== null;
  }

  get remote(): RemoteSession | null {
    return this.session;
  }

  /** The step drawn (the state after that many operations). */
  get current(): number {
    return Math.max(0, this.step);
  }

  /** Called when the step drawn, or the trace, changes. */
  onStep(cb: () => void): void {
    this.stepped.push(cb);
  }

  /** Show a replayed large trace at `step` (default: its end); the previous one's worker is freed. */
  async show(session: RemoteSession, info: LargeInfo, step = info.total): Promise<void> {
    this.session?.dispose();
    this.session = session;
    this.info = info;
    this.empty.hidden = true;
    this.nav.hidden = false;
    this.scrubber.max = String(info.total);
    this.goto.max = String(info.total);
    this.step = -1;
    this.root.dataset.total = String(info.total);
    this.describe();
    await this.draw(session.clamp(step));
  }

  /** Record the wall time the page measured (shown in the header, read by the benchmark). */
  setWall(ms: number): void {
    if (!this.info) return;
    this.info.wallMs = ms;
    this.root.dataset.wallMs = String(Math.round(ms));
    this.describe();
  }

  private describe(): void {
    const i = this.info;
    if (!i) return;
    this.root.dataset.replayMs = String(Math.round(i.replayMs));
    this.root.dataset.parseMs = String(Math.round(i.parseMs));
    this.head.replaceChildren(
      h('strong', {}, i.what),
      `: ${grouped(i.total)} operations, replayed in the worker in ${seconds(i.parseMs + i.replayMs)} (reading ${seconds(i.parseMs)}, replay ${seconds(i.replayMs)}${i.wallMs !== undefined ? `; ${seconds(i.wallMs)} from the click to this view` : ''}). Events were off; any step is rebuilt from the nearest checkpoint.`,
    );
  }

  close(): void {
    this.session?.dispose();
    this.session = null;
    this.info = null;
    this.nav.hidden = true;
    this.empty.hidden = false;
    for (const cb of this.stepped) cb();
  }

  go(k: number): void {
    if (!this.session) return;
    const step = this.session.clamp(k);
    if (step === this.step && !this.inFlight) return;
    this.playing++;
    this.wanted = step;
    if (!this.inFlight) void this.pump();
  }

  private async pump(): Promise<void> {
    while (this.wanted !== null) {
      const k = this.wanted;
      this.wanted = null;
      this.inFlight = true;
      try {
        await this.draw(k);
      } catch (e) {
        this.caption.textContent = e instanceof Error ? e.message : String(e);
      } finally {
        this.inFlight = false;
      }
    }
  }

  private async draw(k: number): Promise<void> {
    const s = this.session;
    if (!s) return;
    const from = Math.max(0, k - WINDOW_BEFORE);
    const to = Math.min(s.length, k + WINDOW_AFTER);
    const [state, ops] = await Promise.all([s.state(k), s.summaries(from, to)]);
    if (s !== this.session) return;
    this.step = k;
    this.root.dataset.step = String(k);
    this.label.textContent = `step ${grouped(k)} / ${grouped(s.length)}`;
    this.scrubber.value = String(k);
    if (document.activeElement !== this.goto) this.goto.value = String(k);
    this.renderStats(state);
    this.renderOps(ops, k);
    this.views.render(state);
    for (const cb of this.stepped) cb();
    const t = state.thinned;
    // Too many areas to animate an operation on them (its frames carry whole states).
    this.play.disabled = !!t;
    this.root.dataset.thinned = t ? 'true' : 'false';
    this.caption.textContent = t ? thinNote(t) : k > 0 ? '' : 'The initial state, before the first operation.';
  }

  private renderStats(state: State & { thinned?: Thinned }): void {
    const t = state.thinned;
    const lazyBusy = t ? 0 : state.busy.filter((b) => b.lazy).length;
    const lazy = t ? t.lazy : lazyBusy + state.lazy.length;
    const busy = t ? t.busy : state.busy.length - lazyBusy;
    const free = t ? t.free : freeNodes(state.index).length;
    this.stats.textContent = `${state.profile} · ${state.cpus} CPU${state.cpus === 1 ? '' : 's'} · ${grouped(free)} free blocks · ${grouped(busy)} busy${t ? ' (with the lazy ones)' : ''} · ${grouped(lazy)} lazy · lazy pages ${grouped(state.lazyNr)} / ${grouped(state.lazyMax)}`;
  }

  private renderOps(ops: OpSummary[], k: number): void {
    this.ops.replaceChildren(
      ...ops.map((op) => {
        const li = h('li', { class: 'op', 'data-index': op.index, title: `line ${op.line}` });
        li.classList.toggle('done', op.index < k);
        li.classList.toggle('current', op.index === k - 1);
        li.append(h('span', { class: 'idx' }, grouped(op.index + 1)), h('code', { class: 'text' }, op.text));
        const out = summarizeOutput(op.output);
        if (out) li.append(h('span', { class: 'out' }, out));
        if (op.warning) li.append(h('span', { class: 'warning' }, `⚠ ${op.warning}`));
        return li;
      }),
    );
  }

  private async export(kind: 'text' | 'json'): Promise<void> {
    const s = this.session;
    if (!s) return;
    if (kind === 'text') download('vmapviz-large.trace', await s.traceText());
    else download('vmapviz-large.json', await s.traceJson(), 'application/json');
  }

  /** Animate the micro-steps of operation `step` on the tree, then stand after it. */
  private async playNext(): Promise<void> {
    const s = this.session;
    if (!s || this.step >= s.length) return;
    const k = this.step;
    const token = ++this.playing;
    const f = await s.frames(k);
    if (!f || token !== this.playing) return;
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    const pause = reduced ? 0 : 420;
    this.root.dataset.playing = 'true';
    for (let i = 0; i < f.frames.length; i++) {
      if (token !== this.playing) return;
      const fr = f.frames[i];
      this.caption.textContent = `${f.text} · micro-step ${i + 1} / ${f.frames.length}: ${describeEvent(fr.event)}`;
      this.views.renderTree(freeNodes(f.trees[fr.tree] ?? f.before.index), true, reduced ? 0 : 250);
      if (pause) await new Promise((r) => setTimeout(r, pause));
    }
    delete this.root.dataset.playing;
    if (token !== this.playing) return;
    await this.draw(k + 1);
    this.caption.textContent = `${f.text} → ${summarizeOutput(f.output) || 'done'} (${f.frames.length} micro-steps)`;
  }
}

/** What the navigator drew of a thinned state (web/src/workers/thin.ts). */
function thinNote(t: Thinned): string {
  const tree = t.free > THIN_MAX ? ` The free tree's ${grouped(t.free)} nodes are too many to draw.` : '';
  return `${grouped(t.busy + t.lazy)} live areas, drawn as ${grouped(t.runs)} runs of neighbouring areas.${tree} Playing an operation's micro-steps is off at this size.`;
}

/** One line for a step event: its kind and the fields that matter. */
export function describeEvent(ev: { kind: string; [k: string]: unknown }): string {
  const skip = new Set(['kind']);
  const parts = Object.entries(ev)
    .filter(([k, v]) => !skip.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'))
    .slice(0, 4)
    .map(([k, v]) => `${k} ${String(v)}`);
  const kind = ev.kind.replace(/_/g, ' ');
  return parts.length ? `${kind} (${parts.join(', ')})` : kind;
}
