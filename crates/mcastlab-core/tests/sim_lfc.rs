//! bhoedjang98's LFC (`ni.send = lfc`): NI-level credits, blocked-sends queues, true deadlocks
//! of trees that are not deadlock-free, and §4's recovery. Credit conservation is asserted inside
//! the protocol after every change in debug builds (which is how `cargo test` runs these).

mod common;

use common::{assert_conserved, assert_workload_conserved, delivered, fabric, scheme_plan};
use mcastlab_core::plan::Discipline;
use mcastlab_core::sim::{run_plan, run_workload, Measure, Outcome, Params, Workload, WorkloadOutcome};
use mcastlab_core::EndpointId;
use proptest::prelude::*;

fn lfc(overrides: &[&str]) -> Params {
    let mut all = vec!["ni.send=lfc"];
    all.extend_from_slice(overrides);
    Params::with_overrides("bhoedjang98", &all).unwrap()
}

fn all_to_all(spec: &str, scheme: &str, bytes: &str, p: &Params) -> mcastlab_core::sim::WorkloadResult {
    let (f, r) = fabric(spec);
    let w = Workload::parse(&format!("all_to_all:scheme={scheme},bytes={bytes}")).unwrap();
    run_workload(&f, &*r, &w, p, &Measure::default(), 1).unwrap()
}

/// With credits to spare LFC adds no time: one unicast and one NI-forwarded binomial multicast
/// take exactly what they take without flow control (every overhead counted once), and the
/// credits come back only when the receiver knows the sender is low (`lfc.low_water`).
#[test]
fn zero_load_costs_equal_the_protocol_free_run() {
    let (f, r) = fabric("hypercube:dim=3");
    let dests: Vec<EndpointId> = (1..8).map(EndpointId).collect();
    for (scheme, d) in [("separate", &dests[..1]), ("binomial", &dests[..])] {
        let plan = scheme_plan(&f, &*r, scheme, EndpointId(0), d, 2, Discipline::NiFpfs).unwrap();
        let base = run_plan(&f, &*r, &plan, &lfc(&["ni.send=pipelined"]), 2048, 1).unwrap();
        let with = run_plan(&f, &*r, &plan, &lfc(&[]), 2048, 1).unwrap();
        assert_conserved(&f, &*r, &plan, &with);
        assert_eq!(with.completion_ps, base.completion_ps, "{scheme}");
        assert_eq!(with.per_destination, base.per_destination, "{scheme}");
        let s = with.lfc.clone().expect("LFC counts");
        assert_eq!((s.blocked_sends, s.recoveries, s.fifo_violations), (0, 0, 0), "{scheme}");
        assert!(base.lfc.is_none());
        // Two packets per receiver leave the sender 6 of 8, above the low-water mark of 4:
        // nothing is sent back...
        assert_eq!(s.credit_updates, 0, "{scheme}");
        // ...and with a mark of 7 every freed buffer's credit goes back on its own.
        let one = run_plan(&f, &*r, &plan, &lfc(&["lfc.low_water=7"]), 2048, 1).unwrap();
        assert_eq!(one.lfc.unwrap().credit_updates, with.packets_received, "{scheme}");
        assert_eq!(one.completion_ps, base.completion_ps, "credit updates cost the NIs after the last send");
    }
}

/// One credit: a source that sends two packets to one child must wait for the first buffer to
/// come back (t_nr, DMA up, update: t_control, flight, t_control) before the second may leave.
#[test]
fn one_credit_makes_the_second_packet_wait_for_the_first_buffer() {
    let (f, r) = fabric("hypercube:dim=3");
    let plan = scheme_plan(&f, &*r, "separate", EndpointId(0), &[EndpointId(1)], 2, Discipline::NiFpfs).unwrap();
    let free = run_plan(&f, &*r, &plan, &lfc(&[]), 2048, 1).unwrap();
    let p = lfc(&["lfc.credits=1", "lfc.low_water=0"]);
    let one = run_plan(&f, &*r, &plan, &p, 2048, 1).unwrap();
    delivered(&one);
    let s = one.lfc.unwrap();
    assert_eq!((s.blocked_sends, s.credit_updates), (1, 2));
    let (lat_free, lat_one) = (free.completion_ps.unwrap(), one.completion_ps.unwrap());
    // The second packet leaves the source no earlier than the first's buffer is free at the
    // receiver and the credit has travelled back: at least t_nr + DMA + 2 t_control + latency
    // later than it could have.
    let dma = p.ni.dma_bandwidth.time_for_bytes(1024);
    let wait = p.ni.t_nr.ps() + dma + 2 * p.ni.t_control.ps() + p.ni.control_latency.ps();
    assert!(lat_one >= lat_free + wait - p.ni.t_ns.ps(), "{lat_one} vs {lat_free} + {wait}");
}

