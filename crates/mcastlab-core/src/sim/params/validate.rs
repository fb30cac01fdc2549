//! [`Params::validate`]: the constraints between keys, as code. Each rule's message names the key
//! through the table's `key::group::field` constants, so a key renamed in the table cannot leave
//! a stale name here.

use super::key::{fmmc, host, lfc, limits, link, ni, switch};
use super::{Allocator, Granularity, NiSend, Params, Recovery, Router, Switching};
use crate::error::SimError;
use crate::fabric::{Fabric, Topology};
use crate::sim::units::Time;

impl Params {
    /// Checks that a run with these parameters can make sense; the error names the parameter.
    pub fn validate(&self) -> Result<(), SimError> {
        let bw = self.link.bandwidth;
        if bw.bits_per_s() == 0 {
            return Err(SimError::param(link::bandwidth, "must be positive"));
        }
        if bw.is_unlimited() {
            return Err(SimError::param(link::bandwidth, "must be finite: flits need a serialization time"));
        }
        if self.link.flit_bytes == 0 {
            return Err(SimError::param(link::flit_bytes, "a flit must carry at least one byte"));
        }
        if self.flit_ps() == 0 {
            return Err(SimError::param(
                link::bandwidth,
                format!("{bw} serializes a {}-byte flit in under 1 ps; use larger flits", self.link.flit_bytes),
            ));
        }
        if self.link.mtu_bytes == 0 {
            return Err(SimError::param(link::mtu_bytes, "a packet must carry at least one byte"));
        }
        if self.switch.buffer_flits == 0 {
            return Err(SimError::param(switch::buffer_flits, "a buffer smaller than one flit cannot hold anything"));
        }
        if self.switch.vcs == 0 {
            return Err(SimError::param(switch::vcs, "a port needs at least one virtual channel"));
        }
        if self.switch.switching.needs_whole_packet() && self.mtu_flits() > self.switch.buffer_flits {
            return Err(SimError::param(
                switch::buffer_flits,
                format!(
                    "{} needs a whole packet in one buffer, but a {}-byte packet is {} flits and the buffer holds {}",
                    self.switch.switching.name(),
                    self.link.mtu_bytes,
                    self.mtu_flits(),
                    self.switch.buffer_flits
                ),
            ));
        }
        for (key, r) in
            [(host::pio_bandwidth, self.host.pio_bandwidth), (host::copy_bandwidth, self.host.copy_bandwidth)]
        {
            if r.bits_per_s() == 0 {
                return Err(SimError::param(key, "must be positive (or inf to leave it out)"));
            }
        }
        if self.ni.dma_bandwidth.bits_per_s() == 0 {
            return Err(SimError::param(ni::dma_bandwidth, "must be positive (or inf to leave the I/O bus out)"));
        }
        self.validate_ni_protocols()?;
        // While packets are in the network some flit moves at least once per hop time (decode,
        // crossbar, serialization, flight, credit return): a shorter watchdog would call a
        // healthy run deadlocked.
        self.validate_router()?;
        let parts = [
            ("switch.routing_delay", self.switch.routing_delay.ps()),
            ("switch.va_delay", self.switch.va_delay.ps()),
            ("switch.sa_delay", self.switch.sa_delay.ps()),
            ("switch.crossbar_delay", self.switch.crossbar_delay.ps()),
            ("link.bandwidth (one flit)", self.flit_ps()),
            ("link.propagation (the longest of its three keys, twice)", 2 * self.longest_propagation_ps()),
            ("switch.credit_delay", self.switch.credit_delay.ps()),
        ];
        let hop: u64 = parts.iter().map(|(_, ps)| ps).sum();
        if self.limits.watchdog.ps() <= 2 * hop {
            // Name the largest part: when the watchdog is a preset's, the mistake is usually there
            // (`link.bandwidth=1b/s` makes a flit take seconds), not in the watchdog.
            let (key, ps) = parts.iter().max_by_key(|(_, ps)| *ps).copied().unwrap_or(("", 0));
            return Err(SimError::param(
                limits::watchdog,
                format!(
                    "must exceed twice the time of one hop ({}, most of it {key}: {}), or a healthy run looks \
                     stuck: raise limits.watchdog or check {key}",
                    Time(2 * hop),
                    Time(ps)
                ),
            ));
        }
        if self.limits.max_events == Some(0) {
            return Err(SimError::param(limits::max_events, "must be at least 1 (or none)"));
        }
        if self.limits.max_time == Some(Time::ZERO) {
            return Err(SimError::param(
                limits::max_time,
                "must be positive (or none): a run of no time simulates nothing",
            ));
        }
        if self.limits.max_memory == Some(0) {
            return Err(SimError::param(limits::max_memory, "must be at least 1 byte (or none)"));
        }
        if self.switch.granularity == Granularity::Packet {
            if let Some(why) = self.packet_trains_unfit() {
                return Err(SimError::param(switch::granularity, format!("packet trains would not be exact: {why}")));
            }
        }
        Ok(())
    }

