//! Link rates from a fabric file reach the simulator: a link's width and speed (`4xQDR`,
//! `4xDDR`) set that link's flit serialization time, and `link.bandwidth` stays the default for
//! links without them (issue 13: speeds were parsed and then ignored).

use mcastlab_core::fabric::Fabric;
use mcastlab_core::io::ibnetdiscover::parse;
use mcastlab_core::plan::{Discipline, Plan, Trigger};
use mcastlab_core::routing;
use mcastlab_core::sim::{run_plan, Params, RunResult};
use mcastlab_core::EndpointId;

mod common;
use common::unicast;

const TOPOLOGIES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/topologies/");

/// Two switches joined by one `between` link, one host on each by 4xQDR links.
fn two_switches(between: &str) -> Fabric {
    let text = format!(
        "Switch 8 \"S-0000000000000001\" # \"s1\" base port 0 lid 1 lmc 0\n\
         [1] \"H-0000000000000003\"[1] # \"h3\" lid 3 4xQDR\n\
         [3] \"S-0000000000000002\"[3] # \"s2\" lid 2 {between}\n\n\
         Switch 8 \"S-0000000000000002\" # \"s2\" base port 0 lid 2 lmc 0\n\
         [1] \"H-0000000000000004\"[1] # \"h4\" lid 4 4xQDR\n\
         [3] \"S-0000000000000001\"[3] # \"s1\" lid 1 {between}\n\n\
         Ca 1 \"H-0000000000000003\" # \"h3\"\n[1] \"S-0000000000000001\"[1] # lid 3 lmc 0 \"s1\" lid 1 4xQDR\n\n\
         Ca 1 \"H-0000000000000004\" # \"h4\"\n[1] \"S-0000000000000002\"[1] # lid 4 lmc 0 \"s2\" lid 2 4xQDR\n"
    );
    parse(&text, "two.topo").unwrap()
}

/// One 128-byte (one-packet) unicast from the first host to the second under sivaram98 (1-byte flits).
fn run(f: &Fabric, overrides: &[&str]) -> RunResult {
    let r = routing::build(f, Some("updown")).unwrap();
    let t = unicast(0, Trigger::Start, 1);
    let plan = Plan::from_transmissions(f, "custom", EndpointId(0), vec![EndpointId(1)], 1, Discipline::Host, vec![t])
        .unwrap();
    run_plan(f, r.as_ref(), &plan, &Params::with_overrides("sivaram98", overrides).unwrap(), 128, 1).unwrap()
}

/// busy_ps per flit of the channels whose text contains `needle`.
fn per_flit(res: &RunResult, needle: &str) -> Vec<u64> {
    res.links.iter().filter(|l| l.text.contains(needle)).map(|l| l.busy_ps / l.flits).collect()
}

#[test]
fn a_ddr_link_serializes_at_half_the_qdr_rate() {
    let ddr = run(&two_switches("4xDDR"), &[]);
    let qdr = run(&two_switches("4xQDR"), &[]);
    // 8 bits at 32 Gb/s (4xQDR) = 250 ps per flit; at 16 Gb/s (4xDDR) 500 ps.
    assert_eq!(per_flit(&ddr, "S-0000000000000001[3]"), vec![500], "{:?}", ddr.links);
    assert_eq!(per_flit(&qdr, "S-0000000000000001[3]"), vec![250]);
    assert_eq!(per_flit(&ddr, "H-0000000000000003"), vec![250], "the host links stay QDR");
    // The slow link delays the packet; by how much depends on what else paces it (the NI's I/O
    // bus feeds the injection link more slowly than 4xQDR here), at least by one flit's 250 ps.
    let (d, q) = (ddr.completion_ps.unwrap(), qdr.completion_ps.unwrap());
    assert!(d >= q + 250, "DDR {d} ps vs QDR {q} ps");
}

#[test]
fn links_without_a_speed_keep_link_bandwidth_and_the_iq_router_refuses_own_rates() {
    let f = two_switches("4xDDR");
    // The same fabric without widths and speeds runs every link at the preset's link.bandwidth.
    let links = f.links().iter().cloned().map(|mut l| {
        l.width = None;
        l.speed = None;
        l
    });
    let plain = Fabric::new(
        "plain".into(),
        f.topology().clone(),
        f.switches().to_vec(),
        f.endpoints().to_vec(),
        links.collect(),
    )
    .unwrap();
    let p = Params::with_overrides("sivaram98", &[]).unwrap();
    assert_eq!(per_flit(&run(&plain, &[]), "S-0000000000000001[3]"), vec![p.flit_ps()]);
    let r = routing::build(&f, Some("updown")).unwrap();
    let t = unicast(0, Trigger::Start, 1);
    let plan =
        Plan::from_transmissions(&f, "c", EndpointId(0), vec![EndpointId(1)], 1, Discipline::Host, vec![t]).unwrap();
    let iq = Params::with_overrides("sivaram98", &["switch.router=iq"]).unwrap();
    let e = run_plan(&f, r.as_ref(), &plan, &iq, 128, 1).unwrap_err().to_string();
    assert!(e.contains("switch.router") && e.contains("rates of their own (e.g. 4xQDR)"), "{e}");
}

#[test]
fn the_reference_fabrics_load_with_their_speeds() {
    let x5 = std::fs::read_to_string(format!("{TOPOLOGIES}ltaulell-HPC_toolset/X5.topofile")).unwrap();
    let f = parse(&x5, "X5.topofile").unwrap();
    let rates: Vec<u64> = f.links().iter().filter_map(|l| l.data_rate_bps()).collect();
    assert_eq!(rates.len(), f.num_links(), "every X5 link states 4xQDR or 4xDDR");
    assert!(rates.contains(&32_000_000_000) && rates.contains(&16_000_000_000));
    let jabl = std::fs::read_to_string(format!("{TOPOLOGIES}jabl-ibtopotool/3.topo")).unwrap();
    let f = parse(&jabl, "3.topo").unwrap();
    let kinds: std::collections::BTreeSet<u64> = f.links().iter().filter_map(|l| l.data_rate_bps()).collect();
    assert!(kinds.len() >= 3, "SDR, QDR, FDR and EDR links: {kinds:?}");
}
