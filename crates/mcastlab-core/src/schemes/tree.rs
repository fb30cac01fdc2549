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
    build_paths(input, scheme, chain, PathVariant::Sci, &|at, end| {
        split(at, end).into_iter().map(|(start, end)| Child { start, end, path: false }).collect()
    })
}

/// A child in a tree that mixes separate sends with paths (oral's path-based schemes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    pub start: usize,
    /// End (exclusive) of the segment the child covers.
    pub end: usize,
    /// The segment is a path `start..end` visited in order (rather than a node that then splits
    /// its segment again).
    pub path: bool,
}

/// How oral's path-based schemes carry a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PathVariant {
    /// One multidestination path worm along the segment (Robinson et al.'s original schemes).
    Worm,
    /// SCI re-send (oral §4.1): each node on the path saves the message and sends it to the next.
    Sci,
}

/// The default variant is the one oral measured.
pub fn default_variant() -> PathVariant {
    PathVariant::Sci
}

impl PathVariant {
    pub fn name(self) -> &'static str {
        match self {
            PathVariant::Worm => "worm",
            PathVariant::Sci => "sci",
        }
    }
}

/// Like [`build`] for trees whose children may be paths; a path becomes one [`Carrier::Path`]
/// worm or a chain of unicast re-sends, as `variant` says.
pub fn build_paths(
    input: &SchemeInput<'_>,
    scheme: String,
    chain: &[EndpointId],
    variant: PathVariant,
    split: &dyn Fn(usize, usize) -> Vec<Child>,
) -> Result<Plan, PlanError> {
    let mut tx: Vec<Transmission> = Vec::with_capacity(chain.len().saturating_sub(1));
    // (position, end of its segment, transmission that delivered to it, walking a path)
    let mut queue = std::collections::VecDeque::from([(0usize, chain.len(), None::<u32>, false)]);
    while let Some((at, end, got, walking)) = queue.pop_front() {
        let trigger = match got {
            None => Trigger::Start,
            Some(from) => input.discipline.forward_trigger(from),
        };
        let children = if walking {
            if at + 1 < end {
                vec![Child { start: at + 1, end, path: true }]
            } else {
                Vec::new()
            }
        } else {
            split(at, end)
        };
        for c in children {
            let seg = &chain[c.start..c.end];
            if c.path && variant == PathVariant::Worm {
                tx.push(Transmission {
                    sender: chain[at],
                    trigger,
                    carrier: Carrier::Path { dests: seg.to_vec() },
                    delivers: seg.to_vec(),
                });
                continue;
            }
            let dst = chain[c.start];
            tx.push(Transmission {
                sender: chain[at],
                trigger,
                carrier: Carrier::Unicast { dst },
                delivers: vec![dst],
            });
            queue.push_back((c.start, c.end, Some(tx.len() as u32 - 1), c.path));
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
