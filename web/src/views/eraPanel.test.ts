import { describe, expect, it } from 'vitest';
import type { State, StepEvent } from '../bridge';
import type { Era } from '../eras';
import { eraModel as model } from './eraPanel';

const area = (id: number, start: number, pages: number, node = 0) => ({ id, vaStart: BigInt(start), vaEnd: BigInt(start + pages * 0x1000), node, lazy: false });
const state = (s: Partial<State>): State => ({ profile: 'linux-5.1', busy: [], lazy: [], pools: [], nrNodes: 1, ...s }) as unknown as State;
const ev = (kind: string, f: Record<string, unknown> = {}) => ({ kind, ...f }) as StepEvent;

/** Two eras, as a registry would say them: a list walk, and one with vmap nodes. */
const era = (name: string, f: Partial<Era>): Era => ({
  name,
  firstRelease: null,
  isDefault: false,
  freeTree: true,
  lazyInBusy: false,
  vmapNodes: false,
  perCpu: false,
  bumpOverlay: false,
  bugOnBadRequest: false,
  moduleTests: 0,
  ...f,
});
const ERAS = [era('linux-5.1', { freeTree: false, lazyInBusy: true }), era('linux-5.2', {}), era('linux-6.9', { vmapNodes: true, perCpu: true })];
const eraModel = (s: State, events: readonly StepEvent[], eras: readonly Era[] = ERAS) => model(s, events, eras);

describe('eraModel', () => {
  it('5.1: the cache and the cursor are the ones the events name, the list in the state\'s order', () => {
    const s = state({ busy: [area(0, 0x100000, 1), area(3, 0x103000, 1), area(4, 0x104000, 1)] as State['busy'] });
    const m = eraModel(s, [
      ev('cache_use', { id: 0, va_start: '0x100000', va_end: '0x101000', addr: '0x101000' }),
      ev('walk_area', { id: 3, va_start: '0x103000', va_end: '0x104000', addr: '0x104000', cached_hole_size: '0x2000' }),
    ]);
    expect(m).toEqual({
      kind: 'list',
      areas: [
        { id: 0, start: 0x100000n, end: 0x101000n, cache: true, cursor: false },
        { id: 3, start: 0x103000n, end: 0x104000n, cache: false, cursor: true },
        { id: 4, start: 0x104000n, end: 0x105000n, cache: false, cursor: false },
      ],
      cache: { id: 0 },
      walk: { id: 3, addr: 0x104000n, hole: 0x2000n },
    });
  });

  it('5.1: a cache_reset drops the cache; between operations nothing is claimed', () => {
    const s = state({ busy: [area(0, 0x100000, 1)] as State['busy'] });
    const m = eraModel(s, [ev('cache_use', { id: 0 }), ev('cache_reset', { why: 'smaller_than_hole' })]);
    expect(m && m.kind === 'list' && m.cache).toEqual({ dropped: 'smaller_than_hole' });
    expect(m && m.kind === 'list' && m.areas[0].cache).toBe(false);
    const idle = eraModel(s, []);
    expect(idle && idle.kind === 'list' && idle.cache).toBe(null);
    expect(idle && idle.kind === 'list' && idle.walk).toBe(null);
  });

  it('6.9: pools by node, the pool and the lazy list the last event names marked', () => {
    const s = state({
      profile: 'linux-6.9',
      nrNodes: 2,
      busy: [area(1, 0x200000, 1, 0)] as State['busy'],
      lazy: [{ id: 5, vaStart: 0x300000n, vaEnd: 0x302000n, node: 1 }] as State['lazy'],
      pools: [{ node: 1, pool: 1, entries: [{ id: 7, vaStart: 0x400000n, vaEnd: 0x402000n }, { id: 8, vaStart: 0x410000n, vaEnd: 0x412000n }] }] as State['pools'],
    });
    const hit = eraModel(s, [ev('pool_hit', { node: 1, pool: 1, va_start: '0x420000', va_end: '0x422000' })]);
    expect(hit).toEqual({
      kind: 'nodes',
      nodes: [
        { node: 0, busy: 1, pools: [], lazy: [], lazyHot: false, hot: false },
        { node: 1, busy: 0, pools: [{ pool: 1, sizes: [0x2000n, 0x2000n], hot: true }], lazy: [0x2000n], lazyHot: false, hot: true },
      ],
    });
    // A miss on an empty pool still shows that pool, empty, marked.
    const miss = eraModel(s, [ev('pool_miss', { node: 0, pool: 3 })]);
    expect(miss && miss.kind === 'nodes' && miss.nodes[0].pools).toEqual([{ pool: 3, sizes: [], hot: true }]);
    // A lazy enqueue marks the list of the node that holds the area.
    const enq = eraModel(s, [ev('lazy_enqueue', { id: 5 })]);
    expect(enq && enq.kind === 'nodes' && enq.nodes.map((n) => n.lazyHot)).toEqual([false, true]);
  });

  it('other eras have no era panel', () => {
    expect(eraModel(state({ profile: 'linux-5.2' }), [])).toBe(null);
    // What an era has is the registry's word, not its name's.
    expect(eraModel(state({ profile: 'linux-5.1' }), [], [era('linux-5.1', {})])).toBe(null);
    expect(eraModel(state({ profile: 'linux-9.9', nrNodes: 1 }), [], [...ERAS, era('linux-9.9', { vmapNodes: true })])?.kind).toBe('nodes');
    expect(eraModel(state({ profile: 'maple-tree' }), [])).toBe(null);
  });
});
