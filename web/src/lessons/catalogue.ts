// The lessons. Every stop sits on a micro-step of a trace in ./traces, replayed by the core; its
// claim (the event kind there, and fields of the contract's event) is checked against the core's
// events by lessons.test.ts, so the words cannot drift from the model. Operations count from 0
// here (`op: 4` is the page's "op 5"); a trace's `profile` line is an operation of an allocator
// trace, not of a `profile maple-tree` one. `ask` makes a stop a "your turn" question: only its
// kind (and which occurrence in the stop's operation) is written here, the answer is the core's
// (question.ts; checked by question.test.ts).
import type { Lesson } from './model';
import fitTypes from './traces/fit_types.trace?raw';
import merges from './traces/merges.trace?raw';
import fixups from './traces/fixups.trace?raw';
import earlyStop from './traces/early_stop.trace?raw';
import rollBack from './traces/roll_back.trace?raw';
import rebalance from './traces/rebalance.trace?raw';
import lazy from './traces/lazy.trace?raw';
import threshold from './traces/threshold.trace?raw';
import maple from './traces/maple.trace?raw';
import walk51 from './traces/walk_51.trace?raw';
import rfcBump from './traces/rfc_bump.trace?raw';
import rfcS5 from './traces/rfc_s5.trace?raw';
import twoCpus from '../panels/scenarios/two_cpus_two_zones.trace?raw';
import poolHit from '../panels/scenarios/pool_hit.trace?raw';
import decay from '../panels/scenarios/decay.trace?raw';
import reclaim from '../panels/scenarios/reclaim_on_failure.trace?raw';

const WALK: Lesson = {
  id: 'walk',
  title: 'Before the free tree: the list walk (linux-5.1)',
  summary:
    'Until 5.2 only busy areas were kept; a search walked their list from a cached starting point until a gap was large enough: one step per busy area in its way.',
  minutes: 5,
  traces: { walk: walk51 },
  stops: [
    {
      title: 'The cache makes appending cheap',
      trace: 'walk',
      at: { op: 9, find: 'walk' },
      text:
        'free_vmap_cache remembers the last area handed out. A request that fits right after it takes one step of the walk: the new area goes straight after the cached one.',
      claim: { kind: 'walk', where: { id: 6 } },
      look: ['list', 'bar', 'narration'],
    },
    {
      title: 'A hole moves the cache back',
      trace: 'walk',
      at: { op: 12, find: 'walk' },
      text:
        'Two frees opened a 2-page hole at 0x101000, and __free_vmap_area moved the cache below it. A 3-page request starts walking there.',
      claim: { kind: 'walk', where: { id: 0 } },
      look: ['list', 'bar', 'narration'],
    },
    {
      title: 'One step per busy area: O(N)',
      trace: 'walk',
      at: { op: 12, find: 'walk', nth: 5 },
      text:
        'The hole is too small, so the walk visits every busy area above it before it finds room at the end. With thousands of areas each search costs thousands of steps: this is what linux-5.2\'s augmented free tree removed.',
      claim: { kind: 'walk', where: { id: 7, cached_hole_size: '0x2000' } },
      look: ['list', 'bar', 'narration'],
    },
    {
      title: 'A smaller request drops the cache',
      trace: 'walk',
      at: { op: 13, find: 'cache_reset' },
      text:
        'One page is smaller than the hole the cache skipped (cached_hole_size), so the hole may fit it: the cache is dropped and the search starts again from the tree, and lands in the hole.',
      claim: { kind: 'cache_reset', where: { why: 'smaller_than_hole' } },
      look: ['list', 'narration', 'bar'],
    },
  ],
};

