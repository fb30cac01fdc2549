//! Static facts about a plan on a fabric and routing: exactly-once delivery, conformance of every
//! carrier path to the base routing, deadlock freedom, steps, messages, link visits, per-step
//! link contention, oral's link utilization and concurrency (§4.5) and the tree-creation work
//! (§4.4).

use super::budget::{self, PlanBudget, CHECK_BYTES_PER_VISIT, STEP_BYTES_PER_SEND};
use super::creation::{self, CreationCost};
use super::steps::{steps_within, StepResult};
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
    /// Channel traversals summed over all packets, endpoint links included.
    pub link_visits: u64,
    /// Distinct links used (either direction), endpoint links included.
    pub used_links: usize,
    /// `used_links` / all links of the fabric: how much of the fabric the multicast touches.
    pub fabric_link_fraction: f64,
    /// oral §4.5's *link visits*: switch-to-switch channels crossed, once per message (a
    /// transmission), not per packet. oral counts message transfers over the links between SCI
    /// nodes; an endpoint's own link is inside its node there (the NIC sits on the ring), so it
    /// is not counted.
    pub oral_link_visits: u64,
    /// oral §4.5's *used links*: distinct switch-to-switch channels crossed. A channel is one
    /// direction of a link: oral's SCI links are unidirectional, so each direction is a link of
    /// its own.
    pub oral_used_links: usize,
    /// oral §4.5's *link utilization*: `oral_link_visits / oral_used_links`, at least 1, and 1
    /// exactly when no channel carries two messages. `None` when no switch-to-switch channel is
    /// used (every destination on the source's switch).
    pub oral_link_utilization: Option<f64>,
    /// oral §4.5's *concurrency*, in the step model: the most message transfers in flight in one
    /// step. A transmission is in flight from the step of its first packet send to the step of
    /// its last (one step for a one-packet message).
    pub max_concurrency: u64,
    /// Transfers in flight averaged over the steps `1..=steps`.
    pub mean_concurrency: f64,
    /// Host work of building the plan's structure (oral §4.4), off the critical path; `None` for
    /// custom plans and schemes whose construction is not modelled (`plan::creation`).
    pub creation: Option<CreationCost>,
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
#[derive(Clone, Debug)]
pub struct PlanCheckOptions {
    pub routing: CheckOptions,
    /// Host time per elementary operation of tree creation, in ns
    /// ([`creation::DEFAULT_NS_PER_OP`] by default: chosen, not from a paper).
    pub ns_per_op: f64,
    /// Bytes the check may use (`limits.max_memory`; `None`: no limit). Its work budget is the
    /// routing check's `max_work`, so `--max-work` bounds both.
    pub max_memory: Option<u64>,
}

impl Default for PlanCheckOptions {
    fn default() -> Self {
        PlanCheckOptions {
            routing: CheckOptions::default(),
            ns_per_op: creation::DEFAULT_NS_PER_OP,
            max_memory: PlanBudget::default().max_memory,
        }
    }
}

impl PlanCheckOptions {
    /// The budget of the check's per-send work (step model, link visits per step).
    pub fn budget(&self) -> PlanBudget {
        PlanBudget { max_work: self.routing.max_work, max_memory: self.max_memory }
    }
}

