// Pure pieces of issue 15's panels: the struct layouts, the memory rows, the trace rewrite that
// replays a maple-rfc trace under another profile, and the bridge's chunks and memory.
import { describe, expect, it } from 'vitest';
import { bytesPerLiveArea, parseStateValue } from '../bridge';
import { counterKeys, counterLabel, differingSteps, opResult, forProfile, parseCounters } from './api';
import { bytesText, layout, memoryRows, VMAP_AREA_69, VMAP_AREA_RFC } from './structPanel';
import { coreEras } from '../erasNode';
import { sweepSeries, sweepVariants, variantPoints } from './chartsPanel';

describe('struct vmap_area', () => {
  it('is 72 bytes in linux-6.9 and 48 in maple-rfc, field by field', () => {
    const a = layout(VMAP_AREA_69);
    expect(a.size).toBe(72);
    expect(a.offsets).toEqual([0, 8, 16, 40, 56, 64]);
    const b = layout(VMAP_AREA_RFC);
    expect(b.size).toBe(48);
    expect(b.offsets).toEqual([0, 8, 16, 32, 40]);
    // What the RFC removed: the rb_node, and the union's subtree_max_size.
    expect(VMAP_AREA_69.filter((f) => f.gone).map((f) => f.name)).toEqual(['rb_node']);
    expect(VMAP_AREA_RFC.map((f) => f.name)).not.toContain('rb_node');
  });

  it('splits the index bytes into objects, nodes and chunks that add up to the total', () => {
    const m = { vmapAreaBytes: 48, objects: 40, freeBlocks: 0, liveAreas: 40, occupiedNodes: 5, busyTreeNodes: 3, freeTreeNodes: 1, chunks: 2, indexBytes: 40 * 48 + 9 * 256 + 2 * 131136 };
    const rows = memoryRows(m);
    expect(rows.map((r) => r.bytes)).toEqual([1920, 0, 1280, 768, 256, 262272]);
    expect(rows.reduce((n, r) => n + r.bytes, 0)).toBe(m.indexBytes);
    expect(bytesPerLiveArea(m)).toBeCloseTo(m.indexBytes / 40);
    const t = { vmapAreaBytes: 72, objects: 12, freeBlocks: 2, liveAreas: 10, occupiedNodes: 0, busyTreeNodes: 0, freeTreeNodes: 0, chunks: 0, indexBytes: 864 };
    expect(memoryRows(t).slice(0, 2).map((r) => r.bytes)).toEqual([720, 144]);
    expect(bytesPerLiveArea(t)).toBe(86.4);
    expect(bytesPerLiveArea({ ...t, liveAreas: 0 })).toBe(864);
  });

  it('writes bytes exactly when small', () => {
    expect(bytesText(1920)).toBe('1,920 B');
    expect(bytesText(262272)).toBe('256.1 KiB');
    expect(bytesText(64 << 20)).toBe('64.0 MiB');
  });
});

describe('forProfile', () => {
  const t = 'profile maple-rfc\nbump off\nearly 0x3000 0x1000 0x1 0x2\nalloc 0x2000 0x1 0x1 0x9\n# bump on\n  bump on\n';
  it('keeps a maple-rfc trace as it is under maple-rfc', () => {
    expect(forProfile(t, 'maple-rfc', true)).toBe(t);
  });
  it('turns maple-rfc lines into their equivalents at the same index under another profile', () => {
    expect(forProfile(t, 'linux-6.9', false)).toBe('profile linux-6.9\ndump\nalloc 0x3000 0x1000 0x1 0x2\nalloc 0x2000 0x1 0x1 0x9\n# bump on\n  dump\n');
    expect(forProfile('alloc 0x2000 0x1 0x1 0x9', 'linux-5.2', false)).toBe('profile linux-5.2\nalloc 0x2000 0x1 0x1 0x9');
  });
});

describe('the bridge', () => {
  it('reads the bump chunks and the memory of a state', () => {
    const s = parseStateValue({
      initialized: true,
      profile: 'maple-rfc',
      cpus: 1,
      cpu: 0,
      lazy_nr: 0,
      lazy_max: 0,
      nr_nodes: 1,
      zone_size: '0x1',
      space: ['0x1', '0xffffffffffffffff'],
      index: { kind: 'free_tree', root: null, nodes: [] },
      busy: [],
      lazy: [],
      pools: [],
      chunks: [{ base: '0xffffc90000000000', limit: '0xffffc90004000000', bump: '0xffffc90000006000', pages: 3, owner_cpu: 0, current: true }],
      memory: { vmap_area_bytes: 48, objects: 3, free_blocks: 0, live_areas: 3, occupied_nodes: 1, busy_tree_nodes: 0, free_tree_nodes: 1, chunks: 1, index_bytes: 131792 },
    });
    expect(s.chunks).toEqual([{ base: 0xffffc90000000000n, limit: 0xffffc90004000000n, bump: 0xffffc90000006000n, pages: 3, ownerCpu: 0, current: true }]);
    expect(s.memory?.indexBytes).toBe(131792);
    expect(s.memory?.vmapAreaBytes).toBe(48);
  });
  it('leaves them out of a state that has none', () => {
    const s = parseStateValue({ profile: 'linux-5.2', cpus: 1, cpu: 0, lazy_nr: 0, lazy_max: 0, space: ['0x1', '0x2'], index: { kind: 'free_tree', root: null, nodes: [] }, busy: [] });
    expect(s.chunks).toEqual([]);
    expect(s.memory).toBeUndefined();
  });
});

