//! The Linux red-black tree (`lib/rbtree.c`), index-based, with augment callbacks.
//!
//! The insert fix-up and the erase cases follow the kernel's case numbering, so that the same
//! sequence of inserts and erases gives the same shape and the same colours. Rotations call
//! the augment `rotate` callback exactly where the kernel does; erase calls `copy` and
//! `propagate` like `__rb_erase_augmented`.
//!
//! Two harmless extra writes keep the tree walkable from the root between steps (so an
//! observer can draw it): insert case 2 also links the rotated node under the grandparent,
//! and erase case 3 also sets the two parent pointers the kernel leaves to case 4. Both are
//! overwritten by the following case exactly as in the kernel.

use crate::addr::{Addr, Hex};
use crate::area::{Arena, VaTree, NIL, RB_BLACK};
use crate::events::{touch_node, AugmentCause, Color, Dir, Event, IndexView, Observer, RbPhase};

/// The three augment callbacks of `struct rb_augment_callbacks`.
pub(crate) trait Augment {
    /// False for plain trees: no callbacks, and no events are reported for them.
    const AUGMENTED: bool;
    /// Recompute from `n` upwards, stopping at `stop` or where nothing changes.
    fn propagate<O: Observer>(a: &mut Arena, root: u32, n: u32, stop: u32, obs: &mut O);
    fn copy<O: Observer>(a: &mut Arena, root: u32, old: u32, new: u32, obs: &mut O);
    /// Called after the rotation's pointers moved (`phase`/`case`: which rotation, for events).
    fn rotate<O: Observer>(a: &mut Arena, root: u32, old: u32, new: u32, at: (RbPhase, u8), obs: &mut O);
}

/// `rb_insert_color` / `rb_erase`: no augmentation (busy, purge, lazy and decay trees).
pub(crate) struct Plain;

impl Augment for Plain {
    const AUGMENTED: bool = false;
    #[inline(always)]
    fn propagate<O: Observer>(_: &mut Arena, _: u32, _: u32, _: u32, _: &mut O) {}
    #[inline(always)]
    fn copy<O: Observer>(_: &mut Arena, _: u32, _: u32, _: u32, _: &mut O) {}
    #[inline(always)]
    fn rotate<O: Observer>(_: &mut Arena, _: u32, _: u32, _: u32, _: (RbPhase, u8), _: &mut O) {}
}

/// The free tree's callbacks: `subtree_max_size` = max of `va_size` over the subtree.
pub(crate) struct SubtreeMax;

/// `compute_subtree_max_size`: max3(own size, left max, right max).
#[inline(always)]
pub(crate) fn compute_subtree_max_size(a: &Arena, n: u32) -> u64 {
    let v = a.get(n);
    let s = v.size();
    let l = a.smax(v.left);
    let r = a.smax(v.right);
    s.max(l).max(r)
}

impl Augment for SubtreeMax {
    const AUGMENTED: bool = true;

    #[inline(always)]
    fn propagate<O: Observer>(a: &mut Arena, root: u32, mut n: u32, stop: u32, obs: &mut O) {
        while n != stop {
            let m = compute_subtree_max_size(a, n);
            let old = a.get(n).subtree_max_size();
            if !propagate_step(a, root, n, old, m, obs) {
                return;
            }
            n = a.get(n).parent();
        }
    }

    #[inline]
    fn copy<O: Observer>(a: &mut Arena, root: u32, old: u32, new: u32, obs: &mut O) {
        let v = a.get(old).subtree_max_size();
        set_augment(a, root, new, v, (AugmentCause::Copy, None), obs);
    }

    /// Like the kernel's `RB_DECLARE_CALLBACKS_MAX` rotate: `new` takes `old`'s value, then
    /// `old` (now `new`'s child) is recomputed from its new children.
    #[inline]
    fn rotate<O: Observer>(a: &mut Arena, root: u32, old: u32, new: u32, at: (RbPhase, u8), obs: &mut O) {
        let v = a.get(old).subtree_max_size();
        set_augment(a, root, new, v, (AugmentCause::Rotate, Some(at)), obs);
        let m = compute_subtree_max_size(a, old);
        set_augment(a, root, old, m, (AugmentCause::Rotate, Some(at)), obs);
    }
}