/// Checks a plan: every carrier is decoded switch by switch ([`Walker`]) into the tree it really
/// takes; deliveries, conformance, channel dependencies and link use all come from those trees.
pub fn check_plan(f: &Fabric, r: &dyn Routing, plan: &Plan, opts: &PlanCheckOptions) -> Result<PlanReport, PlanError> {
    if !(opts.ns_per_op >= 0.0 && opts.ns_per_op <= creation::MAX_NS_PER_OP) {
        return Err(PlanError::Param {
            param: "ns_per_op",
            message: format!(
                "must be a number of nanoseconds from 0 to {:e}, got {}",
                creation::MAX_NS_PER_OP,
                opts.ns_per_op
            ),
        });
    }
    let name = |e: EndpointId| f.endpoint(e).name.clone();
    let walker = Walker::new(f, r, &plan.switch_state);
    let trees: Vec<CarrierTree> = plan.transmissions.iter().map(|t| walker.walk(t.sender, &t.carrier)).collect();
    let paths: Vec<Vec<Channel>> = trees.iter().map(|t| t.channels(f)).collect();
    // Every packet send is counted on every channel of its tree: refuse before allocating for them.
    let sends = budget::sends(plan);
    let visits = paths.iter().map(|p| p.len() as u64).sum::<u64>().saturating_mul(plan.packets as u64);
    let bytes = sends.saturating_mul(STEP_BYTES_PER_SEND).saturating_add(visits.saturating_mul(CHECK_BYTES_PER_VISIT));
    let budget = opts.budget();
    budget.admit("plan check", plan, sends.saturating_add(visits), bytes)?;

    // Deliveries as decoded, and whether they match what the plan claims.
    let mut count: BTreeMap<EndpointId, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, (t, tree)) in plan.transmissions.iter().zip(&trees).enumerate() {
        for d in &tree.reached {
            *count.entry(*d).or_insert(0) += 1;
        }
        problems.extend(tree.problems.iter().chain(&tree.defects).map(|p| format!("transmission {i}: {p}")));
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

    let st = steps_within(plan, &budget)?;
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
    let oral = oral_links(f, &paths);
    let (max_concurrency, mean_concurrency) = concurrency(plan, &st);
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
        fabric_link_fraction: used.len() as f64 / f.num_links().max(1) as f64,
        oral_link_visits: oral.visits,
        oral_used_links: oral.used,
        oral_link_utilization: (oral.used > 0).then(|| oral.visits as f64 / oral.used as f64),
        max_concurrency,
        mean_concurrency,
        busiest,
        max_step_contention: per_step.values().copied().max().unwrap_or(0),
        contended: per_step.values().filter(|c| **c > 1).count(),
        creation: creation::cost(crate::schemes::creation(f, plan), opts.ns_per_op),
    })
}

/// Link counts as oral §4.5 makes them (see the [`PlanReport`] fields).
struct OralLinks {
    visits: u64,
    used: usize,
}

/// oral's link visits and used links over the carriers' paths (one path per transmission, so
/// each message counts once whatever its packets), switch-to-switch channels only.
fn oral_links(f: &Fabric, paths: &[Vec<Channel>]) -> OralLinks {
    let between_switches = |c: &Channel| {
        let (a, b) = f.channel_ends(*c);
        matches!((a, b), (Terminal::Switch { .. }, Terminal::Switch { .. }))
    };
    let mut visits = 0u64;
    let mut used: BTreeSet<Channel> = BTreeSet::new();
    for c in paths.iter().flatten().filter(|c| between_switches(c)) {
        visits += 1;
        used.insert(*c);
    }
    OralLinks { visits, used: used.len() }
}

/// oral §4.5's concurrency in the step model: per step, the transmissions whose first packet has
/// been sent and whose last has not yet been (a message in flight); the maximum over steps and
/// the mean over the steps `1..=completion`. A sweep over span ends, so a plan of a million steps
/// needs no per-step array.
fn concurrency(plan: &Plan, st: &StepResult) -> (u64, f64) {
    let m = plan.packets as usize;
    let nt = plan.transmissions.len();
    if nt == 0 || st.completion == 0 {
        return (0, 0.0);
    }
    // (step, +1) when a transfer starts, (step + 1, −1) after its last packet's step.
    let mut ev: Vec<(u64, i64)> = Vec::with_capacity(2 * nt);
    let mut in_flight_steps = 0u64;
    for t in 0..nt {
        let sends = &st.sends[t * m..(t + 1) * m];
        let first = sends.iter().map(|s| s.step).min().unwrap_or(0);
        let last = sends.iter().map(|s| s.step).max().unwrap_or(0);
        in_flight_steps += last - first + 1;
        ev.push((first, 1));
        ev.push((last + 1, -1));
    }
    // Ends before starts at one step: a transfer ending in step s is not in flight in s + 1.
    ev.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut cur, mut best) = (0i64, 0i64);
    for (_, d) in ev {
        cur += d;
        best = best.max(cur);
    }
    (best as u64, in_flight_steps as f64 / st.completion as f64)
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

#[cfg(test)]
mod tests {
    //! Hand-counted link use, concurrency and creation work on `torus:4x4` (endpoint i on switch
    //! i at (i mod 4, i div 4); dimension-order routing, dimension 0 first). The group is source 0
    //! with destinations 1 (+x), 3 (−x, round the wrap), 4 (+y) and 5 (+x then +y): no route has a
    //! tie between the two ways round a ring, so every path is fixed by the routing.
    use super::*;
    use crate::plan::creation::Operations;
    use crate::routing::Routing;
    use crate::schemes;
    use crate::schemes::testing::{plan_from_0, torus};

