// A capture bundle opened as the replay worker opens it (`Loader.capture`): the capture's
// replay hands over its operations, stepped into the session with no text in between; the
// text, printed only when asked, opens (`Vmapviz.load`, the main view's way) into the same
// session. The kernel's own count of allocations is read from the bundle's trace here.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { initSync, Loader, Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import { BUNDLE_PARTS } from './protocol';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

const DIR = new URL('../../../core/tests/data/capture-6.18-small/', import.meta.url);

/** The bundle's parts in `BUNDLE_PARTS` order, each as its file has it (plain or gzipped). */
function parts(): { names: string; bytes: (Uint8Array | undefined)[] } {
  const found = BUNDLE_PARTS.map((p) => {
    for (const n of [p, `${p}.gz`]) {
      try {
        return { name: n, bytes: new Uint8Array(readFileSync(new URL(n, DIR))) };
      } catch {
        // not this one
      }
    }
    return undefined;
  });
  return { names: found.map((f) => f?.name ?? '').join('\n'), bytes: found.map((f) => f?.bytes) };
}

describe('a capture opened from its replay', () => {
  it('steps into the session its printed trace opens into', () => {
    const { names, bytes } = parts();
    const [before, trace, after, cpus, uname] = bytes;
    const l = Loader.capture(names, before!, trace!, after, cpus!, uname, '');
    const report = JSON.parse(l.report() ?? 'null') as { format: string; mapped: number };
    // The kernel's allocations, counted from its tracefs lines after the marker that ends the
    // before file's read (the one traced during the read is in that file already).
    const lines = gunzipSync(trace!).toString('utf8').split('\n');
    const marker = lines.findIndex((x) => x.includes('vmapviz: vmallocinfo.before read'));
    expect(marker).toBeGreaterThan(0);
    const kernel = lines.slice(marker).filter((x) => x.includes('alloc_vmap_area:') && x.includes('failed=0')).length;
    expect(report.format).toBe('capture');
    expect(report.mapped).toBe(kernel);
    const text = l.text();
    const total = l.total();
    expect(text.split('\n').length - 1).toBe(total);
    expect(text.split('\n', 1)[0]).toBe('profile linux-6.18');
    // Stepped as the worker steps it, the progress counted in operations.
    const seen: number[] = [];
    while (l.done() < total) seen.push(l.step(5_000));
    expect(seen.at(-1)).toBe(total);
    expect(seen.length).toBe(Math.ceil(total / 5_000));
    expect(l.text()).toBe(text);
    const got = l.finish();
    const want = Vmapviz.load(text);
    expect(got.len()).toBe(want.len());
    expect(got.trace_text()).toBe(text);
    expect(got.output()).toBe(want.output());
    expect(got.summaries(0, total)).toBe(want.summaries(0, total));
    for (const k of [0, 1, 777, Math.floor(total / 2), total - 1, total]) expect(got.state(k)).toBe(want.state(k));
    for (const k of [3, 1234, total - 1]) expect(got.frames(k)).toBe(want.frames(k));
    got.free();
    want.free();
  });

  it('names the file of a damaged part', () => {
    const { names, bytes } = parts();
    const [before, trace, after, , uname] = bytes;
    expect(() => Loader.capture(names, before!, trace!, after, new TextEncoder().encode('zero\n'), uname, '')).toThrow(/cpus\.txt/);
  });
});
