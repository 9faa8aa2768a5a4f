// Every workload of the catalogue runs through the facade the page's worker uses (generate into
// a Loader, replay in steps) for every profile, with 1, 2 and 128 CPUs.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initSync, Loader, workloads, workload, workload_params } from '../pkg-workbench/vmapviz_wasm.js';
import { countOps, parseCatalogue, parseResolved } from './api';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

describe('workloads through the facade', () => {
  it('lists the 13 kernel tests with their mask bits, the module and the teaching scenarios', () => {
    const c = parseCatalogue(workloads());
    const tests = c.workloads.filter((w) => w.kind === 'kernel_test');
    expect(tests).toHaveLength(13);
    expect(tests.map((t) => t.bit)).toEqual(tests.map((_, i) => 1 << i));
    expect(c.workloads.filter((w) => w.kind === 'module').map((w) => w.name)).toEqual(['test_vmalloc']);
    const teaching = c.workloads.filter((w) => w.kind === 'teaching').map((w) => w.name);
    expect(teaching).toHaveLength(11);
    // The maple-rfc scenarios S1–S5 of the spec (§11.10) are among them.
    expect(teaching.filter((n) => n.startsWith('rfc_s')).sort()).toEqual([
      'rfc_s1_two_trees',
      'rfc_s2_alignment_padding',
      'rfc_s3_free_space_without_objects',
      'rfc_s4_bump_overlay',
      'rfc_s5_syzbot_overlap',
    ]);
    expect(c.presets).toEqual(['performance', 'stress', 'smoke']);
    expect(c.defaults.loops).toBe(1_000_000);
  });

  it('every workload replays under every profile with 1, 2 and 128 CPUs', () => {
    const c = parseCatalogue(workloads());
    for (const profile of c.profiles) {
      for (const cpus of [1, 2, 128]) {
        for (const w of c.workloads) {
          const params = JSON.stringify({ profile, cpus, loops: 3, seed: 7, keep: 20 });
          const l = Loader.workload(w.name, params);
          const total = l.total();
          for (let done = 0; done < total; ) done = l.advance(50_000)[1] ?? total;
          const s = l.finish();
          l.free();
          expect(s.len(), `${w.name} ${profile} ${cpus}`).toBe(total);
          expect(s.check(), `${w.name} ${profile} ${cpus}`).toBeUndefined();
          s.free();
        }
      }
    }
  });

  it('the text form has the same operations, with the notes as comments', () => {
    const params = JSON.stringify({ profile: 'linux-6.9', cpus: 4, loops: 5, seed: 1 });
    const text = workload('test_vmalloc', params);
    expect(text).toMatch(/^# /m);
    const l = Loader.workload('test_vmalloc', params);
    expect(countOps(text)).toBe(l.total());
    l.free();
  });

  it('presets resolve as test_vmalloc.sh sets them', () => {
    const base = JSON.stringify({ profile: 'linux-5.2', cpus: 8, loops: 100 });
    expect(parseResolved(workload_params(base, 'smoke')).params).toMatchObject({ loops: 10_000, test_repeat_count: 10, nr_threads: 1 });
    expect(parseResolved(workload_params(base, 'stress'))).toMatchObject({ threads: 8, params: { test_repeat_count: 20 } });
    expect(parseResolved(workload_params(base, 'performance')).params).toMatchObject({ sequential_test_order: true, test_repeat_count: 3 });
    expect(() => workload_params(base, 'turbo')).toThrow(/unknown preset/);
  });
});
