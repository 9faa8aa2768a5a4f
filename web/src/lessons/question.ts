// "Your turn": a question a lesson stop asks before it shows the step. The catalogue only says
// which kind of question (and, optionally, which occurrence in the stop's operation); the answer
// is read from the core's events of that operation, never written in the catalogue:
// - land: where the allocation lands (the operation's `allocated` event: [addr, addr + size));
// - visit: which node the search visits next (the next `visit` of find_vmap_lowest_match, or of
//   the maple tree's gap search: `mas_anode_descend` entering a node);
// - store: which store type `mas_wr_store_type` picks (its `store_type` event);
// - slot: which slot the gap search takes (the next `scan` whose gap fits: descended into, or
//   the leaf's hole).
import { innerEvent, type AnyEvent, type EventSource } from '../player/events';
import { at, type Pos } from '../player/timeline';

export type AskKind = 'land' | 'visit' | 'store' | 'slot';

/** What a stop asks: a kind, and which of its events in the stop's operation (0: the first). */
export interface Ask {
  ask: AskKind;
  nth?: number;
}

// The store types (a file of their own: the lesson card lists them on the first open, the rest
// of this module comes with the catalogue).
import { STORE_TYPES } from './storeTypes';
export { STORE_TYPES };

export type Answer =
  | { ask: 'land'; start: bigint; end: bigint }
  | { ask: 'visit'; node: number; tree: 'free' | 'maple' }
  | { ask: 'store'; store: string }
  | { ask: 'slot'; node: number; slot: number };

export interface Resolved {
  answer: Answer;
  /** Where the question is asked (nothing of the answer shown yet). */
  posed: Pos;
  /** The micro-step that shows the answer. */
  shown: Pos;
  /** One line: why that is the answer, from the events. */
  why: string;
  /** The question's words. */
  prompt: string;
}

/** What a student picked (a click on the bar, a node, a slot, or a button). */
export type Pick =
  | { ask: 'land'; addr: bigint }
  | { ask: 'visit'; node: number }
  | { ask: 'store'; store: string }
  | { ask: 'slot'; node: number; slot: number };

/** The card's title already says "Your turn" (withhold.ts): the prompt asks only. */
const PROMPTS: Record<AskKind, string> = {
  land: 'Where will this allocation land? Click the address bar.',
  visit: 'Which node does the search visit next? Click it in the tree.',
  store: 'Which store type does mas_wr_store_type pick?',
  slot: 'Which slot does the gap search take? Click it in the tree.',
};

function isAnswerEvent(kind: AskKind, e: AnyEvent): boolean {
  const i = innerEvent(e);
  switch (kind) {
    case 'land':
      return e.kind === 'allocated';
    case 'visit':
      // The free tree's visit carries `id`, the maple gap search's `node` (bare or wrapped).
      return i.kind === 'visit' && (typeof i.id === 'number' || typeof i.node === 'number');
    case 'store':
      return i.kind === 'store_type' && typeof i.store === 'string';
    case 'slot':
      return i.kind === 'scan' && i.fits === true && typeof i.node === 'number' && typeof i.slot === 'number';
  }
}

function big(v: unknown): bigint | null {
  if (typeof v !== 'string' || !/^0x[0-9a-f]{1,16}$/i.test(v)) return null;
  return BigInt(v);
}