/// bhoedjang98 §3.3: "When each sender's multicast tree is a linear chain ... deadlock can easily
/// occur." Without recovery the all-to-all really deadlocks, and the diagnosis names a cycle of
/// NIs each waiting for a credit of the next; with §4's recovery it completes, FIFO per tree.
#[test]
fn chain_all_to_all_deadlocks_without_recovery_and_completes_with_it() {
    let off = all_to_all("hypercube:dim=3", "chain", "8KiB", &lfc(&[]));
    let WorkloadOutcome::Deadlock { diagnosis, .. } = &off.run.outcome else {
        panic!("expected a deadlock, got {:?}", off.run.outcome)
    };
    assert!(diagnosis.cycle.len() >= 2, "{diagnosis:?}");
    assert!(diagnosis.cycle.iter().all(|c| c.contains("waits for a credit of NI")), "{diagnosis:?}");
    assert!(diagnosis.blocked.iter().any(|b| b.contains("copies blocked")));
    assert!(off.run.messages_finished < off.run.messages);
    // issue 13: a run that deadlocked before any delivery measures over the time it ran, so no
    // fraction leaves its range (a 1 ps window once made links 1,733,333 % busy).
    for busy in [off.run.link_busy_max, off.run.host_busy_max, off.run.ni_busy_max] {
        assert!((0.0..=1.0).contains(&busy), "{busy}");
    }
    assert!(off.run.sender_bytes_per_s < 1e9, "{}", off.run.sender_bytes_per_s);

    let on = all_to_all("hypercube:dim=3", "chain", "8KiB", &lfc(&["lfc.recovery=eager"]));
    assert_eq!(on.run.outcome, WorkloadOutcome::Drained, "{:?}", on.run.outcome);
    assert_workload_conserved(&on);
    let s = on.run.lfc.clone().unwrap();
    assert_eq!(s.fifo_violations, 0);
    assert!(s.recoveries > 0 && s.recoveries == s.recoveries_done, "{s:?}");
    assert!(s.recovery_packets >= s.recoveries);
    assert_eq!(s.multicasts, on.run.messages);
    // Eager detection fires at the first blocked copy, while credits are still on their way:
    // then no cycle of full buffers exists yet (a false alarm). A long timeout waits until the
    // NIs are really stuck, so its recoveries meet true cycles.
    let timed =
        all_to_all("hypercube:dim=3", "chain", "8KiB", &lfc(&["lfc.recovery=timeout", "lfc.recovery_timeout=200us"]));
    assert_eq!(timed.run.outcome, WorkloadOutcome::Drained, "{:?}", timed.run.outcome);
    let t = timed.run.lfc.clone().unwrap();
    assert!(t.recoveries > 0 && t.false_alarms < t.recoveries, "{t:?}");
    assert!(s.false_alarms > t.false_alarms, "eager {s:?} vs timeout {t:?}");
}

/// The false-alarm count is a test on packets, not on waits (`lfc/waits.rs`): binomial trees
/// cannot deadlock even under an all-to-all (bhoedjang98 §3.3; the run without recovery drains,
/// which this test checks first), so every eager recovery must count as a false alarm, although
/// NIs wait on each other in cycles of full buffers all the time. The binary trees do deadlock
/// without recovery, so some of their recoveries must be true.
#[test]
fn recoveries_of_deadlock_free_trees_are_all_false_alarms() {
    let eager = lfc(&["lfc.recovery=eager", "lfc.credits=2", "lfc.low_water=1"]);
    let off = all_to_all("hypercube:dim=3", "binomial", "8KiB", &lfc(&["lfc.credits=2", "lfc.low_water=1"]));
    assert_eq!(off.run.outcome, WorkloadOutcome::Drained, "binomial trees must not deadlock: {:?}", off.run.outcome);
    let on = all_to_all("hypercube:dim=3", "binomial", "8KiB", &eager);
    assert_eq!(on.run.outcome, WorkloadOutcome::Drained);
    let s = on.run.lfc.unwrap();
    assert!(s.recoveries > 0, "two credits make eager detection fire: {s:?}");
    assert_eq!(s.false_alarms, s.recoveries, "{s:?}");

    let off = all_to_all("hypercube:dim=3", "binary", "8KiB", &lfc(&["lfc.credits=2", "lfc.low_water=1"]));
    assert!(matches!(off.run.outcome, WorkloadOutcome::Deadlock { .. }), "{:?}", off.run.outcome);
    let on = all_to_all("hypercube:dim=3", "binary", "8KiB", &eager);
    assert_eq!(on.run.outcome, WorkloadOutcome::Drained);
    let s = on.run.lfc.unwrap();
    assert!(s.false_alarms < s.recoveries, "a tree set that deadlocks without recovery meets true deadlocks: {s:?}");
}