    fn plan(f: &Fabric, r: &dyn Routing, scheme: &str, dests: &[EndpointId], packets: u32, d: Discipline) -> Plan {
        plan_from_0(f, r, scheme, dests, packets, d).unwrap()
    }

    fn report(scheme: &str, packets: u32, discipline: Discipline) -> PlanReport {
        let (f, r) = torus();
        let p = plan(&f, r.as_ref(), scheme, &[1, 3, 4, 5].map(EndpointId), packets, discipline);
        check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap()
    }

    #[test]
    fn separate_addressing_counted_by_hand() {
        // Unicasts 0→1 (s0→s1), 0→3 (s0→s3), 0→4 (s0→s4), 0→5 (s0→s1→s5): 5 switch channel
        // visits over 4 distinct channels (s0→s1 twice): utilization 5/4.
        let rep = report("separate", 1, Discipline::NiFpfs);
        assert_eq!((rep.oral_link_visits, rep.oral_used_links), (5, 4));
        assert_eq!(rep.oral_link_utilization, Some(1.25));
        // Every unicast also crosses its injection and ejection link: 3+3+3+4 = 13 visits; links
        // used: the 5 endpoint links and 4 switch links of 48 (32 torus + 16 endpoint links).
        assert_eq!((rep.link_visits, rep.used_links), (13, 9));
        assert_eq!(rep.fabric_link_fraction, 9.0 / 48.0);
        // One packet each, one NI: one transfer per step in steps 1..4.
        assert_eq!(rep.steps, 4);
        assert_eq!((rep.max_concurrency, rep.mean_concurrency), (1, 1.0));
        // Creation: sort 5 members (5·⌈log2 5⌉ = 15) and rotate (5); no tree.
        let c = rep.creation.unwrap();
        assert_eq!((c.ordering_ops, c.partitioning_ops, c.operations), (20, 0, 20));
        assert_eq!(c.latency_ns, 20.0 * crate::plan::creation::DEFAULT_NS_PER_OP);
    }

    #[test]
    fn oral_link_visits_count_messages_not_packets() {
        // Two packets: per-packet visits double, oral's per-message visits do not.
        let rep = report("separate", 2, Discipline::NiFpfs);
        assert_eq!(rep.link_visits, 26);
        assert_eq!((rep.oral_link_visits, rep.oral_used_links), (5, 4));
    }

    #[test]
    fn fpfs_interleaving_puts_every_transfer_in_flight() {
        // FPFS sends packet 0 to 1, 3, 4, 5 in steps 1–4, then packet 1 in steps 5–8: transfers
        // span [1,5], [2,6], [3,7], [4,8], all four in flight in steps 4 and 5; mean 4·5/8.
        let rep = report("separate", 2, Discipline::NiFpfs);
        assert_eq!(rep.steps, 8);
        assert_eq!((rep.max_concurrency, rep.mean_concurrency), (4, 2.5));
        // FCFS sends each message whole: spans [1,2], [3,4], [5,6], [7,8], one at a time.
        let rep = report("separate", 2, Discipline::NiFcfs);
        assert_eq!((rep.max_concurrency, rep.mean_concurrency), (1, 1.0));
    }

    #[test]
    fn binomial_tree_counted_by_hand() {
        // Chain [0, 1, 3, 4, 5]. The source halves 0..5: sends to position 4 (endpoint 5), then 2
        // (endpoint 3, covering 3 and 4), then 1 (endpoint 1); endpoint 3 sends to 4.
        // Paths: 0→5 s0→s1→s5; 0→3 s0→s3; 0→1 s0→s1; 3→4 s3→s0→s4 (x round the wrap, then y).
        // 6 switch channel visits, 5 distinct channels (s0→s1 twice; s0→s3 and s3→s0 are two).
        let rep = report("binomial", 1, Discipline::NiFpfs);
        assert_eq!((rep.oral_link_visits, rep.oral_used_links), (6, 5));
        assert_eq!(rep.oral_link_utilization, Some(1.2));
        // Steps: the source sends in 1, 2, 3; endpoint 3 has its packet after step 2 and sends
        // in 3. In flight: 1, 1, 2 → max 2, mean 4/3.
        assert_eq!(rep.steps, 3);
        assert_eq!(rep.max_concurrency, 2);
        assert_eq!(rep.mean_concurrency, 4.0 / 3.0);
        // Creation: ordering 20 as above; recursive doubling hands each child its subset:
        // depths 1 (endpoints 5, 3, 1) and 2 (endpoint 4), 1+1+1+2 = 5.
        let c = rep.creation.unwrap();
        assert_eq!((c.ordering_ops, c.partitioning_ops), (20, 5));
    }

