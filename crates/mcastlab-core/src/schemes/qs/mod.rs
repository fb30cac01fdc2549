//! coll03's family: multicast on Quadrics k-ary n-trees (QsNET). Hardware multicast reaches one
//! contiguous range of endpoints, so a destination set with holes is cut into groups and reached in
//! a tree of steps of parallel range multicasts; the system software's unicast tree is the fallback.
//! The schemes are registered, with every other one, in [`super::SCHEMES`].
//!
//! | file | what |
//! | --- | --- |
//! | `qs_groups.rs` | §5.1–5.2: contiguous groups, their root switches, backward and forward overlaps |
//! | `qs_tree.rs` | shared by both hardware trees: the problem state, a step, a lower bound, the tree as a plan |
//! | `qs_greedy.rs` | scheme `qs_greedy`: Algorithm 2, the greedy tree |
//! | `qs_optimal.rs` | scheme `qs_optimal`: Algorithm 1, the backtracking search for a minimum-depth tree |
//! | `qs_software.rs` | scheme `qs_software`: the QsNET software's balanced tree of unicasts (§4) |
//!
//! The Table 1 / Fig. 7 experiment built on these is [`crate::experiments::qs_table`].

pub mod qs_greedy;
pub mod qs_groups;
pub mod qs_optimal;
pub mod qs_software;
pub mod qs_tree;
