//! The messages of a workload, in creation order — each sender's arrival times and destinations,
//! drawn from its own random streams — and the templates that carry them, built once per distinct
//! (source, destinations) pair.

use super::shape::Shape;
use super::templates::Templates;
use super::{Inject, Process, Traffic, Workload};
use crate::error::SimError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use crate::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use crate::rng;
use crate::routing::Routing;
use crate::schemes::{self, SchemeInput};
use crate::sim::engine::Simulation;
use crate::sim::ids::TemplateId;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// The plan of a packet a source sends to itself (uniform traffic with `self=1`): one unicast
/// that goes through the source's own switch and back. Built here rather than by
/// `Plan::from_transmissions`, which refuses a source among its destinations (a multicast plan
/// never needs one); every other check it makes holds trivially for a single unicast.
fn self_addressed(f: &Fabric, src: EndpointId, packets: u32, discipline: Discipline) -> Plan {
    Plan {
        format: crate::plan::PLAN_FORMAT.into(),
        version: crate::plan::PLAN_VERSION,
        scheme: "unicast".into(),
        fabric: f.name().to_string(),
        source: src,
        destinations: vec![src],
        packets,
        discipline,
        transmissions: vec![Transmission {
            sender: src,
            trigger: Trigger::Start,
            carrier: Carrier::Unicast { dst: src },
            delivers: vec![src],
        }],
        switch_state: Default::default(),
    }
}

/// The messages due at one instant (`Generator::take_due`): a list the driver keeps and reuses,
/// so creating a message allocates nothing for its destinations.
#[derive(Default)]
pub(crate) struct Due {
    /// Per message, in creation order: its sender and the end of its destinations in `dests`.
    msgs: Vec<(u32, u32)>,
    /// Every message's destinations (sorted within each), one after another.
    dests: Vec<u32>,
}

impl Due {
    /// Messages due.
    pub(crate) fn len(&self) -> usize {
        self.msgs.len()
    }

    /// Message `k`: its sender and destinations.
    pub(crate) fn get(&self, k: usize) -> (u32, &[u32]) {
        let start = if k == 0 { 0 } else { self.msgs[k - 1].1 as usize };
        let (s, end) = self.msgs[k];
        (s, &self.dests[start..end as usize])
    }
}

/// A sender's next message, (time, sender index), as one number ordered as the pair is: the
/// generator's heap compares these once per level rather than pairs field by field.
fn due_key(time: u64, sender: u32) -> u128 {
    (time as u128) << 32 | sender as u128
}

/// The (time, sender index) of a [`due_key`].
fn due_of(k: u128) -> (u64, u32) {
    ((k >> 32) as u64, k as u32)
}

/// How a sender's arrival times are drawn: its process and the constants of its draws.
struct Draws {
    process: Process,
    cycle_ps: u64,
    rate_per_ps: f64,
    /// Bernoulli: the probability of a message in one cycle.
    p: f64,
    /// Bernoulli: `ln(1 - p)`, the divisor of every geometric draw, computed once (the value
    /// each draw computed before).
    ln_q: f64,
}

impl Draws {
    fn new(process: Process, shape: &Shape) -> Draws {
        let p = shape.rate_per_ps * shape.cycle_ps as f64;
        Draws { process, cycle_ps: shape.cycle_ps, rate_per_ps: shape.rate_per_ps, p, ln_q: (-p).ln_1p() }
    }

    /// A sender's next arrival after `prev` (or its first), from its stream `rng`.
    fn after(&self, rng: &mut ChaCha8Rng, prev: Option<u64>) -> Option<u64> {
        match self.process {
            Process::Bernoulli => {
                // The number of failed cycles before the next success is geometric: drawn at once
                // by inversion, so a long run at a low load costs one draw per message.
                let cycle = self.cycle_ps;
                let first = prev.map_or(0, |t| t / cycle + 1);
                let skip = if self.p >= 1.0 {
                    0
                } else {
                    // `as` rounds toward zero and saturates, so it is the floor here (the
                    // quotient is never below zero but for -0.0, which both map to 0) without
                    // the call `floor` costs on a target without SSE4.1.
                    let u = 1.0 - rng.random::<f64>();
                    (u.ln() / self.ln_q) as u64
                };
                first.checked_add(skip)?.checked_mul(cycle)
            }
            Process::Poisson => {
                let u: f64 = rng.random::<f64>();
                let gap = -(1.0 - u).ln() / self.rate_per_ps;
                let t = prev.unwrap_or(0) as f64 + gap.round();
                (t < 1.8e19).then_some(t as u64)
            }
        }
    }
}

/// The messages of a workload, in creation order, and the templates that carry them (`templates.rs`).
pub(crate) struct Generator {
    pub shape: Shape,
    traffic: Traffic,
    scheme: String,
    discipline: Discipline,
    /// Burst: messages per sender; load: `None`.
    burst: Option<u32>,
    /// How arrival times are drawn.
    draws: Draws,
    arrivals: Vec<ChaCha8Rng>,
    dests: Vec<ChaCha8Rng>,
    /// (time, sender index) of every sender's next message, as one number ([`due_key`]).
    next: BinaryHeap<Reverse<u128>>,
    /// The templates built so far, by (source, destinations).
    templates: Templates,
}

