//! oral §4.2–§4.5 measured by the simulator: the source's CPU load with polling, the startup
//! latency, and the number of message transfers in flight. Closed forms on small cases.

mod common;

use common::{delivered, fabric, scheme_plan};
use mcastlab_core::plan::Discipline;
use mcastlab_core::sim::{run_plan, Params};
use mcastlab_core::EndpointId;

/// Separate addressing from n(0,0) of the 4×4 SCI torus to `k` others, NI-pipelined: the source's
/// host hands the message over once (t_hs, one DMA), then its NI sends one copy per destination,
/// t_ns apart; the startup ends when the last copy leaves, so it grows by t_ns per destination.
#[test]
fn startup_grows_by_one_send_overhead_per_destination() {
    let (f, r) = fabric("torus:4x4");
    let p = Params::preset("oral").unwrap();
    let dma = p.ni.dma_bandwidth.time_for_bytes(64);
    for k in [1u32, 3, 7, 15] {
        let dests: Vec<EndpointId> = (1..=k).map(EndpointId).collect();
        let plan =
            scheme_plan(&f, &*r, "separate:pipelined=true", EndpointId(0), &dests, 1, Discipline::NiFpfs).unwrap();
        let res = run_plan(&f, &*r, &plan, &p, 64, 1).unwrap();
        delivered(&res);
        let want = p.host.t_hs.ps() + dma + k as u64 * p.ni.t_ns.ps();
        assert_eq!(res.startup_ps, Some(want), "k = {k}");
        // The source polls from the end of its one host send until the last copy is taken, so its
        // CPU load is the time until its part is done, less nothing.
        let src = res.endpoints.iter().find(|e| e.endpoint == res.source).unwrap();
        assert_eq!(res.root_cpu_ps, src.cpu_ps);
        assert_eq!(src.cpu_ps, src.host_busy_ps + src.poll_ps);
        assert!(src.poll_ps > 0 && res.root_cpu_ps < res.completion_ps.unwrap(), "{k}: {}", res.root_cpu_ps);
        // Transfers overlap once the NI sends faster than a copy crosses the torus.
        assert!(res.concurrency_max >= 1 && res.concurrency_max <= k, "{k}: {}", res.concurrency_max);
        assert!(res.concurrency_mean > 0.0 && res.concurrency_mean <= res.concurrency_max as f64);
    }
}

/// Unpipelined separate addressing (one host send per copy): the host is busy k·t_hs and the
/// startup is at least that; the pipelined variant's root CPU load is lower.
#[test]
fn unpipelined_sends_load_the_root_host_more() {
    let (f, r) = fabric("torus:4x4");
    let p = Params::preset("oral").unwrap();
    let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
    let run = |scheme: &str, d: Discipline| {
        let plan = scheme_plan(&f, &*r, scheme, EndpointId(0), &dests, 1, d).unwrap();
        let res = run_plan(&f, &*r, &plan, &p, 64, 1).unwrap();
        delivered(&res);
        res
    };
    let piped = run("separate:pipelined=true", Discipline::NiFpfs);
    let host = run("separate:pipelined=false", Discipline::Host);
    let src = host.endpoints.iter().find(|e| e.endpoint == host.source).unwrap();
    assert_eq!(src.host_busy_ps, 15 * p.host.t_hs.ps());
    assert!(host.startup_ps.unwrap() >= 15 * p.host.t_hs.ps());
    assert!(host.root_cpu_ps > piped.root_cpu_ps, "{} vs {}", host.root_cpu_ps, piped.root_cpu_ps);
    // A binomial tree: the source's fan-out is 4 of 15, so it starts up sooner than separate
    // addressing's 15 sends.
    let tree = run("binomial", Discipline::NiFpfs);
    assert!(tree.startup_ps.unwrap() < piped.startup_ps.unwrap());
}

