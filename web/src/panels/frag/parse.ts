// Typed parsing of the instrument's JSON (core/wasm/src/frag.rs): fragmentation figures, their
// course over a trace, callers and the diff of two /proc/vmallocinfo files. The raw types are the
// contract's (generated from the Rust types); here every value is checked as it is read. Pure:
// no wasm and no DOM, so it is unit-tested with fixtures.
import type * as Raw from '../../contract/contract';
import { arr, count, num, obj, oneOf, str } from '../../contract/json';
import { parseBig } from '../../format';

export interface Block {
  start: bigint;
  bytes: number;
}

export interface SizeClass {
  minPages: number;
  maxPages: number;
  blocks: number;
  bytes: number;
}

export interface WindowFigures {
  name: string;
  start: bigint;
  end: bigint;
  busyAreas: number;
  busyBytes: number;
  lazyAreas: number;
  lazyBytes: number;
  pooledAreas: number;
  pooledBytes: number;
  freeBytes: number;
  freeBlocks: number;
  largestFree: Block | null;
  largestHole: Block | null;
  histogram: SizeClass[];
}

export interface NodePools {
  node: number;
  areas: number;
  bytes: number;
  sizes: { pages: number; areas: number }[];
}

export interface Fragmentation {
  profile: string;
  windows: WindowFigures[];
  lazy: { pages: number; areas: number; onlineCpus: number; lazyMaxPages: number };
  nodes: NodePools[];
}

function block(v: unknown, what: string): Block | null {
  if (v === null || v === undefined) return null;
  const o = obj<Raw.FreeBlock>(v, what);
  return { start: parseBig(o.start), bytes: count(o.bytes, `${what}.bytes`) };
}

export function parseFragmentationValue(v: unknown): Fragmentation {
  const o = obj<Raw.Fragmentation>(v, 'fragmentation');
  const l = obj<Raw.LazyFigures>(o.lazy, 'lazy');
  return {
    profile: str(o.profile, 'profile'),
    windows: arr(o.windows, 'windows').map((x) => {
      const w = obj<Raw.WindowFigures>(x, 'window');
      return {
        name: str(w.name, 'name'),
        start: parseBig(w.start),
        end: parseBig(w.end),
        busyAreas: count(w.busy_areas, 'busy_areas'),
        busyBytes: count(w.busy_bytes, 'busy_bytes'),
        lazyAreas: count(w.lazy_areas, 'lazy_areas'),
        lazyBytes: count(w.lazy_bytes, 'lazy_bytes'),
        pooledAreas: count(w.pooled_areas, 'pooled_areas'),
        pooledBytes: count(w.pooled_bytes, 'pooled_bytes'),
        freeBytes: count(w.free_bytes, 'free_bytes'),
        freeBlocks: count(w.free_blocks, 'free_blocks'),
        largestFree: block(w.largest_free, 'largest_free'),
        largestHole: block(w.largest_hole, 'largest_hole'),
        histogram: arr(w.histogram, 'histogram').map((c) => {
          const q = obj<Raw.SizeClass>(c, 'size class');
          return {
            minPages: count(q.min_pages, 'min_pages'),
            maxPages: count(q.max_pages, 'max_pages'),
            blocks: count(q.blocks, 'blocks'),
            bytes: count(q.bytes, 'bytes'),
          };
        }),
      };
    }),
    lazy: {
      pages: count(l.pages, 'lazy.pages'),
      areas: count(l.areas, 'lazy.areas'),
      onlineCpus: count(l.online_cpus, 'lazy.online_cpus'),
      lazyMaxPages: count(l.lazy_max_pages, 'lazy.lazy_max_pages'),
    },
    nodes: arr(o.nodes, 'nodes').map((x) => {
      const n = obj<Raw.NodePools>(x, 'node');
      return {
        node: count(n.node, 'node'),
        areas: count(n.areas, 'areas'),
        bytes: count(n.bytes, 'bytes'),
        sizes: arr(n.sizes, 'sizes').map((s) => {
          const q = obj<Raw.PoolSize>(s, 'pool size');
          return { pages: count(q.pages, 'pages'), areas: count(q.areas, 'areas') };
        }),
      };
    }),
  };
}

export function parseFragmentation(json: string): Fragmentation {
  return parseFragmentationValue(JSON.parse(json));
}

export interface FragPoint {
  step: number;
  largestFree: number;
  largestHole: number;
  freeBlocks: number;
  lazyPages: number;
  lazyMaxPages: number;
}

export function parseSeries(json: string): FragPoint[] {
  const o = obj<Raw.FragSeries>(JSON.parse(json), 'series');
  return arr(o.points, 'points').map((p) => {
    const q = obj<Raw.FragPoint>(p, 'point');
    return {
      step: count(q.step, 'step'),
      largestFree: count(q.largest_free, 'largest_free'),
      largestHole: count(q.largest_hole, 'largest_hole'),
      freeBlocks: count(q.free_blocks, 'free_blocks'),
      lazyPages: count(q.lazy_pages, 'lazy_pages'),
      lazyMaxPages: count(q.lazy_max_pages, 'lazy_max_pages'),
    };
  });
}

/** One line of a /proc/vmallocinfo: untrusted text (caller, flags), never HTML. */
export interface CallerArea {
  start: bigint;
  end: bigint;
  bytes: number;
  caller: string;
  flags: string;
  kind: string;
}

