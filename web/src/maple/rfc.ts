// maple-rfc's micro-steps in words (issues 14/15): the allocator's frames of a `maple-rfc` trace
// carry its maple trees' own events (`maple`, with the tree they belong to), the RFC's window
// loop (`window_start`, `window_hole`) and the bump overlay (`bump_*`), beside the events every
// era reports (allocated, lazy_enqueue, purge_*). The occupied tree's events are narrated by the
// maple player's narrator (maple/narrate.ts), fed the frame's trees and the window of the current
// `mas_empty_area` call; the rest here. Words come only from the events and the trees the core
// reports. The pseudocode listings are our own (RFC v1 at patch 12/12, spec §11.4–§11.5).
import type { Index, OpFrames, StepEvent } from '../bridge';
import { hex, parseBig, size } from '../format';
import { listing as codeListing, LISTINGS, type Listing } from '../narrate/code';
import { narrate, type Narration } from '../narrate/narrate';
import type { MapleFocus } from '../views/mapleTree';
import { mapleSnapshotOf, type MapleOpFrames, type MapleSnapshot, type MapleStepEvent } from './bridge';
import { mapleFocus, narrateMaple } from './narrate';

const EMPTY: MapleSnapshot = { height: 0, nodes: [] };
const NO_FOCUS: MapleFocus = { path: [], node: null, scanned: new Map(), slot: null, found: null, gaps: [], store: null };

function big(v: unknown): bigint {
  return v === null || v === undefined ? 0n : parseBig(v);
}

function hs(v: bigint): string {
  return v < 0x400n ? hex(v) : `${hex(v)} (${size(v)})`;
}

function rng(a: bigint, b: bigint): string {
  return `[${hex(a)}, ${hex(b)}]`;
}

/** The frame's event as the maple tree's, when it is one of the occupied tree's. */
function occupiedEvent(ev: StepEvent): MapleStepEvent | null {
  return ev.kind === 'maple' && ev.tree === 'occupied' ? (ev.event as MapleStepEvent) : null;
}

/** The maple-tree player's form of an operation: its trees parsed, maple events unwrapped. */
const asMapleCache = new WeakMap<OpFrames, MapleOpFrames>();
function treeOf(i: Index | undefined): MapleSnapshot {
  return i && i.kind === 'maple' ? mapleSnapshotOf(i.tree) : EMPTY;
}

function asMaple(of: OpFrames): MapleOpFrames {
  let m = asMapleCache.get(of);
  if (!m) {
    m = {
      index: of.index,
      line: of.line,
      text: of.text,
      output: of.output,
      warning: of.warning,
      trees: of.trees.map(treeOf),
      // Only the occupied tree's events keep their maple kinds; others become neutral frames
      // (their node ids name nodes of another tree).
      frames: of.frames.map((fr) => ({ event: occupiedEvent(fr.event) ?? { kind: `rfc:${fr.event.kind}` }, tree: fr.tree })),
    };
    asMapleCache.set(of, m);
  }
  return m;
}

/** The `mas_empty_area(search, max, len)` call frame `i` belongs to (or follows), if any. */
function windowAt(of: OpFrames, i: number): { search: bigint; max: bigint; len: bigint } | null {
  for (let j = i; j >= 0; j--) {
    const e = of.frames[j].event;
    if (e.kind === 'window_start') {
      // The iteration in progress starts after the last miss (or at the window's start).
      let search = big(e.min);
      for (let q = j + 1; q < i; q++) {
        const h = of.frames[q].event;
        if (h.kind === 'window_hole' && h.next !== null && h.next !== undefined) search = big(h.next);
      }
      return { search, max: big(e.max), len: big(e.len) };
    }
  }
  return null;
}

/** The first frame of the run of occupied-tree events that frame `i` is in or ends. */
function runStart(of: OpFrames, i: number): number {
  let j = i;
  while (j > 0 && occupiedEvent(of.frames[j - 1].event)) j--;
  return j;
}

