// "Your turn": every question a lesson stop asks is answered from the core's events of the stop's
// operation, is asked before the answer is on screen, and is revealed in the stop's operation
// (on the stop's own micro-step, or one the card leads on to it from). The answers expected here are argued
// from the traces and the kernel's rules, not read back from the resolver.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../bridge';
import { MapleSession } from '../maple/bridge';
import { initSync, isMapleTrace, MapleView, Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import type { AnyEvent, EventSource } from '../player/events';
import { LESSONS } from './catalogue';
import { isRight, resolveAsk, type Resolved } from './question';
import { resolveStop } from './resolve';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

function source(trace: string): EventSource {
  const s = isMapleTrace(trace) ? new MapleSession(MapleView.load(trace)) : new Session(Vmapviz.load(trace));
  return { length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
}

const asked = LESSONS.flatMap((l) => l.stops.map((st, i) => ({ l, st, i })).filter((x) => x.st.ask));

function resolved(id: string, stop: number): Resolved {
  const x = asked.find((a) => a.l.id === id && a.i === stop - 1);
  if (!x?.st.ask) throw new Error(`${id} stop ${stop} asks nothing`);
  const src = source(x.l.traces[x.st.trace]);
  const r = resolveStop(src, x.st);
  if ('error' in r) throw new Error(r.error);
  const q = resolveAsk(src, r.pos.op, x.st.ask);
  if ('error' in q) throw new Error(q.error);
  return q;
}

describe('questions', () => {
  it('free-tree stop 13: above vstart 0x108000 the root block [0x105000, 0x107000) cannot serve, so the search goes right to #7', () => {
    const q = resolved('free-tree', 13);
    // The stop's claim names #7, the 32 KiB hole's parent on the search path, where propagation stops.
    expect(q.answer).toEqual({ ask: 'visit', node: 7, tree: 'free' });
    expect(isRight(q.answer, { ask: 'visit', node: 7 })).toBe(true);
    expect(isRight(q.answer, { ask: 'visit', node: 5 })).toBe(false);
    expect(q.why).toMatch(/goes right/);
  });

  it('maple stop 7: the root #3\'s first gap looks large enough, so the search descends into the left leaf #1 (the wasted descent)', () => {
    // After the split of op 11 the root #3 has two leaves: #1 (left), #2 (right).
    const q = resolved('maple', 7);
    expect(q.answer).toEqual({ ask: 'visit', node: 1, tree: 'maple' });
    expect(isRight(q.answer, { ask: 'visit', node: 3 })).toBe(false);
    expect(q.why).toMatch(/gap\[0\] of node #3 \(0x[0-9a-f]+\) holds the request/);
  });

  it('maple stop 7: asked and answered before the stop\'s own step, so "On to the stop" goes on, never back', () => {
    const x = asked.find((a) => a.l.id === 'maple' && a.i === 6);
    if (!x) throw new Error('maple stop 7 asks nothing');
    const src = source(x.l.traces[x.st.trace]);
    const r = resolveStop(src, x.st);
    if ('error' in r) throw new Error(r.error);
    const q = resolved('maple', 7);
    expect(q.shown.frame).toBeLessThan(r.pos.frame);
  });

  it('free-tree stop 13: the why names this search\'s numbers', () => {
    const q = resolved('free-tree', 13);
    // The root's block and the length searched for, from the core's visit and search_start.
    expect(q.why).toMatch(/^block #7: at #\d+ \[0x[0-9a-f]+, 0x[0-9a-f]+\)/);
    // vstart 0x108000 lies above the root's block [0x105000, 0x107000): it cannot serve; right.
    expect(q.why).toContain('at #3 [0x105000, 0x107000)');
    expect(q.why).toContain('vstart 0x108000 is not below the block\'s start');
    expect(q.why).toMatch(/right subtree's largest block \(0x[0-9a-f]+\) can, so the search goes right/);
  });

  it('maple stop 3: the why names the range stored and the leaf', () => {
    const q = resolved('maple', 3);
    expect(q.why).toContain('[0x101000, 0x101fff]');
    expect(q.why).toMatch(/into leaf #\d+/);
  });

  it('maple stop 8: the hole [0x113000, 0x114fff] is in the right leaf\'s last slot, slot 10 of #2', () => {
    const q = resolved('maple', 8);
    expect(q.answer).toEqual({ ask: 'slot', node: 2, slot: 10 });
    expect(isRight(q.answer, { ask: 'slot', node: 2, slot: 10 })).toBe(true);
    expect(isRight(q.answer, { ask: 'slot', node: 2, slot: 8 })).toBe(false);
    expect(isRight(q.answer, { ask: 'slot', node: 3, slot: 10 })).toBe(false);
  });

  it('lazy stop 7: the retry takes the merged block\'s start, 0x100000', () => {
    const q = resolved('lazy', 7);
    expect(q.answer).toEqual({ ask: 'land', start: 0x100000n, end: 0x108000n });
    expect(q.why).toMatch(/LE fit/);
  });

  it('at least four stops ask, across lessons, every kind at least once', () => {
    expect(asked.length).toBeGreaterThanOrEqual(4);
    expect(new Set(asked.map((a) => a.l.id)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(asked.map((a) => a.st.ask?.ask))).toEqual(new Set(['land', 'visit', 'store', 'slot']));
  });

  for (const { l, st, i } of asked) {
    it(`${l.id} stop ${i + 1} (${st.ask?.ask}): answered from the core's events, asked before it shows, revealed on the stop`, () => {
      const src = source(l.traces[st.trace]);
      const r = resolveStop(src, st);
      if ('error' in r) throw new Error(r.error);
      const q = resolveAsk(src, r.pos.op, st.ask as NonNullable<typeof st.ask>);
      if ('error' in q) throw new Error(q.error);
      expect(q.shown.op).toBe(r.pos.op);
      // Asked strictly before the micro-step that shows it.
      const order = (p: { op: number; frame: number }) => p.op * 1e6 + p.frame;
      expect(order(q.posed)).toBeLessThan(order(q.shown));
      expect(q.why.length).toBeGreaterThan(10);
    });
  }

  it('free-tree stop 3: the 64 KiB-aligned page lands at 0x20000 (the NE fit)', () => {
    const q = resolved('free-tree', 3);
    expect(q.answer).toEqual({ ask: 'land', start: 0x20000n, end: 0x21000n });
    expect(isRight(q.answer, { ask: 'land', addr: 0x20000n })).toBe(true);
    expect(isRight(q.answer, { ask: 'land', addr: 0x20fffn })).toBe(true);
    expect(isRight(q.answer, { ask: 'land', addr: 0x21000n })).toBe(false);
    expect(isRight(q.answer, { ask: 'land', addr: 0x10000n })).toBe(false);
    expect(q.why).toMatch(/NE fit/);
    // Asked before the operation: nothing of its search is on screen.
    expect(q.posed.frame).toBe(-1);
  });

  it('maple stop 3: a range that is exactly one slot is an exact fit', () => {
    const q = resolved('maple', 3);
    expect(q.answer).toEqual({ ask: 'store', store: 'wr_exact_fit' });
    expect(isRight(q.answer, { ask: 'store', store: 'wr_exact_fit' })).toBe(true);
    expect(isRight(q.answer, { ask: 'store', store: 'wr_node_store' })).toBe(false);
  });
});

describe('a question that cannot be answered', () => {
  it('says so: no such event in the operation, or an operation past the end', () => {
    const fits = LESSONS[1].traces.fits;
    const src = source(fits);
    // Operation 4 of the fit trace is an allocation: no store type, no gap-search slot in it.
    expect(resolveAsk(src, 4, { ask: 'store' })).toEqual({ error: 'operation 5 has no event that answers a "store" question' });
    expect(resolveAsk(src, 4, { ask: 'slot' })).toHaveProperty('error');
    // One allocation: no second landing.
    expect(resolveAsk(src, 4, { ask: 'land', nth: 1 })).toHaveProperty('error');
    expect(resolveAsk(src, 99, { ask: 'land' })).toHaveProperty('error');
    expect(resolveAsk(src, -1, { ask: 'land' })).toHaveProperty('error');
  });
});
