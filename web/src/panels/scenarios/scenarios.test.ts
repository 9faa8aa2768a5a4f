// The linux-6.9 teaching scenarios replay in the core (the wasm build, in Node) and show what
// their comments say.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseState, Session } from '../../bridge';
import { initSync, Vmapviz } from '../../pkg-workbench/vmapviz_wasm.js';
import { poolStory, touchesPools } from '../nodes';
import { NODE_SCENARIOS } from './index';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

function load(name: string): { raw: Vmapviz; s: Session; ops: string[]; out: string[] } {
  const sc = NODE_SCENARIOS.find((x) => x.name === name);
  if (!sc) throw new Error(name);
  const raw = Vmapviz.load(sc.trace);
  const s = new Session(raw);
  const sums = s.summaries();
  return { raw, s, ops: sums.map((x) => x.text), out: sums.map((x) => x.output.trim()) };
}

/** Index of the n-th (0-based) op starting with `prefix`. */
function nth(ops: string[], prefix: string, n = 0): number {
  const all = ops.map((o, i) => [o, i] as const).filter(([o]) => o.startsWith(prefix));
  return all[n][1];
}

describe('linux-6.9 teaching scenarios', () => {
  it('are four, each a linux-6.9 trace that replays', () => {
    expect(NODE_SCENARIOS.map((s) => s.title)).toEqual(['two CPUs, two zones', 'a pool hit skips the tree', 'decay', 'reclaim on failure']);
    for (const sc of NODE_SCENARIOS) {
      expect(sc.trace.startsWith('profile linux-6.9\n')).toBe(true);
      const { raw, s } = load(sc.name);
      expect(s.length).toBeGreaterThan(5);
      expect(raw.check()).toBeUndefined();
    }
  });

  it('two CPUs, two zones: busy areas by start zone, lazy areas on the allocating CPU node', () => {
    const { s } = load('two_cpus_two_zones');
    const end = s.state(s.length);
    expect(end.nrNodes).toBe(2);
    expect(end.zoneSize).toBe(0x10000n);
    // 0x...5000 (CPU 1, zone 0) waits on node 1; 0x...12000 (CPU 0, zone 1) on node 0.
    expect(end.lazy.map((l) => [l.node, l.vaStart, l.vaEnd])).toEqual([
      [0, 0xffffc90000012000n, 0xffffc90000015000n],
      [1, 0xffffc90000005000n, 0xffffc9000000a000n],
    ]);
    expect(end.busy.filter((b) => b.node === 0).map((b) => b.vaStart)).toEqual([0xffffc90000000000n, 0xffffc9000000a000n]);
  });

  it('a pool hit skips the tree: same free tree before and after, pool one shorter', () => {
    const { s, ops, out } = load('pool_hit');
    const hit = nth(ops, 'alloc', 5);
    expect(out[hit]).toBe('alloc -> 0xffffc90000006000');
    const frames = s.frames(hit);
    expect(frames).not.toBeNull();
    const kinds = frames!.frames.map((x) => x.event.kind);
    expect(kinds).toContain('pool_hit');
    expect(kinds).not.toContain('search_start');
    expect(frames!.after.index).toEqual(frames!.before.index);
    expect(frames!.before.pools[0].entries.length - frames!.after.pools[0].entries.length).toBe(1);
    expect(poolStory(frames!).join(' ')).toMatch(/pool hit: node 1's pool 1 gave its head \[0xffffc90000006000/);
    // CPU 0 then misses and the tree answers.
    const miss = s.frames(nth(ops, 'alloc', 6))!;
    expect(miss.frames.map((x) => x.event.kind)).toContain('search_start');
  });

  it('decay: 8, 6, 5, 4, 3, then all', () => {
    const { s, ops } = load('decay');
    const lens: number[] = [];
    for (let i = 0; i < 6; i++) {
      const k = nth(ops, 'purge', i);
      const st = parseState(JSON.stringify(stateJson(s, k + 1)));
      lens.push(st.pools.reduce((a, p) => a + p.entries.length, 0));
      expect(touchesPools(s.frames(k)!)).toBe(true);
    }
    expect(lens).toEqual([8, 6, 5, 4, 3, 0]);
    expect(poolStory(s.frames(nth(ops, 'purge', 1))!).join(' ')).toMatch(/gave 2 entries back to the free tree, kept 6/);
  });

  it('reclaim on failure: the miss on CPU 1 reclaims every pool, then succeeds', () => {
    const { s, ops, out } = load('reclaim_on_failure');
    const k = ops.length - 3; // the last alloc, before `pools` and `dump`
    expect(ops[k]).toMatch(/^alloc 0x4000/);
    expect(out[k]).toBe('alloc -> 0xffffc90000000000');
    const f = s.frames(k)!;
    expect(f.before.pools.length).toBe(1);
    expect(f.after.pools).toEqual([]);
    expect(f.frames.some((x) => x.event.kind === 'purge_start' && x.event.cause === 'alloc_retry')).toBe(true);
    expect(poolStory(f).join(' ')).toMatch(/reclaims/);
  });
});

describe('what a purge did, in words', () => {
  it('pooled areas join the pools; with one node the lazy areas go back in descending order', () => {
    const two = Vmapviz.load(`${NODE_SCENARIOS[0].trace}purge\n`);
    const f2 = new Session(two).frames(two.len() - 1)!;
    expect(poolStory(f2).join(' ')).toBe('2 lazy areas joined the pools at the head instead of the free tree.');
    const a = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff';
    const one = Vmapviz.load(`profile linux-6.9\n${a}\n${a}\n${a}\nvfree 0xffffc90000000000\nvfree 0xffffc90000002000\nvfree 0xffffc90000004000\npurge\n`);
    const f1 = new Session(one).frames(one.len() - 1)!;
    expect(poolStory(f1).join(' ')).toBe(
      '3 blocks went back into the free tree, in this order (descending): 0xffffc90000004000, 0xffffc90000002000, 0xffffc90000000000.',
    );
  });
});

describe('where each scenario opens', () => {
  it('at its start, or just before the operation it is about (the pool hit)', () => {
    for (const sc of NODE_SCENARIOS) {
      const s = new Session(Vmapviz.load(sc.trace));
      expect(sc.step, sc.name).toBeGreaterThanOrEqual(0);
      expect(sc.step, sc.name).toBeLessThan(s.length);
      if (sc.name === 'pool_hit') {
        // → from there steps into the pool hit: its first micro-step, on CPU 1's node.
        const f = s.frames(sc.step)!;
        expect(f.frames[0].event.kind).toBe('pool_hit');
        expect(f.frames.some((fr) => fr.event.kind === 'search_start')).toBe(false);
        // and no earlier operation hit a pool.
        for (let k = 0; k < sc.step; k++) expect(s.frames(k)!.frames.some((fr) => fr.event.kind === 'pool_hit')).toBe(false);
      } else {
        expect(sc.step, sc.name).toBe(0);
      }
      s.dispose();
    }
  });
});

function stateJson(s: Session, k: number): unknown {
  const st = s.state(k);
  // Round-trip through the bridge's JSON shape (hex strings) to exercise parseState.
  return {
    profile: st.profile,
    cpus: st.cpus,
    cpu: st.cpu,
    lazy_nr: st.lazyNr,
    lazy_max: st.lazyMax,
    nr_nodes: st.nrNodes,
    zone_size: `0x${st.zoneSize.toString(16)}`,
    space: st.space.map((v) => `0x${v.toString(16)}`),
    index: { kind: 'free_tree', root: null, nodes: [] },
    busy: [],
    lazy: [],
    pools: st.pools.map((p) => ({ node: p.node, pool: p.pool, entries: p.entries.map((e) => ({ id: e.id, va_start: `0x${e.vaStart.toString(16)}`, va_end: `0x${e.vaEnd.toString(16)}` })) })),
    initialized: st.initialized,
  };
}
