//! `kary_ntree`: the k-ary n-tree of coll03 §2 (to be completed).

use super::GeneratorEntry;
use crate::error::FabricError;
use crate::fabric::Fabric;
use serde::{Deserialize, Serialize};

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "kary_ntree",
    summary: "k-ary n-tree fat-tree; k=4 is the Quadrics quaternary fat-tree (coll03 §2)",
    params: "k=4 n=2",
    positional: None,
    endpoint_order: "left to right: endpoint x is port (x mod k)+1 of leaf switch x div k",
    default_routing: "nca",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KaryNtreeParams {
    pub k: u32,
    pub n: u32,
}

impl Default for KaryNtreeParams {
    fn default() -> Self {
        KaryNtreeParams { k: 4, n: 2 }
    }
}

pub fn build(_p: &KaryNtreeParams) -> Result<Fabric, FabricError> {
    Err(FabricError::Invalid("kary_ntree: not implemented yet".into()))
}
