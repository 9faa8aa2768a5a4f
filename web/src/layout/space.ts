// Layout of the address-space bar: the areas the core reports, in address order, on an
// "ordinal-compressed" axis where each area's width grows with log2 of its size. The space is
// 2^64 bytes wide and areas are pages, so no linear scale shows both; this one keeps every
// area visible, keeps the address order, and still makes a 16E block wider than an 8K one.
import { freeNodes, type State } from '../bridge';
import { log2 } from '../format';

export type AreaState = 'free' | 'busy' | 'lazy' | 'pool';

export interface Segment {
  /** `gap`: inside the managed space but reported in no container. */
  state: AreaState | 'gap';
  /** The core's area id (null for gaps). */
  id: number | null;
  start: bigint;
  end: bigint;
  /** A stable key for D3 joins: the area id, so an area keeps its element across states. */
  key: string;
  /** The vmap node of a busy (or 5.2 lazy) area (linux-6.9 has several). */
  vmapNode?: number;
}

/** Consecutive small areas drawn as one, when there are too many to draw one by one. */
export interface Cluster {
  state: 'cluster';
  id: null;
  start: bigint;
  end: bigint;
  key: string;
  /** How many areas of each kind it holds. */
  counts: Record<string, number>;
}

export interface PlacedSegment extends Omit<Segment, 'state'> {
  state: Segment['state'] | 'cluster';
  counts?: Record<string, number>;

  x: number;
  width: number;
}

/** All areas of a state (free-tree nodes, busy, lazy, pooled), sorted, with gaps filled in. */
export function segments(state: State): Segment[] {
  const out: Segment[] = [];
  const add = (s: AreaState, id: number, start: bigint, end: bigint, node?: number) =>
    out.push(node === undefined ? { state: s, id, start, end, key: `a${id}` } : { state: s, id, start, end, key: `a${id}`, vmapNode: node });
  for (const n of freeNodes(state.index)) add('free', n.id, n.vaStart, n.vaEnd);
  for (const b of state.busy) add(b.lazy ? 'lazy' : 'busy', b.id, b.vaStart, b.vaEnd, b.node);
  for (const l of state.lazy) add('lazy', l.id, l.vaStart, l.vaEnd, l.node);
  for (const p of state.pools) for (const e of p.entries) add('pool', e.id, e.vaStart, e.vaEnd);
  out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  // Freeing between two free blocks, the kernel grows the previous block over the next one before
  // it erases the next: for those micro-steps a free block lies inside another. The bar draws the
  // outer one over its whole range (the tree shows the inner one leaving), not the outer one cut
  // at the inner one's start under a label with the outer one's size.
  for (let i = 1; i < out.length; i++) {
    const a = out[i - 1];
    const b = out[i];
    if (a.state === 'free' && b.state === 'free' && b.start >= a.start && b.end <= a.end) out.splice(i--, 1);
  }

  // maple-rfc's bump chunks: a gap is cut at each chunk's bounds, so that a chunk's unused tail
  // keeps a width of its own beside the (much larger) free space after it.
  const chunks = state.chunks ?? [];
  const cuts = [...new Set(chunks.flatMap((c) => [c.base, c.limit]))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // An era whose index is a maple tree (maple-rfc) keeps no free tree: its free space is the
  // occupied tree's NULL ranges, which are the managed space that no area and no bump chunk holds
  // (a chunk's range is occupied whole).
  const nullIsFree = state.initialized && state.index.kind === 'maple';
  const piece = (start: bigint, end: bigint) =>
    nullIsFree && !chunks.some((c) => c.base <= start && start < c.limit)
      ? { state: 'free' as const, id: null, start, end, key: `n${start.toString(16)}` }
      : gap(start, end);
  const gaps = (start: bigint, end: bigint) => {
    let at = start;
    for (const c of cuts) {
      if (c > at && c < end) {
        filled.push(piece(at, c));
        at = c;
      }
    }
    filled.push(piece(at, end));
  };
  const filled: Segment[] = [];
  let cursor = state.space[0];
  for (const s of out) {
    if (s.start > cursor) gaps(cursor, s.start);
    filled.push(s);
    if (s.end > cursor) cursor = s.end;
  }
  if (state.space[1] > cursor) gaps(cursor, state.space[1]);
  return filled;
}

function gap(start: bigint, end: bigint): Segment {
  return { state: 'gap', id: null, start, end, key: `g${start.toString(16)}` };
}

/**
 * At most about `max` items: segments of at least 2^`bigLog2` bytes stay on their own, the others
 * between them are gathered by aligned blocks of the address space (the smallest power of two
 * that leaves room), each block's run of two or more a cluster keyed by the block. An area that
 * comes or goes changes its own block's cluster only, so the bar's elements stay where they are
 * from one operation to the next (a split by count would shift every cluster after it).
 */
export function clusterSegments(segs: Segment[], max: number, bigLog2 = 40): (Segment | Cluster)[] {
  if (segs.length <= max) return segs;
  // log2(size) >= bigLog2, without a log per segment.
  const bigSize = 1n << BigInt(bigLog2);
  const big = segs.map((s) => s.end - s.start >= bigSize);
  const small = big.filter((b) => !b).length;
  const room = Math.max(1, max - (segs.length - small));
  // Two small neighbours share a block of 2^b bytes while b is at least the bit length of
  // their starts' XOR (`level`); -1 where a run of small segments begins.
  const level = segs.map((s, i) => (i > 0 && !big[i] && !big[i - 1] ? bitLength(s.start ^ segs[i - 1].start) : -1));
  // Items blocks of 2^b bytes make: a run's first segment, plus each neighbour of a higher level.
  const above = new Array<number>(66).fill(0);
  let runs = 0;
  segs.forEach((_, i) => {
    if (big[i]) return;
    if (level[i] < 0) runs++;
    else above[level[i]]++;
  });
  // The smallest b whose item count fits the room (or 64: one item per run).
  let b = 64;
  let split = 0;
  for (let l = 65; l >= 0; l--) {
    split += above[l];
    // `split` now counts neighbours of level >= l: with b = l - 1 they are apart.
    if (l >= 1 && runs + split > room) break;
    if (l >= 1) b = l - 1;
  }
  const out: (Segment | Cluster)[] = [];
  const keys = new Set<string>();
  let run: Segment[] = [];
  const flush = () => {
    if (run.length === 1) out.push(run[0]);
    else if (run.length > 1) {
      const counts: Record<string, number> = {};
      for (const p of run) counts[p.state] = (counts[p.state] ?? 0) + 1;
      let key = `k${((run[0].start >> BigInt(b)) << BigInt(b)).toString(16)}/${b}`;
      if (keys.has(key)) key += `/${run[0].start.toString(16)}`;
      keys.add(key);
      out.push({ state: 'cluster', id: null, start: run[0].start, end: run[run.length - 1].end, key, counts });
    }
    run = [];
  };
  segs.forEach((s, i) => {
    if (big[i]) {
      flush();
      out.push(s);
      return;
    }
    if (level[i] < 0 || level[i] > b) flush();
    run.push(s);
  });
  flush();
  return out;
}

/** Bits of a value below 2^64 (0 for 0). */
function bitLength(v: bigint): number {
  const hi = Number(v >> 32n);
  return hi ? 64 - Math.clz32(hi) : 32 - Math.clz32(Number(v & 0xffffffffn));
}

/** Relative width of an area of `size` bytes: log2 of the size, at least 1. */
export function weight(size: bigint): number {
  return Math.max(1, log2(size));
}

/**
 * Give each segment an x and a width on a bar `width` px wide: proportional to `weight`, but
 * never narrower than `minWidth` (the bar grows past `width` when even that does not fit).
 */
export function placeSegments(segs: (Segment | Cluster)[], width: number, minWidth = 4): PlacedSegment[] {
  const w = segs.map((s) => weight(s.end - s.start));
  const fixed = new Array<boolean>(segs.length).fill(false);
  let px = new Array<number>(segs.length).fill(minWidth);
  // Pin the segments that would fall under minWidth, share the rest by weight, repeat.
  for (let round = 0; round <= segs.length; round++) {
    const pinned = fixed.filter(Boolean).length * minWidth;
    const room = Math.max(0, width - pinned);
    const total = w.reduce((a, v, i) => (fixed[i] ? a : a + v), 0);
    px = w.map((v, i) => (fixed[i] ? minWidth : total > 0 ? (v / total) * room : minWidth));
    let changed = false;
    px.forEach((p, i) => {
      if (!fixed[i] && p < minWidth) {
        fixed[i] = true;
        changed = true;
      }
    });
    if (!changed) break;
  }
  px = px.map((p) => Math.max(minWidth, p));
  let x = 0;
  return segs.map((s, i) => {
    const placed = { ...s, x, width: px[i] };
    x += px[i];
    return placed;
  });
}

/** The x of an address on a placed bar (linear inside its segment), or null outside the bar. */
export function xOf(placed: PlacedSegment[], addr: bigint): number | null {
  // Segments are in address order: binary search for the first that ends at or after addr.
  let lo = 0;
  let hi = placed.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (placed[mid].end < addr) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < placed.length; i++) {
    const s = placed[i];
    if (s.start > addr) break;
    if (addr >= s.start && addr <= s.end && s.end > s.start) {
      const span = s.end - s.start;
      // Fraction with 1e6 resolution, computed in bigint to keep 64-bit precision.
      const frac = Number(((addr - s.start) * 1_000_000n) / span) / 1_000_000;
      return s.x + frac * s.width;
    }
  }
  return null;
}

