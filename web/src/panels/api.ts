// Typed parsing of what the facade's workbench functions return (workloads, imports, counters,
// sweeps, contention). The raw JSON's types are generated from the Rust types
// (../contract/contract.ts); the parsed ones here follow them. Pure: no wasm import here, so
// it is unit-testable with fixtures.
import type * as Raw from '../contract/contract';
import { arr, count, obj, optCount, str } from '../contract/json';

export type WorkloadKind = Raw.WorkloadKind;

/** One entry of the catalogue (`bit`: the test's `run_test_mask` bit, for kernel tests). */
export type WorkloadInfo = Raw.WorkloadInfo;

/**
 * The knobs of `test_vmalloc` (core/src/workload.rs `WorkloadParams`); null means "the
 * default". The profile is any name here: the core refuses one it does not know.
 */
export type WorkloadParams = Omit<Raw.WorkloadParams, 'profile'> & { profile: string };

export type Catalogue = Omit<Raw.CatalogueJson, 'defaults'> & { defaults: WorkloadParams };

export interface ResolvedParams {
  params: WorkloadParams;
  threads: Raw.ResolvedParamsJson['threads'];
  mask: Raw.ResolvedParamsJson['mask'];
  moduleTests: Raw.ResolvedParamsJson['module_tests'];
}

export function parseParams(v: unknown): WorkloadParams {
  const o = obj<Raw.WorkloadParams>(v, 'params');
  return {
    seed: count(o.seed ?? 0, 'seed'),
    loops: count(o.loops ?? 1, 'loops'),
    nr_pages: optCount(o.nr_pages, 'nr_pages'),
    cpus: count(o.cpus ?? 1, 'cpus'),
    nr_threads: optCount(o.nr_threads, 'nr_threads'),
    sequential_test_order: o.sequential_test_order === true,
    test_repeat_count: count(o.test_repeat_count ?? 1, 'test_repeat_count'),
    run_test_mask: optCount(o.run_test_mask, 'run_test_mask'),
    keep: optCount(o.keep, 'keep'),
    profile: str(o.profile ?? 'linux-5.2', 'profile'),
  };
}

export function parseCatalogue(json: string): Catalogue {
  const o = obj<Raw.CatalogueJson>(JSON.parse(json), 'catalogue');
  return {
    workloads: arr(o.workloads, 'workloads').map((w) => {
      const q = obj<Raw.WorkloadInfo>(w, 'workload');
      const kind = str(q.kind, 'kind');
      if (kind !== 'kernel_test' && kind !== 'module' && kind !== 'teaching') throw new TypeError(`unknown kind ${kind}`);
      return { name: str(q.name, 'name'), description: str(q.description, 'description'), bit: optCount(q.bit, 'bit'), kind };
    }),
    presets: arr(o.presets, 'presets').map((p) => str(p, 'preset')),
    profiles: arr(o.profiles, 'profiles').map((p) => str(p, 'profile')),
    defaults: parseParams(o.defaults),
  };
}

export function parseResolved(json: string): ResolvedParams {
  const o = obj<Raw.ResolvedParamsJson>(JSON.parse(json), 'resolved params');
  return {
    params: parseParams(o.params),
    threads: count(o.threads, 'threads'),
    mask: count(o.mask, 'mask'),
    moduleTests: count(o.module_tests, 'module_tests'),
  };
}

/** A line-numbered remark of an import report. */
export interface Remark {
  line: number;
  text: string;
}

export interface ImportReport {
  format: string;
  mapped: number;
  skipped: Remark[];
  notes: Remark[];
  purgeEvents: number;
  mismatches: number;
  /** Caller names (vmallocinfo) by operation index: untrusted text, never HTML. */
  labels: { index: number; text: string }[];
}

export function parseReport(json: string): ImportReport {
  const o = obj<Raw.ImportReportJson>(JSON.parse(json), 'report');
  const remarks = (v: unknown, what: string): Remark[] =>
    arr(v ?? [], what).map((r) => {
      const q = obj<Raw.Remark>(r, what);
      return { line: count(q.line, 'line'), text: str(q.text, 'text') };
    });
  return {
    format: str(o.format, 'format'),
    mapped: count(o.mapped ?? 0, 'mapped'),
    skipped: remarks(o.skipped, 'skipped'),
    notes: remarks(o.notes, 'notes'),
    purgeEvents: count(o.purge_events ?? 0, 'purge_events'),
    mismatches: count(o.mismatches ?? 0, 'mismatches'),
    labels: arr(o.labels ?? [], 'labels').map((l) => {
      const q = obj<Raw.Label>(l, 'label');
      return { index: count(q.index, 'index'), text: str(q.text, 'text') };
    }),
  };
}

