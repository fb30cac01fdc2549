//! The fabric: switches with numbered ports, endpoints (host + NI) and the links between ports.
//!
//! A [`Fabric`] is immutable once built and always valid: every link joins existing ports, no port
//! carries two links, every endpoint is attached to exactly one switch port, and every endpoint can
//! reach every other one. Builders (generators, importers, the JSON loader) go through
//! [`Fabric::new`], which checks all of that and builds the lookup indexes.
//!
//! | file | what |
//! | --- | --- |
//! | `mod.rs` | [`Fabric`] (the parts and their lookup indexes) and its serialized form [`FabricData`] |
//! | `parts.rs` | [`Switch`], [`Endpoint`], [`Link`] between [`Terminal`]s, [`IbInfo`]; [`Channel`], [`PortPeer`] |
//! | `build.rs` | construction: [`Fabric::new`] validates the parts and builds the indexes |
//! | `query.rs` | structure queries: counts, ports, attachments, channels, neighbours |
//! | `find.rs` | resolving a user's reference (index, name, GUID, description) to an endpoint or switch |
//! | `display.rs` | human-readable terminals and channels (`SW<00,2>[3] -> SW<00,1>[1]`) |
//! | `spec.rs`, `topology.rs`, `generators/` | spec strings, the recorded [`Topology`], one file per generator |

mod build;
mod display;
pub mod eccentricity;
mod find;
pub mod limits;
mod parts;
mod query;
pub mod speed;

pub mod generators;
pub mod spec;
pub mod topology;

use crate::error::FabricError;
use crate::ids::{EndpointId, LinkId, PortNum, SwitchId};
pub use parts::{
    lid_lmc_problem, Channel, Endpoint, IbInfo, Link, PortPeer, Switch, Terminal, MAX_LMC, MAX_UNICAST_LID,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
pub use topology::Topology;

/// The serialized form of a fabric (JSON schema `mcastlab-fabric` version 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricData {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub topology: Topology,
    pub switches: Vec<Switch>,
    pub endpoints: Vec<Endpoint>,
    pub links: Vec<Link>,
}

/// Schema name written in every JSON fabric.
pub const FORMAT_NAME: &str = "mcastlab-fabric";
/// Current schema version; see docs/formats.md.
pub const FORMAT_VERSION: u32 = 1;

/// A validated fabric with lookup indexes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "FabricData", into = "FabricData")]
pub struct Fabric {
    data: FabricData,
    /// `port_base[s] + (p - 1)` indexes `port_link` for switch s, port p.
    port_base: Vec<u32>,
    port_link: Vec<Option<LinkId>>,
    /// Switch and port each endpoint is attached to.
    attach: Vec<(SwitchId, PortNum)>,
    /// Endpoints attached to each switch, in port order.
    at_switch: Vec<Vec<EndpointId>>,
    name_to_endpoint: BTreeMap<String, EndpointId>,
    name_to_switch: BTreeMap<String, SwitchId>,
}

impl PartialEq for Fabric {
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl TryFrom<FabricData> for Fabric {
    type Error = FabricError;
    fn try_from(d: FabricData) -> Result<Self, FabricError> {
        if d.format != FORMAT_NAME {
            return Err(FabricError::Invalid(format!("`format` is `{}`, expected `{FORMAT_NAME}`", d.format)));
        }
        if d.version != FORMAT_VERSION {
            return Err(FabricError::Invalid(format!(
                "schema version {} is not supported (this mcastlab reads version {FORMAT_VERSION})",
                d.version
            )));
        }
        Fabric::new(d.name, d.topology, d.switches, d.endpoints, d.links)
    }
}

impl From<Fabric> for FabricData {
    fn from(f: Fabric) -> Self {
        f.data
    }
}
