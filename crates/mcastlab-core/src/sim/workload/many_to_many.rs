//! `many_to_many`: `senders_pct` % of the endpoints (drawn once) each multicast to one group of
//! `group_pct` % of the endpoints (drawn once, as an InfiniBand multicast group is), without
//! themselves (zhou07 §4: 1 node, 40 %, 70 %, 100 % of nodes to 10 %, 40 %, 70 %, 100 %;
//! `senders_pct=1` is one sender on zhou07's 128 nodes).

use super::draw::{check_pct, pick, share, Who};
use super::spec::{param, SpecParams};
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use crate::rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManyToMany {
    pub senders_pct: f64,
    pub group_pct: f64,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::ManyToMany(ManyToMany {
        senders_pct: p.senders_pct.unwrap_or(40.0),
        group_pct: p.group_pct.unwrap_or(10.0),
    }))
}

impl Kind for ManyToMany {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "many_to_many",
        summary: "X% of endpoints multicast to a Y% group (zhou07 §4)",
        params: "senders_pct=40 group_pct=10",
        keys: &["senders_pct", "group_pct"],
        parse,
        needs_load: false,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        format!("many_to_many:senders_pct={},group_pct={}", self.senders_pct, self.group_pct)
    }

    /// The senders and the group are drawn once per run, each from its own stream.
    fn who(&self, n: u32, seed: u64) -> Result<Who, SimError> {
        check_pct("senders_pct", self.senders_pct)?;
        check_pct("group_pct", self.group_pct)?;
        let all: Vec<u32> = (0..n).collect();
        let senders = pick(&mut rng::stream(seed, "senders", 0), &mut all.clone(), share(self.senders_pct, n as usize));
        let group = pick(&mut rng::stream(seed, "group", 0), &mut all.clone(), share(self.group_pct, n as usize));
        let mut fanout = Vec::with_capacity(senders.len());
        for s in &senders {
            let k = group.iter().filter(|g| *g != s).count();
            if k == 0 {
                return Err(param(
                    "group_pct",
                    format!("the group is endpoint {s} alone, which leaves it nobody to send to"),
                ));
            }
            fanout.push(k as u64);
        }
        Ok((senders, group, fanout))
    }

    fn destinations(&self, s: u32, shape: &Shape, _rng: &mut ChaCha8Rng) -> Vec<u32> {
        shape.group.iter().copied().filter(|&g| g != s).collect()
    }
}
