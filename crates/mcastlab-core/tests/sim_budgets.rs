//! Long runs are announced and bounded (issue 13): a workload run's work is estimated before its
//! first event, a run estimated beyond `limits.max_events` is refused at once with the numbers,
//! and a run the estimate underrated still stops at the budget with its rows and the reason.

use mcastlab_core::sim::{estimate, run_workload, sweep, Measure, Params, Time, Workload, WorkloadOutcome};

mod common;
use common::fabric_routed as fabric;

fn measure(p: &Params, batches: u32) -> Measure {
    let c = p.flit_ps();
    Measure { warmup: Some(Time(2_000 * c)), batch: Some(Time(2_000 * c)), batches, ..Measure::default() }
}

/// The estimate counts one event per flit hop of the messages created before the window ends: a
/// floor of what the run takes (it drains past the window, and events exceed flit hops), yet of
/// the same order, for unicast and multicast workloads alike.
#[test]
fn the_estimate_is_a_floor_of_the_same_order_as_the_run() {
    let (f, r) = fabric("mesh:4x4", None);
    let p = Params::preset("sivaram98").unwrap();
    let m = measure(&p, 3);
    for spec in ["uniform:load=0.05", "multicast_load:degree=4,load=0.05,scheme=binomial", "blast:count=4"] {
        let w = Workload::parse(spec).unwrap();
        let e = estimate(&f, &*r, &w, &p, &m, 1, &[]).unwrap();
        let run = run_workload(&f, &*r, &w, &p, &m, 1).unwrap().run;
        assert_eq!(run.estimated_events, e[0].events, "{spec}");
        assert!(e[0].events > 0 && e[0].events <= run.events, "{spec}: {} > {}", e[0].events, run.events);
        assert!(run.events <= 4 * e[0].events, "{spec}: estimate {} far below {}", e[0].events, run.events);
    }
}

/// Twice the load, twice the messages; the per-message work does not depend on the load.
#[test]
fn a_sweeps_estimates_scale_with_load() {
    let (f, r) = fabric("mesh:4x4", None);
    let p = Params::preset("sivaram98").unwrap();
    let w = Workload::parse("uniform:load=0.2").unwrap();
    let e = estimate(&f, &*r, &w, &p, &measure(&p, 3), 1, &[0.05, 0.1]).unwrap();
    assert_eq!(e[0].flit_hops_per_message, e[1].flit_hops_per_message);
    assert!((e[1].messages / e[0].messages - 2.0).abs() < 1e-9, "{e:?}");
}

/// A mistyped `measure.batches` is refused before the first event, naming the budget, the
/// estimate and how to raise it; the same run with the budget lifted passes the check.
#[test]
fn a_run_estimated_beyond_the_event_budget_is_refused_before_it_starts() {
    let (f, r) = fabric("mesh:4x4", None);
    let p = Params::with_overrides("sivaram98", &["limits.max_events=100000"]).unwrap();
    let w = Workload::parse("uniform:load=0.05").unwrap();
    let long = measure(&p, 100_000);
    let err = run_workload(&f, &*r, &w, &p, &long, 1).unwrap_err().to_string();
    assert!(err.starts_with("parameter `limits.max_events`: this run needs about"), "{err}");
    assert!(err.contains("--param limits.max_events=") && err.contains("measure.batches"), "{err}");
    let err = sweep(&f, &*r, &w, &p, &long, 1, &[0.01, 0.05]).unwrap_err().to_string();
    assert!(err.starts_with("parameter `load`: 0.01: parameter `limits.max_events`"), "{err}");
    let e = estimate(&f, &*r, &w, &p, &long, 1, &[]).unwrap_err().to_string();
    assert!(e.starts_with("parameter `limits.max_events`"), "{e}");
}

