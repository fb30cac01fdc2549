//! The step model of sivaram98 §4: one *step* is one packet going from one NI to another (sender
//! NI overhead, network, receiver NI overhead). An NI sends one packet per step, in a fixed order:
//! per packet then per child (FPFS), per child then per packet (FCFS, and host-level forwarding,
//! which additionally waits for the whole message). A packet sent in step `x` is available at the
//! receiver from step `x + 1` on. This reproduces the paper's examples exactly (Fig. 7: binomial 6
//! steps, linear 5; Fig. 8: 9 steps; Theorem 2: L1 + (m − 1)·δr under FPFS).

use super::budget::PlanBudget;
use super::{Discipline, Plan, Trigger};
use crate::error::PlanError;
use crate::ids::EndpointId;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// One NI packet send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Send {
    pub transmission: u32,
    /// Packet number, 0-based.
    pub packet: u32,
    /// The step it occupies (1-based).
    pub step: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepResult {
    /// Step in which the last packet reaches the last destination.
    pub completion: u64,
    /// Every send, in transmission and packet order.
    pub sends: Vec<Send>,
    /// Per destination, the step its last packet arrives.
    pub arrival: Vec<(EndpointId, u64)>,
}

/// Runs the step model over a plan, within the default [`PlanBudget`].
pub fn steps(plan: &Plan) -> Result<StepResult, PlanError> {
    steps_within(plan, &PlanBudget::default())
}

/// Whether `plan`'s forwarding order can be followed (no sender waits on itself), its sends
/// within `budget`: [`steps_within`] without keeping the schedule. A plan whose transmissions all
/// start at the source (every unicast, source-driven multicasts) has no forwarding dependency, so
/// only the budget is checked: only a forwarding trigger can close a cycle, the previous send of
/// one NI never does. The simulator checks every template it builds this way.
pub fn order_within(plan: &Plan, budget: &PlanBudget) -> Result<(), PlanError> {
    if plan.transmissions.iter().all(|t| t.trigger == Trigger::Start) {
        return budget.admit_steps(plan);
    }
    steps_within(plan, budget).map(|_| ())
}

