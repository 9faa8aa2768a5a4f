// The contract round trip: every JSON-returning call of both wasm builds (web/src/pkg, the
// page's; web/src/pkg-workbench, the workbench's) on real sessions (the conformance vectors,
// every profile, every kind of step event), each result checked at run time against the type
// contract.ts declares for that call (PageCalls, MapleCalls, WorkbenchCalls). contract.ts is generated from
// the Rust types, so this fails when a Rust field is renamed, added, removed or changes kind
// without `npm run contract`, and when contract.ts is edited by hand away from what the facade sends.
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { mismatch, parseDeclarations, type Shape } from './contract/shape';
import type { MapleCalls, PageCalls, WorkbenchCalls } from './contract/contract';
import * as page from './pkg/vmapviz_wasm.js';
import * as bench from './pkg-workbench/vmapviz_wasm.js';

const decls = parseDeclarations(readFileSync(new URL('./contract/contract.ts', import.meta.url), 'utf8'));

type Table = 'PageCalls' | 'MapleCalls' | 'WorkbenchCalls';

/** The declared return type of a call, from `PageCalls` / `MapleCalls` / `WorkbenchCalls`. */
function callShape(table: Table, call: string): Shape {
  const t = decls.get(table);
  if (t?.t !== 'object' || !t.fields.has(call)) throw new Error(`${table} declares no ${call}`);
  return t.fields.get(call)!;
}

let checked = 0;
const callsSeen = new Set<string>();

/** Parse `json` and check it against the call's declared type; returns the typed value. */
function check<K extends keyof PageCalls>(call: K, json: string): PageCalls[K];
function check<K extends keyof WorkbenchCalls>(call: K, json: string, table: 'WorkbenchCalls'): WorkbenchCalls[K];
function check<K extends keyof MapleCalls>(call: K, json: string, table: 'MapleCalls'): MapleCalls[K];
function check(call: string, json: string, table: Table = 'PageCalls'): unknown {
  const v: unknown = JSON.parse(json);
  const m = mismatch(v, callShape(table, call), decls, call);
  if (m) throw new Error(`${table}.${call}: ${m}`);
  checked++;
  callsSeen.add(table === 'MapleCalls' ? `maple.${call}` : call);
  return v;
}

const SHARED = new URL('../../../shared/', import.meta.url);

function vectors(dirs = ['conformance', 'conformance-nodes']): { name: string; text: string }[] {
  const out = [];
  for (const dir of dirs) {
    const d = new URL(`${dir}/`, SHARED);
    for (const f of readdirSync(d).filter((f) => f.endsWith('.trace')).sort()) {
      out.push({ name: `${dir}/${f}`, text: readFileSync(new URL(f, d), 'utf8') });
    }
  }
  return out;
}

/** Traces for what the vectors do not show: linux-5.1's walk, pcpu, a failed search, a short window. */
const EXTRA = [
  [
    'profile linux-5.1',
    'init 0x100000 0x200000',
    ...Array.from({ length: 12 }, () => 'alloc 0x2000 0x1000 0x100000 0x200000'),
    'free 0x102000',
    'free 0x106000',
    'alloc 0x3000 0x1000 0x100000 0x200000',
    'alloc 0x2000 0x1000 0x100000 0x200000',
    'alloc 0x1000 0x1000 0x110000 0x200000',
    'alloc 0x1000 0x10000 0x100000 0x200000',
    'pcpu 0x1000 0x0:0x2000 0x4000:0x2000',
    'alloc 0x100000 0x1000 0x100000 0x200000',
  ].join('\n'),
  [
    'profile linux-6.1',
    'init 0x100000 0x110000',
    'alloc 0x4000 0x1000 0x100000 0x110000',
    'alloc 0x4000 0x1000 0x100000 0x110000',
    'alloc 0x8000 0x1000 0x100000 0x110000',
    'alloc 0x2000 0x1000 0x10f000 0x110000',
    'pcpu 0x1000 0x0:0x1000',
    'vfree 0x100000',
    'purge',
  ].join('\n'),
  ['profile linux-5.1', 'pcpu 0x1000 0x0:0x2000 0x4000:0x2000', 'alloc 0x2000 0x1000 0xffffc90000000000 0xffffe8ffffffffff'].join('\n'),
  ['profile linux-6.9', 'cpus 2', 'pcpu 0x1000 0x0:0x2000 0x4000:0x2000'].join('\n'),
  // maple-rfc: its maple trees' events, the window loop (an unaligned window: searches again),
  // the bump overlay's refill, hit, miss, unlink, release of a retired chunk and fast reject.
  [
    'profile maple-rfc',
    'alloc 0x2000000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
    'alloc 0x2000000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
    'alloc 0x2000000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
    'vfree 0xffffc90000000000',
    'vfree 0xffffc90002000000',
    'free 0xffffffffa0000000',
    'bump off',
    'alloc 0x3000 0x1000 0xffffc90100000800 0xffffe8ffffffffff',
  ].join('\n'),
  // maple-rfc's overlap check reads the target node's busy tree only: the module area at
  // M+0x10000 (node 1's zone) goes in over the early area node 0 keeps (busy_overlap_missed;
  // core/tests/suite/maple_rfc_spec.rs argues it from the spec).
  [
    'profile maple-rfc',
    'cpus 2',
    'early 0x20000 0x1000 0xffffffffa0000000 0xffffffffff000000',
    'alloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000',
    'alloc 0x2000 0x1000 0xffffffffa0010000 0xffffffffff000000',
  ].join('\n'),
];

