// The typed bridge to the wasm facade (core/wasm): its methods return JSON text with 64-bit
// values as `0x` hex strings; this module parses them into typed objects with bigint
// addresses. The raw JSON's types are generated from the Rust types (./contract/contract.ts);
// the parsed ones here are derived from them (`Parsed`). It does not import the wasm module
// itself (see wasm.ts), so it is unit-testable with a fake.
import type * as Raw from './contract/contract';
import { arr, count, num, obj, optNum, str } from './contract/json';
import { parseBig } from './format';
import { recoverFromTrap } from './trap';

/** snake_case to camelCase, as a type. */
type Camel<S extends string> = S extends `${infer H}_${infer R}` ? `${H}${Capitalize<Camel<R>>}` : S;

/**
 * A contract type as the bridge hands it on: `Addr` text as `bigint`, keys in camelCase,
 * arrays, tuples and nested objects likewise.
 */
export type Parsed<T> = T extends Raw.Addr
  ? bigint
  : T extends null
    ? null
    : T extends readonly unknown[]
      ? { [I in keyof T]: Parsed<T[I]> }
      : T extends object
        ? { [K in keyof T as Camel<K & string>]: Parsed<T[K]> }
        : T;

/** The surface of the wasm `Vmapviz` class this bridge uses. */
export interface RawSession {
  len(): number;
  state(k: number): string;
  frames(k: number): string;
  summaries(from: number, to: number): string;
  marks(from: number, to: number): Uint8Array;
  push(line: string): string;
  push_checked(line: string): string;
  truncate(k: number): void;
  trace_text(): string;
  output(): string;
  check(): string | undefined;
  free?(): void;
}

/** A range of addresses `[vaStart, vaEnd)` named by the core's area id. */
export type Area = Parsed<Raw.AreaInfo>;

/** A node of the augmented free tree (pre-order in a `free_tree` index's `nodes`). */
export type FreeNode = Parsed<Raw.NodeSnap>;

/** A busy area; with `lazy`, freed lazily but still in the busy tree (linux-5.2). */
export type BusyArea = Parsed<Raw.BusySnap>;

/** A lazily freed area outside the busy tree, on the node whose lazy list holds it (0 before 6.9). */
export type LazyArea = Parsed<Raw.LazySnap>;

/** A per-node pool of cached free areas (linux-6.9 vmap nodes). */
export type Pool = Parsed<Raw.PoolSnap>;

/**
 * Everything the core reports about the allocator at one point. `lazy` holds the lazily freed
 * areas waiting for a purge outside the busy tree (6.1 purge tree, 6.9 per-node lists);
 * `initialized` whether the free space exists yet (the core sets it up on the first operation:
 * the boot block [1, 2^64 - 1), or `init`; the state before op 0 has no areas at all).
 */
/**
 * The index an era keeps (the core's `IndexSnap`, tagged by `kind`): the augmented free tree
 * (its root and its nodes in pre-order; linux-5.1 keeps it empty), or a maple tree (maple-rfc's
 * occupied tree, whose NULL ranges are the free space). A maple tree stays in the contract's raw
 * form here; `web/src/maple/bridge.ts` parses it for the maple view, which is loaded only when a
 * trace needs it. A new kind of index is a new member here, drawn by its own view.
 */
export type Index = { kind: 'free_tree'; root: number | null; nodes: FreeNode[] } | { kind: 'maple'; tree: Raw.MapleTreeJson };

/** An empty free tree (the index of a state that has none to show). */
export const NO_INDEX: Index = { kind: 'free_tree', root: null, nodes: [] };

/** The free tree's nodes of an index; none for another kind of index. */
export function freeNodes(i: Index): FreeNode[] {
  return i.kind === 'free_tree' ? i.nodes : [];
}

/** The allocator at one point; `index` is the era's index (free tree or maple tree). */
export type State = Omit<Parsed<Raw.StateSnap>, 'profile' | 'index' | 'chunks' | 'memory'> & {
  profile: string;
  index: Index;
  /** maple-rfc's bump chunks, newest first (absent or empty for the other eras). */
  chunks?: BumpChunk[];
  /** What the index takes (objects, maple nodes, chunk descriptors); absent for a maple-tree trace. */
  memory?: IndexMemory;
};

