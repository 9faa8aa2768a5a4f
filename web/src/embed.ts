// `&embed=1` (only the views and the transport, for an iframe) and the small postMessage API a
// slide deck drives it with. Messages in (from the embedding page):
//   {type: 'vmapviz:go', op, step}      operation `op` (0-based), micro-step `step` (-1: before it)
//   {type: 'vmapviz:stop', lesson, stop} a lesson's stop (from 1, as `#lesson=…&stop=…`)
//   {type: 'vmapviz:play'} / {type: 'vmapviz:pause'}
// and out (to the parent, after each move): {type: 'vmapviz:where', op, step, frame, lesson?, stop?}.
// Any origin may embed the page, but only a well-formed message from the parent window is acted
// on; anything else is ignored without a word. What is posted (to '*') is the position only.

/** What a message asks, once validated. */
export type Command =
  | { type: 'go'; op: number; step: number }
  | { type: 'stop'; lesson: string; stop: number }
  | { type: 'play' }
  | { type: 'pause' };

/** Bounds: positions past a trace's end are clamped by the player; these only keep numbers sane. */
const MAX_OP = 10_000_000;
const MAX_STEP = 1_000_000;
const MAX_STOP = 1000;

/** Whether a link asks for the embedded layout (`&embed=1` in the hash, or `?embed=1`). */
export function embedFlag(hash: string, search: string): boolean {
  const on = (v: string | null) => v !== null && v !== '0' && v !== 'false';
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const part of body.split('&')) {
    const [k, v = ''] = part.split('=', 2);
    if (k === 'embed') return on(v);
  }
  return on(new URLSearchParams(search).get('embed'));
}

function int(v: unknown, lo: number, hi: number): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi ? v : null;
}

/** A message's command, or null when it is not one of ours or not well formed. Never throws. */
export function parseMessage(data: unknown): Command | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  let m: Record<string, unknown>;
  let type: unknown;
  try {
    m = data as Record<string, unknown>;
    type = m.type;
  } catch {
    return null;
  }
  if (typeof type !== 'string') return null;
  switch (type) {
    case 'vmapviz:go': {
      const op = int(m.op, 0, MAX_OP);
      const step = m.step === undefined ? -1 : int(m.step, -1, MAX_STEP);
      return op === null || step === null ? null : { type: 'go', op, step };
    }
    case 'vmapviz:stop': {
      const lesson = typeof m.lesson === 'string' && /^[a-z0-9-]{1,64}$/.test(m.lesson) ? m.lesson : null;
      const stop = int(m.stop, 1, MAX_STOP);
      return lesson === null || stop === null ? null : { type: 'stop', lesson, stop };
    }
    case 'vmapviz:play':
      return { type: 'play' };
    case 'vmapviz:pause':
      return { type: 'pause' };
    default:
      return null;
  }
}

/** Where the page is, as posted to the parent. */
export interface Where {
  type: 'vmapviz:where';
  /** The operation (0-based; the trace's length at its end). */
  op: number;
  /** The micro-step inside it, -1 between operations. */
  step: number;
  /** How many micro-steps the operation has (0 at the end). */
  frame: number;
  lesson?: string;
  stop?: number;
}

export interface EmbedTarget {
  go(op: number, step: number): void;
  stop(lesson: string, stop: number): void;
  play(): void;
  pause(): void;
}

/**
 * Listen for the parent's messages and report each move to it. `parent` is the window whose
 * messages are acted on (window.parent); nothing is posted when the page is not in a frame.
 */
export function listen(win: Window, target: EmbedTarget): (w: Where) => void {
  const parent = win.parent;
  win.addEventListener('message', (e: MessageEvent) => {
    if (parent === win || e.source !== parent) return;
    const c = parseMessage(e.data);
    if (!c) return;
    try {
      if (c.type === 'go') target.go(c.op, c.step);
      else if (c.type === 'stop') target.stop(c.lesson, c.stop);
      else if (c.type === 'play') target.play();
      else target.pause();
    } catch (err) {
      console.error('vmapviz: a message could not be applied', err);
    }
  });
  let last = '';
  return (w) => {
    if (parent === win) return;
    const key = JSON.stringify(w);
    if (key === last) return;
    last = key;
    // Only the position: no trace, no user data.
    parent.postMessage(w, '*');
  };
}
