//! Simulator parameters with units, the papers' presets, `key=value` overrides and validation.
//!
//! A [`Params`] is plain data (serde, `deny_unknown_fields`): the same value comes from a preset,
//! from JSON, or from a preset plus overrides such as `link.bandwidth=1.28Gb/s`. Every key a user
//! can set is listed in [`KEYS`], and its text is the serde path of the field, so an error message
//! names exactly what the user typed. [`Params::validate`] runs before any simulation: an
//! impossible configuration is an error naming the parameter, never a hang or a silent fix.
//!
//! Presets carry each paper's stated numbers, with the section in the doc comment. A value a paper
//! does not state is chosen and the reason written next to it; those are the ones to override
//! when comparing with other sources.

use super::units::{parse_bytes, parse_count, parse_flits, Rate, Time};
use crate::error::SimError;
use serde::{Deserialize, Serialize};

/// How a switch moves packets between its buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Switching {
    /// Flit-level credits: a packet advances as soon as the next buffer has room for one flit,
    /// and may stretch over several switches when blocked.
    Wormhole,
    /// Virtual cut-through: a packet starts on a hop only when the next buffer can take all of
    /// it, so a blocked packet always ends up inside one switch.
    CutThrough,
    /// Store-and-forward: a switch routes a packet only after its tail has arrived, and sends it
    /// on only when the next buffer can take all of it.
    StoreAndForward,
}

impl Switching {
    pub fn parse(s: &str) -> Result<Switching, String> {
        match s.trim() {
            "wormhole" => Ok(Switching::Wormhole),
            "cut_through" | "cut-through" | "vct" => Ok(Switching::CutThrough),
            "store_and_forward" | "store-and-forward" | "saf" => Ok(Switching::StoreAndForward),
            o => Err(format!("`{o}` is not one of wormhole, cut_through, store_and_forward")),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Switching::Wormhole => "wormhole",
            Switching::CutThrough => "cut_through",
            Switching::StoreAndForward => "store_and_forward",
        }
    }
    /// Whether a packet must fit whole in the next buffer before it may start on a hop.
    pub fn needs_whole_packet(self) -> bool {
        !matches!(self, Switching::Wormhole)
    }
}

/// How finely the network is simulated (`switch.granularity`).
///
/// Flit by flit is the reference. Packet granularity gives each packet hop a start time and
/// computes its flits in closed form, which is exact when a packet that starts crossing a link
/// streams at link rate from head to tail: virtual cut-through or store-and-forward (a packet
/// starts a hop only when the next buffer holds all of it), one VC in use per link (no flit
/// interleaving), every link at `link.bandwidth`, ejection that never back-pressures, no
/// circuits or all-or-nothing range multicasts, and a routing and a credit delay above zero.
/// `sim/granularity.rs` lists the conditions and why; `sim/train.rs` why trains are exact.
///
/// `auto` is the default in every preset (and when the key is absent): a run goes as trains
/// where they are exact and flit by flit elsewhere, so it only changes the event count and the
/// wall time, never a result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// Every flit is sent by its own event (the reference engine).
    Flit,
    /// Packet trains; the run is refused (naming `switch.granularity`) when the conditions for
    /// exact trains do not hold.
    Packet,
    /// Packet trains when the conditions hold, otherwise flits: the flit engine's results,
    /// fast where trains apply.
    #[default]
    Auto,
}

impl Granularity {
    pub fn parse(s: &str) -> Result<Granularity, String> {
        match s.trim() {
            "flit" => Ok(Granularity::Flit),
            "packet" => Ok(Granularity::Packet),
            "auto" => Ok(Granularity::Auto),
            o => Err(format!("`{o}` is not one of flit, packet, auto")),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Flit => "flit",
            Granularity::Packet => "packet",
            Granularity::Auto => "auto",
        }
    }
}

