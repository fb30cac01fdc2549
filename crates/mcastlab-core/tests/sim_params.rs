//! Bad input to the simulator: every impossible parameter or mismatched run is an error naming
//! what is wrong, raised before the first event.

use mcastlab_core::fabric::Fabric;
use mcastlab_core::plan::{Carrier, Discipline, Plan, SwitchState, Transmission, Trigger};
use mcastlab_core::routing::Routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_plan, Measure, Params, KEYS, MEASURE_KEYS, PRESETS};
use mcastlab_core::{EndpointId, SimError};

mod common;
use common::fabric;

/// (overrides on sivaram98, the parameter the error must name, a word of the message)
const INVALID: &[(&[&str], &str, &str)] = &[
    (&["link.bandwidth=0Gb/s"], "link.bandwidth", "positive"),
    (&["link.bandwidth=0"], "link.bandwidth", "needs a unit"),
    // The watchdog is the preset's: the message points at the bandwidth that makes a hop take seconds.
    (&["link.bandwidth=1b/s"], "limits.watchdog", "check link.bandwidth"),
    (&["link.bandwidth=inf"], "link.bandwidth", "finite"),
    (&["link.bandwidth=fast"], "link.bandwidth", "not a number"),
    (&["link.bandwidth=3 furlongs/s"], "link.bandwidth", "unknown rate unit"),
    (&["link.bandwidth=1000000Tb/s"], "link.bandwidth", "under 1 ps"),
    (&["link.flit_bytes=0"], "link.flit_bytes", "at least one byte"),
    (&["link.flit_bytes=1.5B"], "link.flit_bytes", "whole number"),
    (&["link.mtu_bytes=0"], "link.mtu_bytes", "at least one byte"),
    (&["link.propagation=-3ns"], "link.propagation", "negative"),
    (&["switch.buffer_flits=0"], "switch.buffer_flits", "smaller than one flit"),
    (&["switch.buffer_flits=64B"], "switch.buffer_flits", "number of flits"),
    (&["switch.switching=cut_through", "switch.buffer_flits=64"], "switch.buffer_flits", "whole packet"),
    (&["switch.switching=store_and_forward", "switch.buffer_flits=127"], "switch.buffer_flits", "128 flits"),
    (&["switch.switching=teleport"], "switch.switching", "not one of"),
    (&["switch.vcs=0"], "switch.vcs", "at least one"),
    (&["switch.vcs=300"], "switch.vcs", "255"),
    (&["switch.routing_delay=5"], "switch.routing_delay", "needs a unit"),
    (&["host.t_hs=-1us"], "host.t_hs", "negative"),
    (&["host.t_hr=1.5ps"], "host.t_hr", "whole number of picoseconds"),
    (&["ni.t_ns=soon"], "ni.t_ns", "not a number"),
    (&["ni.t_nr=5 fortnights"], "ni.t_nr", "unknown time unit"),
    (&["ni.dma_bandwidth=0MB/s"], "ni.dma_bandwidth", "positive"),
    (&["ni.send=later"], "ni.send", "pipelined, step"),
    (&["limits.watchdog=0ns"], "limits.watchdog", "one hop"),
    (&["limits.watchdog=20ns"], "limits.watchdog", "one hop"),
    (&["limits.max_events=0"], "limits.max_events", "at least 1"),
    (&["limits.max_time=never"], "limits.max_time", "not a number"),
    (&["limits.max_time=0ns"], "limits.max_time", "must be positive"),
    // A window of 0 never lets a message out (it deadlocked), as lfc.credits=0 would.
    (&["fmmc.unicast_window=0"], "fmmc.unicast_window", "at least 1"),
    (&["justtext"], "justtext", "key=value"),
];

#[test]
fn impossible_parameters_name_the_parameter() {
    for (overrides, param, word) in INVALID {
        let e = Params::with_overrides("sivaram98", overrides).expect_err(&format!("{overrides:?} must fail"));
        let text = e.to_string();
        assert!(matches!(&e, SimError::Param { param: p, .. } if p == param), "{overrides:?}: {e:?}");
        assert!(text.starts_with(&format!("parameter `{param}`")), "{text}");
        assert!(text.contains(word), "{overrides:?}: `{text}` lacks `{word}`");
    }
}

