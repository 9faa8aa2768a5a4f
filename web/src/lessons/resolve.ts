// A lesson stop's place on its trace's timeline, resolved from the core's own events when the
// trace loads, and the check of the stop's claim against the event found there. The page and
// lessons.test.ts use the same two functions: a stop whose claim does not hold is refused in
// the test and flagged in the page.
import { innerEvent, isOfKind, kindInfo, matches, type AnyEvent, type EventSource } from '../player/events';
import { at, type Pos } from '../player/timeline';
import type { Stop } from './model';

export type Resolved = { pos: Pos; event: AnyEvent } | { error: string };

/** Where a stop sits: its operation and micro-step, or the n-th event of a kind in its operation. */
export function resolveStop(src: EventSource, stop: Stop): Resolved {
  const t = stop.at;
  if (t.op < 0 || t.op >= src.length) return { error: `operation ${t.op + 1} is past the trace's ${src.length}` };
  const events = src.events(t.op);
  if ('frame' in t) {
    const e = events[t.frame];
    return e ? { pos: at(t.op, t.frame), event: e } : { error: `operation ${t.op + 1} has ${events.length} micro-steps, not ${t.frame + 1}` };
  }
  let n = t.nth ?? 0;
  for (let f = 0; f < events.length; f++) {
    const e = events[f];
    if (isOfKind(e, t.find) && matches(innerEvent(e), t.where)) {
      if (n-- === 0) return { pos: at(t.op, f), event: e };
    }
  }
  const what = `${kindInfo(t.find).label}${t.where ? ` ${JSON.stringify(t.where)}` : ''}`;
  return { error: `operation ${t.op + 1} has no ${(t.nth ?? 0) + 1}${ordinal((t.nth ?? 0) + 1)} ${what}` };
}

/** Null when the stop's claim holds for the event it sits on, else what is wrong. */
export function checkClaim(stop: Stop, event: AnyEvent): string | null {
  const c = stop.claim;
  if ('tag' in c) {
    const tag = innerEvent(event).kind;
    if (tag !== c.tag) return `the stop claims a ${c.tag} event but the core's event there is ${describe(event)}`;
  } else if (!isOfKind(event, c.kind)) return `the stop claims a ${kindInfo(c.kind).label} but the core's event there is ${describe(event)}`;
  if (!matches(innerEvent(event), c.where)) return `the stop claims ${JSON.stringify(c.where)} but the core's event is ${describe(event)}`;
  return null;
}

function describe(e: AnyEvent): string {
  const i = innerEvent(e);
  return i === e ? JSON.stringify(e) : `maple ${JSON.stringify(i)}`;
}

function ordinal(n: number): string {
  return n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th';
}
