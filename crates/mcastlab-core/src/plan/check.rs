//! Static facts about a plan on a fabric and routing: exactly-once delivery, conformance of every
//! carrier path to the base routing, deadlock freedom, steps, messages, link visits and per-step
//! link contention.

use super::steps::steps;
use super::walk::{CarrierTree, Walker};
use super::{Carrier, Discipline, Plan, Trigger};
use crate::check::{self, cdg, CheckOptions, Deadlock};
use crate::error::PlanError;
use crate::fabric::{Channel, Fabric, Terminal};
use crate::ids::EndpointId;
use crate::routing::{Routing, Turn};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};

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
    /// Decoding problems and carriers that reach other endpoints than the plan says.
    pub problems: Vec<String>,
    pub messages: usize,
    pub unicasts: usize,
    pub worms: usize,
    pub hardware_multicasts: usize,
    /// NI packet sends (messages × packets).
    pub packets_sent: u64,
    /// Children of the source (δr of sivaram98 Theorem 1).
    pub root_fanout: usize,
    /// Completion in steps of the step model (sivaram98 §4).
    pub steps: u64,
    /// Largest number of packets a forwarding NI must buffer at once (0 for host forwarding).
    pub ni_buffer_packets: u64,
    /// Every carrier path follows the base routing (BRCP).
    pub conforms: bool,
    pub nonconforming: Vec<String>,
    /// Deadlock freedom of the routing together with the plan's paths.
    pub deadlock: Deadlock,
    pub notes: Vec<String>,
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
        self.exactly_once && self.problems.is_empty() && self.conforms && matches!(self.deadlock, Deadlock::Free { .. })
    }
}

/// Options of a plan check.
#[derive(Clone, Debug, Default)]
pub struct PlanCheckOptions {
    pub routing: CheckOptions,
}

