// What every workbench panel shares: the app's public API, a mirror session of the app's trace
// (the app does not expose its state, so the panels replay the same trace on their own session
// to read the state at the app's step), the worker pool, and the ways to open a trace.
import { errorMessage, Session, type OpFrames, type State } from '../bridge';
import { Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';

/** The public API of web/src/app.ts the panels use. */
export interface AppApi {
  loadTrace(text: string, step?: number | 'end'): void;
  currentTrace(): string;
  currentStep(): number;
  onChange(cb: () => void): void;
  /** Open what a location hash names (the app's own handler of `#trace=`). */
  openHash?(hash: string): void;
  /** The app's session, when it exposes it: only its identity and length are used, to skip re-reading the trace. */
  readonly core?: { readonly length: number } | null;
}

/** A session replaying the app's current trace, reloaded only when the trace text changes. */
export class Mirror {
  private text: string | null = null;
  private s: Session | null = null;
  private error: string | null = null;
  /** The app's session object and its length when the trace was last read (see `AppApi.core`). */
  private seen: { core: object; length: number; step: number } | null = null;
  private cached: { step: number; state: State } | null = null;
  /** Bumped whenever the mirrored trace changes. */
  version = 0;

  constructor(private readonly app: AppApi) {}

  /** The session of the app's trace (null if it does not replay, which the app would not show). */
  session(): Session | null {
    // Reading the trace text costs a formatting of every operation: skip it while the app's own
    // session is the same object, with the same length, at the same step (its player calls back
    // on every micro-step).
    const core = this.app.core ?? null;
    const step = this.app.currentStep();
    const seen = this.seen;
    if (core && seen && seen.core === core && seen.length === core.length && seen.step === step && this.text !== null) return this.s;
    const t = this.app.currentTrace();
    this.seen = core ? { core, length: core.length, step } : null;
    if (t !== this.text) {
      this.version++;
      this.cached = null;
      this.s?.dispose();
      this.s = null;
      this.text = t;
      try {
        this.s = new Session(Vmapviz.load(t));
        this.error = null;
      } catch (e) {
        this.error = errorMessage(e);
      }
    }
    return this.s;
  }

  /** The state the app shows (cached per step). */
  state(): State | null {
    const s = this.session();
    if (!s) return null;
    const step = this.app.currentStep();
    if (this.cached?.step !== step) this.cached = { step, state: s.state(step) };
    return this.cached.state;
  }

  /**
   * The micro-steps of the latest operation up to the app's step for which `keep` holds, looking
   * back at most `back` operations; with how many operations ago it was.
   */
  lastFrames(keep: (f: OpFrames) => boolean, back = 24): { frames: OpFrames; ago: number } | null {
    const s = this.session();
    const k = this.app.currentStep();
    if (!s) return null;
    for (let i = k - 1; i >= 0 && i >= k - back; i--) {
      const f = s.frames(i);
      if (f && keep(f)) return { frames: f, ago: k - 1 - i };
    }
    return null;
  }

  get lastError(): string | null {
    return this.error;
  }

  /**
   * Append one line at the end of the app's trace and show the end. Returns an error message
   * (nothing changes), or null.
   */
  append(line: string): string | null {
    const s = this.session();
    if (!s) return this.error ?? 'no trace is open';
    try {
      s.push(line);
    } catch (e) {
      return errorMessage(e);
    }
    const text = s.traceText();
    this.text = text;
    this.version++;
    this.cached = null;
    try {
      this.app.loadTrace(text, 'end');
    } catch (e) {
      this.text = null;
      return errorMessage(e);
    }
    return null;
  }
}
