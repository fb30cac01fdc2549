//! Template recycling (issue 12, memory): beyond `limits.kept_templates`, the template of a
//! message that finished, when no other message uses it, gives its id and its place in the run's
//! tables to the next template of the same shape. Nothing a run reports may depend on where a
//! template lies, so a run that recycles every template it can (`kept_templates=0`) or a few
//! (`kept_templates=3`) must give every row of a run that keeps them all (`none`), field for
//! field; only the counts of templates built and recycled differ, and they must show that
//! recycling happened.
//!
//! Random small cases on both switch models (the flit engine under sivaram98's parameters and
//! BookSim's iq router), on fat-trees with a routing that picks a route per packet at run time
//! (whose forked trees carry alias tables that recycling must rewrite), an irregular fabric and a
//! mesh; unicast and multicast workloads with random loads, arrival processes and message sizes.

use mcastlab_core::fabric::generators::generate;
use mcastlab_core::routing;
use mcastlab_core::sim::{run_workload, Detail, Measure, Params, Time, Workload, WorkloadResult};
use proptest::prelude::*;
use serde_json::Value;

mod common;

/// Fabrics with the routing to use (`None`: the default).
const FABRICS: &[(&str, Option<&str>)] = &[
    ("mport_ntree:m=4,n=2", None),
    ("kary_ntree:k=4,n=2", Some("nca:up=random")),
    ("kary_ntree:k=2,n=3", Some("nca:up=adaptive")),
    ("irregular:switches=5,ports=6,endpoints=12,seed=3", None),
    ("mesh:3x3", None),
];

const PRESETS: &[&str] = &["sivaram98", "booksim_iq"];

#[derive(Clone, Debug)]
struct Case {
    fabric: usize,
    preset: usize,
    kind: usize,
    load: f64,
    poisson: bool,
    packets: u64,
    seed: u64,
}

fn cases() -> impl Strategy<Value = Case> {
    (0..FABRICS.len(), 0..PRESETS.len(), 0..3usize, 0.05..0.6f64, any::<bool>(), 1..4u64, 0..1000u64).prop_map(
        |(fabric, preset, kind, load, poisson, packets, seed)| Case {
            fabric,
            preset,
            kind,
            load,
            poisson,
            packets,
            seed,
        },
    )
}

/// The case's workload on a fabric of `n` endpoints.
fn workload(c: &Case, n: usize, mtu: u64) -> String {
    let process = if c.poisson { "poisson" } else { "bernoulli" };
    let load = c.load;
    let w = match c.kind {
        0 => format!("uniform:load={load},process={process}"),
        1 => format!(
            "multicast_load:degree={},load={load},process={process},scheme=binomial",
            1 + c.seed as usize % (n - 1)
        ),
        _ => format!("many_to_many:senders_pct=50,group_pct=40,load={load},process={process},scheme=separate"),
    };
    format!("{w},bytes={}", c.packets * mtu)
}

/// The rows as JSON without the parameter that differs and the template counts.
fn comparable(r: &WorkloadResult) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    let run = v["run"].as_object_mut().unwrap();
    for key in ["templates_built", "templates_recycled"] {
        run.remove(key).expect("the run reports its templates");
    }
    run["params"]["limits"].as_object_mut().unwrap().remove("kept_templates");
    v
}

fn run(c: &Case, keep: Option<u64>) -> Result<WorkloadResult, TestCaseError> {
    let (spec, routing) = FABRICS[c.fabric];
    let f = generate(spec).unwrap();
    let r = routing::build(&f, routing).unwrap();
    let mut p = Params::preset(PRESETS[c.preset]).unwrap();
    p.limits.kept_templates = keep;
    let w = Workload::parse(&workload(c, f.num_endpoints(), p.link.mtu_bytes as u64)).unwrap();
    let cyc = p.flit_ps();
    let m = Measure {
        warmup: Some(Time(200 * cyc)),
        batch: Some(Time(600 * cyc)),
        batches: 2,
        detail: Detail::Destinations,
        ..Measure::default()
    };
    run_workload(&f, r.as_ref(), &w, &p, &m, c.seed).map_err(|e| TestCaseError::fail(format!("{c:?}: {e}")))
}

fn compare(c: &Case) -> Result<(), TestCaseError> {
    let all = run(c, None)?;
    prop_assert_eq!(all.run.templates_recycled, 0);
    for keep in [0, 3] {
        let some = run(c, Some(keep))?;
        if let Some(d) = common::first_difference(&comparable(&some), &comparable(&all), "") {
            return Err(TestCaseError::fail(format!("{c:?}: kept_templates={keep} vs none: {d}")));
        }
        // What recycling leaves held never exceeds what keeping them all holds.
        let held = some.run.templates_built - some.run.templates_recycled;
        prop_assert!(held <= all.run.templates_built, "{:?}", c);
        common::tally(if some.run.templates_recycled > 0 { RECYCLED } else { OTHER });
    }
    Ok(())
}

const CASES: u32 = 150;
const RECYCLED: &str = "templates recycled";
const OTHER: &str = "nothing recycled (every template in use, or few enough kept)";

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, .. ProptestConfig::default() })]

    fn recycling_cases(c in cases()) {
        compare(&c)?;
    }
}

/// Every random run gives the same rows whatever number of templates it keeps; a third of the
/// comparisons at least must really have recycled templates (otherwise they prove nothing).
#[test]
fn recycled_templates_change_no_row() {
    common::Tally::start();
    recycling_cases();
    let t = common::Tally::take();
    println!("{t:?}");
    t.assert_only(&[RECYCLED, OTHER]);
    assert!(t.get(RECYCLED) * 3 >= t.total(), "{t:?}");
}

/// With every template recycled as soon as its last message finishes, a uniform run that
/// drains holds none at its end, and builds a pair's template again when the pair recurs.
#[test]
fn recycling_leaves_no_template_held() {
    let c = Case { fabric: 3, preset: 1, kind: 0, load: 0.3, poisson: false, packets: 1, seed: 7 };
    let all = run(&c, None).unwrap();
    let none_kept = run(&c, Some(0)).unwrap();
    assert!(matches!(all.run.outcome, mcastlab_core::sim::WorkloadOutcome::Drained), "{:?}", all.run.outcome);
    // 12 endpoints: at most the 132 ordered pairs when all are kept, and the run repeats pairs.
    assert_eq!(all.run.templates_recycled, 0);
    assert!(all.run.templates_built <= 132 && all.run.messages > 2 * all.run.templates_built);
    assert_eq!(none_kept.run.templates_built, none_kept.run.templates_recycled);
    assert!(none_kept.run.templates_built > all.run.templates_built);
    // Keeping 50 recycles only beyond 50: every template held at the end is one of them or in use.
    let fifty = run(&c, Some(50)).unwrap();
    let held = fifty.run.templates_built - fifty.run.templates_recycled;
    assert!(held >= 50 && held <= all.run.templates_built, "{held}");
}
