// Every micro-step of every teaching scenario (the default page, the workbench's teaching
// workloads, the linux-6.9 node scenarios) and of the conformance scenarios 01-07, replayed by
// the real core (the workbench's wasm build, in Node): the narration of each event must say what
// that event reports — its cause, its nodes, its values before and after — and the bar's state
// at that micro-step must be the core's. So that a narration that guesses (from the previous
// event, or from the state after the change) cannot come back.
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { NO_INDEX, Session, freeNodes, stateAtFrame, type FreeNode, type OpFrames, type StepEvent } from '../bridge';
import { hex } from '../format';
import { parseCatalogue } from '../panels/api';
import { NODE_SCENARIOS } from '../panels/scenarios';
import { searchOf } from '../player/focus';
import { DEFAULT_TRACE } from '../scenario';
import { initSync, Vmapviz, workload, workloads } from '../pkg-workbench/vmapviz_wasm.js';
import { LISTINGS } from './code';
import { big, inPurge, narrate, type Narration } from './narrate';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

const CONFORMANCE = new URL('../../../../shared/conformance/', import.meta.url);

/** Every scenario a lecture starts from, by name. */
function scenarios(): [string, string][] {
  const out: [string, string][] = [['default page', DEFAULT_TRACE]];
  for (const f of readdirSync(CONFORMANCE).filter((f) => /^0[1-7]_.*\.trace$/.test(f)).sort()) {
    out.push([f, readFileSync(new URL(f, CONFORMANCE), 'utf8')]);
  }
  for (const s of NODE_SCENARIOS) out.push([`node scenario ${s.name}`, s.trace]);
  for (const w of parseCatalogue(workloads()).workloads.filter((w) => w.kind === 'teaching')) {
    out.push([`teaching workload ${w.name}`, workload(w.name, '{}')]);
  }
  return out;
}

const range = (s: unknown, e: unknown) => `[${hex(big(s))}, ${hex(big(e))})`;

/** The events before frame i of this operation, newest first, skipping augment updates. */
function callerOf(f: OpFrames, i: number): StepEvent | null {
  for (let j = i - 1; j >= 0; j--) if (f.frames[j].event.kind !== 'augment_set') return f.frames[j].event;
  return null;
}