/**
 * The work counters of one operation or a total (core/src/counters.rs), each as a number: the
 * contract's keys, and any other count the core sends (a key added on the Rust side shows up in
 * the tables before this file names it).
 */
export type Counters = { [K in keyof Raw.Counters]: number } & { [key: string]: number };

export const COUNTER_KEYS = [
  'nodes_visited',
  'list_walked',
  'comparisons',
  'rotations',
  'recolors',
  'propagations',
  'cache_lines',
] as const satisfies readonly Exclude<keyof Raw.Counters, 'ops'>[];
export type CounterKey = (typeof COUNTER_KEYS)[number];

/**
 * The maple trees' own counters (maple-rfc, spec §11.11; zero for the free-tree eras). Its gap
 * searches also count in the keys above: nodes visited, comparisons (one per slot scanned),
 * propagation steps (gap updates) and cache lines (maple nodes touched).
 */
export const MAPLE_COUNTER_KEYS = [
  'slots_scanned',
  'wasted_descents',
  'ascents',
  'window_iterations',
  'splits',
  'rebalances',
  'spanning_stores',
  'bump_hits',
] as const satisfies readonly Exclude<keyof Raw.Counters, 'ops'>[];

/** Every counter set to zero. */
export function zeroCounters(): Counters {
  const c = { ops: 0 } as Counters;
  for (const k of [...COUNTER_KEYS, ...MAPLE_COUNTER_KEYS]) c[k] = 0;
  return c;
}

export const COUNTER_LABEL: Record<CounterKey | 'work', string> = {
  nodes_visited: 'nodes visited',
  list_walked: 'list entries walked',
  comparisons: 'comparisons',
  rotations: 'rotations',
  recolors: 'recolours',
  propagations: 'propagation steps',
  cache_lines: 'cache lines (est.)',
  work: 'work (visits + walk + propagation + rotations)',
};

/** nodes visited + list steps + propagations + rotations, as `Counters::work` in the core. */
export function work(c: Counters): number {
  return c.nodes_visited + c.list_walked + c.propagations + c.rotations;
}

/** A counter's label: the known ones in words, another from its key (`slots_scanned` → "slots scanned"). */
export function counterLabel(key: string): string {
  return (COUNTER_LABEL as Record<string, string>)[key] ?? key.replace(/_/g, ' ');
}

function parseCountersValue(v: unknown): Counters {
  const o = obj<Raw.Counters>(v, 'counters');
  const c = { ops: count(o.ops ?? 0, 'ops') } as Counters;
  for (const k of [...COUNTER_KEYS, ...MAPLE_COUNTER_KEYS]) c[k] = count(o[k] ?? 0, k);
  // Counts the contract names beyond these (the maple counters, for one), in the core's order.
  for (const [k, val] of Object.entries(o as Record<string, unknown>)) {
    if (k === 'ops' || k in c) continue;
    if (typeof val === 'number' || (typeof val === 'string' && /^0x[0-9a-f]+$/i.test(val))) c[k] = count(val, k);
  }
  return c;
}

/** Every counter key of some counters (the known ones first, then the others in their order). */
export function counterKeys(cs: Counters[]): string[] {
  const keys: string[] = [...COUNTER_KEYS];
  // The maple counters only where some column has counted them (a free-tree comparison keeps its rows).
  const maple = new Set<string>(MAPLE_COUNTER_KEYS);
  for (const c of cs) {
    for (const k of Object.keys(c)) {
      if (k === 'ops' || keys.includes(k)) continue;
      if (maple.has(k) && !cs.some((o) => (o[k] ?? 0) !== 0)) continue;
      keys.push(k);
    }
  }
  return keys;
}

export interface CountersRange {
  perOp: Counters[];
  total: Counters;
}

export function parseCounters(json: string): CountersRange {
  const o = obj<Raw.CountersJson>(JSON.parse(json), 'counters');
  return { perOp: arr(o.per_op, 'per_op').map(parseCountersValue), total: parseCountersValue(o.total) };
}

/** One point of `cost_sweep`: average counters per operation with `live` areas. */
export interface SweepPoint {
  profile: string;
  /** maple-rfc: the bump overlay on or off; null for the other profiles. */
  bump: boolean | null;
  live: number;
  ops: number;
  nodesVisited: number;
  listWalked: number;
  propagations: number;
  cacheLines: number;
  work: number;
}

