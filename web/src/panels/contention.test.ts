// The contention chart's rows come from the core: every variant (maple-rfc with its bump overlay
// on and off included) draws exactly the points the workbench build's `contention` returns for
// it, and the two maple-rfc rows are the core's two runs, not one drawn twice.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as bench from '../pkg-workbench/vmapviz_wasm.js';
import { parseContention } from './api';
import { coreEras } from '../erasNode';
import { contentionSeries, contentionVariants, markTwins, type SweepVariant, type VariantPoint } from './chartsPanel';

const CPUS = '1,4,16';

let CONTENTION_VARIANTS: SweepVariant[] = [];

beforeAll(() => {
  bench.initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
  CONTENTION_VARIANTS = contentionVariants(coreEras());
});

function points(): VariantPoint[] {
  return CONTENTION_VARIANTS.flatMap((v) => parseContention(bench.contention(v.profile, CPUS, 40, v.bump ?? undefined)).map((x) => ({ ...x, variant: v.key })));
}

describe('the contention chart with maple-rfc', () => {
  it('has linux-5.2, 6.1, 6.9, 6.18 and maple-rfc with the overlay on and off', () => {
    expect(CONTENTION_VARIANTS.map((v) => [v.profile, v.bump])).toEqual([
      ['linux-5.2', null],
      ['linux-6.1', null],
      ['linux-6.9', null],
      ['linux-6.18', null],
      ['maple-rfc', true],
      ['maple-rfc', false],
    ]);
    expect(CONTENTION_VARIANTS.map((v) => v.label)).toEqual(['linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc, bump on', 'maple-rfc, bump off']);
  });

  it('draws each row with the values the core returns for it', () => {
    const pts = points();
    for (const key of ['throughput', 'globalLockHold', 'waitShare'] as const) {
      const series = contentionSeries(pts, CONTENTION_VARIANTS, key, '', key === 'throughput' ? 1 : 100);
      expect(series).toHaveLength(6);
      series.forEach((s, i) => {
        const v = CONTENTION_VARIANTS[i];
        // Straight from the facade, for this variant alone.
        const core = JSON.parse(bench.contention(v.profile, CPUS, 40, v.bump ?? undefined)) as Record<string, number>[];
        const field = { throughput: 'throughput', globalLockHold: 'global_lock_hold', waitShare: 'wait_share' }[key];
        expect(s.points.map((p) => p.x)).toEqual([1, 4, 16]);
        expect(s.points.map((p) => p.y)).toEqual(core.map((c) => c[field] * (key === 'throughput' ? 1 : 100)));
        expect(s.points.map((p) => p.data?.value)).toEqual(core.map((c) => +c[field].toFixed(4)));
        expect(s.points.every((p) => p.data?.profile === v.profile)).toBe(true);
        expect(s.points.map((p) => p.data?.bump)).toEqual(core.map(() => (v.bump === null ? undefined : v.bump ? 'on' : 'off')));
      });
    }
  });

  it('keeps the two maple-rfc runs apart: the overlay takes most allocations off the global lock', () => {
    const pts = points();
    const at = (variant: string, cpus: number) => pts.find((x) => x.variant === variant && x.cpus === cpus)!;
    for (const cpus of [1, 4, 16]) expect(at('maple-rfc-bump-on', cpus).globalLockOps).toBeLessThan(at('maple-rfc-bump-off', cpus).globalLockOps);
    // Left out, the switch is on (the core's default, vmap-bench's maple-rfc/bump).
    expect(bench.contention('maple-rfc', CPUS, 40)).toBe(bench.contention('maple-rfc', CPUS, 40, true));
  });

  it('draws an era whose line the core computed equal to an earlier one beneath it, named so', () => {
    const pts = points();
    const plain = contentionSeries(pts, CONTENTION_VARIANTS, 'throughput', '');
    const s = markTwins(plain, CONTENTION_VARIANTS);
    const by = (key: string) => s.find((x) => x.key === `${key}-throughput`)!;
    // 6.18 differs from 6.9 in the pools' decay only, which alloc/vfree pairs never reach.
    expect(by('linux-6.18').points.map((p) => p.y)).toEqual(by('linux-6.9').points.map((p) => p.y));
    expect(by('linux-6.18')).toMatchObject({ label: 'linux-6.18 (= linux-6.9)', beneath: true });
    for (const k of ['linux-5.2', 'linux-6.1', 'linux-6.9', 'maple-rfc-bump-on', 'maple-rfc-bump-off']) {
      expect(by(k).beneath, k).toBeUndefined();
      expect(by(k).label).toBe(plain.find((x) => x.key === `${k}-throughput`)!.label);
    }
    // Lines that differ anywhere are not twins; the overlay's two rows are never folded.
    const moved = plain.map((x) => (x.key === 'linux-6.18-throughput' ? { ...x, points: x.points.map((p, i) => (i === 2 ? { ...p, y: p.y + 1 } : p)) } : x));
    expect(markTwins(moved, CONTENTION_VARIANTS).some((x) => x.beneath)).toBe(false);
    const flat = plain.map((x) => ({ ...x, points: x.points.map((p) => ({ ...p, y: 1 })) }));
    expect(markTwins(flat, CONTENTION_VARIANTS).filter((x) => x.beneath).map((x) => x.key)).toEqual(['linux-6.1-throughput', 'linux-6.9-throughput', 'linux-6.18-throughput']);
  });
});
