//! The papers' presets: one function per paper, whose doc comment is the specification of its
//! values (the section each stated number comes from, and why each unstated one was chosen).
//! Everything else about a preset — its column in `docs/params.md`, in `param_table_json`, the
//! values `mcastlab list params` shows — is read from the `Params` these functions build.

use super::measure::Convention;
use super::{
    Allocator, FmmcParams, Granularity, HostParams, LfcParams, Limits, LinkParams, NiOrder, NiParams, NiSend, Params,
    Router, SwitchParams, Switching,
};
use crate::sim::units::{Rate, Time};

/// One preset.
pub struct PresetEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub build: fn() -> Params,
    /// What `none` means for the measurement settings a simulator it stands for does its own way.
    pub convention: Convention,
}

/// The measurement convention of the preset a run's parameters started from (`Params::preset`);
/// mcastlab's own for a name no preset has (parameters written by hand).
pub fn convention(preset: &str) -> Convention {
    PRESETS.iter().find(|p| p.name == preset).map_or(Convention::MCASTLAB, |p| p.convention)
}

/// The papers' parameter sets, in the order `mcastlab list presets` would show them.
pub const PRESETS: &[PresetEntry] = &[
    PresetEntry {
        name: "sivaram98",
        summary: "irregular NOW switches, smart NIs (sivaram98 §6.2)",
        build: sivaram98,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "oral",
        summary: "Dolphin/Scali SCI torus, 5.3 Gb/s links (oral §1, §4.1)",
        build: oral,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "zhou07",
        summary: "InfiniBand 1X fat-tree simulator (zhou07 §4)",
        build: zhou07,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "bhoedjang98",
        summary: "Myrinet with LANai NIs, 1.28 Gb/s (bhoedjang98 §5)",
        build: bhoedjang98,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "bhoedjang98_fmmc",
        summary: "bhoedjang98's Myrinet running FM/MC: 256-byte packets, central credits (bhoedjang98 §2.2, §5.3)",
        build: bhoedjang98_fmmc,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "coll03",
        summary: "Quadrics QsNET Elite switches (coll03 §2, §6)",
        build: coll03,
        convention: Convention::MCASTLAB,
    },
    PresetEntry {
        name: "booksim_iq",
        summary: "BookSim 2.0's input-queued VC router, 4-stage pipeline, 2 VCs x 8 flits (booksim.md mesh88)",
        build: booksim_iq,
        convention: Convention::BOOKSIM,
    },
    PresetEntry {
        name: "booksim_torus",
        summary: "booksim_iq on BookSim's torus: 2-cycle router links, 1-cycle terminal links (booksim.md §6.1)",
        build: booksim_torus,
        convention: Convention::BOOKSIM,
    },
    PresetEntry {
        name: "booksim_fattree",
        summary: "booksim_iq on BookSim's 4-ary 3-tree fattree: every link 1 cycle (booksim.md §6.1)",
        build: booksim_fattree,
        convention: Convention::BOOKSIM,
    },
];

/// The fields only the iq router reads, at their simple-router values (a preset's
/// `SwitchParams` spreads it in after its own values).
fn simple_switch() -> SwitchParams {
    SwitchParams {
        buffer_flits: 1,
        routing_delay: Time::ZERO,
        crossbar_delay: Time::ZERO,
        credit_delay: Time::ZERO,
        switching: Switching::Wormhole,
        vcs: 1,
        router: Router::Simple,
        va_delay: Time::ZERO,
        sa_delay: Time::ZERO,
        allocator: Allocator::Islip,
        circuit_until_ack: false,
        ack_delay: Time::ZERO,
        granularity: Granularity::Auto,
    }
}

/// A host with these overheads; no PIO send or receive copy (no paper states their rates, see
/// `bhoedjang98`).
fn host(t_hs: Time, t_hr: Time) -> HostParams {
    HostParams { t_hs, t_hr, pio_bandwidth: Rate::UNLIMITED, copy_bandwidth: Rate::UNLIMITED }
}

/// An NI with these overheads, I/O bus and send protocol; jobs in arrival order (every paper's,
/// see `ni.order`) and the control-packet costs every file without them gets.
fn ni(t_ns: Time, t_nr: Time, dma_bandwidth: Rate, send: NiSend) -> NiParams {
    NiParams {
        t_ns,
        t_nr,
        dma_bandwidth,
        send,
        order: NiOrder::Arrival,
        t_control: super::CONTROL_COST,
        control_latency: super::CONTROL_COST,
    }
}

