//! Static facts about a plan on a fabric and routing: exactly-once delivery, conformance of every
//! carrier path to the base routing, deadlock freedom, steps, messages, link visits and per-step
//! link contention.

use super::steps::steps;
use super::{Carrier, Plan};
use crate::check::{self, CheckOptions, Deadlock};
use crate::error::PlanError;
use crate::fabric::{Channel, Fabric};
use crate::ids::EndpointId;
use crate::routing::path::deterministic;
use crate::routing::{Arrival, Routing};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkUse {
    pub channel: Channel,
    pub text: String,
    pub visits: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanReport {
    pub scheme: String,
    pub routing: String,
    pub source: String,
    pub destinations: usize,
    pub packets: u32,
    pub discipline: super::Discipline,
    /// Every destination exactly once, nobody else.
    pub exactly_once: bool,
    pub duplicates: Vec<(String, usize)>,
    pub missing: Vec<String>,
    /// Deliveries to endpoints outside the destination set (the source included).
    pub extra: Vec<String>,
    pub messages: usize,
    pub unicasts: usize,
    pub worms: usize,
    /// NI packet sends (messages × packets).
    pub packets_sent: u64,
    /// Children of the source (δr of sivaram98 Theorem 1).
    pub root_fanout: usize,
    /// Completion in steps of the step model (sivaram98 §4).
    pub steps: u64,
    /// Every carrier path follows the base routing (BRCP).
    pub conforms: bool,
    pub nonconforming: Vec<String>,
    /// Deadlock freedom of the routing together with the plan's paths.
    pub deadlock: Deadlock,
    /// Channel traversals summed over all packets.
    pub link_visits: u64,
    /// Distinct links used (either direction).
    pub used_links: usize,
    /// Used links / all links of the fabric (oral §4.5).
    pub link_utilization: f64,
    pub busiest: Vec<LinkUse>,
    /// Largest number of packet sends sharing one channel in one step (1 = contention-free).
    pub max_step_contention: usize,
    /// (step, channel) pairs used by more than one send.
    pub contended: usize,
}

impl PlanReport {
    pub fn ok(&self) -> bool {
        self.exactly_once && self.conforms && matches!(self.deadlock, Deadlock::Free { .. })
    }
}

/// Options of a plan check.
#[derive(Clone, Debug, Default)]
pub struct PlanCheckOptions {
    pub routing: CheckOptions,
}

/// Checks a plan. Unicast carriers follow the routing's deterministic route; their conformance is
/// re-verified hop by hop against the routing's legal choices.
pub fn check_plan(f: &Fabric, r: &dyn Routing, plan: &Plan, opts: &PlanCheckOptions) -> Result<PlanReport, PlanError> {
    let name = |e: EndpointId| f.endpoint(e).name.clone();
    let mut count: BTreeMap<EndpointId, usize> = BTreeMap::new();
    for t in &plan.transmissions {
        for d in &t.delivers {
            *count.entry(*d).or_insert(0) += 1;
        }
    }
    let is_dest: BTreeMap<EndpointId, ()> = plan.destinations.iter().map(|d| (*d, ())).collect();
    let duplicates: Vec<(String, usize)> = count.iter().filter(|(_, c)| **c > 1).map(|(e, c)| (name(*e), *c)).collect();
    let missing: Vec<String> = plan.destinations.iter().filter(|d| !count.contains_key(d)).map(|d| name(*d)).collect();
    let extra: Vec<String> = count.keys().filter(|e| !is_dest.contains_key(e)).map(|e| name(*e)).collect();
    let exactly_once = duplicates.is_empty() && missing.is_empty() && extra.is_empty();

    // Paths of every carrier.
    let mut paths: Vec<Vec<Channel>> = Vec::with_capacity(plan.transmissions.len());
    let mut nonconforming = Vec::new();
    let mut hops = Vec::new();
    for (i, t) in plan.transmissions.iter().enumerate() {
        let Carrier::Unicast { dst } = t.carrier;
        let p = deterministic(f, r, t.sender, dst)?;
        let mut chans = Vec::with_capacity(p.hops.len() + 1);
        let (s0, p0) = f.attachment(t.sender);
        if let Some(c) = f.port(s0, p0).and_then(|pp| pp.inc) {
            chans.push(c);
        }
        let mut vc = 0;
        for h in &p.hops {
            r.next_hops(h.switch, Arrival { port: h.in_port, vc }, p.address, &mut hops);
            vc = h.vc;
            if !hops.iter().any(|x| x.port == h.out_port) {
                nonconforming.push(format!(
                    "transmission {i}: port {} of {} is not a legal choice",
                    h.out_port,
                    f.switch(h.switch).name
                ));
            }
            if let Some(c) = f.port(h.switch, h.out_port).and_then(|pp| pp.out) {
                chans.push(c);
            }
        }
        paths.push(chans);
    }
    // Unicast carriers add no dependency the routing does not already have.
    let deadlock = check::check(f, r, &opts.routing).deadlock;

    let st = steps(plan)?;
    let mut visits: BTreeMap<Channel, u64> = BTreeMap::new();
    let mut per_step: BTreeMap<(u64, Channel), usize> = BTreeMap::new();
    for s in &st.sends {
        for &c in &paths[s.transmission as usize] {
            *visits.entry(c).or_insert(0) += 1;
            *per_step.entry((s.step, c)).or_insert(0) += 1;
        }
    }
    let link_visits = visits.values().sum();
    let used: std::collections::BTreeSet<_> = visits.keys().map(|c| c.link()).collect();
    let mut busiest: Vec<LinkUse> =
        visits.iter().map(|(c, v)| LinkUse { channel: *c, text: f.channel_str(*c), visits: *v }).collect();
    busiest.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.channel.cmp(&b.channel)));
    busiest.truncate(5);
    let root_fanout = plan.transmissions.iter().filter(|t| t.sender == plan.source).count();
    Ok(PlanReport {
        scheme: plan.scheme.clone(),
        routing: r.spec(),
        source: name(plan.source),
        destinations: plan.destinations.len(),
        packets: plan.packets,
        discipline: plan.discipline,
        exactly_once,
        duplicates,
        missing,
        extra,
        messages: plan.transmissions.len(),
        unicasts: plan.transmissions.len(),
        worms: 0,
        packets_sent: plan.transmissions.len() as u64 * plan.packets as u64,
        root_fanout,
        steps: st.completion,
        conforms: nonconforming.is_empty(),
        nonconforming,
        deadlock,
        link_visits,
        used_links: used.len(),
        link_utilization: used.len() as f64 / f.num_links().max(1) as f64,
        busiest,
        max_step_contention: per_step.values().copied().max().unwrap_or(0),
        contended: per_step.values().filter(|c| **c > 1).count(),
    })
}
