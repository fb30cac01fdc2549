//! Simulator parameters with units, the papers' presets, `key=value` overrides and validation,
//! all read from one parameter table.
//!
//! A [`Params`] is plain data (serde, `deny_unknown_fields`): the same value comes from a preset,
//! from JSON, or from a preset plus overrides such as `link.bandwidth=1.28Gb/s`. [`Params::validate`]
//! runs before any simulation: an impossible configuration is an error naming the parameter,
//! never a hang or a silent fix.
//!
//! # One table
//!
//! Each key is defined once, as a field in the `param_table!` definition below (`table.rs`): its
//! name (the field, whose serde path `group.field` is the key), its Rust type, its kind (the
//! unit it is written in: [`Kind`]), and its doc comment. From that one definition the macro
//! emits the structs exactly as a hand-written declaration would (so serde's JSON is unchanged)
//! and [`KEYS`], a `const` slice of [`Param`] rows that parse and show the field. Derived from
//! the rows: [`Params::set`]/[`apply`](Params::apply)/[`with_overrides`](Params::with_overrides)
//! and [`Params::show`], the unknown-key error listing every key, parse errors naming the key,
//! the `key::group::field` constants that [`Params::validate`] names keys with, the generated
//! page `docs/params.md` and the rows of `mcastlab.param_table()` ([`docs`]). A preset's
//! column is its `Params` shown through the rows: the preset functions (`presets.rs`) stay the
//! one specification of each value. The workload measurement settings ([`Measure`], keys
//! `measure.*`) are a second table built by the same macro.
//!
//! Why a declarative macro and a kind trait rather than the alternatives: serde's derive knows
//! the field names but not units, docs or per-key parsing of `"1.28Gb/s"`, and walking a
//! serialized `Params` to set a key would re-implement serde's paths by hand; a proc-macro crate
//! would be a new crate for one table. `macro_rules!` keeps the struct declaration readable (the
//! field, its doc comment and serde attributes are written as before, plus `as Kind`), and the
//! rows are `const`, so `KEYS` stays a plain slice. The kind is separate from the field's type
//! because the simulator's arithmetic wants plain `u32`s while the text form must know whether
//! a `u32` is bytes, flits or a count. The enums derive their names and aliases with strum
//! (`enums.rs`).
//!
//! Written by hand on purpose: the rules between keys ([`Params::validate`], code by nature;
//! only their key names come from the table), the root struct [`Params`] (each group's field is
//! named again after `in`; a mismatch does not compile, as the rows read `params.group.field`),
//! and the presets' values.
//!
//! Presets carry each paper's stated numbers, with the section in the doc comment. A value a paper
//! does not state is chosen and the reason written next to it; those are the ones to override
//! when comparing with other sources.
//!
//! | file | what |
//! |---|---|
//! | `table.rs` | [`Param`] rows and the `param_table!` macro |
//! | `kinds.rs` | [`Kind`]: text forms of times, rates, sizes, flits, counts, numbers, bools, choices, `none` |
//! | `enums.rs` | [`Switching`], [`Granularity`], [`Router`], [`Allocator`], [`NiSend`], [`NiOrder`], [`Recovery`] (strum) |
//! | `presets.rs` | [`PRESETS`]: one function per paper |
//! | `validate.rs` | [`Params::validate`]: the rules between keys |
//! | `channels.rs` | per-channel times of flight: terminal, wrap-around and per-level links |
//! | `measure.rs` | [`Measure`] and [`Detail`], the `measure.*` table ([`MEASURE_KEYS`]) |
//! | `docs.rs` | rows with every preset's value, and the generated `docs/params.md` |

mod channels;
pub mod docs;
mod enums;
mod kinds;
pub mod measure;
mod presets;
mod table;
mod validate;

pub use enums::{Allocator, Granularity, NiOrder, NiSend, Recovery, Router, Switching};
pub use kinds::{Bytes, Choice, Count, Flits, Kind, Times};
pub use measure::{Ages, Convention, Detail, Measure, Resolved, Stop, MEASURE_KEYS};
pub use presets::{convention, PresetEntry, PRESETS};
pub use table::Param;

use crate::error::SimError;
use crate::sim::units::{Rate, Time};
use serde::{Deserialize, Serialize};
use table::param_table;

