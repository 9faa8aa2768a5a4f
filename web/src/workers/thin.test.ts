// The navigator's states (web/src/panels/large.ts): one of more areas than the page can take
// comes from the worker's core thinned, its true counts with it; a small one as `state(k)`.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initSync, Loader } from '../pkg-workbench/vmapviz_wasm.js';
import { THIN_MAX } from './protocol';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

describe('a thinned state', () => {
  it('gives touching areas as one run, with the counts it had', () => {
    // 30,000 one-page allocations from the start of the space (linux-5.2): they touch.
    const l = Loader.parse('alloc 0x1000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n'.repeat(30_000));
    while (l.advance(10_000)[0] !== 2);
    const s = l.finish();
    l.free();
    const o = JSON.parse(s.state_thin(30_000, THIN_MAX)) as { busy: { va_start: string; va_end: string }[]; thinned: { busy: number; lazy: number; runs: number } };
    expect(o.busy).toHaveLength(1);
    expect(o.busy[0].va_start).toBe('0xffffc90000000000');
    expect(o.busy[0].va_end).toBe(`0x${(0xffffc90000000000n + 30_000n * 0x1000n).toString(16)}`);
    expect(o.thinned).toMatchObject({ busy: 30_000, lazy: 0, runs: 1 });
    // Under the bound, the state as it is.
    expect(s.state_thin(THIN_MAX, THIN_MAX)).toBe(s.state(THIN_MAX));
    s.free();
  });
});
