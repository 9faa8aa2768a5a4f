// What the code panel shows: for each kernel function the core's events come from
// (mm/vmalloc.c, lib/rbtree.c), our own step-by-step pseudocode of what it does, with ids on the
// lines an event points at. It is written from the specification, in our words: no kernel
// source is quoted (the kernel is GPL). Steps follow linux-5.2, the default profile; where
// later eras differ, the line says so.

export interface CodeLine {
  /** The id an event's narration names (`''` for lines no event points at). */
  id: string;
  text: string;
}

export interface Listing {
  /** The kernel function, as the narration names it. */
  fn: string;
  file: string;
  lines: CodeLine[];
}

/** A listing from `id|text` rows; a row without `|` has no id. */
export function listing(fn: string, file: string, rows: string): Listing {
  const lines = rows
    .replace(/^\n/, '')
    .replace(/\n\s*$/, '')
    .split('\n')
    .map((row) => {
      const bar = row.indexOf('|');
      return bar < 0 ? { id: '', text: row } : { id: row.slice(0, bar).trim(), text: row.slice(bar + 1) };
    });
  return { fn, file, lines };
}

const VMALLOC = 'mm/vmalloc.c';
const RBTREE = 'lib/rbtree.c';

export const LISTINGS: Record<string, Listing> = {
  alloc_vmap_area: listing(
    'alloc_vmap_area',
    VMALLOC,
    `
start|attempt:
     |  addr := search the free tree for size/align inside [vstart, vend)
     |  no room? -> overflow
     |  the new area covers [addr, addr + size)
 busy|  link the new area into the busy tree, ordered by address
 done|  give the area to the caller
     |overflow:
purge|  first failure: give every lazy area back (purge), then attempt again
 fail|  still no room: warn that the allocation failed, return -EBUSY
`,
  ),
  __alloc_vmap_area: listing(
    '__alloc_vmap_area',
    VMALLOC,
    `
 length|  length := size + align - 1   (5.19+: just size when align <= one page)
 search|  block := lowest free block that can hold the request (tree search)
   none|  none found -> fail
    nva|  nva := the larger of block start and vstart, rounded up to align
  range|  nva + size beyond vend -> fail   (the search never looked at vend)
classify|  fit := how [nva, nva + size) sits inside the block
  adjust|  cut the request out of the block according to fit
       |  return nva
`,
  ),
  find_vmap_lowest_match: listing(
    'find_vmap_lowest_match',
    VMALLOC,
    `
      |  n := root of the free tree
      |  repeat while n exists:
 visit|    look at block n
  test|    left subtree's max size >= length, and vstart below n's start?
  left|      yes: continue in the left subtree
within|    request fits inside n itself (after aligning)?
  this|      yes: n is the answer
 rtest|    right subtree's max size >= length?
 right|      yes: continue in the right subtree
  roll|    otherwise climb back towards the root:
    up|      n := parent of n (none left: no answer)
rb_this|      request fits inside this ancestor? it is the answer
rb_test|      its right subtree's max >= length, and vstart not above its start?
rb_vstart|        (5.16+) move vstart just past this ancestor's start
rb_right|        then go down into that right subtree
  none|  nothing qualifies: no answer
`,
  ),
  classify_va_fit_type: listing(
    'classify_va_fit_type',
    VMALLOC,
    `
NOTHING|  request starts before the block or ends after it: no fit (NOTHING_FIT)
     FL|  same start and same end: full fit (FL_FIT), the whole block goes
     LE|  same start only: left-edge fit (LE_FIT)
     RE|  same end only: right-edge fit (RE_FIT)
     NE|  neither edge: no-edge fit (NE_FIT), the block will split in two
`,
  ),
  adjust_va_to_fit_type: listing(
    'adjust_va_to_fit_type',
    VMALLOC,
    `
 FL|  full fit: erase the block from the tree and the list, free it
 LE|  left edge: move the block's start up by size
 RE|  right edge: move the block's end down to nva
 NE|  no edge: a new block takes [old start, nva); this one keeps [nva + size, end)
prop|  unless full: recompute subtree maxima upwards from the block
ins|  no edge: insert the new left block, descending from this one, then recompute
`,
  ),
  link_va: listing(
    'link_va',
    VMALLOC,
    `
    |  find the empty child slot where the range belongs (by address)
link|  hang the new node there, coloured red
 fix|  restore the red-black rules (rotations carry the maxima along)
zero|  reset the new node's subtree max to 0
    |  thread it into the address-sorted list next to its neighbour
prop|  recompute subtree maxima upwards from the new node
`,
  ),
  vmalloc_init: listing(
    'vmalloc_init',
    VMALLOC,
    `
   |  at boot: register the areas mapped before the allocator existed (vmlist)
one|  5.2+: vmap_init_free_space turns each gap before, between and after them into a free block
   |  (a trace's init line starts over this way, nothing mapped: the whole range is free)
`,
  ),
  __rb_insert: listing(
    '__rb_insert',
    RBTREE,
    `
    |  loop, with x the red node and p its parent:
  c0|    x is the root: paint it black, done;   p is black: done
  c1|    case 1, the uncle is red: paint p and the uncle black, the grandparent red; x := grandparent
  c2|    case 2, x is the inner grandchild: rotate at p so that x takes p's place
  c3|    case 3: rotate at the grandparent; p takes its place and colour, the grandparent turns red
 aug|    each rotation hands the subtree max to the new top and recomputes the old top
`,
  ),
  __rb_erase_color: listing(
    '__rb_erase_color',
    RBTREE,
    `
    |  loop: p has one black node too few on the side of x; s is x's sibling
  c1|    case 1, s is red: rotate at p so that s becomes the top, p turns red
 aug|    each rotation hands the subtree max to the new top and recomputes the old top
  c2|    case 2, s has no red child: paint s red; p red -> paint it black, done; else climb
  c3|    case 3, only s's inner child is red: rotate at s
  c4|    case 4: rotate at p, s takes p's colour, p and s's outer child turn black, done
`,
  ),
  unlink_va: listing(
    'unlink_va',
    VMALLOC,
    `
erase|  take the node out of the tree: a child or the in-order successor takes its place
 copy|  the successor inherits the node's subtree max; maxima are recomputed upwards
  fix|  a black node went missing: rebalance (__rb_erase_color)
     |  remove it from the address-sorted list
`,
  ),
  augment_tree_propagate_from: listing(
    'augment_tree_propagate_from',
    VMALLOC,
    `
     |  from the given node towards the root:
  new|    m := the largest of its own size and its children's subtree maxima
 stop|    m equals the stored value? stop: every ancestor is already right
  set|    otherwise store m
   up|    and move to the parent
`,
  ),
  merge_or_add_vmap_area: listing(
    'merge_or_add_vmap_area',
    VMALLOC,
    `
 links|  find where the freed range would hang in the tree (it must not overlap)
  next|  its neighbours in the list: the blocks just after and just before
 mnext|  touches the next block? that block grows down over it (it survives)
 mprev|  touches the previous block? that block grows up over it (it survives)
 erase|  touched both: the next block is erased, the previous one spans all three
   add|  touched neither: link it as a node of its own
      |  recompute subtree maxima from the surviving node (5.2: after each step)
`,
  ),
  insert_vmap_area: listing(
    'insert_vmap_area',
    VMALLOC,
    `
 links|  find the slot for the area in the busy tree, by address
insert|  hang it there and rebalance (a plain red-black tree, no maxima)
`,
  ),
  free_vmap_area: listing(
    'free_vmap_area',
    VMALLOC,
    `
remove|  take the area out of the busy tree and its list
      |  its range is free space now (5.2+: back into the free tree, merging with free neighbours)
`,
  ),
  unlink_busy: listing(
    'free_vmap_area_noflush',
    VMALLOC,
    `
remove|  (6.1+) the area leaves the busy tree now; 5.2 keeps it there, marked lazy
  lazy|  lazy page count += the area's pages
  list|  queue the area for the next purge (5.2: newest first; 6.1: merged by address)
 check|  lazy pages above lazy_max_pages()? purge now
`,
  ),
  __purge_vmap_area_lazy: listing(
    '__purge_vmap_area_lazy',
    VMALLOC,
    `
start|  take every queued lazy area at once
     |  flush the TLB over the range they span
 area|  give each back to the free tree, merging with its neighbours (order: by era)
  end|  lazy page count -= the pages returned
`,
  ),
  node_alloc: listing(
    'node_alloc',
    VMALLOC,
    `
  pool|  (6.9) the current CPU's node, and its pool for exactly this many pages
  miss|  pool empty: fall back to the free tree
  take|  look at the pool's first entry only
rotate|  its start is not aligned: move it to the end of the pool, fall back to the tree
   hit|  otherwise it is the answer: the free tree is not touched
`,
  ),
  decay_va_pool_node: listing(
    'decay_va_pool_node',
    VMALLOC,
    `
 decay|  each pool gives back its first quarter (6.9: all of a pool under 4; all on reclaim and when the shrinker runs)
      |  those blocks merge with each other, then go back to the free tree in address order
`,
  ),
  purge_vmap_node: listing(
    'purge_vmap_node',
    VMALLOC,
    `
      |  (6.9) for each area on this node's purge list, in address order: count its pages off
pooled|  freed with a valid node id and not in a full decay: node_pool_add_va puts it at the head of that node's pool for its size (at most 256 pages)
      |  otherwise it joins a local list
      |  the pages are taken off vmap_lazy_nr; reclaim_list_global merges the local list into the free tree
`,
  ),
  alloc_vmap_area_51: listing(
    'alloc_vmap_area (5.1)',
    VMALLOC,
    `
reset|  drop the cached start point when the request is smaller than the noted hole, or starts lower, or aligns less
  use|  cached start point kept: the candidate is just past the cached area
 tree|  otherwise descend the busy tree to the first area ending at or above vstart
 walk|  step over busy areas while the candidate overlaps the next one, noting the largest hole seen
`,
  ),
  pcpu_get_vm_areas: listing(
    'pcpu_get_vm_areas',
    VMALLOC,
    `
    |  place congruent areas (one per CPU group) as high as possible below the window's end
area|  find the block enclosing each area's start and cut the area out of it
`,
  ),
};
