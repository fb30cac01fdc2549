//! `single`: one multicast from `source` to `group_pct` % of the endpoints, drawn at random (100:
//! all others) — a plan run reported as a workload row.

use super::draw::{check_pct, others, pick, share, source_ok, Who};
use super::spec::SpecParams;
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Single {
    pub source: u32,
    pub group_pct: f64,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::Single(Single { source: p.source.unwrap_or(0), group_pct: p.group_pct.unwrap_or(100.0) }))
}

impl Kind for Single {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "single",
        summary: "one multicast (a plan run as a workload)",
        params: "source=0 group_pct=100",
        keys: &["source", "group_pct"],
        parse,
        needs_load: false,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        format!("single:source={},group_pct={}", self.source, self.group_pct)
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        source_ok(self.source, n)?;
        check_pct("group_pct", self.group_pct)?;
        let k = share(self.group_pct, n as usize).min(n as usize - 1);
        Ok((vec![self.source], Vec::new(), vec![k as u64]))
    }

    fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng) -> Vec<u32> {
        pick(rng, &mut others(shape.n, s), shape.fanout[0] as usize)
    }
}