    #[test]
    fn custom_plans_have_no_creation_cost() {
        let (f, r) = torus();
        let t = super::super::Transmission {
            sender: EndpointId(0),
            trigger: Trigger::Start,
            carrier: Carrier::Unicast { dst: EndpointId(1) },
            delivers: vec![EndpointId(1)],
        };
        let p =
            Plan::from_transmissions(&f, "custom", EndpointId(0), vec![EndpointId(1)], 1, Discipline::NiFpfs, vec![t])
                .unwrap();
        let rep = check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap();
        assert_eq!(rep.creation, None);
        assert_eq!(rep.oral_link_utilization, Some(1.0));
    }

    #[test]
    fn oral_schemes_creation_on_a_16_node_broadcast() {
        // n = 16: sort 16·4 = 64, rotation 16, so ordering 80 for Φ′; Θ′ adds one Eq. 2 rank per
        // member (16). U-torus halves 16 like a binomial tree: Σ depths = Σ popcount(r), r < 16,
        // = 32. Md-torus on 2 dimensions: 16·2 coordinates + 16·1 comparisons = 48. Mu-torus with
        // r = 4: 16 partition indices + 4 heads = 20.
        let (f, r) = torus();
        let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
        let ops = |scheme: &str| {
            let p = plan(&f, r.as_ref(), scheme, &dests, 1, Discipline::NiFpfs);
            schemes::creation(&f, &p).unwrap()
        };
        assert_eq!(ops("storus"), Operations { ordering: 96, partitioning: 0 });
        assert_eq!(ops("utorus"), Operations { ordering: 80, partitioning: 32 });
        assert_eq!(ops("mdtorus"), Operations { ordering: 80, partitioning: 48 });
        assert_eq!(ops("mutorus"), Operations { ordering: 80, partitioning: 20 });
        assert_eq!(ops("mutorus:r=2"), Operations { ordering: 80, partitioning: 24 });
        assert_eq!(ops("separate:order=given"), Operations { ordering: 16, partitioning: 0 });
    }

    #[test]
    fn billions_of_packet_sends_are_refused_by_the_budgets_before_any_is_made() {
        // One unicast of 2^32 − 1 packets: 4.3e9 sends and 1.3e10 link visits (3 channels).
        let (f, r) = torus();
        let p = plan(&f, r.as_ref(), "separate", &[EndpointId(1)], u32::MAX, Discipline::NiFpfs);
        let e = check_plan(&f, r.as_ref(), &p, &PlanCheckOptions::default()).unwrap_err();
        assert!(matches!(e, PlanError::Param { param: "max_work", .. }), "{e}");
        // Past the work budget, the memory budget still holds: 48 + 3 × 40 bytes per send, about 672 GiB.
        let no_work_limit = CheckOptions { max_work: u64::MAX, ..Default::default() };
        let opts = PlanCheckOptions { routing: no_work_limit, ..Default::default() };
        let e = check_plan(&f, r.as_ref(), &p, &opts).unwrap_err();
        assert!(matches!(e, PlanError::Param { param: "limits.max_memory", .. }), "{e}");
        assert!(e.to_string().contains("needs about 672.0 GiB"), "{e}");
    }

    #[test]
    fn a_negative_cost_per_operation_is_refused() {
        let (f, r) = torus();
        let p = plan(&f, r.as_ref(), "separate", &[EndpointId(1)], 1, Discipline::NiFpfs);
        let opts = PlanCheckOptions { ns_per_op: -1.0, ..Default::default() };
        let e = check_plan(&f, r.as_ref(), &p, &opts).unwrap_err();
        assert!(matches!(e, PlanError::Param { param: "ns_per_op", .. }), "{e}");
    }
}
