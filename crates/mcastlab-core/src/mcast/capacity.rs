//! Admission of many groups to hardware multicast: the limits a real subnet hits before the
//! papers' unlimited groups. Groups are taken in MLID order (OpenSM's order of processing); a
//! group gets hardware multicast when
//! * its MLID fits the subnet's MLID ceiling `0xC000 + MulticastFDBCap − 1` of the smallest
//!   switch (OpenSM lowers its ceiling so; opensm.md §1.2), and
//! * every receiving member port (JoinState full or non-member; send-only members attach no QP)
//!   still has room in its HCA's multicast attach table (`max_mcast_grp` of `ibv_devinfo -v`).
//!
//! Otherwise it must fall back to a software tree (unicast copies). One-member groups program
//! nothing and need nothing. The report says, per group, which, and the first limit hit.

use super::build::Tables;
use super::groups::{Group, JOIN_FULL, JOIN_NON};
use super::select::Member;
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::io::mft_dump::{MCAST_BLOCK_SIZE, MCAST_LID_END, MCAST_LID_START, MCAST_MASK_SIZE};
use serde::Serialize;
use std::collections::BTreeMap;

/// Limits of the hardware. `mft_cap` applies to switches with no cap of their own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// MulticastFDBCap (MLIDs a switch's MFT holds); ibsim's default is 1024.
    pub mft_cap: u32,
    /// Per switch (by index) a cap read from a dump, overriding `mft_cap`.
    pub switch_caps: BTreeMap<u32, u32>,
    /// Multicast groups one HCA port can receive (`max_mcast_grp`).
    pub hca_groups: u32,
}

/// Default MulticastFDBCap: ibsim's (OpenSM then allows MLIDs 0xC000..=0xC3FF).
pub const DEFAULT_MFT_CAP: u32 = 1024;
/// Default HCA limit: ConnectX-class adapters report `max_mcast_grp` 131072 in `ibv_devinfo -v`.
pub const DEFAULT_HCA_GROUPS: u32 = 131072;

impl Default for Limits {
    fn default() -> Limits {
        Limits { mft_cap: DEFAULT_MFT_CAP, switch_caps: BTreeMap::new(), hca_groups: DEFAULT_HCA_GROUPS }
    }
}

/// One group's admission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Admission {
    pub name: String,
    pub mlid: u32,
    /// `hardware`, `software` or `none` (fewer than two members: nothing to program).
    pub mode: &'static str,
    /// The limit that sent it to software.
    pub reason: Option<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub limits: Limits,
    /// Highest MLID the subnet accepts.
    pub mlid_ceiling: u32,
    pub hardware: usize,
    pub software: usize,
    pub none: usize,
    /// The first limit a group hit (in MLID order), if any.
    pub first_limit: Option<String>,
    /// MFT blocks (32 MLIDs each) the hardware groups use on the busiest switch, and the 16-port
    /// mask positions per block of the widest switch.
    pub mft_blocks_used: u32,
    pub mft_blocks_available: u32,
    pub mask_positions: u32,
    pub groups: Vec<Admission>,
}

/// Admits the groups of `tables` (built from `groups`) under `limits`.
pub fn admit(f: &Fabric, groups: &[Group], tables: &Tables, limits: &Limits) -> Result<Report, PlanError> {
    if limits.mft_cap == 0 || limits.switch_caps.values().any(|c| *c == 0) {
        return Err(PlanError::Param { param: "mft_cap", message: "a MulticastFDBCap of 0 means no multicast".into() });
    }
    let min_cap = f
        .switch_ids()
        .map(|s| limits.switch_caps.get(&s.0).copied().unwrap_or(limits.mft_cap))
        .min()
        .unwrap_or(limits.mft_cap);
    let ceiling = (MCAST_LID_START + min_cap - 1).min(MCAST_LID_END);
    let mut attached: Vec<u32> = vec![0; f.num_endpoints()];
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    idx.sort_by_key(|i| tables.groups[*i].mlid);
    let mut out: Vec<Option<Admission>> = vec![None; groups.len()];
    let mut first_limit = None;
    let mut top_hw: Option<u32> = None;
    for i in idx {
        let (g, t) = (&groups[i], &tables.groups[i]);
        let mut adm = Admission { name: g.name.clone(), mlid: t.mlid, mode: "hardware", reason: None };
        let receivers: Vec<usize> = g
            .members
            .iter()
            .filter_map(|(m, j)| match m {
                Member::Port(e) if j & (JOIN_FULL | JOIN_NON) != 0 => Some(e.idx()),
                _ => None,
            })
            .collect();
        if t.root.is_none() {
            adm.mode = "none";
        } else if t.mlid > ceiling {
            adm.mode = "software";
            adm.reason = Some(format!(
                "MLID 0x{:04X} is above the ceiling 0x{ceiling:04X} (MulticastFDBCap {min_cap} of the smallest switch)",
                t.mlid
            ));
        } else if let Some(&e) = receivers.iter().find(|e| attached[**e] >= limits.hca_groups) {
            adm.mode = "software";
            adm.reason = Some(format!(
                "member {} already receives {} groups (HCA limit max_mcast_grp {})",
                f.endpoint(crate::ids::EndpointId(e as u32)).name,
                attached[e],
                limits.hca_groups
            ));
        }
        if adm.mode == "hardware" {
            receivers.iter().for_each(|e| attached[*e] += 1);
            top_hw = top_hw.max(Some(t.mlid));
        }
        if first_limit.is_none() {
            if let Some(r) = &adm.reason {
                first_limit = Some(format!("group `{}`: {r}", g.name));
            }
        }
        out[i] = Some(adm);
    }
    let groups: Vec<Admission> = out.into_iter().map(|a| a.expect("every group admitted")).collect();
    let count = |m: &str| groups.iter().filter(|a| a.mode == m).count();
    let widest = f.switches().iter().map(|s| s.ports).max().unwrap_or(0) as u32;
    Ok(Report {
        limits: limits.clone(),
        mlid_ceiling: ceiling,
        hardware: count("hardware"),
        software: count("software"),
        none: count("none"),
        first_limit,
        mft_blocks_used: top_hw.map_or(0, |m| (m - MCAST_LID_START) / MCAST_BLOCK_SIZE + 1),
        mft_blocks_available: min_cap.div_ceil(MCAST_BLOCK_SIZE),
        mask_positions: (widest + 1).div_ceil(MCAST_MASK_SIZE as u32),
        groups,
    })
}
