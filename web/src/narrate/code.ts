// The kernel code the code panel shows: a short, faithful excerpt of each function the core's
// events come from (mm/vmalloc.c, lib/rbtree.c), with ids on the lines an event points at.
// Excerpts follow linux-5.2 (the default profile); later eras differ only in details noted
// in comments.

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

/** `id|text` rows; a row without `|` has no id. */
function listing(fn: string, file: string, rows: string): Listing {
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
start|retry:
     |  addr = __alloc_vmap_area(size, align, vstart, vend);
     |  if (unlikely(addr == vend))
     |    goto overflow;
     |  va->va_start = addr;
     |  va->va_end = addr + size;
 busy|  insert_vmap_area(va, &vmap_area_root, &vmap_area_list);
 done|  return va;
     |overflow:
purge|  if (!purged) { purge_vmap_area_lazy(); purged = 1; goto retry; }
 fail|  pr_warn("vmap allocation for size %lu failed", size);
     |  return ERR_PTR(-EBUSY);
`,
  ),
  __alloc_vmap_area: listing(
    '__alloc_vmap_area',
    VMALLOC,
    `
 length|  /* length = size + align - 1 (5.19+: size when align <= PAGE_SIZE) */
 search|  va = find_vmap_lowest_match(size, align, vstart);
   none|  if (unlikely(!va))
       |    return vend;
    nva|  nva = ALIGN(max(va->va_start, vstart), align);
  range|  if (nva + size > vend)
       |    return vend;   /* the search itself knows nothing of vend */
classify|  type = classify_va_fit_type(va, nva, size);
  adjust|  ret = adjust_va_to_fit_type(va, nva, size, type);
       |  return nva;
`,
  ),
  find_vmap_lowest_match: listing(
    'find_vmap_lowest_match',
    VMALLOC,
    `
      |  node = free_vmap_area_root.rb_node;
      |  length = size + align - 1;
      |  while (node) {
 visit|    va = rb_entry(node, struct vmap_area, rb_node);
  test|    if (get_subtree_max_size(node->rb_left) >= length &&
      |        vstart < va->va_start) {
  left|      node = node->rb_left;
      |    } else {
 within|      if (is_within_this_va(va, size, align, vstart))
  this|        return va;
 rtest|      if (get_subtree_max_size(node->rb_right) >= length) {
 right|        node = node->rb_right;
      |        continue;
      |      }
  roll|      while ((node = rb_parent(node))) {
    up|        va = rb_entry(node, struct vmap_area, rb_node);
 rb_this|        if (is_within_this_va(va, size, align, vstart))
      |          return va;
rb_test|        if (get_subtree_max_size(node->rb_right) >= length &&
      |            vstart <= va->va_start) {
rb_vstart|          vstart = va->va_start + 1;   /* 5.16+ */
rb_right|          node = node->rb_right;
      |          break;
      |        }
      |      }
      |    }
      |  }
  none|  return NULL;
`,
  ),
  classify_va_fit_type: listing(
    'classify_va_fit_type',
    VMALLOC,
    `
NOTHING|  if (nva < va->va_start || nva + size > va->va_end)
       |    return NOTHING_FIT;
       |  if (va->va_start == nva) {
     FL|    if (va->va_end == nva + size) return FL_FIT;
     LE|    type = LE_FIT;
       |  } else if (va->va_end == nva + size) {
     RE|    type = RE_FIT;
       |  } else {
     NE|    type = NE_FIT;
       |  }
`,
  ),
  adjust_va_to_fit_type: listing(
    'adjust_va_to_fit_type',
    VMALLOC,
    `
 FL|  if (type == FL_FIT) {          /* [va_start, va_end) is used whole */
   |    unlink_va(va, &free_vmap_area_root);
   |    kmem_cache_free(vmap_area_cachep, va);
 LE|  } else if (type == LE_FIT) {   /* the request sits at the left edge */
   |    va->va_start += size;
 RE|  } else if (type == RE_FIT) {   /* the request sits at the right edge */
   |    va->va_end = nva;
 NE|  } else if (type == NE_FIT) {   /* no edge: split in two */
   |    lva = kmem_cache_alloc(vmap_area_cachep, GFP_NOWAIT);
   |    lva->va_start = va->va_start;
   |    lva->va_end = nva;
   |    va->va_start = nva + size;
   |  }
prop|  if (type != FL_FIT) {
   |    augment_tree_propagate_from(va);
ins|    if (lva)   /* insert the left part, starting the descent at va */
   |      insert_vmap_area_augment(lva, &va->rb_node, ...);
   |  }
`,
  ),
  link_va: listing(
    'link_va',
    VMALLOC,
    `
    |  /* insert_vmap_area_augment: find_va_links(va, root, from) */
link|  rb_link_node(&va->rb_node, parent, link);   /* a red leaf */
 fix|  rb_insert_augmented(&va->rb_node, root, &free_vmap_area_rb_augment_cb);
zero|  va->subtree_max_size = 0;
    |  list_add(&va->list, head);
prop|  augment_tree_propagate_from(va);
`,
  ),
  __rb_insert: listing(
    '__rb_insert',
    RBTREE,
    `
    |  while (true) {
  c0|    if (!parent) { rb_set_parent_color(node, NULL, RB_BLACK); break; }
    |    if (rb_is_black(parent)) break;
    |    gparent = rb_red_parent(parent);
    |    tmp = gparent->rb_right;          /* the uncle (mirrored when parent is a right child) */
  c1|    if (tmp && rb_is_red(tmp)) {      /* Case 1: colour flips */
    |      rb_set_parent_color(tmp, gparent, RB_BLACK);
    |      rb_set_parent_color(parent, gparent, RB_BLACK);
    |      node = gparent; parent = rb_parent(node);
    |      rb_set_parent_color(node, parent, RB_RED);
    |      continue;
    |    }
  c2|    if (node == parent->rb_right) {   /* Case 2: rotate at parent */
    |      ... augment_rotate(parent, node);
    |      parent = node;
    |    }
  c3|    /* Case 3: rotate at gparent */
    |    __rb_rotate_set_parents(gparent, parent, root, RB_RED);
 aug|    augment_rotate(gparent, parent);
    |    break;
    |  }
`,
  ),
  __rb_erase_color: listing(
    '__rb_erase_color',
    RBTREE,
    `
    |  while (true) {
    |    sibling = parent->rb_right;       /* mirrored when the deficit is on the right */
  c1|    if (rb_is_red(sibling)) {         /* Case 1: left rotate at parent */
    |      ... __rb_rotate_set_parents(parent, sibling, root, RB_RED);
 aug|      augment_rotate(parent, sibling);
    |      sibling = tmp1;
    |    }
    |    tmp1 = sibling->rb_right;
    |    if (!tmp1 || rb_is_black(tmp1)) {
    |      tmp2 = sibling->rb_left;
  c2|      if (!tmp2 || rb_is_black(tmp2)) {   /* Case 2: sibling colour flip */
    |        rb_set_parent_color(sibling, parent, RB_RED);
    |        if (rb_is_red(parent)) rb_set_black(parent);
    |        else { node = parent; parent = rb_parent(node); if (parent) continue; }
    |        break;
    |      }
  c3|      /* Case 3: right rotate at sibling */
    |      ... augment_rotate(sibling, tmp2);
    |      sibling = tmp2;
    |    }
  c4|    /* Case 4: left rotate at parent + colour flips */
    |    ... __rb_rotate_set_parents(parent, sibling, root, RB_BLACK);
    |    augment_rotate(parent, sibling);
    |    break;
    |  }
`,
  ),
  unlink_va: listing(
    'unlink_va',
    VMALLOC,
    `
erase|  rb_erase_augmented(&va->rb_node, root, &free_vmap_area_rb_augment_cb);
  copy|  /* the successor takes n's place: augment_copy(n, s), then propagate */
   fix|  if (rebalance) __rb_erase_color(rebalance, root, augment_rotate);
      |  list_del(&va->list);
      |  RB_CLEAR_NODE(&va->rb_node);
`,
  ),
  augment_tree_propagate_from: listing(
    'augment_tree_propagate_from',
    VMALLOC,
    `
     |  node = &va->rb_node;
     |  while (node) {
     |    va = rb_entry(node, struct vmap_area, rb_node);
  new|    new_va_sub_max_size = compute_subtree_max_size(va);
     |    /* max(va_size(va), left max, right max) */
 stop|    if (va->subtree_max_size == new_va_sub_max_size)
     |      break;   /* unchanged: every ancestor is already right */
  set|    va->subtree_max_size = new_va_sub_max_size;
   up|    node = rb_parent(&va->rb_node);
     |  }
`,
  ),
  merge_or_add_vmap_area: listing(
    'merge_or_add_vmap_area',
    VMALLOC,
    `
 links|  link = find_va_links(va, root, NULL, &parent);
  next|  next = get_va_next_sibling(parent, link);
  mnext|  if (next != head && next->va_start == va->va_end) {
      |    next->va_start = va->va_start;   /* merge with the next block */
      |    augment_tree_propagate_from(next);
      |    kmem_cache_free(vmap_area_cachep, va);
      |    va = next; merged = true;
      |  }
 mprev|  if (next->list.prev != head && prev->va_end == va->va_start) {
      |    prev->va_end = va->va_end;       /* merge with the previous block */
      |    augment_tree_propagate_from(prev);
 erase|    if (merged) unlink_va(va, root);  /* both: next disappears */
      |    kmem_cache_free(vmap_area_cachep, va);
      |    return;
      |  }
   add|  if (!merged) {                     /* no neighbour: a node of its own */
      |    link_va(va, root, parent, link, head);
      |    augment_tree_propagate_from(va);
      |  }
`,
  ),
  insert_vmap_area: listing(
    'insert_vmap_area',
    VMALLOC,
    `
 links|  link = find_va_links(va, root, NULL, &parent);   /* the busy tree */
insert|  link_va(va, root, parent, link, head);           /* rb_insert_color, no augment */
`,
  ),
  unlink_busy: listing(
    'free_vmap_area_noflush',
    VMALLOC,
    `
remove|  unlink_va(va, &vmap_area_root);        /* 6.1+: leaves the busy tree now */
  lazy|  nr_lazy = atomic_long_add_return(va_size(va) >> PAGE_SHIFT, &vmap_lazy_nr);
  list|  llist_add(&va->purge_list, &vmap_purge_list);
 check|  if (unlikely(nr_lazy > lazy_max_pages()))
      |    try_purge_vmap_area_lazy();
`,
  ),
  __purge_vmap_area_lazy: listing(
    '__purge_vmap_area_lazy',
    VMALLOC,
    `
 start|  valist = llist_del_all(&vmap_purge_list);   /* every lazy area */
      |  flush_tlb_kernel_range(start, end);
      |  llist_for_each_entry_safe(va, n_va, valist, purge_list) {
  area|    merge_or_add_vmap_area(va, &free_vmap_area_root, &free_vmap_area_list);
      |  }
   end|  atomic_long_sub(nr, &vmap_lazy_nr);
`,
  ),
  node_alloc: listing(
    'node_alloc',
    VMALLOC,
    `
   pool|  vp = size_to_va_pool(vn, size);         /* this CPU's vmap node */
   miss|  if (!vp || list_empty(&vp->head)) return NULL;
   take|  va = list_first_entry(&vp->head, struct vmap_area, list);
 rotate|  if (!IS_ALIGNED(va->va_start, align)) { list_move_tail(...); va = NULL; }
    hit|  if (va && va->va_start >= vstart && va->va_end <= vend) return va;
`,
  ),
  decay_va_pool_node: listing(
    'decay_va_pool_node',
    VMALLOC,
    `
  decay|  n_decay = vp->len >> 2;   /* full decay: all of them */
      |  list_for_each_entry_safe(va, nva, &tmp_list, list) {
      |    list_del_init(&va->list);
      |    merge_or_add_vmap_area(va, &decay_root, &decay_list);
      |  }
 pooled|  /* purge: a lazy area of a pool size goes back to its node's pool */
`,
  ),
  alloc_vmap_area_51: listing(
    'alloc_vmap_area (5.1)',
    VMALLOC,
    `
 reset|  if (!free_vmap_cache || size < cached_hole_size || vstart < cached_vstart ||
      |      align < cached_align) { cached_hole_size = 0; free_vmap_cache = NULL; }
   use|  if (free_vmap_cache) { first = rb_entry(free_vmap_cache, ...); addr = ALIGN(first->va_end, align); }
  tree|  else { /* descend the busy tree to the first area ending above addr */ }
  walk|  while (addr + size > first->va_start && addr + size <= vend) {
      |    if (addr + cached_hole_size < first->va_start) cached_hole_size = first->va_start - addr;
      |    addr = ALIGN(first->va_end, align);
      |    first = list_next_entry(first, list);
      |  }
`,
  ),
  pcpu_get_vm_areas: listing(
    'pcpu_get_vm_areas',
    VMALLOC,
    `
    |  /* top-down: congruent areas for every CPU unit, from the end of the window */
area|  va = pvm_find_va_enclose_addr(vmalloc_end); ... vas[area]->va_start = start;
`,
  ),
};
