// Compare mode's micro-steps: which frame a column shows at lock-step frame f (holding its last
// when it has fewer), its counter, and each frame narrated and focused from the column's own
// frames (the core's, from the view's wasm build): linux-6.9's free-tree search and maple-rfc's
// occupied-tree search on one trace with holes.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { holesTrace, RFC_S2_SETUP, VEND as VE, VSTART as VS } from '../../../e2e/fixtures/rfc';
import { Session, type OpFrames } from '../bridge';
import { initSync, Vmapviz } from '../pkg/vmapviz_wasm.js';
import { forProfile } from './api';
import { columnFrame, frameLabel, frameView, holdNote, lockstepFrames, whyOf } from './lockstep';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

describe('lock-step frames', () => {
  it('shows frame f of a column while it has one, then holds its last', () => {
    expect(columnFrame(-1, 5)).toEqual({ index: -1, held: false });
    expect(columnFrame(0, 5)).toEqual({ index: 0, held: false });
    expect(columnFrame(4, 5)).toEqual({ index: 4, held: false });
    expect(columnFrame(5, 5)).toEqual({ index: 4, held: true });
    expect(columnFrame(22, 5)).toEqual({ index: 4, held: true });
    // An operation without micro-steps in this column: the state before it, held.
    expect(columnFrame(0, 0)).toEqual({ index: -1, held: true });
  });

  it('has as many frames as its longest column', () => {
    expect(lockstepFrames([7, 23, 0])).toBe(23);
    expect(lockstepFrames([])).toBe(0);
  });

  it('counts as a person does, and says when a column holds', () => {
    expect(frameLabel(6, 23)).toBe('frame 7/23');
    expect(frameLabel(22, 23)).toBe('frame 23/23');
    expect(frameLabel(30, 23)).toBe('frame 23/23');
    expect(frameLabel(-1, 23)).toBe('frame —/23');
    expect(frameLabel(3, 0)).toBe('frame 0/0');
    expect(holdNote(6, 23)).toBe('');
    expect(holdNote(-1, 0)).toBe('');
    expect(holdNote(23, 23)).toBe('done after 23 frames: holds its last frame while the others go on (frame 24)');
    expect(holdNote(0, 0)).toContain('no micro-steps');
  });
});

function lastOp(profile: string): { of: OpFrames; s: Session } {
  const s = new Session(Vmapviz.load(forProfile(holesTrace(), profile, profile === 'maple-rfc')));
  const of = s.frames(s.length - 1);
  if (!of) throw new Error('no frames');
  return { of, s };
}

describe('a column frame, narrated and focused from its own frames', () => {
  it('linux-6.9: each visit of the free-tree search is narrated and marks the node it visits', () => {
    const { of, s } = lastOp('linux-6.9');
    let visits = 0;
    of.frames.forEach((fr, i) => {
      const v = frameView(of, i);
      expect(v.event).toBe(fr.event.kind);
      expect(v.narration?.kind).toBe(fr.event.kind);
      expect(v.narration?.text.length).toBeGreaterThan(10);
      if (fr.event.kind === 'visit') {
        visits++;
        expect(v.node).toBe(fr.event.id);
        expect(v.free.marks.get(fr.event.id as number)?.some((m) => m === 'visit' || m === 'found')).toBe(true);
      }
    });
    expect(visits).toBeGreaterThan(2);
    s.dispose();
  });

  it('maple-rfc: each node the occupied-tree search visits or scans is its focus node', () => {
    const { of, s } = lastOp('maple-rfc');
    let seen = 0;
    of.frames.forEach((fr, i) => {
      const v = frameView(of, i);
      expect(v.event).toBe(fr.event.kind);
      expect(v.free.marks.size).toBe(0);
      expect(v.narration).not.toBeNull();
      const inner = fr.event.kind === 'maple' && fr.event.tree === 'occupied' ? (fr.event.event as { kind: string; node?: number }) : null;
      if (inner && (inner.kind === 'visit' || inner.kind === 'scan')) {
        seen++;
        expect(v.node).toBe(inner.node);
        expect(v.maple?.path).toContain(inner.node);
        expect(v.narration?.kind).toBe(inner.kind);
      }
    });
    expect(seen).toBeGreaterThan(2);
    // The two columns' operations differ in length: the shorter one holds in lock-step.
    const six = lastOp('linux-6.9');
    expect(of.frames.length).not.toBe(six.of.frames.length);
    six.s.dispose();
    s.dispose();
  });

  it('a frame past the end is no frame: the state before the operation, nothing said', () => {
    const { of, s } = lastOp('linux-6.9');
    const v = frameView(of, of.frames.length);
    expect(v.state).toBe(of.before);
    expect(v.narration).toBeNull();
    expect(v.node).toBeNull();
    s.dispose();
  });
});

describe('why an answer differs, from the column\'s own events', () => {
  const events = (trace: string, k: number) => {
    const s = new Session(Vmapviz.load(trace));
    const ev = s.frames(k)?.frames.map((f) => f.event) ?? [];
    s.dispose();
    return ev;
  };
  // The spec's S2: a 64 KiB-aligned request whose low hole is too short after padding.
  const S2 = [
    ...RFC_S2_SETUP,
    'alloc 0x6000 0x10000 0xffffc90000000000 0xffffc90000100000',
  ].join('\n');

  it('maple-rfc: the search padded to size + align − 1 (S2); linux-6.9 names no cause', () => {
    const rfc = events(S2, 6);
    expect(whyOf(rfc)).toEqual(['searched for size + align − 1 = 0x15fff (align 0x10000 > PAGE_SIZE): a shorter hole is passed over even where an aligned fit exists']);
    expect(whyOf(events(forProfile(S2, 'linux-6.9', false), 6))).toEqual([]);
    // A one-page request is not padded: nothing to say.
    expect(whyOf(events(S2, 2))).toEqual([]);
  });

  it('maple-rfc: the refill and the hit of the first allocation, the hit alone of the second', () => {
    const t = ['profile maple-rfc', `alloc 0x2000 0x1 0x${VS.toString(16)} ${VE}`, `alloc 0x2000 0x1 0x${VS.toString(16)} ${VE}`].join('\n');
    expect(whyOf(events(t, 1))).toEqual(['bump refill: a new chunk for CPU 0 from the occupied tree', "bump hit: carved from CPU 0's chunk, no tree searched"]);
    expect(whyOf(events(t, 2))).toEqual(["bump hit: carved from CPU 0's chunk, no tree searched"]);
  });

  it('counts the holes the window loop skipped', () => {
    const miss = { kind: 'window_hole', fits: false };
    expect(whyOf([{ kind: 'window_start', size: '0x3000', len: '0x3000', align: '0x1000' }, miss, miss, { kind: 'window_hole', fits: true }])).toEqual([
      'window loop: 2 holes too short once aligned, searched again past them',
    ]);
  });

  it('names the pool and the cache hint, once each', () => {
    expect(whyOf([{ kind: 'pool_hit', node: 2 }, { kind: 'pool_hit', node: 2 }])).toEqual(["from vmap node 2's pool (a recycled area), no free-tree search"]);
    expect(whyOf([{ kind: 'cache_use' }, { kind: 'walk_area' }])).toEqual(['started at the free_vmap_cache hint, above lower holes']);
    expect(whyOf([{ kind: 'visit' }, { kind: 'fit' }])).toEqual([]);
  });
});
