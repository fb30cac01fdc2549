//! Deadlock diagnosis for the iq network: which input buffers wait for which, and a cycle among
//! them when there is one (the same report as the simple router's `sim::watchdog`).
//!
//! A routed packet's branch waits for a buffer in two ways: it has no output VC and every VC of
//! its class is held (it waits for the buffers whose packets hold them), or it holds its VC, its
//! next flit is there, but the buffer behind the VC has no room (it waits for that buffer).

use super::{IqNet, VcState, SOURCE};
use crate::sim::engine::Simulation;
use crate::sim::result::{Diagnosis, Outcome};
use crate::sim::watchdog::find_cycle;
use crate::sim::NONE;
use std::collections::BTreeMap;

/// Stops the run with a diagnosis of what is blocked.
pub(crate) fn diagnose(sim: &Simulation<'_>, reason: &str) -> Outcome {
    let net = sim.iq.as_ref().expect("iq router");
    let mut waits: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut blocked = Vec::new();
    for ivc in 0..net.vcs.len() as u32 {
        for (target, why) in blockers(net, ivc) {
            let pid = net.vcs[ivc as usize].heads.front().map_or(0, |h| h.pid);
            blocked.push(format!("{} (packet {pid}): {}", sim.buffer_name(ivc), why(sim)));
            waits.entry(ivc).or_default().push(target);
        }
    }
    for (e, s) in net.sources.iter().enumerate() {
        let waiting = s.queue.len() + s.cur.is_some() as usize;
        if waiting > 0 {
            blocked.push(format!(
                "source queue of {}: {waiting} packet(s) waiting to enter {}",
                sim.f.endpoints()[e].name,
                sim.f.channel_str(crate::fabric::Channel(s.chan))
            ));
        }
    }
    let cycle = find_cycle(&waits).into_iter().map(|b| sim.buffer_name(b)).collect();
    Outcome::Deadlock { at_ps: sim.now, reason: reason.to_string(), diagnosis: Diagnosis { cycle, blocked } }
}

/// Explanation of a wait, rendered with the simulation's buffer names.
type Why = Box<dyn Fn(&Simulation<'_>) -> String>;

/// What the routed packet at the front of `ivc` waits for in cycle `c`: (buffer, explanation).
fn blockers(net: &IqNet, ivc: u32) -> Vec<(u32, Why)> {
    let v = net.cfg.v;
    let b = &net.vcs[ivc as usize];
    let mut out: Vec<(u32, Why)> = Vec::new();
    if b.state != VcState::Routed {
        return out;
    }
    let flits = b.flits;
    for br in (0..b.branches as usize).map(|k| b.branch(k)).filter(|br| br.sent < flits) {
        if br.ovc == NONE {
            let holders: Vec<u32> =
                (br.lo as u32..br.hi as u32).map(|w| net.vcs[(br.chan * v + w) as usize].holder).collect();
            if holders.iter().all(|&h| h != NONE) {
                for h in holders.into_iter().filter(|&h| h != SOURCE) {
                    let chan = br.chan;
                    out.push((
                        h,
                        Box::new(move |s: &Simulation<'_>| {
                            format!(
                                "every VC it may take on {} is held; one by the packet in {}",
                                s.f.channel_str(crate::fabric::Channel(chan)),
                                s.buffer_name(h)
                            )
                        }),
                    ));
                }
            }
            continue;
        }
        if b.here(br.sent - b.freed) && net.vcs[br.ovc as usize].credits == 0 && net.to_router[br.chan as usize] != NONE
        {
            let down = br.ovc;
            out.push((down, Box::new(move |s: &Simulation<'_>| format!("no credit for {}", s.buffer_name(down)))));
        }
    }
    out
}