/// `link.wrap_propagation` only changes a torus's wrap-around links: on a mesh (no wrap links)
/// or a torus whose dimensions are all 2 it would silently change nothing, so it is refused.
#[test]
fn wrap_propagation_is_refused_without_wrap_links() {
    let p = Params::with_overrides("sivaram98", &["link.wrap_propagation=20ns"]).unwrap();
    for spec in ["mesh:3x3", "kary_ntree:k=2,n=2", "torus:2x2"] {
        let f = mcastlab_core::fabric::generators::generate(spec).unwrap();
        let e = p.validate_on(&f).unwrap_err();
        assert!(matches!(&e, SimError::Param { param, .. } if param == "link.wrap_propagation"), "{spec}: {e:?}");
        assert!(e.to_string().contains("applies only to a torus"), "{e}");
    }
    assert!(p.validate_on(&mcastlab_core::fabric::generators::generate("torus:3x3").unwrap()).is_ok());
    let plain = Params::preset("sivaram98").unwrap();
    assert!(plain.validate_on(&mcastlab_core::fabric::generators::generate("mesh:3x3").unwrap()).is_ok());
}

#[test]
fn unknown_keys_and_presets_list_the_known_ones() {
    let e = Params::with_overrides("sivaram98", &["link.colour=blue"]).unwrap_err();
    assert!(matches!(&e, SimError::UnknownParam { key, .. } if key == "link.colour"));
    assert!(KEYS.iter().all(|k| e.to_string().contains(k.key)), "{e}");
    let e = Params::preset("booksim").unwrap_err();
    assert!(matches!(&e, SimError::UnknownPreset { name, .. } if name == "booksim"));
    assert!(PRESETS.iter().all(|p| e.to_string().contains(p.name)), "{e}");
}

#[test]
fn every_key_can_be_set_to_its_current_value() {
    // The keys are the serde paths of the fields: printing a preset's value and setting it back
    // changes nothing.
    for preset in PRESETS {
        let p = Params::preset(preset.name).unwrap();
        let json = serde_json::to_value(&p).unwrap();
        let mut q = p.clone();
        for k in KEYS {
            let (section, field) = k.key.split_once('.').unwrap();
            let v = &json[section][field];
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => "none".into(),
                other => other.to_string(),
            };
            q.set(k.key, &text).unwrap_or_else(|e| panic!("{}: {} = {text}: {e}", preset.name, k.key));
        }
        assert_eq!(p, q, "{}", preset.name);
    }
}

/// (kind, a value of the wrong form, a word of the message): one bad value per kind of value.
const BAD_BY_KIND: &[(&str, &str, &str)] = &[
    ("time", "5 parsecs", "unknown time unit"),
    ("rate", "3 furlongs/s", "unknown rate unit"),
    ("size", "1.5B", "whole number"),
    ("flits", "64B", "number of flits"),
    ("count", "7x", "plain number"),
    ("bool", "yes", "not one of true, false"),
    ("choice", "teleport", "is not one of"),
    ("choice or none", "teleport", "is not one of"),
    ("number", "fast", "not a number"),
    ("count or none", "lots", "not a number"),
    ("time or none", "never", "not a number"),
    ("size or none", "4 lumps", "unknown size unit"),
    ("times", "2ns/5 parsecs", "unknown time unit"),
];