/// Checks a plan: every carrier is decoded switch by switch ([`Walker`]) into the tree it really
/// takes; deliveries, conformance, channel dependencies and link use all come from those trees.
pub fn check_plan(f: &Fabric, r: &dyn Routing, plan: &Plan, opts: &PlanCheckOptions) -> Result<PlanReport, PlanError> {
    let name = |e: EndpointId| f.endpoint(e).name.clone();
    let walker = Walker::new(f, r, &plan.switch_state);
    let trees: Vec<CarrierTree> = plan.transmissions.iter().map(|t| walker.walk(t.sender, &t.carrier)).collect();

    // Deliveries as decoded, and whether they match what the plan claims.
    let mut count: BTreeMap<EndpointId, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, (t, tree)) in plan.transmissions.iter().zip(&trees).enumerate() {
        for d in &tree.reached {
            *count.entry(*d).or_insert(0) += 1;
        }
        problems.extend(tree.problems.iter().map(|p| format!("transmission {i}: {p}")));
        let mut reached = tree.reached.clone();
        let mut claimed = t.delivers.clone();
        reached.sort_unstable();
        claimed.sort_unstable();
        if reached != claimed {
            problems.push(format!(
                "transmission {i}: the {} reaches [{}] but the plan says it delivers to [{}]",
                t.carrier.kind(),
                reached.iter().map(|e| name(*e)).collect::<Vec<_>>().join(", "),
                claimed.iter().map(|e| name(*e)).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let is_dest: BTreeSet<EndpointId> = plan.destinations.iter().copied().collect();
    let duplicates: Vec<(String, usize)> = count.iter().filter(|(_, c)| **c > 1).map(|(e, c)| (name(*e), *c)).collect();
    let missing: Vec<String> = plan.destinations.iter().filter(|d| !count.contains_key(d)).map(|d| name(*d)).collect();
    let extra: Vec<String> = count.keys().filter(|e| !is_dest.contains(e)).map(|e| name(*e)).collect();
    let exactly_once = duplicates.is_empty() && missing.is_empty() && extra.is_empty();

    // Conformance: every switch-to-switch turn of a carrier must be a turn of the base routing or
    // one its rule allows on non-minimal paths (`Routing::allows_turn`; for up*/down* this is BRCP:
    // no up link after a down link on any branch). Deadlock freedom is checked with all of them.
    let (routing_check, routing_turns) = check::check_with_turns(f, r, &opts.routing);
    let inter_switch = |t: &Turn| {
        let is_sw = |p| matches!(f.port(t.switch, p).map(|pp| pp.peer), Some(Terminal::Switch { .. }));
        is_sw(t.in_port) && is_sw(t.out_port)
    };
    let mut nonconforming = Vec::new();
    let mut foreign: BTreeSet<Turn> = BTreeSet::new();
    let mut notes = Vec::new();
    // A Quadrics range multicast turns around at its root switch, possibly back down the link it
    // came up (coll03 §3). No unicast route does that, so it is not a turn of the routing; it is the
    // hardware's own replication step. Such turnarounds are not counted as nonconforming, but their
    // channel dependencies join the deadlock check below.
    let mut turnarounds: BTreeSet<Turn> = BTreeSet::new();
    match &routing_turns {
        Some(rt) => {
            // The carriers' turns (few) minus the routing's (possibly tens of millions): one pass
            // over the routing's turns against a small set, never a set of all of them.
            let mut first_use: BTreeMap<Turn, usize> = BTreeMap::new();
            for (i, tree) in trees.iter().enumerate() {
                let range = matches!(plan.transmissions[i].carrier, Carrier::Range { .. });
                for h in &tree.hops {
                    let turn = h.turn();
                    // A U-turn is never a unicast turn, so no lookup is needed.
                    if range && turn.in_port == turn.out_port && inter_switch(&turn) {
                        turnarounds.insert(turn);
                        continue;
                    }
                    if inter_switch(&turn) {
                        first_use.entry(turn).or_insert(i);
                    }
                }
            }
            let mut unseen: HashSet<Turn> = first_use.keys().copied().collect();
            for t in rt {
                if unseen.is_empty() {
                    break;
                }
                unseen.remove(t);
            }
            for (turn, i) in first_use {
                if !unseen.contains(&turn) {
                    continue;
                }
                foreign.insert(turn);
                if !r.allows_turn(f, &turn) {
                    nonconforming.push(format!(
                        "transmission {i}: {} port {} -> port {} is not a turn of {}",
                        f.switch(turn.switch).name,
                        turn.in_port,
                        turn.out_port,
                        r.spec()
                    ));
                }
            }
        }
        None => notes.push("the routing's turns are unknown: conformance of multicast turns not verified".into()),
    }
    if !turnarounds.is_empty() {
        notes.push(format!(
            "{} root-switch turnarounds of range multicasts are not unicast turns of {}; they were added to the deadlock check",
            turnarounds.len(),
            r.spec()
        ));
        foreign.extend(turnarounds);
    }
    for (i, tree) in trees.iter().enumerate() {
        if tree.problems.iter().any(|p| p.contains("routing")) {
            nonconforming.push(format!("transmission {i}: its route leaves the base routing"));
        }
    }
    // Deadlock: the routing's dependencies plus those of turns the routing does not have.
    let deadlock = match (&routing_turns, foreign.is_empty()) {
        (_, true) => routing_check.deadlock.clone(),
        (Some(rt), false) => {
            let mut all = rt.clone();
            all.extend(foreign.iter().copied());
            cdg::deadlock(f, r.vc_classes(), &all)
        }
        (None, false) => Deadlock::Skipped { reason: "routing turns unknown".into() },
    };

    let st = steps(plan)?;
    let paths: Vec<Vec<Channel>> = trees.iter().map(|t| t.channels(f)).collect();
    let mut visits: BTreeMap<Channel, u64> = BTreeMap::new();
    let mut per_step: BTreeMap<(u64, Channel), usize> = BTreeMap::new();
    for s in &st.sends {
        for &c in &paths[s.transmission as usize] {
            *visits.entry(c).or_insert(0) += 1;
            *per_step.entry((s.step, c)).or_insert(0) += 1;
        }
    }
    let link_visits = visits.values().sum();
    let used: BTreeSet<_> = visits.keys().map(|c| c.link()).collect();
    let mut busiest: Vec<LinkUse> =
        visits.iter().map(|(c, v)| LinkUse { channel: *c, text: f.channel_str(*c), visits: *v }).collect();
    busiest.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.channel.cmp(&b.channel)));
    busiest.truncate(5);
    let root_fanout = plan.transmissions.iter().filter(|t| t.sender == plan.source).count();
    let kinds = |pred: fn(&Carrier) -> bool| plan.transmissions.iter().filter(|t| pred(&t.carrier)).count();
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
        problems,
        messages: plan.transmissions.len(),
        unicasts: kinds(|c| matches!(c, Carrier::Unicast { .. })),
        worms: kinds(Carrier::is_worm),
        hardware_multicasts: kinds(|c| matches!(c, Carrier::Mft { .. } | Carrier::Range { .. })),
        packets_sent: plan.transmissions.len() as u64 * plan.packets as u64,
        root_fanout,
        steps: st.completion,
        ni_buffer_packets: ni_buffer_need(plan, &st),
        conforms: nonconforming.is_empty(),
        nonconforming,
        deadlock,
        notes,
        link_visits,
        used_links: used.len(),
        link_utilization: used.len() as f64 / f.num_links().max(1) as f64,
        busiest,
        max_step_contention: per_step.values().copied().max().unwrap_or(0),
        contended: per_step.values().filter(|c| **c > 1).count(),
    })
}

/// Largest number of packets one forwarding NI holds at once (sivaram98 §6.1: an NI keeps a packet
/// until it has sent every copy). A packet sent to the NI in step `a` and last forwarded in step
/// `b` occupies a buffer after steps `a..b`. Host-level forwarding keeps messages in host memory:
/// 0. The source's packets come from host memory and are not counted.
fn ni_buffer_need(plan: &Plan, st: &super::steps::StepResult) -> u64 {
    if plan.discipline == Discipline::Host {
        return 0;
    }
    let m = plan.packets as usize;
    let time = |t: usize, j: usize| st.sends[t * m + j].step;
    // (forwarder, from, packet) -> last forward step
    let mut release: BTreeMap<(EndpointId, u32, u32), u64> = BTreeMap::new();
    for (i, t) in plan.transmissions.iter().enumerate() {
        if let Trigger::PerPacket { from } | Trigger::AfterMessage { from } = t.trigger {
            for j in 0..m {
                let e = release.entry((t.sender, from, j as u32)).or_insert(0);
                *e = (*e).max(time(i, j));
            }
        }
    }
    let mut events: BTreeMap<EndpointId, Vec<(u64, i64)>> = BTreeMap::new();
    for (&(who, from, j), &b) in &release {
        let a = time(from as usize, j as usize);
        let ev = events.entry(who).or_default();
        ev.push((a, 1));
        ev.push((b, -1));
    }
    let mut best = 0i64;
    for ev in events.values_mut() {
        // At equal steps, releases (sent during the step) come before arrivals (end of the step)
        // only when they are the same packet's; counting arrivals first is the safe bound.
        ev.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        let mut cur = 0i64;
        for &(_, d) in ev.iter() {
            cur += d;
            best = best.max(cur);
        }
    }
    best as u64
}
