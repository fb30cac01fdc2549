//! Golden dump (not committed): many simulator runs through the public API, one line each, so the
//! same program built against two versions of the crate shows whether results are bit for bit
//! the same. Usage: golden [filter]
use mcastlab_core::fabric::generators::generate;
use mcastlab_core::ids::EndpointId;
use mcastlab_core::plan::Discipline;
use mcastlab_core::routing;
use mcastlab_core::schemes::{self, SchemeInput};
use mcastlab_core::sim::{run_workload, sweep, Measure, Params, Simulation, Workload};
use std::time::Instant;

fn out(case: &str, body: String) {
    println!("{case}\t{body}");
}

fn plan_runs(spec: &str, preset: &str, sizes: &[u64], extra: &[&[&str]], filter: &str) {
    let f = generate(spec).unwrap();
    let r = routing::build(&f, None).unwrap();
    let n = f.num_endpoints() as u32;
    let groups: Vec<(String, Vec<EndpointId>)> = vec![
        ("all".into(), (1..n).map(EndpointId).collect()),
        ("third".into(), (1..n).filter(|e| e % 3 == 1).map(EndpointId).collect()),
    ];
    for scheme in schemes::applicable(&f) {
        for disc in [Discipline::NiFpfs, Discipline::NiFcfs, Discipline::Host] {
            for &bytes in sizes {
                for ov in extra {
                    let mut params = Params::with_overrides(preset, ov).unwrap();
                    for (gname, dests) in &groups {
                        let case = format!("plan|{spec}|{preset}|{ov:?}|{scheme}|{disc:?}|{bytes}|{gname}");
                        if !case.contains(filter) {
                            continue;
                        }
                        let packets = params.packets_for(bytes);
                        let input = SchemeInput {
                            fabric: &f,
                            routing: r.as_ref(),
                            source: EndpointId(0),
                            destinations: dests,
                            packets,
                            discipline: disc,
                        };
                        let plan = match schemes::plan(&input, scheme) {
                            Ok(p) => p,
                            Err(e) => {
                                out(&case, format!("plan error: {e}"));
                                continue;
                            }
                        };
                        params.limits.max_events = Some(20_000_000);
                        match Simulation::new(&f, r.as_ref(), &plan, &params, bytes, 7) {
                            Ok(mut s) => {
                                let res = s.run();
                                out(&case, serde_json::to_string(&res).unwrap());
                            }
                            Err(e) => out(&case, format!("sim error: {e}")),
                        }
                    }
                }
            }
        }
    }
}

fn slices_and_trace(filter: &str) {
    let case = "slices|irregular|binomial";
    if !case.contains(filter) {
        return;
    }
    let f = generate("irregular").unwrap();
    let r = routing::build(&f, None).unwrap();
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let params = Params::preset("sivaram98").unwrap();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets: params.packets_for(1024),
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "binomial").unwrap();
    let mut s = Simulation::new(&f, r.as_ref(), &plan, &params, 1024, 1).unwrap();
    let mut slices = 0;
    while !s.advance(777) {
        slices += 1;
        let _ = s.progress();
    }
    out(case, format!("{slices} {}", serde_json::to_string(&s.results()).unwrap()));
    let mut s = Simulation::new(&f, r.as_ref(), &plan, &params, 1024, 1).unwrap();
    s.record_flits(true);
    let res = s.run();
    out("trace|irregular|binomial", format!("{} {}", serde_json::to_string(s.flit_trace()).unwrap(), res.events));
    // zhou07 with a trace: restarts at flit level.
    let f = generate("mport_ntree:m=4,n=3").unwrap();
    let r = routing::build(&f, None).unwrap();
    let dests: Vec<EndpointId> = (1..f.num_endpoints() as u32).map(EndpointId).collect();
    let params = Params::preset("zhou07").unwrap();
    let input = SchemeInput {
        fabric: &f,
        routing: r.as_ref(),
        source: EndpointId(0),
        destinations: &dests,
        packets: params.packets_for(9000),
        discipline: Discipline::NiFpfs,
    };
    let plan = schemes::plan(&input, "ib_cyclic").unwrap();
    let mut s = Simulation::new(&f, r.as_ref(), &plan, &params, 9000, 1).unwrap();
    s.record_flits(true);
    let res = s.run();
    out(
        "trace|zhou07|ib_cyclic",
        format!("{} {}", serde_json::to_string(s.flit_trace()).unwrap(), serde_json::to_string(&res).unwrap()),
    );
}

