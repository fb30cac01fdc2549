//! Which granularity a run simulates the network at (`switch.granularity`): `packet` is refused
//! where trains would not be exact, `auto` picks trains where they are and flits elsewhere, and a
//! flit trace always needs flits.
//!
//! The conditions for exact trains, and why each is needed: the simple router (the iq router
//! moves flits cycle by cycle); cut-through or store-and-forward (a wormhole packet may stall
//! with its flits spread over several switches); no circuits held until acknowledgements (they
//! hold VCs past the tail); a routing delay and a credit delay (`link.propagation +
//! switch.credit_delay`) above zero (otherwise a decode or a credit lands inside the link events
//! of the instant that caused it, whose order trains do not keep: `train.rs`); every hop of the
//! plan on VC 0 (two VCs share a link flit by flit, round robin); no Quadrics range multicasts
//! (their all-or-nothing requests for several VCs are left to the flit engine); credits back
//! within the shortest packet's serialization (the flit engine looks again for room at every
//! credit's return while a packet waits, and such a look must never be its last event, whose
//! time is `end_ps`); no flit trace; a single-plan run (workloads are left to the flit engine).
//! Links all have `link.bandwidth` and NIs drain their links at line rate, so equal rates and
//! ejection without back-pressure always hold in this simulator.

use super::engine::Simulation;
use super::params::Granularity;
use super::train::Trains;
use super::units::Time;
use crate::error::SimError;
use crate::plan::Carrier;

impl Simulation<'_> {
    /// Packet trains when `switch.granularity` asks for them and they are exact for this run;
    /// `packet` on a run where they are not is an error naming the key.
    pub(crate) fn choose_granularity(&mut self) -> Result<(), SimError> {
        let want = self.params.switch.granularity;
        if want == Granularity::Flit {
            return Ok(());
        }
        match self.packet_trains_unfit() {
            None => self.set_trains(true),
            Some(why) if want == Granularity::Packet => {
                return Err(SimError::param("switch.granularity", format!("packet trains would not be exact: {why}")))
            }
            Some(_) => self.set_trains(false),
        }
        Ok(())
    }

    /// Switches the (fresh) run to packet trains or back to flits.
    fn set_trains(&mut self, on: bool) {
        let p = &self.params;
        let zero = |t: Time| t.ps() == 0;
        self.timing.packet = on;
        self.timing.instant_endpoints = on
            && zero(p.host.t_hs)
            && zero(p.host.t_hr)
            && zero(p.ni.t_ns)
            && zero(p.ni.t_nr)
            && p.ni.dma_bandwidth.is_unlimited();
        self.pk = if on { Trains::new(self.outvcs.len()) } else { Trains::default() };
    }

    /// The granularity this run simulates the network at now (`auto` resolved).
    pub fn granularity(&self) -> Granularity {
        if self.timing.packet {
            Granularity::Packet
        } else {
            Granularity::Flit
        }
    }

    /// At packet granularity: whether another buffer reached the largest occupancy at the same
    /// instant as `max_buffer_at` (the flit engine would name the one whose event ran first).
    pub fn max_buffer_tied(&self) -> bool {
        self.pk.max_tied
    }

    /// Starts the plan run over, flit by flit, for a flit trace. The static program (trees,
    /// templates) is kept.
    pub(crate) fn restart_at_flit_level(&mut self) {
        let trees = std::mem::take(&mut self.trees);
        let prog = std::mem::take(&mut self.prog);
        let trace = self.trace.take();
        let plan = self.plan;
        let iq = self.iq.take();
        let fresh =
            Simulation::fresh(self.f, self.routing_spec.clone(), iq, &self.params, self.message_bytes, self.seed);
        *self = fresh;
        self.trees = trees;
        self.prog = prog;
        self.trace = trace;
        self.plan = plan;
        self.start_message(0);
    }

    /// Why this run cannot use exact packet trains, or `None`: the parameters' conditions, then
    /// the plan's (every hop on VC 0, no range multicasts) and the run's (no flit trace).
    pub fn packet_trains_unfit(&self) -> Option<String> {
        if let Some(why) = self.params.packet_trains_unfit() {
            return Some(why);
        }
        // The flit engine looks again for room at every credit's return while a packet waits; such
        // a look comes at most `credit` after the waiting packet is granted, before that packet's
        // link is done with it only if credits return within the shortest packet's serialization.
        let shortest = self.params.flits_for(self.params.packet_bytes(self.message_bytes, self.m - 1)) as u64;
        if self.timing.credit > shortest * self.timing.flit {
            return Some(format!(
                "credits return after {} ps (link.propagation + switch.credit_delay), later than the shortest \
                 packet ({shortest} flits) takes to send ({} ps)",
                self.timing.credit,
                shortest * self.timing.flit
            ));
        }
        if self.trees.nodes.iter().any(|n| n.vc != 0) {
            return Some("the plan uses more than one VC on a link, whose flits would interleave".into());
        }
        if self.plan.is_some_and(|p| p.transmissions.iter().any(|t| matches!(t.carrier, Carrier::Range { .. }))) {
            return Some("range multicasts ask for all their output VCs at once (left to the flit engine)".into());
        }
        if self.trace.is_some() {
            return Some("a flit trace is being recorded".into());
        }
        None
    }
}
