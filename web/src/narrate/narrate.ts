// Narration: one sentence per step event of the core, and the kernel function (and line of the
// code panel's excerpt) it comes from. It only puts into words what the event reports; the
// tests and branches are the core's, never recomputed here.
import type { FreeNode, MarkKind, StepEvent } from '../bridge';
import { hex, parseBig, size } from '../format';

export interface FitDiagram {
  fit: string;
  vaStart: bigint;
  vaEnd: bigint;
  nva: bigint;
  size: bigint;
}

export interface Narration {
  kind: string;
  /** A short headline (`Visit`, `Rotate left`, `Propagate`). */
  title: string;
  /** The sentence the narration line shows. */
  text: string;
  /** Key of the listing in narrate/code.ts. */
  listing: string;
  /** The kernel function, as printed. */
  fn: string;
  /** Id of the highlighted line of the listing (`''` for none). */
  line: string;
  /** The phase or case, when the function has several (`descent`, `roll-back`, `case 2`). */
  phase: string;
  fit?: FitDiagram;
}

/** The narrations of an event of `kind`: `(listing, fn, line, phase, title, text)`, in the order the narrators write them. */
export function narrationsOf(kind: string): (listing: string, fn: string, line: string, phase: string, title: string, text: string) => Narration {
  return (listing, fn, line, phase, title, text) => ({ kind, title, text, listing, fn, line, phase });
}

export interface NarrateContext {
  /** The operation's `search_start` event, once it has been reported (for `length`, `size`). */
  search: StepEvent | null;
  /** The free-tree nodes in force at this frame, by id. */
  nodes: Map<number, FreeNode>;
  /** The operation's own line (`free 0x…`, `vfree 0x…`), where the caller knows it. */
  op?: string;
  /** This micro-step lies inside a purge (between its `purge_start` and `purge_end`). */
  inPurge?: boolean;
}

/** Whether frame `i` of an operation lies inside a purge (for {@link NarrateContext.inPurge}). */
export function inPurge(frames: readonly { event: { kind: string } }[], i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    if (frames[j].event.kind === 'purge_end') return false;
    if (frames[j].event.kind === 'purge_start') return true;
  }
  return false;
}

/** A 64-bit field of an event (hex string or number) as a bigint; 0 when absent. */
export function big(v: unknown): bigint {
  if (v === null || v === undefined) return 0n;
  return parseBig(v);
}

/** An id field (number) or null. */
export function idOf(v: unknown): number | null {
  return typeof v === 'number' ? v : null;
}

/** An id the contract carries as hex text (`unlinked`'s `successor`), or null. */
export function hexIdOf(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(big(v));
}

/** `0x2000 (8K)` */
function hs(v: unknown): string {
  const b = big(v);
  return b < 0x400n ? hex(b) : `${hex(b)} (${size(b)})`;
}

function rangeOf(start: unknown, end: unknown): string {
  return `[${hex(big(start))}, ${hex(big(end))})`;
}

/** `block #3 [0x1000, 0x3000)`, from the event's own fields or the tree. */
function block(ctx: NarrateContext, id: unknown, start?: unknown, end?: unknown): string {
  const n = typeof id === 'number' ? ctx.nodes.get(id) : undefined;
  const r = start !== undefined ? rangeOf(start, end) : n ? rangeOf(n.vaStart, n.vaEnd) : '';
  return `block #${String(id)}${r ? ` ${r}` : ''}`;
}

const CASES_INSERT: Record<number, string> = {
  0: 'the root is always black',
  1: 'parent and uncle are both red: flip the colours and continue from the grandparent',
  2: 'the new node is an inner grandchild: rotate at its parent to line the three up',
  3: 'rotate at the grandparent: the parent takes its place and its black colour',
};

const CASES_ERASE: Record<number, string> = {
  1: 'the sibling is red: rotate at the parent so that the sibling becomes black',
  2: 'the sibling and both its children are black: the sibling turns red and the missing black moves up',
  3: "the sibling's far child is black and its near child red: rotate at the sibling",
  4: "the sibling's far child is red: rotate at the parent and recolour; the tree is balanced again",
};

