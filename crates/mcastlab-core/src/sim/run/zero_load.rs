//! The zero-load latency of a workload: the saturation rule's yardstick.

use crate::error::SimError;
use crate::fabric::Fabric;
use crate::routing::Routing;
use crate::sim::engine::Simulation;
use crate::sim::measure::mean;
use crate::sim::params::Params;
use crate::sim::workload::{Generator, Inject, Shape, Workload};

/// Messages whose alone-latency estimates the zero-load latency: 16 for a load (whose limit it
/// scales), 4 for a one-shot workload (reported only).
const ZERO_LOAD_SAMPLES: [usize; 2] = [16, 4];

/// Mean latency of the run's first messages (the same draws as the run's), each run alone on an
/// empty network: the zero-load latency the saturation rule scales. Also builds a first plan,
/// so a scheme that cannot serve the workload fails here, before the run.
pub(super) fn zero_load(
    f: &Fabric,
    r: &dyn Routing,
    w: &Workload,
    shape: &Shape,
    params: &Params,
    seed: u64,
) -> Result<Option<f64>, SimError> {
    let mut g = Generator::new(shape.clone(), w, seed);
    let k = ZERO_LOAD_SAMPLES[matches!(w.inject, Inject::Burst { .. }) as usize];
    let mut msgs = Vec::new();
    while msgs.len() < k {
        let Some(t) = g.peek() else { break };
        msgs.extend(g.take_due(t));
    }
    msgs.truncate(k);
    msgs.sort();
    msgs.dedup();
    let mut sum = 0.0;
    let mut n = 0u64;
    for (src, dests) in msgs {
        let plan = g.plan(f, r, src, &dests)?;
        let res = Simulation::new(f, r, &plan, params, shape.message_bytes, seed)?.run();
        if let Some(c) = res.completion_ps {
            sum += c as f64;
            n += 1;
        }
    }
    Ok(mean(sum, n))
}