/// bhoedjang98 §5's send and receive paths: programmed I/O instead of the send DMA, and one copy
/// of the received message by its host. Each replaces or adds exactly its own term.
#[test]
fn pio_send_and_receive_copy_add_exactly_their_time() {
    let (f, r) = fabric("hypercube:dim=2");
    let plan = scheme_plan(&f, &*r, "separate", EndpointId(0), &[EndpointId(5)], 1, Discipline::NiFpfs).unwrap();
    let base = Params::with_overrides("bhoedjang98", &["ni.send=pipelined"]).unwrap();
    let with = Params::with_overrides(
        "bhoedjang98",
        &["ni.send=pipelined", "host.pio_bandwidth=40MB/s", "host.copy_bandwidth=100MB/s"],
    )
    .unwrap();
    let a = run_plan(&f, &*r, &plan, &base, 1000, 1).unwrap();
    let b = run_plan(&f, &*r, &plan, &with, 1000, 1).unwrap();
    let dma = base.ni.dma_bandwidth.time_for_bytes(1000);
    let pio = with.host.pio_bandwidth.time_for_bytes(1000);
    let copy = with.host.copy_bandwidth.time_for_bytes(1000);
    assert_eq!(delivered(&b), delivered(&a) - dma + pio + copy);
    let src = |res: &mcastlab_core::sim::RunResult| {
        res.endpoints.iter().find(|e| e.endpoint == res.source).unwrap().host_busy_ps
    };
    assert_eq!(src(&b), src(&a) + pio, "the host is busy for its PIO copy");
    let e = Params::with_overrides("bhoedjang98", &["host.copy_bandwidth=0B/s"]).unwrap_err().to_string();
    assert!(e.starts_with("parameter `host.copy_bandwidth`"), "{e}");
}

/// oral §4.5's link utilization from what the network counted equals the plan check's static
/// value, for every oral scheme on the 4×4 torus.
#[test]
fn timed_link_utilization_is_the_static_one() {
    use mcastlab_core::plan::check::check_plan;
    let (f, r) = fabric("torus:4x4");
    let p = Params::preset("oral").unwrap();
    let dests: Vec<EndpointId> = (1..16).map(EndpointId).collect();
    for (scheme, d) in [
        ("separate", Discipline::NiFpfs),
        ("utorus", Discipline::Host),
        ("storus", Discipline::Host),
        ("mdtorus", Discipline::Host),
        ("mutorus", Discipline::Host),
    ] {
        let plan = scheme_plan(&f, &*r, scheme, EndpointId(0), &dests, 2, d).unwrap();
        let res = run_plan(&f, &*r, &plan, &p, 128, 1).unwrap();
        delivered(&res);
        let rep = check_plan(&f, &*r, &plan, &Default::default()).unwrap();
        let (a, b) = (res.oral_link_utilization.unwrap(), rep.oral_link_utilization.unwrap());
        assert!((a - b).abs() < 1e-12, "{scheme}: timed {a} vs static {b}");
    }
}

/// issue 13: a message far too large for the memory budget is refused before anything is
/// allocated for it (the budget covers setup), naming the key; the default budget is 4 GiB.
#[test]
fn a_run_that_cannot_fit_the_memory_budget_is_refused_before_it_allocates() {
    let (f, r) = fabric("irregular");
    let dests: Vec<EndpointId> = (1..32).map(EndpointId).collect();
    let p = Params::with_overrides("sivaram98", &["limits.max_memory=100MiB"]).unwrap();
    let bytes: u64 = 128 << 20;
    let m = p.packets_for(bytes);
    let plan = scheme_plan(&f, &*r, "binomial", EndpointId(0), &dests, m, Discipline::NiFpfs).unwrap();
    let t = std::time::Instant::now();
    let e = run_plan(&f, &*r, &plan, &p, bytes, 1).unwrap_err().to_string();
    assert!(e.starts_with("parameter `limits.max_memory`") && e.contains("before its first event"), "{e}");
    assert!(t.elapsed().as_secs() < 5, "refused before the work, not after");
    assert_eq!(Params::preset("oral").unwrap().limits.max_memory, Some(4 << 30));
    // A gigabyte message to 31 destinations is refused under the default budget too.
    let big: u64 = 1 << 30;
    let d = Params::preset("sivaram98").unwrap();
    let plan = scheme_plan(&f, &*r, "binomial", EndpointId(0), &dests, d.packets_for(big), Discipline::NiFpfs).unwrap();
    let e = run_plan(&f, &*r, &plan, &d, big, 1).unwrap_err().to_string();
    assert!(e.contains("over the budget of 4096 MiB"), "{e}");
}