describe('compare: results and counters', () => {
  it('finds the operations whose first output line differs between columns', () => {
    const a = ['alloc -> 0x1000', 'alloc -> 0x3000', 'alloc -> FAIL', ''];
    const b = ['alloc -> 0x1000', 'alloc -> 0x9000', 'alloc -> FAIL', ''];
    expect(differingSteps([a, b], 4)).toEqual([2]);
    expect(differingSteps([a, b], 1)).toEqual([]);
    expect(differingSteps([a], 4)).toEqual([]);
    expect(opResult('  alloc -> 0x1000\nmore\n')).toBe('alloc -> 0x1000');
    expect(opResult('dump height=1 nodes=1\nnode 0 leaf\n')).toBe('');
    expect(opResult('')).toBe('');
  });

  it('keeps counters the contract does not name yet, and lists their keys after the known ones', () => {
    const c = parseCounters(
      JSON.stringify({
        per_op: [{ ops: 1, nodes_visited: '0x2', list_walked: '0x0', comparisons: '0x0', rotations: '0x0', recolors: '0x0', propagations: '0x0', cache_lines: '0x1', slots_scanned: '0x7', maple_nodes_visited: 3 }],
        total: { ops: 1, nodes_visited: '0x2', list_walked: '0x0', comparisons: '0x0', rotations: '0x0', recolors: '0x0', propagations: '0x0', cache_lines: '0x1', slots_scanned: '0x7', maple_nodes_visited: 3 },
      }),
    );
    expect(c.total.slots_scanned).toBe(7);
    expect(c.total.maple_nodes_visited).toBe(3);
    expect(counterKeys([c.total]).slice(-2)).toEqual(['slots_scanned', 'maple_nodes_visited']);
    expect(counterLabel('slots_scanned')).toBe('slots scanned');
    expect(counterLabel('cache_lines')).toBe('cache lines (est.)');
  });
});

describe('the sweep with maple-rfc', () => {
  const pt = (profile: string, bump: boolean | null, live: number, nodesVisited: number) => ({
    profile,
    bump,
    live,
    ops: 400,
    nodesVisited,
    listWalked: 0,
    propagations: 0,
    cacheLines: nodesVisited,
    work: nodesVisited,
  });
  const pts = [pt('linux-6.9', null, 100, 9), pt('maple-rfc', false, 100, 3), pt('maple-rfc', true, 100, 0), pt('linux-6.9', null, 1000, 12)];

  it('has maple-rfc twice, the overlay off and on, and picks each one its points', () => {
    const SWEEP_VARIANTS = sweepVariants(coreEras());
    expect(SWEEP_VARIANTS.map((v) => v.key)).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc-bump-off', 'maple-rfc-bump-on']);
    const off = SWEEP_VARIANTS.find((v) => v.key === 'maple-rfc-bump-off')!;
    const six = SWEEP_VARIANTS.find((v) => v.key === 'linux-6.9')!;
    expect(variantPoints(pts, off).map((p) => p.nodesVisited)).toEqual([3]);
    expect(variantPoints(pts, six).map((p) => p.live)).toEqual([100, 1000]);
  });

  it('draws a zero on the floor of the log axis and says which overlay a point had', () => {
    const keys = ['linux-6.9', 'maple-rfc-bump-off', 'maple-rfc-bump-on'];
    const s = sweepSeries(pts, sweepVariants(coreEras()).filter((v) => keys.includes(v.key)), 'nodesVisited', 'random');
    expect(s.map((x) => x.points.length)).toEqual([2, 1, 1]);
    expect(s[2].points[0]).toMatchObject({ x: 100, y: 0.1, data: { profile: 'maple-rfc', bump: 'on', value: 0 } });
    expect(s[1].points[0].data).toMatchObject({ bump: 'off', value: 3 });
    expect(s[0].points[0].data).not.toHaveProperty('bump');
  });
});
