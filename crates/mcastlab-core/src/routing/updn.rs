//! `updn`: OpenSM's up/down engine (opensm.md §2.2), distinct from mcastlab's `updown` (Autonet's
//! single-root BFS tree with adaptive minimal routes). Switches are ranked by BFS distance from a
//! set of roots; a step to a lower rank goes UP, at equal rank UP iff the current GUID is larger,
//! root to root is UP. The hop matrix is built by [`HopMatrix::updn`], which never extends a path
//! UP after a DOWN step, and the LFTs are minhop's least-loaded choice on that matrix
//! ([`super::opensm_lft`]).
//!
//! Roots: `roots=` names switches (index, name or GUID, joined by `+`), like OpenSM's
//! `root_guid_file`; otherwise OpenSM's automatic rule (`updn_find_root_nodes_by_min_hop`): with
//! minhop distances, a switch is a root when its histogram of hop counts to the CA ports has
//! exactly one bar above 90% of the CAs and exactly one above 5% (the top of a fat-tree sees every
//! CA at the same distance). OpenSM falls back to minhop when no switch qualifies; mcastlab
//! refuses instead and asks for `roots=`, so a spec always means the engine it names.

use super::hop_matrix::{HopMatrix, UpDownRanks};
use super::minhop::{applies, lft_next_hop};
use super::opensm_lft::{self, Lfts};
use super::{Arrival, Hop, Routing, RoutingEntry};
use crate::error::RoutingError;
use crate::fabric::{spec, Fabric};
use crate::ids::{Address, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "updn",
    summary: "OpenSM's updn: up/down-constrained hop matrix from ranked roots, least-loaded minimal port per LID",
    params: "roots=<switch>+<switch>... (default: OpenSM's automatic root detection)",
    applies_to: "any fabric with full-duplex links and switches of at most 254 ports",
    applies,
    build,
};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default)]
    roots: Option<Value>,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let params: Params = spec::typed("routing", "updn", p)?;
    let bad = |message: String| RoutingError::Param { engine: "updn", param: "roots", message };
    let roots = match &params.roots {
        Some(v) => {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let mut roots = Vec::new();
            for key in text.split('+').map(str::trim).filter(|k| !k.is_empty()) {
                roots.push(f.find_switch(key).map_err(|e| bad(e.to_string()))?);
            }
            if roots.is_empty() {
                return Err(bad("names no switch".into()));
            }
            roots
        }
        None => {
            let roots = auto_roots(f, &HopMatrix::minhop(f));
            if roots.is_empty() {
                return Err(bad(
                    "OpenSM's automatic rule finds no root switch in this fabric (OpenSM would fall back \
                                to minhop); name roots with roots=<switch>+<switch>"
                        .into(),
                ));
            }
            roots
        }
    };
    Ok(Box::new(Updn::new(f, roots)))
}

/// OpenSM's automatic root detection (see the module doc), switches by index.
pub fn auto_roots(f: &Fabric, minhop: &HopMatrix) -> Vec<SwitchId> {
    let cas = f.num_endpoints() as f64;
    let (thd1, thd2) = (cas * 0.9, cas * 0.05);
    f.switch_ids()
        .filter(|&s| {
            let mut hist = [0u32; 257];
            for e in f.endpoint_ids() {
                let h = minhop.least(s, f.attachment(e).0) as usize + 1;
                hist[h.min(256)] += 1;
            }
            let over1 = hist.iter().filter(|&&c| c as f64 > thd1).count();
            let over2 = hist.iter().filter(|&&c| c as f64 > thd2).count();
            over1 == 1 && over2 == 1
        })
        .collect()
}

/// The updn routing of one fabric: roots, ranks, hop matrix and LFTs.
#[derive(Debug)]
pub struct Updn {
    roots: Vec<SwitchId>,
    root_names: Vec<String>,
    /// The roots as the spec writes them (names, or indices where a name would not read back).
    root_refs: Vec<String>,
    ranks: UpDownRanks,
    matrix: Arc<HopMatrix>,
    lfts: Lfts,
}

impl Updn {
    pub fn new(f: &Fabric, mut roots: Vec<SwitchId>) -> Updn {
        roots.sort_unstable();
        roots.dedup();
        let ranks = UpDownRanks::new(f, &roots);
        let matrix = Arc::new(HopMatrix::updn(f, &ranks));
        let lfts = opensm_lft::build(f, &matrix);
        let root_names = roots.iter().map(|r| f.switch(*r).name.clone()).collect();
        let root_refs = roots.iter().map(|r| f.switch_spec_ref(*r, &['+'])).collect();
        Updn { roots, root_names, root_refs, ranks, matrix, lfts }
    }
    pub fn roots(&self) -> &[SwitchId] {
        &self.roots
    }
    pub fn ranks(&self) -> &UpDownRanks {
        &self.ranks
    }
}

impl Routing for Updn {
    fn engine(&self) -> &'static str {
        "updn"
    }
    fn spec(&self) -> String {
        format!("updn:roots={}", self.root_refs.join("+"))
    }
    fn num_addresses(&self) -> usize {
        self.lfts.endpoints
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        lft_next_hop(&self.lfts, at, to, out)
    }
    fn facts(&self) -> Vec<(String, String)> {
        let max_rank = self.ranks.rank.iter().filter(|r| **r != u32::MAX).max().copied().unwrap_or(0);
        vec![("roots".into(), self.root_names.join(", ")), ("ranks".into(), (max_rank + 1).to_string())]
    }
    /// The exact turns of the LFTs (see [`opensm_lft::table_turns`]).
    fn turns(&self, f: &Fabric) -> Option<Vec<super::Turn>> {
        Some(opensm_lft::table_turns(f, self.lfts.endpoints, |s, d| {
            self.lfts.to_endpoint(s, crate::ids::EndpointId(d as u32))
        }))
    }
    fn opensm_matrix(&self) -> Option<Arc<HopMatrix>> {
        Some(self.matrix.clone())
    }
    fn programmed_lfts(&self) -> Option<&Lfts> {
        Some(&self.lfts)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
