// What live mode makes of the feed's events (no DOM): the followed trace's lines after a `trace`
// event, the report line's words, and the trace opened as a session (up to a line the page's
// core refuses, said plainly).
import type { Session } from '../bridge';

/** The report line's figures (core/live/src/follow.rs `Figures`). */
export interface Figures {
  events: number;
  allocations: number;
  equal: number;
  explained: number;
  unexplained: number;
  summary: string;
  ops: number;
  replay_ms: number;
  ended: boolean;
  full: boolean;
}

/** A `trace` event: keep the first `from` lines, then these (newline-joined; empty: none). */
export function applyTrace(lines: string[], ev: { from: number; lines: string }): string[] {
  const kept = lines.slice(0, Math.max(0, Math.min(lines.length, ev.from)));
  return ev.lines === '' ? kept : kept.concat(ev.lines.split('\n'));
}

/** What a round of live mode does with the session shown. */
export type Plan =
  | { kind: 'none' }
  /** The session holds the trace's first lines, unchanged: add these after them. */
  | { kind: 'extend'; lines: string[] }
  /** Open the whole trace again (none shown yet, or a line it holds was replaced: a start-over). */
  | { kind: 'reload'; lines: string[] };

/**
 * The followed trace as the feed's `trace` events leave it, and how much of it the session shown
 * holds: a round adds the new lines to that session while the events only appended, and opens
 * the trace again only when one replaced a line the session holds.
 */
export class Followed {
  lines: string[] = [];
  /** Lines of the trace the session shown holds, its first ones (-1: no session of it shown). */
  held = -1;
  /** The first line a `trace` event replaced since the last plan (Infinity: none). */
  private changed = Infinity;

  receive(ev: { from: number; lines: string }): void {
    this.lines = applyTrace(this.lines, ev);
    this.changed = Math.min(this.changed, ev.from);
  }

  /** The next round's work; then `holds` says how many lines the session took. */
  plan(): Plan {
    const reload = this.held < 0 || this.changed < this.held || this.lines.length < this.held;
    this.changed = Infinity;
    if (reload) return { kind: 'reload', lines: this.lines };
    if (this.lines.length === this.held) return { kind: 'none' };
    return { kind: 'extend', lines: this.lines.slice(this.held) };
  }

  /** The session shown holds the trace's first `n` lines (a refused line stops it short). */
  holds(n: number): void {
    this.held = n;
  }

  /** No session of this trace is shown any more (another trace opened, a failure). */
  drop(): void {
    this.held = -1;
  }
}

export function reportText(f: Figures): string {
  return `${f.events} events: ${f.allocations} allocations, ${f.equal} equal, ${f.explained} explained, ${f.unexplained} unexplained`;
}

export interface Loaders {
  coreFor: (text: string) => Promise<void> | null;
  loadTrace: (text: string) => Session;
  errorMessage: (e: unknown) => string;
}

/** The problem said when the model refuses the line after the first `held` ones. */
export function refused(held: number, why: string): string {
  return `Shown up to line ${held} of the followed trace: the model refuses line ${held + 1}: ${why}`;
}

/**
 * The followed trace as a session; where the page's core refuses an operation (`line N: ...`),
 * the trace up to it, and the problem said plainly (else '').
 */
export async function openFollowed(all: string[], d: Loaders): Promise<{ session: Session; problem: string; held: number }> {
  const text = all.join('\n') + '\n';
  await d.coreFor(text);
  try {
    return { session: d.loadTrace(text), problem: '', held: all.length };
  } catch (e) {
    const msg = d.errorMessage(e);
    const m = /^line (\d+): /.exec(msg);
    if (!m || Number(m[1]) < 2) throw e;
    const n = Number(m[1]);
    const session = d.loadTrace(all.slice(0, n - 1).join('\n') + '\n');
    return { session, problem: refused(n - 1, msg.slice(m[0].length)), held: n - 1 };
  }
}
