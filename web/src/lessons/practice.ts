// Practice: after a lesson's question, the same kind of question on a fresh trace. The trace is
// one of the core's seeded generators (the kernel's test_vmalloc `random_size_align_alloc_test`:
// requests of 1–10 pages at alignments up to 4 MiB, each freed lazily), so a link
// `#lesson=practice-land-SEED` rebuilds the same practice. Its stops are allocations, chosen by
// the seed among those with an alignment above a page; the answers are the core's (question.ts),
// the score counts the answers given. "Which node next?" takes its cases from the core's events
// of the same trace: a search's visit that follows a step left or right.
import { Session } from '../bridge';
import type { EventSource } from '../player/events';
import type { Lesson, Stop } from './model';
import type { AskKind } from './question';

/** The question kinds a generator gives fresh cases of: where a request lands, which node the search visits next. */
export const PRACTICE_KINDS: readonly AskKind[] = ['land', 'visit'];
export const PRACTICE_STOPS = 5;
export const PRACTICE_GENERATOR = 'random_size_align_alloc_test';
const LOOPS = 40;

export function practiceId(kind: AskKind, seed: number): string {
  return `practice-${kind}-${seed}`;
}

/** The kind and seed a practice id names, or null. */
export function parsePracticeId(id: string): { kind: AskKind; seed: number } | null {
  const m = /^practice-([a-z]+)-(\d{1,9})$/.exec(id);
  if (!m || !PRACTICE_KINDS.includes(m[1] as AskKind)) return null;
  return { kind: m[1] as AskKind, seed: Number(m[2]) };
}

/** The generator's parameters for a seed (over the generator's defaults). */
export function practiceParams(defaults: Record<string, unknown>, seed: number): string {
  return JSON.stringify({ ...defaults, seed, loops: LOOPS, profile: 'linux-5.2' });
}

/** A small deterministic shuffle (xorshift32) for the seed's choice of stops. */
function shuffled<T>(xs: T[], seed: number): T[] {
  let s = (seed ^ 0x9e3779b9) >>> 0 || 1;
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A search's visit to ask about: operation `op`'s `nth` visit (from 0). */
export interface VisitCase {
  op: number;
  nth: number;
}

/**
 * The visits of find_vmap_lowest_match that follow a step left or right (the previous micro-step
 * is the visit that chose the way), in allocations that end in a fit: from the core's events.
 */
export function visitCases(src: EventSource): VisitCase[] {
  const out: VisitCase[] = [];
  for (let op = 0; op < src.length; op++) {
    const ev = src.events(op);
    if (!ev.some((e) => e.kind === 'fit')) continue;
    let nth = 0;
    ev.forEach((e, i) => {
      if (e.kind !== 'visit') return;
      const prev = ev[i - 1];
      if (prev?.kind === 'visit' && (prev.branch === 'left' || prev.branch === 'right')) out.push({ op, nth });
      nth++;
    });
  }
  return out;
}

const WORDS: Record<string, { title: string; text: string }> = {
  land: {
    title: 'where does it land?',
    text: 'The request is the operation line under the narration: its size, its alignment and its range. The earlier requests were freed lazily: they are still busy.',
  },
  visit: {
    title: 'which node next?',
    text: 'find_vmap_lowest_match is searching the free tree for the request in the operation line. Each node shows its block and the largest free block below it (subtree max).',
  },
};

/** The practice lesson for a generated trace: PRACTICE_STOPS of its allocations, in trace order. */
export function practiceFromTrace(kind: AskKind, seed: number, trace: string, visits: VisitCase[] = []): Lesson {
  if (kind === 'visit') return visitPractice(seed, trace, visits);
  // Operations are the trace's lines that are neither comments, blank, nor the profile line;
  // the core's replay counts the boot (setting up the space) as its operation 0.
  const ops = trace.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#') && !/^profile\b/.test(l.trim()));
  const allocs = ops.flatMap((l, i) => (/^alloc\s/.test(l) ? [{ op: i + 1, align: BigInt(l.trim().split(/\s+/)[2] ?? '0x1') }] : []));
  const aligned = allocs.filter((a) => a.align > 0x1000n);
  const pick = shuffled(aligned.length >= PRACTICE_STOPS ? aligned : allocs, seed)
    .slice(0, PRACTICE_STOPS)
    .sort((a, b) => a.op - b.op);
  const stops: Stop[] = pick.map((a, i) => ({
    title: `Practice ${i + 1} of ${pick.length}`,
    trace: 'practice',
    at: { op: a.op, find: 'fit' },
    text: WORDS.land.text,
    claim: { kind: 'fit' },
    look: ['bar', 'narration'],
    ask: { ask: kind },
  }));
  return practice(kind, seed, trace, stops);
}

/** One visit in each of PRACTICE_STOPS allocations chosen by the seed, in trace order. */
function visitPractice(seed: number, trace: string, visits: VisitCase[]): Lesson {
  const one = new Map<number, VisitCase>();
  for (const v of shuffled(visits, seed)) if (!one.has(v.op)) one.set(v.op, v);
  const pick = [...one.values()].slice(0, PRACTICE_STOPS).sort((a, b) => a.op - b.op);
  const stops: Stop[] = pick.map((v, i) => ({
    title: `Practice ${i + 1} of ${pick.length}`,
    trace: 'practice',
    at: { op: v.op, find: 'fit' },
    text: WORDS.visit.text,
    claim: { kind: 'fit' },
    look: ['tree', 'narration'],
    ask: { ask: 'visit', nth: v.nth },
  }));
  return practice('visit', seed, trace, stops);
}

function practice(kind: AskKind, seed: number, trace: string, stops: Stop[]): Lesson {
  return {
    id: practiceId(kind, seed),
    title: `Practice: ${WORDS[kind]?.title ?? kind} (seed ${seed})`,
    summary: `${PRACTICE_STOPS} requests of ${PRACTICE_GENERATOR}, seed ${seed}.`,
    minutes: 5,
    traces: { practice: trace },
    stops,
  };
}

/** The practice a lesson id names, its trace from the core's generator (the workbench's build). */
export async function practiceLesson(id: string): Promise<Lesson | null> {
  const p = parsePracticeId(id);
  if (!p) return null;
  const m = await import('../pkg-workbench/vmapviz_wasm.js');
  await m.default();
  const defaults = (JSON.parse(m.workloads()) as { defaults: Record<string, unknown> }).defaults;
  const trace = m.workload(PRACTICE_GENERATOR, practiceParams(defaults, p.seed));
  if (p.kind !== 'visit') return practiceFromTrace(p.kind, p.seed, trace);
  // The visits to ask about, from the core's replay of the trace.
  const s = new Session(m.Vmapviz.load(trace));
  try {
    return practiceFromTrace(p.kind, p.seed, trace, visitCases({ length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event) }));
  } finally {
    s.dispose();
  }
}

// The answers given in this page's practices: lesson id → right or wrong by stop.
const answers = new Map<string, Map<number, boolean>>();

export function recordPractice(id: string, index: number, right: boolean): void {
  if (!parsePracticeId(id)) return;
  let m = answers.get(id);
  if (!m) answers.set(id, (m = new Map()));
  if (!m.has(index)) m.set(index, right);
}

/** The score of a practice so far (null for a lesson that is no practice). */
export function practiceScore(id: string, stops: number): { right: number; answered: number; stops: number } | null {
  if (!parsePracticeId(id)) return null;
  const m = answers.get(id) ?? new Map<number, boolean>();
  return { right: [...m.values()].filter(Boolean).length, answered: m.size, stops };
}