/// A binomial tree is deadlock-free (bhoedjang98 §3.3) and one sender cannot deadlock: eager
/// detection may still fire (a false alarm each time), and every message is delivered.
#[test]
fn a_single_binomial_sender_never_truly_deadlocks_but_may_raise_false_alarms() {
    let (f, r) = fabric("hypercube:dim=4");
    let w = Workload::parse("blast:count=16,scheme=binomial,bytes=16KiB").unwrap();
    let p = lfc(&["lfc.recovery=eager", "lfc.credits=2", "lfc.low_water=1"]);
    let res = run_workload(&f, &*r, &w, &p, &Measure::default(), 1).unwrap();
    assert_eq!(res.run.outcome, WorkloadOutcome::Drained);
    assert_workload_conserved(&res);
    let s = res.run.lfc.unwrap();
    assert!(s.recoveries > 0, "two credits per pair make the root block: {s:?}");
    assert_eq!(s.false_alarms, s.recoveries, "no recovery met a true cycle: {s:?}");
    assert_eq!(s.fifo_violations, 0);
}

/// A multidestination transmission has no single receiver to hold credits for: refused before
/// the run, naming the parameter.
#[test]
fn switch_multicast_under_lfc_is_refused_naming_ni_send() {
    let (f, r) = fabric("kary_ntree:k=4,n=2");
    let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
    let plan = scheme_plan(&f, &*r, "qs_greedy", EndpointId(0), &dests, 1, Discipline::NiFpfs).unwrap();
    let e = run_plan(&f, &*r, &plan, &lfc(&[]), 64, 1).unwrap_err().to_string();
    assert!(e.starts_with("parameter `ni.send`") && e.contains("exactly one NI"), "{e}");
}

#[test]
fn bad_lfc_parameters_are_named() {
    for (o, key) in
        [("lfc.credits=0", "lfc.credits"), ("lfc.low_water=8", "lfc.low_water"), ("lfc.low_water=9", "lfc.low_water")]
    {
        let e = Params::with_overrides("bhoedjang98", &[o]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("parameter `{key}`")), "{o}: {e}");
    }
    let e = Params::with_overrides("bhoedjang98", &["lfc.recovery=timeout", "lfc.recovery_timeout=0ns"])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("parameter `lfc.recovery_timeout`"), "{e}");
    let e = Params::with_overrides("sivaram98", &["lfc.recovery=eager"]).unwrap_err().to_string();
    assert!(e.starts_with("parameter `lfc.recovery`"), "{e}");
}

/// The NI's work order is a parameter: under load the orders give different timings, and each is
/// deterministic.
#[test]
fn ni_order_changes_timing_and_each_order_is_deterministic() {
    let mut ends = Vec::new();
    for order in ["arrival", "receive_first", "send_first"] {
        let p = lfc(&[&format!("ni.order={order}"), "lfc.recovery=eager"]);
        let a = all_to_all("hypercube:dim=3", "binomial", "4KiB", &p);
        let b = all_to_all("hypercube:dim=3", "binomial", "4KiB", &p);
        assert_eq!(a, b, "{order}");
        assert_eq!(a.run.outcome, WorkloadOutcome::Drained, "{order}");
        ends.push((a.run.end_ps, a.run.latency_mean_ps.map(f64::to_bits)));
    }
    assert!(ends[0] != ends[1] || ends[0] != ends[2], "the order must matter somewhere: {ends:?}");
}

