// The page: one session, the current step, and the widgets that draw it. Widgets only render
// what they are given; the app owns the session and the permalink.
import { errorMessage, type Session } from './bridge';
import { formatHash, parseHash, resolveStep, type StepRef } from './permalink';
import { DEFAULT_TRACE } from './scenario';
import { FreeTree } from './views/freeTree';
import { Player } from './views/player';
import { SpaceBar } from './views/spaceBar';
import { Stats } from './views/stats';

export interface AppDeps {
  /** Replay a trace (throws `line N: ...`). */
  load: (text: string) => Session;
}

function part<T extends HTMLElement>(root: HTMLElement, widget: string): T {
  const e = root.querySelector<T>(`[data-widget="${widget}"]`);
  if (!e) throw new Error(`the page has no [data-widget="${widget}"]`);
  return e;
}

export class App {
  private session: Session | null = null;
  private step = 0;
  private readonly stats: Stats;
  private readonly bar: SpaceBar;
  private readonly tree: FreeTree;
  private readonly player: Player;
  private readonly banner: HTMLElement;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly root: HTMLElement,
    private readonly deps: AppDeps,
  ) {
    const hover = (id: number | null) => {
      this.bar.highlight(id);
      this.tree.highlight(id);
    };
    this.stats = new Stats(part(root, 'stats'));
    this.bar = new SpaceBar(part(root, 'space-bar'), { onHover: hover });
    this.tree = new FreeTree(part(root, 'free-tree'), { onHover: hover });
    this.player = new Player(part(root, 'player'), {
      onStep: (k) => this.goTo(k),
      onPush: (line) => this.push(line),
    });
    this.banner = part(root, 'load-error');
    root.ownerDocument.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      if (this.player.key(e)) e.preventDefault();
    });
    this.mountPanels();
  }

  /** Panels of the workbench (web/src/panels/**), mounted through the public API below. */
  private mountPanels(): void {
    // panels:begin
    // panels:end
  }

  // ---------- public API (used by web/src/panels/**) ----------

  /**
   * Replace the session with a trace and show `step` (default: the end). Throws an Error
   * `line N: ...` when the trace is invalid, leaving the current session as it was.
   */
  loadTrace(text: string, step: number | 'end' = 'end'): void {
    const session = this.deps.load(text);
    this.open(session, step);
    this.showError([]);
    this.writeLink();
  }

  /** The current trace as text (the core's canonical form). */
  currentTrace(): string {
    return this.session?.traceText() ?? '';
  }

  /** The step shown: the number of operations applied (0..length). */
  currentStep(): number {
    return this.step;
  }

  /** Call `cb` whenever the session or the step shown changes. */
  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  private changed(): void {
    for (const cb of this.listeners) {
      try {
        cb();
      } catch (e) {
        console.error(e);
      }
    }
  }

  /** Open what the location hash names, or the default scenario (also after an error). */
  openHash(hash: string): void {
    const { link, error } = parseHash(hash);
    const problems: string[] = error ? [error] : [];
    if (link) {
      try {
        this.open(this.deps.load(link.trace), link.step);
        this.showError(problems);
        return;
      } catch (e) {
        problems.unshift(`Could not load the trace from the link: ${errorMessage(e)}`);
        problems.push('Showing the default scenario instead.');
      }
    }
    this.open(this.deps.load(DEFAULT_TRACE), 'end');
    this.showError(problems);
  }

  private open(session: Session, step: StepRef): void {
    this.session?.dispose();
    this.session = session;
    this.player.setOps(session.summaries());
    this.step = -1;
    this.goTo(resolveStep(step, session.length), false);
    this.tree.centerRoot();
  }

  /** Draw step k (the state after the first k operations). */
  goTo(k: number, updateLink = true): void {
    const s = this.session;
    if (!s) return;
    const step = s.clamp(k);
    const state = s.state(step);
    this.step = step;
    this.stats.render(state);
    this.bar.render(state);
    this.tree.render(state.free, state.initialized);
    this.player.setStep(step);
    this.root.dataset.step = String(step);
    if (updateLink) this.writeLink();
    this.changed();
  }

  private push(line: string): string | null {
    const s = this.session;
    if (!s) return 'the core is not loaded';
    try {
      s.push(line);
    } catch (e) {
      return errorMessage(e);
    }
    this.player.setOps(s.summaries());
    this.goTo(s.length);
    return null;
  }

  private writeLink(): void {
    const s = this.session;
    if (!s) return;
    const hash = formatHash({ trace: s.traceText(), step: this.step === s.length ? 'end' : this.step });
    history.replaceState(null, '', hash);
  }

  private showError(problems: string[]): void {
    this.banner.hidden = problems.length === 0;
    this.banner.textContent = problems.join('\n');
  }
}

function isTyping(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);
}