/** The question of a stop in operation `op`, answered from the core's events; or what is wrong. */
export function resolveAsk(src: EventSource, op: number, q: Ask): Resolved | { error: string } {
  if (op < 0 || op >= src.length) return { error: `operation ${op + 1} is past the trace's ${src.length}` };
  const events = src.events(op);
  let n = q.nth ?? 0;
  let f = -1;
  for (let i = 0; i < events.length; i++) {
    if (isAnswerEvent(q.ask, events[i]) && n-- === 0) {
      f = i;
      break;
    }
  }
  if (f < 0) return { error: `operation ${op + 1} has no event that answers a "${q.ask}" question` };
  const e = innerEvent(events[f]);
  const before = f > 0 ? innerEvent(events[f - 1]) : null;
  // Asked one micro-step before the answer (before the operation, for where it lands: its
  // search would give it away).
  const posed = q.ask === 'land' || f === 0 ? at(op) : at(op, f - 1);
  const shown = at(op, f);
  const prompt = PROMPTS[q.ask];
  switch (q.ask) {
    case 'land': {
      const addr = big(e.addr);
      const size = big(e.size);
      if (addr === null || size === null) return { error: 'the allocated event has no address' };
      // Shown at the step that chose the range (the fit, the pool or bump hit, the window's
      // hole), whose outlines draw it; else at the allocation itself.
      let h = f - 1;
      while (h >= 0 && !decides(innerEvent(events[h]))) h--;
      const how = h >= 0 ? innerEvent(events[h]) : null;
      const why = how ? landWhy(how) : 'the search gave this range';
      return {
        answer: { ask: 'land', start: addr, end: addr + size },
        posed,
        shown: h >= 0 ? at(op, h) : shown,
        prompt,
        why: `[${hex(addr)}, ${hex(addr + size)}): ${why}.`,
      };
    }
    case 'visit': {
      const maple = typeof e.node === 'number';
      const node = (maple ? e.node : e.id) as number;
      const why = before ? visitWhy(events.slice(0, f).map(innerEvent), maple) : 'the search starts at the root';
      return { answer: { ask: 'visit', node, tree: maple ? 'maple' : 'free' }, posed, shown, prompt, why: `${maple ? 'node' : 'block'} #${node}: ${why}.` };
    }
    case 'store': {
      const store = e.store as string;
      const end = typeof e.new_end === 'number' ? `; the node's data would end at slot ${e.new_end}` : '';
      const begin = lastOf(events.slice(0, f).map(innerEvent), (x) => x.kind === 'store_begin');
      const range = begin ? `[${String(begin.first)}, ${String(begin.last)}]` : 'the range';
      const into = typeof e.node === 'number' ? `leaf #${e.node}` : 'the empty tree';
      return {
        answer: { ask: 'store', store },
        posed,
        shown,
        prompt,
        why: `${store}: storing ${range} into ${into}, ${STORE_WHY[store] ?? 'the kernel\'s choice'}${end}.`,
      };
    }
    case 'slot': {
      const node = e.node as number;
      const slot = e.slot as number;
      // The slots of this node scanned before it in the same visit, too small.
      const tried: string[] = [];
      for (let i = f - 1; i >= 0; i--) {
        const x = innerEvent(events[i]);
        if (x.kind === 'visit' && x.node === node) break;
        if (x.kind === 'scan' && x.node === node && x.fits !== true) tried.unshift(`gap[${String(x.slot)}] = ${String(x.gap)}`);
      }
      const before = tried.length ? ` (before it ${tried.join(', ')}: too small)` : '';
      return {
        answer: { ask: 'slot', node, slot },
        posed,
        shown,
        prompt,
        why: `slot ${slot} of node #${node}: its gap ${String(e.gap)} is the first from the left that holds the request${before}.`,
      };
    }
  }
}

/** Whether a pick is the answer. */
export function isRight(a: Answer, p: Pick): boolean {
  if (a.ask !== p.ask) return false;
  switch (a.ask) {
    case 'land':
      return (p as { addr: bigint }).addr >= a.start && (p as { addr: bigint }).addr < a.end;
    case 'visit':
      return (p as { node: number }).node === a.node;
    case 'store':
      return (p as { store: string }).store === a.store;
    case 'slot':
      return (p as { node: number }).node === a.node && (p as { slot: number }).slot === a.slot;
  }
}

/** A pick in words (the feedback line). */
export function pickText(p: Pick): string {
  switch (p.ask) {
    case 'land':
      return hex(p.addr);
    case 'visit':
      return `#${p.node}`;
    case 'store':
      return p.store;
    case 'slot':
      return `slot ${p.slot} of node #${p.node}`;
  }
}

/** The event that picks an allocation's range. */
function decides(e: AnyEvent): boolean {
  return e.kind === 'fit' || e.kind === 'pool_hit' || e.kind === 'bump_hit' || (e.kind === 'window_hole' && e.fits === true);
}

function hex(v: bigint): string {
  return `0x${v.toString(16)}`;
}

function landWhy(e: AnyEvent): string {
  switch (e.kind) {
    case 'fit':
      return `find_vmap_lowest_match's lowest block that fits is [${String(e.va_start)}, ${String(e.va_end)}), an ${String(e.fit)} fit`;
    case 'pool_hit':
      return `node ${String(e.node)}'s pool for this size had an area: taken as it is`;
    case 'bump_hit':
      return `CPU ${String(e.cpu)}'s chunk has room: the bump pointer hands out the next pages`;
    default:
      return `the window loop's first hole that fits, candidate ${String(e.candidate)}`;
  }
}

