//! Every red-black fix-up case of `lib/rbtree.c` (spec §4.2, §4.3), on both sides.
//!
//! Each test builds a small tree by inserting keys in a fixed order, then inserts or erases one
//! key and checks the exact shape and colours afterwards, plus the rotations and recolourings
//! reported as events. The expected shapes and events were derived by hand from the spec (the
//! derivations are in the comments), not computed by the code under test.
//!
//! Each scenario runs three ways:
//! * the raw `rbtree` API (`link_node` + `insert_color` / `erase`) with `SubtreeMax` and a
//!   [`Recorder`]: shape, colours, `subtree_max_size` and the events are checked;
//! * the free-tree helpers (`insert_vmap_area_augment` / `unlink_va`), which also keep the
//!   address-sorted list: checked with `check_tree`;
//! * the plain (non-augmented) tree (`insert_vmap_area::<Plain>` / `unlink_va::<Plain>`): the same
//!   shape and colours.
//!
//! Key `k` stands for the area `[k << 20, (k << 20) + k pages)`, so sizes differ and the
//! augmentation is exercised. Shapes are written `key colour (left, right)` with `-` for none.
//!
//! Event notation: `I1 30B` = insert case 1 recolours 30 black (`I0` = the root painted black);
//! `I2L 10>20` = insert case 2, rotation to the left, 10 was the top and 20 replaces it;
//! `E2 25R` = erase-colour case 2 recolours 25 red; `E4L 20>30` = erase-colour case 4 rotates
//! left at 20 and 30 takes its place. Erase cases 1a, 1b, 2 and 3 (`__rb_erase_augmented`)
//! report no rotation; they are identified by the resulting shape.

use std::collections::{BTreeMap, HashMap};

use crate::area::{Arena, VaTree, NIL};
use crate::check::check_tree;
use crate::events::{Color, Dir, Event, NoObserver, Observer, RbPhase, Recorder, TreeView};
use crate::rbtree::{self, Plain, SubtreeMax};
use crate::session::{snapshot_tree, NodeSnap};
use crate::vmalloc::{
    augment_tree_propagate_from, find_va_links, insert_vmap_area, insert_vmap_area_augment, unlink_va,
};

const PAGE: u64 = 4096;

fn range(k: u64) -> (u64, u64) {
    (k << 20, (k << 20) + k * PAGE)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// `rbtree::link_node` + `insert_color::<SubtreeMax>`, `rbtree::erase::<SubtreeMax>`.
    Raw,
    /// `insert_vmap_area_augment` / `unlink_va::<SubtreeMax>` (tree + list).
    FreeTree,
    /// `insert_vmap_area::<Plain>` / `unlink_va::<Plain>`.
    Plain,
}

struct Tree {
    mode: Mode,
    a: Arena,
    t: VaTree,
    by_key: BTreeMap<u64, u32>,
    key_of_id: HashMap<u32, u64>,
}

impl Tree {
    fn new(mode: Mode) -> Self {
        Tree { mode, a: Arena::new(), t: VaTree::default(), by_key: BTreeMap::new(), key_of_id: HashMap::new() }
    }

    fn insert<O: Observer>(&mut self, k: u64, obs: &mut O) {
        let (s, e) = range(k);
        let i = self.a.alloc(s, e);
        self.key_of_id.insert(self.a.get(i).id, k);
        self.by_key.insert(k, i);
        match self.mode {
            Mode::Raw => {
                let l = find_va_links(&self.a, &self.t, s, e, NIL).expect("keys never overlap");
                rbtree::link_node(&mut self.a, &mut self.t, i, l.parent, l.left);
                rbtree::insert_color::<SubtreeMax, O>(&mut self.a, &mut self.t, i, obs);
                augment_tree_propagate_from(&mut self.a, &self.t, i, obs);
            }
            Mode::FreeTree => assert!(insert_vmap_area_augment(&mut self.a, &mut self.t, i, NIL, obs)),
            Mode::Plain => assert!(insert_vmap_area::<Plain, O>(&mut self.a, &mut self.t, i, obs)),
        }
    }

    fn erase<O: Observer>(&mut self, k: u64, obs: &mut O) {
        let i = self.by_key.remove(&k).expect("erase of a key not in the tree");
        match self.mode {
            Mode::Raw => rbtree::erase::<SubtreeMax, O>(&mut self.a, &mut self.t, i, obs),
            Mode::FreeTree => {
                unlink_va::<SubtreeMax, O>(&mut self.a, &mut self.t, i, obs);
            }
            Mode::Plain => {
                unlink_va::<Plain, O>(&mut self.a, &mut self.t, i, obs);
            }
        }
        self.a.release(i);
    }

