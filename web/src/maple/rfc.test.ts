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
