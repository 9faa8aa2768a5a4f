// The typed bridge to the facade's maple session (core/wasm/src/maple.rs: `MapleView`): a
// `profile maple-tree` trace replayed by the core, its trees and frames parsed into typed
// objects with bigint limits, pivots and gaps. The raw shapes are the contract's (MapleCalls in
// ../contract/contract.ts, generated from the Rust types), the parsed ones derived from them
// (`Parsed`). `MapleSession` also stands in for the page's vmalloc `Session` (web/src/bridge.ts),
// so the player, the operation list, the permalink and the keys work unchanged: its
// vmalloc-shaped state is the tree's stored ranges as busy areas (what the address bar draws),
// and its frames carry the maple events.
import {
  NO_INDEX,
  parseSummaries,
  parseSummaryValue,
  Session,
  type Areas,
  type BusyArea,
  type OpFrames,
  type OpSummary,
  type Parsed,
  type RawSession,
  type State,
  type StepEvent,
} from '../bridge';
import type * as Raw from '../contract/contract';
import { arr, num, obj, oneOf, optNum, str } from '../contract/json';
import { parseBig } from '../format';

/** The surface of the wasm `MapleView` class this bridge uses. */
export interface RawMaple {
  len(): number;
  state(k: number): string;
  frames(k: number): string;
  summaries(from: number, to: number): string;
  push(line: string): string;
  truncate(k: number): void;
  trace_text(): string;
  output(): string;
  dump(k: number): string;
  free?(): void;
}

export type MapleKind = Raw.MapleNodeType;

/** One slot: its inclusive pivot, what it holds (`E` entry, `N` NULL, `C` child) and its gap (arange). */
export type MapleSlot = Parsed<Raw.MapleSlotJson>;

/**
 * One node of the maple tree as the core reports it (pre-order in `MapleSnapshot.nodes`):
 * `end` is `ma_data_end` (slots `0..end` are used); `mgap` (arange) the slot the metadata names
 * as holding the largest gap.
 */
export type MapleNode = Parsed<Raw.MapleNodeJson>;

/**
 * The tree at one point: what the maple view draws. A plain type, so that an allocator profile
 * keeping a maple tree (maple-rfc) can hand the view its occupied tree too.
 */
export type MapleSnapshot = Parsed<Raw.MapleTreeJson>;

/**
 * One maple-tree event as the facade's maple player sends it (the contract's `MapleEvent`): its
 * own kinds (visit, scan, descend, store_type, split, gap, …), not the allocator's step events.
 * Fields are kept as the core sent them (limits and gaps as hex text). maple-rfc's frames
 * (./rfc.ts) carry its allocator's other events as neutral `rfc:KIND` frames.
 */
export interface MapleStepEvent {
  kind: Raw.MapleEvent['kind'] | `rfc:${string}`;
  [field: string]: unknown;
}

export interface MapleFrame {
  event: MapleStepEvent;
  /** Index into `MapleOpFrames.trees`: the tree after this event. */
  tree: number;
}

/** One operation's frames (`MapleCalls.frames`): `trees[0]` before the operation, the last one after it. */
export type MapleOpFrames = OpSummary & Omit<Parsed<Raw.MapleFramesJson>, 'frames'> & { frames: MapleFrame[] };

const KINDS: readonly MapleKind[] = ['leaf', 'arange', 'range'];
const SLOT_KINDS: readonly Raw.MapleSlotKind[] = ['E', 'N', 'C'];
const EVENT_KINDS: readonly Raw.MapleEvent['kind'][] = [
  'store_begin',
  'store_type',
  'split',
  'push_sibling',
  'rebalance',
  'spanning',
  'gap_update',
  'visit',
  'scan',
  'descend',
  'skip',
  'ascend',
  'found',
  'no_hole',
  'store_done',
];

function parseSlot(v: unknown): MapleSlot {
  const q = obj<Raw.MapleSlotJson>(v, 'slot');
  return {
    piv: parseBig(q.piv),
    k: oneOf(q.k, SLOT_KINDS, 'slot', 'kind'),
    child: optNum(q.child, 'child'),
    gap: q.gap === null ? null : parseBig(q.gap),
  };
}

export function parseMapleNode(v: unknown): MapleNode {
  const o = obj<Raw.MapleNodeJson>(v, 'maple node');
  return {
    id: num(o.id, 'id'),
    parent: optNum(o.parent, 'parent'),
    parentSlot: num(o.parent_slot, 'parent_slot'),
    depth: num(o.depth, 'depth'),
    type: oneOf(o.type, KINDS, 'maple node', 'type'),
    min: parseBig(o.min),
    max: parseBig(o.max),
    end: num(o.end, 'end'),
    mgap: num(o.mgap, 'mgap'),
    slots: arr(o.slots, 'slots').map(parseSlot),
  };
}