/// Timeout detection: fewer recoveries than eager detection on the same all-to-all, still
/// completing.
#[test]
fn timeout_detection_recovers_less_often_than_eager() {
    let eager = all_to_all("hypercube:dim=3", "binary", "8KiB", &lfc(&["lfc.recovery=eager"]));
    let timed =
        all_to_all("hypercube:dim=3", "binary", "8KiB", &lfc(&["lfc.recovery=timeout", "lfc.recovery_timeout=50us"]));
    for r in [&eager, &timed] {
        assert_eq!(r.run.outcome, WorkloadOutcome::Drained);
        assert_workload_conserved(r);
    }
    let (e, t) = (eager.run.lfc.clone().unwrap(), timed.run.lfc.clone().unwrap());
    assert!(t.recoveries < e.recoveries, "timeout {} vs eager {}", t.recoveries, e.recoveries);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// On random small cases with credits on and recovery eager, every all-to-all completes:
    /// every message delivered exactly once, packets of one tree in order, credits conserved
    /// (asserted inside the protocol). Without recovery the run either completes the same way
    /// or ends in a diagnosed deadlock, never a hang.
    #[test]
    fn random_small_all_to_alls_complete_with_recovery(
        scheme in prop::sample::select(vec!["chain", "binary", "binomial", "kbinomial:k=2"]),
        credits in 1u32..4,
        kib in 1u32..6,
        order in prop::sample::select(vec!["arrival", "receive_first", "send_first"]),
    ) {
        let update = format!("lfc.low_water={}", credits / 2);
        let c = format!("lfc.credits={credits}");
        let o = format!("ni.order={order}");
        let on = all_to_all("hypercube:dim=2", scheme, &format!("{kib}KiB"), &lfc(&[&c, &update, &o, "lfc.recovery=eager"]));
        prop_assert_eq!(&on.run.outcome, &WorkloadOutcome::Drained);
        assert_workload_conserved(&on);
        prop_assert_eq!(on.run.lfc.clone().unwrap().fifo_violations, 0);
        let off = all_to_all("hypercube:dim=2", scheme, &format!("{kib}KiB"), &lfc(&[&c, &update, &o]));
        match &off.run.outcome {
            WorkloadOutcome::Drained => assert_workload_conserved(&off),
            WorkloadOutcome::Deadlock { diagnosis, .. } => prop_assert!(!diagnosis.cycle.is_empty()),
            other => prop_assert!(false, "{other:?}"),
        }
    }
}

/// A single plan that deadlocks on credits ends with the NI diagnosis, not a hang.
#[test]
fn single_plan_outcome_names_the_waiting_nis() {
    // Two chains in opposite directions would be a workload; one plan cannot wait on itself,
    // so a single chain multicast completes even with one credit.
    let (f, r) = fabric("hypercube:dim=3");
    let dests: Vec<EndpointId> = (1..8).map(EndpointId).collect();
    let plan = scheme_plan(&f, &*r, "chain", EndpointId(0), &dests, 4, Discipline::NiFpfs).unwrap();
    let res = run_plan(&f, &*r, &plan, &lfc(&["lfc.credits=1", "lfc.low_water=0"]), 4096, 1).unwrap();
    assert_eq!(res.outcome, Outcome::Delivered);
    assert_conserved(&f, &*r, &plan, &res);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// An independent model of the case where credits never bind: the `pipelined` protocol's own
    /// send path. With more credits than any pair ever needs, LFC's descriptors, transmit queues
    /// and buffer accounting must give exactly its timing, on random trees, groups, packet counts
    /// and NI orders (one message: no two messages compete for an NI's order).
    #[test]
    fn lfc_with_credits_to_spare_times_exactly_as_the_protocol_free_run(
        dim in 1u32..4,
        scheme in prop::sample::select(vec!["binomial", "binary", "chain", "kbinomial:k=3", "separate"]),
        src in 0u32..64,
        pick in prop::collection::vec(any::<bool>(), 64),
        packets in 1u32..6,
        order in prop::sample::select(vec!["arrival", "receive_first", "send_first"]),
    ) {
        let (f, r) = fabric(&format!("hypercube:dim={dim}"));
        let n = f.num_endpoints() as u32;
        let src = src % n;
        let mut dests: Vec<EndpointId> = (0..n).filter(|&e| e != src && pick[e as usize]).map(EndpointId).collect();
        if dests.is_empty() {
            dests.push(EndpointId((src + 1) % n));
        }
        let plan = scheme_plan(&f, &*r, scheme, EndpointId(src), &dests, packets, Discipline::NiFpfs).unwrap();
        let o = format!("ni.order={order}");
        let bytes = packets as u64 * 1024;
        let base = run_plan(&f, &*r, &plan, &lfc(&["ni.send=pipelined", &o]), bytes, 1).unwrap();
        let with = run_plan(&f, &*r, &plan, &lfc(&["lfc.credits=1000", &o]), bytes, 1).unwrap();
        prop_assert_eq!(&with.outcome, &Outcome::Delivered);
        prop_assert_eq!(&with.per_destination, &base.per_destination);
        prop_assert_eq!(with.end_ps, base.end_ps);
        prop_assert_eq!(with.lfc.unwrap().blocked_sends, 0);
    }
}

