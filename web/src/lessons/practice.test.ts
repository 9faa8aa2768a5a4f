// Practice: fresh cases from the core's seeded generator. Every stop of a practice resolves to
// the core's fit event, its question is answered from the core's events, and the answer obeys
// the request written in the trace (its size, its alignment, its range): checked against the
// trace line, not against the resolver. Different seeds give different cases.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../bridge';
import { initSync, Vmapviz, workload, workloads } from '../pkg-workbench/vmapviz_wasm.js';
import type { AnyEvent, EventSource } from '../player/events';
import { parsePracticeId, practiceFromTrace, visitCases, practiceId, practiceParams, practiceScore, PRACTICE_GENERATOR, PRACTICE_STOPS, recordPractice } from './practice';
import { resolveAsk } from './question';
import { checkClaim, resolveStop } from './resolve';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

function generate(seed: number): string {
  const defaults = (JSON.parse(workloads()) as { defaults: Record<string, unknown> }).defaults;
  return workload(PRACTICE_GENERATOR, practiceParams(defaults, seed));
}

describe('practice', () => {
  it('names its kind and seed; other ids are no practice', () => {
    expect(parsePracticeId(practiceId('land', 42))).toEqual({ kind: 'land', seed: 42 });
    expect(parsePracticeId(practiceId('visit', 3))).toEqual({ kind: 'visit', seed: 3 });
    expect(parsePracticeId('practice-store-1')).toBe(null);
    expect(parsePracticeId('free-tree')).toBe(null);
    expect(parsePracticeId('practice-land-x')).toBe(null);
  });

  for (const seed of [1, 7, 1234]) {
    it(`seed ${seed}: ${PRACTICE_STOPS} stops on the core's fit, each answer the request's size at its alignment`, () => {
      const trace = generate(seed);
      const lesson = practiceFromTrace('land', seed, trace);
      expect(lesson.stops).toHaveLength(PRACTICE_STOPS);
      const s = new Session(Vmapviz.load(trace));
      const src: EventSource = { length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
      const ops = trace.split('\n').filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('profile'));
      for (const stop of lesson.stops) {
        const r = resolveStop(src, stop);
        if ('error' in r) throw new Error(r.error);
        expect(checkClaim(stop, r.event)).toBe(null);
        const a = resolveAsk(src, stop.at.op, stop.ask ?? { ask: 'land' });
        if ('error' in a) throw new Error(a.error);
        if (a.answer.ask !== 'land') throw new Error('not a land answer');
        // alloc SIZE ALIGN VSTART VEND (the core's operation 0 is the boot)
        const [, size, align, vstart, vend] = ops[stop.at.op - 1].trim().split(/\s+/).map((x, i) => (i ? BigInt(x) : 0n));
        expect(a.answer.end - a.answer.start).toBe(size);
        expect(a.answer.start % align).toBe(0n);
        expect(a.answer.start >= vstart && a.answer.end <= vend).toBe(true);
        // The seed picks requests whose alignment matters.
        expect(align > 0x1000n).toBe(true);
      }
    });
  }

  for (const seed of [1, 7, 1234]) {
    it(`seed ${seed}: "which node next?" — ${PRACTICE_STOPS} stops, each answered by the visit the core's search makes after a step left or right`, () => {
      const trace = generate(seed);
      const s = new Session(Vmapviz.load(trace));
      const src: EventSource = { length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
      const lesson = practiceFromTrace('visit', seed, trace, visitCases(src));
      expect(lesson.id).toBe(`practice-visit-${seed}`);
      expect(lesson.stops).toHaveLength(PRACTICE_STOPS);
      expect(new Set(lesson.stops.map((st) => st.at.op)).size).toBe(PRACTICE_STOPS);
      for (const stop of lesson.stops) {
        const r = resolveStop(src, stop);
        if ('error' in r) throw new Error(r.error);
        expect(checkClaim(stop, r.event)).toBe(null);
        const a = resolveAsk(src, stop.at.op, stop.ask ?? { ask: 'visit' });
        if ('error' in a) throw new Error(a.error);
        if (a.answer.ask !== 'visit') throw new Error('not a visit answer');
        // The core's own visits of that operation: the asked one, and the step before it.
        const ev = src.events(stop.at.op);
        const visits = ev.flatMap((e, i) => (e.kind === 'visit' ? [i] : []));
        const i = visits[stop.ask?.nth ?? 0];
        expect(a.answer.node).toBe(ev[i].id);
        const prev = ev[i - 1];
        expect(prev.kind).toBe('visit');
        expect(['left', 'right']).toContain(prev.branch);
        // The why names the step before it, from its numbers.
        expect(a.why).toContain(`#${String(prev.id)}`);
        expect(a.why).toContain(`goes ${String(prev.branch)}`);
        // Asked before the visit: nothing of it shown.
        expect(a.posed.frame).toBe(i - 1);
      }
      s.dispose();
    });
  }

  it('another seed, other cases', () => {
    const a = generate(1);
    const b = generate(2);
    expect(a).not.toBe(b);
    expect(practiceFromTrace('land', 1, a).stops.map((s) => s.at)).not.toEqual(practiceFromTrace('land', 2, b).stops.map((s) => s.at));
  });

  it('scores the first answer of each stop', () => {
    const id = practiceId('land', 99);
    recordPractice(id, 0, true);
    recordPractice(id, 0, false);
    recordPractice(id, 1, false);
    expect(practiceScore(id, 5)).toEqual({ right: 1, answered: 2, stops: 5 });
    expect(practiceScore('free-tree', 13)).toBe(null);
  });
});