/** One 64 MiB chunk of maple-rfc's per-CPU bump overlay: `[base, limit)`, its bump pointer, used pages, owner CPU. */
export type BumpChunk = Parsed<Raw.ChunkSnap>;

/** The memory of a state's index, for the struct panel (core/src/memory.rs). */
export type IndexMemory = Parsed<Raw.IndexMemory>;

/** Bytes per live area of a state's index (a state with none counts one), as the core's `per_live_area`. */
export function bytesPerLiveArea(m: IndexMemory): number {
  return m.indexBytes / Math.max(1, m.liveAreas);
}

/** One operation of the trace and what it printed (`line`: 1-based line of the trace text). */
export type OpSummary = Parsed<Raw.OpSummary>;

/**
 * One step event of the core (`kind` tag, one of the contract's `Event` kinds; see
 * core/src/events.rs). Fields are kept as the core sent them (addresses as hex text).
 */
export interface StepEvent {
  kind: Raw.Event['kind'];
  [field: string]: unknown;
}

export interface Frame {
  event: StepEvent;
  /** Index into `OpFrames.trees`: the era's index (free tree or maple tree) after this event. */
  tree: number;
  /** Index into `OpFrames.areas`: the busy, lazy and pooled areas after this event. */
  areas: number;
}

/** The busy, lazy and pooled areas at one point (what the address bar shows besides the free tree). */
export type Areas = Pick<State, 'lazyNr' | 'busy' | 'lazy' | 'pools'>;

/** All the micro-steps of one operation, for a player. */
export interface OpFrames extends OpSummary {
  before: State;
  after: State;
  frames: Frame[];
  /** The era's index after each frame that changed it; `trees[0]` is `before`'s. */
  trees: Index[];
  /** `areas[0]` is `before`'s; each frame names the one in force after its event. */
  areas: Areas[];
}

/** The allocator as the core reports it right after frame `i` of `f` (its tree and its areas). */
export function stateAtFrame(f: OpFrames, i: number): State {
  const fr = f.frames[i];
  if (!fr) return f.before;
  const a = f.areas[fr.areas] ?? f.areas[0];
  const index = f.trees[fr.tree] ?? f.before.index;
  // Every event of an operation comes after the core set its space up (the first operation boots
  // it): a range between a free block and a busy area mid-operation is in flight, not uninitialised.
  const initialized = f.before.initialized || f.after.initialized;
  return { ...f.before, initialized, index, lazyNr: a.lazyNr, busy: a.busy, lazy: a.lazy, pools: a.pools };
}

function parseArea(v: unknown): Area {
  const o = obj<Raw.AreaInfo>(v, 'area');
  return { id: num(o.id, 'area.id'), vaStart: parseBig(o.va_start), vaEnd: parseBig(o.va_end) };
}

export function parseFreeNode(v: unknown): FreeNode {
  const o = obj<Raw.NodeSnap>(v, 'free node');
  return {
    ...parseArea(o),
    subtreeMaxSize: parseBig(o.subtree_max_size),
    black: o.black === true,
    parent: optNum(o.parent, 'parent'),
    left: optNum(o.left, 'left'),
    right: optNum(o.right, 'right'),
    depth: num(o.depth, 'depth'),
  };
}

function parseBusy(v: unknown): BusyArea {
  const o = obj<Raw.BusySnap>(v, 'busy area');
  return { ...parseArea(o), lazy: o.lazy === true, node: num(o.node ?? 0, 'node') };
}

function parseLazy(l: unknown): LazyArea {
  return { ...parseArea(l), node: num(obj<Raw.LazySnap>(l, 'lazy area').node ?? 0, 'node') };
}

function parseChunk(v: unknown): BumpChunk {
  const o = obj<Raw.ChunkSnap>(v, 'chunk');
  return {
    base: parseBig(o.base),
    limit: parseBig(o.limit),
    bump: parseBig(o.bump),
    pages: count(o.pages, 'chunk.pages'),
    ownerCpu: count(o.owner_cpu, 'chunk.owner_cpu'),
    current: o.current === true,
  };
}