#[test]
fn a_bad_value_of_every_kind_names_the_key() {
    let mut kinds_seen = Vec::new();
    let mut check = |key: &str, kind: String, set: &mut dyn FnMut(&str) -> Result<(), SimError>| {
        let (_, bad, word) = BAD_BY_KIND.iter().find(|(k, _, _)| *k == kind).unwrap_or_else(|| panic!("{key}: {kind}"));
        let e = set(bad).expect_err(&format!("{key}={bad} must fail"));
        assert!(matches!(&e, SimError::Param { param, .. } if param == key), "{key}: {e:?}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("parameter `{key}`")) && text.contains(word),
            "{key}: `{text}` lacks `{word}`"
        );
        kinds_seen.push(kind);
    };
    for k in KEYS {
        let mut p = Params::preset("sivaram98").unwrap();
        check(k.key, k.kind(), &mut |v| p.set(k.key, v));
    }
    for k in MEASURE_KEYS {
        let mut m = Measure::default();
        check(k.key, k.kind(), &mut |v| m.set(k.key, v));
    }
    for (kind, _, _) in BAD_BY_KIND {
        assert!(kinds_seen.iter().any(|k| k == kind), "no key of kind {kind}");
    }
    // Values out of the field's range name the key too.
    let e = Params::with_overrides("sivaram98", &["link.mtu_bytes=8GiB"]).unwrap_err().to_string();
    assert!(e.starts_with("parameter `link.mtu_bytes`") && e.contains("4294967295"), "{e}");
}

#[test]
fn every_key_round_trips_through_its_text_in_every_preset() {
    for preset in PRESETS {
        let p = Params::preset(preset.name).unwrap();
        let mut q = p.clone();
        for k in KEYS {
            let text = p.show(k.key).unwrap();
            q.set(k.key, &text).unwrap_or_else(|e| panic!("{}: {} = {text}: {e}", preset.name, k.key));
            assert_eq!(k.show(&q), text, "{}: {}", preset.name, k.key);
        }
        assert_eq!(p, q, "{}", preset.name);
    }
    // Non-default values too, for the kinds the presets leave at one value.
    let mut p = Params::preset("sivaram98").unwrap();
    for o in ["limits.max_events=1000", "limits.max_time=3us", "limits.max_memory=4GiB", "link.mtu_bytes=1536"] {
        p.apply(o).unwrap();
    }
    let mut m = Measure::default();
    for (k, v) in [("measure.warmup", "7us"), ("measure.latency_factor", "2.5"), ("measure.detail", "messages")] {
        m.set(k, v).unwrap();
    }
    let (p0, m0) = (p.clone(), m.clone());
    for k in KEYS {
        p.set(k.key, &p0.show(k.key).unwrap()).unwrap();
    }
    for k in MEASURE_KEYS {
        m.set(k.key, &m0.show(k.key).unwrap()).unwrap();
    }
    assert_eq!((p, m), (p0, m0));
}

/// `docs/params.md` is generated from the table; this fails while the committed page differs,
/// and rewrites it when `MCASTLAB_WRITE_DOCS` is set.
#[test]
fn docs_page_is_current() {
    use mcastlab_core::sim::params::docs;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/params.md");
    let page = docs::markdown();
    if std::env::var_os("MCASTLAB_WRITE_DOCS").is_some() {
        std::fs::write(&path, &page).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == page,
        "docs/params.md differs from the parameter table; regenerate it with `{}`",
        docs::REGENERATE
    );
}

#[test]
fn wormhole_does_not_need_a_packet_to_fit_in_a_buffer() {
    assert!(Params::with_overrides("sivaram98", &["switch.buffer_flits=2"]).is_ok());
}

fn binomial(f: &Fabric, r: &dyn Routing, m: u32) -> Plan {
    let dests: Vec<EndpointId> = (1..4).map(EndpointId).collect();
    let input = SchemeInput {
        fabric: f,
        routing: r,
        source: EndpointId(0),
        destinations: &dests,
        packets: m,
        discipline: Discipline::NiFpfs,
    };
    schemes::plan(&input, "binomial").unwrap()
}

fn param_of(e: SimError) -> String {
    match e {
        SimError::Param { param, .. } => param,
        other => panic!("expected a parameter error, got {other:?}"),
    }
}

