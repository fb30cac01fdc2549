//! `ib_cyclic`: zhou07's cyclic multicast (§3.3.2) on an m-port n-tree IBFT(m, n).
//!
//! For one source and one group, every switch's MFT row is the union of the output ports that
//! the one-to-one tables (Eqs. 1 and 2, [`MportLmc::out_port`]) give for the LIDs the source
//! selects for each destination (cyclic path selection, §3.2, [`MportLmc::select_lid`]) — taken
//! over the switches those unicast paths actually cross, which is what Fig. 7 lists (a switch
//! off every path never sees the packet, so it gets no row).
//!
//! Why the union replicates each packet exactly once: Eq. 2 sends a climbing packet from source
//! `s` through up port `s_l + m/2 + 1` at level `l`, whatever the destination, so all the
//! source's paths share one ascending chain and only split on the way down, where Eq. 1 gives
//! each subtree a single port. The source's own leaf switch is on that chain: its row holds the
//! up port (if some destination lies elsewhere) and the ports of destinations on the same leaf,
//! never the source's port, so it forwards correctly even though the MFT walk excludes only the
//! arrival port.
//!
//! The tree depends on the source, so each (source, group) pair needs its own MLID; by default
//! `0xC000 + PID(source)`, which keeps the trees of different sources apart.

use super::{SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric, Terminal};
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::io::mft_dump::{MCAST_LID_END, MCAST_LID_START};
use crate::plan::{Carrier, MftEntry, Plan, SwitchState, Transmission, Trigger};
use crate::routing::mport_lmc::{self, MportLmc};
use crate::routing::Routing;
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "ib_cyclic",
    summary: "zhou07 §3.3 cyclic multicast: per-(source, group) MFT, the union of the cyclic-selected paths' ports",
    params: "mlid=<0xC000 + PID(source)>",
    applies_to: "mport_ntree fabrics routed by mport_lmc",
    applies,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// m-port n-trees whose parameters the LID routing accepts (the scheme needs its Eqs. 1 and 2).
fn applies(f: &Fabric) -> Result<(), String> {
    (mport_lmc::ENTRY.applies)(f)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default)]
    mlid: Option<Value>,
}

/// The routing as zhou07's LID routing, or a `routing` parameter error naming what it is.
pub fn lid_routing(r: &dyn Routing) -> Result<&MportLmc, PlanError> {
    r.as_any().downcast_ref::<MportLmc>().ok_or_else(|| PlanError::Param {
        param: "routing",
        message: format!("ib_cyclic needs zhou07's LID routing `mport_lmc`, not `{}`", r.spec()),
    })
}

/// The default MLID of a source's tree: `0xC000 + PID(source)`, if that is still a multicast LID.
pub fn default_mlid(source: EndpointId) -> Result<u32, PlanError> {
    let m = MCAST_LID_START as u64 + source.0 as u64;
    if m > MCAST_LID_END as u64 {
        return Err(PlanError::Param {
            param: "mlid",
            message: format!(
                "the default 0xC000 + PID = 0x{m:X} is past 0xFFFE (InfiniBand has 16,383 MLIDs); give mlid= explicitly"
            ),
        });
    }
    Ok(m as u32)
}

/// The MFT rows of zhou07 §3.3.2 for `source` and `destinations`: per switch on the cyclic
/// paths, the union of their output ports. Rows are sorted by switch, ports ascending. Fails only
/// if the tables lead a packet astray, which would be a bug in the routing.
pub fn cyclic_mft(
    f: &Fabric,
    lmc: &MportLmc,
    source: EndpointId,
    destinations: &[EndpointId],
    mlid: u32,
) -> Result<Vec<MftEntry>, PlanError> {
    let mut hops: Vec<(SwitchId, u16)> = Vec::with_capacity(destinations.len() * (2 * lmc.n() as usize));
    for &d in destinations {
        trace(f, lmc, source, d, &mut hops)?;
    }
    hops.sort_unstable();
    hops.dedup();
    let mut out: Vec<MftEntry> = Vec::new();
    for (s, p) in hops {
        match out.last_mut() {
            Some(e) if e.switch == s => e.ports.push(PortNum(p)),
            _ => out.push(MftEntry { mlid, switch: s, ports: vec![PortNum(p)] }),
        }
    }
    Ok(out)
}

/// Appends `(switch, output port)` for every switch the unicast from `src` to `dst` crosses, with
/// the LID `src` selects (at most 2n − 1 switches).
fn trace(
    f: &Fabric,
    lmc: &MportLmc,
    src: EndpointId,
    dst: EndpointId,
    out: &mut Vec<(SwitchId, u16)>,
) -> Result<(), PlanError> {
    let lid = lmc.select_lid(src, dst);
    let astray = |m: String| PlanError::Invalid { transmission: 0, message: m };
    let (mut s, _) = f.attachment(src);
    for _ in 0..2 * lmc.n() {
        let p = lmc
            .out_port(s, lid)
            .ok_or_else(|| astray(format!("no table entry for LID {lid} at {}", f.switch(s).name)))?;
        out.push((s, p.0));
        match f.port(s, p).map(|pp| pp.peer) {
            Some(Terminal::Switch { switch, .. }) => s = switch,
            Some(Terminal::Endpoint { endpoint }) if endpoint == dst => return Ok(()),
            _ => break,
        }
    }
    Err(astray(format!("LID {lid} from {} does not reach {}", f.endpoint(src).name, f.endpoint(dst).name)))
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "ib_cyclic", p)?;
    let lmc = lid_routing(input.routing)?;
    let mlid = match &params.mlid {
        Some(v) => super::ib_opensm::parse_mlid(v)?,
        None => default_mlid(input.source)?,
    };
    let mft = cyclic_mft(input.fabric, lmc, input.source, input.destinations, mlid)?;
    let tx = vec![Transmission {
        sender: input.source,
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid },
        delivers: input.destinations.to_vec(),
    }];
    Plan::from_transmissions(
        input.fabric,
        &format!("ib_cyclic:mlid=0x{mlid:X}"),
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        tx,
    )?
    .with_switch_state(input.fabric, SwitchState { mft, ..Default::default() })
}
