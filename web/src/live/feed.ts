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

export function reportText(f: Figures): string {
  return `${f.events} events: ${f.allocations} allocations, ${f.equal} equal, ${f.explained} explained, ${f.unexplained} unexplained`;
}

export interface Loaders {
  coreFor: (text: string) => Promise<void> | null;
  loadTrace: (text: string) => Session;
  errorMessage: (e: unknown) => string;
}

/**
 * The followed trace as a session; where the page's core refuses an operation (`line N: ...`),
 * the trace up to it, and the problem said plainly (else '').
 */
export async function openFollowed(all: string[], d: Loaders): Promise<{ session: Session; problem: string }> {
  const text = all.join('\n') + '\n';
  await d.coreFor(text);
  try {
    return { session: d.loadTrace(text), problem: '' };
  } catch (e) {
    const msg = d.errorMessage(e);
    const m = /^line (\d+): /.exec(msg);
    if (!m || Number(m[1]) < 2) throw e;
    const n = Number(m[1]);
    const session = d.loadTrace(all.slice(0, n - 1).join('\n') + '\n');
    return { session, problem: `Shown up to line ${n - 1} of the followed trace: the model refuses line ${msg.slice(5)}` };
  }
}