impl Generator {
    /// The messages of `w` on `shape`, drawn from `seed`'s streams, keeping up to `keep`
    /// templates once their messages are done (`limits.kept_templates`).
    pub(crate) fn new(shape: Shape, w: &Workload, seed: u64, keep: Option<u64>) -> Generator {
        let k = shape.senders.len();
        let n = shape.n as usize;
        let stream = |what: &str, s: u32| rng::stream(seed, what, s as u64);
        let (burst, process) = match &w.inject {
            Inject::Burst { count } => (Some(*count), Process::Bernoulli),
            Inject::Load { process, .. } => (None, *process),
        };
        let mut g = Generator {
            arrivals: shape.senders.iter().map(|&s| stream("arrivals", s)).collect(),
            dests: shape.senders.iter().map(|&s| stream("destinations", s)).collect(),
            draws: Draws::new(process, &shape),
            shape,
            traffic: w.traffic.clone(),
            scheme: w.scheme.clone(),
            discipline: w.discipline,
            burst,
            next: BinaryHeap::new(),
            templates: Templates::new(n, keep),
        };
        for i in 0..k as u32 {
            if g.burst.is_some() {
                g.next.push(Reverse(due_key(0, i)));
            } else if let Some(t) = g.draws.after(&mut g.arrivals[i as usize], None) {
                g.next.push(Reverse(due_key(t, i)));
            }
        }
        g
    }

    /// Whether every sender creates its messages at once (`count=N`).
    pub(crate) fn burst(&self) -> bool {
        self.burst.is_some()
    }

    /// The time of the next message, if any.
    pub(crate) fn peek(&self) -> Option<u64> {
        self.next.peek().map(|&Reverse(k)| due_of(k).0)
    }

    /// Takes every message due at `t` (in sender order, a burst round by round) into `out`,
    /// emptied first.
    pub(crate) fn take_due(&mut self, t: u64, out: &mut Due) {
        out.msgs.clear();
        out.dests.clear();
        if let Some(count) = self.burst {
            let order: Vec<u32> = std::iter::from_fn(|| self.next.pop().map(|Reverse(k)| due_of(k).1)).collect();
            for _ in 0..count {
                for &i in &order {
                    self.push_due(i, out);
                }
            }
            return;
        }
        // The sender's entry is replaced in place by its next arrival (one sift instead of a
        // pop and a push); the heap's order, and so the senders', is the same.
        loop {
            let Some(mut top) = self.next.peek_mut() else { break };
            let (at, i) = due_of(top.0);
            if at != t {
                break;
            }
            match self.draws.after(&mut self.arrivals[i as usize], Some(t)) {
                Some(next) => {
                    *top = Reverse(due_key(next, i));
                    drop(top);
                }
                None => drop(PeekMut::pop(top)),
            }
            self.push_due(i, out);
        }
    }

    /// Sender `i`'s next message, drawn now, at the end of `out`.
    fn push_due(&mut self, i: u32, out: &mut Due) {
        let s = self.shape.senders[i as usize];
        self.traffic.destinations(s, &self.shape, &mut self.dests[i as usize], &mut out.dests);
        out.msgs.push((s, out.dests.len() as u32));
    }

    /// The plan carrying a message from `source` to `dests` (built once per distinct pair).
    pub(crate) fn plan(&self, f: &Fabric, r: &dyn Routing, source: u32, dests: &[u32]) -> Result<Plan, SimError> {
        let src = EndpointId(source);
        let d: Vec<EndpointId> = dests.iter().map(|&e| EndpointId(e)).collect();
        if self.traffic.entry().unicast {
            if dests == [source] {
                return Ok(self_addressed(f, src, self.shape.packets, self.discipline));
            }
            let t = Transmission {
                sender: src,
                trigger: Trigger::Start,
                carrier: Carrier::Unicast { dst: d[0] },
                delivers: d.clone(),
            };
            return Ok(Plan::from_transmissions(f, "unicast", src, d, self.shape.packets, self.discipline, vec![t])?);
        }
        let input = SchemeInput {
            fabric: f,
            routing: r,
            source: src,
            destinations: &d,
            packets: self.shape.packets,
            discipline: self.discipline,
        };
        Ok(schemes::plan(&input, &self.scheme)?)
    }

    /// The template for (`source`, `dests`) in `sim`, built on first use.
    pub(crate) fn template(
        &mut self,
        sim: &mut Simulation<'_>,
        f: &Fabric,
        r: &dyn Routing,
        source: u32,
        dests: &[u32],
    ) -> Result<TemplateId, SimError> {
        if let Some(t) = self.templates.get(source, dests) {
            return Ok(t);
        }
        let plan = self.plan(f, r, source, dests)?;
        let t = sim.add_template(r, &plan)?;
        self.templates.insert(source, dests, t);
        Ok(t)
    }

    /// Templates built and recycled so far.
    pub(crate) fn templates(&self) -> (u64, u64) {
        self.templates.counts()
    }

    /// Messages of templates `done` finished. While more templates are cached than
    /// `limits.kept_templates`, each of them that no message uses any more is recycled by the
    /// engine and forgotten here, so the next message of that pair builds its template again.
    pub(crate) fn finished(&mut self, sim: &mut Simulation<'_>, done: &[TemplateId]) {
        self.templates.finished(sim, done);
    }
}