impl SubtreeMax {
    /// [`Augment::propagate`] from `n` up to the root after one input of `n`'s value moved, in
    /// a tree whose values were all right before: the same values, written to the same nodes,
    /// with the same stop (and so the same events), but mostly without reading the children.
    /// A node's value is the max of its size and its children's values, so when one of those
    /// inputs moves from `was` to `now`:
    ///
    /// ```text
    ///   grew   (now >= was):          new = max(old, now)        (nothing else can win)
    ///   shrank (now < was), old > was: new = old                  (the max came from elsewhere)
    ///   shrank, old == was:            new = max3(size, left, right), read as the kernel does
    /// ```
    ///
    /// Going up, the input that moved is the child's value (`was` = its old value, `now` =
    /// its new one). A descent leaves the nodes on its path in the cache, not their other
    /// children: those are the loads this saves. A merge only grows a block and a clip only
    /// shrinks one, so each has its own loop, with one rule and no test of which applies.
    ///
    /// Functions of their own in the page's first-screen wasm: inlined at their three sites for
    /// every observer type, they added 970 B to its first open, over its 250 KB budget
    /// (`e2e/weight.spec.ts`). Inlined in the workbench and benchmark builds (the core's
    /// `inline-search` feature), as natively.
    ///
    /// This one: the block `n` grew to `now` (a merge).
    #[cfg_attr(inline_search, inline(always))]
    #[cfg_attr(not(inline_search), inline(never))]
    pub(crate) fn propagate_grown<O: Observer>(a: &mut Arena, root: u32, mut n: u32, mut now: u64, obs: &mut O) {
        while n != NIL {
            let old = a.get(n).subtree_max_size();
            let m = old.max(now);
            debug_assert_eq!(m, compute_subtree_max_size(a, n), "propagate_grown: the shortcut disagrees");
            if !propagate_step(a, root, n, old, m, obs) {
                return;
            }
            now = m;
            n = a.get(n).parent();
        }
    }

    /// [`SubtreeMax::propagate_grown`]'s other half: the block `n` shrank from `was` (a clip).
    #[cfg_attr(inline_search, inline(always))]
    #[cfg_attr(not(inline_search), inline(never))]
    pub(crate) fn propagate_shrunk<O: Observer>(a: &mut Arena, root: u32, mut n: u32, mut was: u64, obs: &mut O) {
        while n != NIL {
            let old = a.get(n).subtree_max_size();
            let m = if old > was { old } else { compute_subtree_max_size(a, n) };
            debug_assert_eq!(m, compute_subtree_max_size(a, n), "propagate_shrunk: the shortcut disagrees");
            if !propagate_step(a, root, n, old, m, obs) {
                return;
            }
            was = old;
            n = a.get(n).parent();
        }
    }
}

/// One step of a propagation: `n`'s value, `old`, becomes `m` (reported); `false`, after
/// reporting the stop, when it is already `m`.
#[inline(always)]
fn propagate_step<O: Observer>(a: &mut Arena, root: u32, n: u32, old: u64, m: u64, obs: &mut O) -> bool {
    if old == m {
        if O::ON {
            let id = a.get(n).id;
            obs.event(Event::PropagateStop { id, value: Addr(m) }, IndexView::free_tree(a, root));
        }
        return false;
    }
    a.at(n).set_subtree_max_size(m);
    if O::ON {
        let id = a.get(n).id;
        obs.event(Event::Propagate { id, old: Addr(old), new: Addr(m) }, IndexView::free_tree(a, root));
    }
    true
}

/// Write an augmented value; report it (with its cause) when it changed.
#[inline(always)]
pub(crate) fn set_augment<O: Observer>(
    a: &mut Arena,
    root: u32,
    n: u32,
    v: u64,
    why: (AugmentCause, Option<(RbPhase, u8)>),
    obs: &mut O,
) {
    let old = a.get(n).subtree_max_size();
    a.at(n).set_subtree_max_size(v);
    if O::ON && old != v {
        let id = a.get(n).id;
        let (cause, at) = why;
        let ev = Event::AugmentSet {
            id,
            old: Addr(old),
            new: Addr(v),
            cause,
            phase: at.map(|x| x.0),
            case: at.map(|x| x.1),
        };
        obs.event(ev, IndexView::free_tree(a, root));
    }
}