/// Which switch model moves flits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Router {
    /// The event-driven model of `sim::switch` and `sim::link`: a header is decoded
    /// `switch.routing_delay` after it arrives, a branch gets its output VC first come, first
    /// served, and each output link is shared among its VCs round robin, flit by flit. Time is
    /// continuous (picoseconds) and replication has independent branches.
    #[default]
    Simple,
    /// The classic input-queued virtual-channel router of cycle-accurate simulators such as
    /// BookSim (`sim::iq`): a cycle is one flit time, and a head flit goes through routing (RC),
    /// VC allocation (VA), switch allocation (SA) and switch traversal (ST), each taking its
    /// `switch.*_delay`; VA and SA are separable allocators (`switch.allocator`), at most one
    /// flit leaves each input port and enters each output port per cycle, and credits return
    /// over the link. Wormhole only.
    Iq,
}

impl Router {
    pub fn parse(s: &str) -> Result<Router, String> {
        match s.trim() {
            "simple" => Ok(Router::Simple),
            "iq" => Ok(Router::Iq),
            o => Err(format!("`{o}` is not one of simple, iq")),
        }
    }
}

/// How the iq router's VC and switch allocators match requests to resources in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Allocator {
    /// iSLIP with one iteration (BookSim's `islip`, `alloc_iters = 1`): every resource grants
    /// one requester round robin, every requester accepts one grant round robin, and only an
    /// accepted grant moves the two pointers past the winner.
    #[default]
    Islip,
    /// Separable input-first (BookSim's `separable_input_first`): every requester first picks
    /// one of its requests round robin, then every resource picks one of the requests it got;
    /// pointers move only for a final winner.
    InputFirst,
}

impl Allocator {
    pub fn parse(s: &str) -> Result<Allocator, String> {
        match s.trim() {
            "islip" => Ok(Allocator::Islip),
            "input_first" | "separable_input_first" => Ok(Allocator::InputFirst),
            o => Err(format!("`{o}` is not one of islip, input_first")),
        }
    }
}

/// When an NI may start its next packet send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NiSend {
    /// The NI processor spends `t_ns` on a copy, hands it to its link and goes on with the next
    /// copy (the view of sivaram98 §4.2.3, where copies leave `t_ns` apart).
    Pipelined,
    /// A copy holds the sender's NI until every receiving NI has taken it (`t_ns`, network,
    /// `t_nr`): one packet per *step*, the model behind sivaram98 §4.1 and §4.3 (Theorem 2).
    Step,
}

impl NiSend {
    pub fn parse(s: &str) -> Result<NiSend, String> {
        match s.trim() {
            "pipelined" => Ok(NiSend::Pipelined),
            "step" => Ok(NiSend::Step),
            o => Err(format!("`{o}` is not one of pipelined, step")),
        }
    }
}

/// Links (every link of the fabric alike).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// Data rate of one direction.
    pub bandwidth: Rate,
    /// Time of flight, added once per flit per link after serialization.
    pub propagation: Time,
    /// Flow-control unit, bytes.
    pub flit_bytes: u32,
    /// Largest packet payload, bytes; messages are split into packets of at most this size.
    pub mtu_bytes: u32,
}

