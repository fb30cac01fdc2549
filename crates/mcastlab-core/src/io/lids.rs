//! The one LID plan of a fabric: which LID every endpoint and switch answers to. Unicast LFT
//! dumps (`opensm-lfts.dump`), multicast dumps (`ibroute -M` headers) and member selectors
//! (`lid:33`) all read it, so a LID means the same port in every file mcastlab writes or reads.
//!
//! When every switch and endpoint carries an imported LID (an ibnetdiscover dump with LIDs),
//! those, with each endpoint's LMC; otherwise endpoint `i` gets LID `i + 1` and switch `j` LID
//! `E + 1 + j` (E endpoints), LMC 0 — the order OpenSM's LID manager would hand out on a fresh
//! subnet is not knowable without a sweep, so mcastlab picks this dense, documented one.

use crate::fabric::Fabric;
use crate::ids::{EndpointId, SwitchId};

/// LIDs of every endpoint and every switch (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LidPlan {
    /// Base LID of endpoint `i`.
    pub endpoint: Vec<u32>,
    /// LMC of endpoint `i` (its LIDs are `base .. base + 2^lmc`).
    pub lmc: Vec<u8>,
    /// LID of switch `j` (port 0; switches have LMC 0).
    pub switch: Vec<u32>,
    /// Whether the LIDs are the imported ones.
    pub imported: bool,
}

/// Who answers to a LID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LidOwner {
    Endpoint(EndpointId),
    Switch(SwitchId),
}

/// The fabric's LID plan (see the module doc).
pub fn lid_plan(f: &Fabric) -> LidPlan {
    let ep: Option<Vec<u32>> = f.endpoints().iter().map(|e| e.ib.as_ref().and_then(|i| i.lid)).collect();
    let sw: Option<Vec<u32>> = f.switches().iter().map(|s| s.ib.as_ref().and_then(|i| i.lid)).collect();
    match (ep, sw) {
        (Some(endpoint), Some(switch)) => {
            let lmc = f.endpoints().iter().map(|e| e.ib.as_ref().and_then(|i| i.lmc).unwrap_or(0).min(7)).collect();
            LidPlan { endpoint, lmc, switch, imported: true }
        }
        _ => {
            let e = f.num_endpoints() as u32;
            LidPlan {
                endpoint: (1..=e).collect(),
                lmc: vec![0; e as usize],
                switch: (0..f.num_switches() as u32).map(|j| e + 1 + j).collect(),
                imported: false,
            }
        }
    }
}

impl LidPlan {
    /// `(first LID, last LID, owner)` of every port, sorted by first LID, for range lookups.
    pub fn ranges(&self) -> Vec<(u32, u32, LidOwner)> {
        let mut out: Vec<(u32, u32, LidOwner)> = self
            .endpoint
            .iter()
            .zip(&self.lmc)
            .enumerate()
            .map(|(i, (l, m))| (*l, *l + (1u32 << m) - 1, LidOwner::Endpoint(EndpointId(i as u32))))
            .chain(self.switch.iter().enumerate().map(|(j, l)| (*l, *l, LidOwner::Switch(SwitchId(j as u32)))))
            .collect();
        out.sort_unstable_by_key(|(lo, hi, _)| (*lo, *hi));
        out
    }
}