fn limits() -> Limits {
    // 1 ms of simulated time without any flit moving is far beyond any packet's transfer at the
    // presets' rates, yet short enough that a deadlocked run stops at once in wall time. 4 GiB of
    // run state: a run that would need more (a gigabyte message on a small fabric) is refused
    // before it allocates, or stopped with its results so far, instead of exhausting a laptop's
    // memory; `limits.max_memory=none` or a larger size lifts it. 10^9 events: one to three
    // minutes at the engine's 5-10 M events/s (docs/performance.md), far beyond any paper's run,
    // yet a mistyped `measure.batches=100000` is refused from its estimate (or stopped, with its
    // rows) rather than running for hours with no end in sight.
    Limits {
        watchdog: Time(1_000_000_000),
        max_events: Some(1_000_000_000),
        max_time: None,
        max_memory: Some(crate::plan::budget::DEFAULT_MAX_MEMORY),
        kept_templates: super::kept_templates(),
    }
}

/// sivaram98 §6.2, with a 5 ns cycle. Links are one byte wide with one-byte flits, and a flit
/// crosses a link in one cycle: that cycle is the serialization time (200 MB/s) and the
/// propagation is 0, so the stated per-flit link time is not counted twice. Routing and crossbar
/// take one cycle each. The 640-flit input buffers exceed the 128-flit packets, and the flow
/// control admits a packet with room for part of it ("weaker than virtual cut-through"), which is
/// wormhole flow control with buffers larger than a packet. t_hs = 1000 cycles = 5 µs, R = t_hs /
/// t_ns = 1, t_hr = t_hs, t_nr = t_ns; I/O bus 266 MB/s. One VC (not stated; up*/down* needs one).
fn sivaram98() -> Params {
    Params {
        preset: "sivaram98".into(),
        link: LinkParams {
            bandwidth: Rate(1_600_000_000),
            propagation: Time::ZERO,
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 1,
            mtu_bytes: 128,
        },
        switch: SwitchParams {
            buffer_flits: 640,
            routing_delay: Time::from_ns(5),
            crossbar_delay: Time::from_ns(5),
            credit_delay: Time::ZERO,
            switching: Switching::Wormhole,
            vcs: 1,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            ..simple_switch()
        },
        host: host(Time::from_us(5), Time::from_us(5)),
        ni: ni(Time::from_us(5), Time::from_us(5), Rate(2_128_000_000), NiSend::Pipelined),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// oral §1 and §4.1: 5.3 Gb/s SCI links with cut-through switching, PCI 64-bit/66 MHz NICs
/// (528 MB/s). Not stated, chosen: 2-byte flits and 64-byte packets (SCI's 16-bit symbols and
/// 64-byte data packets), 5 ns propagation (about a metre of cable), 50 ns routing and 10 ns
/// crossbar, 128-flit buffers (four packets), and host/NI overheads (t_hs = t_hr = 400 ns,
/// t_ns = t_nr = 300 ns) that put a one-hop 64-byte message near 1.9 µs, under the "< 2 µs"
/// one-way latency oral quotes. Two VCs: `dor` needs two dateline classes on a torus.
fn oral() -> Params {
    Params {
        preset: "oral".into(),
        link: LinkParams {
            bandwidth: Rate(5_300_000_000),
            propagation: Time::from_ns(5),
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 2,
            mtu_bytes: 64,
        },
        switch: SwitchParams {
            buffer_flits: 128,
            routing_delay: Time::from_ns(50),
            crossbar_delay: Time::from_ns(10),
            credit_delay: Time::ZERO,
            switching: Switching::CutThrough,
            vcs: 2,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            ..simple_switch()
        },
        host: host(Time::from_ns(400), Time::from_ns(400)),
        ni: ni(Time::from_ns(300), Time::from_ns(300), Rate(4_224_000_000), NiSend::Pipelined),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// zhou07 §4: 20 ns flying time between devices, 100 ns per switch for table lookup, replication,
/// arbitration and message start-up (all routing delay, no separate crossbar time), one byte per
/// 4 ns (a 1X link: 2.5 Gb/s signalling, 2 Gb/s of data), and a packet waits in its input buffer
/// until the next buffer has room: virtual cut-through. zhou07 simulates the fabric only, with the
/// start-up inside the switch time, so host and NI overheads are 0 and the I/O bus is left out.
/// Not stated, chosen: 64-byte flits (InfiniBand's credit unit), a 4 KiB MTU (the largest IB
/// MTU), 128-flit buffers (two MTU packets).
fn zhou07() -> Params {
    Params {
        preset: "zhou07".into(),
        link: LinkParams {
            bandwidth: Rate(2_000_000_000),
            propagation: Time::from_ns(20),
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 64,
            mtu_bytes: 4096,
        },
        switch: SwitchParams {
            buffer_flits: 128,
            routing_delay: Time::from_ns(100),
            crossbar_delay: Time::ZERO,
            credit_delay: Time::ZERO,
            switching: Switching::CutThrough,
            vcs: 1,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            ..simple_switch()
        },
        host: host(Time::ZERO, Time::ZERO),
        ni: ni(Time::ZERO, Time::ZERO, Rate::UNLIMITED, NiSend::Pipelined),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// bhoedjang98 §2.1 and §5: Myrinet, wormhole-routed, 1.28 Gb/s links, 1 KB packets, NIs on a
/// 33 MHz 32-bit PCI bus (132 MB/s). The overheads are derived from §5.1's empty-message binomial
/// multicasts, 22 µs on 4 nodes (2 steps) and 59 µs on 61 nodes (6 steps): by the smart-NI form
/// t_hs + steps·t_step + t_hr that is t_step = 9.25 µs and t_hs + t_hr = 3.5 µs, split evenly;
/// t_ns = t_nr = 4.5 µs leaves about 0.25 µs of each step for the network (an empty packet's few
/// hops take a few hundred ns here). LFC's 10 µs point-to-point latency (§3.1) is lower than
/// t_hs + t_step + t_hr = 12.75 µs: its multicast path does more NI work per packet. Not stated,
/// chosen: 10 ns propagation, 150 ns routing, 64-byte switch buffers (Myrinet's small slack
/// buffers; wormhole does not need a packet to fit) as 8 flits of 8 bytes. Myrinet's channels
/// are byte-serial, but its STOP/GO flow control acts on tens of bytes of slack, not on each
/// byte; 8-byte flits keep the buffers' 64 bytes and cut the events eightfold. Measured on the
/// 64 KB binomial all-to-all on `hypercube` with recovery: 1-byte flits (64 per buffer) against
/// 8-byte flits moved the sender throughput by −0.06 %, the mean latency by −0.4 % and the
/// recoveries by +0.4 %, and the wall time from 35.7 s to 5.4 s (docs/performance.md).
///
/// **Calibrated** from the paper's own results: `t_ns`, `t_nr`, `t_hs` and `t_hr` come from the
/// 22 µs and 59 µs latencies of §5.1 (Fig. 4), so those two points are no evidence for the
/// simulator. The NIs run LFC (`ni.send = lfc`, §3) with the paper's 8 credits of one 1 KB
/// packet per sender (§3.3) and recovery off (the basic protocol of §5.1); the `lfc.*` values the
/// paper does not state are chosen (see [`LfcParams`]). `ni.order = arrival`: the paper does not
/// say in which order the LANai's loop serves the network and the send queue. The hosts send by
/// programmed I/O and copy every received message once (§5), at rates the paper does not state:
/// `host.pio_bandwidth` and `host.copy_bandwidth` are left at `inf` (the send goes by DMA at
/// the PCI rate, no receive copy) rather than guessed; set them to study those paths.
fn bhoedjang98() -> Params {
    Params {
        preset: "bhoedjang98".into(),
        link: LinkParams {
            bandwidth: Rate(1_280_000_000),
            propagation: Time::from_ns(10),
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 8,
            mtu_bytes: 1024,
        },
        switch: SwitchParams {
            buffer_flits: 8,
            routing_delay: Time::from_ns(150),
            crossbar_delay: Time::ZERO,
            credit_delay: Time::ZERO,
            switching: Switching::Wormhole,
            vcs: 1,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            ..simple_switch()
        },
        host: host(Time(1_750_000), Time(1_750_000)),
        ni: ni(Time(4_500_000), Time(4_500_000), Rate(1_056_000_000), NiSend::Lfc),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// bhoedjang98 §2.2 and §5.3: the same Myrinet cluster running FM/MC: fixed 256-byte packets whose
/// first carries a one-word handler, no NI-level flow control, multicast credits from a central
/// manager with a rotating token, one shared NI receive queue that swaps to host memory (the
/// `fmmc.*` values the paper does not state are chosen: see [`FmmcParams`]). The host and NI
/// overheads are LFC's (calibrated, see `bhoedjang98`): the paper gives FM/MC's latencies as about
/// LFC's. The paper's fair LFC variant is `bhoedjang98` with `link.mtu_bytes=256` and
/// `lfc.recovery=eager` on binary trees.
fn bhoedjang98_fmmc() -> Params {
    let mut p = bhoedjang98();
    p.preset = "bhoedjang98_fmmc".into();
    p.link.mtu_bytes = 256;
    p.ni.send = NiSend::Fmmc;
    p
}

/// coll03 §2, §3 and §6: Quadrics Elite switches, wormhole switching with 16-bit flits and two
/// virtual channels per link, Elan3 NICs on a 66 MHz 64-bit PCI bus (528 MB/s). Not stated,
/// chosen: 400 MB/s links (QsNET's link rate; the measured 306 MB/s hardware broadcast peak of §6
/// sits below it), 320-byte packets, 10 ns propagation, 25 ns routing, 10 ns crossbar, 64-flit
/// buffers, and overheads (t_hs = t_hr = 1 µs, t_ns = t_nr = 0.8 µs) that make one hardware
/// multicast step of a small (barrier-sized) message about 4 µs, the single-step barrier time of
/// §6. Circuits are held until the acknowledgement, which the switches combine (§2, §3:
/// `switch.circuit_until_ack`); not stated, chosen: 35 ns per switch to combine and forward an
/// acknowledgement (`switch.ack_delay`, a header's routing plus crossbar time: the token is
/// switched back along the circuit's crossbar connection).
fn coll03() -> Params {
    Params {
        preset: "coll03".into(),
        link: LinkParams {
            bandwidth: Rate(3_200_000_000),
            propagation: Time::from_ns(10),
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 2,
            mtu_bytes: 320,
        },
        switch: SwitchParams {
            buffer_flits: 64,
            routing_delay: Time::from_ns(25),
            crossbar_delay: Time::from_ns(10),
            credit_delay: Time::ZERO,
            switching: Switching::Wormhole,
            vcs: 2,
            circuit_until_ack: true,
            ack_delay: Time::from_ns(35),
            ..simple_switch()
        },
        host: host(Time::from_us(1), Time::from_us(1)),
        ni: ni(Time::from_ns(800), Time::from_ns(800), Rate(4_224_000_000), NiSend::Pipelined),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// BookSim 2.0's `iq` router as configured in `../shared/reference/booksim.md` §3.3 (experiment
/// `mesh88`), in this simulator's units: one cycle is one flit time, 1 ns (one-byte flits at
/// 8 Gb/s). Stated there: 2 VCs of 8 flits per input port, routing, VC allocation, switch
/// allocation and switch traversal of one cycle each (`routing_delay`, `vc_alloc_delay`,
/// `sw_alloc_delay`, `st_final_delay` = 1), `credit_delay` = 0, iSLIP allocators with one
/// iteration, links of one cycle (`use_noc_latency` on a mesh: propagation 0 here, the cycle
/// being the flit's own time on the link), wormhole with `wait_for_tail_credit` = 0. Chosen:
/// 8-byte packets (8 flits, the larger of its two packet sizes; `bytes=1` in a workload gives the
/// 1-flit packets), and no host, NI or I/O bus time, because BookSim's terminals inject a packet
/// in the cycle it is created and take it in the cycle its tail arrives.
fn booksim_iq() -> Params {
    let cycle = Time::from_ns(1);
    Params {
        preset: "booksim_iq".into(),
        link: LinkParams {
            bandwidth: Rate(8_000_000_000),
            propagation: Time::ZERO,
            terminal_propagation: None,
            wrap_propagation: None,
            level_propagation: Vec::new(),
            flit_bytes: 1,
            mtu_bytes: 8,
        },
        switch: SwitchParams {
            buffer_flits: 8,
            routing_delay: cycle,
            crossbar_delay: cycle,
            credit_delay: Time::ZERO,
            switching: Switching::Wormhole,
            vcs: 2,
            router: Router::Iq,
            va_delay: cycle,
            sa_delay: cycle,
            allocator: Allocator::Islip,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            granularity: Granularity::Auto,
        },
        host: host(Time::ZERO, Time::ZERO),
        ni: ni(Time::ZERO, Time::ZERO, Rate::UNLIMITED, NiSend::Pipelined),
        lfc: LfcParams::default(),
        fmmc: FmmcParams::default(),
        limits: limits(),
    }
}

/// BookSim 2.0 on its torus (`topology = torus`, `routing_function = dim_order`): the `iq` router
/// of [`booksim_iq`], with every router-to-router link, wrap-around or not, 2 cycles long (the
/// default `use_noc_latency = 1` assumes a folded torus) and the injection and ejection links 1
/// cycle, as `../shared/reference/booksim.md` §6.1 states. A link of d cycles is the flit's own
/// cycle plus d − 1 of flight here, so the router links take 1 ns of propagation and the terminal
/// links none. BookSim's routing is `dor:tie=random,classes=entry` (§6.6).
fn booksim_torus() -> Params {
    let mut p = booksim_iq();
    p.preset = "booksim_torus".into();
    p.link.propagation = Time::from_ns(1);
    p.link.terminal_propagation = Some(Time::ZERO);
    p
}

/// BookSim 2.0 on its fat tree (`topology = fattree`, k = 4, n = 3, `routing_function = nca`):
/// the `iq` router of [`booksim_iq`] with every link 1 cycle (`../shared/reference/booksim.md`
/// §6.1: mesh and fat-tree links are 1 cycle), so its values are `booksim_iq`'s; it is a preset of
/// its own so that a fat-tree run says which BookSim configuration it stands for. BookSim's
/// routing picks a random up port at every router (`nca:up=random`, §6.6).
fn booksim_fattree() -> Params {
    let mut p = booksim_iq();
    p.preset = "booksim_fattree".into();
    p
}