/** What the maple view marks at frame `i`: the current maple operation's path, slots, hole, gaps. */
export function rfcFocus(of: OpFrames, i: number): MapleFocus {
  const fr = of.frames[i];
  if (!fr) return NO_FOCUS;
  // An allocator step right after a search (a window iteration) keeps the search's marks.
  const end = occupiedEvent(fr.event) ? i : i - 1;
  if (end < 0 || !occupiedEvent(of.frames[end].event)) return NO_FOCUS;
  const start = runStart(of, end);
  const m = asMaple(of);
  return mapleFocus({ ...m, frames: m.frames.slice(start, end + 1) }, end - start);
}

function base(kind: string, listing: string, fn: string, line: string, phase: string, title: string, text: string): Narration {
  return { kind, title, text, listing, fn, line, phase };
}

/** Narrate frame `i` of a maple-rfc operation. */
export function narrateRfc(of: OpFrames, i: number): Narration | null {
  const fr = of.frames[i];
  if (!fr) return null;
  const ev = fr.event;
  if (ev.kind === 'maple') {
    const inner = ev.event as MapleStepEvent;
    if (ev.tree === 'occupied') {
      const m = asMaple(of);
      const w = windowAt(of, i);
      // The maple narrator reads the search window from an `empty MIN MAX SIZE` text.
      const text = w ? `empty ${hex(w.search)} ${hex(w.max)} ${hex(w.len)}` : m.text;
      const n = narrateMaple({ ...m, text }, i);
      return n ? { ...n, title: `Occupied tree: ${n.title}` } : null;
    }
    // A busy tree (the address -> area lookup) or the stale free tree: its own node ids, not drawn.
    const where = ev.tree === 'busy' ? `busy tree of node ${String(ev.node)}` : 'stale free tree';
    if (inner.kind === 'store_begin') {
      const a = big(inner.first);
      const b = big(inner.last);
      return base(
        'busy:store_begin',
        'mas_store',
        'mas_store_gfp',
        'begin',
        'busy tree',
        inner.erase === true ? `Busy tree: erase` : `Busy tree: insert`,
        inner.erase === true
          ? `The ${where} drops ${rng(a, b)} (one mas_erase: find and unlink in one walk); the occupied tree is not touched here.`
          : `The ${where} gets ${rng(a, b)} → the vmap_area (the lookup index of find_vmap_area); the occupied tree is not touched here.`,
      );
    }
    const n = narrateMaple({ ...asMaple(of), trees: [EMPTY], frames: [{ event: inner, tree: 0 }] }, 0);
    return n ? { ...n, kind: `busy:${inner.kind}`, title: `Busy tree ${String(ev.node)}: ${n.title}` } : null;
  }
  switch (ev.kind) {
    case 'window_start': {
      const sz = big(ev.size);
      const align = big(ev.align);
      const len = big(ev.len);
      const pad = len !== sz ? `align ${hex(align)} > PAGE_SIZE: every search asks for size + align − 1 = ${hs(len)}, so any hole it finds still fits after alignment` : `align ${hex(align)} ≤ PAGE_SIZE: no padding, each search asks for the size itself`;
      return base(
        ev.kind,
        'find_hole_window',
        'find_hole_window',
        'len',
        'window loop',
        'Window loop',
        `find_hole_window: ${hs(sz)} in ${rng(big(ev.min), big(ev.max))}; ${pad}. Each iteration is a fresh mas_empty_area from the root.`,
      );
    }
    case 'window_hole': {
      const it = Number(ev.iteration);
      const a = big(ev.index);
      const e = big(ev.hole_end);
      const c = big(ev.candidate);
      const ce = big(ev.cand_end);
      const head = `Iteration ${it}: the search from ${hex(big(ev.search))} found the hole ${rng(a, e)}; aligned up, the candidate is ${rng(c, ce)}`;
      if (ev.fits === true)
        return base(ev.kind, 'find_hole_window', 'find_hole_window', 'fit', 'window loop', 'Candidate fits', `${head}: it lies inside the hole → ${hex(c)} is the address.`);
      if (ev.next === null || ev.next === undefined)
        return base(ev.kind, 'find_hole_window', 'find_hole_window', 'fail', 'window loop', 'No address', `${head}: it does not fit, and there is nothing past the hole to search → fail (-ENOENT).`);
      const skipped = Number(ev.skipped);
      const more = skipped > 0 ? ` (the next ${skipped} searches would land in the same hole with the same misalignment and miss too: counted, skipped)` : '';
      return base(
        ev.kind,
        'find_hole_window',
        'find_hole_window',
        'again',
        'window loop',
        'Too short after alignment',
        `${head}: too short after alignment, it ends past ${hex(e)} → search again from ${hex(big(ev.next))}${more}.`,
      );
    }
    case 'search_none':
      return base(ev.kind, 'find_hole_window', 'find_hole_window', 'fail', 'window loop', 'No hole', 'The window loop ran out of window: no hole of that length → -ENOENT (the allocation may purge and retry once).');
    case 'bump_hit': {
      const sz = big(ev.size);
      return base(
        ev.kind,
        'vmap_bump_alloc',
        'vmap_bump_alloc',
        'hit',
        'bump',
        'Bump hit: no tree touched',
        `vmap_bump_alloc on CPU ${String(ev.cpu)}: ${rng(big(ev.addr), big(ev.addr) + sz - 1n)} (${size(sz)}) from the chunk at ${hex(big(ev.base))}; the bump pointer moves to ${hex(big(ev.bump))}, ${String(ev.pages)} pages outstanding. No maple tree and no busy tree is touched: page_va records the area.`,
      );
    }
    case 'bump_miss':
      return base(
        ev.kind,
        'vmap_bump_alloc',
        'vmap_bump_alloc',
        'miss',
        'bump',
        'Bump miss',
        ev.base === null || ev.base === undefined
          ? `CPU ${String(ev.cpu)} has no current chunk: the bump path misses.`
          : `The chunk at ${hex(big(ev.base))} has no room for ${hs(big(ev.size))} aligned to ${hex(big(ev.align))} before its limit: the bump path misses.`,
      );
    case 'bump_refill':
      return base(
        ev.kind,
        'vmap_bump_refill',
        'vmap_bump_refill',
        'cur',
        'bump',
        'Refill',
        `vmap_bump_refill: the 64 MiB range ${rng(big(ev.base), big(ev.limit) - 1n)} (one in-use range of the occupied tree, found by the ordinary gap search) becomes CPU ${String(ev.cpu)}'s current chunk${
          ev.retired === null || ev.retired === undefined ? '' : `; the chunk at ${hex(big(ev.retired))} is retired, its tail unused until its last area goes`
        }.`,
      );
    case 'bump_fast_reject':
      return base(
        ev.kind,
        'vmap_chunk_lookup',
        'vmap_chunk_lookup',
        'reject',
        'bump',
        'Fast reject',
        `vmap_chunk_lookup: ${hex(big(ev.addr))} is outside [lo, hi) = [${hex(big(ev.lo))}, ${hex(big(ev.hi))}): no chunk can hold it, no list walk; on to the busy trees.`,
      );
    case 'bump_unlink':
      return base(
        ev.kind,
        'vmap_bump_unlink',
        'vmap_bump_unlink',
        'unlink',
        'bump',
        'Bump unlink',
        `vmap_bump_unlink: ${rng(big(ev.va_start), big(ev.va_end) - 1n)} leaves page_va of the chunk at ${hex(big(ev.base))}; ${String(ev.pages)} pages remain outstanding. No tree is touched.`,
      );
    case 'bump_release': {
      const pending = Number(ev.lazy_pending);
      return base(
        ev.kind,
        'vmap_bump_unlink',
        'vmap_bump_unlink',
        'release',
        'bump',
        'Chunk released before the purge',
        `The chunk's last area is gone and it is not its owner's current chunk: ${rng(big(ev.base), big(ev.limit) - 1n)} goes back to the occupied tree now (a NULL store)${
          pending > 0 ? `, while ${pending} of its areas still wait for the lazy purge and its TLB flush: reused before flush` : ''
        }.`,
      );
    }
    case 'busy_overlap_missed':
      return base(
        ev.kind,
        'rfc:alloc_vmap_area',
        'insert_vmap_area_busy_locked',
        'busy',
        'busy tree',
        'Overlap not seen',
        `The overlap check looks only at the busy tree of node ${String(ev.node)}, the node of ${hex(big(ev.start))}: no neighbour there overlaps ${rangeOf(ev.start, ev.end)}, so the area goes in, although ${rangeOf(ev.other_start, ev.other_end)}, kept by node ${String(ev.other_node)}'s busy tree, overlaps it. No WARN: two areas now share addresses.`,
      );
    case 'lazy_enqueue':
      return base(
        ev.kind,
        'unlink_busy',
        'free_vmap_area_noflush',
        'lazy',
        'lazy',
        'Lazy free',
        `Area #${String(ev.id)} ${rangeOf(ev.va_start, ev.va_end)} is freed lazily: ${big(ev.nr_lazy)} of ${big(ev.lazy_max)} lazy pages wait for a purge; its range stays in use in the occupied tree until then.`,
      );
    case 'purge_start':
      return base(
        ev.kind,
        RFC_GLUE.__purge_vmap_area_lazy,
        '__purge_vmap_area_lazy',
        'start',
        'purge',
        'Purge',
        `Purge (${String(ev.cause).replace(/_/g, ' ')}): the pools decay, then ${String(ev.count)} lazy areas leave the lazy lists.`,
      );
    case 'pooled':
    case 'purge_area': {
      // One purged area: where it goes (the pool it is kept in, or its way back).
      const pooled = ev.kind === 'pooled';
      return base(
        ev.kind,
        RFC_GLUE.__purge_vmap_area_lazy,
        '__purge_vmap_area_lazy',
        'area',
        'purge',
        pooled ? 'Pooled' : 'Purge: return',
        pooled
          ? `${rangeOf(ev.va_start, ev.va_end)} is kept in node ${String(ev.node)}'s pool ${String(ev.pool)}: its range stays in use in the occupied tree while it waits there, for an allocation of its size to take it again or for the pools' decay (part of each pool at every purge, all of them at a reclaim) to give it back.`
          : `${rangeOf(ev.va_start, ev.va_end)} leaves the lazy list: ${purgeFate(of, i)}`,
      );
    }
    default: {
      const n = narrate(ev, { search: null, nodes: new Map() });
      // The era-neutral steps keep their words; their listing is maple-rfc's own where the
      // free-tree eras' one would name the free tree.
      const own = n ? RFC_GLUE[n.listing] : undefined;
      return n && own ? { ...n, listing: own } : n;
    }
  }
}