/// Runs the step model over a plan after checking that its sends fit `budget` (it allocates a few
/// words per packet send, and a plan's `packets` field can ask for billions).
pub fn steps_within(plan: &Plan, budget: &PlanBudget) -> Result<StepResult, PlanError> {
    budget.admit_steps(plan)?;
    let m = plan.packets as usize;
    let nt = plan.transmissions.len();
    let id = |t: usize, j: usize| t * m + j;
    // The send order of each sender's NI.
    let mut by_sender: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, t) in plan.transmissions.iter().enumerate() {
        by_sender.entry(t.sender.0).or_default().push(i);
    }
    let mut prev_in_seq: Vec<Option<usize>> = vec![None; nt * m];
    for list in by_sender.values() {
        let mut seq = Vec::with_capacity(list.len() * m);
        match plan.discipline {
            Discipline::NiFpfs => {
                for j in 0..m {
                    for &t in list {
                        seq.push(id(t, j));
                    }
                }
            }
            Discipline::NiFcfs | Discipline::Host => {
                for &t in list {
                    for j in 0..m {
                        seq.push(id(t, j));
                    }
                }
            }
        }
        for w in seq.windows(2) {
            prev_in_seq[w[1]] = Some(w[0]);
        }
    }
    // Dependencies: the previous send of the same NI, and the packet's availability.
    let avail_dep = |t: usize, j: usize| -> Option<usize> {
        match plan.transmissions[t].trigger {
            Trigger::Start => None,
            Trigger::PerPacket { from } => Some(id(from as usize, j)),
            Trigger::AfterMessage { from } => Some(id(from as usize, m - 1)),
        }
    };
    let total = nt * m;
    let mut indeg = vec![0u32; total];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); total];
    for t in 0..nt {
        for j in 0..m {
            let s = id(t, j);
            for d in [prev_in_seq[s], avail_dep(t, j)].into_iter().flatten() {
                indeg[s] += 1;
                succ[d].push(s);
            }
        }
    }
    let mut time = vec![0u64; total];
    let mut q: VecDeque<usize> = (0..total).filter(|&s| indeg[s] == 0).collect();
    let mut done = 0;
    while let Some(s) = q.pop_front() {
        done += 1;
        let (t, j) = (s / m, s % m);
        let after_prev = prev_in_seq[s].map(|p| time[p]).unwrap_or(0);
        let available = avail_dep(t, j).map(|d| time[d]).unwrap_or(0);
        time[s] = after_prev.max(available) + 1;
        for &n in &succ[s] {
            indeg[n] -= 1;
            if indeg[n] == 0 {
                q.push_back(n);
            }
        }
    }
    if done != total {
        return Err(PlanError::Invalid {
            transmission: 0,
            message: "the plan's forwarding order waits on itself (cyclic dependency between senders)".into(),
        });
    }
    let mut arrival: BTreeMap<EndpointId, u64> = BTreeMap::new();
    for (t, tr) in plan.transmissions.iter().enumerate() {
        for d in &tr.delivers {
            let a = arrival.entry(*d).or_insert(0);
            *a = (*a).max(time[id(t, m - 1)]);
        }
    }
    let completion = arrival.values().copied().max().unwrap_or(0);
    let sends =
        (0..total).map(|s| Send { transmission: (s / m) as u32, packet: (s % m) as u32, step: time[s] }).collect();
    Ok(StepResult { completion, sends, arrival: arrival.into_iter().collect() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::EndpointId;
    use crate::schemes::testing::{plan_from_0, torus};

    /// Fuzzing regression: a plan file with `"packets": 4294967295` made the step model allocate
    /// 200 GB (the process aborted); it is now refused by the plan budget before allocating.
    #[test]
    fn packet_counts_past_the_budget_are_refused_not_allocated() {
        let (f, r) = torus();
        let mut plan = plan_from_0(&f, &*r, "binomial", &[1, 2, 3].map(EndpointId), 4, Discipline::NiFpfs).unwrap();
        assert!(steps(&plan).is_ok());
        plan.packets = u32::MAX;
        let err = steps(&plan).unwrap_err().to_string();
        assert!(err.contains("packet sends") && err.contains("budget"), "{err}");
    }

    /// `order_within` answers as the step model does: every scheme's plan on the torus passes
    /// both (with and without forwarding triggers), a plan of two NIs each forwarding the other's
    /// packets fails both, and the budget applies to a plan that skips the step model.
    #[test]
    fn the_order_check_agrees_with_the_step_model() {
        let (f, r) = torus();
        let dests = [1, 2, 3, 5, 8].map(EndpointId);
        let budget = PlanBudget::default();
        let (mut start_only, mut forwarding) = (0, 0);
        for scheme in crate::schemes::SCHEMES.iter().map(|s| s.name) {
            for d in [Discipline::NiFpfs, Discipline::NiFcfs, Discipline::Host] {
                let Ok(plan) = plan_from_0(&f, &*r, scheme, &dests, 3, d) else { continue };
                assert!(steps_within(&plan, &budget).is_ok(), "{scheme}");
                assert!(order_within(&plan, &budget).is_ok(), "{scheme}");
                if plan.transmissions.iter().all(|t| t.trigger == Trigger::Start) {
                    start_only += 1;
                } else {
                    forwarding += 1;
                }
            }
        }
        assert!(start_only > 0 && forwarding > 0, "{start_only} start-only, {forwarding} forwarding plans");
        let mut plan = plan_from_0(&f, &*r, "binomial", &dests, 3, Discipline::NiFpfs).unwrap();
        let t = plan.transmissions.iter().position(|t| t.trigger != Trigger::Start).expect("binomial forwards");
        let Trigger::PerPacket { from } = plan.transmissions[t].trigger else { panic!("an NI-level plan") };
        // The forwarder's source now waits on the forwarder: a cycle.
        plan.transmissions[from as usize].trigger = Trigger::PerPacket { from: t as u32 };
        let cyc = steps_within(&plan, &budget).unwrap_err().to_string();
        assert!(cyc.contains("waits on itself"), "{cyc}");
        assert_eq!(order_within(&plan, &budget).unwrap_err().to_string(), cyc);
        let mut big = plan_from_0(&f, &*r, "separate", &dests, 3, Discipline::NiFpfs).unwrap();
        assert!(big.transmissions.iter().all(|t| t.trigger == Trigger::Start));
        big.packets = u32::MAX;
        assert_eq!(
            order_within(&big, &budget).unwrap_err().to_string(),
            steps_within(&big, &budget).unwrap_err().to_string()
        );
    }
}