const FREE_TREE: Lesson = {
  id: 'free-tree',
  title: 'The augmented free tree (linux-5.2)',
  summary:
    'Free blocks in a red-black tree sorted by address, each node keeping subtree_max_size: the four fit types, merging with the previous, next or both neighbours, the insert and erase fix-ups, and a propagation that stops early.',
  minutes: 27,
  traces: { fits: fitTypes, merges, fixups, early: earlyStop, rollBack },
  stops: [
    {
      title: 'LE: the request starts at the block’s start',
      trace: 'fits',
      at: { op: 2, find: 'fit' },
      text:
        'The free space is one block [0x10000, 0x30000). The lowest fit starts exactly at the block\'s start, so adjust_va_to_fit_type classifies it LE: the block shrinks from the left and stays in the tree, with a smaller subtree_max_size.',
      claim: { kind: 'fit', where: { fit: 'LE' } },
      look: ['tree', 'bar'],
    },
    {
      title: 'RE: the request ends at the block’s end',
      trace: 'fits',
      at: { op: 3, find: 'fit' },
      text:
        'This request\'s vstart is 0x2f000, one page below the end of the block: it ends where the block ends. RE: the block shrinks from the right, again without a new node.',
      claim: { kind: 'fit', where: { fit: 'RE' } },
      look: ['tree', 'bar'],
    },
    {
      title: 'NE: the block splits in two',
      trace: 'fits',
      at: { op: 4, find: 'fit' },
      text:
        'A 64 KiB alignment puts the page at 0x20000, inside the block with free space on both sides. NE is the only fit that needs a new vmap_area: the left remainder becomes a new node, linked into the tree.',
      claim: { kind: 'fit', where: { fit: 'NE' } },
      look: ['tree', 'bar'],
      ask: { ask: 'land' },
    },
    {
      title: 'FL: the block is used up',
      trace: 'fits',
      at: { op: 5, find: 'fit' },
      text:
        'The request is exactly [0x21000, 0x2f000), the whole block. FL: nothing is left of it, so the block is erased from the tree and freed; the red-black erase runs.',
      claim: { kind: 'fit', where: { fit: 'FL' } },
      look: ['tree', 'narration'],
    },
    {
      title: 'Freeing merges with the next block',
      trace: 'merges',
      at: { op: 9, find: 'merge' },
      text:
        'merge_or_add_vmap_area looks up the freed area\'s neighbours among the free blocks. Here the block right after it is free: that block grows down to the freed start, and no node is added.',
      claim: { kind: 'merge', where: { merge: 'next' } },
      look: ['tree', 'bar'],
    },
    {
      title: 'Freeing merges with the previous block',
      trace: 'merges',
      at: { op: 10, find: 'merge' },
      text: 'Now the free block just before the freed area ends where it starts: the previous block grows up to the freed end.',
      claim: { kind: 'merge', where: { merge: 'prev' } },
      look: ['tree', 'bar'],
    },
    {
      title: 'Freeing merges with both neighbours',
      trace: 'merges',
      at: { op: 12, find: 'merge', where: { merge: 'both' } },
      text:
        'The freed page sits between two free blocks. It first joins the next one; then the previous block takes in the result, and the next block is erased: the tree loses a node.',
      claim: { kind: 'merge', where: { merge: 'both' } },
      look: ['tree', 'bar', 'narration'],
    },
    {
      title: 'Insert fix-up, case 2: rotate the parent',
      trace: 'fixups',
      at: { op: 19, find: 'rotate', where: { phase: 'insert', case: 2 } },
      text:
        'The new red block lands as the right child of a red parent whose uncle is black. Case 2 rotates left at the parent, so that the two reds line up on the outside.',
      claim: { kind: 'rotate', where: { phase: 'insert', case: 2, dir: 'left' } },
      look: ['tree', 'code'],
    },
    {
      title: 'Insert fix-up, case 3: rotate the grandparent',
      trace: 'fixups',
      at: { op: 19, find: 'rotate', where: { phase: 'insert', case: 3 } },
      text:
        'Case 3 rotates right at the grandparent and recolours: the middle block becomes the black top. One micro-step later (→) the augment callback hands the old top\'s subtree_max_size to the node now on top.',
      claim: { kind: 'rotate', where: { phase: 'insert', case: 3, dir: 'right' } },
      look: ['tree', 'code'],
    },
    {
      title: 'Insert fix-up, case 1: recolour and go up',
      trace: 'fixups',
      at: { op: 20, find: 'recolor', where: { phase: 'insert', case: 1 } },
      text:
        'This time the uncle is red. Case 1 needs no rotation: parent and uncle turn black, the grandparent red, and the fix-up continues from the grandparent.',
      claim: { kind: 'recolor', where: { phase: 'insert', case: 1 } },
      look: ['tree', 'code'],
    },
    {
      title: 'Erase fix-up, case 1: a red sibling',
      trace: 'fixups',
      at: { op: 28, find: 'rotate', where: { phase: 'erase_color' } },
      text:
        'Taking a hole back whole (an FL fit) erases a black node, which leaves its path one black node short. The sibling is red, so case 1 rotates left at the parent to give the fix-up a black sibling to work with.',
      claim: { kind: 'rotate', where: { phase: 'erase_color', case: 1 } },
      look: ['tree', 'code'],
    },
    {
      title: 'Erase fix-up, case 4: the far nephew is red',
      trace: 'fixups',
      at: { op: 30, find: 'rotate', where: { phase: 'erase_color' } },
      text:
        'Here the sibling is black with a red child on the far side. Case 4 rotates at the parent and recolours, which restores the black height and ends the fix-up.',
      claim: { kind: 'rotate', where: { phase: 'erase_color', case: 4 } },
      look: ['tree', 'code'],
    },
    {
      title: 'Propagation that stops early',
      trace: 'early',
      at: { op: 14, find: 'propagate_stop' },
      text:
        'A page taken from the 32 KiB hole lowers that node\'s subtree_max_size. Going up, its parent still has the big tail block below it, so its value does not change and augment_tree_propagate_from stops there, below the root.',
      claim: { kind: 'propagate_stop', where: { id: 7 } },
      look: ['tree', 'narration'],
      ask: { ask: 'visit', nth: 1 },
    },
    {
      title: 'A dead end: the search rolls back',
      trace: 'rollBack',
      at: { op: 14, find: 'roll_back' },
      text:
        'A 16 KiB request from vstart 0x105000. At the root the left subtree holds a 32 KiB block and vstart is below the root\'s start, so find_vmap_lowest_match goes left; but that block ends at 0x108000, too early for the request: a dead end. The roll-back walk climbs to the root, which does not fit either, but its right subtree\'s maximum is large enough: the search goes right from there.',
      claim: { kind: 'roll_back', where: { id: 3, step: 'right', va_start: '0x109000' } },
      look: ['tree', 'narration'],
    },
  ],
};

