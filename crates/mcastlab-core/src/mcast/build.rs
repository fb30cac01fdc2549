//! MFTs for every group at once: MLIDs allocated as OpenSM does, one tree per MLID with OpenSM's
//! default builder, and one switch state holding all of them.

use super::groups::Group;
use super::select::{member_name, Member};
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::io::lids::lid_plan;
use crate::io::mft_dump::{guid_table_order, MCAST_LID_END, MCAST_LID_START};
use crate::plan::MftEntry;
use crate::routing::hop_matrix::default_mcast_builder;
use crate::routing::{self, Routing};
use crate::schemes::ib_opensm::{opensm_tree_members, HopTable, McastHops};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeSet;

/// The hop counts OpenSM's multicast builder reads: the ones the unicast routing engine in force
/// left in the switches (opensm.md §1.10). `None` is OpenSM's default engine, `minhop`, whose
/// matrix is the exact min-hop one ([`HopTable`], a BFS over all switches). A routing spec builds
/// that engine and reads its matrix ([`hops_for_routing`]). Engines with their own multicast
/// builder (dfsssp, sssp, nue, torus-2QoS) are refused with the builder they use, and `ftree`
/// (not a mcastlab engine) with the default-equivalent engine to name instead.
pub fn hop_matrix(f: &Fabric, routing: Option<&str>) -> Result<Box<dyn McastHops>, PlanError> {
    let bad = |message: String| PlanError::Param { param: "routing", message };
    let Some(text) = routing else { return Ok(Box::new(HopTable::new(f, &f.switch_ids().collect::<Vec<_>>()))) };
    let name = text.split(':').next().unwrap_or("").trim();
    default_mcast_builder(name).map_err(bad)?;
    if name.eq_ignore_ascii_case("ftree") {
        return Err(bad(
            "OpenSM's `ftree` engine is not modelled as a unicast engine; it keeps the default multicast builder \
             and, on a proper fat-tree, minhop's hop counts (opensm.md §1.10): name minhop instead"
                .into(),
        ));
    }
    let r = routing::build(f, Some(text)).map_err(|e| bad(e.to_string()))?;
    Ok(hops_for_routing(f, r.as_ref()))
}

/// The hop counts of an already built routing: the engine's own matrix for OpenSM's `minhop` and
/// `updn`; for routings that leave none (mcastlab's own engines, loaded LFTs) minhop's, which is
/// what OpenSM falls back to (`build_lid_matrices` of minhop, opensm.md §2).
pub fn hops_for_routing(f: &Fabric, r: &dyn Routing) -> Box<dyn McastHops> {
    match r.opensm_matrix() {
        Some(m) => Box::new(m),
        None => Box::new(HopTable::new(f, &f.switch_ids().collect::<Vec<_>>())),
    }
}

/// MLIDs for the groups, in their order: explicit MLIDs first (they are what the subnet already
/// uses), then the IPoIB broadcast group (OpenSM creates it at start-up, so it takes the lowest
/// free MLID, 0xC000 unless asked for), then the others first-fit from 0xC000 in file order
/// (`get_new_mlid`, opensm.md §1.2). Fails when the range 0xC000..=0xFFFE runs out.
pub fn allocate_mlids(groups: &[Group]) -> Result<Vec<u32>, PlanError> {
    let mut used: BTreeSet<u32> = groups.iter().filter_map(|g| g.mlid).collect();
    let mut next = MCAST_LID_START;
    let mut take = |used: &mut BTreeSet<u32>, name: &str| -> Result<u32, PlanError> {
        while used.contains(&next) {
            next += 1;
        }
        if next > MCAST_LID_END {
            return Err(PlanError::Group(format!(
                "group `{name}`: all MLIDs 0xC000..=0xFFFE are in use ({} groups)",
                used.len()
            )));
        }
        used.insert(next);
        Ok(next)
    };
    let mut out: Vec<Option<u32>> = groups.iter().map(|g| g.mlid).collect();
    for (i, g) in groups.iter().enumerate().filter(|(_, g)| g.ipoib && g.mlid.is_none()) {
        out[i] = Some(take(&mut used, &g.name)?);
    }
    for (i, g) in groups.iter().enumerate() {
        if out[i].is_none() {
            out[i] = Some(take(&mut used, &g.name)?);
        }
    }
    Ok(out.into_iter().map(|m| m.expect("every group was given an MLID")).collect())
}