param_table! {
    /// Every key [`Params::set`] accepts, in display order (the order of the fields).
    pub const KEYS: [Params];

    /// Links (every link of the fabric alike).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LinkParams in link {
        /// Data rate of one direction. A link whose width and speed the fabric gives (4xQDR) uses its own.
        pub bandwidth: Rate as Rate,
        /// Time of flight, added once per flit per link after serialization (and to every credit
        /// returned over the link); the switch-to-switch default for the two keys below.
        pub propagation: Time as Time,
        /// Time of flight of injection and ejection links (between an endpoint and its switch);
        /// none: link.propagation. BookSim's terminal channels keep one cycle when its router
        /// links are longer.
        pub terminal_propagation: Option<Time> as Option<Time>,
        /// Time of flight of a torus's wrap-around links (coordinate k−1 to 0 and back); none:
        /// link.propagation. A torus laid out flat has long wrap links; a folded one has none.
        /// Refused on a fabric without wrap links (a mesh, a torus of dimensions 2).
        pub wrap_propagation: Option<Time> as Option<Time>,
        /// Time of flight of switch-to-switch links by tree level, from the leaves up, separated
        /// by `/`: the k-th is for links whose upper switch is k hops above the nearest switch
        /// with endpoints (1: leaf to the level above). Levels not listed, and links between two
        /// switches with endpoints (a mesh, a torus), keep link.propagation; none: every level does.
        /// A fat-tree's upper cables are often the long ones.
        #[serde(default)]
        pub level_propagation: Vec<Time> as Times,
        /// Flow-control unit, bytes.
        pub flit_bytes: u32 as Bytes,
        /// Largest packet payload, bytes; messages are split into packets of at most this size.
        pub mtu_bytes: u32 as Bytes,
    }

    /// Switches: input-buffered, one FIFO per input port and virtual channel.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SwitchParams in switch {
        /// Depth of each per-VC input buffer, flits.
        pub buffer_flits: u32 as Flits,
        /// Header decode and routing, once per packet per switch (the iq router's RC stage; 0 there
        /// is lookahead routing, RC in the cycle of VA).
        pub routing_delay: Time as Time,
        /// Input-to-output transfer through the crossbar, per flit (the iq router's ST stage).
        pub crossbar_delay: Time as Time,
        /// Extra delay of a returning credit on top of the link's propagation (iq: on top of the
        /// credit link, whose latency is the data link's).
        pub credit_delay: Time as Time,
        /// Wormhole, virtual cut-through or store-and-forward switching; see [`Switching`].
        pub switching: Switching as Choice,
        /// Virtual channels per port. The simple router maps the routing's VC classes one to one
        /// onto the first ones; the iq router splits the VCs evenly among the classes and lets a
        /// packet take any VC of its class (any VC at all into an endpoint or out of its source).
        pub vcs: u8 as Count,
        /// coll03 §2: a packet's header opens a circuit that stays in place until the destination's
        /// acknowledgement is back at the source (then an EOP token closes it). When set, every
        /// packet keeps each output VC it took (its injection VC included) until the combined
        /// acknowledgement of all its copies has passed back through that switch (through the NI for
        /// the injection VC), instead of releasing it when its tail goes by; switches combine the
        /// acknowledgements of a replicated packet (coll03 §3). Off by default: the other papers'
        /// networks release a VC with the tail (wormhole) and have no acknowledgements.
        #[serde(default)]
        pub circuit_until_ack: bool as bool,
        /// With `circuit_until_ack`: time a switch takes to combine the acknowledgements of a packet's
        /// branches and send the result upstream (each backward hop also costs `link.propagation`).
        #[serde(default)]
        pub ack_delay: Time as Time,
        /// Flit-by-flit or packet-train simulation of the network; see [`Granularity`]. Results
        /// are the same either way (only the event count differs); trains are much faster.
        #[serde(default)]
        pub granularity: Granularity as Choice,
        /// Which switch model runs (the fields below apply to `iq` only). Replication differs:
        /// under `iq` the copies of a packet leave an input one after another (one flit per input
        /// per cycle), under `simple` each branch reads the buffer at its own pace.
        #[serde(default)]
        pub router: Router as Choice,
        /// iq: the VC allocation stage, once per packet per switch.
        #[serde(default)]
        pub va_delay: Time as Time,
        /// iq: the switch allocation stage, from winning the crossbar to traversing it.
        #[serde(default)]
        pub sa_delay: Time as Time,
        /// iq: the allocator of the VA and SA stages.
        #[serde(default)]
        pub allocator: Allocator as Choice,
    }

    /// The host processor: its software overheads, once per message, and its own copies.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HostParams in host {
        /// Send overhead t_hs: start a message and set up its transfer to the NI.
        pub t_hs: Time as Time,
        /// Receive overhead t_hr: take a complete message from NI-deposited memory.
        pub t_hr: Time as Time,
        /// Send path by programmed I/O (bhoedjang98 §5): the host processor copies each packet
        /// into NI memory at this rate, busy meanwhile, instead of the DMA engine moving it;
        /// `inf` leaves PIO out.
        #[serde(default = "unlimited")]
        pub pio_bandwidth: Rate as Rate,
        /// Receive copy (bhoedjang98 §5's benchmarks copy every message once after its DMA): the
        /// host copies the whole message at this rate before it is delivered; `inf` leaves the
        /// copy out.
        #[serde(default = "unlimited")]
        pub copy_bandwidth: Rate as Rate,
    }

    /// The network interface: its processor's per-packet overheads and the I/O bus.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct NiParams in ni {
        /// Per-packet send overhead t_ns of the NI processor.
        pub t_ns: Time as Time,
        /// Per-packet receive overhead t_nr of the NI processor.
        pub t_nr: Time as Time,
        /// I/O bus (DMA) bandwidth between host memory and NI memory; `inf` leaves it out.
        pub dma_bandwidth: Rate as Rate,
        /// When the NI may start its next packet send: pipelined copies, one per step, or LFC's
        /// credits (bhoedjang98); see [`NiSend`].
        pub send: NiSend as Choice,
        /// Which waiting job the NI processor takes next: in arrival order, receives first, or
        /// sends first; see [`NiOrder`]. Every preset takes arrival order: sivaram98's FPFS
        /// forwards packets as they arrive, bhoedjang98 does not say how the LANai's loop
        /// interleaves the network and the send queue, and the other papers' NIs do not forward.
        #[serde(default)]
        pub order: NiOrder as Choice,
        /// NI processor time to send or to take one control packet of an NI protocol (an LFC
        /// credit update or recovery acknowledgement, an FM/MC credit request, grant or token).
        #[serde(default = "one_us")]
        pub t_control: Time as Time,
        /// Time a control packet takes from NI to NI (control packets are not put on the links:
        /// they are a few bytes against data packets of hundreds).
        #[serde(default = "one_us")]
        pub control_latency: Time as Time,
    }

    /// LFC's NI-level flow control and deadlock recovery (bhoedjang98 §3–§4), used when
    /// `ni.send = lfc`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LfcParams in lfc {
        /// Receive buffers (of one packet each) every NI sets aside for each other NI: the send
        /// credits of one pair of NIs.
        pub credits: u32 as Count,
        /// Low-water mark: a receiving NI sends the credits of its freed buffers back in an
        /// explicit update as soon as it knows the sender has at most this many credits left
        /// (`credits` minus the buffers holding the sender's packets and the credits owed).
        pub low_water: u32 as Count,
        /// Credits owed to an NI ride on any data packet going to it (piggybacking) instead of
        /// waiting for an explicit update.
        pub piggyback: bool as bool,
        /// Deadlock detection and recovery: off (the basic protocol), eager (a non-empty
        /// blocked-sends queue), or timeout; see [`Recovery`].
        pub recovery: Recovery as Choice,
        /// With `recovery = timeout`: how long a blocked-sends queue's head may wait before the
        /// NI suspects deadlock.
        pub recovery_timeout: Time as Time,
    }

    /// FM/MC's central credit manager, token and NI receive queue (bhoedjang98 §2.2), used when
    /// `ni.send = fmmc`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FmmcParams in fmmc {
        /// The endpoint whose NI runs the credit manager (an index).
        pub manager: u32 as Count,
        /// Multicast receive buffers (one packet each) on every host: the credits in the system.
        pub host_buffers: u32 as Count,
        /// Credits a host asks the manager for at once (and caches).
        pub credit_batch: u32 as Count,
        /// Packets the NI's one shared receive queue holds; when it is full, arriving packets
        /// are swapped to host memory (a DMA each way) until it is below half full again.
        pub ni_buffers: u32 as Count,
        /// FM's host-level sliding window for unicast: buffers each host sets aside for each
        /// sender (credits return when half of them are free again); at least 1.
        pub unicast_window: u32 as Count,
        /// Bytes of a message's first packet taken by its handler (§5.3: one word), so a message
        /// of exactly one packet's payload needs two; packets are fixed-size (`link.mtu_bytes`).
        pub handler_bytes: u32 as Bytes,
    }

    /// Bounds of one run.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Limits in limits {
        /// Deadlock watchdog: stop when no flit has moved for this long while packets are in flight.
        pub watchdog: Time as Time,
        /// Stop after this many events (keeping the results so far).
        pub max_events: Option<u64> as Option<Count>,
        /// Stop at this simulated time (keeping the results so far); positive.
        pub max_time: Option<Time> as Option<Time>,
        /// Stop when the run's own state (event queue, packets and worms in flight, message records,
        /// measured rows) is estimated to exceed this many bytes (keeping the results so far).
        #[serde(default)]
        pub max_memory: Option<u64> as Option<Bytes>,
        /// Templates (a message's static program: its trees, sends and triggers) a workload keeps
        /// for reuse once no message uses them; beyond this many, a template whose last message
        /// finished is recycled for the next one of its shape (none: keep every one). Random
        /// pairs on a large fabric rarely repeat, so keeping them all grows with the run's length.
        #[serde(default = "kept_templates")]
        pub kept_templates: Option<u64> as Option<Count>,
    }
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
    /// Absent in parameter files written before LFC existed: the defaults.
    #[serde(default)]
    pub lfc: LfcParams,
    #[serde(default)]
    pub fmmc: FmmcParams,
    pub limits: Limits,
}