describe('the contract: every facade call against contract.ts', () => {
  beforeAll(() => {
    page.initSync({ module: readFileSync(new URL('./pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
    bench.initSync({ module: readFileSync(new URL('./pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
  });

  it('declares every call and every type it names', () => {
    for (const t of ['PageCalls', 'MapleCalls', 'WorkbenchCalls', 'Addr', 'Event', 'StateSnap', 'FramesJson']) expect(decls.has(t), t).toBe(true);
    expect(decls.get('Addr')).toEqual({ t: 'hex' });
  });

  /** Every JSON call of a `Vmapviz` on the traces; the event kinds its frames held. */
  function sessions(build: typeof page | typeof bench, traces: string[]): Set<string> {
    const kinds = new Set<string>();
    for (const text of traces) {
      const v = build.Vmapviz.load(text);
      const n = v.len();
      const stride = n > 100 ? Math.ceil(n / 20) : 1;
      for (let k = 0; k <= n; k += k + stride > n && k < n ? n - k : stride) {
        check('state', v.state(k));
        const f = check('frames', v.frames(k));
        if (k < n) expect(f).not.toBeNull();
        else expect(f).toBeNull();
        for (const fr of f?.frames ?? []) kinds.add(fr.event.kind);
      }
      expect(check('summaries', v.summaries(0, n))).toHaveLength(n);
      expect(typeof v.output()).toBe('string');
      expect(v.check()).toBeUndefined();
      v.free();
    }
    // Typed lines, checked and not, on an empty session of each profile.
    for (const p of ['', 'linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9']) {
      const s = new build.Vmapviz(p);
      check('push', s.push('cpus 2'));
      check('push_checked', s.push_checked('alloc 0x2000 0x1000 0xffffc90000000000 0xffffe8ffffffffff'));
      check('push', s.push('vfree 0xffffc90000000000'));
      check('frames', s.frames(2));
      check('state', s.state(s.len()));
      expect(() => s.push_checked('free 0x1234000')).toThrow();
      s.free();
    }
    return kinds;
  }

  it("state, frames, summaries, push, check and output of the page's build match it, with every event kind", () => {
    const kinds = sessions(page, [...vectors().map((v) => v.text), ...EXTRA]);
    // Every kind of step event the contract declares was sent, and checked, at least once.
    const event = decls.get('Event');
    if (event?.t !== 'union') throw new Error('Event is not a union');
    const declared = event.of.map((m) => (m.t === 'object' && m.fields.get('kind')?.t === 'literal' ? (m.fields.get('kind') as { value: string }).value : '?'));
    expect(declared.length).toBeGreaterThan(30);
    expect(declared.filter((k) => !kinds.has(k))).toEqual([]);
  });

  it("eras of both builds match it, the same list", () => {
    const a = check('eras', page.eras());
    expect(a.map((e) => e.name)).toEqual(['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18', 'maple-rfc']);
    expect(check('eras', bench.eras())).toEqual(a);
  });

  it("the page's build replays every conformance vector to the kernel's output byte for byte", () => {
    // The wasm build's own code paths (its SIMD hex digits and busy-index compares) run here.
    let n = 0;
    for (const { name, text } of vectors()) {
      const want = readFileSync(new URL(name.replace(/\.trace$/, '.expected'), SHARED), 'utf8');
      const v = page.Vmapviz.load(text);
      expect(v.output(), name).toBe(want);
      v.free();
      n++;
    }
    expect(n).toBeGreaterThan(30);
  });

  it("the same calls of the workbench's build match it", () => {
    // The same code as the page's build: a sample of the vectors is enough.
    const kinds = sessions(bench, [...vectors().filter((_, i) => i % 6 === 0).map((v) => v.text), ...EXTRA]);
    expect(kinds.size).toBeGreaterThan(20);
  });

  /** Every JSON call of a `MapleView` on the maple vectors; the maple event kinds its frames held. */
  function mapleSessions(build: typeof page | typeof bench, traces: string[]): Set<string> {
    const kinds = new Set<string>();
    for (const text of traces) {
      const v = build.MapleView.load(text);
      const n = v.len();
      // Every op of the short vectors; a sample of the long ones (their trees are large).
      const stride = n > 400 ? Math.ceil(n / 40) : 1;
      for (let k = 0; k <= n; k += k + stride > n && k < n ? n - k : stride) {
        const t = check('state', v.state(k), 'MapleCalls');
        expect(Array.isArray(t.nodes)).toBe(true);
        const f = check('frames', v.frames(k), 'MapleCalls');
        if (k < n) expect(f).not.toBeNull();
        else expect(f).toBeNull();
        for (const fr of f?.frames ?? []) {
          kinds.add(fr.event.kind);
          expect(fr.tree).toBeLessThan(f!.trees.length);
        }
      }
      expect(check('summaries', v.summaries(0, n), 'MapleCalls')).toHaveLength(n);
      expect(check('push', v.push('store 0x7000 0x7fff'), 'MapleCalls').index).toBe(n);
      expect(() => v.push('frobnicate 0x1')).toThrow(/line/);
      v.free();
    }
    return kinds;
  }

  it("state, frames, summaries and push of both builds' maple player match it, with every maple event kind", () => {
    const traces = vectors(['conformance-maple']).map((v) => v.text);
    expect(traces.length).toBeGreaterThan(10);
    const kinds = mapleSessions(page, traces);
    const event = decls.get('MapleEvent');
    if (event?.t !== 'union') throw new Error('MapleEvent is not a union');
    const declared = event.of.map((m) => (m.t === 'object' && m.fields.get('kind')?.t === 'literal' ? (m.fields.get('kind') as { value: string }).value : '?'));
    expect(declared.length).toBe(15);
    expect(declared.filter((k) => !kinds.has(k))).toEqual([]);
    mapleSessions(bench, traces.slice(0, 3));
  });

  it('counters, sweeps, contention, workloads, parameters and imports of the workbench build match it', () => {
    const text = vectors().find((v) => v.name.endsWith('27_lazy_mixed_cpus_v52.trace'))!.text;
    const v = bench.Vmapviz.load(text);
    const c = check('counters', v.counters(0, v.len()), 'WorkbenchCalls');
    expect(c.per_op).toHaveLength(v.len());
    check('counters', v.counters(5, 40), 'WorkbenchCalls');
    for (const p of ['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9']) {
      expect(check('cost_sweep', bench.cost_sweep(p, 'random', '10,100', 20), 'WorkbenchCalls')).toHaveLength(2);
      check('cost_sweep', bench.cost_sweep(p, 'long_busy', '50', 20), 'WorkbenchCalls');
      expect(check('contention', bench.contention(p, '1,4', 50), 'WorkbenchCalls')).toHaveLength(2);
    }
    const cat = check('workloads', bench.workloads(), 'WorkbenchCalls');
    expect(cat.workloads.length).toBeGreaterThan(5);
    for (const preset of ['', 'performance', 'stress', 'smoke']) {
      check('workload_params', bench.workload_params(JSON.stringify(cat.defaults), preset), 'WorkbenchCalls');
      check('workload_params', bench.workload_params('{"seed": 7, "cpus": 4, "keep": 20, "profile": "linux-6.9"}', preset), 'WorkbenchCalls');
    }
    const imports: [string, string][] = [
      ['trace', text],
      ['json', bench.trace_to_json(text)],
      [
        'vmallocinfo',
        '0xffffc90000000000-0xffffc90000005000   20480 load_module+0x1/0x2 pages=4 vmalloc\n' +
          '0xffffc90000005000-0xffffc90000008000   12288 foo+0x1/0x2 pages=2 vmalloc\n' +
          '0xffffc90000008000-0xffffc9000000a000    8192 unpurged vm_area\n',
      ],
      [
        'ftrace',
        ' insmod-1234    [000] .....  5.000001: alloc_vmap_area: va_start: 18446683600570023936 size=8192 align=1 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0\n' +
          ' insmod-1234    [001] .....  5.000002: free_vmap_area_noflush: va_start=0xffffc90000000000 nr_lazy=2 nr_lazy_max=16384\n',
      ],
    ];
    for (const [format, input] of imports) {
      const r = bench.import_text(format, input, '');
      const report = check('import_report', r.report, 'WorkbenchCalls');
      expect(report.format).toBe(format);
      r.free();
    }
    // The fragmentation instrument's calls (web/src/panels/frag).
    for (const k of [0, 10, v.len()]) expect(check('fragmentation', v.fragmentation(k), 'WorkbenchCalls').windows[0].name).toBe('vmalloc');
    expect(check('frag_series', v.frag_series(0, v.len(), 1), 'WorkbenchCalls').points).toHaveLength(v.len() + 1);
    const n = v.len();
    expect(check('frag_series', v.frag_series(3, n, 4), 'WorkbenchCalls').points.map((p) => p.step)).toEqual([3, ...Array.from({ length: Math.floor(n / 4) }, (_, i) => 4 * (i + 1)), ...(n % 4 ? [n] : [])]);
    const vi = imports[2][1];
    const enc = new TextEncoder();
    expect(check('vmallocinfo_callers', bench.vmallocinfo_callers('vi', enc.encode(vi)), 'WorkbenchCalls').areas).toHaveLength(3);
    const later = vi.replace('foo+0x1/0x2 pages=2 vmalloc', 'unpurged vm_area');
    expect(check('vm_diff', bench.vm_diff('a', enc.encode(vi), 'b', enc.encode(later)), 'WorkbenchCalls').diff.became_lazy).toHaveLength(1);
    v.free();
    expect([...callsSeen].sort()).toEqual(
      [
        'contention',
        'cost_sweep',
        'counters',
        'eras',
        'frag_series',
        'fragmentation',
        'frames',
        'import_report',
        'push',
        'push_checked',
        'state',
        'summaries',
        'vm_diff',
        'vmallocinfo_callers',
        'workload_params',
        'workloads',
        'maple.frames',
        'maple.push',
        'maple.state',
        'maple.summaries',
      ].sort(),
    );
    expect(checked).toBeGreaterThan(1000);
  });

  it('fails on a field renamed, added, removed or of another kind', () => {
    const v = page.Vmapviz.load(EXTRA[1]);
    const state = JSON.parse(v.state(3)) as Record<string, unknown>;
    const frames = JSON.parse(v.frames(2)) as { frames: { event: Record<string, unknown> }[] };
    v.free();
    const shape = callShape('PageCalls', 'state');
    expect(mismatch(state, shape, decls)).toBeNull();
    const { zone_size, ...renamed } = state;
    expect(mismatch({ ...renamed, zone_bytes: zone_size }, shape, decls)).toMatch(/unexpected field "zone_bytes"/);
    expect(mismatch({ ...state, extra: 1 }, shape, decls)).toMatch(/unexpected field "extra"/);
    expect(mismatch(renamed, shape, decls)).toMatch(/missing field "zone_size"/);
    expect(mismatch({ ...state, zone_size: 4096 }, shape, decls)).toMatch(/zone_size: expected "0x…" hex text/);
    expect(mismatch({ ...state, cpus: '0x2' }, shape, decls)).toMatch(/cpus: expected a number/);
    expect(mismatch({ ...state, profile: 'linux-7.0' }, shape, decls)).toMatch(/profile/);
    const ev = frames.frames.find((f) => f.event.kind === 'visit' || f.event.kind === 'fit')!.event;
    const evShape = decls.get('Event')!;
    expect(mismatch(ev, evShape, decls)).toBeNull();
    expect(mismatch({ ...ev, va_start: 0x1000 }, evShape, decls)).toMatch(/va_start: expected "0x…"/);
    expect(mismatch({ ...ev, id: '0x1' }, evShape, decls)).toMatch(/id: expected a number/);
    expect(mismatch({ ...ev, va_start: '0xABC' }, evShape, decls)).toMatch(/hex text/);
  });
});
