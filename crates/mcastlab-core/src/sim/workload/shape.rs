//! The shape of a workload on one fabric with one set of parameters: message size in packets and
//! flits, who sends to how many, and the message rate a load gives.

use super::spec::param;
use super::{Inject, Load, Process, Workload};
use crate::error::SimError;
use crate::fabric::Fabric;
use crate::sim::params::Params;

/// Validated sizes and rates of a workload on one fabric with one set of parameters.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub n: u32,
    pub message_bytes: u64,
    pub packets: u32,
    /// Flits of one copy of the message (all its packets).
    pub flits: u64,
    /// Cycle = one flit time, ps.
    pub cycle_ps: u64,
    pub senders: Vec<u32>,
    /// many_to_many's group (sorted), or empty.
    pub group: Vec<u32>,
    /// Destinations per message of each sender, in `senders` order.
    pub fanout: Vec<u64>,
    /// Messages per picosecond per sender (load workloads), and the nominal load in
    /// flits/cycle/endpoint.
    pub rate_per_ps: f64,
    pub load: f64,
}

impl Shape {
    /// Checks the workload against the fabric and parameters; every bad value is an error naming
    /// its parameter, raised before anything is simulated.
    pub(crate) fn new(f: &Fabric, w: &Workload, params: &Params, seed: u64) -> Result<Shape, SimError> {
        params.validate_on(f)?;
        let n = f.num_endpoints() as u32;
        if n < 2 {
            return Err(param("workload", "a workload needs at least two endpoints"));
        }
        let message_bytes = w.message_bytes.unwrap_or(params.link.mtu_bytes as u64);
        params.check_message_bytes(message_bytes)?;
        let packets = params.packets_for(message_bytes);
        let flits = (0..packets).map(|j| params.flits_for(params.packet_bytes(message_bytes, j)) as u64).sum();
        let (senders, group, fanout) = w.traffic.who(n, seed)?;
        let mut s = Shape {
            n,
            message_bytes,
            packets,
            flits,
            cycle_ps: params.flit_ps(),
            senders,
            group,
            fanout,
            rate_per_ps: 0.0,
            load: 0.0,
        };
        if let Inject::Burst { count: 0 } = w.inject {
            return Err(param("count", "at least one message per sender"));
        }
        if let Inject::Load { load, process } = &w.inject {
            s.set_rate(*load, *process)?;
        }
        Ok(s)
    }

    /// Per-sender message rate for `load`: N·load flits per cycle delivered in all, split evenly
    /// over the senders, each message delivering fanout·F flits.
    fn set_rate(&mut self, load: Load, process: Process) -> Result<(), SimError> {
        let cycle = self.cycle_ps as f64;
        let per_cycle = match load {
            Load::FlitsPerCycle(x) => x,
            // bytes/s → flits per cycle: rate·cycle (s) / 8 bits, scaled by flits per byte.
            Load::Rate(r) => {
                r.bits_per_s() as f64 / 8.0 * cycle * 1e-12 * self.flits as f64 / self.message_bytes.max(1) as f64
            }
        };
        if !(per_cycle > 0.0 && per_cycle.is_finite()) {
            return Err(param("load", format!("{per_cycle} flits/cycle/endpoint: a load must be positive")));
        }
        let delivered_per_message: f64 =
            self.fanout.iter().sum::<u64>() as f64 / self.senders.len() as f64 * self.flits as f64;
        let per_sender_per_cycle = per_cycle * self.n as f64 / self.senders.len() as f64 / delivered_per_message;
        if process == Process::Bernoulli && per_sender_per_cycle > 1.0 {
            return Err(param(
                "load",
                format!(
                    "{per_cycle} flits/cycle/endpoint needs {per_sender_per_cycle:.3} messages per cycle per sender; \
                     Bernoulli arrivals allow at most 1 (use process=poisson or larger messages)"
                ),
            ));
        }
        self.load = per_cycle;
        self.rate_per_ps = per_sender_per_cycle / cycle;
        Ok(())
    }
}