/// What one group got.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupTables {
    pub name: String,
    pub mlid: u32,
    pub members: usize,
    /// Root switch name; None when nothing was programmed.
    pub root: Option<String>,
    /// Switches holding a non-empty MFT row for this MLID.
    pub switches: usize,
    /// Why nothing was programmed (fewer than two members), if so.
    pub note: Option<String>,
    /// Members OpenSM would drop (no path, deeper than 63 switches).
    pub dropped: Vec<String>,
}

/// Every group's MFT rows in one switch state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tables {
    pub groups: Vec<GroupTables>,
    /// All rows, by MLID then switch.
    pub mft: Vec<MftEntry>,
}

/// Builds OpenSM's default tree for every group over `hops` (from [`hop_matrix`]). Groups are
/// independent (every MLID is routed on its own), so their trees are built in parallel and
/// collected in MLID order: the result does not depend on the thread count.
pub fn build(f: &Fabric, hops: &dyn McastHops, groups: &[Group]) -> Result<Tables, PlanError> {
    let mlids = allocate_mlids(groups)?;
    let order = guid_table_order(f);
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    idx.sort_by_key(|i| mlids[*i]);
    let built: Vec<(usize, GroupTables, Vec<MftEntry>)> = idx
        .into_par_iter()
        .map(|i| {
            let g = &groups[i];
            let members: Vec<Member> = g.members.iter().map(|(m, _)| *m).collect();
            let tree = opensm_tree_members(f, hops, &order, &members, mlids[i]);
            let note = (members.len() < 2).then(|| {
                format!("{} member(s): OpenSM programs nothing for a group of fewer than two ports", members.len())
            });
            let report = GroupTables {
                name: g.name.clone(),
                mlid: mlids[i],
                members: members.len(),
                root: tree.root.map(|s| f.switch(s).name.clone()),
                switches: tree.mft.len(),
                note,
                dropped: tree.dropped.iter().map(|m| member_name(f, *m)).collect(),
            };
            (i, report, tree.mft)
        })
        .collect();
    let mut reports: Vec<Option<GroupTables>> = vec![None; groups.len()];
    let mut out = Tables { groups: Vec::with_capacity(groups.len()), mft: Vec::new() };
    for (i, report, mft) in built {
        reports[i] = Some(report);
        out.mft.extend(mft);
    }
    out.groups = reports.into_iter().map(|r| r.expect("every group built")).collect();
    Ok(out)
}

/// `ibroute -M` text (`brief` = `-n`) of every switch holding a row, in switch-table order, as
/// `dump_fts -M` concatenates them. Switches are addressed by the fabric's LID plan
/// ([`lid_plan`], the one the LFT dumps use). Rows are grouped by switch first, so the cost is
/// linear in the rows.
pub fn ibroute_text(f: &Fabric, mft: &[MftEntry], brief: bool) -> Result<String, PlanError> {
    let mut by_switch: Vec<Vec<MftEntry>> = vec![Vec::new(); f.num_switches()];
    for e in mft {
        if e.switch.idx() >= f.num_switches() {
            return Err(PlanError::Param {
                param: "switch",
                message: format!("switch {} outside the fabric", e.switch.0),
            });
        }
        by_switch[e.switch.idx()].push(e.clone());
    }
    let lids = lid_plan(f);
    let mut out = String::new();
    for s in guid_table_order(f) {
        let rows = &by_switch[s.idx()];
        if rows.is_empty() {
            continue;
        }
        let lid = lids.switch[s.idx()];
        out.push_str(&crate::io::mft_dump::ibroute_mft(f, rows, s, lid, brief)?);
    }
    Ok(out)
}
