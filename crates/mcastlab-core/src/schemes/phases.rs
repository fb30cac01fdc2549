//! The two phase schedulers of sivaram98 §5.2.5, shared by the `ssr` and `multidrop` schemes.
//!
//! Both take the worms that cover the group, sorted by the number of destinations they cover
//! (largest first; equal sizes keep the order the scheme produced them in, which is POC order).
//! In step 1 the source sends the first worm. In every later step each node that holds the message
//! sends the next unsent worm of the list:
//!
//! - `greedy`: every holder sends — the source first, then the destinations in the order they were
//!   covered (by step, then by the worm that covered them, then by their place in that worm);
//! - `less_greedy`: the same order, but at most one worm starts from any switch in a step (the
//!   first holder on the switch sends), which trades steps for less link contention.
//!
//! Forwarding is done by the hosts: a destination re-sends only after it received the whole
//! message, so every forwarded worm is triggered [`Trigger::AfterMessage`] whatever the plan's
//! discipline. With one packet the step model then reproduces the paper's step counts exactly.

use super::SchemeInput;
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::EndpointId;
use crate::plan::{Carrier, Plan, Transmission, Trigger};
use serde::Deserialize;

/// Which §5.2.5 algorithm assigns worms to senders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    #[default]
    Greedy,
    LessGreedy,
}

impl Schedule {
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Greedy => "greedy",
            Schedule::LessGreedy => "less_greedy",
        }
    }
}

/// One multidestination worm to schedule: its header and the endpoints it covers, in the order it
/// covers them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worm {
    pub carrier: Carrier,
    pub delivers: Vec<EndpointId>,
}

/// Assigns the worms to senders step by step and returns the transmissions in step order (so
/// every trigger refers to an earlier transmission).
pub fn transmissions(f: &Fabric, source: EndpointId, mut worms: Vec<Worm>, schedule: Schedule) -> Vec<Transmission> {
    worms.sort_by_key(|w| std::cmp::Reverse(w.delivers.len()));
    let total = worms.len();
    let mut worms = worms.into_iter();
    // Holders in cover order: (endpoint, transmission that delivered to it).
    let mut holders: Vec<(EndpointId, Option<u32>)> = vec![(source, None)];
    // Per switch: the last step a worm started from it (less greedy).
    let mut started = vec![u32::MAX; f.num_switches()];
    let mut tx: Vec<Transmission> = Vec::with_capacity(total);
    let mut step = 0u32;
    while tx.len() < total {
        let ready = holders.len();
        for h in 0..ready {
            if tx.len() == total {
                break;
            }
            let (sender, from) = holders[h];
            if schedule == Schedule::LessGreedy {
                let sw = f.attachment(sender).0.idx();
                if std::mem::replace(&mut started[sw], step) == step {
                    continue;
                }
            }
            let w = worms.next().expect("fewer transmissions than worms");
            let idx = tx.len() as u32;
            holders.extend(w.delivers.iter().map(|d| (*d, Some(idx))));
            tx.push(Transmission {
                sender,
                trigger: from.map_or(Trigger::Start, |from| Trigger::AfterMessage { from }),
                carrier: w.carrier,
                delivers: w.delivers,
            });
        }
        step += 1;
    }
    tx
}

/// The scheduled worms as a plan for `input`.
pub fn plan(input: &SchemeInput<'_>, scheme: &str, worms: Vec<Worm>, schedule: Schedule) -> Result<Plan, PlanError> {
    let tx = transmissions(input.fabric, input.source, worms, schedule);
    Plan::from_transmissions(
        input.fabric,
        scheme,
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        tx,
    )
}
