// A capture bundle opened as the replay worker opens it (`Loader.capture`): the capture's
// replay hands over its operations, stepped into the session with no text in between (in the
// worker past LARGE_OPS; else as bytes, `Loader.ops()`, into the page's instance,
// `Loader.from_bytes`); the text, printed only when asked, opens (`Vmapviz.load`, a link's
// way) into the same session. The kernel's own count of allocations is read from the bundle's
// trace here.
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
    // Stepped as the worker steps it, the progress counted in operations: `[phase, done, total]`,
    // 1 replaying, 2 done.
    const seen: number[][] = [];
    while (seen.at(-1)?.[0] !== 2) seen.push(Array.from(l.advance(5_000)));
    const steps = Math.ceil(total / 5_000);
    expect(seen).toEqual([...Array.from({ length: steps - 1 }, (_, i) => [1, (i + 1) * 5_000, total]), [2, total, total]]);
    expect(l.text()).toBe(text);
    const got = l.finish();
    l.free();
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

  it('hands its operations to another instance as bytes: the session they open is the replay\'s', () => {
    const { names, bytes } = parts();
    const [before, trace, after, cpus, uname] = bytes;
    const l = Loader.capture(names, before!, trace!, after, cpus!, uname, '');
    const report = JSON.parse(l.report() ?? 'null') as { mapped: number; equal: number; explained: number; mismatches: number; untraced: number };
    const total = l.total();
    const text = l.text();
    // What the worker sends the page for a small capture: bytes, far fewer than the text's.
    const ops = l.ops();
    expect(ops.length).toBeGreaterThan(total);
    expect(ops.length * 2).toBeLessThan(text.length);
    // What the page does with them: the operations stepped into a session, nothing parsed.
    const o = Loader.from_bytes(ops);
    expect(o.total()).toBe(total);
    expect(o.text()).toBe(text);
    expect(Array.from(o.advance(total))).toEqual([2, total, total]);
    const got = o.finish();
    o.free();
    // Against the trace's text opened as a link opens it (parsed, then replayed).
    const want = Vmapviz.load(text);
    expect(got.len()).toBe(total);
    expect(got.trace_text()).toBe(text);
    expect(got.output()).toBe(want.output());
    expect(got.summaries(0, total)).toBe(want.summaries(0, total));
    for (const k of [0, 1, 777, Math.floor(total / 2), total]) expect(got.state(k)).toBe(want.state(k));
    for (const k of [3, 1234, total - 1]) expect(got.frames(k)).toBe(want.frames(k));
    // The timeline's marks: one per allocation the comparison explained, one per unexplained,
    // one per allocation the trace does not show (bits 8, 16 and 32, MARK_EXPLAINED,
    // MARK_UNEXPLAINED and MARK_UNTRACED in core/src/session.rs).
    const marks = [...got.marks(0, total)];
    expect(marks.filter((b) => b & 8).length).toBe(report.explained);
    expect(marks.filter((b) => b & 16).length).toBe(report.mismatches);
    expect(marks.filter((b) => b & 32).length).toBe(report.untraced);
    expect(report.equal + report.explained + report.mismatches).toBe(report.mapped);
    got.free();
    want.free();
    l.free();
  });

  it('refuses damaged bytes naming the operation, and keeps nothing', () => {
    const { names, bytes } = parts();
    const [before, trace, after, cpus, uname] = bytes;
    const l = Loader.capture(names, before!, trace!, after, cpus!, uname, '');
    const ops = l.ops();
    l.free();
    expect(() => Loader.from_bytes(ops.subarray(0, ops.length - 1))).toThrow(/^operation \d+ \(byte \d+\): the bytes end inside it$/);
    expect(() => Loader.from_bytes(new TextEncoder().encode('profile linux-6.18\n'))).toThrow('not operations as bytes');
  });

  it('names the file of a damaged part', () => {
    const { names, bytes } = parts();
    const [before, trace, after, , uname] = bytes;
    expect(() => Loader.capture(names, before!, trace!, after, new TextEncoder().encode('zero\n'), uname, '')).toThrow(/cpus\.txt/);
  });
});
