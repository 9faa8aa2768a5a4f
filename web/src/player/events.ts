// Kinds of step event a lecturer jumps between ("the next rotation") and a lesson's stop claims
// ("this stop sits on a merge"). Each kind is defined on the contract's event types
// (web/src/contract/contract.ts: `Event`, and `MapleEvent` for the maple tree's work, which an
// allocator wraps as `{kind: "maple", event}` and a `profile maple-tree` trace sends bare), never
// on narration text. Searching walks the core's own frames, so a jump lands on a micro-step the
// core reported.
import type { Event, MapleEvent } from '../contract/contract';
import { at, type Pos } from './timeline';

/** An event as the bridges hand it on: a `kind` tag and the contract's fields (raw JSON values). */
export interface AnyEvent {
  kind: string;
  [field: string]: unknown;
}

export type EventKind =
  | 'walk'
  | 'cache_reset'
  | 'fit'
  | 'rotate'
  | 'recolor'
  | 'merge'
  | 'propagate_stop'
  | 'roll_back'
  | 'lazy'
  | 'purge'
  | 'pool_hit'
  | 'pool_miss'
  | 'pooled'
  | 'decay'
  | 'store_type'
  | 'split'
  | 'rebalance'
  | 'spanning'
  | 'gap_stop'
  | 'gap_skip'
  | 'hole_found'
  | 'ascend'
  | 'window'
  | 'bump_hit'
  | 'bump_refill'
  | 'fail';

type AllocKind = Event['kind'];
type MapleKind = MapleEvent['kind'];

export interface KindInfo {
  kind: EventKind;
  /** The selector's words. */
  label: string;
  group: 'linux-5.1 list walk' | 'free tree' | 'lazy freeing and nodes' | 'maple tree' | 'maple-rfc';
  /** The allocator's event kinds it stands for. */
  alloc?: AllocKind[];
  /** The maple tree's event kinds it stands for (bare, or inside an allocator's `maple` event). */
  maple?: MapleKind[];
  /** Only the events whose fields hold these values. */
  where?: Record<string, unknown>;
}

/** Every kind, in the selector's order. */
export const KINDS: readonly KindInfo[] = [
  { kind: 'walk', label: 'list walk step', group: 'linux-5.1 list walk', alloc: ['walk_area'] },
  { kind: 'cache_reset', label: 'cache reset', group: 'linux-5.1 list walk', alloc: ['cache_reset'] },
  { kind: 'fit', label: 'fit (FL, LE, RE, NE)', group: 'free tree', alloc: ['fit'] },
  { kind: 'rotate', label: 'rotation', group: 'free tree', alloc: ['rotate'] },
  { kind: 'recolor', label: 'recolour', group: 'free tree', alloc: ['recolor'] },
  { kind: 'merge', label: 'merge', group: 'free tree', alloc: ['merge'] },
  { kind: 'propagate_stop', label: 'propagation stop', group: 'free tree', alloc: ['propagate_stop'] },
  { kind: 'roll_back', label: 'search roll-back', group: 'free tree', alloc: ['roll_back'] },
  { kind: 'fail', label: 'allocation failure', group: 'free tree', alloc: ['alloc_failed'] },
  { kind: 'lazy', label: 'lazy free', group: 'lazy freeing and nodes', alloc: ['lazy_enqueue'] },
  { kind: 'purge', label: 'purge', group: 'lazy freeing and nodes', alloc: ['purge_start'] },
  { kind: 'pool_hit', label: 'pool hit', group: 'lazy freeing and nodes', alloc: ['pool_hit'] },
  { kind: 'pool_miss', label: 'pool miss', group: 'lazy freeing and nodes', alloc: ['pool_miss'] },
  { kind: 'pooled', label: 'area pooled by a purge', group: 'lazy freeing and nodes', alloc: ['pooled'] },
  { kind: 'decay', label: 'decay', group: 'lazy freeing and nodes', alloc: ['decay'] },
  { kind: 'store_type', label: 'store type', group: 'maple tree', maple: ['store_type'] },
  { kind: 'split', label: 'node split', group: 'maple tree', maple: ['split'] },
  { kind: 'rebalance', label: 'rebalance', group: 'maple tree', maple: ['rebalance'] },
  { kind: 'spanning', label: 'spanning store', group: 'maple tree', maple: ['spanning'] },
  { kind: 'gap_stop', label: 'gap propagation stop', group: 'maple tree', maple: ['gap_update'], where: { stop: true } },
  { kind: 'gap_skip', label: 'gap search: subtree skipped', group: 'maple tree', maple: ['skip'] },
  { kind: 'ascend', label: 'gap search: back up a level', group: 'maple tree', maple: ['ascend'] },
  { kind: 'hole_found', label: 'gap search: hole found', group: 'maple tree', maple: ['found'] },
  { kind: 'window', label: 'window loop', group: 'maple-rfc', alloc: ['window_hole'] },
  { kind: 'bump_hit', label: 'bump hit', group: 'maple-rfc', alloc: ['bump_hit'] },
  { kind: 'bump_refill', label: 'bump refill', group: 'maple-rfc', alloc: ['bump_refill'] },
];

