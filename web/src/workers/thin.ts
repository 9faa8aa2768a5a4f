// A state of hundreds of thousands of areas (555,000 live allocations: 53 MB of JSON) is too much
// to send to the page, parse on its thread and draw. The replay worker thins it before sending:
// touching areas of the same kind become one run, then the closest runs merge until at most
// `max` remain (at the overview's scale, gaps far below a pixel); a free tree too large to draw
// is left out. The true counts travel with it (`thinned`), and the navigator says what it drew.

/** The counts of a thinned state, before thinning; `runs`: the busy and lazy entries drawn. */
export interface Thinned {
  busy: number;
  lazy: number;
  free: number;
  runs: number;
}

interface Area {
  id: number;
  va_start: string;
  va_end: string;
  lazy?: boolean;
  node: number;
}

/** JSON of this many characters or less passes as it is. */
export const THIN_JSON = 1 << 20;
/** At most this many busy and lazy entries each, and free-tree nodes, after thinning. */
export const THIN_MAX = 4000;

const same = (a: Area, b: Area) => a.lazy === b.lazy && a.node === b.node;

/** `areas` (sorted here by start) as at most `max` runs: touching ones first, then the nearest. */
export function runs(areas: Area[], max: number): Area[] {
  const sorted = areas.map((a) => ({ a, s: BigInt(a.va_start), e: BigInt(a.va_end) })).sort((x, y) => (x.s < y.s ? -1 : x.s > y.s ? 1 : 0));
  type Run = { a: Area; s: bigint; e: bigint };
  let out: Run[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && last.e === r.s && same(last.a, r.a)) last.e = r.e;
    else out.push({ ...r });
  }
  if (out.length > max) {
    // The (n - max) smallest gaps close (ties all close: a few runs fewer than `max`).
    const gaps = out.slice(1).map((r, i) => r.s - out[i].e);
    const cut = [...gaps].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))[out.length - max - 1];
    const merged: Run[] = [out[0]];
    for (let i = 1; i < out.length; i++) {
      const last = merged[merged.length - 1];
      if (gaps[i - 1] <= cut) last.e = out[i].e > last.e ? out[i].e : last.e;
      else merged.push(out[i]);
    }
    out = merged;
  }
  return out.map((r) => ({ ...r.a, va_start: `0x${r.s.toString(16)}`, va_end: `0x${r.e.toString(16)}` }));
}

/** The state JSON as the page gets it: unchanged when short, else thinned with its counts. */
export function thin(json: string, max = THIN_MAX, limit = THIN_JSON): string {
  if (json.length <= limit) return json;
  const o = JSON.parse(json) as { busy: Area[]; lazy?: Area[]; index: { kind: string; root?: number | null; nodes?: unknown[] }; thinned?: Thinned };
  const lazy = o.lazy ?? [];
  const free = o.index.kind === 'free_tree' ? (o.index.nodes?.length ?? 0) : 0;
  const t: Thinned = { busy: o.busy.length, lazy: lazy.length, free, runs: 0 };
  o.busy = runs(o.busy, max);
  if (o.lazy) o.lazy = runs(lazy, max);
  if (free > max) o.index = { kind: 'free_tree', root: null, nodes: [] };
  t.runs = o.busy.length + (o.lazy?.length ?? 0);
  o.thinned = t;
  return JSON.stringify(o);
}
