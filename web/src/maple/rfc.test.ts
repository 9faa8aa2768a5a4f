// maple-rfc's frames in words, from the view's wasm build: every micro-step of a trace that
// exercises the window loop (unaligned window), splits, gap updates, frees, vfrees, a purge and
// the bump overlay (hit, miss, refill, unlink, fast reject) is narrated with words of its own,
// each naming what its event reports, and a listing the code panel has.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFrames, type StepEvent } from '../bridge';
import type { MapleStepEvent } from './bridge';
import { hex, parseBig } from '../format';
import { LISTINGS } from '../narrate/code';
import { initSync, Vmapviz } from '../pkg/vmapviz_wasm.js';
import { registerMapleListings } from './code';
import { narrateRfc, registerRfcListings, rfcFocus } from './rfc';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
  registerMapleListings();
  registerRfcListings();
});

const VS = 0xffffc90000000000n;
const ALLOC = `alloc 0x2000 0x1 0x${VS.toString(16)} 0xffffe8ffffffffff`;

function trace(bump: boolean): string {
  const lines = ['profile maple-rfc', `bump ${bump ? 'on' : 'off'}`];
  for (let i = 0; i < 120; i++) lines.push(ALLOC);
  for (let i = 1; i < 120; i += 3) lines.push(`${i % 2 ? 'vfree' : 'free'} 0x${(VS + BigInt(i) * 0x2000n).toString(16)}`);
  lines.push('purge');
  lines.push(`alloc 0x3000 0x1000 0x${(VS + 0x100000800n).toString(16)} 0xffffe8ffffffffff`);
  lines.push(`alloc 0x4000 0x10000 0x${VS.toString(16)} 0xffffe8ffffffffff`);
  lines.push('free 0xffffffffa0000000');
  return lines.join('\n');
}

describe('maple-rfc narration', () => {
  for (const bump of [false, true]) {
    it(`says every micro-step in words of its own (bump ${bump ? 'on' : 'off'})`, () => {
      const v = Vmapviz.load(trace(bump));
      const seen = new Set<string>();
      for (let k = 0; k < v.len(); k++) {
        const f = parseFrames(v.frames(k))!;
        f.frames.forEach((fr, i) => {
          const ev = fr.event as StepEvent;
          const n = narrateRfc(f, i)!;
          const where = `op ${k} (${f.text}) frame ${i} ${ev.kind}`;
          expect(n, where).not.toBeNull();
          // No generic fallback: each kind has its own sentence.
          expect(n.text, where).not.toMatch(/^Event /);
          expect(LISTINGS[n.listing], `${where}: listing ${n.listing}`).toBeDefined();
          // maple-rfc keeps no free tree: neither the words nor the code listing may name one.
          expect(n.text, where).not.toMatch(/free tree/i);
          expect(LISTINGS[n.listing].lines.map((l) => l.text).join('\n'), `${where}: listing ${n.listing}`).not.toMatch(/free tree/i);
          const inner = ev.kind === 'maple' ? (ev.event as MapleStepEvent) : null;
          seen.add(inner ? `${String(ev.tree)}:${inner.kind}` : ev.kind);
          if (ev.kind === 'window_hole') {
            expect(n.text, where).toContain(hex(parseBig(ev.candidate)));
            if (ev.fits === true) expect(n.text, where).toContain('is the address');
            else if (ev.next !== null) expect(n.text, where).toContain(`search again from ${hex(parseBig(ev.next))}`);
          }
          if (ev.kind === 'bump_hit') expect(n.text, where).toContain('No maple tree and no busy tree is touched');
          if (inner && ev.tree === 'occupied' && inner.kind === 'scan') {
            expect(n.text, where).toContain(`slot ${String(inner.slot)}`);
            const focus = rfcFocus(f, i);
            expect(focus.node, where).toBe(inner.node);
            expect(focus.scanned.get(Number(inner.slot)), where).toBe(inner.fits === true);
          }
          if (inner && ev.tree === 'occupied' && inner.kind === 'gap_update') expect(n.text, where).toMatch(/^gap of #\d+ slot \d+/);
        });
      }
      const want = bump
        ? ['bump_hit', 'bump_refill', 'bump_unlink', 'bump_fast_reject', 'occupied:store_begin']
        : ['window_start', 'window_hole', 'occupied:scan', 'occupied:found', 'occupied:gap_update', 'occupied:split', 'busy:store_begin', 'lazy_enqueue', 'purge_area'];
      for (const k of want) expect(seen.has(k), `${k} is narrated`).toBe(true);
      v.free();
    });
  }
});

describe('maple-rfc purge', () => {
  it("says where each purged area goes: a node's pool, or a NULL store once the list is done", () => {
    const lines = ['profile maple-rfc', 'cpus 2', 'bump off'];
    for (let i = 0; i < 40; i++) lines.push(ALLOC);
    const vfree = (from: number, to: number) => {
      for (let i = from; i < to; i++) lines.push(`vfree 0x${(VS + BigInt(i) * 0x2000n).toString(16)}`);
    };
    vfree(5, 15);
    lines.push('purge'); // areas this small go to the vmap nodes' pools
    vfree(20, 30);
    lines.push('reclaim'); // the pools' full decay: nothing is pooled, the ranges become NULL
    const v = Vmapviz.load(lines.join('\n'));
    const told = (k: number) => {
      const f = parseFrames(v.frames(k))!;
      return { f, purged: f.frames.flatMap((fr, i) => (fr.event.kind === 'purge_area' ? [narrateRfc(f, i)!.text] : [])) };
    };
    const purge = told(lines.indexOf('purge'));
    expect(purge.f.text).toBe('purge');
    expect(purge.purged).toHaveLength(10);
    expect(purge.f.frames.filter((fr) => fr.event.kind === 'pooled')).toHaveLength(10);
    for (const t of purge.purged) expect(t).toMatch(/goes into node \d+'s pool \d+/);
    const reclaim = told(lines.indexOf('reclaim'));
    expect(reclaim.purged.length).toBeGreaterThanOrEqual(10);
    for (const t of reclaim.purged) expect(t).toMatch(/not kept in a pool .*NULL store/);
    expect(reclaim.f.frames.some((fr) => fr.event.kind === 'maple' && fr.event.tree === 'occupied')).toBe(true);
    v.free();
  });
});
