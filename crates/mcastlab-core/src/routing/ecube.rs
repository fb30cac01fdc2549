//! `ecube`: e-cube routing on the switch hypercube (bhoedjang98's Myrinet cluster): correct the
//! lowest differing address bit first. Deterministic and deadlock-free with one VC class, because
//! every route crosses dimensions in increasing order.

use super::{Arrival, Hop, Routing, RoutingEntry};
use crate::error::RoutingError;
use crate::fabric::{spec, Fabric, Topology};
use crate::ids::{Address, PortNum, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "ecube",
    summary: "e-cube routing: lowest differing dimension first",
    params: "",
    applies_to: "hypercube",
    applies,
    build,
};

fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::Hypercube(_) => crate::fabric::generators::matches_generated(f),
        other => Err(format!("ecube needs a hypercube fabric (this one is `{}`)", other.kind())),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

#[derive(Debug)]
pub struct Ecube {
    per_switch: u32,
    endpoints: usize,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let _: Params = spec::typed("routing", "ecube", p)?;
    let Topology::Hypercube(h) = f.topology() else { unreachable!("checked by applies") };
    Ok(Box::new(Ecube { per_switch: h.endpoints_per_switch, endpoints: f.num_endpoints() }))
}

impl Routing for Ecube {
    fn engine(&self) -> &'static str {
        "ecube"
    }
    fn spec(&self) -> String {
        "ecube".into()
    }
    fn num_addresses(&self) -> usize {
        self.endpoints
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        if to.0 as usize >= self.endpoints {
            return;
        }
        let c = self.per_switch;
        let dst_switch = to.0 / c;
        let diff = at.0 ^ dst_switch;
        let port = if diff == 0 { 1 + to.0 % c } else { c + 1 + diff.trailing_zeros() };
        out.push(Hop { port: PortNum(port as u16), vc: 0 });
    }
    fn facts(&self) -> Vec<(String, String)> {
        vec![("order".into(), "lowest differing dimension first".into())]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
