//! `mport_ntree`: the m-port n-tree IBFT(m, n) of zhou07 §2.2 (to be completed).

use super::GeneratorEntry;
use crate::error::FabricError;
use crate::fabric::Fabric;
use serde::{Deserialize, Serialize};

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "mport_ntree",
    summary: "m-port n-tree InfiniBand fat-tree IBFT(m, n) (zhou07 §2.2)",
    params: "m=8 n=3",
    positional: None,
    endpoint_order: "PID order: endpoint PID(P(p)) = sum p_i (m/2)^(n-1-i); named P(p0p1...)",
    default_routing: "mport_lmc",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MportNtreeParams {
    pub m: u32,
    pub n: u32,
}

impl Default for MportNtreeParams {
    fn default() -> Self {
        MportNtreeParams { m: 8, n: 3 }
    }
}

pub fn build(_p: &MportNtreeParams) -> Result<Fabric, FabricError> {
    Err(FabricError::Invalid("mport_ntree: not implemented yet".into()))
}