/// Switches: input-buffered, one FIFO per input port and virtual channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchParams {
    /// Depth of each per-VC input buffer, flits.
    pub buffer_flits: u32,
    /// Header decode and routing, once per packet per switch (the iq router's RC stage; 0 there
    /// is lookahead routing, RC in the cycle of VA).
    pub routing_delay: Time,
    /// Input-to-output transfer through the crossbar, per flit (the iq router's ST stage).
    pub crossbar_delay: Time,
    /// Extra delay of a returning credit on top of the link's propagation (iq: on top of the
    /// credit link, whose latency is the data link's).
    pub credit_delay: Time,
    pub switching: Switching,
    /// Virtual channels per port. The simple router maps the routing's VC classes one to one
    /// onto the first ones; the iq router splits the VCs evenly among the classes and lets a
    /// packet take any VC of its class (any VC at all into an endpoint or out of its source).
    pub vcs: u8,
    /// coll03 §2: a packet's header opens a circuit that stays in place until the destination's
    /// acknowledgement is back at the source (then an EOP token closes it). When set, every
    /// packet keeps each output VC it took (its injection VC included) until the combined
    /// acknowledgement of all its copies has passed back through that switch (through the NI for
    /// the injection VC), instead of releasing it when its tail goes by; switches combine the
    /// acknowledgements of a replicated packet (coll03 §3). Off by default: the other papers'
    /// networks release a VC with the tail (wormhole) and have no acknowledgements.
    #[serde(default)]
    pub circuit_until_ack: bool,
    /// With `circuit_until_ack`: time a switch takes to combine the acknowledgements of a packet's
    /// branches and send the result upstream (each backward hop also costs `link.propagation`).
    #[serde(default)]
    pub ack_delay: Time,
    /// Flit-by-flit or packet-train simulation of the network; see [`Granularity`]. Results
    /// are the same either way (only the event count differs); trains are much faster.
    #[serde(default)]
    pub granularity: Granularity,
    /// Which switch model runs (the fields below apply to `iq` only).
    #[serde(default)]
    pub router: Router,
    /// iq: the VC allocation stage, once per packet per switch.
    #[serde(default)]
    pub va_delay: Time,
    /// iq: the switch allocation stage, from winning the crossbar to traversing it.
    #[serde(default)]
    pub sa_delay: Time,
    /// iq: the allocator of the VA and SA stages.
    #[serde(default)]
    pub allocator: Allocator,
}

/// The host processor's software overheads, once per message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostParams {
    /// Send overhead t_hs: start a message and set up its transfer to the NI.
    pub t_hs: Time,
    /// Receive overhead t_hr: take a complete message from NI-deposited memory.
    pub t_hr: Time,
}

/// The network interface: its processor's per-packet overheads and the I/O bus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NiParams {
    /// Per-packet send overhead t_ns of the NI processor.
    pub t_ns: Time,
    /// Per-packet receive overhead t_nr of the NI processor.
    pub t_nr: Time,
    /// I/O bus (DMA) bandwidth between host memory and NI memory; `inf` leaves it out.
    pub dma_bandwidth: Rate,
    pub send: NiSend,
}

/// Bounds of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Deadlock watchdog: stop when no flit has moved for this long while packets are in flight.
    pub watchdog: Time,
    /// Stop after this many events (keeping the results so far).
    pub max_events: Option<u64>,
    /// Stop at this simulated time (keeping the results so far).
    pub max_time: Option<Time>,
    /// Stop when the run's own state (event queue, packets and worms in flight, message records,
    /// measured rows) is estimated to exceed this many bytes (keeping the results so far).
    #[serde(default)]
    pub max_memory: Option<u64>,
}

/// Everything a run needs besides the fabric, routing, plan and message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The preset these values started from.
    pub preset: String,
    pub link: LinkParams,
    pub switch: SwitchParams,
    pub host: HostParams,
    pub ni: NiParams,
    pub limits: Limits,
}

/// One settable key.
pub struct KeyInfo {
    pub key: &'static str,
    /// Accepted values, for listings and error messages.
    pub values: &'static str,
}