    fn snap(&self) -> Vec<NodeSnap> {
        snapshot_tree(TreeView { arena: &self.a, root: self.t.root })
    }

    /// `20B(10R,30R)`-style rendering of the tree.
    fn shape(&self) -> String {
        let snap = self.snap();
        let by_id: HashMap<u32, &NodeSnap> = snap.iter().map(|n| (n.id, n)).collect();
        fn render(by_id: &HashMap<u32, &NodeSnap>, id: Option<u32>) -> String {
            let Some(id) = id else { return "-".into() };
            let n = by_id[&id];
            let mut s = format!("{}{}", n.va_start.0 >> 20, if n.black { 'B' } else { 'R' });
            if n.left.is_some() || n.right.is_some() {
                s += &format!("({},{})", render(by_id, n.left), render(by_id, n.right));
            }
            s
        }
        render(&by_id, snap.first().map(|n| n.id))
    }

    /// Independent validation: parent links, key order, red-black rules and (augmented modes)
    /// exact `subtree_max_size`, computed from the snapshot alone.
    fn validate(&self) {
        let snap = self.snap();
        let by_id: HashMap<u32, &NodeSnap> = snap.iter().map(|n| (n.id, n)).collect();
        assert_eq!(snap.len(), self.by_key.len(), "node count");
        if let Some(root) = snap.first() {
            assert!(root.black, "the root must be black");
            assert_eq!(root.parent, None);
        }
        // Returns (black height, max size, min start, max end).
        fn walk(by_id: &HashMap<u32, &NodeSnap>, id: u32, augmented: bool) -> (u32, u64, u64, u64) {
            let n = by_id[&id];
            let size = n.va_end.0 - n.va_start.0;
            let (mut lo, mut hi, mut max) = (n.va_start.0, n.va_end.0, size);
            let mut bh = [0u32; 2];
            for (k, c) in [n.left, n.right].into_iter().enumerate() {
                if let Some(c) = c {
                    let cn = by_id[&c];
                    assert_eq!(cn.parent, Some(id), "parent link of {:#x}", cn.va_start);
                    assert!(n.black || cn.black, "red {:#x} has a red child", n.va_start);
                    let (b, m, clo, chi) = walk(by_id, c, augmented);
                    if k == 0 {
                        assert!(chi <= n.va_start.0, "left subtree out of order");
                        lo = clo;
                    } else {
                        assert!(clo >= n.va_end.0, "right subtree out of order");
                        hi = chi;
                    }
                    bh[k] = b;
                    max = max.max(m);
                }
            }
            assert_eq!(bh[0], bh[1], "black heights differ under {:#x}", n.va_start);
            if augmented {
                assert_eq!(n.subtree_max_size, max, "subtree_max_size of {:#x}", n.va_start);
            }
            (bh[0] + u32::from(n.black), max, lo, hi)
        }
        if let Some(root) = snap.first() {
            walk(&by_id, root.id, self.mode != Mode::Plain);
        }
        if self.mode != Mode::Raw {
            check_tree(&self.a, &self.t, self.mode == Mode::FreeTree, "tree").unwrap();
        }
    }

    fn key(&self, id: u32) -> u64 {
        self.key_of_id[&id]
    }

    /// The rotations and recolourings among `events`, in the notation of the module doc.
    fn rb_events(&self, events: &[Event]) -> Vec<String> {
        let phase = |p: &RbPhase| match p {
            RbPhase::Insert => "I",
            RbPhase::EraseColor => "E",
        };
        events
            .iter()
            .filter_map(|e| match e {
                Event::Rotate { phase: p, case, dir, old_top, new_top, .. } => Some(format!(
                    "{}{case}{} {}>{}",
                    phase(p),
                    if *dir == Dir::Left { "L" } else { "R" },
                    self.key(*old_top),
                    self.key(*new_top)
                )),
                Event::Recolor { phase: p, case, id, color, .. } => Some(format!(
                    "{}{case} {}{}",
                    phase(p),
                    self.key(*id),
                    if *color == Color::Black { "B" } else { "R" }
                )),
                _ => None,
            })
            .collect()
    }
}

#[derive(Clone, Copy)]
enum Step {
    Insert(u64),
    Erase(u64),
}