    /// [`Params::validate`], then the keys that depend on the fabric: `link.wrap_propagation` is
    /// refused where there is no wrap-around link (anything but a torus with a dimension of more
    /// than 2), since it would change nothing.
    pub fn validate_on(&self, f: &Fabric) -> Result<(), SimError> {
        self.validate()?;
        if self.link.wrap_propagation.is_some() {
            let wraps = matches!(f.topology(), Topology::Torus(t) if t.dims.iter().any(|&k| k > 2));
            if !wraps {
                return Err(SimError::param(
                    link::wrap_propagation,
                    format!(
                        "applies only to a torus's wrap-around links (a dimension of more than 2); {} ({}) has \
                         none: leave it none",
                        f.name(),
                        f.topology().kind()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// LFC's and FM/MC's keys: checked whatever `ni.send` is, so a file that switches LFC on later is not a
    /// surprise.
    fn validate_ni_protocols(&self) -> Result<(), SimError> {
        let l = &self.lfc;
        if l.credits == 0 {
            return Err(SimError::param(
                lfc::credits,
                "an NI needs at least one receive buffer per sender (1 or more)",
            ));
        }
        if l.low_water >= l.credits {
            return Err(SimError::param(
                lfc::low_water,
                format!(
                    "must be below {} = {}: a sender with all its credits is not low on them",
                    lfc::credits,
                    l.credits
                ),
            ));
        }
        if l.recovery == Recovery::Timeout && l.recovery_timeout.ps() == 0 {
            return Err(SimError::param(
                lfc::recovery_timeout,
                "must be positive with recovery = timeout (use eager for at once)",
            ));
        }
        if self.ni.send != NiSend::Lfc && l.recovery != Recovery::Off {
            return Err(SimError::param(
                lfc::recovery,
                format!("deadlock recovery is part of LFC; set {}=lfc or {}=off", ni::send, lfc::recovery),
            ));
        }
        let m = &self.fmmc;
        for (key, v, min) in [
            (fmmc::host_buffers, m.host_buffers, 1),
            (fmmc::credit_batch, m.credit_batch, 1),
            (fmmc::unicast_window, m.unicast_window, 1),
            (fmmc::ni_buffers, m.ni_buffers, 2),
        ] {
            if v < min {
                return Err(SimError::param(key, format!("must be at least {min}")));
            }
        }
        if self.ni.send == NiSend::Fmmc && m.handler_bytes as u64 >= self.link.mtu_bytes as u64 {
            return Err(SimError::param(
                fmmc::handler_bytes,
                format!("the handler must leave room for data in a {}-byte packet", self.link.mtu_bytes),
            ));
        }
        Ok(())
    }

    /// Why these parameters rule out exact packet trains (`switch.granularity`), or `None`.
    /// The plan and the run add their own conditions (`Simulation::new`).
    pub fn packet_trains_unfit(&self) -> Option<String> {
        if self.switch.router == Router::Iq {
            return Some(format!("the iq router moves flits cycle by cycle (use {}=simple)", switch::router));
        }
        if self.switch.switching == Switching::Wormhole {
            return Some(
                "wormhole switching lets a blocked packet stall with its flits spread over several switches \
                 (use cut_through or store_and_forward)"
                    .into(),
            );
        }
        if self.switch.circuit_until_ack {
            return Some(format!(
                "{} holds VCs past the tail until acknowledgements return",
                switch::circuit_until_ack
            ));
        }
        if self.switch.routing_delay == Time::ZERO {
            return Some(format!(
                "{} is 0: a header decoded at the instant a packet ahead leaves would run among that \
                 instant's link events, whose order trains do not keep",
                switch::routing_delay
            ));
        }
        if self.link.propagation.ps() + self.switch.credit_delay.ps() == 0 {
            return Some(format!(
                "credits return with no delay ({} + {} = 0): a credit would come back among the link events \
                 of the instant that freed it, whose order trains do not keep",
                link::propagation,
                switch::credit_delay
            ));
        }
        None
    }

    /// The iq router counts in cycles of one flit time, so each of its delays must be a whole
    /// number of them; the simple router has no allocation stages, so their keys must stay 0.
    fn validate_router(&self) -> Result<(), SimError> {
        let s = &self.switch;
        if s.router == Router::Simple {
            for (key, t) in [(switch::va_delay, s.va_delay), (switch::sa_delay, s.sa_delay)] {
                if t != Time::ZERO {
                    return Err(SimError::param(
                        key,
                        format!("only the iq router has this stage (set {}=iq)", switch::router),
                    ));
                }
            }
            if s.allocator != Allocator::Islip {
                return Err(SimError::param(
                    switch::allocator,
                    format!("only the iq router has allocators (set {}=iq)", switch::router),
                ));
            }
            return Ok(());
        }
        if s.switching != Switching::Wormhole {
            return Err(SimError::param(
                switch::switching,
                format!("the iq router is a wormhole router; {} needs {}=simple", s.switching.name(), switch::router),
            ));
        }
        if s.circuit_until_ack {
            return Err(SimError::param(
                switch::circuit_until_ack,
                "circuits held until the acknowledgement (coll03) are modelled by the simple router only",
            ));
        }
        let cycle = self.flit_ps();
        let delays = [
            (switch::routing_delay, s.routing_delay),
            (switch::va_delay, s.va_delay),
            (switch::sa_delay, s.sa_delay),
            (switch::crossbar_delay, s.crossbar_delay),
            (switch::credit_delay, s.credit_delay),
            (link::propagation, self.link.propagation),
        ];
        for (key, t) in delays {
            if t.ps() % cycle != 0 {
                return Err(SimError::param(
                    key,
                    format!(
                        "{t} is not a whole number of cycles; the iq router's cycle is one flit time ({})",
                        Time(cycle)
                    ),
                ));
            }
        }
        // What is on its way (flits, credits) is filed in a ring with one slot per cycle of the
        // longest delay (`net::iq::wheel`): a link of seconds would ask for terabytes.
        let parts = [
            (switch::sa_delay, s.sa_delay.ps()),
            (switch::crossbar_delay, s.crossbar_delay.ps()),
            (link::propagation, self.longest_propagation_ps().saturating_mul(2)),
            (switch::credit_delay, s.credit_delay.ps()),
        ];
        let span = parts.iter().fold(0u64, |a, (_, ps)| a.saturating_add(ps / cycle)).saturating_add(3);
        if span > MAX_IQ_SPAN_CYCLES {
            let (key, _) = parts.iter().max_by_key(|(_, ps)| *ps).copied().unwrap_or((link::propagation, 0));
            return Err(SimError::param(
                key,
                format!(
                    "the iq router's delays span {span} cycles of {} (most of it {key}); it keeps a slot per \
                     cycle of its longest delay and takes at most {MAX_IQ_SPAN_CYCLES}",
                    Time(cycle)
                ),
            ));
        }
        Ok(())
    }
}

/// The longest span, in cycles, of the iq router's delays (SA and crossbar, a link both ways, the
/// credit delay): its timing wheel takes 48 bytes per cycle of it, so about 50 MB at this bound
/// (1 ms of propagation at 1 ns flits).
const MAX_IQ_SPAN_CYCLES: u64 = 1 << 20;
