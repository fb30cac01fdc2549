//! `mport_lmc` routing (to be completed).

use super::{Arrival, Hop, Routing, RoutingEntry};
use crate::error::RoutingError;
use crate::fabric::Fabric;
use crate::ids::{Address, SwitchId};
use serde_json::{Map, Value};

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "mport_lmc",
    summary: "(to be completed)",
    params: "",
    applies_to: "",
    applies: |_f: &Fabric| Err("not implemented yet".into()),
    build: build,
};

fn build(_f: &Fabric, _p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    Err(RoutingError::NotApplicable { engine: "mport_lmc", reason: "not implemented yet".into() })
}

#[allow(dead_code)]
#[derive(Debug)]
struct Stub;

impl Routing for Stub {
    fn engine(&self) -> &'static str {
        "mport_lmc"
    }
    fn spec(&self) -> String {
        "mport_lmc".into()
    }
    fn num_addresses(&self) -> usize {
        0
    }
    fn next_hops(&self, _at: SwitchId, _arrived: Arrival, _to: Address, out: &mut Vec<Hop>) {
        out.clear();
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
