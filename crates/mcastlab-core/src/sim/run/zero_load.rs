//! The zero-load latency of a workload: the saturation rule's yardstick.

use crate::error::SimError;
use crate::fabric::Fabric;
use crate::routing::Routing;
use crate::sim::engine::Simulation;
use crate::sim::measure::mean;
use crate::sim::params::Params;
use crate::sim::workload::{Due, Generator, Inject, Shape, Workload};

/// Messages whose alone-latency estimates the zero-load latency: 16 for a load (whose limit it
/// scales), 4 for a one-shot workload (reported only).
const ZERO_LOAD_SAMPLES: [usize; 2] = [16, 4];

/// What the run's first messages, each alone on an empty network, show about the workload.
#[derive(Clone, Copy, Debug)]
pub(super) struct ZeroLoad {
    /// Mean latency: the yardstick the saturation rule scales (`None` when none was delivered).
    pub latency_ps: Option<f64>,
    /// Mean flit hops of one message: the run's work per message, whatever the granularity its
    /// alone-runs were simulated at (packet trains count the same hops in fewer events).
    pub flit_hops: f64,
}

/// Runs the run's first messages (the same draws as the run's), each alone on an empty network.
/// Also builds a first plan, so a scheme that cannot serve the workload fails here, before the
/// run.
pub(super) fn zero_load(
    f: &Fabric,
    r: &dyn Routing,
    w: &Workload,
    shape: &Shape,
    params: &Params,
    seed: u64,
) -> Result<ZeroLoad, SimError> {
    let mut g = Generator::new(shape.clone(), w, seed, None);
    let k = ZERO_LOAD_SAMPLES[matches!(w.inject, Inject::Burst { .. }) as usize];
    let mut msgs = Vec::new();
    let mut due = Due::default();
    while msgs.len() < k {
        let Some(t) = g.peek() else { break };
        g.take_due(t, &mut due);
        msgs.extend((0..due.len()).map(|i| due.get(i)).map(|(s, d)| (s, d.to_vec())));
    }
    msgs.truncate(k);
    msgs.sort();
    msgs.dedup();
    let mut sum = 0.0;
    let mut n = 0u64;
    let (mut hops, runs) = (0u64, msgs.len());
    for (src, dests) in msgs {
        let plan = g.plan(f, r, src, &dests)?;
        let res = Simulation::new(f, r, &plan, params, shape.message_bytes, seed)?.run();
        hops += res.flit_hops;
        if let Some(c) = res.completion_ps {
            sum += c as f64;
            n += 1;
        }
    }
    Ok(ZeroLoad { latency_ps: mean(sum, n), flit_hops: mean(hops as f64, runs as u64).unwrap_or(0.0) })
}