/**
 * Where the area of the `purge_area` at frame `i` goes, from the events that follow it (up to the
 * next area): a pool, a NULL store in the occupied tree, or, for a bump chunk's area, nowhere.
 */
function purgeFate(of: OpFrames, i: number): string {
  for (let j = i + 1; j < of.frames.length; j++) {
    const e = of.frames[j].event;
    if (e.kind === 'purge_area' || e.kind === 'purge_end') break;
    if (e.kind === 'pooled') return `it goes into node ${String(e.node)}'s pool ${String(e.pool)} (at most 256 pages, and not a full purge): the occupied tree does not change; a reclaim's full decay gives it back.`;
  }
  // Not pooled: it joins the node's list that goes back to the occupied tree after the last area.
  return "it is not kept in a pool (a full purge, a bump chunk's area, or one the pools do not take): once the node's list is done, a NULL store over its range in the occupied tree makes it free space (a bump chunk's area only drops its object: the range stays the chunk's).";
}

function rangeOf(a: unknown, b: unknown): string {
  return `[${hex(big(a))}, ${hex(big(b))})`;
}

/** The free-tree eras' listings that maple-rfc replaces with its own (same line ids). */
const RFC_GLUE: Record<string, string> = {
  alloc_vmap_area: 'rfc:alloc_vmap_area',
  __purge_vmap_area_lazy: 'rfc:__purge_vmap_area_lazy',
};