#[test]
fn runs_that_cannot_start_are_refused_before_the_first_event() {
    let p = Params::preset("sivaram98").unwrap();
    // A torus with datelines needs two VCs.
    let (t, tr) = fabric("torus:4x4");
    let plan = binomial(&t, &*tr, 1);
    assert_eq!(param_of(run_plan(&t, &*tr, &plan, &p, 128, 1).unwrap_err()), "switch.vcs");
    // The message must make as many packets as the plan was built for.
    let (f, r) = fabric("irregular");
    let plan = binomial(&f, &*r, 1);
    let e = run_plan(&f, &*r, &plan, &p, 129, 1).unwrap_err();
    assert!(e.to_string().contains("2 packet(s)"), "{e}");
    assert_eq!(param_of(e), "message_bytes");
    // A plan belongs to its fabric.
    let (g, gr) = fabric("irregular:seed=2");
    assert_eq!(param_of(run_plan(&g, &*gr, &plan, &p, 128, 1).unwrap_err()), "plan");
    // Bad parameters are caught even when handed over directly.
    let mut bad = p.clone();
    bad.switch.buffer_flits = 0;
    assert_eq!(param_of(run_plan(&f, &*r, &plan, &bad, 128, 1).unwrap_err()), "switch.buffer_flits");
}

#[test]
fn a_carrier_the_switches_cannot_decode_is_refused() {
    let (f, r) = fabric("irregular");
    let dests: Vec<EndpointId> = (1..4).map(EndpointId).collect();
    let tx = vec![Transmission {
        sender: EndpointId(0),
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid: 0xC000 },
        delivers: dests.clone(),
    }];
    let plan = Plan::from_transmissions(&f, "custom", EndpointId(0), dests, 1, Discipline::NiFpfs, tx)
        .unwrap()
        // A broadcast along a spanning tree plus one more switch link, which closes a cycle: the
        // packet would go round it for ever.
        .with_switch_state(&f, SwitchState { mft: common::spanning_mft(&f, 0xC000, 1), reachability: Vec::new() })
        .unwrap();
    let p = Params::preset("sivaram98").unwrap();
    let e = run_plan(&f, &*r, &plan, &p, 128, 1).unwrap_err();
    assert!(matches!(&e, SimError::Undecodable { transmission: 0, message } if message.contains("loops")), "{e:?}");
}

/// A memory budget stops a run that outgrows it, with a message naming the key, and keeps what
/// it measured; a generous budget changes nothing.
#[test]
fn the_memory_budget_stops_a_run_and_keeps_its_results() {
    use mcastlab_core::fabric::generators::generate;
    use mcastlab_core::routing;
    use mcastlab_core::sim::{run_workload, Detail, Measure, Time, Workload, WorkloadOutcome};
    let f = generate("mesh:4x4").unwrap();
    let r = routing::build(&f, None).unwrap();
    let w = Workload::parse("uniform:load=0.2").unwrap();
    // Per-destination rows grow with the run: 16 endpoints at 0.2 flits/cycle, 8-flit messages.
    let m = Measure { batch: Some(Time::from_us(100)), batches: 4, detail: Detail::Destinations, ..Measure::default() };
    let base = ["host.t_hs=0ns", "host.t_hr=0ns", "ni.t_ns=0ns", "ni.t_nr=0ns", "link.mtu_bytes=8"];
    let p = |extra: &[&str]| Params::with_overrides("sivaram98", &[&base[..], extra].concat()).unwrap();
    let free = run_workload(&f, &*r, &w, &p(&[]), &m, 1).unwrap();
    assert_eq!(free.run.outcome, WorkloadOutcome::Drained);
    let roomy = run_workload(&f, &*r, &w, &p(&["limits.max_memory=1GiB"]), &m, 1).unwrap();
    assert_eq!(roomy.run.latency_mean_ps, free.run.latency_mean_ps);
    let tight = run_workload(&f, &*r, &w, &p(&["limits.max_memory=1MiB"]), &m, 1).unwrap();
    match &tight.run.outcome {
        WorkloadOutcome::Budget { message } => assert!(message.contains("limits.max_memory"), "{message}"),
        other => panic!("expected the memory budget to stop the run, got {other:?} ({} messages)", free.run.messages),
    }
    assert!(tight.run.messages > 0 && tight.run.messages < free.run.messages);
    for bad in ["limits.max_memory=0", "limits.max_memory=lots"] {
        let e = Params::with_overrides("sivaram98", &[bad]).unwrap_err().to_string();
        assert!(e.contains("limits.max_memory"), "{e}");
    }
}