const LAZY: Lesson = {
  id: 'lazy',
  title: 'Lazy freeing and the purge (linux-5.2)',
  summary:
    'vfree() only marks an area lazy; a purge returns lazy areas to the free tree in a batch: forced, on the lazy threshold, or when an allocation fails and retries.',
  minutes: 17,
  traces: { lazy, threshold },
  stops: [
    {
      title: 'vfree() does not free at once',
      trace: 'lazy',
      at: { op: 6, find: 'lazy' },
      text:
        'free_vmap_area_noflush marks the area lazy and adds its pages to vmap_lazy_nr. The area stays in the busy tree (drawn lazy on the bar): its range is not free yet, because stale TLB entries may still point at it.',
      claim: { kind: 'lazy' },
      look: ['bar', 'narration'],
    },
    {
      title: 'A second lazy area',
      trace: 'lazy',
      at: { op: 7, find: 'lazy' },
      text: 'Another 4-page area waits: vmap_lazy_nr is 8 pages, far below lazy_max_pages() (8192 pages with one CPU), so nothing is purged.',
      claim: { kind: 'lazy' },
      look: ['bar'],
    },
    {
      title: 'A forced purge',
      trace: 'lazy',
      at: { op: 8, find: 'purge' },
      text:
        '__purge_vmap_area_lazy takes every lazy area, flushes the TLB for their span once, and hands each back to the free tree: one flush for the batch instead of one per vfree.',
      claim: { kind: 'purge', where: { cause: 'forced' } },
      look: ['bar', 'tree'],
    },
    {
      title: 'The purge inserts, and the tree rebalances',
      trace: 'lazy',
      at: { op: 8, find: 'rotate' },
      text: 'The second area returned touches no free block either: it becomes a new node, and the insert fix-up rotates (case 3) as for any insertion.',
      claim: { kind: 'rotate', where: { phase: 'insert', case: 3 } },
      look: ['tree'],
    },
    {
      title: 'No room: purge and retry',
      trace: 'lazy',
      at: { op: 12, find: 'purge' },
      text:
        'Two 16 KiB areas are lazy and 32 KiB are asked for. The search fails; alloc_vmap_area purges the lazy areas and tries again.',
      claim: { kind: 'purge', where: { cause: 'alloc_retry' } },
      look: ['bar', 'narration'],
    },
    {
      title: 'The purge merges both neighbours',
      trace: 'lazy',
      at: { op: 12, find: 'merge', where: { merge: 'both' } },
      text: 'The second purged area joins the free blocks on both sides: one 64 KiB block remains where there were holes.',
      claim: { kind: 'merge', where: { merge: 'both' } },
      look: ['tree', 'bar'],
    },
    {
      title: 'The retry fits',
      trace: 'lazy',
      at: { op: 12, find: 'fit' },
      text: 'The second search finds the merged block and takes its start: an LE fit, and the allocation succeeds.',
      claim: { kind: 'fit', where: { fit: 'LE' } },
      look: ['tree', 'bar'],
      ask: { ask: 'land' },
    },
    {
      title: 'Over the threshold',
      trace: 'threshold',
      at: { op: 5, find: 'purge' },
      text:
        'Two lazily freed areas of 4097 pages make vmap_lazy_nr 8194, above lazy_max_pages() = 8192: the vfree itself triggers a purge.',
      claim: { kind: 'purge', where: { cause: 'threshold' } },
      look: ['bar', 'narration'],
    },
  ],
};