export interface Tick {
  x: number;
  addr: bigint;
  /** Label row (0 nearest the bar); -1 when the label is left out for lack of room. */
  row: number;
  anchor: 'start' | 'middle' | 'end';
  /** Left edge of the label box, kept inside the bar. */
  labelX: number;
}

/**
 * Boundary ticks with labels `labelWidth` px wide placed greedily on `rows` rows so none
 * overlap; the first and last boundaries are anchored inside the bar.
 */
export function placeTicks(placed: PlacedSegment[], labelWidth: number, rows = 2, gapPx = 8): Tick[] {
  if (placed.length === 0) return [];
  const last = placed[placed.length - 1];
  const total = last.x + last.width;
  const points = [...placed.map((s) => ({ x: s.x, addr: s.start })), { x: total, addr: last.end }];
  const ticks = points.map((p, i) => {
    const anchor: Tick['anchor'] = i === 0 ? 'start' : i === points.length - 1 ? 'end' : 'middle';
    const want = anchor === 'start' ? p.x : anchor === 'end' ? p.x - labelWidth : p.x - labelWidth / 2;
    const left = Math.max(0, Math.min(total - labelWidth, want));
    return { tick: { x: p.x, addr: p.addr, row: -1, anchor, labelX: left } as Tick, left };
  });
  // The last boundary first, so the end of the space is always labelled.
  const order = [ticks.length - 1, ...ticks.map((_, i) => i).slice(0, -1)];
  const taken: [number, number][][] = Array.from({ length: rows }, () => []);
  for (const i of order) {
    const { tick, left } = ticks[i];
    const right = left + labelWidth;
    for (let r = 0; r < rows; r++) {
      if (taken[r].every(([l, h]) => right + gapPx <= l || left >= h + gapPx)) {
        taken[r].push([left, right]);
        tick.row = r;
        break;
      }
    }
  }
  return ticks.map((t) => t.tick);
}
