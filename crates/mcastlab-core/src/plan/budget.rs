//! What the step model and the plan check may spend, estimated from the plan *before* anything is
//! allocated for it.
//!
//! Both work per packet send (transmissions × packets): the step model keeps a few words per send,
//! and the check counts every send on every channel of its carrier's tree, per step. A plan is
//! small on disk whatever its `packets` field says, so a plan of 2^32 − 1 packets (or `mcastlab
//! plan -m 1000000000`) would ask for hundreds of GiB; it is refused with the estimate instead.
//! The budgets are the ones the rest of mcastlab already has: the work budget of the exhaustive
//! checks (`--max-work`, [`crate::check::CheckOptions::max_work`]) and the memory budget of a run
//! (`limits.max_memory`, whose default is [`DEFAULT_MAX_MEMORY`]).

use super::Plan;
use crate::check::CheckOptions;
use crate::error::PlanError;

/// The memory a simulator run or a plan check may use by default, in bytes (`limits.max_memory`):
/// 4 GiB, so that a gigabyte message on a small fabric is refused before it exhausts a laptop.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// Bytes the step model and the check's per-send records hold per packet send. Measured with the
/// peak RSS of `Plan.check()`: a binomial broadcast on `mesh:4x4` (3,000,000 sends, 10,000,000
/// link visits) took 551 MB, separate addressing to three far corners of `mesh:8x8` (600,000
/// sends, 9,200,000 visits) 406 MB; 48 bytes per send and [`CHECK_BYTES_PER_VISIT`] per visit fit
/// both from below, so an estimate over the budget is never a false alarm.
pub const STEP_BYTES_PER_SEND: u64 = 48;

/// Bytes the check holds per link visit (a send on one channel: its per-step contention count).
/// See [`STEP_BYTES_PER_SEND`] for the measurement.
pub const CHECK_BYTES_PER_VISIT: u64 = 40;

/// The limits a step model or plan check runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanBudget {
    /// Work units (packet sends and link visits) at most; `--max-work`.
    pub max_work: u64,
    /// Bytes at most; `None` lifts the limit (`limits.max_memory=none`).
    pub max_memory: Option<u64>,
}

impl Default for PlanBudget {
    fn default() -> Self {
        PlanBudget { max_work: CheckOptions::default().max_work, max_memory: Some(DEFAULT_MAX_MEMORY) }
    }
}

impl PlanBudget {
    /// Refuses `what` on `plan` (the step model, the plan check) when its `work` units or `bytes`
    /// exceed the budget; the error names the budget, the plan's size and the estimate.
    pub fn admit(&self, what: &str, plan: &Plan, work: u64, bytes: u64) -> Result<(), PlanError> {
        // Written only for a refusal: a workload admits every template it builds, and formatting
        // the sizes each time was a sixth of building a unicast template.
        let size = || {
            format!(
                "{what} of {} packet(s) × {} transmission(s) ({} packet sends)",
                grouped(plan.packets as u64),
                grouped(plan.transmissions.len() as u64),
                grouped(sends(plan))
            )
        };
        if work > self.max_work {
            return Err(PlanError::Param {
                param: "max_work",
                message: format!(
                    "{} is {} work units, more than the budget of {} (--max-work): use fewer packets, or raise it",
                    size(),
                    grouped(work),
                    grouped(self.max_work)
                ),
            });
        }
        match self.max_memory {
            Some(max) if bytes > max => Err(PlanError::Param {
                param: "limits.max_memory",
                message: format!(
                    "{} needs about {}, more than the budget of {} (limits.max_memory): use fewer packets",
                    size(),
                    gib(bytes),
                    gib(max)
                ),
            }),
            _ => Ok(()),
        }
    }

    /// [`PlanBudget::admit`] for the step model alone: one unit of work and
    /// [`STEP_BYTES_PER_SEND`] bytes per send.
    pub fn admit_steps(&self, plan: &Plan) -> Result<(), PlanError> {
        let n = sends(plan);
        self.admit("the step model", plan, n, n.saturating_mul(STEP_BYTES_PER_SEND))
    }
}

/// Packet sends of a plan: every transmission sends every packet once.
pub fn sends(plan: &Plan) -> u64 {
    plan.transmissions.len() as u64 * plan.packets as u64
}

/// `1234567` as `1,234,567` (also for the simulator's run estimates).
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in GiB with one decimal (`0.5 GiB`, `745.1 GiB`).
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::EndpointId;
    use crate::plan::{Carrier, Discipline, Transmission, Trigger};

    fn plan(transmissions: usize, packets: u32) -> Plan {
        let t = Transmission {
            sender: EndpointId(0),
            trigger: Trigger::Start,
            carrier: Carrier::Unicast { dst: EndpointId(1) },
            delivers: vec![EndpointId(1)],
        };
        Plan {
            format: super::super::PLAN_FORMAT.into(),
            version: super::super::PLAN_VERSION,
            scheme: "custom".into(),
            fabric: "f".into(),
            source: EndpointId(0),
            destinations: vec![EndpointId(1)],
            packets,
            discipline: Discipline::NiFpfs,
            transmissions: vec![t; transmissions],
            switch_state: Default::default(),
        }
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(4_294_967_295), "4,294,967,295");
    }

    #[test]
    fn a_huge_packet_count_is_refused_naming_the_memory_budget() {
        // 2^32 − 1 packets × 3 transmissions: about 576 GiB for the step model alone.
        let p = plan(3, u32::MAX);
        let b = PlanBudget { max_work: u64::MAX, max_memory: Some(DEFAULT_MAX_MEMORY) };
        let e = b.admit_steps(&p).unwrap_err().to_string();
        assert!(e.starts_with("parameter `limits.max_memory`: the step model of 4,294,967,295 packet(s) × 3"), "{e}");
        assert!(e.contains("needs about 576.0 GiB, more than the budget of 4.0 GiB"), "{e}");
    }

    #[test]
    fn work_is_refused_before_memory_and_names_max_work() {
        let p = plan(2, 1000);
        let b = PlanBudget { max_work: 1999, max_memory: Some(0) };
        let e = b.admit_steps(&p).unwrap_err();
        assert!(matches!(e, PlanError::Param { param: "max_work", .. }), "{e}");
        assert!(e.to_string().contains("2,000 work units, more than the budget of 1,999"), "{e}");
    }

    #[test]
    fn a_plan_within_both_budgets_is_admitted_and_none_lifts_memory() {
        let p = plan(2, 1000);
        let exact = PlanBudget { max_work: 2000, max_memory: Some(2000 * STEP_BYTES_PER_SEND) };
        assert_eq!(exact.admit_steps(&p), Ok(()));
        let unlimited = PlanBudget { max_work: u64::MAX, max_memory: None };
        assert_eq!(unlimited.admit_steps(&plan(3, u32::MAX)), Ok(()));
    }
}