export function parseSweep(json: string): SweepPoint[] {
  return arr(JSON.parse(json), 'sweep').map((p) => {
    const o = obj<Raw.SweepPoint>(p, 'sweep point');
    return {
      profile: str(o.profile, 'profile'),
      bump: typeof o.bump === 'boolean' ? o.bump : null,
      live: count(o.live, 'live'),
      ops: count(o.ops, 'ops'),
      nodesVisited: count(o.nodes_visited, 'nodes_visited'),
      listWalked: count(o.list_walked, 'list_walked'),
      propagations: count(o.propagations, 'propagations'),
      cacheLines: count(o.cache_lines, 'cache_lines'),
      work: count(o.work, 'work'),
    };
  });
}

/** One CPU count of the contention model. */
export interface ContentionPoint {
  profile: string;
  cpus: number;
  ops: number;
  throughput: number;
  globalLockHold: number;
  waitShare: number;
  globalLockOps: number;
}

export function parseContention(json: string): ContentionPoint[] {
  return arr(JSON.parse(json), 'contention').map((p) => {
    const o = obj<Raw.ContentionResult>(p, 'contention point');
    return {
      profile: str(o.profile, 'profile'),
      cpus: count(o.cpus, 'cpus'),
      ops: count(o.ops, 'ops'),
      throughput: count(o.throughput, 'throughput'),
      globalLockHold: count(o.global_lock_hold, 'global_lock_hold'),
      waitShare: count(o.wait_share, 'wait_share'),
      globalLockOps: count(o.global_lock_ops, 'global_lock_ops'),
    };
  });
}

/** Replace (or add) the leading `profile` line of a trace. */
export function withProfile(trace: string, profile: string): string {
  const lines = trace.split('\n');
  const first = lines.findIndex((l) => {
    const t = l.replace(/#.*/, '').trim();
    return t.length > 0;
  });
  if (first >= 0 && /^profile\s/.test(lines[first].replace(/#.*/, '').trim())) {
    lines[first] = `profile ${profile}`;
    return lines.join('\n');
  }
  return `profile ${profile}\n${trace}`;
}

/**
 * A trace made to replay under `profile`: its profile line replaced (`withProfile`) and, for an
 * era without a bump overlay (`bumpOverlay`: the registry's word for `profile`), the overlay's own
 * lines turned into their nearest equivalent without moving any operation to another index (so
 * steps line up between profiles): `bump on|off` becomes a `dump` (no change to the state),
 * `early` a plain `alloc` (as the core's S1–S5 workloads do for the other profiles).
 */
export function forProfile(trace: string, profile: string, bumpOverlay: boolean): string {
  const text = withProfile(trace, profile);
  if (bumpOverlay) return text;
  return text
    .split('\n')
    .map((l) => l.replace(/^(\s*)bump(\s+(on|off))?\b.*$/, '$1dump').replace(/^(\s*)early(\s)/, '$1alloc$2'))
    .join('\n');
}

/**
 * What an operation answered: the first line of its output of the form `alloc -> 0x…` or
 * `alloc -> FAIL` (an address or a failure), or '' when it printed no answer (a `free`, or a
 * `dump` whose text differs by design between profiles).
 */
export function opResult(output: string): string {
  for (const l of output.split('\n')) {
    const t = l.trim();
    if (/^\S+ -> /.test(t)) return t;
  }
  return '';
}

/**
 * The steps (1-based, as the compare panel counts them) up to `k` whose operation printed a
 * different first line in some column: the addresses that differ between the profiles.
 */
export function differingSteps(results: string[][], k: number): number[] {
  const out: number[] = [];
  if (results.length < 2) return out;
  for (let i = 0; i < k; i++) {
    const first = results[0][i];
    if (results.some((r) => r[i] !== first)) out.push(i + 1);
  }
  return out;
}

/** The profile a trace names on its first operation line, or null (the default, linux-5.2). */
export function traceProfile(trace: string): string | null {
  for (const l of trace.split('\n')) {
    const t = l.replace(/#.*/, '').trim();
    if (!t) continue;
    const m = /^profile\s+(\S+)$/.exec(t);
    return m ? m[1] : null;
  }
  return null;
}

/** Operations in a trace text (lines that are not blank or comments), counted without parsing. */
export function countOps(text: string): number {
  let count = 0;
  let i = 0;
  const len = text.length;
  while (i < len) {
    let j = text.indexOf('\n', i);
    if (j < 0) j = len;
    // Skip leading blanks; a line counts when its first non-blank character is not '#'.
    let k = i;
    while (k < j && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9 || text.charCodeAt(k) === 13)) k++;
    if (k < j && text.charCodeAt(k) !== 35) count++;
    i = j + 1;
  }
  return count;
}