const NODES: Lesson = {
  id: 'nodes',
  title: 'vmap nodes, pools and decay (linux-6.9)',
  summary:
    'linux-6.9 splits the bookkeeping per vmap node: busy areas by address zone, lazy lists by CPU, and per-node pools of freed areas by size that allocations take before the free tree; each purge decays the pools.',
  minutes: 11,
  traces: { twoCpus, poolHit, decay, reclaim },
  stops: [
    {
      title: 'Each allocation asks its node\'s pool first',
      trace: 'twoCpus',
      at: { op: 4, find: 'pool_miss' },
      text:
        'With two CPUs there are two vmap nodes. A request on CPU 0 first looks in node 0\'s pool for its size (size_to_va_pool); the pool is empty, so the global free tree answers.',
      claim: { kind: 'pool_miss', where: { node: 0 } },
      look: ['nodes', 'narration', 'bar'],
    },
    {
      title: 'The other CPU, the other node',
      trace: 'twoCpus',
      at: { op: 6, find: 'pool_miss' },
      text: 'The same request from CPU 1 asks node 1. The area it gets is recorded in the node of its start address\'s zone, whichever CPU asked.',
      claim: { kind: 'pool_miss', where: { node: 1 } },
      look: ['nodes', 'bar'],
    },
    {
      title: 'Lazy areas wait on the node\'s list',
      trace: 'twoCpus',
      at: { op: 11, find: 'lazy' },
      text: 'vfree on 6.9 moves the area off the busy tree onto the lazy list of a node, to wait for the purge.',
      claim: { kind: 'lazy' },
      look: ['nodes', 'bar', 'narration'],
    },
    {
      title: 'The purge pools instead of freeing',
      trace: 'poolHit',
      at: { op: 11, find: 'pooled' },
      text:
        'A purge puts small lazily freed areas into their node\'s pool for their size (here 2 pages) instead of merging them back into the free tree.',
      claim: { kind: 'pooled', where: { node: 1, pool: 1 } },
      look: ['nodes', 'bar', 'narration'],
    },
    {
      title: 'A pool hit skips the tree',
      trace: 'poolHit',
      at: { op: 14, find: 'pool_hit' },
      text:
        'CPU 1 asks for 2 pages: node_alloc takes the head of node 1\'s pool as it is. The free tree is neither searched nor changed.',
      claim: { kind: 'pool_hit', where: { node: 1, pool: 1 } },
      look: ['nodes', 'tree', 'bar'],
    },
    {
      title: 'No pooled area on this node',
      trace: 'poolHit',
      at: { op: 18, find: 'pool_miss' },
      text: 'CPU 0 asks for 2 pages too, but node 0 has nothing pooled: a miss, and the free tree answers as before 6.9.',
      claim: { kind: 'pool_miss', where: { node: 0 } },
      look: ['nodes', 'tree'],
    },
    {
      title: 'Decay: a quarter of the pool goes back',
      trace: 'decay',
      at: { op: 23, find: 'decay' },
      text: 'Every purge decays the pools: a pool of 8 entries gives its first 8 >> 2 = 2 back to the free tree and keeps 6.',
      claim: { kind: 'decay', where: { taken: 2, kept: 6 } },
      look: ['nodes', 'bar', 'tree'],
    },
    {
      title: 'Decay: a small pool goes back whole',
      trace: 'decay',
      at: { op: 31, find: 'decay' },
      text: 'Three entries left: a pool of one to three entries is given back all at once, and the pool is empty.',
      claim: { kind: 'decay', where: { taken: 3, kept: 0 } },
      look: ['nodes', 'bar', 'tree'],
    },
    {
      title: 'Reclaim on failure',
      trace: 'reclaim',
      at: { op: 21, find: 'decay' },
      text:
        'The space is full and the other node has no pooled area: the failed search purges with full decay, every pooled area goes back to the free tree, and the retry succeeds.',
      claim: { kind: 'decay', where: { kept: 0 } },
      look: ['nodes', 'bar', 'narration'],
    },
  ],
};