/// Every key [`Params::set`] accepts, in display order.
pub const KEYS: &[KeyInfo] = &[
    KeyInfo { key: "link.bandwidth", values: "rate, e.g. 1.28Gb/s, 266MB/s" },
    KeyInfo { key: "link.propagation", values: "time, e.g. 20ns" },
    KeyInfo { key: "link.flit_bytes", values: "size, e.g. 1B, 64B" },
    KeyInfo { key: "link.mtu_bytes", values: "size, e.g. 128B, 4KiB" },
    KeyInfo { key: "switch.buffer_flits", values: "flits, e.g. 640flits" },
    KeyInfo { key: "switch.routing_delay", values: "time" },
    KeyInfo { key: "switch.crossbar_delay", values: "time" },
    KeyInfo { key: "switch.credit_delay", values: "time" },
    KeyInfo { key: "switch.switching", values: "wormhole | cut_through | store_and_forward" },
    KeyInfo { key: "switch.vcs", values: "count, 1..255" },
    KeyInfo { key: "switch.circuit_until_ack", values: "true | false" },
    KeyInfo { key: "switch.ack_delay", values: "time" },
    KeyInfo { key: "switch.granularity", values: "flit | packet | auto" },
    KeyInfo { key: "switch.router", values: "simple | iq" },
    KeyInfo { key: "switch.va_delay", values: "time (iq)" },
    KeyInfo { key: "switch.sa_delay", values: "time (iq)" },
    KeyInfo { key: "switch.allocator", values: "islip | input_first (iq)" },
    KeyInfo { key: "host.t_hs", values: "time" },
    KeyInfo { key: "host.t_hr", values: "time" },
    KeyInfo { key: "ni.t_ns", values: "time" },
    KeyInfo { key: "ni.t_nr", values: "time" },
    KeyInfo { key: "ni.dma_bandwidth", values: "rate or inf" },
    KeyInfo { key: "ni.send", values: "pipelined | step" },
    KeyInfo { key: "limits.watchdog", values: "time" },
    KeyInfo { key: "limits.max_events", values: "count or none" },
    KeyInfo { key: "limits.max_time", values: "time or none" },
    KeyInfo { key: "limits.max_memory", values: "bytes (4GiB) or none" },
];

/// One preset.
pub struct PresetEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub build: fn() -> Params,
}

