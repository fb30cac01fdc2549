//! How a fabric was made: the generator and its parameters (serde tag = generator name), or the
//! file it was imported from. Stored in every JSON fabric so routing engines that need structure
//! (coordinates, fat-tree labels) can verify and use it after a reload.

use super::generators::{
    hypercube::HypercubeParams, irregular::IrregularParams, kary_ntree::KaryNtreeParams, mport_ntree::MportNtreeParams,
    torus::MeshParams, torus::TorusParams,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "generator", rename_all = "snake_case")]
pub enum Topology {
    Irregular(IrregularParams),
    Torus(TorusParams),
    Mesh(MeshParams),
    MportNtree(MportNtreeParams),
    KaryNtree(KaryNtreeParams),
    Hypercube(HypercubeParams),
    /// Read from a file of another format (`ibnetdiscover`).
    Imported {
        format: String,
        source: String,
    },
    /// Built by hand (tests, Python users).
    Custom {},
}

impl Topology {
    /// Registry name of the generator, or `imported` / `custom`.
    pub fn kind(&self) -> &'static str {
        match self {
            Topology::Irregular(_) => "irregular",
            Topology::Torus(_) => "torus",
            Topology::Mesh(_) => "mesh",
            Topology::MportNtree(_) => "mport_ntree",
            Topology::KaryNtree(_) => "kary_ntree",
            Topology::Hypercube(_) => "hypercube",
            Topology::Imported { .. } => "imported",
            Topology::Custom {} => "custom",
        }
    }
}