/** Why the search visits the next node: from the events before it in the operation (the last is the step asked at). */
function visitWhy(prior: AnyEvent[], maple: boolean): string {
  const prev = prior[prior.length - 1];
  if (!maple && prev.kind === 'visit') {
    const start = lastOf(prior, (x) => x.kind === 'search_start');
    const length = start ? `length ${sz(start.length)}` : 'the request';
    const b = String(prev.branch);
    const at = `at #${String(prev.id)} [${String(prev.va_start)}, ${String(prev.va_end)})`;
    if (b === 'left') return `${at}, the left subtree's largest block (${sz(prev.left_max)}) holds ${length} and vstart ${String(prev.vstart)} is below the block's start, so the search goes left`;
    if (b === 'right') {
      const left =
        big(prev.left_max) !== null && big(start?.length) !== null && (big(prev.left_max) as bigint) < (big(start?.length) as bigint)
          ? `the left subtree's largest block (${sz(prev.left_max)}) is smaller than ${length}`
          : `vstart ${String(prev.vstart)} is not below the block's start`;
      return `${at}: ${left}, the block cannot hold ${length} from vstart ${String(prev.vstart)}, and the right subtree's largest block (${sz(prev.right_max)}) can, so the search goes right`;
    }
    return `the search went on from #${String(prev.id)}`;
  }
  if (prev.kind === 'descend') {
    const scan = lastOf(prior, (x) => x.kind === 'scan' && x.node === prev.node && x.slot === prev.slot);
    const gap = scan ? ` (${String(scan.gap)})` : '';
    return `gap[${String(prev.slot)}] of node #${String(prev.node)}${gap} holds the request: the search descends into that slot's child`;
  }
  if (prev.kind === 'skip') return `node #${String(prev.node)}'s next slot (${String(prev.slot)}) is tried after the subtree below it failed`;
  if (prev.kind === 'ascend') {
    const failed = lastOf(prior, (x) => x.kind === 'visit');
    const from = failed ? ` from #${String(failed.node)} [${String(failed.min)}, ${String(failed.max)}]` : '';
    return `no gap of the leaf holds the request: the search climbs${from} back to its parent #${String(prev.node)}`;
  }
  if (prev.kind === 'visit' && maple) return `no slot of node #${String(prev.node)} fits below its limit: mas_awalk enters it again to skip on`;
  return `the event before it was ${String(prev.kind)}`;
}

function lastOf(events: AnyEvent[], p: (e: AnyEvent) => boolean): AnyEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (p(events[i])) return events[i];
  return undefined;
}

/** Exact: a rounded size (≈2.92M) cannot show why one value is below another. */
function sz(v: unknown): string {
  const b = big(v);
  return b === null ? String(v) : hex(b);
}

const STORE_WHY: Record<string, string> = {
  wr_store_root: 'the tree has no node yet, so the root itself takes the store',
  wr_exact_fit: 'the range is exactly one existing slot, which only changes its entry',
  wr_append: 'the new range goes after the node\'s last slot, so slots are written at the end',
  wr_slot_store: 'only one or two slots of the node change in place',
  wr_node_store: 'the node is rewritten with the range cut in, and it still fits the node',
  wr_split_store: 'the node would overflow its slots, so it splits',
  wr_rebalance: 'the node would fall below its minimum fill, so it is combined with a sibling',
  wr_spanning_store: 'the range crosses the node\'s end into its neighbours',
  wr_new_root: 'the store covers the whole range, so a new root replaces the tree',
};

/**
 * A typed answer (the keyboard's way to a click question): an address in hex for `land`, a node's
 * number for `visit` (`7` or `#7`), a node's number and a slot for `slot` (`2 10`, `#2 slot 10`).
 * A pick, or what is wrong with the text (quoting at most 24 characters of it).
 */
export function parsePick(kind: AskKind, text: string): Pick | { error: string } {
  const t = text.trim();
  const quoted = JSON.stringify(t.length > 24 ? `${t.slice(0, 24)}…` : t);
  // Numbers, with `#`, `slot`, `of`, commas or colons between them.
  const bare = t.replace(/#|\bslot\b|\bof\b|[,:]/gi, ' ').trim();
  const onlyNums = /^\d+(\s+\d+)*$/.test(bare);
  const nums = onlyNums ? bare.split(/\s+/) : [];
  switch (kind) {
    case 'land': {
      if (!/^0x[0-9a-f]{1,16}$/i.test(t)) return { error: `${quoted} is not an address: type it in hex, as 0x… (at most 16 digits)` };
      return { ask: 'land', addr: BigInt(t) };
    }
    case 'visit':
      if (!onlyNums || nums.length !== 1 || nums[0].length > 9) return { error: `${quoted} is not a node's number: type one number, as #N or N` };
      return { ask: 'visit', node: Number(nums[0]) };
    case 'slot': {
      // "slot S of #N", as the feedback words it.
      const m = /^slot\s*(\d{1,9})\s*of\s*(?:node\s*)?#?\s*(\d{1,9})$/i.exec(t);
      if (m) return { ask: 'slot', node: Number(m[2]), slot: Number(m[1]) };
      if (!onlyNums || nums.length !== 2 || nums.some((n) => n.length > 9)) return { error: `${quoted} is not a node and a slot: type two numbers, the node's then the slot's` };
      return { ask: 'slot', node: Number(nums[0]), slot: Number(nums[1]) };
    }
    case 'store': {
      const st = (STORE_TYPES as readonly string[]).find((x) => x === t);
      return st ? { ask: 'store', store: st } : { error: `${quoted} is not one of the store types` };
    }
  }
}