/// The papers' parameter sets, in the order `mcastlab list presets` would show them.
pub const PRESETS: &[PresetEntry] = &[
    PresetEntry { name: "sivaram98", summary: "irregular NOW switches, smart NIs (sivaram98 §6.2)", build: sivaram98 },
    PresetEntry { name: "oral", summary: "Dolphin/Scali SCI torus, 5.3 Gb/s links (oral §1, §4.1)", build: oral },
    PresetEntry { name: "zhou07", summary: "InfiniBand 1X fat-tree simulator (zhou07 §4)", build: zhou07 },
    PresetEntry {
        name: "bhoedjang98",
        summary: "Myrinet with LANai NIs, 1.28 Gb/s (bhoedjang98 §5)",
        build: bhoedjang98,
    },
    PresetEntry { name: "coll03", summary: "Quadrics QsNET Elite switches (coll03 §2, §6)", build: coll03 },
    PresetEntry {
        name: "booksim_iq",
        summary: "BookSim 2.0's input-queued VC router, 4-stage pipeline, 2 VCs x 8 flits (booksim.md mesh88)",
        build: booksim_iq,
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

fn limits() -> Limits {
    // 1 ms of simulated time without any flit moving is far beyond any packet's transfer at the
    // presets' rates, yet short enough that a deadlocked run stops at once in wall time.
    Limits { watchdog: Time(1_000_000_000), max_events: None, max_time: None, max_memory: None }
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
        link: LinkParams { bandwidth: Rate(1_600_000_000), propagation: Time::ZERO, flit_bytes: 1, mtu_bytes: 128 },
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
        host: HostParams { t_hs: Time::from_us(5), t_hr: Time::from_us(5) },
        ni: NiParams {
            t_ns: Time::from_us(5),
            t_nr: Time::from_us(5),
            dma_bandwidth: Rate(2_128_000_000),
            send: NiSend::Pipelined,
        },
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
        host: HostParams { t_hs: Time::from_ns(400), t_hr: Time::from_ns(400) },
        ni: NiParams {
            t_ns: Time::from_ns(300),
            t_nr: Time::from_ns(300),
            dma_bandwidth: Rate(4_224_000_000),
            send: NiSend::Pipelined,
        },
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
        host: HostParams { t_hs: Time::ZERO, t_hr: Time::ZERO },
        ni: NiParams { t_ns: Time::ZERO, t_nr: Time::ZERO, dma_bandwidth: Rate::UNLIMITED, send: NiSend::Pipelined },
        limits: limits(),
    }
}

/// bhoedjang98 §2.1 and §5: Myrinet, wormhole-routed, 1.28 Gb/s links, 1 KB packets, NIs on a
/// 33 MHz 32-bit PCI bus (132 MB/s). The overheads are derived from §5.1's empty-message binomial
/// multicasts, 22 µs on 4 nodes (2 steps) and 59 µs on 61 nodes (6 steps): by the smart-NI form
/// t_hs + steps·t_step + t_hr that is t_step = 9.25 µs and t_hs + t_hr = 3.5 µs, split evenly;
/// t_ns = t_nr = 4.5 µs leaves about 0.25 µs of each step for the network (an empty packet's few
/// hops take a few hundred ns here). LFC's 10 µs point-to-point latency (§3.1) is lower than
/// t_hs + t_step + t_hr = 12.75 µs: its multicast path does more NI work per packet. Not stated, chosen: byte-wide flits
/// (Myrinet channels), 10 ns propagation, 150 ns routing, 64-flit buffers (Myrinet's small slack
/// buffers; wormhole does not need a packet to fit).
fn bhoedjang98() -> Params {
    Params {
        preset: "bhoedjang98".into(),
        link: LinkParams {
            bandwidth: Rate(1_280_000_000),
            propagation: Time::from_ns(10),
            flit_bytes: 1,
            mtu_bytes: 1024,
        },
        switch: SwitchParams {
            buffer_flits: 64,
            routing_delay: Time::from_ns(150),
            crossbar_delay: Time::ZERO,
            credit_delay: Time::ZERO,
            switching: Switching::Wormhole,
            vcs: 1,
            circuit_until_ack: false,
            ack_delay: Time::ZERO,
            ..simple_switch()
        },
        host: HostParams { t_hs: Time(1_750_000), t_hr: Time(1_750_000) },
        ni: NiParams {
            t_ns: Time(4_500_000),
            t_nr: Time(4_500_000),
            dma_bandwidth: Rate(1_056_000_000),
            send: NiSend::Pipelined,
        },
        limits: limits(),
    }
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
        host: HostParams { t_hs: Time::from_us(1), t_hr: Time::from_us(1) },
        ni: NiParams {
            t_ns: Time::from_ns(800),
            t_nr: Time::from_ns(800),
            dma_bandwidth: Rate(4_224_000_000),
            send: NiSend::Pipelined,
        },
        limits: limits(),
    }
}

/// `true` or `false`, for the on/off keys.
fn parse_bool(text: &str) -> Result<bool, String> {
    match text {
        "true" => Ok(true),
        "false" => Ok(false),
        o => Err(format!("`{o}` is not one of true, false")),
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
        link: LinkParams { bandwidth: Rate(8_000_000_000), propagation: Time::ZERO, flit_bytes: 1, mtu_bytes: 8 },
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
        host: HostParams { t_hs: Time::ZERO, t_hr: Time::ZERO },
        ni: NiParams { t_ns: Time::ZERO, t_nr: Time::ZERO, dma_bandwidth: Rate::UNLIMITED, send: NiSend::Pipelined },
        limits: limits(),
    }
}

impl Params {
    /// A preset by name.
    pub fn preset(name: &str) -> Result<Params, SimError> {
        PRESETS.iter().find(|p| p.name == name).map(|p| (p.build)()).ok_or_else(|| SimError::UnknownPreset {
            name: name.to_string(),
            known: PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        })
    }