function parseMemory(v: unknown): IndexMemory {
  const o = obj<Raw.IndexMemory>(v, 'memory');
  return {
    vmapAreaBytes: count(o.vmap_area_bytes, 'vmap_area_bytes'),
    objects: count(o.objects, 'objects'),
    freeBlocks: count(o.free_blocks, 'free_blocks'),
    liveAreas: count(o.live_areas, 'live_areas'),
    occupiedNodes: count(o.occupied_nodes, 'occupied_nodes'),
    busyTreeNodes: count(o.busy_tree_nodes, 'busy_tree_nodes'),
    freeTreeNodes: count(o.free_tree_nodes, 'free_tree_nodes'),
    chunks: count(o.chunks, 'chunks'),
    indexBytes: count(o.index_bytes, 'index_bytes'),
  };
}

function parsePool(p: unknown): Pool {
  const q = obj<Raw.PoolSnap>(p, 'pool');
  return { node: num(q.node, 'pool.node'), pool: num(q.pool, 'pool.pool'), entries: arr(q.entries, 'entries').map(parseArea) };
}

export function parseStateValue(v: unknown): State {
  const o = obj<Raw.StateSnap>(v, 'state');
  const space = arr(o.space, 'space');
  const state: Omit<State, 'initialized'> = {
    profile: str(o.profile, 'profile'),
    cpus: count(o.cpus, 'cpus'),
    cpu: count(o.cpu, 'cpu'),
    lazyNr: count(o.lazy_nr, 'lazy_nr'),
    lazyMax: count(o.lazy_max, 'lazy_max'),
    nrNodes: count(o.nr_nodes ?? 1, 'nr_nodes'),
    zoneSize: parseBig(o.zone_size ?? 0),
    space: [parseBig(space[0]), parseBig(space[1])],
    index: parseIndex(o.index),
    busy: arr(o.busy, 'busy').map(parseBusy),
    lazy: arr(o.lazy ?? [], 'lazy').map(parseLazy),
    pools: arr(o.pools ?? [], 'pools').map(parsePool),
    chunks: arr(o.chunks ?? [], 'chunks').map(parseChunk),
  };
  if (o.memory !== undefined && o.memory !== null) state.memory = parseMemory(o.memory);
  const anyArea =
    freeNodes(state.index).length + state.busy.length + state.lazy.length + state.pools.reduce((n, p) => n + p.entries.length, 0) > 0;
  return { ...state, initialized: typeof o.initialized === 'boolean' ? o.initialized : anyArea };
}

/** The core's `IndexSnap`: `{kind: "free_tree", root, nodes}` or `{kind: "maple", tree}`. */
export function parseIndex(v: unknown): Index {
  const o = obj(v, 'index');
  const kind = str(o.kind, 'index.kind');
  if (kind === 'free_tree') return { kind, root: optNum(o.root, 'index.root'), nodes: arr(o.nodes, 'index.nodes').map(parseFreeNode) };
  // A maple tree is checked where it is drawn (web/src/maple/bridge.ts' parseMapleSnapshotValue).
  if (kind === 'maple') return { kind, tree: obj(o.tree, 'index.tree') as unknown as Raw.MapleTreeJson };
  throw new TypeError(`index: unknown kind ${kind}`);
}

export function parseState(json: string): State {
  return parseStateValue(JSON.parse(json));
}

export function parseSummaryValue(v: unknown): OpSummary {
  const o = obj<Raw.OpSummary>(v, 'summary');
  return {
    index: num(o.index, 'index'),
    line: num(o.line, 'line'),
    text: str(o.text, 'text'),
    output: typeof o.output === 'string' ? o.output : '',
    warning: typeof o.warning === 'string' ? o.warning : null,
  };
}

export function parseSummaries(json: string): OpSummary[] {
  return arr(JSON.parse(json), 'summaries').map(parseSummaryValue);
}

export function parseFrames(json: string): OpFrames | null {
  const v: unknown = JSON.parse(json);
  if (v === null) return null;
  const o = obj<Raw.FramesJson>(v, 'frames');
  const before = parseStateValue(o.before);
  return {
    ...parseSummaryValue(o),
    before,
    after: parseStateValue(o.after),
    frames: arr(o.frames, 'frames').map((f) => {
      const q = obj<Raw.Frame>(f, 'frame');
      const event = obj(q.event, 'event');
      return { event: { ...event, kind: str(event.kind, 'event.kind') as StepEvent['kind'] }, tree: num(q.tree, 'frame.tree'), areas: num(q.areas ?? 0, 'frame.areas') };
    }),
    trees: rebuildIndexes(before.index, arr(o.index_deltas, 'index_deltas')),
    areas: rebuildAreas(before, arr(o.area_deltas ?? [], 'area_deltas')),
  };
}

