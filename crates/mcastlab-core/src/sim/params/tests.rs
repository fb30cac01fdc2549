//! Unit tests of `Params`: units, overrides, presets and the parameter table.

use super::*;

#[test]
fn every_preset_is_valid_and_round_trips_through_json() {
    for p in PRESETS {
        let params = Params::preset(p.name).unwrap();
        params.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        let j = serde_json::to_string(&params).unwrap();
        assert_eq!(serde_json::from_str::<Params>(&j).unwrap(), params, "{j}");
    }
}

#[test]
fn the_keys_are_the_serde_paths_in_field_order() {
    let json = serde_json::to_value(Params::preset("sivaram98").unwrap()).unwrap();
    let paths: Vec<String> = json
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(g, v)| v.as_object().map(|o| o.keys().map(|f| format!("{g}.{f}")).collect::<Vec<_>>()))
        .flatten()
        .collect();
    assert_eq!(paths, KEYS.iter().map(|k| k.key).collect::<Vec<_>>());
    assert_eq!((key::link::bandwidth, key::limits::max_memory), ("link.bandwidth", "limits.max_memory"));
}

#[test]
fn every_key_has_a_doc_a_kind_and_units() {
    let docs = KEYS.iter().map(|k| (k.key, k.doc(), k.kind(), k.accepts(), k.group_doc()));
    for (key, doc, kind, accepts, group) in
        docs.chain(MEASURE_KEYS.iter().map(|k| (k.key, k.doc(), k.kind(), k.accepts(), k.group_doc())))
    {
        assert!(doc.ends_with('.') && !doc.contains("[`"), "{key}: {doc}");
        assert!(!kind.is_empty() && !accepts.is_empty() && !group.is_empty(), "{key}");
    }
    let vcs = KEYS.iter().find(|k| k.key == "switch.vcs").unwrap();
    assert_eq!(vcs.values(), "count (0..255)");
}

#[test]
fn sivaram98_numbers() {
    let p = Params::preset("sivaram98").unwrap();
    assert_eq!(p.flit_ps(), 5_000, "one byte-wide flit per 5 ns cycle");
    assert_eq!(p.mtu_flits(), 128);
    assert_eq!(p.host.t_hs, Time(5_000_000), "1000 cycles");
    assert_eq!(p.ni.t_ns, p.host.t_hs, "R = 1");
}

#[test]
fn the_other_papers_stated_numbers() {
    let oral = Params::preset("oral").unwrap();
    assert_eq!((oral.link.bandwidth, oral.switch.switching), (Rate(5_300_000_000), Switching::CutThrough));
    assert_eq!(oral.ni.dma_bandwidth, Rate::parse("528MB/s").unwrap(), "PCI 64-bit/66 MHz");
    let z = Params::preset("zhou07").unwrap();
    assert_eq!(z.link.propagation, Time::from_ns(20));
    assert_eq!(z.switch.routing_delay, Time::from_ns(100));
    assert_eq!(z.link.bandwidth.time_for_bytes(1), 4_000, "one byte per 4 ns");
    let b = Params::preset("bhoedjang98").unwrap();
    assert_eq!((b.link.bandwidth, b.link.mtu_bytes), (Rate(1_280_000_000), 1024));
    assert_eq!((b.switch.switching, b.ni.dma_bandwidth), (Switching::Wormhole, Rate::parse("132MB/s").unwrap()));
    // The derivation from §5.1: 22 µs over 2 steps and 59 µs over 6 steps.
    let t_step = b.ni.t_ns.ps() + b.ni.t_nr.ps() + 250_000;
    assert_eq!(b.host.t_hs.ps() + b.host.t_hr.ps() + 2 * t_step, 22_000_000);
    assert_eq!(b.host.t_hs.ps() + b.host.t_hr.ps() + 6 * t_step, 59_000_000);
    let c = Params::preset("coll03").unwrap();
    assert_eq!((c.link.flit_bytes, c.switch.vcs, c.switch.switching), (2, 2, Switching::Wormhole));
    assert_eq!(c.ni.dma_bandwidth, Rate::parse("528MB/s").unwrap());
}

#[test]
fn overrides_use_units_and_name_the_key() {
    let p = Params::with_overrides("sivaram98", &["link.bandwidth=1.28Gb/s", "host.t_hs = 1us"]).unwrap();
    assert_eq!(p.link.bandwidth, Rate(1_280_000_000));
    assert_eq!(p.host.t_hs, Time(1_000_000));
    let e = Params::with_overrides("sivaram98", &["link.bandwidth=fast"]).unwrap_err();
    assert!(e.to_string().starts_with("parameter `link.bandwidth`"), "{e}");
}

/// A routing's VC needs configure the default (issue 10: `simulate torus:4x4` failed with the
/// default preset), but never a `switch.vcs` the user set.
#[test]
fn a_routings_vc_needs_raise_the_default_but_not_a_users_choice() {
    assert_eq!(Params::for_routing("sivaram98", &[], 2).unwrap().switch.vcs, 2);
    assert_eq!(Params::for_routing("sivaram98", &["switch.vcs=4"], 2).unwrap().switch.vcs, 4);
    assert_eq!(Params::for_routing("sivaram98", &[" switch.vcs = 1"], 2).unwrap().switch.vcs, 1);
    assert_eq!(Params::for_routing("sivaram98", &[], 1).unwrap(), Params::preset("sivaram98").unwrap());
}

#[test]
fn packetization() {
    let p = Params::preset("sivaram98").unwrap();
    assert_eq!(p.packets_for(0), 1);
    assert_eq!(p.packets_for(128), 1);
    assert_eq!(p.packets_for(129), 2);
    // Past a plan's u32 the count saturates and the message is refused, never wrapped.
    let huge = (u32::MAX as u64 + 5) * 128;
    assert_eq!((p.packets_for(huge), p.packets_for(u64::MAX)), (u32::MAX, u32::MAX));
    assert!(p.check_message_bytes(u32::MAX as u64 * 128).is_ok());
    let e = p.check_message_bytes(huge).unwrap_err().to_string();
    assert!(e.starts_with("parameter `message_bytes`: a 549755814400-byte message makes 4294967300 packets"), "{e}");
    assert_eq!(p.packet_bytes(129, 1), 1);
    assert_eq!(p.flits_for(0), 1, "an empty packet is its header flit");
}