/// A tree that misses a destination cannot be an NI forwarding table: refused before the run.
#[test]
fn a_tree_that_misses_a_destination_is_refused_before_the_run() {
    let (f, r) = fabric("hypercube:dim=1");
    let dests: Vec<EndpointId> = (1..5).map(EndpointId).collect();
    let mut plan = scheme_plan(&f, &*r, "binomial", EndpointId(0), &dests, 1, Discipline::NiFpfs).unwrap();
    plan.destinations.push(EndpointId(6));
    for p in [lfc(&[]), Params::preset("bhoedjang98_fmmc").unwrap()] {
        let e = run_plan(&f, &*r, &plan, &p, 100, 1).unwrap_err().to_string();
        assert!(e.starts_with("parameter `plan`") && e.contains("destination 6 is reached by no transmission"), "{e}");
    }
    // Without NI forwarding tables the run goes ahead and reports the missing destination.
    let res = run_plan(&f, &*r, &plan, &lfc(&["ni.send=pipelined"]), 100, 1).unwrap();
    assert!(matches!(res.outcome, Outcome::Undelivered { .. }), "{:?}", res.outcome);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// With credits that bind (one or two per pair), the two network engines — flit by flit and
    /// exact packet trains under cut-through — must give the NIs the same arrivals, so every
    /// result of the run (LFC's counts included) is the same: the protocol's timing does not
    /// depend on how the network is simulated.
    #[test]
    fn binding_credits_give_the_same_run_flit_by_flit_and_as_packet_trains(
        scheme in prop::sample::select(vec!["binomial", "binary", "chain", "separate"]),
        src in 0u32..32,
        pick in prop::collection::vec(any::<bool>(), 32),
        packets in 1u32..5,
        credits in 1u32..3,
    ) {
        let (f, r) = fabric("irregular");
        let n = f.num_endpoints() as u32;
        let src = src % n;
        let mut dests: Vec<EndpointId> = (0..n).filter(|&e| e != src && pick[e as usize]).map(EndpointId).collect();
        if dests.is_empty() {
            dests.push(EndpointId((src + 1) % n));
        }
        let plan = scheme_plan(&f, &*r, scheme, EndpointId(src), &dests, packets, Discipline::NiFpfs).unwrap();
        let c = format!("lfc.credits={credits}");
        let base = ["ni.send=lfc", "switch.switching=cut_through", "switch.buffer_flits=256", "lfc.low_water=0", "link.propagation=5ns"];
        let run = |g: &str| {
            let mut o: Vec<&str> = base.to_vec();
            o.push(&c);
            o.push(g);
            let p = Params::with_overrides("sivaram98", &o).unwrap();
            run_plan(&f, &*r, &plan, &p, packets as u64 * 128, 1).unwrap()
        };
        let (flit, trains) = (run("switch.granularity=flit"), run("switch.granularity=packet"));
        prop_assert_eq!(&flit.outcome, &Outcome::Delivered);
        prop_assert_eq!(&flit.per_destination, &trains.per_destination);
        prop_assert_eq!(&flit.lfc, &trains.lfc);
        prop_assert_eq!(flit.end_ps, trains.end_ps);
        if packets > credits {
            // More packets to a child than credits: the credits really bound.
            prop_assert!(flit.lfc.clone().unwrap().blocked_sends > 0);
        }
    }
}