/**
 * The busy, lazy and pooled areas of each snapshot, from the core's deltas (`area_deltas` in
 * core/wasm): busy areas new or changed and the ids that left (kept in address order, as the
 * core lists them), the lazy and pooled lists whole when they changed (`null` otherwise).
 */
export function rebuildAreas(before: State, deltas: unknown[]): Areas[] {
  let cur: Areas = { lazyNr: before.lazyNr, busy: before.busy, lazy: before.lazy, pools: before.pools };
  const out = [cur];
  for (const d of deltas) {
    const q = obj<Raw.AreaDelta>(d, 'area delta');
    const byId = new Map(cur.busy.map((b) => [b.id, b]));
    for (const id of arr(q.busy_del, 'busy_del')) byId.delete(num(id, 'busy_del'));
    for (const b of arr(q.busy_set, 'busy_set')) {
      const a = parseBusy(b);
      byId.set(a.id, a);
    }
    const busy = [...byId.values()].sort((x, y) => (x.vaStart < y.vaStart ? -1 : x.vaStart > y.vaStart ? 1 : 0));
    cur = {
      lazyNr: count(q.lazy_nr, 'lazy_nr'),
      busy,
      lazy: q.lazy === null || q.lazy === undefined ? cur.lazy : arr(q.lazy, 'lazy').map(parseLazy),
      pools: q.pools === null || q.pools === undefined ? cur.pools : arr(q.pools, 'pools').map(parsePool),
    };
    out.push(cur);
  }
  return out;
}

/**
 * The era's index after each event, from the core's tagged deltas (`index_deltas` in core/wasm):
 * a free tree as the change to the free tree before it (see `rebuildTrees`; from empty after
 * another kind of index), a maple tree whole.
 */
export function rebuildIndexes(base: Index, deltas: unknown[]): Index[] {
  let prev = base;
  return deltas.map((d, i) => {
    const q = obj(d, 'index delta');
    const kind = str(q.kind, 'index delta kind');
    let next: Index;
    if (kind === 'free_tree') {
      const nodes = rebuildTrees(freeNodes(prev), [q])[0];
      next = { kind, root: nodes[0]?.id ?? null, nodes };
    } else if (kind === 'maple') {
      next = { kind, tree: obj(q.tree, 'index delta tree') as unknown as Raw.MapleTreeJson };
    } else throw new TypeError(`index delta ${i}: unknown kind ${kind}`);
    prev = next;
    return next;
  });
}

/**
 * The free tree after each event, from the core's deltas (`tree_deltas` in core/wasm): each
 * names the root, the nodes that are new or changed (all but `depth`) and the ids that left.
 * A tree is rebuilt in pre-order from its root with depths counted on the way, as the core
 * lists it; a node that did not change keeps the same object.
 */
export function rebuildTrees(base: FreeNode[], deltas: unknown[]): FreeNode[][] {
  const byId = new Map<number, FreeNode>(base.map((n) => [n.id, n]));
  let prev = byId;
  return deltas.map((d, i) => {
    const q = obj<Extract<Raw.IndexDelta, { kind: 'free_tree' }>>(d, 'tree delta');
    const next = new Map(prev);
    for (const id of arr(q.del, 'del')) next.delete(num(id, 'del'));
    for (const n of arr(q.set, 'set')) {
      const node = parseFreeNode(n);
      next.set(node.id, node);
    }
    const tree: FreeNode[] = [];
    const root = optNum(q.root, 'root');
    const stack: [number, number][] = root === null ? [] : [[root, 0]];
    while (stack.length > 0) {
      const [id, depth] = stack.pop()!;
      let n = next.get(id);
      if (!n || tree.length >= next.size) throw new TypeError(`tree delta ${i}: node ${id} is missing or repeated`);
      if (n.depth !== depth) {
        n = { ...n, depth };
        next.set(id, n);
      }
      tree.push(n);
      if (n.right !== null) stack.push([n.right, depth + 1]);
      if (n.left !== null) stack.push([n.left, depth + 1]);
    }
    if (tree.length !== next.size) throw new TypeError(`tree delta ${i}: ${next.size - tree.length} nodes are not reachable from the root`);
    prev = next;
    return tree;
  });
}