const MAPLE: Lesson = {
  id: 'maple',
  title: 'The maple tree (lib/maple_tree.c)',
  summary:
    'A B-tree of ranges: the store types mas_wr_store_type chooses, a leaf that splits, gaps propagated up, a gap search with a wasted descent, and a spanning store.',
  minutes: 21,
  traces: { maple, rebalance },
  stops: [
    {
      title: 'A store into an empty tree',
      trace: 'maple',
      at: { op: 0, find: 'store_type' },
      text: 'The tree has no node yet: mas_wr_store_type picks wr_store_root, and the store makes the first leaf.',
      claim: { kind: 'store_type', where: { store: 'wr_store_root' } },
      look: ['tree', 'narration'],
    },
    {
      title: 'A node store',
      trace: 'maple',
      at: { op: 1, find: 'store_type' },
      text: 'A range inside the NULL range after the first entry: the leaf is rewritten with the NULL range cut around the new entry (wr_node_store).',
      claim: { kind: 'store_type', where: { store: 'wr_node_store' } },
      look: ['tree'],
      ask: { ask: 'store' },
    },
    {
      title: 'An exact fit',
      trace: 'maple',
      at: { op: 2, find: 'store_type' },
      text: 'The range [0x101000, 0x101fff] is exactly one existing slot: wr_exact_fit only replaces the slot\'s entry.',
      claim: { kind: 'store_type', where: { store: 'wr_exact_fit' } },
      look: ['tree'],
      ask: { ask: 'store' },
    },
    {
      title: 'Appending',
      trace: 'maple',
      at: { op: 5, find: 'store_type' },
      text: 'Each new range lands at the end of the leaf\'s data: wr_append writes the new slots after the last one.',
      claim: { kind: 'store_type', where: { store: 'wr_append' } },
      look: ['tree'],
    },
    {
      title: 'The leaf is full: split',
      trace: 'maple',
      at: { op: 10, find: 'split' },
      text:
        'The store would need 17 slots in a 16-slot leaf: wr_split_store. mab_calc_split picks the cut (slot 9), the halves go into two new leaves, and a new root (an arange node, with gaps) points at both.',
      claim: { kind: 'split', where: { cut: 9 } },
      look: ['tree', 'narration'],
    },
    {
      title: 'Gap propagation that stops',
      trace: 'maple',
      at: { op: 11, find: 'gap_stop' },
      text:
        'An append to the right leaf changes the largest NULL run below it; mas_update_gap writes the new value into the parent\'s gap[] for that child; the parent is the root, so the walk stops there.',
      claim: { kind: 'gap_stop', where: { node: 3, slot: 1 } },
      look: ['tree'],
    },
    {
      title: 'A gap search descends in vain',
      trace: 'maple',
      at: { op: 13, find: 'ascend' },
      text:
        'mas_empty_area looks for 2 pages in [0x100000, 0x200000]. The root\'s first gap is large enough, so it descends, but that gap lies below the range and every gap in the leaf is one page: it climbs back up, a wasted descent.',
      claim: { kind: 'ascend', where: { node: 3 } },
      look: ['tree', 'narration'],
      // Asked at the root, before the descent the stop is about (its answer comes before the stop's step).
      ask: { ask: 'visit', nth: 1 },
    },
    {
      title: 'The hole is found',
      trace: 'maple',
      at: { op: 13, find: 'hole_found' },
      text: 'The second child\'s last gap holds the request: the search answers the lowest 2-page hole, [0x113000, 0x114fff].',
      claim: { kind: 'hole_found', where: { index: '0x113000', last: '0x114fff' } },
      look: ['tree'],
      ask: { ask: 'slot', nth: 2 },
    },
    {
      title: 'A spanning store',
      trace: 'maple',
      at: { op: 14, find: 'spanning' },
      text:
        'One entry over [0x100000, 0x10ffff] crosses the boundary between the two leaves: wr_spanning_store rebuilds the range across both, and the tree shrinks back to a single leaf.',
      claim: { kind: 'spanning' },
      look: ['tree', 'narration'],
    },
    {
      title: 'Too few entries: rebalance',
      trace: 'rebalance',
      at: { op: 12, find: 'rebalance' },
      text:
        'After the split, one store over [0x100000, 0x106fff] replaces four entries of the left leaf and the NULL ranges between them. The leaf would end at slot 3, under the 6 that mt_min_slots asks of a leaf that is not the root, so mas_wr_store_type picks wr_rebalance. mas_rebalance combines the leaf with its sibling: both fit in one leaf, and one micro-step later (→) the tree is a single leaf again.',
      claim: { kind: 'rebalance', where: { node: 1 } },
      look: ['tree', 'narration'],
    },
  ],
};

