//! `bitstring`: one-phase multicast with a single tree-based worm whose header is an N-bit
//! destination string (sivaram98 §5.3).
//!
//! The switches decode it with reachability strings, set up here by the procedure of Fig. 18:
//! - step 1: the total string `r_i` of a switch is every endpoint on its down ports — its own
//!   endpoints, and the total strings of the switches its down links lead to; the unrestricted
//!   string `r_ij` of a down port is what that port alone leads to;
//! - step 2: the restricted string of down port `j` drops whatever a higher-numbered down port
//!   also reaches (`r_ij ∧ ¬r_ik` for every down port `k > j`), so each endpoint is the
//!   responsibility of exactly one down port.
//!
//! Order of the computation: Fig. 18 goes from the deepest BFS level up. A cross link between two
//! switches of the same level is also a down link (from the lower id to the higher, §2.2), so a
//! switch's total string may need a same-level neighbour's first. We take switches by decreasing
//! level and, within a level, by decreasing id: every down link then leads to a switch already
//! done (a reverse topological order of the down DAG), and without same-level down links it is
//! simply the paper's level order.
//!
//! The decoder (`plan::walk::bitstring`, §5.3.3) treats ports that are not listed as up ports, so
//! every down port is listed, endpoint ports and ports with an empty restricted string included.
//! A self-loop cable leads nowhere: it is listed with an empty string so it is neither used going
//! down nor taken for an up port.

use super::{poc, SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric, Terminal};
use crate::ids::{PortNum, SwitchId};
use crate::plan::{Carrier, EndpointSet, Plan, SwitchReach, SwitchState, Transmission, Trigger};
use crate::routing::updown::UpDown;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "bitstring",
    summary: "one tree-based worm with a bit-string header and restricted reachability strings (sivaram98 §5.3)",
    params: "",
    applies_to: "fabrics with switch-to-switch links routed by up*/down* (irregular, imported)",
    applies: poc::applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

/// What one port of a switch contributes to the strings.
enum PortRole {
    /// An endpoint, a down link to another switch, or a self-loop: listed, with its unrestricted
    /// string.
    Down(EndpointSet),
    /// An up link or an unconnected port: not listed.
    Other,
}

/// The reachability strings of every switch (Fig. 18), indexed by switch id.
pub fn reachability_strings(f: &Fabric, ud: &UpDown) -> Vec<SwitchReach> {
    let n = f.num_endpoints();
    let mut order: Vec<SwitchId> = f.switch_ids().collect();
    order.sort_by_key(|s| std::cmp::Reverse((ud.level(*s), *s)));
    let mut out: Vec<Option<SwitchReach>> = vec![None; f.num_switches()];
    for s in order {
        let total_of = |t: SwitchId| out[t.idx()].as_ref().map(|r| &r.total);
        let ports: Vec<(PortNum, EndpointSet)> = f
            .switch_ports(s)
            .filter_map(|p| match port_role(f, ud, s, p, n, &total_of) {
                PortRole::Down(set) => Some((p, set)),
                PortRole::Other => None,
            })
            .collect();
        out[s.idx()] = Some(restrict(s, ports, n));
    }
    out.into_iter().map(|r| r.expect("every switch is processed")).collect()
}

/// Classifies port `p` of `s` and gives its unrestricted string.
fn port_role<'a>(
    f: &Fabric,
    ud: &UpDown,
    s: SwitchId,
    p: PortNum,
    n: usize,
    total_of: &impl Fn(SwitchId) -> Option<&'a EndpointSet>,
) -> PortRole {
    let Some(pp) = f.port(s, p) else { return PortRole::Other };
    match pp.peer {
        Terminal::Endpoint { endpoint } => PortRole::Down(EndpointSet::from_endpoints(n, &[endpoint])),
        Terminal::Switch { switch, .. } if switch == s => PortRole::Down(EndpointSet::with_capacity(n)),
        Terminal::Switch { switch, .. } if ud.is_down(pp.link, s) == Some(true) => {
            PortRole::Down(total_of(switch).expect("down links lead to switches done before").clone())
        }
        Terminal::Switch { .. } => PortRole::Other,
    }
}

/// Step 2 of Fig. 18 and the total string: a down port keeps only what no higher-numbered down
/// port reaches (one pass from the highest port down, carrying the union seen so far).
fn restrict(s: SwitchId, mut ports: Vec<(PortNum, EndpointSet)>, n: usize) -> SwitchReach {
    let mut seen = EndpointSet::with_capacity(n);
    for (_, set) in ports.iter_mut().rev() {
        let full = set.clone();
        set.0.difference_with(&seen.0);
        seen.union_with(&full);
    }
    SwitchReach { switch: s, total: seen, down: ports }
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let _: Params = spec::typed("scheme", "bitstring", p)?;
    let ud = poc::updown(input, "bitstring")?;
    let mut dests = input.destinations.to_vec();
    dests.sort_unstable();
    let tx = Transmission {
        sender: input.source,
        trigger: Trigger::Start,
        carrier: Carrier::Bitstring { dests: dests.clone() },
        delivers: dests,
    };
    let state = SwitchState { mft: Vec::new(), reachability: reachability_strings(input.fabric, ud) };
    Plan::from_transmissions(
        input.fabric,
        "bitstring",
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        vec![tx],
    )?
    .with_switch_state(input.fabric, state)
}
