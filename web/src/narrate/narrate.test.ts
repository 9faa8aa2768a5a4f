import { describe, expect, it } from 'vitest';
import type { FreeNode, StepEvent } from '../bridge';
import { LISTINGS } from './code';
import { narrate } from './narrate';

const node = (id: number, vaStart: bigint, vaEnd: bigint): FreeNode => ({
  id,
  vaStart,
  vaEnd,
  subtreeMaxSize: vaEnd - vaStart,
  black: true,
  parent: null,
  left: null,
  right: null,
  depth: 0,
});
const search: StepEvent = { kind: 'search_start', size: '0x2000', align: '0x1', vstart: '0x1000', vend: '0x100000', length: '0x2000' };
const ctx = { search, nodes: new Map([[3, node(3, 0x4000n, 0x8000n)], [5, node(5, 0x10000n, 0x20000n)]]) };

describe('narrate', () => {
  it('says the test a visit made and the branch the core reports', () => {
    const n = narrate(
      { kind: 'visit', id: 3, va_start: '0x4000', va_end: '0x8000', left_max: '0x3000', right_max: '0x0', vstart: '0x1000', branch: 'left' },
      ctx,
    );
    expect(n.text).toContain('left subtree max 0x3000 (12K) ≥ length 0x2000 (8K)');
    expect(n.text).toContain('vstart 0x1000 < va_start 0x4000 → go left');
    expect(n.fn).toBe('find_vmap_lowest_match');
    expect(LISTINGS[n.listing].lines.some((l) => l.id === n.line)).toBe(true);
    const dead = narrate({ kind: 'visit', id: 3, va_start: '0x4000', va_end: '0x8000', left_max: '0x0', right_max: '0x1000', vstart: '0x1000', branch: 'roll_back' }, ctx);
    expect(dead.text).toContain('left subtree max 0x0 < length');
    expect(dead.text).toContain('roll back');
  });

  it('names the stop of a propagation and the cases of the fix-ups', () => {
    const stop = narrate({ kind: 'propagate_stop', id: 5, value: '0x10000' }, ctx);
    expect(stop.text).toContain('stops here: value unchanged');
    expect(stop.fn).toBe('augment_tree_propagate_from');
    expect(stop.line).toBe('stop');
    const rot = narrate({ kind: 'rotate', phase: 'insert', case: 2, dir: 'left', old_top: 3, new_top: 5 }, ctx);
    expect(rot.fn).toBe('__rb_insert');
    expect(rot.phase).toBe('case 2');
    const erase = narrate({ kind: 'rotate', phase: 'erase_color', case: 4, dir: 'right', old_top: 3, new_top: 5 }, ctx);
    expect(erase.fn).toBe('__rb_erase_color');
    const rotated = narrate({ kind: 'augment_set', id: 5, old: '0x1000', new: '0x2000', cause: 'rotate', phase: 'erase_color', case: 1 }, ctx);
    expect(rotated.fn).toBe('__rb_erase_color');
    expect(rotated.text).toContain('free_vmap_area_rb_augment_cb_rotate, declared in mm/vmalloc.c');
    expect(rotated.listing).toBe('__rb_erase_color');
    const inserting = narrate({ kind: 'augment_set', id: 5, old: '0x1000', new: '0x2000', cause: 'rotate', phase: 'insert', case: 3 }, ctx);
    expect(inserting.listing).toBe('__rb_insert');
    expect(inserting.phase).toBe('case 3');
    // A reset to 0 names link_va because the event says so, whatever came before it.
    const reset = narrate({ kind: 'augment_set', id: 5, old: '0xffff', new: '0x0', cause: 'link_reset', phase: null, case: null }, ctx);
    expect(reset.listing).toBe('link_va');
    expect(reset.text).not.toContain('Rotat');
    // The trace's init line: said plainly, beside how the kernel sets up its free space at boot.
    const init = narrate({ kind: 'reset', start: '0x100000', end: '0x200000' }, ctx);
    expect([init.listing, init.fn, init.line, init.title]).toEqual(['vmalloc_init', 'vmalloc_init', 'one', 'Init']);
    expect(init.text).toContain('[0x100000, 0x200000)');
    expect(init.text).not.toMatch(/^Event /);
    const copy = narrate({ kind: 'augment_set', id: 5, old: '0x1000', new: '0x0', cause: 'copy', phase: null, case: null }, ctx);
    expect(copy.fn).toBe('unlink_va');
    expect(copy.text).toContain('free_vmap_area_rb_augment_cb_copy');
  });

  it('shows a merge survivor before and after, from the event', () => {
    const n = narrate({ kind: 'merge', merge: 'next', survivor: 3, removed: null, old_start: '0x103000', old_end: '0x104000', new_start: '0x101000', new_end: '0x104000' }, ctx);
    expect(n.text).toContain('block #3 [0x103000, 0x104000) grows down to [0x101000, 0x104000)');
    const p = narrate({ kind: 'merge', merge: 'prev', survivor: 3, removed: null, old_start: '0x4000', old_end: '0x8000', new_start: '0x4000', new_end: '0x9000' }, ctx);
    expect(p.text).toContain('block #3 [0x4000, 0x8000) grows up to [0x4000, 0x9000)');
  });

  it('gives fits a diagram and clips their new bounds', () => {
    const fit = narrate({ kind: 'fit', id: 5, va_start: '0x10000', va_end: '0x20000', nva: '0x14000', size: '0x1000', fit: 'NE' }, ctx);
    expect(fit.fn).toBe('classify_va_fit_type');
    expect(fit.fit).toEqual({ fit: 'NE', vaStart: 0x10000n, vaEnd: 0x20000n, nva: 0x14000n, size: 0x1000n });
    const clip = narrate(
      {
        kind: 'clip',
        id: 5,
        fit: 'NE',
        old_start: '0x10000',
        old_end: '0x20000',
        new_start: '0x15000',
        new_end: '0x20000',
        lva: { id: 9, va_start: '0x10000', va_end: '0x14000' },
      },
      ctx,
    );
    expect(clip.fn).toBe('adjust_va_to_fit_type');
    expect(clip.text).toContain('[0x15000, 0x20000)');
    expect(clip.text).toContain('#9 [0x10000, 0x14000)');
  });

  it('covers every event kind of core/src/events.rs with a function', () => {
    const kinds: StepEvent['kind'][] = [
      'search_start', 'visit', 'roll_back', 'search_none', 'out_of_range', 'fit', 'clip', 'allocated', 'alloc_failed', 'link', 'rotate',
      'recolor', 'erase', 'unlinked', 'propagate', 'propagate_stop', 'augment_set', 'merge_start', 'merge', 'add_block', 'busy_insert', 'busy_remove',
      'lazy_enqueue', 'purge_start', 'purge_area', 'purge_end', 'cache_reset', 'cache_use', 'walk_tree', 'walk_area', 'pool_hit',
      'pool_rotate', 'pool_miss', 'decay', 'pooled', 'pcpu_area',
    ];
    for (const kind of kinds) {
      const n = narrate({ kind, id: 3, survivor: 3, removed: 5, merge: 'both', branch: 'this', step: 'up', fit: 'LE', phase: 'insert', case: 1 }, ctx);
      expect(LISTINGS[n.listing], kind).toBeDefined();
      expect(n.text.length, kind).toBeGreaterThan(10);
      expect(n.kind).toBe(kind);
    }
  });
});