impl Default for FmmcParams {
    /// bhoedjang98 §5.3: one word (4 bytes) of the first packet holds the handler. Not stated,
    /// chosen: the manager on endpoint 0, batches of 8 credits (LFC's window), 512 multicast
    /// buffers per host (128 KB of 256-byte packets: enough that the credits 64 hosts may each
    /// keep cached, up to a batch, cannot starve the others; with fewer, hosts that stop sending
    /// keep buffers reserved everywhere), a 64-packet NI receive queue (16 KB), a unicast window
    /// of 8 (LFC's).
    fn default() -> FmmcParams {
        FmmcParams {
            manager: 0,
            host_buffers: 512,
            credit_batch: 8,
            ni_buffers: 64,
            unicast_window: 8,
            handler_bytes: 4,
        }
    }
}

/// 1 µs: the control-packet costs of the presets and of files written before the keys existed.
/// Not stated in any paper, chosen: a LANai handles a few-byte packet in about a microsecond, and
/// a small packet crosses a few Myrinet switches in about as long.
const CONTROL_COST: Time = Time(1_000_000);

fn one_us() -> Time {
    CONTROL_COST
}

/// `inf`: a rate that is not modelled (serde's default for the optional rates).
fn unlimited() -> Rate {
    Rate::UNLIMITED
}