/// Build with `build` (inserts, then `pre_erase` erases), check the shape `pre`, apply `step`,
/// and check the shape `post` and the red-black events `events`, in all three modes.
fn scenario(build: &[u64], pre_erase: &[u64], pre: &str, step: Step, post: &str, events: &[&str]) {
    for mode in [Mode::Raw, Mode::FreeTree, Mode::Plain] {
        let mut t = Tree::new(mode);
        for &k in build {
            t.insert(k, &mut NoObserver);
            t.validate();
        }
        for &k in pre_erase {
            t.erase(k, &mut NoObserver);
            t.validate();
        }
        assert_eq!(t.shape(), pre, "{mode:?}: the tree before the step");
        let mut rec = Recorder::default();
        match step {
            Step::Insert(k) => t.insert(k, &mut rec),
            Step::Erase(k) => t.erase(k, &mut rec),
        }
        assert_eq!(t.shape(), post, "{mode:?}: the tree after the step");
        t.validate();
        if mode == Mode::Plain {
            // Plain trees report nothing.
            assert!(rec.events.is_empty(), "plain trees emit no events: {:?}", rec.events);
        } else {
            assert_eq!(t.rb_events(&rec.events), events, "{mode:?}: red-black events");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Insert (`__rb_insert`, spec §4.2)
// ---------------------------------------------------------------------------------------------

#[test]
fn insert_into_empty_tree_paints_the_root_black() {
    scenario(&[], &[], "-", Step::Insert(20), "20B", &["I0 20B"]);
    // A child of a black parent: no fix-up at all.
    scenario(&[20], &[], "20B", Step::Insert(10), "20B(10R,-)", &[]);
}

#[test]
fn insert_case1_uncle_red_parent_left() {
    // 20B(10R,30R) + 5: parent 10 is g.left and red, uncle 30 red -> case 1: 30 and 10 black,
    // 20 red; 20 is the root -> painted black.
    scenario(
        &[20, 10, 30],
        &[],
        "20B(10R,30R)",
        Step::Insert(5),
        "20B(10B(5R,-),30B)",
        &["I1 30B", "I1 10B", "I1 20R", "I0 20B"],
    );
}

#[test]
fn insert_case1_uncle_red_parent_right() {
    // Mirror: 35 under 30 = g.right, uncle 10 red.
    scenario(
        &[20, 10, 30],
        &[],
        "20B(10R,30R)",
        Step::Insert(35),
        "20B(10B,30B(-,35R))",
        &["I1 10B", "I1 30B", "I1 20R", "I0 20B"],
    );
}

#[test]
fn insert_case3_parent_left() {
    // 30B(20R) + 10: 10 is the left child of the left child, no uncle -> case 3 alone:
    // rotate right at 30; 20 takes 30's place and colour, 30 becomes red.
    scenario(&[30, 20], &[], "30B(20R,-)", Step::Insert(10), "20B(10R,30R)", &["I3R 30>20"]);
}

#[test]
fn insert_case3_parent_right() {
    scenario(&[10, 20], &[], "10B(-,20R)", Step::Insert(30), "20B(10R,30R)", &["I3L 10>20"]);
}

#[test]
fn insert_case2_then_case3_parent_left() {
    // 30B(10R) + 20: 20 is 10.right -> case 2 rotates left at 10 (20 on top), then case 3
    // rotates right at 30.
    scenario(&[30, 10], &[], "30B(10R,-)", Step::Insert(20), "20B(10R,30R)", &["I2L 10>20", "I3R 30>20"]);
}

#[test]
fn insert_case2_then_case3_parent_right() {
    scenario(&[10, 30], &[], "10B(-,30R)", Step::Insert(20), "20B(10R,30R)", &["I2R 30>20", "I3L 10>20"]);
}

#[test]
fn insert_case1_then_case3_moves_a_subtree_parent_right() {
    // Ascending 10..=70 gives 20B(10B,40R(30B,60B(50R,70R))). Insert 80: parent 70 red,
    // uncle 50 red -> case 1 (50 B, 70 B, 60 R); node = 60 under the red 40, which is 20.right,
    // uncle 10 black, 60 is 40.right -> case 3: rotate left at 20. 40's left child 30 moves
    // under 20 (as 20.right) and stays black; 40 takes the root and black, 20 becomes red.
    scenario(
        &[10, 20, 30, 40, 50, 60, 70],
        &[],
        "20B(10B,40R(30B,60B(50R,70R)))",
        Step::Insert(80),
        "40B(20R(10B,30B),60R(50B,70B(-,80R)))",
        &["I1 50B", "I1 70B", "I1 60R", "I3L 20>40"],
    );
}

#[test]
fn insert_case1_then_case3_moves_a_subtree_parent_left() {
    // The mirror image (descending keys).
    scenario(
        &[80, 70, 60, 50, 40, 30, 20],
        &[],
        "70B(50R(30B(20R,40R),60B),80B)",
        Step::Insert(10),
        "50B(30R(20B(10R,-),40B),70R(60B,80B))",
        &["I1 40B", "I1 20B", "I1 30R", "I3R 70>50"],
    );
}

#[test]
fn insert_case1_then_case2_with_a_subtree_then_case3_parent_left() {
    // 50B(20R(10B,30B(25R,35R)),70B) + 33: under 35 (= 30.right), uncle 25 red -> case 1
    // (25 B, 35 B, 30 R); node = 30, the right child of the red 20 = 50.left, uncle 70 black ->
    // case 2: rotate left at 20; 30's left child 25 moves to 20.right (black). Then case 3:
    // rotate right at 50; 30's right child 35 moves to 50.left; 30 takes the root (black),
    // 50 becomes red.
    scenario(
        &[50, 20, 70, 10, 30, 25, 35],
        &[],
        "50B(20R(10B,30B(25R,35R)),70B)",
        Step::Insert(33),
        "30B(20R(10B,25B),50R(35B(33R,-),70B))",
        &["I1 25B", "I1 35B", "I1 30R", "I2L 20>30", "I3R 50>30"],
    );
}

#[test]
fn insert_case1_then_case2_with_a_subtree_then_case3_parent_right() {
    // The mirror image under k -> 100 - k.
    scenario(
        &[50, 80, 30, 90, 70, 75, 65],
        &[],
        "50B(30B,80R(70B(65R,75R),90B))",
        Step::Insert(67),
        "70B(50R(30B,65B(-,67R)),80R(75B,90B))",
        &["I1 75B", "I1 65B", "I1 70R", "I2R 80>70", "I3L 50>70"],
    );
}

// ---------------------------------------------------------------------------------------------
// Erase (`__rb_erase_augmented`, spec §4.3)
// ---------------------------------------------------------------------------------------------

#[test]
fn erase_case1a_right_child_takes_the_place_and_colour() {
    // 30 has no left child: its right child 35 replaces it and takes its black colour.
    scenario(&[20, 10, 30, 35], &[], "20B(10B,30B(-,35R))", Step::Erase(30), "20B(10B,35B)", &[]);
}

#[test]
fn erase_case1a_red_leaf_needs_no_rebalance() {
    scenario(&[20, 10, 30, 35], &[], "20B(10B,30B(-,35R))", Step::Erase(35), "20B(10B,30B)", &[]);
}

#[test]
fn erase_case1a_only_node_empties_the_tree() {
    scenario(&[20], &[], "20B", Step::Erase(20), "-", &[]);
}

#[test]
fn erase_case1b_left_child_takes_the_place_and_colour() {
    scenario(&[20, 10, 30, 5], &[], "20B(10B(5R,-),30B)", Step::Erase(10), "20B(5B,30B)", &[]);
}

#[test]
fn erase_case2_successor_is_the_right_child_with_a_child() {
    // 20's right child 30 has no left child: 30 is the successor, takes 20's place and colour,
    // inherits 10; its right child 35 becomes black.
    scenario(&[20, 10, 30, 5, 35], &[], "20B(10B(5R,-),30B(-,35R))", Step::Erase(20), "30B(10B(5R,-),35B)", &[]);
}

#[test]
fn erase_case2_black_successor_without_child_rebalances() {
    // 20B(10B,30B): erase 20 -> case 2 with s = 30 (black, no child): rebalance at 30 whose
    // right side is now empty -> right-deficient erase-colour case 2: 10 red; 30 is black and
    // the root -> stop.
    scenario(&[20, 10, 30, 5], &[5], "20B(10B,30B)", Step::Erase(20), "30B(10R,-)", &["E2 10R"]);
}

#[test]
fn erase_case3_red_successor_without_child() {
    // The successor of 20 is 25, the leftmost node of 30's subtree: 30.left = (nothing),
    // 25.right = 30, 25 takes 20's place and black; 25 was red -> no rebalance.
    scenario(&[20, 10, 30, 25, 35], &[], "20B(10B,30B(25R,35R))", Step::Erase(20), "25B(10B,30B(-,35R))", &[]);
}

#[test]
fn erase_case3_successor_with_a_right_child() {
    // The successor 50 has a right child 55: 55 hangs under 60 (black), 50 takes 40's place.
    scenario(
        &[10, 20, 30, 40, 50, 60, 70, 80, 55],
        &[],
        "40B(20R(10B,30B),60R(50B(-,55R),70B(-,80R)))",
        Step::Erase(40),
        "50B(20R(10B,30B),60R(55B,70B(-,80R)))",
        &[],
    );
}

#[test]
fn erase_case3_black_successor_without_child_rebalances_at_its_parent() {
    // Successor 50 is black with no child: rebalance at sp = 60 (left now empty), sibling 70
    // black with a red right child 80 -> erase-colour case 4 (rotate left at 60): 70 takes 60's
    // place and red colour, 60 and 80 black.
    scenario(
        &[10, 20, 30, 40, 50, 60, 70, 80],
        &[],
        "40B(20R(10B,30B),60R(50B,70B(-,80R)))",
        Step::Erase(40),
        "50B(20R(10B,30B),70R(60B,80B))",
        &["E4L 60>70"],
    );
}

// ---------------------------------------------------------------------------------------------
// Erase colour (`__rb_erase_color`, spec §4.3)
// ---------------------------------------------------------------------------------------------

#[test]
fn erase_color_case2_left_black_parent_at_root() {
    // Erase the black leaf 10: sibling 30 black with no red child -> 30 red; 20 black and the
    // root -> stop.
    scenario(&[20, 10, 30, 5], &[5], "20B(10B,30B)", Step::Erase(10), "20B(-,30R)", &["E2 30R"]);
}

#[test]
fn erase_color_case2_right_black_parent_at_root() {
    scenario(&[20, 10, 30, 5], &[5], "20B(10B,30B)", Step::Erase(30), "20B(10R,-)", &["E2 10R"]);
}

#[test]
fn erase_color_case2_left_red_parent_turns_black() {
    // Sibling 30 black, no red child -> 30 red; the parent 20 is red -> 20 black, stop.
    scenario(
        &[10, 20, 30, 40, 50, 60, 70, 80],
        &[],
        "40B(20R(10B,30B),60R(50B,70B(-,80R)))",
        Step::Erase(10),
        "40B(20B(-,30R),60R(50B,70B(-,80R)))",
        &["E2 30R", "E2 20B"],
    );
}

#[test]
fn erase_color_case2_right_red_parent_turns_black() {
    scenario(
        &[80, 70, 60, 50, 40, 30, 20, 10],
        &[],
        "50B(30R(20B(10R,-),40B),70R(60B,80B))",
        Step::Erase(80),
        "50B(30R(20B(10R,-),40B),70B(60R,-))",
        &["E2 60R", "E2 70B"],
    );
}

#[test]
fn erase_color_case4_left() {
    // Sibling 30 black with a red right child 35: rotate left at 20; 30 takes 20's place and
    // colour; 20 and 35 black.
    scenario(&[20, 10, 30, 35], &[], "20B(10B,30B(-,35R))", Step::Erase(10), "30B(20B,35B)", &["E4L 20>30"]);
}

#[test]
fn erase_color_case4_right() {
    scenario(&[20, 10, 30, 5], &[], "20B(10B(5R,-),30B)", Step::Erase(30), "10B(5B,20B)", &["E4R 20>10"]);
}

#[test]
fn erase_color_case3_then_case4_left() {
    // Sibling 30 black, right child none, left child 25 red -> case 3: rotate right at 30
    // (25 on top); case 4: rotate left at 20 (25 takes the root); 20 and 30 black.
    scenario(
        &[20, 10, 30, 25],
        &[],
        "20B(10B,30B(25R,-))",
        Step::Erase(10),
        "25B(20B,30B)",
        &["E3R 30>25", "E4L 20>25"],
    );
}

#[test]
fn erase_color_case3_then_case4_right() {
    scenario(
        &[20, 10, 30, 15],
        &[],
        "20B(10B(-,15R),30B)",
        Step::Erase(30),
        "15B(10B,20B)",
        &["E3L 10>15", "E4R 20>15"],
    );
}

#[test]
fn erase_color_case1_then_case2_left() {
    // Sibling 30 is red -> case 1: rotate left at 20 (30 takes the root, black; 20 red; 30's
    // left child 25 moves to 20.right). New sibling 25 black, no red child -> case 2: 25 red,
    // the parent 20 is red -> black, stop.
    scenario(
        &[20, 10, 30, 25, 35, 40],
        &[],
        "20B(10B,30R(25B,35B(-,40R)))",
        Step::Erase(10),
        "30B(20B(-,25R),35B(-,40R))",
        &["E1L 20>30", "E2 25R", "E2 20B"],
    );
}

#[test]
fn erase_color_case1_then_case2_right() {
    scenario(
        &[80, 90, 70, 75, 65, 60],
        &[],
        "80B(70R(65B(60R,-),75B),90B)",
        Step::Erase(90),
        "70B(65B(60R,-),80B(75R,-))",
        &["E1R 80>70", "E2 75R", "E2 80B"],
    );
}

#[test]
fn erase_color_case1_then_case3_then_case4_left() {
    // Erase 10: sibling 130 red -> case 1 (rotate left at 20; 130 root). New sibling 60 black,
    // its left child 50 red, right none -> case 3 (rotate right at 60, 50 on top) -> case 4
    // (rotate left at 20; 50 takes 20's place under 130 and 20's red colour).
    scenario(
        &[130, 10, 20, 170, 60, 50, 140],
        &[],
        "20B(10B,130R(60B(50R,-),170B(140R,-)))",
        Step::Erase(10),
        "130B(50R(20B,60B),170B(140R,-))",
        &["E1L 20>130", "E3R 60>50", "E4L 20>50"],
    );
}

#[test]
fn erase_color_case1_then_case3_then_case4_right() {
    // Erase 130 (case 2: successor 140, black, no child) -> right-deficient at 140: sibling 90
    // red -> case 1 (rotate right at 140); new sibling 100, left none, right 120 red -> case 3
    // (rotate left at 100) -> case 4 (rotate right at 140; 120 takes its red place under 90).
    scenario(
        &[140, 130, 60, 100, 90, 120, 70],
        &[],
        "130B(90R(60B(-,70R),100B(-,120R)),140B)",
        Step::Erase(130),
        "90B(60B(-,70R),120R(100B,140B))",
        &["E1R 140>90", "E3L 100>120", "E4R 140>120"],
    );
}

#[test]
fn erase_color_case1_then_case4_left() {
    scenario(
        &[100, 70, 90, 150, 170, 120, 160],
        &[],
        "90B(70B,150R(100B(-,120R),170B(160R,-)))",
        Step::Erase(70),
        "150B(100R(90B,120B),170B(160R,-))",
        &["E1L 90>150", "E4L 90>100"],
    );
}

#[test]
fn erase_color_case1_then_case4_right() {
    scenario(
        &[110, 150, 40, 30, 70, 60, 50],
        &[],
        "110B(40R(30B,60B(50R,70R)),150B)",
        Step::Erase(110),
        "40B(30B,60R(50B,150B(70R,-)))",
        &["E1R 150>40", "E4R 150>60"],
    );
}

#[test]
fn erase_color_case2_climbs_then_case4_left() {
    // Erase 10: sibling 60 black with black (no) children -> case 2: 60 red; the parent 20 is
    // black -> climb: node = 20, parent 100, sibling 130 black with a red right child 150 ->
    // case 4: rotate left at 100 (130 takes the root, 100's right becomes 110).
    scenario(
        &[170, 10, 20, 100, 60, 110, 130, 140, 150, 180],
        &[],
        "100B(20B(10B,60B),130B(110B,150R(140B,170B(-,180R))))",
        Step::Erase(10),
        "130B(100B(20B(-,60R),110B),150B(140B,170B(-,180R)))",
        &["E2 60R", "E4L 100>130"],
    );
}

#[test]
fn erase_color_case2_climbs_then_case4_right() {
    scenario(
        &[190, 140, 180, 110, 170, 80, 10, 60, 40, 70],
        &[],
        "140B(80B(40R(10B,60B(-,70R)),110B),180B(170B,190B))",
        Step::Erase(170),
        "80B(40B(10B,60B(-,70R)),140B(110B,180B(-,190R)))",
        &["E2 190R", "E4R 140>80"],
    );
}

#[test]
fn erase_color_case2_climbs_then_case3_then_case4_right() {
    // Erase 170 (case 2, successor 180 black without child): right-deficient at 180, sibling
    // 150 black, no red child -> 150 red, climb to 140 (right side), sibling 30 black, left
    // child 10 black, right child 90 red -> case 3 (rotate left at 30) -> case 4 (rotate right
    // at 140, 90 takes the root).
    scenario(
        &[10, 170, 30, 180, 140, 150, 100, 90, 50, 110],
        &[],
        "140B(30B(10B,90R(50B,100B(-,110R))),170B(150B,180B))",
        Step::Erase(170),
        "90B(30B(10B,50B),140B(100B(-,110R),180B(150R,-)))",
        &["E2 150R", "E3L 30>90", "E4R 140>90"],
    );
}

// ---------------------------------------------------------------------------------------------
// Differential check against an independent red-black tree written from the spec
// ---------------------------------------------------------------------------------------------

/// A from-scratch Linux red-black tree (spec §4.2, §4.3), keys only.
mod reference {
    #[derive(Clone, Copy)]
    struct Node {
        key: u64,
        red: bool,
        p: usize,
        l: usize,
        r: usize,
    }
    const NONE: usize = usize::MAX;
    /// Reads one child link of a node.
    type Child = fn(&Node) -> usize;

    pub struct Rb {
        n: Vec<Node>,
        root: usize,
    }

    impl Rb {
        pub fn new() -> Self {
            Rb { n: Vec::new(), root: NONE }
        }
        fn red(&self, i: usize) -> bool {
            i != NONE && self.n[i].red
        }
        fn change_child(&mut self, old: usize, new: usize, parent: usize) {
            if parent == NONE {
                self.root = new;
            } else if self.n[parent].l == old {
                self.n[parent].l = new;
            } else {
                self.n[parent].r = new;
            }
        }
        /// `new` takes `old`'s parent and colour; `old` goes under `new` with colour `red`.
        fn rotate_set_parents(&mut self, old: usize, new: usize, red: bool) {
            let parent = self.n[old].p;
            self.n[new].p = parent;
            self.n[new].red = self.n[old].red;
            self.n[old].p = new;
            self.n[old].red = red;
            self.change_child(old, new, parent);
        }

        pub fn insert(&mut self, key: u64) {
            let mut parent = NONE;
            let mut cur = self.root;
            let mut left = false;
            while cur != NONE {
                parent = cur;
                left = key < self.n[cur].key;
                cur = if left { self.n[cur].l } else { self.n[cur].r };
            }
            let node = self.n.len();
            self.n.push(Node { key, red: true, p: parent, l: NONE, r: NONE });
            if parent == NONE {
                self.root = node;
            } else if left {
                self.n[parent].l = node;
            } else {
                self.n[parent].r = node;
            }
            let mut node = node;
            loop {
                let parent = self.n[node].p;
                if parent == NONE {
                    self.n[node].red = false;
                    return;
                }
                if !self.n[parent].red {
                    return;
                }
                let g = self.n[parent].p;
                let parent_is_left = self.n[g].l == parent;
                let uncle = if parent_is_left { self.n[g].r } else { self.n[g].l };
                if self.red(uncle) {
                    // Case 1.
                    self.n[uncle].red = false;
                    self.n[parent].red = false;
                    self.n[g].red = true;
                    node = g;
                    continue;
                }
                let mut p = parent;
                if parent_is_left {
                    if self.n[p].r == node {
                        // Case 2: rotate left at p.
                        let t = self.n[node].l;
                        self.n[p].r = t;
                        self.n[node].l = p;
                        if t != NONE {
                            self.n[t].p = p;
                        }
                        self.n[p].p = node;
                        self.n[node].p = g;
                        self.n[g].l = node;
                        p = node;
                    }
                    // Case 3: rotate right at g.
                    let t = self.n[p].r;
                    self.n[g].l = t;
                    self.n[p].r = g;
                    if t != NONE {
                        self.n[t].p = g;
                    }
                    self.rotate_set_parents(g, p, true);
                } else {
                    if self.n[p].l == node {
                        let t = self.n[node].r;
                        self.n[p].l = t;
                        self.n[node].r = p;
                        if t != NONE {
                            self.n[t].p = p;
                        }
                        self.n[p].p = node;
                        self.n[node].p = g;
                        self.n[g].r = node;
                        p = node;
                    }
                    let t = self.n[p].l;
                    self.n[g].r = t;
                    self.n[p].l = g;
                    if t != NONE {
                        self.n[t].p = g;
                    }
                    self.rotate_set_parents(g, p, true);
                }
                return;
            }
        }

        pub fn erase(&mut self, key: u64) {
            let mut n = self.root;
            while self.n[n].key != key {
                n = if key < self.n[n].key { self.n[n].l } else { self.n[n].r };
            }
            let child = self.n[n].r;
            let left = self.n[n].l;
            let rebalance;
            if left == NONE {
                let parent = self.n[n].p;
                self.change_child(n, child, parent);
                if child != NONE {
                    self.n[child].p = parent;
                    self.n[child].red = self.n[n].red;
                    rebalance = NONE;
                } else {
                    rebalance = if self.n[n].red { NONE } else { parent };
                }
            } else if child == NONE {
                let parent = self.n[n].p;
                self.n[left].p = parent;
                self.n[left].red = self.n[n].red;
                self.change_child(n, left, parent);
                rebalance = NONE;
            } else {
                let mut s = child;
                let sp;
                let c2;
                if self.n[child].l == NONE {
                    sp = s;
                    c2 = self.n[s].r;
                } else {
                    let mut p = s;
                    while self.n[s].l != NONE {
                        p = s;
                        s = self.n[s].l;
                    }
                    sp = p;
                    c2 = self.n[s].r;
                    self.n[sp].l = c2;
                    self.n[s].r = child;
                    self.n[child].p = s;
                }
                self.n[s].l = left;
                self.n[left].p = s;
                let np = self.n[n].p;
                self.change_child(n, s, np);
                let s_was_red = self.n[s].red;
                self.n[s].p = np;
                self.n[s].red = self.n[n].red;
                if c2 != NONE {
                    self.n[c2].p = sp;
                    self.n[c2].red = false;
                    rebalance = NONE;
                } else {
                    rebalance = if s_was_red { NONE } else { sp };
                }
            }
            if rebalance != NONE {
                self.erase_color(rebalance);
            }
        }

        fn erase_color(&mut self, mut parent: usize) {
            let mut node = NONE;
            loop {
                // `left` is true when the deficient side is the left one.
                let left = node != self.n[parent].r;
                let side_of: Child = if left { |x| x.l } else { |x| x.r };
                let other_of: Child = if left { |x| x.r } else { |x| x.l };
                let set_side = |me: &mut Self, x: usize, v: usize| {
                    if left {
                        me.n[x].l = v
                    } else {
                        me.n[x].r = v
                    }
                };
                let set_other = |me: &mut Self, x: usize, v: usize| {
                    if left {
                        me.n[x].r = v
                    } else {
                        me.n[x].l = v
                    }
                };
                let mut s = other_of(&self.n[parent]);
                if self.red(s) {
                    // Case 1: rotate towards the deficient side at parent.
                    let t = side_of(&self.n[s]);
                    set_other(self, parent, t);
                    set_side(self, s, parent);
                    self.n[t].p = parent;
                    self.n[t].red = false;
                    self.rotate_set_parents(parent, s, true);
                    s = t;
                }
                let mut far = other_of(&self.n[s]);
                if !self.red(far) {
                    let near = side_of(&self.n[s]);
                    if !self.red(near) {
                        // Case 2.
                        self.n[s].red = true;
                        if self.n[parent].red {
                            self.n[parent].red = false;
                        } else {
                            node = parent;
                            parent = self.n[node].p;
                            if parent != NONE {
                                continue;
                            }
                        }
                        return;
                    }
                    // Case 3: rotate away from the deficient side at s.
                    let t = other_of(&self.n[near]);
                    set_side(self, s, t);
                    set_other(self, near, s);
                    set_other(self, parent, near);
                    if t != NONE {
                        self.n[t].p = s;
                        self.n[t].red = false;
                    }
                    self.n[s].p = near;
                    self.n[near].p = parent;
                    far = s;
                    s = near;
                }
                // Case 4.
                let t = side_of(&self.n[s]);
                set_other(self, parent, t);
                set_side(self, s, parent);
                self.n[far].p = s;
                self.n[far].red = false;
                if t != NONE {
                    self.n[t].p = parent;
                }
                self.rotate_set_parents(parent, s, false);
                return;
            }
        }

        pub fn shape(&self) -> String {
            fn render(rb: &Rb, i: usize) -> String {
                if i == NONE {
                    return "-".into();
                }
                let n = &rb.n[i];
                let mut s = format!("{}{}", n.key, if n.red { 'R' } else { 'B' });
                if n.l != NONE || n.r != NONE {
                    s += &format!("({},{})", render(rb, n.l), render(rb, n.r));
                }
                s
            }
            render(self, self.root)
        }
    }
}

/// xorshift64*: a fixed pseudo-random sequence, so the test is deterministic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn reference_model_agrees_with_the_hand_derived_cases() {
    // The reference itself, on two of the scenarios above.
    let mut r = reference::Rb::new();
    for k in [50, 20, 70, 10, 30, 25, 35, 33] {
        r.insert(k);
    }
    assert_eq!(r.shape(), "30B(20R(10B,25B),50R(35B(33R,-),70B))");
    let mut r = reference::Rb::new();
    for k in [10, 170, 30, 180, 140, 150, 100, 90, 50, 110] {
        r.insert(k);
    }
    r.erase(170);
    assert_eq!(r.shape(), "90B(30B(10B,50B),140B(100B(-,110R),180B(150R,-)))");
}

#[test]
fn random_insert_erase_sequences_match_the_reference_tree() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..300 {
        let mut live: Vec<u64> = Vec::new();
        let mut reference = reference::Rb::new();
        let mode = [Mode::Raw, Mode::FreeTree, Mode::Plain][round % 3];
        let mut t = Tree::new(mode);
        let steps = 20 + rng.below(120);
        for _ in 0..steps {
            let erase = !live.is_empty() && rng.below(100) < 40;
            if erase {
                let k = live.swap_remove(rng.below(live.len() as u64) as usize);
                reference.erase(k);
                t.erase(k, &mut NoObserver);
            } else {
                let k = 1 + rng.below(255);
                if live.contains(&k) {
                    continue;
                }
                live.push(k);
                reference.insert(k);
                t.insert(k, &mut NoObserver);
            }
            assert_eq!(t.shape(), reference.shape(), "round {round} ({mode:?})");
            t.validate();
        }
    }
}