#[inline(always)]
fn is_red(a: &Arena, n: u32) -> bool {
    n != NIL && !a.get(n).is_black()
}

/// `rb_set_black`.
#[inline(always)]
fn set_black<O: Observer>(a: &mut Arena, n: u32, obs: &mut O) {
    a.at(n).set_black();
    touch_node(obs, n);
}

/// `rb_set_parent_color`: one write of the parent word, colour in its bit 0.
#[inline(always)]
fn set_parent_color<O: Observer>(a: &mut Arena, n: u32, parent: u32, black: bool, obs: &mut O) {
    a.at(n).set_parent_color(parent, black);
    touch_node(obs, n);
}

/// `__rb_change_child`: in `parent` (or at the root), replace `old` by `new`.
#[inline(always)]
fn change_child(a: &mut Arena, t: &mut VaTree, old: u32, new: u32, parent: u32) {
    if parent == NIL {
        t.root = new;
    } else if a.get(parent).left == old {
        a.at(parent).left = new;
    } else {
        a.at(parent).right = new;
    }
}

/// `__rb_rotate_set_parents`: `new` takes `old`'s parent and colour; `old` hangs under `new`.
#[inline(always)]
fn rotate_set_parents<O: Observer>(a: &mut Arena, t: &mut VaTree, old: u32, new: u32, black: bool, obs: &mut O) {
    let pc = a.get(old).parent_color();
    a.at(new).set_parent_color_word(pc);
    touch_node(obs, new);
    let parent = pc & !RB_BLACK;
    set_parent_color(a, old, new, black, obs);
    change_child(a, t, old, new, parent);
}

macro_rules! emit {
    ($obs:expr, $a:expr, $t:expr, $ev:expr) => {
        if O::ON && A::AUGMENTED {
            let ev = $ev;
            $obs.event(ev, IndexView::free_tree($a, $t.root));
        }
    };
}

fn color_of(black: bool) -> Color {
    if black {
        Color::Black
    } else {
        Color::Red
    }
}

/// `rb_link_node`: hang `n` as a red leaf at `parent`'s `left`/`right` link (or as the root).
#[inline(always)]
pub(crate) fn link_node(a: &mut Arena, t: &mut VaTree, n: u32, parent: u32, left: bool) {
    {
        let v = a.at(n);
        v.set_parent_color(parent, false);
        v.left = NIL;
        v.right = NIL;
    }
    if parent == NIL {
        t.root = n;
    } else if left {
        a.at(parent).left = n;
    } else {
        a.at(parent).right = n;
    }
}