/// 65,536 templates: every pair of a 256-endpoint fabric, so runs on fabrics up to that size keep
/// every template as before; about 60 MB of unicast templates on a large one.
pub(crate) fn kept_templates() -> Option<u64> {
    Some(1 << 16)
}

impl Default for LfcParams {
    /// bhoedjang98 §3.3: 8 receive buffers (credits) per sender. Not stated, chosen: a low-water
    /// mark of half the window (4), piggybacking on, a 100 µs timeout, recovery off (the basic
    /// protocol of §3 and §5.1).
    fn default() -> LfcParams {
        LfcParams {
            credits: 8,
            low_water: 4,
            piggyback: true,
            recovery: Recovery::Off,
            recovery_timeout: Time::from_us(100),
        }
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

    /// [`Params::with_overrides`] for runs under a routing that needs `vc_classes` virtual
    /// channels: when the overrides leave `switch.vcs` at the preset's value and that is fewer
    /// (DOR with datelines on a torus needs 2, the presets have 1), the switches get as many as
    /// the routing needs. A routing's needs configure the default instead of stopping a first
    /// command (issue 10); a `switch.vcs` the user set below the need is still refused at the
    /// run, naming both numbers.
    pub fn for_routing(preset: &str, overrides: &[&str], vc_classes: u8) -> Result<Params, SimError> {
        let mut p = Params::with_overrides(preset, overrides)?;
        let set_by_user =
            overrides.iter().any(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == key::switch::vcs));
        if !set_by_user && p.switch.vcs < vc_classes {
            p.switch.vcs = vc_classes;
            p.validate()?;
        }
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
        table::find(KEYS, key)?.set(self, value)
    }

