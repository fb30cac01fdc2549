//! MFTs for every group at once: MLIDs allocated as OpenSM does, one tree per MLID with OpenSM's
//! default builder, and one switch state holding all of them.

use super::groups::Group;
use super::select::{member_name, Member};
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::io::mft_dump::{guid_table_order, MCAST_LID_END, MCAST_LID_START};
use crate::plan::MftEntry;
use crate::schemes::ib_opensm::{opensm_tree_members, HopTable};
use serde::Serialize;
use std::collections::BTreeSet;

/// The hop matrix OpenSM's multicast builder reads: the one the unicast routing engine in force
/// left in the switches. This is the single plug-point for unicast engines: `None` (OpenSM's
/// default `minhop`) is the exact min-hop matrix, computed by BFS over inter-switch links. Engines
/// whose matrix differs (updn's restricted one) are refused until they are wired in here, so no
/// tree is silently built on the wrong matrix.
pub fn hop_matrix(f: &Fabric, routing: Option<&str>) -> Result<HopTable, PlanError> {
    match routing {
        None | Some("minhop") => {
            let all: Vec<_> = f.switch_ids().collect();
            Ok(HopTable::new(f, &all))
        }
        Some(other) => Err(PlanError::Param {
            param: "routing",
            message: format!("the multicast hop matrix of unicast engine `{other}` is not modelled; known: minhop"),
        }),
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

/// Builds OpenSM's default tree for every group over `hops` (from [`hop_matrix`]).
pub fn build(f: &Fabric, hops: &HopTable, groups: &[Group]) -> Result<Tables, PlanError> {
    let mlids = allocate_mlids(groups)?;
    let order = guid_table_order(f);
    let mut out = Tables { groups: Vec::with_capacity(groups.len()), mft: Vec::new() };
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    idx.sort_by_key(|i| mlids[*i]);
    let mut reports: Vec<Option<GroupTables>> = vec![None; groups.len()];
    for i in idx {
        let g = &groups[i];
        let members: Vec<Member> = g.members.iter().map(|(m, _)| *m).collect();
        let tree = opensm_tree_members(f, hops, &order, &members, mlids[i]);
        let note = (members.len() < 2).then(|| {
            format!("{} member(s): OpenSM programs nothing for a group of fewer than two ports", members.len())
        });
        reports[i] = Some(GroupTables {
            name: g.name.clone(),
            mlid: mlids[i],
            members: members.len(),
            root: tree.root.map(|s| f.switch(s).name.clone()),
            switches: tree.mft.len(),
            note,
            dropped: tree.dropped.iter().map(|m| member_name(f, *m)).collect(),
        });
        out.mft.extend(tree.mft);
    }
    out.groups = reports.into_iter().map(|r| r.expect("every group built")).collect();
    Ok(out)
}

/// `ibroute -M` text (`brief` = `-n`) of every switch holding a row, in switch-table order, as
/// `dump_fts -M` concatenates them. A switch without a LID in the fabric is addressed as
/// `Lid <index + 1>`. Rows are grouped by switch first, so the cost is linear in the rows.
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
    let mut out = String::new();
    for s in guid_table_order(f) {
        let rows = &by_switch[s.idx()];
        if rows.is_empty() {
            continue;
        }
        let lid = f.switch(s).ib.as_ref().and_then(|ib| ib.lid).unwrap_or(s.0 + 1);
        out.push_str(&crate::io::mft_dump::ibroute_mft(f, rows, s, lid, brief)?);
    }
    Ok(out)
}