const RFC = 'mm/vmalloc.c (RFC v1, 12/12)';

const listing = (fn: string, rows: string): Listing => codeListing(fn, RFC, rows);

/** Our pseudocode of the RFC's allocation glue (spec §11.4.3, §11.5). */
export const RFC_LISTINGS: Record<string, Listing> = {
  'rfc:alloc_vmap_area': listing(
    'alloc_vmap_area',
    `
start|attempt:
     |  bump overlay on and the request eligible: vmap_bump_alloc (refill once) -> done
     |  else addr := find_hole_window over the occupied tree inside [vstart, vend)
     |  no room? -> overflow
     |  store [addr, addr + size - 1] as in use in the occupied tree
 busy|  check its neighbours in its vmap node's busy maple tree (overlap: warn, fail); insert it there
 done|  give the area to the caller
     |overflow:
purge|  first failure: purge the lazy areas, then attempt again
 fail|  still no room: warn that the allocation failed, return -EBUSY
`,
  ),
  'rfc:__purge_vmap_area_lazy': listing(
    '__purge_vmap_area_lazy',
    `
start|  decay every node's pools, then take each node's lazy list
     |  flush the TLB over the range they span
 area|  each area: into its node's pool (at most 256 pages, not on a full purge),
     |  or a NULL store over its range in the occupied tree (a bump area: its chunk keeps the range)
  end|  lazy page count -= the pages returned
`,
  ),
  find_hole_window: listing(
    'find_hole_window',
    `
   len|  len := size, or size + align - 1 when align > PAGE_SIZE (overflow -> fail)
      |  search := min
  loop|  while search <= max:
  mas |    a fresh maple state at search: mas_empty_area(search, max, len), or fail
  hole|    hole_end := min(mas.last, max); candidate := ALIGN(mas.index, align)
   fit|    candidate >= search and candidate + size - 1 <= hole_end -> return candidate
  fail|    hole_end is the top of the space -> fail
 again|    search := hole_end + 1  (too short after alignment: search again past it)
      |  fail
`,
  ),
  vmap_bump_alloc: listing(
    'vmap_bump_alloc',
    `
   cur|  chunk := this CPU's current chunk; none -> miss
 align|  a := ALIGN(chunk.bump, align)
  miss|  a before the chunk, a + size past its limit -> miss (the caller refills once)
   hit|  chunk.bump := a + size; page_va[pages of the area] := area; alloced += pages
      |  no maple tree, no busy tree: the area is complete
`,
  ),
  vmap_bump_refill: listing(
    'vmap_bump_refill',
    `
 alloc|  range := __alloc_vmap_area(64 MiB, PAGE_SIZE) on the occupied tree (one in-use range)
  list|  new chunk at the head of the chunk list; widen lo and hi
   cur|  it becomes this CPU's current chunk; the old one is retired (stays listed)
`,
  ),
  vmap_chunk_lookup: listing(
    'vmap_chunk_lookup',
    `
reject|  addr < lo or addr >= hi -> no chunk (fast reject: one comparison pair)
   cur|  this CPU's current chunk holds addr -> it
  walk|  else walk the chunk list, newest first
`,
  ),
  vmap_bump_unlink: listing(
    'vmap_bump_unlink',
    `
  find|  chunk := vmap_chunk_lookup(addr); page_va[addr's page] must be an area starting at addr
unlink|  clear its page_va entries; alloced -= its pages
release|  alloced = 0 and not the owner CPU's current chunk:
      |    drop it from the list; store NULL over the chunk's range in the occupied tree
      |    (before the lazy purge of its areas: their range is free again before the flush)
`,
  ),
};

export function registerRfcListings(): void {
  Object.assign(LISTINGS, RFC_LISTINGS);
}