/** What the narration of `ev` must say, given the operation's frames (throws with `at`). */
function check(at: string, f: OpFrames, i: number, ev: StepEvent, n: Narration, nodes: Map<number, FreeNode>): void {
  const t = n.text;
  expect(n.kind, at).toBe(ev.kind);
  expect(LISTINGS[n.listing], `${at}: listing ${n.listing}`).toBeDefined();
  if (n.line) expect(LISTINGS[n.listing].lines.some((l) => l.id === n.line), `${at}: line ${n.line} of ${n.listing}`).toBe(true);
  expect(t, at).not.toMatch(/undefined|NaN|null|\[object/);
  // Plain words on screen: no markdown's backticks.
  expect(`${n.title} ${t}`, at).not.toContain('`');
  // Pooling is purge_vmap_node's (node_pool_add_va); decay_va_pool_node only takes areas out.
  if (ev.kind === 'pooled') expect([n.fn, n.line], at).toEqual(['purge_vmap_node', 'pooled']);
  if (ev.kind === 'decay') expect(n.fn, at).toBe('decay_va_pool_node');
  const says = (piece: string) => expect(t, `${at}: "${t}" should say ${piece}`).toContain(piece);
  switch (ev.kind) {
    case 'augment_set': {
      says(`block #${String(ev.id)}`);
      says(`subtree_max_size ${hex(big(ev.old))}`);
      says(`→ ${hex(big(ev.new))}`);
      const cause = String(ev.cause);
      if (cause === 'link_reset') {
        expect(n.listing, at).toBe('link_va');
        expect(n.line, at).toBe('zero');
        expect(big(ev.new), at).toBe(0n);
        expect(t, at).not.toMatch(/rotat|successor/i);
      } else if (cause === 'rotate') {
        const insert = ev.phase === 'insert';
        expect(n.listing, at).toBe(insert ? '__rb_insert' : '__rb_erase_color');
        expect(n.fn, at).toBe(n.listing);
        says('free_vmap_area_rb_augment_cb_rotate');
        expect(n.phase, at).toBe(`case ${String(ev.case)}`);
        says(insert ? 'insert fix-up' : 'erase fix-up');
        // The rotation it belongs to came just before (the kernel calls the callback after it).
        const r = callerOf(f, i);
        expect(r?.kind, `${at}: after a rotation`).toBe('rotate');
        expect([r?.phase, r?.case], at).toEqual([ev.phase, ev.case]);
        expect([r?.old_top, r?.new_top], at).toContain(ev.id);
      } else {
        expect(cause, at).toBe('copy');
        expect(n.fn, at).toBe('unlink_va');
        expect(n.listing, at).toBe('unlink_va');
        // Only an erase copies; the erase of this operation came before.
        expect(f.frames.slice(0, i).some((x) => x.event.kind === 'erase'), at).toBe(true);
      }
      break;
    }
    case 'propagate_stop':
      says(`block #${String(ev.id)}`);
      says(hex(big(ev.value)));
      break;
    case 'merge': {
      const before = range(ev.old_start, ev.old_end);
      const after = range(ev.new_start, ev.new_end);
      expect(before, `${at}: a merge changes the survivor`).not.toBe(after);
      says(`block #${String(ev.survivor)} ${before}`);
      says(`to ${after}`);
      says(ev.merge === 'next' ? 'grows down' : 'grows up');
      const s = nodes.get(Number(ev.survivor));
      expect(s && range(s.vaStart, s.vaEnd), `${at}: the tree holds the range after`).toBe(after);
      break;
    }
    case 'clip':
      if (ev.fit === 'LE' || ev.fit === 'RE') {
        says(range(ev.old_start, ev.old_end));
        says(range(ev.new_start, ev.new_end));
      }
      says(`#${String(ev.id)}`);
      break;
    case 'rotate':
      expect(n.listing, at).toBe(ev.phase === 'insert' ? '__rb_insert' : '__rb_erase_color');
      expect(n.line, at).toBe(`c${String(ev.case)}`);
      says(`block #${String(ev.old_top)}`);
      says(`block #${String(ev.new_top)}`);
      says(`Rotate ${String(ev.dir)}`);
      break;
    case 'recolor': {
      says(`block #${String(ev.id)}`);
      says(`turns ${String(ev.color)}`);
      // The tree of this micro-step shows this recolour done, and no other since the last step.
      expect(nodes.get(Number(ev.id))?.black, `${at}: the tree shows the new colour`).toBe(ev.color === 'black');
      const prev = i > 0 ? new Map(freeNodes(f.trees[f.frames[i - 1].tree] ?? NO_INDEX).map((x) => [x.id, x.black])) : null;
      for (const [id, black] of prev ?? []) {
        if (id !== ev.id && nodes.has(id)) expect(nodes.get(id)?.black, `${at}: block #${id} keeps its colour`).toBe(black);
      }
      break;
    }
    case 'unlinked':
      if (ev.case === '2' || ev.case === '3') says(`its successor block #${String(big(ev.successor))}`);
      expect(n.fn, at).toBe('unlink_va');
      break;
    case 'propagate':
      says(`block #${String(ev.id)}`);
      says(`${hex(big(ev.old))}`);
      says(`→ ${hex(big(ev.new))}`);
      expect(nodes.get(Number(ev.id))?.subtreeMaxSize, `${at}: the tree holds the new value`).toBe(big(ev.new));
      // At the root nothing is left to climb to.
      if (nodes.get(Number(ev.id))?.parent === null) expect(t, at).not.toMatch(/continue with the parent/);
      else says('continue with the parent');
      break;
    case 'busy_remove':
    case 'busy_insert':
    case 'lazy_enqueue': {
      says(`#${String(ev.id)} ${range(ev.va_start, ev.va_end)}`);
      // A plain free leaves the busy tree in free_vmap_area; vfree takes the lazy path.
      if (ev.kind === 'busy_remove') {
        const purging = inPurge(f.frames, i);
        expect(n.fn, at).toBe(purging ? '__purge_vmap_area_lazy' : /^free\b/.test(f.text) ? 'free_vmap_area' : 'free_vmap_area_noflush');
        // linux-5.1 keeps no free tree: no step of it may say it has one.
        if (!purging) expect(t, at).not.toMatch(/free tree/);
      }
      if (ev.kind === 'busy_insert') expect(t, at).not.toMatch(/\b1 nodes\b/);
      // The bar draws what the core reports after this micro-step.
      const st = stateAtFrame(f, i);
      const b = st.busy.find((x) => x.id === ev.id);
      if (ev.kind === 'busy_remove') expect(b, `${at}: no longer busy on the bar`).toBeUndefined();
      if (ev.kind === 'busy_insert') expect(b?.lazy, `${at}: busy on the bar`).toBe(false);
      if (ev.kind === 'lazy_enqueue') {
        const lazy = b?.lazy === true || st.lazy.some((l) => l.vaStart <= big(ev.va_start) && big(ev.va_end) <= l.vaEnd);
        expect(lazy, `${at}: lazy on the bar`).toBe(true);
      }
      break;
    }
    default:
      // Every other event about a node names it.
      if (typeof ev.id === 'number' && !['cache_use', 'walk_tree', 'walk_area'].includes(ev.kind)) says(`#${ev.id}`);
  }
}

describe('the narration of every micro-step', () => {
  it('says what the event it narrates reports, in every teaching and conformance scenario', () => {
    const list = scenarios();
    expect(list.length).toBeGreaterThanOrEqual(1 + 7 + 4 + 6);
    const seen = new Map<string, number>();
    for (const [name, text] of list) {
      const s = new Session(Vmapviz.load(text));
      for (let k = 0; k < s.length; k++) {
        const f = s.frames(k)!;
        f.frames.forEach((fr, i) => {
          const ev = fr.event;
          const nodes = new Map(freeNodes(f.trees[fr.tree] ?? NO_INDEX).map((x) => [x.id, x]));
          const n = narrate(ev, { search: searchOf(f.frames, i), nodes, op: f.text, inPurge: inPurge(f.frames, i) });
          const key = ev.kind === 'augment_set' ? `augment_set:${String(ev.cause)}` : ev.kind;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          check(`${name}, op ${k + 1} (${f.text}), micro-step ${i + 1}`, f, i, ev, n, nodes);
          // The core has set its space up before any event: the bar never calls it uninitialised.
          expect(stateAtFrame(f, i).initialized, `${name}, op ${k + 1}, micro-step ${i + 1}`).toBe(true);
        });
        // The bar ends each operation on the state after it.
        if (f.frames.length > 0) {
          const end = stateAtFrame(f, f.frames.length - 1);
          expect(end.busy, `${name} op ${k + 1}`).toEqual(f.after.busy);
          expect(end.lazy, `${name} op ${k + 1}`).toEqual(f.after.lazy);
          expect(end.pools, `${name} op ${k + 1}`).toEqual(f.after.pools);
        }
      }
      s.dispose();
    }
    for (const k of ['augment_set:rotate', 'augment_set:copy', 'augment_set:link_reset', 'rotate', 'merge', 'busy_remove', 'propagate', 'recolor', 'unlinked']) {
      expect(seen.get(k) ?? 0, `${k} is walked`).toBeGreaterThan(0);
    }
  });

  it('tells the two steps of the issue right', () => {
    // Default page, op 9 (`free 0xffffc90000002000`): the insert fix-up, never the erase's copy
    // callback, and link_va's reset named as such.
    const s = new Session(Vmapviz.load(DEFAULT_TRACE));
    const f = s.frames(8)!;
    expect(f.text).toBe('free 0xffffc90000002000');
    const told = f.frames.map((fr, i) => narrate(fr.event, { search: searchOf(f.frames, i), nodes: new Map(freeNodes(f.trees[fr.tree]).map((x) => [x.id, x])) }));
    expect(told.some((n) => n.title === 'Copy callback')).toBe(false);
    const reset = told.find((n) => n.kind === 'augment_set' && n.listing === 'link_va');
    expect(reset?.text).toMatch(/link_va resets/);
    for (const n of told.filter((x) => x.title === 'Rotate callback')) expect(n.listing).toBe('__rb_insert');
    s.dispose();

    // 03_merges.trace, op 11 (`free 0x101000`), micro-step 3: the range before and after.
    const m = new Session(Vmapviz.load(readFileSync(new URL('03_merges.trace', CONFORMANCE), 'utf8')));
    const g = m.frames(10)!;
    expect(g.text).toBe('free 0x101000');
    const ev = g.frames[2].event;
    expect(ev.kind).toBe('merge');
    const n = narrate(ev, { search: null, nodes: new Map(freeNodes(g.trees[g.frames[2].tree]).map((x) => [x.id, x])) });
    expect(n.text).toContain(`${range(ev.old_start, ev.old_end)} grows down to ${range(ev.new_start, ev.new_end)}`);
    expect(range(ev.old_start, ev.old_end)).not.toBe(range(ev.new_start, ev.new_end));
    m.dispose();
  });
});