export interface CallerRow {
  caller: string;
  areas: number;
  bytes: number;
  share: number;
  kinds: string[];
}

function callerRow(v: unknown): CallerRow {
  const q = obj<Raw.CallerRow>(v, 'caller row');
  return {
    caller: str(q.caller, 'caller'),
    areas: count(q.areas, 'areas'),
    bytes: count(q.bytes, 'bytes'),
    share: num(q.share, 'share'),
    kinds: arr(q.kinds, 'kinds').map((k) => str(k, 'kind')),
  };
}

export function parseCallers(json: string): { areas: CallerArea[]; table: CallerRow[] } {
  const o = obj<Raw.CallersJson>(JSON.parse(json), 'callers');
  return {
    areas: arr(o.areas, 'areas').map((v) => {
      const q = obj<Raw.CallerArea>(v, 'area');
      return {
        start: parseBig(q.start),
        end: parseBig(q.end),
        bytes: count(q.bytes, 'bytes'),
        caller: str(q.caller, 'caller'),
        flags: str(q.flags, 'flags'),
        kind: str(q.kind, 'kind'),
      };
    }),
    table: arr(o.table, 'table').map(callerRow),
  };
}

export interface DiffArea {
  line: number;
  start: bigint;
  end: bigint;
  bytes: number;
  caller: string;
  kind: string;
}

export interface DiffSide {
  figures: Fragmentation;
  addressKind: Raw.AddressKind;
  notes: string[];
  callers: CallerRow[];
}

export interface VmDiff {
  matchedBy: Raw.MatchedBy;
  appeared: DiffArea[];
  disappeared: DiffArea[];
  becameLazy: DiffArea[];
  unchanged: number;
  a: DiffSide;
  b: DiffSide;
}

function diffAreas(v: unknown, what: string): DiffArea[] {
  return arr(v, what).map((x) => {
    const q = obj<Raw.DiffArea>(x, what);
    return {
      line: count(q.line, 'line'),
      start: parseBig(q.start),
      end: parseBig(q.end),
      bytes: count(q.bytes, 'bytes'),
      caller: str(q.caller, 'caller'),
      kind: str(q.kind, 'kind'),
    };
  });
}

function side(v: unknown, what: string): DiffSide {
  const o = obj<Raw.DiffSide>(v, what);
  return {
    figures: parseFragmentationValue(o.figures),
    addressKind: oneOf(o.address_kind, ['real', 'hashed', 'hidden'] as const, what, 'address_kind'),
    notes: arr(o.notes, 'notes').map((n) => str(n, 'note')),
    callers: arr(o.callers, 'callers').map(callerRow),
  };
}

export function parseDiff(json: string): VmDiff {
  const o = obj<Raw.VmDiffJson>(JSON.parse(json), 'diff');
  const d = obj<Raw.VmDiff>(o.diff, 'diff');
  return {
    matchedBy: oneOf(d.matched_by, ['address', 'caller_and_size'] as const, 'diff', 'matched_by'),
    appeared: diffAreas(d.appeared, 'appeared'),
    disappeared: diffAreas(d.disappeared, 'disappeared'),
    becameLazy: diffAreas(d.became_lazy, 'became_lazy'),
    unchanged: count(d.unchanged, 'unchanged'),
    a: side(o.a, 'A'),
    b: side(o.b, 'B'),
  };
}

/** A size class's pages as the command line labels them: `<1`, `1`, `2-3`, `4-7`, … */
export function classLabel(c: SizeClass): string {
  if (c.minPages === 0 && c.maxPages === 1) return '<1';
  if (c.maxPages === c.minPages + 1) return String(c.minPages);
  return `${c.minPages}-${c.maxPages - 1}`;
}

/** A byte count in binary units to a tenth (`20.0 KiB`), as `vmap-replay` prints it. */
export function human(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u + 1 < units.length) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** The callers of a state's areas, by range, from one or more files (later files first). */
export class CallerIndex {
  private readonly byRange = new Map<string, { file: string; area: CallerArea }[]>();
  private readonly byStart = new Map<string, { file: string; area: CallerArea }[]>();

  add(file: string, areas: CallerArea[]): void {
    for (const area of areas) {
      const e = { file, area };
      const r = `${area.start}-${area.end}`;
      this.byRange.set(r, [e, ...(this.byRange.get(r) ?? [])]);
      const s = String(area.start);
      this.byStart.set(s, [e, ...(this.byStart.get(s) ?? [])]);
    }
  }

  get size(): number {
    return this.byRange.size;
  }

  /** The files' lines for an area: those of its exact range, else those starting where it starts. */
  find(start: bigint, end: bigint): { file: string; area: CallerArea }[] {
    return this.byRange.get(`${start}-${end}`) ?? this.byStart.get(String(start)) ?? [];
  }
}

/** Evenly spaced points, the first and the last kept, at most `max` (2 or more) of them. */
export function thin<T>(pts: T[], max: number): T[] {
  if (pts.length <= max) return pts;
  const every = Math.ceil((pts.length - 1) / (Math.max(2, max) - 1));
  const out = pts.filter((_, i) => i % every === 0);
  if ((pts.length - 1) % every !== 0) out.push(pts[pts.length - 1]);
  return out;
}
