// The code panel's listings for the maple tree (lib/maple_tree.c, Linux v6.16): for each kernel
// function the maple events come from, our own step-by-step pseudocode, with ids on the lines an
// event points at. Written from the specification and the events the core reports, in our own
// words: no kernel source is quoted (the kernel is GPL). They are added to the page's table of
// listings (narrate/code.ts `LISTINGS`) when the maple view loads.
import { listing as codeListing, LISTINGS, type Listing } from '../narrate/code';

const MAPLE = 'lib/maple_tree.c';

const listing = (fn: string, rows: string): Listing => codeListing(fn, MAPLE, rows);

export const MAPLE_LISTINGS: Record<string, Listing> = {
  mas_empty_area: listing(
    'mas_empty_area',
    `
  check|  size 0, min > max, or the window [min, max] shorter than size -> -EINVAL
   walk|  start at the root with index := min, last := max
       |  repeat mas_anode_descend on the node; when it gives up on a node, mas_skip_node
  found|  found: the hole starts at the larger of index and the slot's first index
       |         last := start + size - 1
   busy|  ran past the window or out of the root's slots -> -EBUSY
`,
  ),
  mas_anode_descend: listing(
    'mas_anode_descend',
    `
  visit|  node entered with its limits [min, max]; start at the current slot
   loop|  for each used slot from there:
       |    slots that end before index cannot help: skip them
   gapa|    arange node: the slot's candidate is gap[slot], the largest NULL run below it
   gapl|    leaf: a NULL slot's candidate is its range clipped to the window [index, last]
   fits|    candidate >= size:
   leaf|      leaf -> this slot holds the hole: done
descend|      internal -> descend into the child of this slot, start again at its slot 0
   next|    the next slot starts after this pivot
   past|    pivot >= last: the window is behind us -> -EBUSY
    end|  out of slots: give up on this node (the caller skips it)
`,
  ),
  mas_skip_node: listing(
    'mas_skip_node',
    `
     up|  while the current slot is the node's last one:
   root|    at the root: nothing is left -> -EBUSY
 ascend|    otherwise climb to the parent, to the slot we came from
   skip|  move to the next slot of that node and search on from there
`,
  ),
  mas_store: listing(
    'mas_store_gfp',
    `
  begin|  write [index, last] := entry (NULL for an erase)
   walk|  walk down to the leaf that holds index, noting the slots the range covers
   type|  mas_wr_store_type decides how the node must change
  apply|  do it: in place, a new node, a split, a rebalance or a spanning store
    gap|  mas_update_gap: tell the ancestors the node's largest NULL run
   done|  the tree is consistent again
`,
  ),
  mas_wr_store_type: listing(
    'mas_wr_store_type',
    `
   root|  an empty tree or a single entry at the root -> new root / store at root
   span|  the range reaches past this node's max -> spanning store
  exact|  the range is exactly one existing slot -> exact fit: replace its content
       |  count the slots the node will hold after the write (new end)
 append|  the new range goes after the node's last data and there is room -> append
   slot|  at most one slot is rewritten or added in place -> slot store
  split|  new end beyond the node's slots -> split store
 rebal|  new end below the node's minimum fill (not the root) -> rebalance
   node|  otherwise -> node store: build the node anew
`,
  ),
  mas_split: listing(
    'mas_split',
    `
    big|  copy the node and the new range into a big node (up to 2 nodes' worth of slots)
   push|  first try to push data into a left or right sibling that has room
    cut|  mab_calc_split: choose the cut slot so both halves are full enough
       |    (never leave a NULL range at the cut's end; a 3-way split gets a middle)
    new|  write the halves into new nodes; add both to the parent's big node
     up|  the parent overflows too -> split it on the next level, up to a new root
replace|  swap the new nodes into the tree, then update the gaps
`,
  ),
  mas_rebalance: listing(
    'mas_rebalance',
    `
  under|  the node holds fewer slots than its minimum fill
    sib|  take its right sibling (or its left one, at the end of the parent)
    mix|  combine both into a big node and write it back as one or two nodes
     up|  the parent may underflow in turn: continue upwards, shrinking the tree at the root
`,
  ),
  mas_wr_spanning_store: listing(
    'mas_wr_spanning_store',
    `
   span|  the write covers slots of more than one node
   ends|  walk to the left end and to the right end of the range
    mix|  build the left part, the new range and the right part into a big node
     up|  rebuild every level the range crosses (mas_spanning_rebalance), up to the common ancestor
`,
  ),
  mas_update_gap: listing(
    'mas_update_gap',
    `
    max|  the node's largest gap: a leaf's largest NULL run, an arange node's gap[meta.gap]
   same|  the parent's gap[slot] already holds it -> stop
  write|  parent's gap[slot] := the new value
   meta|  the parent's largest gap is unchanged (meta.gap elsewhere and larger, or equal) -> stop
   root|  the parent is the root -> stop
  climb|  otherwise the parent's largest gap changed: repeat one level up
`,
  ),
};

/** Add the maple listings to the page's table (idempotent). */
export function registerMapleListings(): void {
  Object.assign(LISTINGS, MAPLE_LISTINGS);
}
