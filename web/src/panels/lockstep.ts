// Compare mode's micro-steps (issue 15, "both searches animated"): inside one operation, frame f
// of every column is shown at once. A column whose operation has fewer frames holds its last one
// (and says so); each frame is drawn and narrated exactly as the page's player does it, from the
// core's own frames of that column: the free tree's narrator and focus for the rbtree eras,
// maple-rfc's (web/src/maple/rfc.ts) for its occupied maple tree.
import { freeNodes, stateAtFrame, type OpFrames, type State } from '../bridge';
import { narrateRfc, rfcFocus } from '../maple/rfc';
import { hex } from '../format';
import { big, inPurge, narrate, type Narration } from '../narrate/narrate';
import { focusOf, NO_FOCUS, searchOf, type Focus } from '../player/focus';
import type { MapleFocus } from '../views/mapleTree';

/** The frame a column shows at lock-step frame `f`, when its operation has `n` frames. */
export interface ColumnFrame {
  /** The column's own frame (-1: the state before the operation). */
  index: number;
  /** True when the column has run out of frames and holds its last one (or has none). */
  held: boolean;
}

export function columnFrame(f: number, n: number): ColumnFrame {
  if (f < 0) return { index: -1, held: false };
  if (n <= 0) return { index: -1, held: true };
  return f < n ? { index: Math.trunc(f), held: false } : { index: n - 1, held: true };
}

/** How many lock-step frames an operation has: as many as its longest column. */
export function lockstepFrames(counts: readonly number[]): number {
  return counts.reduce((a, b) => Math.max(a, b), 0);
}

/** A column's frame counter (`frame 7/23`), 1-based as a person counts; `f` is the lock-step frame. */
export function frameLabel(f: number, n: number): string {
  if (f < 0) return `frame —/${n}`;
  if (n <= 0) return 'frame 0/0';
  const c = columnFrame(f, n);
  return `frame ${c.index + 1}/${n}`;
}

/** What a holding column says beside its counter (empty while it still has frames). */
export function holdNote(f: number, n: number): string {
  if (f < 0 || f < n) return '';
  if (n <= 0) return 'no micro-steps in this operation: the state before it is held';
  return `done after ${n} frame${n === 1 ? '' : 's'}: holds its last frame while the others go on (frame ${f + 1})`;
}

/** One column's frame, ready to draw. */
export interface FrameView {
  /** The allocator right after the frame's event (its index and areas). */
  state: State;
  narration: Narration | null;
  /** The free tree's marks and the bar's ranges (NO_FOCUS for a maple tree). */
  free: Focus;
  /** The maple view's focus (maple-rfc's occupied tree), or undefined. */
  maple: MapleFocus | undefined;
  /** The tree node the frame is about, as the view highlights it (free-tree id or maple node id). */
  node: number | null;
  /** The kind of the frame's event ('' for none). */
  event: string;
}

/** The node a free-tree focus is about: its callout's, else a node marked as visited or found. */
function freeFocusNode(f: Focus): number | null {
  for (const c of f.callouts) if (c.id >= 0) return c.id;
  for (const [id, marks] of f.marks) if (marks.includes('visit') || marks.includes('found')) return id;
  return null;
}

/** Frame `i` of a column's operation, narrated and focused as the page's player does it. */
export function frameView(of: OpFrames, i: number): FrameView {
  const fr = of.frames[i];
  if (!fr) return { state: of.before, narration: null, free: NO_FOCUS, maple: undefined, node: null, event: '' };
  const state = stateAtFrame(of, i);
  if (of.before.index.kind === 'maple') {
    const maple = rfcFocus(of, i);
    return { state, narration: narrateRfc(of, i), free: NO_FOCUS, maple, node: maple.node, event: fr.event.kind };
  }
  const byId = new Map(freeNodes(state.index).map((n) => [n.id, n]));
  const free = focusOf(of, i, byId);
  const narration = narrate(fr.event, { search: searchOf(of.frames, i), nodes: byId, op: of.text, inPurge: inPurge(of.frames, i) });
  return { state, narration, free, maple: undefined, node: freeFocusNode(free), event: fr.event.kind };
}

/**
 * Why an operation's answer in one column can differ from the others', as far as its own events
 * tell: the bump overlay, the RFC's padded search (size + align − 1) and its window loop skipping
 * a hole too short after alignment, a vmap node's pool, linux-5.1's cache hint. Empty when the events name no such cause (then the
 * search itself, or an earlier difference of state, made it).
 */
export function whyOf(events: readonly { kind: string; [k: string]: unknown }[]): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (!out.includes(s)) out.push(s);
  };
  let skipped = 0;
  for (const e of events) {
    switch (e.kind) {
      case 'bump_hit':
        add(`bump hit: carved from CPU ${String(e.cpu)}'s chunk, no tree searched`);
        break;
      case 'bump_refill':
        add(`bump refill: a new chunk for CPU ${String(e.cpu)} from the occupied tree`);
        break;
      case 'window_start':
        if (big(e.len) > big(e.size)) {
          add(`searched for size + align − 1 = ${hex(big(e.len))} (align ${hex(big(e.align))} > PAGE_SIZE): a shorter hole is passed over even where an aligned fit exists`);
        }
        break;
      case 'window_hole':
        if (e.fits !== true) skipped++;
        break;
      case 'pool_hit':
        add(`from vmap node ${String(e.node)}'s pool (a recycled area), no free-tree search`);
        break;
      case 'cache_use':
        add('started at the free_vmap_cache hint, above lower holes');
        break;
      case 'alloc_failed':
        add('no hole fits (after the purge and retry)');
        break;
    }
  }
  if (skipped > 0) add(`window loop: ${skipped} hole${skipped === 1 ? '' : 's'} too short once aligned, searched again past ${skipped === 1 ? 'it' : 'them'}`);
  return out;
}
