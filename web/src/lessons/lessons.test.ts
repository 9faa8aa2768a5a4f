// Every lesson stop, against the core: its trace replays (the wasm build, in Node), its target
// resolves to a micro-step, and the core's event there is the one the stop claims. A stop whose
// claim does not hold fails here, so a lesson cannot drift from the model.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../bridge';
import { MapleSession } from '../maple/bridge';
import { initSync, isMapleTrace, MapleView, Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import type { AnyEvent, EventSource } from '../player/events';
import { LESSONS } from './catalogue';
import { lessonLink, parseLessonLink } from './link';
import type { Stop } from './model';
import { checkClaim, resolveStop } from './resolve';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

const sessions = new Map<string, Session>();

function source(trace: string): EventSource {
  let s = sessions.get(trace);
  if (!s) {
    s = isMapleTrace(trace) ? new MapleSession(MapleView.load(trace)) : new Session(Vmapviz.load(trace));
    sessions.set(trace, s);
  }
  const ss = s;
  return { length: ss.length, events: (op) => (ss.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
}

/** Null when the stop holds, else why not. */
function verify(trace: string, stop: Stop): string | null {
  const r = resolveStop(source(trace), stop);
  if ('error' in r) return r.error;
  return checkClaim(stop, r.event);
}

describe('lessons', () => {
  it('have unique ids, two stops or more, 2–3 sentences a stop, traces that replay without a warning', () => {
    expect(new Set(LESSONS.map((l) => l.id)).size).toBe(LESSONS.length);
    expect(LESSONS.map((l) => l.id)).toEqual(['walk', 'free-tree', 'lazy', 'nodes', 'maple', 'maple-rfc']);
    for (const l of LESSONS) {
      expect(l.stops.length).toBeGreaterThanOrEqual(2);
      for (const [name, t] of Object.entries(l.traces)) {
        const s = isMapleTrace(t) ? new MapleSession(MapleView.load(t)) : new Session(Vmapviz.load(t));
        expect(s.length, `${l.id}/${name}`).toBeGreaterThan(0);
        // Only S5 warns: the overlap is what that lesson is about.
        const warned = s.summaries().filter((o) => o.warning !== null).map((o) => o.index);
        expect(warned, `${l.id}/${name}`).toEqual(`${l.id}/${name}` === 'maple-rfc/s5' ? [2] : []);
      }
      for (const st of l.stops) {
        expect(l.traces[st.trace], `${l.id}: ${st.title}`).toBeDefined();
        const sentences = st.text.split(/(?<=[.!?])\s+(?=[A-Z])/).length;
        expect(sentences, `${l.id}: ${st.title}`).toBeGreaterThanOrEqual(1);
        expect(sentences, `${l.id}: ${st.title}`).toBeLessThanOrEqual(3);
      }
    }
  });

  for (const l of LESSONS) {
    describe(l.title, () => {
      l.stops.forEach((st, i) => {
        it(`stop ${i + 1}, ${st.title}: the core's event there is a ${'kind' in st.claim ? st.claim.kind : st.claim.tag}${st.claim.where ? ` ${JSON.stringify(st.claim.where)}` : ''}`, () => {
          expect(verify(l.traces[st.trace], st)).toBeNull();
        });
      });
    });
  }

  it('a stop whose claim does not hold is refused (wrong kind, wrong field, no such event, past the end)', () => {
    const fits = LESSONS[1].traces.fits;
    const base: Stop = { title: 't', trace: 'fits', at: { op: 2, find: 'fit' }, text: 'x', claim: { kind: 'fit', where: { fit: 'LE' } }, look: [] };
    expect(verify(fits, base)).toBeNull();
    // The LE stop claimed as a rotation, or as an NE fit.
    expect(verify(fits, { ...base, claim: { kind: 'rotate' } })).toMatch(/claims a rotation/);
    expect(verify(fits, { ...base, claim: { kind: 'fit', where: { fit: 'NE' } } })).toMatch(/claims \{"fit":"NE"\}/);
    // A micro-step given by number that is not the fit.
    expect(verify(fits, { ...base, at: { op: 2, frame: 0 } })).toMatch(/claims a fit/);
    expect(verify(fits, { ...base, at: { op: 2, find: 'merge' } })).toMatch(/has no 1st merge/);
    expect(verify(fits, { ...base, at: { op: 99, frame: 0 } })).toMatch(/past the trace/);
    expect(verify(fits, { ...base, at: { op: 2, frame: 99 } })).toMatch(/micro-steps/);
  });

  it('links name a lesson and a stop from 1, lecture mode kept', () => {
    expect(lessonLink('free-tree', 3, true)).toBe('#lesson=free-tree&stop=3&lecture=1');
    expect(parseLessonLink('#lesson=free-tree&stop=3&lecture=1')).toEqual({ id: 'free-tree', stop: 3, at: null, answer: false });
    expect(parseLessonLink('#lesson=lazy')).toEqual({ id: 'lazy', stop: 1, at: null, answer: false });
    expect(parseLessonLink('#lesson=lazy&stop=x')).toEqual({ id: 'lazy', stop: 1, at: null, answer: false });
    expect(parseLessonLink('#trace=alloc&step=2')).toBeNull();
  });

  it('links carry the micro-step around the stop and a revealed answer', () => {
    expect(lessonLink('free-tree', 9, true, { op: 19, frame: 8 })).toBe('#lesson=free-tree&stop=9&step=19&frame=8&lecture=1');
    expect(lessonLink('maple', 3, false, { op: 2, frame: -1 }, true)).toBe('#lesson=maple&stop=3&step=2&frame=-1&answer=1');
    expect(parseLessonLink('#lesson=free-tree&stop=9&step=19&frame=8&lecture=1')).toEqual({ id: 'free-tree', stop: 9, at: { op: 19, frame: 8 }, answer: false });
    expect(parseLessonLink('#lesson=maple&stop=3&step=2&frame=-1&answer=1')).toEqual({ id: 'maple', stop: 3, at: { op: 2, frame: -1 }, answer: true });
    // A step without a frame is the position before that operation; bad numbers are ignored.
    expect(parseLessonLink('#lesson=lazy&step=4')).toEqual({ id: 'lazy', stop: 1, at: { op: 4, frame: -1 }, answer: false });
    expect(parseLessonLink('#lesson=lazy&step=-3&frame=zz')).toEqual({ id: 'lazy', stop: 1, at: null, answer: false });
    expect(parseLessonLink('#lesson=lazy&step=99999999999')).toEqual({ id: 'lazy', stop: 1, at: null, answer: false });
  });
});
