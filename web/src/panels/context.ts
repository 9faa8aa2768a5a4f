// What every workbench panel shares: the app's public API, and a mirror of what it shows (its
// session, the state at its step) with the way to append to it.
import { errorMessage, type OpFrames, type Session, type State } from '../bridge';

/** The public API of web/src/app.ts the panels use. */
export interface AppApi {
  loadTrace(text: string, step?: number | 'end'): void;
  /**
   * Show a session opened elsewhere (a capture's operations, handed over by the worker as
   * bytes and stepped into a session of the workbench's core: no text in between).
   */
  openSession(session: Session, step?: number | 'end'): void;
  currentTrace(): string;
  /**
   * The current trace's lz-string form (a `#z=` link's body), compressed once per trace off the
   * main thread. Optional: without it, a panel compresses on the main thread.
   */
  zippedTrace?(): Promise<string>;
  currentStep(): number;
  onChange(cb: () => void): void;
  /** The micro-step shown inside operation `currentStep()` (-1 between operations). */
  currentFrame?(): number;
  /** In a lesson: the link to the picture shown (lesson, stop, micro-step); else null. */
  lessonHref?(): string | null;
  /** Called on every position change, micro-steps included. */
  onFrame?(cb: () => void): void;
  /** The app's session (read-only use: states and frames). */
  readonly core: Session | null;
  /** Bumped by the app whenever its session or its trace changes. */
  readonly sessionVersion: number;
}

/** The app's session and the state at its step, for the panels. */
export class Mirror {
  private seen = -1;
  private cached: { step: number; state: State } | null = null;
  /** Frames asked for by `lastFrames`, for this version of the trace (stepping asks again). */
  private frames = new Map<number, OpFrames | null>();
  /** Bumped whenever the app's trace changes. */
  version = 0;

  constructor(private readonly app: AppApi) {}

  /** The app's session (null before one is open). */
  session(): Session | null {
    if (this.app.sessionVersion !== this.seen) {
      this.seen = this.app.sessionVersion;
      this.version++;
      this.cached = null;
      this.frames.clear();
    }
    return this.app.core;
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
      let f = this.frames.get(i);
      if (f === undefined) {
        if (this.frames.size >= 256) this.frames.clear();
        f = s.frames(i);
        this.frames.set(i, f);
      }
      if (f && keep(f)) return { frames: f, ago: k - 1 - i };
    }
    return null;
  }

  /**
   * Append one line at the end of the app's trace and show the end. Returns an error message
   * (nothing changes), or null.
   */
  append(line: string): string | null {
    const text = this.app.currentTrace();
    try {
      this.app.loadTrace(`${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`, 'end');
    } catch (e) {
      return errorMessage(e);
    }
    return null;
  }
}
