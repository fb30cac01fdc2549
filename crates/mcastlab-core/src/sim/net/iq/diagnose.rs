//! Deadlock diagnosis for the iq network: which input buffers wait for which, and a cycle among
//! them when there is one (the same report as the flit router's `sim::net::flit::diagnose`).
//!
//! A routed packet's branch waits for a buffer in two ways: it has no output VC and every VC of
//! its class is held (it waits for the buffers whose packets hold them), or it holds its VC, its
//! next flit is there, but the buffer behind the VC has no room (it waits for that buffer).

use super::{IqNet, VcState};
use crate::fabric::{Channel, Fabric};
use crate::sim::ids::{IqVcId, VcId};
use crate::sim::net::buffer_name;
use crate::sim::net::waits::find_cycle;
use crate::sim::result::Diagnosis;
use std::collections::BTreeMap;

/// What is blocked, and a cycle of buffers each waiting for the next if there is one. Buffers are
/// gone through, and named, in the simulator's numbering (channel · V + VC), not the network's.
pub(crate) fn diagnose(net: &IqNet, f: &Fabric) -> Diagnosis {
    let v = net.cfg.v;
    let name = |b: VcId| buffer_name(f, v, b);
    let mut waits: BTreeMap<VcId, Vec<VcId>> = BTreeMap::new();
    let mut blocked = Vec::new();
    let holders = holders(net);
    for i in 0..net.vcs.len() {
        let seen = VcId::from_index(i);
        let ivc = net.vc_of(Channel(seen.chan(v)), seen.vc(v));
        for (target, why) in blockers(net, f, &holders, ivc) {
            let pid = net.vcs[ivc.idx()].front.map_or(0, |h| h.pid.0);
            blocked.push(format!("{} (packet {pid}): {why}", name(seen)));
            waits.entry(seen).or_default().push(net.outside(target));
        }
    }
    for (e, s) in net.sources.iter().enumerate() {
        let waiting = s.queue.len() + s.cur.is_some() as usize;
        if waiting > 0 {
            blocked.push(format!(
                "source queue of {}: {waiting} packet(s) waiting to enter {}",
                f.endpoints()[e].name,
                f.channel_str(s.chan)
            ));
        }
    }
    let cycle = find_cycle(&waits).into_iter().map(name).collect();
    Diagnosis { cycle, blocked }
}

/// Per VC (the network's numbering), the input VC whose packet holds it: the branches that
/// were granted an output VC and have not sent their tail on it (which gives it back), read
/// from every routed buffer (the step keeps only whether a VC is held).
fn holders(net: &IqNet) -> Vec<Option<IqVcId>> {
    let mut out = vec![None; net.vcs.len()];
    for (i, b) in net.vcs.iter().enumerate() {
        if b.state == VcState::Routed {
            let holding = (0..b.branches as usize).map(|k| b.branch(k)).filter(|br| br.sent < b.flits);
            for ovc in holding.filter_map(|br| br.ovc) {
                debug_assert!(out[ovc.idx()].is_none(), "one packet holds a VC");
                out[ovc.idx()] = Some(IqVcId::from_index(i));
            }
        }
    }
    debug_assert!(
        (0..out.len()).all(|x| out[x].is_some() == net.held.is_held(IqVcId::from_index(x))),
        "the branches holding VCs are those VA marked held"
    );
    out
}

/// What the routed packet at the front of `ivc` waits for: (buffer, explanation), in the
/// network's numbering; `holders` as [`holders`] gives them.
fn blockers(net: &IqNet, f: &Fabric, holders: &[Option<IqVcId>], ivc: IqVcId) -> Vec<(IqVcId, String)> {
    let v = net.cfg.v;
    let name = |b: IqVcId| buffer_name(f, v, net.outside(b));
    let b = &net.vcs[ivc.idx()];
    let mut out = Vec::new();
    if b.state != VcState::Routed {
        return out;
    }
    let flits = b.flits;
    for br in (0..b.branches as usize).map(|k| b.branch(k)).filter(|br| br.sent < flits) {
        let Some(ovc) = br.ovc else {
            let holders: Vec<Option<IqVcId>> =
                (br.lo as u32..br.hi as u32).map(|w| holders[net.vc_of(br.chan, w).idx()]).collect();
            if holders.iter().all(Option::is_some) {
                for h in holders.into_iter().flatten() {
                    let why = format!(
                        "every VC it may take on {} is held; one by the packet in {}",
                        f.channel_str(Channel(br.chan.0)),
                        name(h)
                    );
                    out.push((h, why));
                }
            }
            continue;
        };
        if b.here(br.sent - b.freed) && net.credits[ovc.idx()] == 0 && net.wiring.to_router[br.chan.idx()].is_some() {
            out.push((ovc, format!("no credit for {}", name(ovc))));
        }
    }
    out
}