/// `__rb_insert`: the fix-up after linking the red leaf `node`.
#[inline(always)]
pub(crate) fn insert_color<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, mut node: u32, obs: &mut O) {
    let mut parent = a.get(node).parent();
    loop {
        if parent == NIL {
            // The inserted node (or a case-1 grandparent) is the root: paint it black.
            set_parent_color(a, node, NIL, true, obs);
            emit!(
                obs,
                a,
                t,
                Event::Recolor { phase: RbPhase::Insert, case: 0, id: a.get(node).id, color: Color::Black }
            );
            break;
        }
        if a.get(parent).is_black() {
            break;
        }
        let gparent = a.get(parent).parent();
        let mut tmp = a.get(gparent).right;
        if parent != tmp {
            // parent == gparent.left
            if is_red(a, tmp) {
                // Case 1: uncle red -> flip colours and move up.
                //
                //       G            g
                //      / \          / \
                //     p   u  -->   P   U
                //    /            /
                //   n            n
                // Each recolour is reported once written, so a view of each step shows it alone.
                set_parent_color(a, tmp, gparent, true, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(tmp).id, color: Color::Black }
                );
                set_parent_color(a, parent, gparent, true, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(parent).id, color: Color::Black }
                );
                node = gparent;
                parent = a.get(node).parent();
                set_parent_color(a, node, parent, false, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(node).id, color: Color::Red }
                );
                continue;
            }
            tmp = a.get(parent).right;
            if node == tmp {
                // Case 2: node is the right child -> left rotate at parent.
                //
                //      G             G
                //     / \           / \
                //    p   U  -->    n   U
                //     \           /
                //      n         p
                tmp = a.get(node).left;
                a.at(parent).right = tmp;
                a.at(node).left = parent;
                if tmp != NIL {
                    set_parent_color(a, tmp, parent, true, obs);
                }
                set_parent_color(a, parent, node, false, obs);
                // Extra (see module doc): keep G -> n walkable until case 3.
                a.at(node).set_parent(gparent);
                touch_node(obs, node);
                a.at(gparent).left = node;
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::Insert,
                        case: 2,
                        dir: Dir::Left,
                        old_top: a.get(parent).id,
                        new_top: a.get(node).id
                    }
                );
                A::rotate(a, t.root, parent, node, (RbPhase::Insert, 2), obs);
                parent = node;
                tmp = a.get(node).right;
            }
            // Case 3: node is the left child -> right rotate at gparent.
            //
            //        G           P
            //       / \         / \
            //      p   U  -->  n   g
            //     /                 \
            //    n                   U
            a.at(gparent).left = tmp;
            a.at(parent).right = gparent;
            if tmp != NIL {
                set_parent_color(a, tmp, gparent, true, obs);
            }
            rotate_set_parents(a, t, gparent, parent, false, obs);
            emit!(
                obs,
                a,
                t,
                Event::Rotate {
                    phase: RbPhase::Insert,
                    case: 3,
                    dir: Dir::Right,
                    old_top: a.get(gparent).id,
                    new_top: a.get(parent).id
                }
            );
            A::rotate(a, t.root, gparent, parent, (RbPhase::Insert, 3), obs);
            break;
        } else {
            // parent == gparent.right: the mirror image.
            tmp = a.get(gparent).left;
            if is_red(a, tmp) {
                // Each recolour is reported once written, so a view of each step shows it alone.
                set_parent_color(a, tmp, gparent, true, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(tmp).id, color: Color::Black }
                );
                set_parent_color(a, parent, gparent, true, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(parent).id, color: Color::Black }
                );
                node = gparent;
                parent = a.get(node).parent();
                set_parent_color(a, node, parent, false, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Recolor { phase: RbPhase::Insert, case: 1, id: a.get(node).id, color: Color::Red }
                );
                continue;
            }
            tmp = a.get(parent).left;
            if node == tmp {
                // Case 2: right rotate at parent.
                tmp = a.get(node).right;
                a.at(parent).left = tmp;
                a.at(node).right = parent;
                if tmp != NIL {
                    set_parent_color(a, tmp, parent, true, obs);
                }
                set_parent_color(a, parent, node, false, obs);
                a.at(node).set_parent(gparent);
                touch_node(obs, node);
                a.at(gparent).right = node;
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::Insert,
                        case: 2,
                        dir: Dir::Right,
                        old_top: a.get(parent).id,
                        new_top: a.get(node).id
                    }
                );
                A::rotate(a, t.root, parent, node, (RbPhase::Insert, 2), obs);
                parent = node;
                tmp = a.get(node).left;
            }
            // Case 3: left rotate at gparent.
            a.at(gparent).right = tmp;
            a.at(parent).left = gparent;
            if tmp != NIL {
                set_parent_color(a, tmp, gparent, true, obs);
            }
            rotate_set_parents(a, t, gparent, parent, false, obs);
            emit!(
                obs,
                a,
                t,
                Event::Rotate {
                    phase: RbPhase::Insert,
                    case: 3,
                    dir: Dir::Left,
                    old_top: a.get(gparent).id,
                    new_top: a.get(parent).id
                }
            );
            A::rotate(a, t.root, gparent, parent, (RbPhase::Insert, 3), obs);
            break;
        }
    }
}

/// `__rb_erase_augmented` followed by `__rb_erase_color` when needed.
///
/// Natively it is inlined into its caller, as the kernel's `rb_erase_augmented` is into
/// `alloc_vmap_area`: an exact fit erases a free block and every free a busy area, so a call
/// there runs about once per operation. In wasm it is inlined only with the core's
/// `inline-search` feature (the workbench and benchmark builds: 7 % fewer V8 instructions on
/// long_busy_s43, `scripts/wasm-ir.sh`); the page's first-screen build keeps the call.
/// (Inlining pays only while each era's replay loop is a function of its own: merged into one
/// function by wasm-opt, the loops were compiled worse by V8 the larger they grew.)
#[inline(always)]
pub(crate) fn erase<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, node: u32, obs: &mut O) {
    if cfg!(inline_search) {
        erase_inline::<A, O>(a, t, node, obs)
    } else {
        erase_call::<A, O>(a, t, node, obs)
    }
}