    /// A preset with `key=value` overrides applied in order, then validated.
    pub fn with_overrides(preset: &str, overrides: &[&str]) -> Result<Params, SimError> {
        let mut p = Params::preset(preset)?;
        for o in overrides {
            p.apply(o)?;
        }
        p.validate()?;
        Ok(p)
    }

    /// Applies one `key=value` override.
    pub fn apply(&mut self, item: &str) -> Result<(), SimError> {
        let Some((k, v)) = item.split_once('=') else {
            return Err(SimError::param(item.trim(), "expected key=value"));
        };
        self.set(k.trim(), v.trim())
    }

    /// Sets one parameter from text with its unit (`link.bandwidth`, `"1.28Gb/s"`). Checks the
    /// value's syntax and unit here; constraints between values are left to [`Params::validate`].
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SimError> {
        let err = |m: String| SimError::param(key, m);
        let time = || Time::parse(value).map_err(err);
        let rate = || Rate::parse(value).map_err(err);
        let small = |v: u64, what: &str| u32::try_from(v).map_err(|_| err(format!("{v} {what} is too large")));
        match key {
            "link.bandwidth" => self.link.bandwidth = rate()?,
            "link.propagation" => self.link.propagation = time()?,
            "link.flit_bytes" => self.link.flit_bytes = small(parse_bytes(value).map_err(err)?, "bytes")?,
            "link.mtu_bytes" => self.link.mtu_bytes = small(parse_bytes(value).map_err(err)?, "bytes")?,
            "switch.buffer_flits" => self.switch.buffer_flits = small(parse_flits(value).map_err(err)?, "flits")?,
            "switch.routing_delay" => self.switch.routing_delay = time()?,
            "switch.crossbar_delay" => self.switch.crossbar_delay = time()?,
            "switch.credit_delay" => self.switch.credit_delay = time()?,
            "switch.switching" => self.switch.switching = Switching::parse(value).map_err(err)?,
            "switch.vcs" => {
                let v = parse_count(value).map_err(err)?;
                self.switch.vcs = u8::try_from(v).map_err(|_| err(format!("{v} VCs is more than 255")))?;
            }
            "switch.circuit_until_ack" => self.switch.circuit_until_ack = parse_bool(value).map_err(err)?,
            "switch.ack_delay" => self.switch.ack_delay = time()?,
            "switch.granularity" => self.switch.granularity = Granularity::parse(value).map_err(err)?,
            "switch.router" => self.switch.router = Router::parse(value).map_err(err)?,
            "switch.va_delay" => self.switch.va_delay = time()?,
            "switch.sa_delay" => self.switch.sa_delay = time()?,
            "switch.allocator" => self.switch.allocator = Allocator::parse(value).map_err(err)?,
            "host.t_hs" => self.host.t_hs = time()?,
            "host.t_hr" => self.host.t_hr = time()?,
            "ni.t_ns" => self.ni.t_ns = time()?,
            "ni.t_nr" => self.ni.t_nr = time()?,
            "ni.dma_bandwidth" => self.ni.dma_bandwidth = rate()?,
            "ni.send" => self.ni.send = NiSend::parse(value).map_err(err)?,
            "limits.watchdog" => self.limits.watchdog = time()?,
            "limits.max_events" => {
                self.limits.max_events = if value == "none" { None } else { Some(parse_count(value).map_err(err)?) }
            }
            "limits.max_time" => self.limits.max_time = if value == "none" { None } else { Some(time()?) },
            "limits.max_memory" => {
                self.limits.max_memory = if value == "none" { None } else { Some(parse_bytes(value).map_err(err)?) }
            }
            _ => {
                return Err(SimError::UnknownParam {
                    key: key.to_string(),
                    known: KEYS.iter().map(|k| k.key).collect::<Vec<_>>().join(", "),
                })
            }
        }
        Ok(())
    }

