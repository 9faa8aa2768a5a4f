// Narration of the maple tree's micro-steps: one sentence per event the core reports
// (core/src/maple/tree.rs, `MapleEvent`), the kernel function it comes from and the line of our
// pseudocode (maple/code.ts). It only puts the core's events and trees into words: old values
// come from the tree in force before the frame, never from a recomputation of the algorithm.
// Gap propagation is said in the same words as the rbtree's (narrate/narrate.ts).
import { hex, parseBig, size } from '../format';
import { narrationsOf, type Narration } from '../narrate/narrate';
import type { MapleFocus } from '../views/mapleTree';
import type { MapleNode, MapleOpFrames, MapleSnapshot, MapleStepEvent } from './bridge';

function big(v: unknown): bigint {
  if (v === null || v === undefined) return 0n;
  return parseBig(v);
}

/** `0x2000 (8K)` */
function hs(v: bigint): string {
  return v < 0x400n ? hex(v) : `${hex(v)} (${size(v)})`;
}

function nodeOf(t: MapleSnapshot | undefined, id: unknown): MapleNode | undefined {
  return typeof id === 'number' ? t?.nodes.find((n) => n.id === id) : undefined;
}

/** Slot `i`'s inclusive range in node `n`. */
function slotRange(n: MapleNode, i: number): [bigint, bigint] {
  const lo = i === 0 ? n.min : (n.slots[i - 1]?.piv ?? n.min) + 1n;
  return [lo, n.slots[i]?.piv ?? n.max];
}

function rng(a: bigint, b: bigint): string {
  return `[${hex(a)}, ${hex(b)}]`;
}

/** The window and size of an `empty MIN MAX SIZE` operation. */
export function searchOf(text: string): { min: bigint; max: bigint; size: bigint } | null {
  const w = text.trim().split(/\s+/);
  if (w[0] !== 'empty' || w.length !== 4) return null;
  try {
    return { min: BigInt(w[1]), max: BigInt(w[2]), size: BigInt(w[3]) };
  } catch {
    return null;
  }
}

/** Store types chosen before `mas_wr_new_end` runs. */
const NO_NEW_END = new Set(['wr_store_root', 'wr_new_root', 'wr_spanning_store']);

const WHY: Record<string, string> = {
  wr_store_root: 'the tree is empty or holds one entry at the root: store at the root',
  wr_new_root: 'the tree has no node yet for this range: make a new root leaf',
  wr_spanning_store: 'the range reaches past this node: a spanning store across nodes',
  wr_exact_fit: 'the range is exactly one existing slot: replace its content in place',
  wr_append: 'the range goes after the node’s last data and there is room: append',
  wr_slot_store: 'at most one slot changes or is added in place: a slot store',
  wr_node_store: 'the data still fits one node: build the node anew (node store)',
  wr_split_store: 'the data no longer fits one node: split',
  wr_rebalance: 'the node would fall below its minimum fill: rebalance with a sibling',
};

const LINE_OF_TYPE: Record<string, string> = {
  wr_store_root: 'root',
  wr_new_root: 'root',
  wr_spanning_store: 'span',
  wr_exact_fit: 'exact',
  wr_append: 'append',
  wr_slot_store: 'slot',
  wr_node_store: 'node',
  wr_split_store: 'split',
  wr_rebalance: 'rebal',
};