const CAUSES: Record<string, string> = {
  forced: 'a purge line in the trace',
  threshold: 'more lazy pages than lazy_max_pages()',
  alloc_retry: 'an allocation failed: return the lazy areas and retry',
  reclaim: 'reclaim: purge with a full pool decay',
};

function n(ctx: NarrateContext, field: string): bigint {
  return ctx.search ? big(ctx.search[field]) : 0n;
}

/** Why the search did not go left at a visited node (the core's `branch` says it did not). */
function notLeft(ev: StepEvent, ctx: NarrateContext): string {
  const length = n(ctx, 'length');
  const leftMax = big(ev.left_max);
  if (leftMax < length) return `left subtree max ${hs(leftMax)} < length ${hs(length)}`;
  return `vstart ${hex(big(ev.vstart))} ≥ va_start ${hex(big(ev.va_start))}, so nothing on the left can be used`;
}

export function narrate(ev: StepEvent, ctx: NarrateContext): Narration {
  const k = ev.kind;
  const base = narrationsOf(k);
  const length = hs(n(ctx, 'length'));
  switch (k) {
    case 'search_start':
      return base(
        '__alloc_vmap_area',
        '__alloc_vmap_area',
        'length',
        'search',
        'Search',
        `Find the lowest free block for ${hs(ev.size)} aligned to ${hex(big(ev.align))} in [${hex(big(ev.vstart))}, ${hex(
          big(ev.vend),
        )}); subtrees whose max is below length ${hs(ev.length)} are skipped.`,
      );
    case 'visit': {
      const at = block(ctx, ev.id, ev.va_start, ev.va_end);
      const b = String(ev.branch);
      if (b === 'left')
        return base(
          'find_vmap_lowest_match',
          'find_vmap_lowest_match',
          'left',
          'descent',
          'Visit: go left',
          `At ${at}: left subtree max ${hs(ev.left_max)} ≥ length ${length} and vstart ${hex(big(ev.vstart))} < va_start ${hex(
            big(ev.va_start),
          )} → go left.`,
        );
      if (b === 'this')
        return base(
          'find_vmap_lowest_match',
          'find_vmap_lowest_match',
          'this',
          'descent',
          'Visit: found',
          `At ${at}: ${notLeft(ev, ctx)}; the request fits in this block (is_within_this_va) → this block is the answer.`,
        );
      if (b === 'right')
        return base(
          'find_vmap_lowest_match',
          'find_vmap_lowest_match',
          'right',
          'descent',
          'Visit: go right',
          `At ${at}: ${notLeft(ev, ctx)}; the request does not fit here; right subtree max ${hs(ev.right_max)} ≥ length ${length} → go right.`,
        );
      return base(
        'find_vmap_lowest_match',
        'find_vmap_lowest_match',
        'roll',
        'descent',
        'Visit: dead end',
        `At ${at}: ${notLeft(ev, ctx)}; the request does not fit here, and right subtree max ${hs(ev.right_max)} < length ${length} → roll back towards the root.`,
      );
    }
    case 'roll_back': {
      const at = block(ctx, ev.id, ev.va_start, ev.va_end);
      const s = String(ev.step);
      if (s === 'this')
        return base(
          'find_vmap_lowest_match',
          'find_vmap_lowest_match',
          'rb_this',
          'roll-back',
          'Roll back: found',
          `Back up at ${at}: the request fits in this block (is_within_this_va) → this block is the answer.`,
        );
      if (s === 'right') {
        const moved = ev.new_vstart !== null && ev.new_vstart !== undefined;
        return base(
          'find_vmap_lowest_match',
          'find_vmap_lowest_match',
          moved ? 'rb_vstart' : 'rb_right',
          'roll-back',
          'Roll back: go right',
          `Back up at ${at}: no fit here, but right subtree max ${hs(ev.right_max)} ≥ length ${length} and vstart ${hex(
            big(ev.vstart),
          )} ≤ va_start → go right${moved ? `; vstart moves to ${hex(big(ev.new_vstart))} so this subtree is not entered twice` : ''}.`,
        );
      }
      return base(
        'find_vmap_lowest_match',
        'find_vmap_lowest_match',
        'up',
        'roll-back',
        'Roll back: climb',
        `Back up at ${at}: no fit here, and the right subtree cannot help (max ${hs(ev.right_max)}${
          big(ev.right_max) >= n(ctx, 'length') ? `, but vstart ${hex(big(ev.vstart))} > va_start` : ` < length ${length}`
        }) → keep climbing.`,
      );
    }
    case 'search_none':
      return base(
        'find_vmap_lowest_match',
        'find_vmap_lowest_match',
        'none',
        'descent',
        'No block',
        'No free block can hold the request: find_vmap_lowest_match returns NULL.',
      );
    case 'out_of_range':
      return base(
        '__alloc_vmap_area',
        '__alloc_vmap_area',
        'range',
        'bounds',
        'Past vend',
        `The block found puts the request at nva ${hex(big(ev.nva))}, but nva + size ${hex(big(ev.nva) + big(ev.size))} > vend ${hex(
          big(ev.vend),
        )}: the search does not know vend, so the request fails after it.`,
      );
    case 'fit': {
      const fit = String(ev.fit);
      const what: Record<string, string> = {
        FL: 'FL, full fit: the request is exactly the block, which is used up',
        LE: "LE, left edge: the request starts at the block's start",
        RE: "RE, right edge: the request ends at the block's end",
        NE: 'NE, no edge: the request sits inside, so the block splits in two',
        NOTHING: 'NOTHING: the request does not fit (a kernel warning)',
      };
      return {
        ...base(
          'classify_va_fit_type',
          'classify_va_fit_type',
          fit,
          'classify',
          `Fit: ${fit}`,
          `nva ${hex(big(ev.nva))}, size ${hs(ev.size)} in ${block(ctx, ev.id, ev.va_start, ev.va_end)} → ${what[fit] ?? fit}.`,
        ),
        fit: { fit, vaStart: big(ev.va_start), vaEnd: big(ev.va_end), nva: big(ev.nva), size: big(ev.size) },
      };
    }
    case 'clip': {
      const fit = String(ev.fit);
      const old = rangeOf(ev.old_start, ev.old_end);
      const neu = rangeOf(ev.new_start, ev.new_end);
      let text: string;
      if (fit === 'FL') text = `FL: block #${String(ev.id)} ${old} is used whole and leaves the free tree.`;
      else if (fit === 'LE') text = `LE: block #${String(ev.id)} shrinks from the left, ${old} → ${neu}; it keeps its place in the tree.`;
      else if (fit === 'RE') text = `RE: block #${String(ev.id)} shrinks from the right, ${old} → ${neu}; it keeps its place in the tree.`;
      else {
        const lva = ev.lva as { id?: number; va_start?: unknown; va_end?: unknown } | null;
        text = `NE: block #${String(ev.id)} keeps the right part ${neu}; a new block${
          lva ? ` #${String(lva.id)} ${rangeOf(lva.va_start, lva.va_end)}` : ''
        } takes the left part and will be inserted into the tree.`;
      }
      return base('adjust_va_to_fit_type', 'adjust_va_to_fit_type', fit, 'clip', `Clip: ${fit}`, text);
    }
    case 'allocated':
      return base(
        'alloc_vmap_area',
        'alloc_vmap_area',
        'done',
        'done',
        'Allocated',
        `Allocated ${rangeOf(ev.addr, big(ev.addr) + big(ev.size))}, ${size(big(ev.size))}: area #${String(ev.id)} is busy.`,
      );
    case 'alloc_failed':
      return base(
        'alloc_vmap_area',
        'alloc_vmap_area',
        'fail',
        'overflow',
        'Failed',
        `The allocation of ${hs(ev.size)} fails: "vmap allocation for size ${big(ev.size)} failed".`,
      );
    case 'link': {
      const parent = idOf(ev.parent);
      const where = parent === null ? 'as the root' : `as the ${String(ev.side)} child of ${block(ctx, parent)}`;
      return base(
        'link_va',
        'link_va',
        'link',
        'insert',
        'Link',
        `${block(ctx, ev.id, ev.va_start, ev.va_end)} is linked ${where}, as a red leaf; the fix-up follows.`,
      );
    }
    case 'rotate': {
      const insert = ev.phase === 'insert';
      const c = Number(ev.case);
      const why = (insert ? CASES_INSERT : CASES_ERASE)[c] ?? '';
      return base(
        insert ? '__rb_insert' : '__rb_erase_color',
        insert ? '__rb_insert' : '__rb_erase_color',
        `c${c}`,
        `case ${c}`,
        `Rotate ${String(ev.dir)}`,
        `Case ${c}: ${why}. Rotate ${String(ev.dir)} at ${block(ctx, ev.old_top)}: ${block(ctx, ev.new_top)} takes its place.`,
      );
    }
    case 'recolor': {
      const insert = ev.phase === 'insert';
      const c = Number(ev.case);
      const why = (insert ? CASES_INSERT : CASES_ERASE)[c] ?? '';
      return base(
        insert ? '__rb_insert' : '__rb_erase_color',
        insert ? '__rb_insert' : '__rb_erase_color',
        `c${c}`,
        `case ${c}`,
        'Recolour',
        `Case ${c}: ${why}. ${block(ctx, ev.id)} turns ${String(ev.color)}.`,
      );
    }
    case 'erase':
      return base(
        'unlink_va',
        'unlink_va',
        'erase',
        'erase',
        'Erase',
        `${block(ctx, ev.id, ev.va_start, ev.va_end)} is erased from the free tree (rb_erase_augmented), then the tree is rebalanced.`,
      );
    case 'unlinked': {
      const c = String(ev.case);
      const succ = hexIdOf(ev.successor);
      const how: Record<string, string> = {
        '1a': 'it had no left child: its right child (if any) takes its place',
        '1b': 'it had only a left child, which takes its place',
        '2': `its successor ${succ !== null ? block(ctx, succ) : ''}, its right child, takes its place`,
        '3': `its successor ${succ !== null ? block(ctx, succ) : ''}, the leftmost node of its right subtree, takes its place`,
      };
      return base(
        'unlink_va',
        'unlink_va',
        c === '2' || c === '3' ? 'copy' : 'erase',
        `case ${c}`,
        'Unlinked',
        `Block #${String(ev.id)} is out of the tree (rb_erase_augmented, case ${c}): ${how[c] ?? ''}. The maxima are propagated next, then the colours are fixed up if a black node went missing.`.replace(/ {2,}/g, ' '),
      );
    }
    case 'propagate':
      return base(
        'augment_tree_propagate_from',
        'augment_tree_propagate_from',
        'set',
        'propagate',
        'Propagate',
        `${block(ctx, ev.id)}: subtree_max_size ${hs(ev.old)} → ${hs(ev.new)} (max of its size and its children's); ${
          typeof ev.id === 'number' && ctx.nodes.get(ev.id)?.parent === null ? 'it is the root: the propagation ends here' : 'continue with the parent'
        }.`,
      );
    case 'propagate_stop':
      return base(
        'augment_tree_propagate_from',
        'augment_tree_propagate_from',
        'stop',
        'propagate',
        'Propagation stops',
        `${block(ctx, ev.id)} stops here: value unchanged, subtree_max_size is still ${hs(ev.value)}, so every ancestor is already right.`,
      );
    case 'augment_set': {
      // The core names the cause (core/src/events.rs, AugmentCause); nothing is guessed here.
      const change = `subtree_max_size ${hs(ev.old)} → ${hs(ev.new)}`;
      const cause = String(ev.cause);
      if (cause === 'link_reset')
        return base(
          'link_va',
          'link_va',
          'zero',
          'insert',
          'Reset max',
          `${block(ctx, ev.id)} is linked: link_va resets its ${change} for now; the propagation from it sets the real value.`,
        );
      if (cause === 'rotate') {
        const insert = ev.phase === 'insert';
        // The callback is mm/vmalloc.c's (RB_DECLARE_CALLBACKS); lib/rbtree.c calls it from the fix-up shown.
        const fixup = insert ? '__rb_insert' : '__rb_erase_color';
        return base(
          fixup,
          fixup,
          'aug',
          `case ${String(ev.case)}`,
          'Rotate callback',
          `After the rotation (${insert ? 'insert fix-up' : 'erase fix-up'}, case ${String(ev.case)}), the rotate callback (free_vmap_area_rb_augment_cb_rotate, declared in mm/vmalloc.c) updates ${block(ctx, ev.id)}: ${change}.`,
        );
      }
      if (cause === 'copy')
        return base(
          'unlink_va',
          'unlink_va',
          'copy',
          'erase',
          'Copy callback',
          `The successor takes the erased node's place and its value (the copy callback, free_vmap_area_rb_augment_cb_copy): ${block(ctx, ev.id)} ${change}.`,
        );
      return base('augment_tree_propagate_from', 'augment_set', '', '', 'Augment', `${block(ctx, ev.id)}: ${change} (${cause}).`);
    }
    case 'merge_start': {
      const prev = idOf(ev.prev);
      const next = idOf(ev.next);
      const nb = [
        prev !== null ? `after ${block(ctx, prev)}` : 'with no free block just before',
        next !== null ? `before ${block(ctx, next)}` : 'none just after',
      ].join(', ');
      return base(
        'merge_or_add_vmap_area',
        'merge_or_add_vmap_area',
        'next',
        'neighbours',
        'Find neighbours',
        `The freed block ${rangeOf(ev.va_start, ev.va_end)} goes back to the free tree: its place is ${nb}.`,
      );
    }
    case 'merge': {
      // Before and after both come from the event: the tree at this frame already holds "after".
      const m = String(ev.merge);
      const was = block(ctx, ev.survivor, ev.old_start, ev.old_end);
      const into = rangeOf(ev.new_start, ev.new_end);
      const text =
        m === 'next'
          ? `It touches the next block: ${was} grows down to ${into} and survives; no node is added.`
          : m === 'prev'
            ? `It touches the previous block: ${was} grows up to ${into} and survives.`
            : `It touches both neighbours: ${was} grows up to ${into}; block #${String(ev.removed)} disappears from the tree.`;
      return base(
        'merge_or_add_vmap_area',
        'merge_or_add_vmap_area',
        m === 'next' ? 'mnext' : m === 'prev' ? 'mprev' : 'erase',
        `merge ${m}`,
        `Merge ${m}`,
        text,
      );
    }
    case 'add_block':
      return base(
        'merge_or_add_vmap_area',
        'merge_or_add_vmap_area',
        'add',
        'insert',
        'No merge',
        `No free neighbour touches ${rangeOf(ev.va_start, ev.va_end)}: it becomes a node of its own, #${String(ev.id)}.`,
      );
    case 'busy_insert':
      return base(
        'insert_vmap_area',
        'insert_vmap_area',
        'insert',
        'busy tree',
        'Busy',
        `Area #${String(ev.id)} ${rangeOf(ev.va_start, ev.va_end)} enters the busy tree (${String(ev.depth)} ${Number(ev.depth) === 1 ? 'node' : 'nodes'} passed on the way down).`,
      );
    case 'busy_remove': {
      const range = `Area #${String(ev.id)} ${rangeOf(ev.va_start, ev.va_end)} leaves the busy tree`;
      // A purge gives its lazy areas back; a `free` gives the range back at once (free_vmap_area);
      // a `vfree` queues it (the lazy path).
      if (ctx.inPurge) return base('__purge_vmap_area_lazy', '__purge_vmap_area_lazy', 'area', 'purge', 'Unbusy', `${range}: the purge gives its range back.`);
      const direct = /^free\b/.test(ctx.op ?? '');
      return base(
        direct ? 'free_vmap_area' : 'unlink_busy',
        direct ? 'free_vmap_area' : 'free_vmap_area_noflush',
        'remove',
        'busy tree',
        'Unbusy',
        `${range}${direct ? '; its range becomes free space next' : ''}.`,
      );
    }
    case 'lazy_enqueue':
      return base(
        'unlink_busy',
        'free_vmap_area_noflush',
        'lazy',
        'lazy',
        'Lazy free',
        `Area #${String(ev.id)} ${rangeOf(ev.va_start, ev.va_end)} is freed lazily: ${big(ev.nr_lazy)} of ${big(
          ev.lazy_max,
        )} lazy pages wait for a purge; the free tree does not change yet.`,
      );
    case 'purge_start':
      return base(
        '__purge_vmap_area_lazy',
        '__purge_vmap_area_lazy',
        'start',
        'purge',
        'Purge',
        `Purge (${CAUSES[String(ev.cause)] ?? String(ev.cause)}): ${String(ev.count)} lazy areas leave the lazy lists; the steps that follow give each back to free space (from 6.9, to its node's pool when one holds its size).`,
      );
    case 'purge_area':
      return base(
        '__purge_vmap_area_lazy',
        '__purge_vmap_area_lazy',
        'area',
        'purge',
        'Purge: return',
        `${rangeOf(ev.va_start, ev.va_end)} leaves the lazy list; the next steps give it back: to free space or, from 6.9, to its node's pool when one holds its size.`,
      );
    case 'purge_end':
      return base('__purge_vmap_area_lazy', '__purge_vmap_area_lazy', 'end', 'purge', 'Purge done', `Purge done: ${String(ev.purged)} areas returned.`);
    case 'pool_hit':
      return base('node_alloc', 'node_alloc', 'hit', 'vmap node', 'Pool hit', `Node ${String(ev.node)}, pool ${String(ev.pool)} hands out ${rangeOf(ev.va_start, ev.va_end)} at once: the free tree is not searched.`);
    case 'pool_miss':
      return base('node_alloc', 'node_alloc', 'miss', 'vmap node', 'Pool miss', `Node ${String(ev.node)}, pool ${String(ev.pool)} has nothing that fits: search the free tree.`);
    case 'pool_rotate':
      return base('node_alloc', 'node_alloc', 'rotate', 'vmap node', 'Pool rotate', `The head of pool ${String(ev.pool)}, ${rangeOf(ev.va_start, ev.va_end)}, is misaligned and moves to the tail.`);
    case 'decay':
      return base('decay_va_pool_node', 'decay_va_pool_node', 'decay', 'decay', 'Decay', `Node ${String(ev.node)}, pool ${String(ev.pool)}: ${String(ev.taken)} areas go back to the free tree, ${String(ev.kept)} stay.`);
    case 'pooled':
      // purge_vmap_node pools (node_pool_add_va); decay_va_pool_node only takes areas out of pools.
      return base(
        'purge_vmap_node',
        'purge_vmap_node',
        'pooled',
        'purge',
        'Pooled',
        `${rangeOf(ev.va_start, ev.va_end)} goes to the head of node ${String(ev.node)}'s pool ${String(ev.pool)} instead of back to the free tree.`,
      );
    case 'cache_reset':
      return base('alloc_vmap_area_51', 'alloc_vmap_area (5.1)', 'reset', 'cache', 'Cache reset', `free_vmap_cache is dropped (${String(ev.why).replace(/_/g, ' ')}): the walk starts from the busy tree.`);
    case 'cache_use':
      return base('alloc_vmap_area_51', 'alloc_vmap_area (5.1)', 'use', 'cache', 'Cache', `The walk starts after the cached area ${rangeOf(ev.va_start, ev.va_end)}: candidate ${hex(big(ev.addr))}.`);
    case 'walk_tree':
      return base('alloc_vmap_area_51', 'alloc_vmap_area (5.1)', 'tree', 'busy tree', 'Busy-tree descent', `Busy area ${rangeOf(ev.va_start, ev.va_end)} passed on the way to the first area ending above ${hex(big(ev.addr))}.`);
    case 'walk_area':
      return base('alloc_vmap_area_51', 'alloc_vmap_area (5.1)', 'walk', 'list walk', 'List walk', `Busy area ${rangeOf(ev.va_start, ev.va_end)} is in the way: the next candidate is ${hex(big(ev.addr))}.`);
    case 'pcpu_area':
      return base('pcpu_get_vm_areas', 'pcpu_get_vm_areas', 'area', 'percpu', 'Per-CPU area', `Area ${String(ev.index)} is carved at ${hex(big(ev.addr))}, ${size(big(ev.size))}.`);
    case 'reset':
      // The trace's `init` line: ours, shown beside how the kernel sets up its free space at boot.
      return base('vmalloc_init', 'vmalloc_init', 'one', 'boot', 'Init', `The trace's init line: the allocator starts afresh over ${rangeOf(ev.start, ev.end)}, all of it free space, no area busy.`);
    default:
      return base('alloc_vmap_area', k, '', '', k, `Event ${k}.`);
  }
}

/** What the timeline marks: splits (NE clips), merges and rotations (the core's mark bits, see `Session.marks`). */
export type MarkerKind = MarkKind;