const BY_KIND = new Map(KINDS.map((k) => [k.kind, k]));

export function kindInfo(kind: EventKind): KindInfo {
  return BY_KIND.get(kind) as KindInfo;
}

export function isEventKind(s: string): s is EventKind {
  return BY_KIND.has(s as EventKind);
}

/** The maple tree's event inside an allocator's `maple` event, else the event itself. */
export function innerEvent(e: AnyEvent): AnyEvent {
  return e.kind === 'maple' && typeof e.event === 'object' && e.event !== null ? (e.event as AnyEvent) : e;
}

/**
 * Whether an event is of a kind. A `profile maple-tree` trace's frames carry the maple tree's
 * events bare; their tags (`visit` aside, which no kind uses) are not the allocator's.
 */
export function isOfKind(e: AnyEvent, kind: EventKind): boolean {
  const info = BY_KIND.get(kind);
  if (!info) return false;
  const inner = innerEvent(e);
  const tagged =
    e.kind === 'maple'
      ? info.maple?.includes(inner.kind as MapleKind) === true
      : info.alloc?.includes(e.kind as AllocKind) === true || info.maple?.includes(e.kind as MapleKind) === true;
  return tagged && matches(inner, info.where);
}

/** Whether an event's fields hold the values of `where` (none: true). */
export function matches(e: AnyEvent, where: Record<string, unknown> | undefined): boolean {
  if (!where) return true;
  return Object.entries(where).every(([k, v]) => e[k] === v);
}

/** What a search can read of a trace: its length and each operation's frames' events. */
export interface EventSource {
  length: number;
  /** The events of operation k's micro-steps (empty past the end). */
  events(op: number): readonly AnyEvent[];
}

export type Found = { pos: Pos } | { pos: null; scanned: number; complete: boolean };

/**
 * The next (dir 1) or previous (dir -1) micro-step from `p` whose event is of `kind`, reading at
 * most `maxOps` operations, and none once `stop()` says the time is up (a long trace: the caller
 * says how far it looked).
 */
export function findEvent(src: EventSource, p: Pos, kind: EventKind, dir: 1 | -1, maxOps = 4000, stop: () => boolean = () => false): Found {
  let scanned = 0;
  if (dir === 1) {
    for (let op = p.op; op < src.length; op++) {
      if (scanned >= maxOps || (scanned > 0 && stop())) return { pos: null, scanned, complete: false };
      scanned++;
      const ev = src.events(op);
      const from = op === p.op ? p.frame + 1 : 0;
      for (let f = Math.max(0, from); f < ev.length; f++) if (isOfKind(ev[f], kind)) return { pos: at(op, f) };
    }
  } else {
    for (let op = p.frame >= 0 ? p.op : p.op - 1; op >= 0; op--) {
      if (op >= src.length) continue;
      if (scanned >= maxOps || (scanned > 0 && stop())) return { pos: null, scanned, complete: false };
      scanned++;
      const ev = src.events(op);
      const from = op === p.op ? p.frame - 1 : ev.length - 1;
      for (let f = from; f >= 0; f--) if (isOfKind(ev[f], kind)) return { pos: at(op, f) };
    }
  }
  return { pos: null, scanned, complete: true };
}