fn workloads(filter: &str) {
    let cases: &[(&str, &str, &[&str], &str, &str)] = &[
        (
            "mesh:8x8",
            "booksim_iq",
            &[],
            "uniform:self=1,load=0.1",
            r#"{"warmup": 30000, "batch": 200000, "batches": 3}"#,
        ),
        (
            "mesh:8x8",
            "booksim_iq",
            &[],
            "uniform:self=1,load=0.45",
            r#"{"warmup": 30000, "batch": 200000, "batches": 3, "latency_limit": 500000}"#,
        ),
        (
            "mesh:8x8",
            "booksim_iq",
            &["switch.allocator=input_first"],
            "uniform:self=1,load=0.2",
            r#"{"warmup": 30000, "batch": 200000, "batches": 3, "detail": "messages"}"#,
        ),
        ("mesh:8x8", "sivaram98", &[], "uniform:load=0.2", r#"{"batches": 3}"#),
        ("mport_ntree:m=4,n=3", "zhou07", &[], "uniform:load=0.2", r#"{"batches": 3}"#),
        (
            "mport_ntree:m=4,n=3",
            "zhou07",
            &[],
            "multicast_load:degree=3,load=0.1,scheme=ib_cyclic",
            r#"{"batches": 3, "detail": "destinations"}"#,
        ),
        (
            "mport_ntree:m=4,n=3",
            "zhou07",
            &[],
            "many_to_many:senders_pct=40,group_pct=40,scheme=ib_cyclic,load=0.1",
            r#"{"batches": 3}"#,
        ),
        (
            "mport_ntree:m=4,n=3",
            "zhou07",
            &[],
            "many_to_many:senders_pct=40,group_pct=40,scheme=ib_opensm,count=2,bytes=8KiB",
            r#"{}"#,
        ),
        (
            "irregular",
            "sivaram98",
            &[],
            "multicast_load:degree=3,load=0.002,scheme=binomial,process=poisson",
            r#"{"batches": 3}"#,
        ),
        (
            "irregular",
            "sivaram98",
            &["ni.send=step"],
            "all_to_all:scheme=chain,bytes=512",
            r#"{"detail": "destinations"}"#,
        ),
        (
            "irregular",
            "sivaram98",
            &[],
            "blast:source=3,count=4,scheme=kbinomial,bytes=1KiB,discipline=fcfs",
            r#"{"detail": "messages"}"#,
        ),
        ("irregular", "sivaram98", &[], "single:source=2,group_pct=50,scheme=bitstring", r#"{}"#),
        ("torus:4x4", "oral", &[], "multicast_load:degree=5,load=0.05,scheme=binomial", r#"{"batches": 3}"#),
        ("torus:4x4", "oral", &[], "all_to_all:scheme=utorus,bytes=256", r#"{}"#),
        (
            "kary_ntree:k=4,n=3",
            "coll03",
            &[],
            "many_to_many:senders_pct=10,group_pct=50,scheme=qs_greedy,count=3",
            r#"{"detail":"messages"}"#,
        ),
        ("kary_ntree:k=4,n=3", "coll03", &["switch.circuit_until_ack=false"], "uniform:load=0.1", r#"{"batches": 3}"#),
        ("hypercube:dim=5", "bhoedjang98", &[], "all_to_all:scheme=binary,bytes=2KiB", r#"{}"#),
        ("hypercube:dim=5", "bhoedjang98", &[], "blast:count=8,scheme=chain,bytes=4KiB", r#"{}"#),
        ("mesh:8x8", "sivaram98", &["limits.max_events=5000"], "uniform:load=0.2", r#"{"batches": 3}"#),
        ("mesh:8x8", "sivaram98", &["limits.max_memory=10000"], "uniform:load=0.2", r#"{"batches": 3}"#),
    ];
    for (spec, preset, ov, wl, measure) in cases {
        let case = format!("workload|{spec}|{preset}|{ov:?}|{wl}|{measure}");
        if !case.contains(filter) {
            continue;
        }
        let f = generate(spec).unwrap();
        let r = routing::build(&f, None).unwrap();
        let params = Params::with_overrides(preset, ov).unwrap();
        let m: Measure = serde_json::from_str(measure).unwrap();
        let w = match Workload::parse(wl) {
            Ok(w) => w,
            Err(e) => {
                out(&case, format!("error {e}"));
                continue;
            }
        };
        match run_workload(&f, r.as_ref(), &w, &params, &m, 11) {
            Ok(res) => out(&case, serde_json::to_string(&res).unwrap()),
            Err(e) => out(&case, format!("error {e}")),
        }
    }
    let dl: &[(&str, &str, &str, &[&str], &str)] = &[
        (
            "torus:4x4",
            "dor:datelines=false",
            "oral",
            &["switch.switching=wormhole", "switch.buffer_flits=4"],
            "uniform:load=0.6,bytes=64",
        ),
        (
            "torus:8x8",
            "dor:datelines=false",
            "booksim_iq",
            &["switch.buffer_flits=4", "switch.vcs=1"],
            "uniform:load=0.9,bytes=32",
        ),
        (
            "torus:4x4",
            "dor:datelines=false",
            "sivaram98",
            &["switch.buffer_flits=8", "switch.vcs=2"],
            "multicast_load:degree=6,load=0.5,scheme=storus:variant=worm",
        ),
        (
            "irregular",
            "updown",
            "sivaram98",
            &["switch.buffer_flits=16"],
            "multicast_load:degree=8,load=0.4,scheme=multidrop",
        ),
        (
            "kary_ntree:k=4,n=3",
            "nca",
            "coll03",
            &["switch.buffer_flits=8"],
            "multicast_load:degree=10,load=0.5,scheme=qs_greedy",
        ),
    ];
    for (spec, rs, preset, ov, wl) in dl {
        let case = format!("deadlock|{spec}|{rs}|{preset}|{ov:?}|{wl}");
        if !case.contains(filter) {
            continue;
        }
        let f = generate(spec).unwrap();
        let r = match routing::build(&f, Some(rs)) {
            Ok(r) => r,
            Err(e) => {
                out(&case, format!("error {e}"));
                continue;
            }
        };
        let params = match Params::with_overrides(preset, ov) {
            Ok(p) => p,
            Err(e) => {
                out(&case, format!("error {e}"));
                continue;
            }
        };
        let m: Measure = serde_json::from_str(
            r#"{"batches": 3, "latency_factor": 1e9, "accepted_margin": 0.99, "detail": "messages"}"#,
        )
        .unwrap();
        let w = Workload::parse(wl).unwrap();
        match run_workload(&f, r.as_ref(), &w, &params, &m, 3) {
            Ok(res) => out(&case, serde_json::to_string(&res).unwrap()),
            Err(e) => out(&case, format!("error {e}")),
        }
    }
    let case = "sweep|mesh:8x8|sivaram98";
    if case.contains(filter) {
        let f = generate("mesh:8x8").unwrap();
        let r = routing::build(&f, None).unwrap();
        let params = Params::preset("sivaram98").unwrap();
        let m: Measure = serde_json::from_str(r#"{"batches": 3}"#).unwrap();
        let w = Workload::parse("uniform:load=0.1").unwrap();
        let res = sweep(&f, r.as_ref(), &w, &params, &m, 5, &[0.05, 0.2, 0.5]).unwrap();
        out(case, serde_json::to_string(&res).unwrap());
    }
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let t = Instant::now();
    plan_runs(
        "irregular",
        "sivaram98",
        &[128, 1000],
        &[&[], &["ni.send=step"], &["switch.switching=cut_through", "switch.buffer_flits=256"]],
        &filter,
    );
    plan_runs("torus:4x4", "oral", &[64, 1000], &[&[], &["switch.granularity=flit"]], &filter);
    plan_runs(
        "mport_ntree:m=4,n=3",
        "zhou07",
        &[128, 65536],
        &[
            &[],
            &["switch.granularity=flit"],
            &["switch.switching=store_and_forward", "switch.buffer_flits=64"],
            &["host.t_hs=1us", "ni.t_ns=300ns", "ni.dma_bandwidth=1GB/s"],
        ],
        &filter,
    );
    plan_runs("kary_ntree:k=4,n=3", "coll03", &[64, 2000], &[&[], &["switch.circuit_until_ack=false"]], &filter);
    plan_runs("hypercube:dim=4", "bhoedjang98", &[100, 3000], &[&[]], &filter);
    plan_runs(
        "mesh:4x4",
        "booksim_iq",
        &[8, 100],
        &[&[], &["switch.allocator=input_first", "switch.routing_delay=0ns"]],
        &filter,
    );
    slices_and_trace(&filter);
    workloads(&filter);
    eprintln!("golden: {:.1} s", t.elapsed().as_secs_f64());
}