/// The estimate is a floor, so a run can pass it and still reach the budget: it then stops there
/// with its rows so far and says which budget stopped it.
#[test]
fn a_run_the_estimate_underrated_stops_at_the_budget_with_its_rows() {
    let (f, r) = fabric("mesh:4x4", None);
    let base = Params::preset("sivaram98").unwrap();
    let w = Workload::parse("uniform:load=0.05").unwrap();
    let m = measure(&base, 3);
    let e = estimate(&f, &*r, &w, &base, &m, 1, &[]).unwrap()[0];
    let p = Params::with_overrides("sivaram98", &[&format!("limits.max_events={}", e.events)]).unwrap();
    let run = run_workload(&f, &*r, &w, &p, &m, 1).unwrap().run;
    let WorkloadOutcome::Budget { message } = &run.outcome else { panic!("{:?}", run.outcome) };
    assert!(message.contains("limits.max_events"), "{message}");
    assert_eq!(run.events, e.events);
    assert!(run.messages > 0);
}

/// The default budget is a finite number of events, so no run goes on for hours unannounced.
#[test]
fn every_preset_has_an_event_budget() {
    for name in ["sivaram98", "zhou07", "coll03", "bhoedjang98"] {
        assert_eq!(Params::preset(name).unwrap().limits.max_events, Some(1_000_000_000), "{name}");
    }
}

/// The measurement's own setup counts against the memory budget before it allocates: a billion
/// batches with the event budget lifted is refused, not an allocation failure.
#[test]
fn a_billion_batches_are_refused_by_the_memory_budget_before_allocating() {
    let (f, r) = fabric("mesh:4x4", None);
    let p = Params::with_overrides("sivaram98", &["limits.max_events=none"]).unwrap();
    let w = Workload::parse("uniform:load=0.05").unwrap();
    let m = Measure { batches: 1_000_000_000, ..Measure::default() };
    let err = run_workload(&f, &*r, &w, &p, &m, 1).unwrap_err().to_string();
    assert!(
        err.starts_with("parameter `limits.max_memory`: the measurement's per-batch statistics need 30517 MiB"),
        "{err}"
    );
}

/// Host costs so large that simulated time would pass 2^64 ps: the run stops at the time budget
/// and says why. The times used to wrap round: a chain of eight 3,000,000 s host sends reported
/// its completion at 1.8e19 ps instead of 2.4e19, and of 5,000,000 s ones at 1.66e19, earlier
/// still, with exit 0.
#[test]
fn a_run_whose_time_would_pass_2_64_ps_stops_instead_of_wrapping_round() {
    use mcastlab_core::plan::Discipline;
    use mcastlab_core::schemes::{self, SchemeInput};
    use mcastlab_core::sim::{Outcome, Simulation};
    use mcastlab_core::EndpointId;

    let (f, r) = fabric("mesh:3x3", None);
    let dests: Vec<EndpointId> = (1..9).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: &f,
        routing: &*r,
        source: EndpointId(0),
        destinations: &dests,
        packets: 1,
        discipline: Discipline::Host,
    };
    let plan = schemes::plan(&input, "chain").unwrap();
    for (t_hs_s, fits) in [(1_000_000u64, true), (3_000_000, false), (5_000_000, false)] {
        let p = Params::with_overrides("sivaram98", &[&format!("host.t_hs={t_hs_s}s")]).unwrap();
        let res = Simulation::new(&f, &*r, &plan, &p, 128, 1).unwrap().run();
        let t_hs = t_hs_s * 1_000_000_000_000;
        if fits {
            // Eight host sends one after another, the last destination's message behind them all.
            assert_eq!(res.outcome, Outcome::Delivered, "{t_hs_s} s");
            assert!(res.completion_ps.unwrap() >= 8 * t_hs, "{t_hs_s} s: {:?}", res.completion_ps);
        } else {
            match &res.outcome {
                Outcome::Budget { message } => assert!(message.contains("2^64 ps"), "{t_hs_s} s: {message}"),
                other => panic!("{t_hs_s} s: {other:?}, completion {:?}", res.completion_ps),
            }
            assert_eq!(res.completion_ps, None, "{t_hs_s} s");
            let times: Vec<u64> = res.per_destination.iter().filter_map(|d| d.latency_ps).collect();
            assert!(times.windows(2).all(|w| w[0] < w[1]), "{t_hs_s} s: latencies {times:?}");
        }
    }
}
