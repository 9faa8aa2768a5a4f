import { describe, expect, it } from 'vitest';
import {
  countOps,
  parseCatalogue,
  parseContention,
  parseCounters,
  parseReport,
  parseResolved,
  parseSweep,
  traceProfile,
  withProfile,
  work,
} from './api';
import { lineAt } from './limits';

describe('facade JSON parsing', () => {
  it('reads the workload catalogue, hex or number', () => {
    const c = parseCatalogue(
      JSON.stringify({
        workloads: [
          { name: 'fix_size_alloc_test', description: 'd', bit: 1, kind: 'kernel_test' },
          { name: 'first_allocation', description: 'e', bit: null, kind: 'teaching' },
        ],
        presets: ['performance', 'stress', 'smoke'],
        profiles: ['linux-5.1', 'linux-5.2'],
        defaults: { seed: 0, loops: '0xf4240', cpus: 1, nr_pages: null, profile: 'linux-5.2', test_repeat_count: 1 },
      }),
    );
    expect(c.workloads[0]).toEqual({ name: 'fix_size_alloc_test', description: 'd', bit: 1, kind: 'kernel_test' });
    expect(c.defaults.loops).toBe(1_000_000);
    expect(c.defaults.nr_pages).toBeNull();
    expect(() => parseCatalogue('{"workloads":[{"name":"x","description":"","kind":"other"}],"presets":[],"profiles":[],"defaults":{}}')).toThrow(
      /unknown kind/,
    );
  });

  it('reads resolved parameters', () => {
    const r = parseResolved('{"mask":7,"module_tests":13,"params":{"cpus":4,"loops":10000,"nr_threads":1,"profile":"linux-6.9","test_repeat_count":10},"threads":1}');
    expect(r).toMatchObject({ mask: 7, moduleTests: 13, threads: 1, params: { loops: 10000, test_repeat_count: 10, nr_threads: 1 } });
  });

  it('reads an import report, callers as plain strings', () => {
    const r = parseReport(
      '{"format":"vmallocinfo","labels":[{"index":0,"text":"<img src=x onerror=alert(1)>"}],"mapped":2,"mismatches":0,"notes":[{"line":0,"text":"hashed"}],"purge_events":0,"skipped":[{"line":7,"text":"lost events"}]}',
    );
    expect(r.labels[0].text).toBe('<img src=x onerror=alert(1)>');
    expect(r.skipped).toEqual([{ line: 7, text: 'lost events' }]);
    expect(r.notes[0].line).toBe(0);
  });

  it('reads counters (hex u64) and sums work as the core does', () => {
    const c = parseCounters(
      '{"per_op":[{"ops":1,"nodes_visited":"0x3","list_walked":"0x0","comparisons":"0x7","rotations":"0x1","recolors":"0x2","propagations":"0x4","cache_lines":"0x5"}],"total":{"ops":1,"nodes_visited":"0x3","list_walked":"0x0","comparisons":"0x7","rotations":"0x1","recolors":"0x2","propagations":"0x4","cache_lines":"0x5"}}',
    );
    expect(c.perOp[0].comparisons).toBe(7);
    expect(work(c.total)).toBe(3 + 0 + 4 + 1);
  });

  it('reads sweeps and contention points', () => {
    const s = parseSweep('[{"profile":"linux-5.1","live":100,"ops":400,"nodes_visited":1.5,"list_walked":20.25,"comparisons":3,"rotations":0,"propagations":0,"cache_lines":2,"work":21.75}]');
    expect(s[0]).toMatchObject({ profile: 'linux-5.1', live: 100, listWalked: 20.25, work: 21.75 });
    const c = parseContention('[{"cpus":64,"global_lock_hold":0.99,"global_lock_ops":0.5,"makespan":8.9e4,"ops":25600,"profile":"linux-6.9","throughput":285.4,"wait_share":0.78}]');
    expect(c[0]).toEqual({ profile: 'linux-6.9', cpus: 64, ops: 25600, throughput: 285.4, globalLockHold: 0.99, waitShare: 0.78, globalLockOps: 0.5 });
  });
});

describe('trace text helpers', () => {
  it('replaces or adds the profile line', () => {
    expect(withProfile('alloc 0x1 0x1 0x0 0x10\n', 'linux-6.9')).toBe('profile linux-6.9\nalloc 0x1 0x1 0x0 0x10\n');
    expect(withProfile('# c\nprofile linux-6.1\ncpus 2\n', 'linux-5.1')).toBe('# c\nprofile linux-5.1\ncpus 2\n');
    expect(traceProfile('# x\n\nprofile linux-6.9 # y\npurge')).toBe('linux-6.9');
    expect(traceProfile('purge\nprofile linux-6.9')).toBeNull();
  });

  it('counts operations without parsing', () => {
    expect(countOps('# a\n\n  alloc 1 1 1 1\n\t# b\npurge\r\ndump')).toBe(3);
    expect(countOps('')).toBe(0);
  });

  it('names the line where a size limit is crossed', () => {
    expect(lineAt('ab\ncd\nef', 4)).toBe(2);
    expect(lineAt('ab\ncd\nef', 2)).toBe(1);
    expect(lineAt('a\n'.repeat(100), 50)).toBe(26);
  });
});
