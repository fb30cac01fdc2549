//! `dor`: dimension-order routing on tori and meshes.
//!
//! A packet corrects dimension 0 first, then 1, and so on. In a mesh it moves towards the target
//! coordinate; in a bidirectional torus it takes the shorter way round (ties go the `+` way); in a
//! unidirectional torus it can only go `+`.
//!
//! Deadlock freedom on tori needs two virtual-channel classes per ring (Dally and Seitz's
//! datelines): a packet travels on class 0 until it takes the wrap-around link of the ring it is in
//! (from coordinate k−1 to 0 going `+`, from 0 to k−1 going `−`) and on class 1 from that link on;
//! it returns to class 0 when it turns into the next dimension. `dor:datelines=false` uses a single
//! class, whose channel dependency graph has the ring cycle — useful to see why datelines exist.

use super::{Arrival, Hop, Routing, RoutingEntry};
use crate::error::RoutingError;
use crate::fabric::generators::torus::coords_of;
use crate::fabric::{spec, Fabric, Topology};
use crate::ids::{Address, PortNum, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "dor",
    summary: "dimension-order routing; datelines (2 VC classes) on tori",
    params: "datelines=true",
    applies_to: "torus, mesh",
    applies,
    build,
};

fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::Torus(_) | Topology::Mesh(_) => crate::fabric::generators::matches_generated(f),
        other => Err(format!("dor needs a torus or mesh fabric (this one is `{}`)", other.kind())),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Params {
    datelines: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params { datelines: true }
    }
}

#[derive(Debug)]
pub struct Dor {
    dims: Vec<u32>,
    wrap: bool,
    unidirectional: bool,
    datelines: bool,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let params: Params = spec::typed("routing", "dor", p)?;
    let (dims, wrap, uni) = match f.topology() {
        Topology::Torus(t) => (t.dims.clone(), true, t.unidirectional),
        Topology::Mesh(m) => (m.dims.clone(), false, false),
        _ => unreachable!("checked by applies"),
    };
    Ok(Box::new(Dor { dims, wrap, unidirectional: uni, datelines: params.datelines && wrap }))
}

impl Dor {
    /// The dimension and direction (`true` = `+`) a packet arriving on `port` was travelling in.
    fn arrival_dim(port: PortNum) -> Option<(usize, bool)> {
        if port.0 < 2 {
            return None;
        }
        let d = ((port.0 - 2) / 2) as usize;
        // Entering through port 3+2d means the packet came from the −d side, moving +.
        Some((d, port.0 % 2 == 1))
    }
}

impl Routing for Dor {
    fn engine(&self) -> &'static str {
        "dor"
    }
    fn spec(&self) -> String {
        if self.wrap {
            format!("dor:datelines={}", self.datelines)
        } else {
            "dor".into()
        }
    }
    fn vc_classes(&self) -> u8 {
        if self.datelines {
            2
        } else {
            1
        }
    }
    fn num_addresses(&self) -> usize {
        self.dims.iter().product::<u32>() as usize
    }
    fn next_hops(&self, at: SwitchId, arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        if at.0 == to.0 {
            out.push(Hop { port: PortNum(1), vc: 0 });
            return;
        }
        let c = coords_of(&self.dims, at.0);
        let t = coords_of(&self.dims, to.0);
        let Some(d) = (0..self.dims.len()).find(|&d| c[d] != t[d]) else { return };
        let k = self.dims[d];
        let plus = if !self.wrap {
            t[d] > c[d]
        } else if self.unidirectional {
            true
        } else {
            let fwd = (t[d] + k - c[d]) % k;
            let back = (c[d] + k - t[d]) % k;
            fwd <= back
        };
        let port = PortNum(if plus { 2 + 2 * d as u16 } else { 3 + 2 * d as u16 });
        let mut vc = 0;
        if self.datelines {
            let wraps = if plus { c[d] == k - 1 } else { c[d] == 0 };
            let same_ring = Dor::arrival_dim(arrived.port) == Some((d, plus));
            if wraps || (same_ring && arrived.vc == 1) {
                vc = 1;
            }
        }
        out.push(Hop { port, vc });
    }
    fn facts(&self) -> Vec<(String, String)> {
        vec![
            ("order".into(), "dimension 0 first".into()),
            (
                "datelines".into(),
                if self.datelines {
                    "on (2 VC classes per ring)".into()
                } else if self.wrap {
                    "off".into()
                } else {
                    "not needed (mesh)".into()
                },
            ),
        ]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
