// The page's side of the replay worker: typed calls with promises, progress callbacks, and
// cancellation by terminating the worker (a replay in progress cannot be interrupted otherwise,
// and a terminated worker frees its whole wasm memory at once).
import { parseFrames, parseStateValue, parseSummaries, type OpFrames, type OpSummary, type State } from '../bridge';
import type { Envelope, Opened, Reply, Request, Source, Thinned } from './protocol';

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  progress?: (done: number, total: number) => void;
}

/** Default number of operations replayed between two progress messages. */
export const CHUNK = 25_000;

export class ReplayWorker {
  private readonly w: Worker;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private dead = false;

  constructor() {
    this.w = new Worker(new URL('./replay.worker.ts', import.meta.url), { type: 'module', name: 'vmapviz-replay' });
    this.w.onmessage = (e: MessageEvent<Reply>) => {
      const r = e.data;
      const p = this.pending.get(r.id);
      if (!p) return;
      if (r.type === 'progress') p.progress?.(r.done, r.total);
      else {
        this.pending.delete(r.id);
        if (r.type === 'ok') p.resolve(r.value);
        else p.reject(new Error(r.message));
      }
    };
    this.w.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`the replay worker failed: ${e.message || 'out of memory?'}`));
    };
  }

  call<T>(req: Request, progress?: (done: number, total: number) => void, transfer: Transferable[] = []): Promise<T> {
    if (this.dead) return Promise.reject(new Cancelled());
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress });
      this.w.postMessage({ id, req } satisfies Envelope, transfer);
    });
  }

  /** Open a trace; `largeOps` decides whether the session stays here (more operations) or the text comes back. */
  open(source: Source, largeOps: number, progress?: (done: number, total: number) => void, chunk = CHUNK): Promise<Opened> {
    // A file's bytes move to the worker (no copy of tens of MiB on the page's thread).
    const bytes = source.kind === 'import' || source.kind === 'link' ? source.bytes : undefined;
    const transfer = source.kind === 'capture' ? source.parts.map((p) => p.bytes.buffer as ArrayBuffer) : bytes ? [bytes.buffer as ArrayBuffer] : [];
    return this.call<Opened>({ type: 'open', source, largeOps, chunk }, progress, transfer);
  }

  warm(): Promise<void> {
    return this.call<void>({ type: 'warm' });
  }

  /** Stop whatever runs (pending calls reject with `Cancelled`) and free the worker. */
  terminate(): void {
    if (this.dead) return;
    this.w.terminate();
    this.fail(new Cancelled());
  }

  private fail(e: Error): void {
    this.dead = true;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  get alive(): boolean {
    return !this.dead;
  }
}

/** A large trace whose session lives in a worker: the questions a navigator asks, asynchronously. */
export class RemoteSession {
  constructor(
    readonly worker: ReplayWorker,
    readonly length: number,
  ) {}

  /** The state before op `k`; `thinned` when the worker merged its areas to send it. */
  async state(k: number): Promise<State & { thinned?: Thinned }> {
    const raw = JSON.parse(await this.worker.call<string>({ type: 'state', k: this.clamp(k) })) as { thinned?: Thinned };
    const state = parseStateValue(raw);
    return raw.thinned ? { ...state, thinned: raw.thinned } : state;
  }

  async frames(k: number): Promise<OpFrames | null> {
    return parseFrames(await this.worker.call<string>({ type: 'frames', k }));
  }

  async summaries(from: number, to: number): Promise<OpSummary[]> {
    return parseSummaries(await this.worker.call<string>({ type: 'summaries', from, to }));
  }

  traceText(): Promise<string> {
    return this.worker.call<string>({ type: 'trace_text' });
  }

  /** JSON `Fragmentation` of the state before op `k`. */
  fragmentation(k: number): Promise<string> {
    return this.worker.call<string>({ type: 'fragmentation', k: this.clamp(k) });
  }

  /** JSON `FragSeries`: the states `from`, each multiple of `every` after it, and `to`. */
  fragSeries(from: number, to: number, every: number): Promise<string> {
    return this.worker.call<string>({ type: 'frag_series', from: this.clamp(from), to: this.clamp(to), every: Math.max(1, Math.trunc(every)) });
  }

  traceJson(): Promise<string> {
    return this.worker.call<string>({ type: 'trace_json' });
  }

  clamp(k: number): number {
    return Math.max(0, Math.min(this.length, Math.trunc(k)));
  }

  dispose(): void {
    this.worker.terminate();
  }
}

/**
 * One warmed worker kept ready, so a load starts at once (its wasm instance is made while the
 * page is idle).
 */
export class WorkerPool {
  private spare: ReplayWorker | null = null;

  /** Take the spare worker (or a new one); a new spare is prepared later. */
  take(): ReplayWorker {
    const w = this.spare && this.spare.alive ? this.spare : new ReplayWorker();
    this.spare = null;
    return w;
  }

  /** Prepare a spare worker when the page is idle. */
  prepare(): void {
    if (this.spare?.alive) return;
    const idle = (cb: () => void) =>
      'requestIdleCallback' in globalThis ? requestIdleCallback(cb, { timeout: 2000 }) : setTimeout(cb, 300);
    idle(() => {
      if (this.spare?.alive) return;
      this.spare = new ReplayWorker();
      this.spare.warm().catch(() => undefined);
    });
  }
}