/** Narrate frame `i` of an operation's frames. */
export function narrateMaple(of: MapleOpFrames, i: number): Narration | null {
  const fr = of.frames[i];
  if (!fr) return null;
  const ev: MapleStepEvent = fr.event;
  const k = ev.kind;
  const prevTree = of.trees[i > 0 ? of.frames[i - 1].tree : 0] ?? of.trees[0];
  const tree = of.trees[fr.tree] ?? prevTree;
  const search = searchOf(of.text);
  const base = narrationsOf(k);
  const want = search ? `size ${hs(search.size)}` : 'the size';
  switch (k) {
    case 'visit': {
      const n = nodeOf(tree, ev.node);
      const what = n ? `${n.type}, depth ${n.depth}, ${n.end + 1}/${n.type === 'arange' ? 10 : 16} slots` : '';
      return base(
        'mas_anode_descend',
        'mas_anode_descend',
        'visit',
        'gap search',
        'Visit',
        `Visit node #${String(ev.node)} (${what}) covering ${rng(big(ev.min), big(ev.max))}: look at its slots for a gap ≥ ${want}.`,
      );
    }
    case 'scan': {
      const n = nodeOf(tree, ev.node);
      const slot = Number(ev.slot);
      const gap = big(ev.gap);
      const fits = ev.fits === true;
      const verdict = fits ? `≥ ${want}` : `< ${want}`;
      if (n && n.type !== 'leaf') {
        return base(
          'mas_anode_descend',
          'mas_anode_descend',
          'gapa',
          'gap search',
          fits ? 'Slot scanned: fits' : 'Slot scanned: too small',
          `Node #${n.id} slot ${slot}: gap[${slot}] = ${hs(gap)} ${verdict} → ${fits ? 'a hole that large lies below: descend' : 'skip this slot'}.`,
        );
      }
      let clip = '';
      if (n && search) {
        const [lo, hi] = slotRange(n, slot);
        const a = lo > search.min ? lo : search.min;
        const b = hi < search.max ? hi : search.max;
        clip =
          a !== lo || b !== hi
            ? `the NULL range ${rng(lo, hi)} clipped to the window ${rng(search.min, search.max)} is ${rng(a, b)}, `
            : `the NULL range ${rng(lo, hi)} lies inside the window, `;
      }
      return base(
        'mas_anode_descend',
        'mas_anode_descend',
        'gapl',
        'gap search',
        fits ? 'Hole fits' : 'Hole too small',
        `Leaf #${String(ev.node)} slot ${slot}: ${clip}${hs(gap)} ${verdict}${fits ? ' → this is the hole' : ' → go on'}.`,
      );
    }
    case 'descend': {
      const n = nodeOf(tree, ev.node);
      const slot = Number(ev.slot);
      const child = n?.slots[slot]?.child;
      const r = n ? slotRange(n, slot) : null;
      return base(
        'mas_anode_descend',
        'mas_anode_descend',
        'descend',
        'gap search',
        'Descend',
        `Descend from #${String(ev.node)} slot ${slot} into child #${String(child)}${r ? ` ${rng(r[0], r[1])}` : ''}.`,
      );
    }
    case 'skip':
      return base(
        'mas_skip_node',
        'mas_skip_node',
        'skip',
        'gap search',
        'Skip',
        `Nothing fits further in the node just left: go on at slot ${String(ev.slot)} of #${String(ev.node)}.`,
      );
    case 'ascend': {
      // A descent that found nothing: gap[] promised a hole, but not inside the window.
      let wasted = false;
      for (let j = i - 1; j >= 0; j--) {
        const e = of.frames[j].event.kind;
        if (e === 'descend') {
          wasted = true;
          break;
        }
        if (e === 'skip' || e === 'ascend') break;
      }
      return base(
        'mas_skip_node',
        'mas_skip_node',
        'ascend',
        'gap search',
        wasted ? 'Ascend: a wasted descent' : 'Ascend',
        `No more slots in the node below: climb back to #${String(ev.node)}.${
          wasted ? ' A wasted descent: its gap[] was large enough, but the hole did not lie (wholly) inside the window.' : ''
        }`,
      );
    }
    case 'found': {
      const a = big(ev.index);
      const b = big(ev.last);
      return base(
        'mas_empty_area',
        'mas_empty_area',
        'found',
        'gap search',
        'Hole found',
        `Found: the lowest hole for ${want} is ${rng(a, b)} (${size(b - a + 1n)}); mas_empty_area returns index ${hex(a)}, last ${hex(b)}.`,
      );
    }
    case 'no_hole': {
      const e = Number(ev.err);
      return base(
        'mas_empty_area',
        'mas_empty_area',
        e === -22 ? 'check' : 'busy',
        'gap search',
        e === -22 ? '-EINVAL' : '-EBUSY',
        e === -22
          ? 'The request is invalid (size 0, min > max, or a window shorter than the size): -EINVAL.'
          : `No gap of ${want} in the window: -EBUSY.`,
      );
    }
    case 'store_begin': {
      const a = big(ev.first);
      const b = big(ev.last);
      return base(
        'mas_store',
        'mas_store_gfp',
        'begin',
        'store',
        ev.erase === true ? 'Erase' : 'Store',
        ev.erase === true
          ? `Erase ${rng(a, b)}: store NULL over it (${size(b - a + 1n)}); NULL neighbours merge into one hole.`
          : `Store ${rng(a, b)} (${size(b - a + 1n)}): the range becomes in use (the zero entry).`,
      );
    }
    case 'store_type': {
      const t = String(ev.store);
      const n = nodeOf(tree, ev.node);
      const where = n ? ` at ${n.type} #${n.id} (${n.end + 1}/${n.type === 'arange' ? 10 : 16} slots)` : '';
      return base(
        'mas_wr_store_type',
        'mas_wr_store_type',
        LINE_OF_TYPE[t] ?? '',
        'store',
        `Store type: ${t}`,
        // A root store, a new root and a spanning store are chosen before the leaf's new data
        // end is worked out (mas_wr_new_end): there is no end to tell for them.
        NO_NEW_END.has(t)
          ? `mas_wr_store_type chooses ${t}${where}: ${WHY[t] ?? t}.`
          : `mas_wr_store_type chooses ${t}${where}: ${WHY[t] ?? t}; the node's data end becomes ${String(ev.new_end)}.`,
      );
    }
    case 'split': {
      const mid = Number(ev.mid);
      return base(
        'mas_split',
        'mas_split',
        'cut',
        'split',
        'Split',
        `mas_split: the big node holds ${Number(ev.b_end) + 1} slots, more than one node: mab_calc_split cuts after slot ${String(ev.cut)}${
          mid ? ` and after slot ${mid} (three nodes)` : ''
        }; the halves go into new nodes and the parent gets both.`,
      );
    }
    case 'push_sibling':
      return base(
        'mas_split',
        'mas_split',
        'push',
        'split',
        'Push to sibling',
        `mas_push_data: the ${ev.left === true ? 'left' : 'right'} sibling has room: data moves into it instead of a split on this level.`,
      );
    case 'rebalance':
      return base(
        'mas_rebalance',
        'mas_rebalance',
        'under',
        'rebalance',
        'Rebalance',
        `mas_rebalance: node #${String(ev.node)} would hold fewer slots than its minimum fill: combine it with a sibling.`,
      );
    case 'spanning':
      return base(
        'mas_wr_spanning_store',
        'mas_wr_spanning_store',
        'span',
        'spanning store',
        'Spanning store',
        `mas_wr_spanning_store: ${rng(big(ev.first), big(ev.last))} crosses node boundaries: rebuild the nodes it spans, level by level.`,
      );
    case 'gap_update':
      return narrateGap(ev, prevTree, tree, base);
    case 'store_done':
      return base(
        'mas_store',
        'mas_store_gfp',
        'done',
        'store',
        'Store done',
        `Done: the tree has height ${String(ev.height)} and ${String(ev.nodes)} node${Number(ev.nodes) === 1 ? '' : 's'}.`,
      );
    default:
      return base('mas_store', k, '', '', k, `Event ${k}.`);
  }
}