    /// Checks that a run with these parameters can make sense; the error names the parameter.
    pub fn validate(&self) -> Result<(), SimError> {
        let bw = self.link.bandwidth;
        if bw.bits_per_s() == 0 {
            return Err(SimError::param("link.bandwidth", "must be positive"));
        }
        if bw.is_unlimited() {
            return Err(SimError::param("link.bandwidth", "must be finite: flits need a serialization time"));
        }
        if self.link.flit_bytes == 0 {
            return Err(SimError::param("link.flit_bytes", "a flit must carry at least one byte"));
        }
        if self.flit_ps() == 0 {
            return Err(SimError::param(
                "link.bandwidth",
                format!("{bw} serializes a {}-byte flit in under 1 ps; use larger flits", self.link.flit_bytes),
            ));
        }
        if self.link.mtu_bytes == 0 {
            return Err(SimError::param("link.mtu_bytes", "a packet must carry at least one byte"));
        }
        if self.switch.buffer_flits == 0 {
            return Err(SimError::param("switch.buffer_flits", "a buffer smaller than one flit cannot hold anything"));
        }
        if self.switch.vcs == 0 {
            return Err(SimError::param("switch.vcs", "a port needs at least one virtual channel"));
        }
        if self.switch.switching.needs_whole_packet() && self.mtu_flits() > self.switch.buffer_flits {
            return Err(SimError::param(
                "switch.buffer_flits",
                format!(
                    "{} needs a whole packet in one buffer, but a {}-byte packet is {} flits and the buffer holds {}",
                    self.switch.switching.name(),
                    self.link.mtu_bytes,
                    self.mtu_flits(),
                    self.switch.buffer_flits
                ),
            ));
        }
        if self.ni.dma_bandwidth.bits_per_s() == 0 {
            return Err(SimError::param("ni.dma_bandwidth", "must be positive (or inf to leave the I/O bus out)"));
        }
        // While packets are in the network some flit moves at least once per hop time (decode,
        // crossbar, serialization, flight, credit return): a shorter watchdog would call a
        // healthy run deadlocked.
        self.validate_router()?;
        let hop = self.switch.routing_delay.ps()
            + self.switch.va_delay.ps()
            + self.switch.sa_delay.ps()
            + self.switch.crossbar_delay.ps()
            + self.flit_ps()
            + 2 * self.link.propagation.ps()
            + self.switch.credit_delay.ps();
        if self.limits.watchdog.ps() <= 2 * hop {
            return Err(SimError::param(
                "limits.watchdog",
                format!("must exceed twice the time of one hop ({}), or a healthy run looks stuck", Time(2 * hop)),
            ));
        }
        if self.limits.max_events == Some(0) {
            return Err(SimError::param("limits.max_events", "must be at least 1 (or none)"));
        }
        if self.limits.max_memory == Some(0) {
            return Err(SimError::param("limits.max_memory", "must be at least 1 byte (or none)"));
        }
        if self.switch.granularity == Granularity::Packet {
            if let Some(why) = self.packet_trains_unfit() {
                return Err(SimError::param("switch.granularity", format!("packet trains would not be exact: {why}")));
            }
        }
        Ok(())
    }

    /// Why these parameters rule out exact packet trains (`switch.granularity`), or `None`.
    /// The plan and the run add their own conditions (`Simulation::new`).
    pub fn packet_trains_unfit(&self) -> Option<String> {
        if self.switch.router == Router::Iq {
            return Some("the iq router moves flits cycle by cycle (use switch.router=simple)".into());
        }
        if self.switch.switching == Switching::Wormhole {
            return Some(
                "wormhole switching lets a blocked packet stall with its flits spread over several switches \
                 (use cut_through or store_and_forward)"
                    .into(),
            );
        }
        if self.switch.circuit_until_ack {
            return Some("switch.circuit_until_ack holds VCs past the tail until acknowledgements return".into());
        }
        if self.switch.routing_delay == Time::ZERO {
            return Some(
                "switch.routing_delay is 0: a header decoded at the instant a packet ahead leaves would run \
                 among that instant's link events, whose order trains do not keep"
                    .into(),
            );
        }
        if self.link.propagation.ps() + self.switch.credit_delay.ps() == 0 {
            return Some(
                "credits return with no delay (link.propagation + switch.credit_delay = 0): a credit would come \
                 back among the link events of the instant that freed it, whose order trains do not keep"
                    .into(),
            );
        }
        None
    }

