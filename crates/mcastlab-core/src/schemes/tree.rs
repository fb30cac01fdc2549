//! Turning a tree over an ordered chain into transmissions.

use crate::error::PlanError;
use crate::ids::EndpointId;
use crate::plan::{Carrier, Discipline, Plan, Transmission, Trigger};
use crate::schemes::SchemeInput;

/// Children of chain position `at` covering positions `at+1 .. end`, in send order, each with the
/// end (exclusive) of the segment it covers in turn.
pub type Split<'a> = dyn Fn(usize, usize) -> Vec<(usize, usize)> + 'a;

/// Emits unicast transmissions for the tree defined by `split`, breadth first, so every trigger
/// refers to an earlier transmission. Iterative: chains of a million nodes are fine.
pub fn build(
    input: &SchemeInput<'_>,
    scheme: String,
    chain: &[EndpointId],
    split: &Split<'_>,
) -> Result<Plan, PlanError> {
    let mut tx: Vec<Transmission> = Vec::with_capacity(chain.len().saturating_sub(1));
    // (position, end of its segment, transmission that delivered to it)
    let mut queue = std::collections::VecDeque::from([(0usize, chain.len(), None::<u32>)]);
    while let Some((at, end, got)) = queue.pop_front() {
        for (child, child_end) in split(at, end) {
            let trigger = match got {
                None => Trigger::Start,
                Some(from) => input.discipline.forward_trigger(from),
            };
            let dst = chain[child];
            tx.push(Transmission {
                sender: chain[at],
                trigger,
                carrier: Carrier::Unicast { dst },
                delivers: vec![dst],
            });
            queue.push_back((child, child_end, Some(tx.len() as u32 - 1)));
        }
    }
    Plan::from_transmissions(
        input.fabric,
        &scheme,
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        tx,
    )
}

/// Name of a discipline in scheme specs.
pub fn discipline_name(d: Discipline) -> &'static str {
    match d {
        Discipline::Host => "host",
        Discipline::NiFcfs => "fcfs",
        Discipline::NiFpfs => "fpfs",
    }
}
