//! Which granularity a run simulates the network at (`switch.granularity`): `packet` is refused
//! where trains would not be exact, `auto` picks trains where they are and flits elsewhere, and a
//! flit trace always needs flits.
//!
//! The conditions for exact trains, and why each is needed: the simple router (the iq router
//! moves flits cycle by cycle); cut-through or store-and-forward (a wormhole packet may stall
//! with its flits spread over several switches); no circuits held until acknowledgements (they
//! hold VCs past the tail); a routing delay and a credit delay (`link.propagation +
//! switch.credit_delay`) above zero (otherwise a decode or a credit lands inside the link events
//! of the instant that caused it, whose order trains do not keep: `train.rs`); every hop of the
//! plan on VC 0 (two VCs share a link flit by flit, round robin); no Quadrics range multicasts
//! (their all-or-nothing requests for several VCs are left to the flit engine); credits back
//! within the shortest packet's serialization (the flit engine looks again for room at every
//! credit's return while a packet waits, and such a look must never be its last event, whose
//! time is `end_ps`); no flit trace. A workload (many sources, messages created at arbitrary
//! times) runs as trains under the same conditions: its messages contend exactly as a plan's
//! packets do, and what it reads between events (link counts, buffer occupancy, whether events
//! are pending) is taken as the flit engine has it at that instant (`FlitNet::link_flits_at`,
//! `train_held`). Its templates are built as messages come, so a routing with more than one VC
//! class keeps it on flits from the start, and a template that turns out unfit (a range
//! multicast) stops the run, which the workload driver then runs again flit by flit (`sim::run`).
//! Every link at `link.bandwidth`: a fabric whose links carry rates of their own (an imported
//! `4xQDR`/`4xDDR` mix) is left to the flit engine, since a packet streaming from a fast link into
//! a slow one no longer moves at one line rate. NIs drain their links at line rate, so ejection
//! without back-pressure always holds in this simulator.

use crate::plan::{Carrier, Plan};
use crate::sim::params::Params;
use crate::sim::trees::Trees;

/// What decides whether packet trains are exact for one run, besides the parameters.
pub(crate) struct RunShape<'a> {
    /// The single plan of a plan run (`None`: a workload, whose templates come later).
    pub plan: Option<&'a Plan>,
    /// VC classes of the routing (a workload's later templates may use any of them).
    pub vc_classes: u32,
    pub trees: &'a Trees,
    pub message_bytes: u64,
    pub packets: u32,
    /// A flit trace is being recorded.
    pub tracing: bool,
    /// Some link serializes at a rate of its own rather than `link.bandwidth`.
    pub own_rates: bool,
}

/// Why this run cannot use exact packet trains, or `None`: the parameters' conditions, then the
/// plan's (every hop on VC 0, no range multicasts) and the run's (no flit trace).
pub(crate) fn trains_unfit(params: &Params, run: &RunShape<'_>) -> Option<String> {
    if let Some(why) = params.packet_trains_unfit() {
        return Some(why);
    }
    // The flit engine looks again for room at every credit's return while a packet waits; such
    // a look comes at most `credit` after the waiting packet is granted, before that packet's
    // link is done with it only if credits return within the shortest packet's serialization.
    let flit = params.flit_ps();
    let credit = params.link.propagation.ps() + params.switch.credit_delay.ps();
    let shortest = params.flits_for(params.packet_bytes(run.message_bytes, run.packets - 1)) as u64;
    if credit > shortest * flit {
        return Some(format!(
            "credits return after {credit} ps (link.propagation + switch.credit_delay), later than the shortest \
             packet ({shortest} flits) takes to send ({} ps)",
            shortest * flit
        ));
    }
    if run.plan.is_none() && run.vc_classes > 1 {
        return Some(format!(
            "the routing has {} VC classes: a workload's templates, built as its messages come, may put \
             packets on VCs other than 0, whose flits would interleave",
            run.vc_classes
        ));
    }
    if let Some(why) = template_unfit(run.trees, 0..run.trees.len(), run.plan) {
        return Some(why);
    }
    if run.tracing {
        return Some("a flit trace is being recorded".into());
    }
    if run.own_rates {
        return Some("the fabric's links have rates of their own (width and speed), not one link.bandwidth".into());
    }
    None
}

/// Why the tree nodes `nodes` (one template's), and `plan`, rule out exact trains, or `None`:
/// every hop on VC 0, no per-packet route choice and no range multicasts.
pub(crate) fn template_unfit(trees: &Trees, nodes: std::ops::Range<usize>, plan: Option<&Plan>) -> Option<String> {
    if trees.nodes()[nodes.clone()].iter().any(|n| n.vc != 0) {
        return Some("the plan uses more than one VC on a link, whose flits would interleave".into());
    }
    if trees.nodes()[nodes].iter().any(|n| n.fork.is_some()) {
        return Some("the routing chooses a route per packet at run time (left to the flit engine)".into());
    }
    if plan.is_some_and(|p| p.transmissions.iter().any(|t| matches!(t.carrier, Carrier::Range { .. }))) {
        return Some("range multicasts ask for all their output VCs at once (left to the flit engine)".into());
    }
    None
}
