//! `single`: one multicast from `source` to `group_pct` % of the other endpoints (or `group` of
//! them), drawn at random (100: all others) — a plan run reported as a workload row. The
//! percentage counts the endpoints other than the source, as `--group` does (`GroupSize`).

use super::draw::{group_size, members, others, pick, size_spec, source_ok, Who};
use super::spec::SpecParams;
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use crate::schemes::group::GroupSize;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Single {
    pub source: u32,
    /// Percent of the other endpoints (default 100), unless `group` gives the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_pct: Option<f64>,
    /// Exactly this many destinations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    group_size("group_pct", p.group_pct, "group", p.group, 100.0)?;
    let group_pct = if p.group.is_some() { None } else { Some(p.group_pct.unwrap_or(100.0)) };
    Ok(Traffic::Single(Single { source: p.source.unwrap_or(0), group_pct, group: p.group }))
}

impl Single {
    fn size(&self) -> Result<GroupSize, SimError> {
        group_size("group_pct", self.group_pct, "group", self.group, 100.0)
    }
}

impl Kind for Single {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "single",
        summary: "one multicast (a plan run as a workload)",
        params: "source=0 group_pct=100 (or group=N destinations)",
        keys: &["source", "group_pct", "group"],
        parse,
        needs_load: false,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        let size = self.size().unwrap_or(GroupSize::Percent(100.0));
        format!("single:source={},{}", self.source, size_spec("group_pct", "group", size))
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        source_ok(self.source, n)?;
        let key = if self.group.is_some() { "group" } else { "group_pct" };
        let k = members(key, self.size()?, n as usize - 1)?;
        Ok((vec![self.source], Vec::new(), vec![k as u64]))
    }

    fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.extend(pick(rng, &mut others(shape.n, s), shape.fanout[0] as usize))
    }
}