#[inline(never)]
fn erase_call<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, node: u32, obs: &mut O) {
    erase_inline::<A, O>(a, t, node, obs)
}

#[inline(always)]
fn erase_inline<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, node: u32, obs: &mut O) {
    let child = a.get(node).right;
    let mut tmp = a.get(node).left;
    let rebalance;
    let propagate_from;
    let case: &'static str;
    let mut moved = NIL;

    if tmp == NIL {
        // Case 1a: at most a right child, which takes node's place (and colour).
        let parent = a.get(node).parent();
        let node_black = a.get(node).is_black();
        change_child(a, t, node, child, parent);
        if child != NIL {
            set_parent_color(a, child, parent, node_black, obs);
            rebalance = NIL;
        } else {
            rebalance = if node_black { parent } else { NIL };
        }
        propagate_from = parent;
        case = "1a";
    } else if child == NIL {
        // Case 1b: only a left child, which is red: it takes node's place and colour.
        let parent = a.get(node).parent();
        let node_black = a.get(node).is_black();
        set_parent_color(a, tmp, parent, node_black, obs);
        change_child(a, t, node, tmp, parent);
        rebalance = NIL;
        propagate_from = parent;
        case = "1b";
    } else {
        let mut successor = child;
        let parent;
        let child2;
        tmp = a.get(child).left;
        if tmp == NIL {
            // Case 2: the successor is node's right child.
            //
            //     (n)          (s)
            //     / \          / \
            //   (x) (s)  ->  (x) (c)
            //         \
            //         (c)
            parent = successor;
            child2 = a.get(successor).right;
            A::copy(a, t.root, node, successor, obs);
            case = "2";
        } else {
            // Case 3: the successor is the leftmost node of node's right subtree.
            //
            //     (n)          (s)
            //     / \          / \
            //   (x) (y)  ->  (x) (y)
            //       /            /
            //     (p)          (p)
            //     /            /
            //   (s)          (c)
            //     \
            //     (c)
            let mut p;
            loop {
                p = successor;
                successor = tmp;
                tmp = a.get(tmp).left;
                if tmp == NIL {
                    break;
                }
            }
            parent = p;
            child2 = a.get(successor).right;
            a.at(parent).left = child2;
            a.at(successor).right = child;
            a.at(child).set_parent(successor);
            touch_node(obs, child);
            A::copy(a, t.root, node, successor, obs);
            A::propagate(a, t.root, parent, successor, obs);
            case = "3";
        }
        tmp = a.get(node).left;
        a.at(successor).left = tmp;
        a.at(tmp).set_parent(successor);
        touch_node(obs, tmp);

        let node_parent = a.get(node).parent();
        let node_black = a.get(node).is_black();
        change_child(a, t, node, successor, node_parent);
        if child2 != NIL {
            set_parent_color(a, successor, node_parent, node_black, obs);
            set_parent_color(a, child2, parent, true, obs);
            rebalance = NIL;
        } else {
            let s_was_black = a.get(successor).is_black();
            set_parent_color(a, successor, node_parent, node_black, obs);
            rebalance = if s_was_black { parent } else { NIL };
        }
        propagate_from = successor;
        moved = successor;
    }

    // The kernel's `unlink_va` clears the erased node's links (`RB_CLEAR_NODE`); ours are left
    // as they were: nothing reads them before the node is linked again (which sets them all)
    // or released, and the three stores were 3 instructions per operation.
    emit!(
        obs,
        a,
        t,
        Event::Unlinked { id: a.get(node).id, case, successor: a.id_of(moved).map(|s| Hex(u64::from(s))) }
    );
    A::propagate(a, t.root, propagate_from, NIL, obs);
    if rebalance != NIL {
        erase_color::<A, O>(a, t, rebalance, obs);
    }
}