export function parseMapleSnapshotValue(v: unknown): MapleSnapshot {
  const o = obj<Raw.MapleTreeJson>(v, 'maple tree');
  return { height: num(o.height, 'height'), nodes: arr(o.nodes, 'nodes').map(parseMapleNode) };
}

const parsedTrees = new WeakMap<object, MapleSnapshot>();

/**
 * [`parseMapleSnapshotValue`] once per tree object: a session hands the same raw tree to every
 * frame and state that shows it, and the page, the narrator and the compare copies all draw it.
 */
export function mapleSnapshotOf(v: unknown): MapleSnapshot {
  if (typeof v !== 'object' || v === null) return parseMapleSnapshotValue(v);
  let t = parsedTrees.get(v);
  if (!t) {
    t = parseMapleSnapshotValue(v);
    parsedTrees.set(v, t);
  }
  return t;
}

export function parseMapleFrames(json: string): MapleOpFrames | null {
  const v: unknown = JSON.parse(json);
  if (v === null) return null;
  const o = obj<Raw.MapleFramesJson>(v, 'maple frames');
  return {
    index: num(o.index, 'index'),
    line: num(o.line, 'line'),
    text: str(o.text, 'text'),
    output: typeof o.output === 'string' ? o.output : '',
    warning: null,
    trees: arr(o.trees, 'trees').map(parseMapleSnapshotValue),
    frames: arr(o.frames, 'frames').map((f) => {
      const q = obj<Raw.MapleFrameJson>(f, 'frame');
      const event = obj(q.event, 'event');
      return { event: { ...event, kind: oneOf(event.kind, EVENT_KINDS, 'event', 'kind') }, tree: num(q.tree, 'frame.tree') };
    }),
  };
}

/** The dump notation of a node's slots: `0:0xPIV:K[:0xGAP] 1:…` (the conformance README's). */
export function slotsNotation(n: MapleNode): string {
  return n.slots.map((s, i) => `${i}:0x${s.piv.toString(16)}:${s.k}${s.gap !== null ? `:0x${s.gap.toString(16)}` : ''}`).join(' ');
}

/** Slots per node type (64-bit): leaves and range nodes 16, arange nodes 10. */
export function slotCount(t: MapleKind): number {
  return t === 'arange' ? 10 : 16;
}

/**
 * The id a stored range has in the address bar: its leaf's id and slot, so a hover on either
 * side names the other. `id = node * 16 + slot`.
 */
export function rangeId(node: number, slot: number): number {
  return node * 16 + slot;
}

export function rangeOfId(id: number): { node: number; slot: number } {
  return { node: Math.floor(id / 16), slot: id % 16 };
}

const rangesOf = new WeakMap<MapleSnapshot, BusyArea[]>();

/** The stored ranges (entries of the leaves) as the address bar's busy areas, `[first, last + 1)`. */
export function storedRanges(t: MapleSnapshot): BusyArea[] {
  const known = rangesOf.get(t);
  if (known) return known;
  const out: BusyArea[] = [];
  rangesOf.set(t, out);
  for (const n of t.nodes) {
    if (n.type !== 'leaf') continue;
    let lo = n.min;
    n.slots.forEach((s, i) => {
      if (s.k === 'E') out.push({ id: rangeId(n.id, i), vaStart: lo, vaEnd: s.piv + 1n, lazy: false, node: 0 });
      lo = s.piv + 1n;
    });
  }
  return out;
}

const TOP = (1n << 64n) - 1n;

/** A vmalloc-shaped state for the page's other widgets: the stored ranges as busy areas. */
export function mapleState(t: MapleSnapshot): State {
  return {
    profile: 'maple-tree',
    cpus: 1,
    cpu: 0,
    lazyNr: 0,
    lazyMax: 0,
    nrNodes: 1,
    zoneSize: 0n,
    space: [0n, TOP],
    index: NO_INDEX,
    busy: storedRanges(t),
    lazy: [],
    pools: [],
    initialized: true,
  };
}

function areasOf(t: MapleSnapshot): Areas {
  return { lazyNr: 0, busy: storedRanges(t), lazy: [], pools: [] };
}

const NO_RAW: RawSession = {
  len: () => 0,
  state: () => 'null',
  frames: () => 'null',
  summaries: () => '[]',
  marks: () => new Uint8Array(),
  push: () => {
    throw new Error('not a vmalloc session');
  },
  push_checked: () => {
    throw new Error('not a vmalloc session');
  },
  truncate: () => undefined,
  trace_text: () => '',
  output: () => '',
  check: () => undefined,
};

