// An authored lesson against the core, as the built-in lessons are checked (lessons.test.ts):
// each stop's trace replays, its micro-step exists, the core's event there is the one claimed,
// and a question's answer is the core's. The same module reads a micro-step into a stop when a
// lecturer saves it (the claim and the questions the core can answer there).
import { innerEvent, isOfKind, KINDS, type AnyEvent, type EventKind, type EventSource } from '../player/events';
import { at, samePos } from '../player/timeline';
import type { AuthoredError, AuthoredLesson, AuthoredStop, Scalar } from './authored';
import { AUTHORED_PREFIX, quote } from './authored';
import type { Lesson, Look, Stop } from './model';
import { resolveAsk, type Answer, type AskKind } from './question';
import { checkClaim, resolveStop } from './resolve';

/** The claim of a micro-step: the core's event tag (inside a maple wrapper) and its scalar fields. */
export function claimOf(e: AnyEvent): AuthoredStop['claim'] {
  const inner = innerEvent(e);
  const where: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(inner)) {
    if (k === 'kind') continue;
    if (v === null || typeof v === 'boolean' || typeof v === 'number' || (typeof v === 'string' && v.length <= 64)) where[k] = v;
  }
  return { event: inner.kind, where };
}

/** An answer as the lesson's JSON holds it (addresses in hex). */
export function answerJson(a: Answer): Record<string, Scalar> {
  switch (a.ask) {
    case 'land':
      return { start: `0x${a.start.toString(16)}`, end: `0x${a.end.toString(16)}` };
    case 'visit':
      return { node: a.node };
    case 'store':
      return { store: a.store };
    case 'slot':
      return { node: a.node, slot: a.slot };
  }
}

/** A question the core answers at a micro-step (its answer is shown there), with that answer. */
export interface Offer {
  ask: AskKind;
  nth: number;
  answer: Record<string, Scalar>;
  prompt: string;
}

const ASKS: readonly AskKind[] = ['land', 'visit', 'store', 'slot'];

/** The questions whose answer the core shows at micro-step `frame` of operation `op`. */
export function offersAt(src: EventSource, op: number, frame: number): Offer[] {
  const here = at(op, frame);
  const out: Offer[] = [];
  for (const ask of ASKS) {
    for (let nth = 0; nth < 1000; nth++) {
      const r = resolveAsk(src, op, { ask, nth });
      if ('error' in r) break;
      if (samePos(r.shown, here)) out.push({ ask, nth, answer: answerJson(r.answer), prompt: r.prompt });
    }
  }
  return out;
}

/** The kind of events.ts an event is of (the card's words, ] and [), if one names it. */
function kindOf(e: AnyEvent): EventKind | null {
  return KINDS.find((k) => isOfKind(e, k.kind))?.kind ?? null;
}

const LIST = new Set(['walk_area', 'walk_tree', 'cache_reset', 'cache_use']);
const NODES = new Set(['pool_hit', 'pool_miss', 'pool_rotate', 'pooled', 'decay']);
const BAR = new Set(['allocated', 'alloc_failed', 'search_start', 'search_none', 'out_of_range', 'lazy_enqueue', 'purge_start', 'purge_area', 'purge_end', 'reset', 'busy_insert', 'busy_remove', 'pcpu_area']);

/** What the class looks at: the structure the event is about (a question's answer targets too). */
function lookOf(e: AnyEvent, ask: AskKind | undefined): Look[] {
  const tag = e.kind;
  const look: Look[] = LIST.has(tag) ? ['list', 'bar'] : NODES.has(tag) ? ['nodes', 'bar'] : BAR.has(tag) || /^(window|bump)_/.test(tag) ? ['bar'] : ['tree'];
  if (ask === 'land' && !look.includes('bar')) look.push('bar');
  if ((ask === 'visit' || ask === 'slot' || ask === 'store') && !look.includes('tree')) look.unshift('tree');
  return [...look, 'narration'];
}

/** What replays a lesson's trace: its events, or why it does not replay. */
export type Replay = (name: string, text: string) => EventSource | { error: string };

/**
 * An authored lesson checked against the core, as a lesson the page plays (its id the link's
 * `authored.` + `packed`); or the first stop that does not hold and what differs.
 */
export function checkAuthored(doc: AuthoredLesson, packed: string, replay: Replay): Lesson | AuthoredError {
  const stops: Stop[] = [];
  const sources = new Map<string, EventSource | { error: string }>();
  for (const [i, s] of doc.stops.entries()) {
    const named = `Stop ${i + 1} (${quote(s.title)})`;
    const text = doc.traces[s.trace];
    let src = sources.get(s.trace);
    if (!src) sources.set(s.trace, (src = replay(s.trace, text)));
    if ('error' in src) return { error: 'replay', message: `${named}: its trace does not replay: ${src.error}` };
    const draft: Stop = { title: s.title, trace: s.trace, at: { op: s.op, frame: s.frame }, text: s.text, claim: { tag: s.claim.event, where: s.claim.where }, look: [] };
    const r = resolveStop(src, draft);
    if ('error' in r) return { error: 'claim', message: `${named}: ${r.error}.` };
    const bad = checkClaim(draft, r.event);
    if (bad) return { error: 'claim', message: `${named}: ${differs(s.claim, innerEvent(r.event)) ?? bad}.` };
    if (s.ask) {
      const q = resolveAsk(src, s.op, { ask: s.ask.ask, nth: s.ask.nth });
      if ('error' in q) return { error: 'claim', message: `${named}: its question cannot be answered: ${q.error}.` };
      const core = answerJson(q.answer);
      if (JSON.stringify(sorted(core)) !== JSON.stringify(sorted(s.ask.answer))) {
        return { error: 'claim', message: `${named}: its question's answer is ${JSON.stringify(s.ask.answer)} but the core's is ${JSON.stringify(core)}.` };
      }
      if (!samePos(q.shown, r.pos)) return { error: 'claim', message: `${named}: its question is answered at micro-step ${q.shown.frame + 1}, not at the stop's ${s.frame + 1}.` };
    }
    const kind = kindOf(r.event);
    stops.push({
      ...draft,
      claim: kind ? { kind, where: s.claim.where } : draft.claim,
      look: lookOf(innerEvent(r.event), s.ask?.ask),
      ...(s.ask ? { ask: { ask: s.ask.ask, nth: s.ask.nth } } : {}),
    });
  }
  const n = stops.length;
  return {
    id: AUTHORED_PREFIX + packed,
    title: doc.title,
    summary: `A lesson of ${n} stop${n === 1 ? '' : 's'} written by a lecturer, checked against the core.`,
    // Two minutes a stop: the presenter view's clock (the built-in lessons' are measured).
    minutes: 2 * n,
    traces: doc.traces,
    stops,
  };
}

/** The fields a claim on the right event gets wrong, in words; null when the tag differs. */
function differs(c: AuthoredStop['claim'], e: AnyEvent): string | null {
  if (e.kind !== c.event) return null;
  const wrong = Object.entries(c.where).filter(([k, v]) => e[k] !== v);
  const fields = (f: (k: string, v: Scalar) => string) => wrong.map(([k, v]) => f(k, v)).join(', ');
  return `the stop claims ${fields((k, v) => `${k} ${JSON.stringify(v)}`)} but the core's ${c.event} event there has ${fields((k) => `${k} ${JSON.stringify(e[k]) ?? 'none'}`)}`;
}

function sorted(o: Record<string, Scalar>): [string, Scalar][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
