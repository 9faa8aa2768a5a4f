// Opening a long trace without freezing the page: the core parses and replays it a slice of
// lines at a time (`Loader` in the wasm facade), and this loop yields to the browser between
// slices, sizing each slice to stay inside a frame budget. It can be cancelled.
import type { Session } from '../bridge';

/** What the core's opener offers (web/src/wasm.ts wraps the facade's `Loader`). */
export interface Slices {
  /** Work through at most `n` lines: `[phase, done, total]`, phase 0 parse, 1 replay, 2 done. */
  advance(n: number): ArrayLike<number>;
  /** The session, once `advance` said done. */
  finish(): Session;
  /** Free the core's memory when abandoned. */
  free(): void;
}

export interface Progress {
  phase: 'parsing' | 'replaying';
  /** 0..1 of the phase. */
  fraction: number;
}

export class OpenCancelled extends Error {
  constructor() {
    super('opening cancelled');
  }
}

export interface SliceOptions {
  /** Milliseconds of core work per slice (default 8: half a 60 Hz frame). */
  budgetMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Yield to the browser (default: a macrotask); tests may pass their own. */
  yieldNow?: () => Promise<void>;
  now?: () => number;
}

/**
 * A macrotask through a MessageChannel: the browser may paint and handle input before it runs,
 * but unlike `setTimeout(0)` it is not clamped after a few nested calls nor throttled to one a
 * second when the browser deems the page in the background (seen as a 15 s opening under load).
 */
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
const waiting: (() => void)[] = [];
if (channel) channel.port1.onmessage = () => waiting.shift()?.();
export const yieldToPage = (): Promise<void> =>
  new Promise((res) => {
    if (!channel) {
      setTimeout(res, 0);
      return;
    }
    waiting.push(res);
    channel.port2.postMessage(null);
  });

/** Run `op` to the end in slices; resolves to the session, rejects with the core's error or `OpenCancelled`. */
export async function openInSlices(op: Slices, opts: SliceOptions = {}): Promise<Session> {
  const budget = opts.budgetMs ?? 8;
  const yieldNow = opts.yieldNow ?? yieldToPage;
  const now = opts.now ?? (() => performance.now());
  let n = 64;
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new OpenCancelled();
      const t0 = now();
      const [phase, done, total] = Array.from(op.advance(n));
      const took = now() - t0;
      if (phase === 2) return op.finish();
      // Aim each slice at the budget: grow fast while cheap, shrink when over.
      if (took < budget / 2) n = Math.min(n * 2, 1 << 20);
      else if (took > budget) n = Math.max(1, Math.floor(n / 2));
      opts.onProgress?.({ phase: phase === 0 ? 'parsing' : 'replaying', fraction: total > 0 ? done / total : 1 });
      await yieldNow();
    }
  } catch (e) {
    op.free();
    throw e;
  }
}
