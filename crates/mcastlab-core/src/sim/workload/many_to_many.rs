//! `many_to_many`: `senders_pct` % of the endpoints (drawn once) each multicast to one group of
//! `group_pct` % of the endpoints (drawn once, as an InfiniBand multicast group is), without
//! themselves (zhou07 §4: 1 node, 40 %, 70 %, 100 % of nodes to 10 %, 40 %, 70 %, 100 %;
//! `senders_pct=1` is one sender on zhou07's 128 nodes). Both percentages count all endpoints: the
//! group exists apart from any one sender (`GroupSize`); `senders=N` and `group=N` give exact counts.

use super::draw::{group_size, members, pick, size_spec, Who};
use super::spec::{param, SpecParams};
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use crate::rng;
use crate::schemes::group::GroupSize;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManyToMany {
    /// Percent of all endpoints that send (default 40), unless `senders` gives the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders_pct: Option<f64>,
    /// Percent of all endpoints in the group (default 10), unless `group` gives the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    let m = ManyToMany {
        senders_pct: if p.senders.is_some() { p.senders_pct } else { Some(p.senders_pct.unwrap_or(40.0)) },
        group_pct: if p.group.is_some() { p.group_pct } else { Some(p.group_pct.unwrap_or(10.0)) },
        senders: p.senders,
        group: p.group,
    };
    m.sizes()?;
    Ok(Traffic::ManyToMany(m))
}

impl ManyToMany {
    fn sizes(&self) -> Result<(GroupSize, GroupSize), SimError> {
        Ok((
            group_size("senders_pct", self.senders_pct, "senders", self.senders, 40.0)?,
            group_size("group_pct", self.group_pct, "group", self.group, 10.0)?,
        ))
    }
}

impl Kind for ManyToMany {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "many_to_many",
        summary: "X% of endpoints multicast to a Y% group (zhou07 §4)",
        params: "senders_pct=40 group_pct=10 (or senders=N, group=N members)",
        keys: &["senders_pct", "group_pct", "senders", "group"],
        parse,
        needs_load: false,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        let (senders, group) = self.sizes().unwrap_or((GroupSize::Percent(40.0), GroupSize::Percent(10.0)));
        format!(
            "many_to_many:{},{}",
            size_spec("senders_pct", "senders", senders),
            size_spec("group_pct", "group", group)
        )
    }

    /// The senders and the group are drawn once per run, each from its own stream.
    fn who(&self, n: u32, seed: u64) -> Result<Who, SimError> {
        let (senders_size, group_size) = self.sizes()?;
        let group_key = if self.group.is_some() { "group" } else { "group_pct" };
        let senders_key = if self.senders.is_some() { "senders" } else { "senders_pct" };
        let all: Vec<u32> = (0..n).collect();
        let k_senders = members(senders_key, senders_size, n as usize)?;
        let k_group = members(group_key, group_size, n as usize)?;
        let senders = pick(&mut rng::stream(seed, "senders", 0), &mut all.clone(), k_senders);
        let group = pick(&mut rng::stream(seed, "group", 0), &mut all.clone(), k_group);
        let mut fanout = Vec::with_capacity(senders.len());
        for s in &senders {
            let k = group.iter().filter(|g| *g != s).count();
            if k == 0 {
                return Err(param(
                    group_key,
                    format!("the group is endpoint {s} alone, which leaves it nobody to send to"),
                ));
            }
            fanout.push(k as u64);
        }
        Ok((senders, group, fanout))
    }

    fn destinations(&self, s: u32, shape: &Shape, _rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.extend(shape.group.iter().copied().filter(|&g| g != s))
    }
}