/**
 * What a timeline marks on an operation: an NE split, a merge, a rotation; and in a capture's
 * replay, an allocation an unknown of the start state explains, one nothing explains, or one
 * the trace does not show that the replay made.
 */
export type MarkKind = 'split' | 'merge' | 'rotate' | 'explained' | 'unexplained' | 'untraced';

/**
 * The core's mark bits (`MARK_SPLIT`, `MARK_MERGE`, `MARK_ROTATE`, `MARK_EXPLAINED`,
 * `MARK_UNEXPLAINED`, `MARK_UNTRACED` in core/src/session.rs).
 */
const MARK_BITS: [number, MarkKind][] = [
  [8, 'explained'],
  [16, 'unexplained'],
  [32, 'untraced'],
  [1, 'split'],
  [2, 'merge'],
  [4, 'rotate'],
];

export function markKinds(bits: number): Set<MarkKind> {
  return new Set(MARK_BITS.filter(([b]) => (bits & b) !== 0).map(([, k]) => k));
}

/** The message of whatever a wasm call threw (`JsError` arrives as an `Error`). */
export function errorMessage(e: unknown): string {
  // Every error the page reports is worded here: a wasm trap among them restarts the core
  // (web/src/trap.ts) instead of being shown as one more message from a dead instance.
  recoverFromTrap(e);
  if (e instanceof Error) return e.message;
  return String(e);
}

/** The workbench build's figures of a session (core/wasm/src/figures.rs): JSON `Fragmentation`, `FragSeries`. */
export interface SessionFigures {
  fragmentation(k: number): string;
  /** The states `from`, each multiple of `every` after it, and `to`. */
  frag_series(from: number, to: number, every: number): string;
}

/**
 * A replayed trace: step k is the state before operation k (k = len() is the end). Wraps the
 * wasm session and parses what it returns; call `dispose()` when done.
 */
export class Session {
  constructor(private readonly raw: RawSession) {}

  get length(): number {
    return this.raw.len();
  }

  /** The state before op `k` (clamped to 0..length). */
  state(k: number): State {
    return parseState(this.raw.state(this.clamp(k)));
  }

  frames(k: number): OpFrames | null {
    return parseFrames(this.raw.frames(k));
  }

  /** What ops `from..to` did that the timeline marks (an empty set for none), one per op. */
  marks(from = 0, to = this.length): Set<MarkKind>[] {
    return [...this.raw.marks(from, to)].map(markKinds);
  }

  summaries(from = 0, to = this.length): OpSummary[] {
    return parseSummaries(this.raw.summaries(from, to));
  }

  /** Append one trace line; throws an Error with the core's message when it is invalid. */
  push(line: string): OpSummary {
    return parseSummaryValue(JSON.parse(this.raw.push(line)));
  }

  /**
   * Append one line a person typed: like `push`, but the core also refuses a request that is
   * the caller's mistake (a free of nothing, a double free, an empty window, ...).
   */
  pushChecked(line: string): OpSummary {
    return parseSummaryValue(JSON.parse(this.raw.push_checked(line)));
  }

  truncate(k: number): void {
    this.raw.truncate(this.clamp(k));
  }

  /**
   * The fragmentation figures of this session's states, when its core has them (the
   * workbench's build: a followed or imported capture, live mode included); null for the
   * page's first-screen build, which leaves them out.
   */
  get figures(): SessionFigures | null {
    const raw = this.raw as unknown as Partial<SessionFigures>;
    if (typeof raw.fragmentation !== 'function' || typeof raw.frag_series !== 'function') return null;
    return {
      fragmentation: (k) => raw.fragmentation!(this.clamp(k)),
      frag_series: (from, to, every) => raw.frag_series!(this.clamp(from), this.clamp(to), Math.max(1, Math.trunc(every))),
    };
  }

  traceText(): string {
    return this.raw.trace_text();
  }

  output(): string {
    return this.raw.output();
  }

  /** An invariant violation of the current (final) state, or null. */
  check(): string | null {
    return this.raw.check() ?? null;
  }

  clamp(k: number): number {
    return Math.max(0, Math.min(this.length, Math.trunc(k)));
  }

  dispose(): void {
    this.raw.free?.();
  }
}