    /// The iq router counts in cycles of one flit time, so each of its delays must be a whole
    /// number of them; the simple router has no allocation stages, so their keys must stay 0.
    fn validate_router(&self) -> Result<(), SimError> {
        let s = &self.switch;
        if s.router == Router::Simple {
            for (key, t) in [("switch.va_delay", s.va_delay), ("switch.sa_delay", s.sa_delay)] {
                if t != Time::ZERO {
                    return Err(SimError::param(key, "only the iq router has this stage (set switch.router=iq)"));
                }
            }
            if s.allocator != Allocator::Islip {
                return Err(SimError::param(
                    "switch.allocator",
                    "only the iq router has allocators (set switch.router=iq)",
                ));
            }
            return Ok(());
        }
        if s.switching != Switching::Wormhole {
            return Err(SimError::param(
                "switch.switching",
                format!("the iq router is a wormhole router; {} needs switch.router=simple", s.switching.name()),
            ));
        }
        if s.circuit_until_ack {
            return Err(SimError::param(
                "switch.circuit_until_ack",
                "circuits held until the acknowledgement (coll03) are modelled by the simple router only",
            ));
        }
        let cycle = self.flit_ps();
        let delays = [
            ("switch.routing_delay", s.routing_delay),
            ("switch.va_delay", s.va_delay),
            ("switch.sa_delay", s.sa_delay),
            ("switch.crossbar_delay", s.crossbar_delay),
            ("switch.credit_delay", s.credit_delay),
            ("link.propagation", self.link.propagation),
        ];
        for (key, t) in delays {
            if !t.ps().is_multiple_of(cycle) {
                return Err(SimError::param(
                    key,
                    format!(
                        "{t} is not a whole number of cycles; the iq router's cycle is one flit time ({})",
                        Time(cycle)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Serialization time of one flit, rounded to the nearest picosecond.
    pub fn flit_ps(&self) -> u64 {
        let bits = self.link.flit_bytes as u128 * 8 * 1_000_000_000_000;
        let bw = self.link.bandwidth.bits_per_s().max(1) as u128;
        ((bits + bw / 2) / bw) as u64
    }

    /// Flits of a packet of `bytes` (a packet has at least one flit, its header).
    pub fn flits_for(&self, bytes: u64) -> u32 {
        bytes.div_ceil(self.link.flit_bytes.max(1) as u64).max(1) as u32
    }

    /// Flits of a full-MTU packet.
    pub fn mtu_flits(&self) -> u32 {
        self.flits_for(self.link.mtu_bytes as u64)
    }

    /// Packets a message of `bytes` is split into (at least one).
    pub fn packets_for(&self, message_bytes: u64) -> u32 {
        message_bytes.div_ceil(self.link.mtu_bytes.max(1) as u64).max(1) as u32
    }

    /// Payload bytes of packet `j` of a `message_bytes` message.
    pub fn packet_bytes(&self, message_bytes: u64, j: u32) -> u64 {
        let mtu = self.link.mtu_bytes as u64;
        message_bytes.saturating_sub(j as u64 * mtu).min(mtu)
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn packetization() {
        let p = Params::preset("sivaram98").unwrap();
        assert_eq!(p.packets_for(0), 1);
        assert_eq!(p.packets_for(128), 1);
        assert_eq!(p.packets_for(129), 2);
        assert_eq!(p.packet_bytes(129, 1), 1);
        assert_eq!(p.flits_for(0), 1, "an empty packet is its header flit");
    }
}