    /// The value of one key as text that [`Params::set`] accepts (`"200MB/s"`).
    pub fn show(&self, key: &str) -> Result<String, SimError> {
        Ok(table::find(KEYS, key)?.show(self))
    }

    /// The measurement convention of the preset these values started from (BookSim's under the
    /// `booksim_*` presets): what `none` means for `measure.latency_limit`, `ages` and `stop`.
    pub fn convention(&self) -> Convention {
        presets::convention(&self.preset)
    }

    /// Serialization time of one flit at `link.bandwidth`, rounded to the nearest picosecond.
    pub fn flit_ps(&self) -> u64 {
        self.flit_ps_at(self.link.bandwidth.bits_per_s())
    }

    /// Serialization time of one flit at `bits_per_s`, rounded to the nearest picosecond.
    pub fn flit_ps_at(&self, bits_per_s: u64) -> u64 {
        let bits = self.link.flit_bytes as u128 * 8 * 1_000_000_000_000;
        let bw = bits_per_s.max(1) as u128;
        ((bits + bw / 2) / bw) as u64
    }

    /// Flit serialization time of every channel of `f`: at the link's own rate when the fabric
    /// gives its width and speed (an imported `4xQDR` link), at `link.bandwidth` otherwise.
    /// The rate is the fabric link's property; `link.bandwidth` is the default for links that
    /// have none.
    pub fn channel_flit_ps(&self, f: &crate::fabric::Fabric) -> Vec<u64> {
        let by_link: Vec<u64> = f
            .links()
            .iter()
            .map(|l| l.data_rate_bps().map_or_else(|| self.flit_ps(), |r| self.flit_ps_at(r)))
            .collect();
        (0..f.num_channels()).map(|c| by_link[c / 2]).collect()
    }

    /// Flits of a packet of `bytes` (a packet has at least one flit, its header).
    pub fn flits_for(&self, bytes: u64) -> u32 {
        bytes.div_ceil(self.link.flit_bytes.max(1) as u64).max(1) as u32
    }

    /// Flits of a full-MTU packet.
    pub fn mtu_flits(&self) -> u32 {
        self.flits_for(self.link.mtu_bytes as u64)
    }

    /// Packets a message of `bytes` is split into (at least one). FM/MC's first packet also
    /// carries its handler (`fmmc.handler_bytes`). A count past a plan's `u32` saturates rather
    /// than wrapping; [`Params::check_message_bytes`] refuses such a message where one enters.
    pub fn packets_for(&self, message_bytes: u64) -> u32 {
        self.packet_count(message_bytes).min(u32::MAX as u64) as u32
    }

    fn packet_count(&self, message_bytes: u64) -> u64 {
        let header = if self.ni.send == NiSend::Fmmc { self.fmmc.handler_bytes as u64 } else { 0 };
        message_bytes.saturating_add(header).div_ceil(self.link.mtu_bytes.max(1) as u64).max(1)
    }

    /// Refuses a message that splits into more packets than a plan can have (2^32 − 1): the count
    /// used to wrap, so a 512 GiB message ran as 5 packets and was reported delivered.
    pub fn check_message_bytes(&self, message_bytes: u64) -> Result<(), SimError> {
        let n = self.packet_count(message_bytes);
        if n <= u32::MAX as u64 {
            return Ok(());
        }
        Err(SimError::param(
            "message_bytes",
            format!(
                "a {message_bytes}-byte message makes {n} packets of at most {} bytes ({}), more than the {} a plan \
                 can have",
                self.link.mtu_bytes,
                key::link::mtu_bytes,
                u32::MAX
            ),
        ))
    }

    /// Bytes of packet `j` of a `message_bytes` message as the links and the I/O bus carry it:
    /// its payload, or the whole MTU for FM/MC's fixed-size packets.
    pub fn packet_bytes(&self, message_bytes: u64, j: u32) -> u64 {
        let mtu = self.link.mtu_bytes as u64;
        if self.ni.send == NiSend::Fmmc {
            return mtu;
        }
        message_bytes.saturating_sub(j as u64 * mtu).min(mtu)
    }
}

#[cfg(test)]
mod tests;
