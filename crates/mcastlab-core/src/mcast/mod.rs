//! InfiniBand multicast for many groups at once, as OpenSM programs a real subnet.
//!
//! | file | what |
//! |---|---|
//! | `select.rs` | member selectors (`lid:33`, GIDs, GUIDs, names, `switch:NAME`) → [`select::Member`] |
//! | `groups.rs` | the groups file (JSON, text, `saquery -m`), parsed and validated |
//! | `build.rs` | MLID allocation, the hop-matrix plug-point and the MFTs of all groups |
//! | `dump.rs` | `opensm.mcfdbs` / `ibroute -M` dumps read back as switch state |
//! | `verify.rs` | MFTs flooded from every member: reached exactly once, no loop; a plan for the simulator |
//! | `capacity.rs` | MFT capacity, MLID space and HCA attach limits: which groups get hardware multicast |
//!
//! The tree of one MLID is `schemes::ib_opensm`'s (OpenSM's `mcast_mgr_build_spanning_tree`);
//! this module feeds it every group and keeps the results in one switch state.

pub mod build;
pub mod capacity;
pub mod dump;
pub mod groups;
pub mod select;
pub mod switchinfo;
pub mod verify;