const RFC: Lesson = {
  id: 'maple-rfc',
  title: 'maple-rfc: the occupied tree and the bump overlay',
  summary:
    'The RFC keeps no free tree: free space is the occupied maple tree\'s NULL ranges, found by a window loop; a per-CPU bump overlay serves most requests from 64 MiB chunks. And S5, the overlap the syzbot report shows.',
  minutes: 13,
  traces: { bump: rfcBump, s5: rfcS5 },
  stops: [
    {
      title: 'No chunk yet: the window loop',
      trace: 'bump',
      at: { op: 1, find: 'window' },
      text:
        'CPU 0 has no chunk, so the bump overlay misses. The window loop asks the occupied tree for a NULL range of 64 MiB in the vmalloc window, and the first hole it finds fits.',
      claim: { kind: 'window', where: { iteration: 1, fits: true } },
      look: ['tree', 'narration'],
    },
    {
      title: 'The chunk becomes CPU 0\'s',
      trace: 'bump',
      at: { op: 1, find: 'bump_refill' },
      text: 'The 64 MiB are reserved in the occupied tree as one range and become CPU 0\'s current chunk; the request is served from its start.',
      claim: { kind: 'bump_refill', where: { cpu: 0, retired: null } },
      look: ['bar', 'narration'],
    },
    {
      title: 'A bump hit touches no tree',
      trace: 'bump',
      at: { op: 2, find: 'bump_hit' },
      text: 'The next 2 pages come from the chunk: the bump pointer moves up, the chunk counts 4 pages, and no tree is searched or changed.',
      claim: { kind: 'bump_hit', where: { cpu: 0, pages: 4 } },
      look: ['bar'],
    },
    {
      title: 'Each CPU its own chunk',
      trace: 'bump',
      at: { op: 6, find: 'bump_refill' },
      text: 'CPU 1\'s first request misses too, and the window loop reserves the next 64 MiB for it.',
      claim: { kind: 'bump_refill', where: { cpu: 1 } },
      look: ['bar'],
    },
    {
      title: 'A refill retires the old chunk',
      trace: 'bump',
      at: { op: 9, find: 'bump_refill' },
      text:
        'After a 32 MiB request, the next 32 MiB do not fit in what is left of CPU 0\'s chunk: a new chunk is reserved and the old one is retired. Its range returns to the allocator when its last area is freed.',
      claim: { kind: 'bump_refill', where: { cpu: 0, retired: '0xffffc90000000000' } },
      look: ['bar', 'narration'],
    },
    {
      title: 'Alignment costs the window loop size + align − 1',
      trace: 'bump',
      at: { op: 15, find: 'window' },
      text:
        'With the overlay off, 5 pages aligned to 64 KiB go through the window loop, which asks for a hole of size + align − 1 = 0x14fff so that an aligned start surely fits. The hole starts at …c002000, the aligned candidate at …c010000.',
      claim: { kind: 'window', where: { candidate: '0xffffc9000c010000', fits: true } },
      look: ['tree', 'narration'],
    },
    {
      title: 'S5: a hole that is not free',
      trace: 's5',
      at: { op: 2, find: 'window' },
      text:
        'An area taken in the module area before the perf-mode switch is in the busy tree, but the switch seeded the occupied tree only inside the vmalloc window. The occupied tree offers that range as free; the busy-tree insert finds the overlap, warns (WARNING in alloc_vmap_area) and the allocation fails.',
      claim: { kind: 'window', where: { candidate: '0xffffffffa0000000', fits: true } },
      look: ['narration', 'bar'],
    },
  ],
};

export const LESSONS: readonly Lesson[] = [WALK, FREE_TREE, LAZY, NODES, MAPLE, RFC];