type Base = (listing: string, fn: string, line: string, phase: string, title: string, text: string) => Narration;

/**
 * `gap of … now …; parent's gap[i] already …: stop` — the words of the rbtree's propagation.
 * The node written is the event's; the old value and the node's largest gap come from the trees
 * before and after the frame.
 */
function narrateGap(ev: MapleStepEvent, before: MapleSnapshot | undefined, after: MapleSnapshot | undefined, base: Base): Narration {
  const id = Number(ev.node);
  const slot = Number(ev.slot);
  const gap = big(ev.gap);
  const stop = ev.stop === true;
  const nb = nodeOf(before, id);
  const na = nodeOf(after, id) ?? nb;
  const old = nb?.slots[slot]?.gap ?? null;
  const child = na?.slots[slot]?.child;
  const parentSlot = na?.parentSlot ?? 0;
  const largest = na && na.slots[na.mgap]?.gap !== null ? (na.slots[na.mgap]?.gap ?? gap) : gap;
  // Two values that round to the same size (≈16E and ≈16E) are told apart in full.
  const exact = old !== null && old !== gap && size(old) === size(gap);
  const say = (v: bigint) => (exact ? hex(v) : size(v));
  const was = old !== null && old !== gap ? ` (was ${say(old)})` : '';
  const head = `gap of #${id} slot ${slot}${child !== undefined && child !== null ? ` (child #${child})` : ''} now ${say(gap)}${was}`;
  if (old !== null && old === gap && stop)
    return base('mas_update_gap', 'mas_update_gap', 'same', 'gap update', 'Propagation stops', `${head}; the parent #${id}'s gap[${slot}] already ${size(gap)}: stop.`);
  if (stop && na && na.parent === null)
    return base('mas_update_gap', 'mas_update_gap', 'root', 'gap update', 'Propagation stops', `${head}; #${id} is the root: stop.`);
  if (stop)
    return base(
      'mas_update_gap',
      'mas_update_gap',
      'meta',
      'gap update',
      'Propagation stops',
      `${head}; #${id}'s largest gap is still ${size(largest)} (meta.gap = slot ${na?.mgap ?? '?'}), so its parent's gap[${parentSlot}] already ${size(largest)}: stop.`,
    );
  return base(
    'mas_update_gap',
    'mas_update_gap',
    'climb',
    'gap update',
    'Propagate',
    `${head}; #${id}'s largest gap is now ${size(largest)} (meta.gap = slot ${na?.mgap ?? '?'}): continue with the parent, gap[${parentSlot}].`,
  );
}

/** What the view marks at frame `i`: the search path, the node and slot, the found hole, the gaps written. */
export function mapleFocus(of: MapleOpFrames, i: number): MapleFocus {
  const frames = of.frames;
  if (i < 0 || i >= frames.length) return { path: [], node: null, scanned: new Map(), slot: null, found: null, gaps: [], store: null };
  const path: number[] = [];
  let node: number | null = null;
  let slot: number | null = null;
  let scanned = new Map<number, boolean>();
  let found: MapleFocus['found'] = null;
  let store: number | null = null;
  let lastFit: { node: number; slot: number } | null = null;
  let cut: MapleFocus['cut'] = null;
  const gaps: MapleFocus['gaps'] = [];
  for (let j = 0; j <= i; j++) {
    const e = frames[j].event;
    const id = typeof e.node === 'number' ? e.node : null;
    switch (e.kind) {
      case 'visit':
        if (id !== null) {
          if (!path.includes(id)) path.push(id);
          node = id;
          scanned = new Map();
          slot = null;
        }
        break;
      case 'scan':
        if (id !== null) {
          node = id;
          slot = Number(e.slot);
          scanned.set(slot, e.fits === true);
          if (e.fits === true) lastFit = { node: id, slot };
        }
        break;
      case 'descend':
      case 'skip':
        if (id !== null) {
          node = id;
          slot = Number(e.slot);
          if (e.kind === 'skip') scanned = new Map();
        }
        break;
      case 'ascend':
        if (id !== null) {
          node = id;
          slot = null;
          scanned = new Map();
        }
        break;
      case 'found':
        found = lastFit;
        if (lastFit) {
          node = lastFit.node;
          slot = lastFit.slot;
        }
        break;
      case 'store_type':
        if (id !== null) {
          store = id;
          node = id;
          if (!path.includes(id)) path.push(id);
        }
        break;
      case 'rebalance':
        if (id !== null) node = id;
        break;
      case 'split':
        // The node whose data (with the new entries) is the big node being cut: the store's leaf,
        // a parent on the way up, or the left node of a spanning store.
        if (id !== null) {
          node = id;
          if (!path.includes(id)) path.push(id);
        }
        cut = node !== null && j === i ? { node, after: Number(e.cut) } : null;
        break;
      case 'gap_update':
        if (id !== null) {
          for (const g of gaps) g.current = false;
          gaps.push({ node: id, slot: Number(e.slot), stop: e.stop === true, current: true });
          node = id;
          slot = Number(e.slot);
          if (!path.includes(id)) path.push(id);
        }
        break;
      default:
        break;
    }
  }
  return { path, node, scanned, slot, found, gaps, store, cut };
}