/// `____rb_erase_color`: restore the black height after removing a black node under `parent`.
fn erase_color<A: Augment, O: Observer>(a: &mut Arena, t: &mut VaTree, mut parent: u32, obs: &mut O) {
    let mut node = NIL;
    loop {
        let mut sibling = a.get(parent).right;
        if node != sibling {
            // node == parent.left (or the null left side).
            if is_red(a, sibling) {
                // Case 1: left rotate at parent.
                //
                //     P               S
                //    / \             / \
                //   N   s    -->    p   Sr
                //      / \         / \
                //     Sl  Sr      N   Sl
                let tmp1 = a.get(sibling).left;
                a.at(parent).right = tmp1;
                a.at(sibling).left = parent;
                set_parent_color(a, tmp1, parent, true, obs);
                rotate_set_parents(a, t, parent, sibling, false, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::EraseColor,
                        case: 1,
                        dir: Dir::Left,
                        old_top: a.get(parent).id,
                        new_top: a.get(sibling).id
                    }
                );
                A::rotate(a, t.root, parent, sibling, (RbPhase::EraseColor, 1), obs);
                sibling = tmp1;
            }
            let mut tmp1 = a.get(sibling).right;
            if !is_red(a, tmp1) {
                let tmp2 = a.get(sibling).left;
                if !is_red(a, tmp2) {
                    // Case 2: sibling black with black children: paint it red.
                    set_parent_color(a, sibling, parent, false, obs);
                    emit!(
                        obs,
                        a,
                        t,
                        Event::Recolor {
                            phase: RbPhase::EraseColor,
                            case: 2,
                            id: a.get(sibling).id,
                            color: Color::Red
                        }
                    );
                    if is_red(a, parent) {
                        set_black(a, parent, obs);
                        emit!(
                            obs,
                            a,
                            t,
                            Event::Recolor {
                                phase: RbPhase::EraseColor,
                                case: 2,
                                id: a.get(parent).id,
                                color: Color::Black
                            }
                        );
                    } else {
                        node = parent;
                        parent = a.get(node).parent();
                        if parent != NIL {
                            continue;
                        }
                    }
                    break;
                }
                // Case 3: right rotate at sibling.
                //
                //    (p)           (p)
                //    / \           / \
                //   N   S    -->  N   sl
                //      / \             \
                //     sl  Sr            S
                //                        \
                //                         Sr
                tmp1 = a.get(tmp2).right;
                a.at(sibling).left = tmp1;
                a.at(tmp2).right = sibling;
                a.at(parent).right = tmp2;
                if tmp1 != NIL {
                    set_parent_color(a, tmp1, sibling, true, obs);
                }
                // Extra (see module doc): parent pointers, colours kept; case 4 rewrites both.
                a.at(sibling).set_parent(tmp2);
                touch_node(obs, sibling);
                a.at(tmp2).set_parent(parent);
                touch_node(obs, tmp2);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::EraseColor,
                        case: 3,
                        dir: Dir::Right,
                        old_top: a.get(sibling).id,
                        new_top: a.get(tmp2).id
                    }
                );
                A::rotate(a, t.root, sibling, tmp2, (RbPhase::EraseColor, 3), obs);
                tmp1 = sibling;
                sibling = tmp2;
            }
            // Case 4: left rotate at parent and recolour.
            //
            //      (p)             (s)
            //      / \             / \
            //     N   S     -->   P   Sr
            //        / \         / \
            //      (sl) sr      N  (sl)
            let tmp2 = a.get(sibling).left;
            a.at(parent).right = tmp2;
            a.at(sibling).left = parent;
            set_parent_color(a, tmp1, sibling, true, obs);
            if tmp2 != NIL {
                a.at(tmp2).set_parent(parent);
                touch_node(obs, tmp2);
            }
            rotate_set_parents(a, t, parent, sibling, true, obs);
            emit!(
                obs,
                a,
                t,
                Event::Rotate {
                    phase: RbPhase::EraseColor,
                    case: 4,
                    dir: Dir::Left,
                    old_top: a.get(parent).id,
                    new_top: a.get(sibling).id
                }
            );
            A::rotate(a, t.root, parent, sibling, (RbPhase::EraseColor, 4), obs);
            break;
        } else {
            // Mirror image: node == parent.right.
            sibling = a.get(parent).left;
            if is_red(a, sibling) {
                // Case 1: right rotate at parent.
                let tmp1 = a.get(sibling).right;
                a.at(parent).left = tmp1;
                a.at(sibling).right = parent;
                set_parent_color(a, tmp1, parent, true, obs);
                rotate_set_parents(a, t, parent, sibling, false, obs);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::EraseColor,
                        case: 1,
                        dir: Dir::Right,
                        old_top: a.get(parent).id,
                        new_top: a.get(sibling).id
                    }
                );
                A::rotate(a, t.root, parent, sibling, (RbPhase::EraseColor, 1), obs);
                sibling = tmp1;
            }
            let mut tmp1 = a.get(sibling).left;
            if !is_red(a, tmp1) {
                let tmp2 = a.get(sibling).right;
                if !is_red(a, tmp2) {
                    // Case 2.
                    set_parent_color(a, sibling, parent, false, obs);
                    emit!(
                        obs,
                        a,
                        t,
                        Event::Recolor {
                            phase: RbPhase::EraseColor,
                            case: 2,
                            id: a.get(sibling).id,
                            color: Color::Red
                        }
                    );
                    if is_red(a, parent) {
                        set_black(a, parent, obs);
                        emit!(
                            obs,
                            a,
                            t,
                            Event::Recolor {
                                phase: RbPhase::EraseColor,
                                case: 2,
                                id: a.get(parent).id,
                                color: Color::Black
                            }
                        );
                    } else {
                        node = parent;
                        parent = a.get(node).parent();
                        if parent != NIL {
                            continue;
                        }
                    }
                    break;
                }
                // Case 3: left rotate at sibling.
                tmp1 = a.get(tmp2).left;
                a.at(sibling).right = tmp1;
                a.at(tmp2).left = sibling;
                a.at(parent).left = tmp2;
                if tmp1 != NIL {
                    set_parent_color(a, tmp1, sibling, true, obs);
                }
                a.at(sibling).set_parent(tmp2);
                touch_node(obs, sibling);
                a.at(tmp2).set_parent(parent);
                touch_node(obs, tmp2);
                emit!(
                    obs,
                    a,
                    t,
                    Event::Rotate {
                        phase: RbPhase::EraseColor,
                        case: 3,
                        dir: Dir::Left,
                        old_top: a.get(sibling).id,
                        new_top: a.get(tmp2).id
                    }
                );
                A::rotate(a, t.root, sibling, tmp2, (RbPhase::EraseColor, 3), obs);
                tmp1 = sibling;
                sibling = tmp2;
            }
            // Case 4: right rotate at parent.
            let tmp2 = a.get(sibling).right;
            a.at(parent).left = tmp2;
            a.at(sibling).right = parent;
            set_parent_color(a, tmp1, sibling, true, obs);
            if tmp2 != NIL {
                a.at(tmp2).set_parent(parent);
                touch_node(obs, tmp2);
            }
            rotate_set_parents(a, t, parent, sibling, true, obs);
            emit!(
                obs,
                a,
                t,
                Event::Rotate {
                    phase: RbPhase::EraseColor,
                    case: 4,
                    dir: Dir::Right,
                    old_top: a.get(parent).id,
                    new_top: a.get(sibling).id
                }
            );
            A::rotate(a, t.root, parent, sibling, (RbPhase::EraseColor, 4), obs);
            break;
        }
    }
}

/// Colour name for dumps and views.
pub fn color_name(black: bool) -> Color {
    color_of(black)
}

/// In-order successor through tree links (`rb_next`).
pub(crate) fn rb_next(a: &Arena, mut n: u32) -> u32 {
    let r = a.get(n).right;
    if r != NIL {
        n = r;
        while a.get(n).left != NIL {
            n = a.get(n).left;
        }
        return n;
    }
    loop {
        let p = a.get(n).parent();
        if p == NIL || a.get(p).left == n {
            return p;
        }
        n = p;
    }
}

/// In-order predecessor through tree links (`rb_prev`).
pub(crate) fn rb_prev(a: &Arena, mut n: u32) -> u32 {
    let l = a.get(n).left;
    if l != NIL {
        n = l;
        while a.get(n).right != NIL {
            n = a.get(n).right;
        }
        return n;
    }
    loop {
        let p = a.get(n).parent();
        if p == NIL || a.get(p).right == n {
            return p;
        }
        n = p;
    }
}