/**
 * A maple-tree trace replayed by the core. Its own methods (`tree`, `mapleFrames`, `dump`)
 * give the maple view what it draws; the `Session` methods give the rest of the page a
 * vmalloc-shaped view of the same (the stored ranges as busy areas; the maple events as frames).
 */
export class MapleSession extends Session {
  readonly maple = true;
  private readonly trees = new Map<number, MapleSnapshot>();
  private readonly opFrames = new Map<number, MapleOpFrames | null>();

  constructor(private readonly m: RawMaple) {
    super(NO_RAW);
  }

  override get length(): number {
    return this.m.len();
  }

  /** The tree before op `k` (`k == length`: the end). */
  tree(k: number): MapleSnapshot {
    const c = this.clamp(k);
    let t = this.trees.get(c);
    if (!t) {
      t = parseMapleSnapshotValue(JSON.parse(this.m.state(c)));
      if (this.trees.size > 16) this.trees.clear();
      this.trees.set(c, t);
    }
    return t;
  }

  /** Op `k`'s frames (null past the end). */
  mapleFrames(k: number): MapleOpFrames | null {
    if (this.opFrames.has(k)) return this.opFrames.get(k) ?? null;
    const f = k >= 0 && k < this.length ? parseMapleFrames(this.m.frames(k)) : null;
    if (this.opFrames.size > 8) this.opFrames.clear();
    this.opFrames.set(k, f);
    return f;
  }

  private writes: Int32Array | null = null;

  /**
   * A key for the stored ranges at a position (op `k`, and the index of the tree in force in
   * its frames, -1 between operations): the last `store`/`erase` that had finished. Positions
   * with the same key show the same ranges, so the address bar need not be drawn again.
   */
  areasKey(k: number, tree: number): string {
    if (!this.writes) {
      // writes[i]: the last store/erase among ops 0..i-1 (-1: none).
      const sums = this.summaries();
      const w = new Int32Array(sums.length + 1);
      let last = -1;
      sums.forEach((s, i) => {
        w[i] = last;
        if (/^(store|erase)\s/.test(s.text)) last = i;
      });
      w[sums.length] = last;
      this.writes = w;
    }
    const at = this.clamp(k);
    const isWrite = at < this.length && at < this.writes.length - 1 && this.writes[at + 1] === at;
    return `w${tree > 0 && isWrite ? at : (this.writes[at] ?? -1)}`;
  }

  /** The conformance dump of the tree before op `k`. */
  dump(k: number): string {
    return this.m.dump(this.clamp(k));
  }

  override state(k: number): State {
    return mapleState(this.tree(k));
  }

  override frames(k: number): OpFrames | null {
    const f = this.mapleFrames(k);
    if (!f) return null;
    const first = f.trees[0];
    const last = f.trees[f.trees.length - 1] ?? first;
    return {
      index: f.index,
      line: f.line,
      text: f.text,
      output: f.output,
      warning: null,
      before: mapleState(first),
      after: mapleState(last),
      // The player only counts and steps these frames; the maple module narrates their events,
      // whose kinds are the maple tree's, not the allocator's.
      frames: f.frames.map((fr) => ({ event: fr.event as unknown as StepEvent, tree: 0, areas: fr.tree })),
      trees: [NO_INDEX],
      areas: f.trees.map(areasOf),
    };
  }

  override marks(from = 0, to = this.length): Set<never>[] {
    return Array.from({ length: Math.max(0, to - from) }, () => new Set<never>());
  }

  override summaries(from = 0, to = this.length): OpSummary[] {
    return parseSummaries(this.m.summaries(from, to));
  }

  override push(line: string): OpSummary {
    const s = parseSummaryValue(JSON.parse(this.m.push(line)));
    this.writes = null;
    this.trees.clear();
    this.opFrames.clear();
    return s;
  }

  /** A line typed into the page: the same rule as a trace line (the core answers FIRST > LAST itself). */
  override pushChecked(line: string): OpSummary {
    return this.push(line);
  }

  override truncate(k: number): void {
    this.m.truncate(this.clamp(k));
    this.writes = null;
    this.trees.clear();
    this.opFrames.clear();
  }

  override traceText(): string {
    return this.m.trace_text();
  }

  override output(): string {
    return this.m.output();
  }

  override check(): string | null {
    return null;
  }

  override dispose(): void {
    this.m.free?.();
  }
}

export function isMapleSession(s: Session | null): s is MapleSession {
  return s instanceof MapleSession;
}
