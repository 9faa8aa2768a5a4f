// What a micro-step points at: marks on tree nodes, a callout next to the node the event is
// about, the branch the search takes, and address ranges to outline on the bar. All read off
// the core's events of the operation up to this frame.
import type { FreeNode, OpFrames, StepEvent } from '../bridge';
import { size } from '../format';
import { big, hexIdOf, idOf } from '../narrate/narrate';

/** Node marks (CSS classes `m-<mark>` and the `data-mark` attribute). */
export type Mark =
  | 'visit' // the node the search is at
  | 'path' // visited earlier in this search
  | 'found' // the block the search chose
  | 'changed' // its bounds changed (clip, merge)
  | 'new' // just linked
  | 'removing' // about to leave the tree (erase, merged away)
  | 'rotate' // part of a rotation
  | 'recolor'
  | 'prop' // its subtree_max_size was just recomputed
  | 'prop-path' // recomputed earlier in this propagation
  | 'stop' // the propagation stops here
  | 'neighbor'; // a free neighbour of a freed block

export interface Callout {
  id: number;
  text: string;
  tone: 'info' | 'go' | 'stop' | 'change' | 'warn';
}

export type RangeTone = 'focus' | 'old' | 'new' | 'request' | 'busy' | 'freed';

export interface FocusRange {
  start: bigint;
  end: bigint;
  tone: RangeTone;
  label: string;
}

export interface Focus {
  marks: Map<number, Mark[]>;
  callouts: Callout[];
  /** The edge the search takes from node `from`. */
  taken: { from: number; side: 'left' | 'right' } | null;
  /** Ranges to outline on the address-space views. */
  ranges: FocusRange[];
  /** Nodes the narration names besides the marked ones (a link's parent): kept in view with them when they fit. */
  context?: number[];
}

export const NO_FOCUS: Focus = { marks: new Map(), callouts: [], taken: null, ranges: [] };

const short = (v: unknown) => size(big(v));

function add(marks: Map<number, Mark[]>, id: number | null, m: Mark): void {
  if (id === null) return;
  const list = marks.get(id) ?? [];
  if (!list.includes(m)) list.push(m);
  marks.set(id, list);
}

function nodeRange(nodes: Map<number, FreeNode>, id: number | null): [bigint, bigint] | null {
  const n = id === null ? undefined : nodes.get(id);
  return n ? [n.vaStart, n.vaEnd] : null;
}

/** The focus of frame `f` of an operation; `nodes` is the tree in force at that frame. */
export function focusOf(of: OpFrames, f: number, nodes: Map<number, FreeNode>): Focus {
  const frames = of.frames;
  if (f < 0 || f >= frames.length) return NO_FOCUS;
  const ev = frames[f].event;
  const marks = new Map<number, Mark[]>();
  const callouts: Callout[] = [];
  const context: number[] = [];
  const ranges: FocusRange[] = [];
  let taken: Focus['taken'] = null;

  // Trails: the search's earlier visits, and the propagation walk so far.
  let searching = true;
  for (let i = 0; i < f; i++) {
    const e = frames[i].event;
    if (e.kind === 'search_start') searching = true;
    else if (e.kind === 'fit' || e.kind === 'search_none' || e.kind === 'out_of_range') searching = false;
  }
  if (searching && (ev.kind === 'visit' || ev.kind === 'roll_back')) {
    for (let i = f - 1; i >= 0; i--) {
      const e = frames[i].event;
      if (e.kind === 'search_start') break;
      if (e.kind === 'visit' || e.kind === 'roll_back') add(marks, idOf(e.id), 'path');
    }
  }
  if (ev.kind === 'propagate' || ev.kind === 'propagate_stop') {
    for (let i = f - 1; i >= 0 && frames[i].event.kind === 'propagate'; i--) add(marks, idOf(frames[i].event.id), 'prop-path');
  }

  const id = idOf(ev.id);
  const range = (start: unknown, end: unknown, tone: RangeTone, label: string) =>
    ranges.push({ start: big(start), end: big(end), tone, label });

  switch (ev.kind) {
    case 'visit': {
      const b = String(ev.branch);
      add(marks, id, b === 'this' ? 'found' : 'visit');
      const text =
        b === 'left'
          ? `left max ${short(ev.left_max)} ≥ length, vstart < start → left`
          : b === 'this'
            ? 'fits here → the answer'
            : b === 'right'
              ? `right max ${short(ev.right_max)} ≥ length → right`
              : 'no fit, no subtree → roll back';
      callouts.push({ id: id ?? -1, text, tone: b === 'this' ? 'go' : b === 'roll_back' ? 'warn' : 'info' });
      if (b === 'left' || b === 'right') taken = { from: id ?? -1, side: b };
      range(ev.va_start, ev.va_end, 'focus', b === 'this' ? 'found' : 'visit');
      break;
    }
    case 'roll_back': {
      const s = String(ev.step);
      add(marks, id, s === 'this' ? 'found' : 'visit');
      const text = s === 'this' ? 'back up: fits here → the answer' : s === 'right' ? 'back up: right subtree → right' : 'back up: climb further';
      callouts.push({ id: id ?? -1, text, tone: s === 'this' ? 'go' : 'info' });
      if (s === 'right') taken = { from: id ?? -1, side: 'right' };
      range(ev.va_start, ev.va_end, 'focus', 'roll back');
      break;
    }
    case 'fit':
      add(marks, id, 'found');
      callouts.push({ id: id ?? -1, text: `${String(ev.fit)} fit`, tone: 'go' });
      range(ev.va_start, ev.va_end, 'old', 'block');
      range(ev.nva, big(ev.nva) + big(ev.size), 'request', 'request');
      break;
    case 'out_of_range':
      range(ev.nva, big(ev.nva) + big(ev.size), 'request', 'past vend');
      break;
    case 'clip': {
      const fit = String(ev.fit);
      add(marks, id, fit === 'FL' ? 'removing' : 'changed');
      range(ev.old_start, ev.old_end, 'old', 'before');
      if (fit === 'FL') {
        callouts.push({ id: id ?? -1, text: 'used whole: leaves the tree', tone: 'stop' });
      } else {
        callouts.push({ id: id ?? -1, text: `${fit}: now ${short(big(ev.new_end) - big(ev.new_start))}`, tone: 'change' });
        range(ev.new_start, ev.new_end, 'new', 'after');
      }
      const lva = ev.lva as { id?: number; va_start?: unknown; va_end?: unknown } | null;
      if (lva) {
        add(marks, idOf(lva.id), 'new');
        range(lva.va_start, lva.va_end, 'new', 'new block');
      }
      break;
    }
    case 'allocated':
      range(ev.addr, big(ev.addr) + big(ev.size), 'busy', 'allocated');
      break;
    case 'link':
      add(marks, id, 'new');
      if (idOf(ev.parent) !== null) context.push(idOf(ev.parent) as number);
      callouts.push({ id: id ?? -1, text: 'new red leaf', tone: 'change' });
      range(ev.va_start, ev.va_end, 'new', 'linked');
      break;
    case 'rotate': {
      const oldTop = idOf(ev.old_top);
      const newTop = idOf(ev.new_top);
      add(marks, oldTop, 'rotate');
      add(marks, newTop, 'rotate');
      callouts.push({ id: newTop ?? -1, text: `rotate ${String(ev.dir)} (case ${String(ev.case)})`, tone: 'change' });
      // The node above the rotated pair (the grandparent of an insert's case 2): the three
      // nodes a fix-up lines up stay in view together.
      const above = newTop === null ? null : (nodes.get(newTop)?.parent ?? null);
      if (above !== null) context.push(above);
      break;
    }
    case 'recolor':
      add(marks, id, 'recolor');
      callouts.push({ id: id ?? -1, text: `→ ${String(ev.color)} (case ${String(ev.case)})`, tone: 'change' });
      break;
    case 'erase':
      add(marks, id, 'removing');
      callouts.push({ id: id ?? -1, text: 'erased from the tree', tone: 'stop' });
      range(ev.va_start, ev.va_end, 'old', 'erased');
      break;
    case 'unlinked': {
      const succ = hexIdOf(ev.successor);
      add(marks, succ, 'changed');
      if (succ !== null) callouts.push({ id: succ, text: 'takes the erased place', tone: 'change' });
      break;
    }
    case 'propagate':
      add(marks, id, 'prop');
      callouts.push({ id: id ?? -1, text: `max ${short(ev.old)} → ${short(ev.new)}`, tone: 'change' });
      {
        const r = nodeRange(nodes, id);
        if (r) range(r[0], r[1], 'focus', 'propagate');
      }
      break;
    case 'propagate_stop':
      add(marks, id, 'stop');
      callouts.push({ id: id ?? -1, text: `stops here: ${short(ev.value)} unchanged`, tone: 'stop' });
      break;
    case 'augment_set':
      add(marks, id, 'prop');
      callouts.push({ id: id ?? -1, text: `max ${short(ev.old)} → ${short(ev.new)}`, tone: 'info' });
      break;
    case 'merge_start': {
      add(marks, idOf(ev.prev), 'neighbor');
      add(marks, idOf(ev.next), 'neighbor');
      if (idOf(ev.prev) !== null) callouts.push({ id: idOf(ev.prev) ?? -1, text: 'previous neighbour', tone: 'info' });
      if (idOf(ev.next) !== null) callouts.push({ id: idOf(ev.next) ?? -1, text: 'next neighbour', tone: 'info' });
      range(ev.va_start, ev.va_end, 'freed', 'freed');
      break;
    }
    case 'merge': {
      const survivor = idOf(ev.survivor);
      const removed = idOf(ev.removed);
      add(marks, survivor, 'changed');
      add(marks, removed, 'removing');
      callouts.push({ id: survivor ?? -1, text: `merged (${String(ev.merge)}): ${short(big(ev.new_end) - big(ev.new_start))}`, tone: 'change' });
      if (removed !== null) callouts.push({ id: removed, text: 'merged away', tone: 'stop' });
      range(ev.new_start, ev.new_end, 'new', 'merged');
      break;
    }
    case 'add_block':
      add(marks, id, 'new');
      range(ev.va_start, ev.va_end, 'freed', 'freed');
      break;
    case 'busy_insert':
    case 'busy_remove':
    case 'lazy_enqueue':
      range(ev.va_start, ev.va_end, ev.kind === 'busy_insert' ? 'busy' : 'freed', ev.kind.replace('_', ' '));
      break;
    case 'purge_area':
    case 'pool_hit':
    case 'pool_rotate':
    case 'pooled':
      range(ev.va_start, ev.va_end, 'freed', ev.kind.replace('_', ' '));
      break;
    case 'pcpu_area':
      range(ev.addr, big(ev.addr) + big(ev.size), 'busy', 'percpu');
      break;
    default:
      break;
  }
  // A callout only for nodes that are drawn in this frame.
  return { marks, callouts: callouts.filter((c) => nodes.has(c.id)), taken, ranges, context: context.filter((c) => nodes.has(c)) };
}

/** The operation's search_start, if one came at or before frame f. */
export function searchOf(frames: { event: StepEvent }[], f: number): StepEvent | null {
  for (let i = Math.min(f, frames.length - 1); i >= 0; i--) if (frames[i].event.kind === 'search_start') return frames[i].event;
  return null;
}
