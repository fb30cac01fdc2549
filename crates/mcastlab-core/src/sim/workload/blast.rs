//! `blast`: one sender streams multicasts to all others (bhoedjang98 §5.1's throughput test).

use super::draw::{others, source_ok, Who};
use super::spec::SpecParams;
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blast {
    pub source: u32,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::Blast(Blast { source: p.source.unwrap_or(0) }))
}

impl Kind for Blast {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "blast",
        summary: "single-sender multicast stream (bhoedjang98 §5.1)",
        params: "source=0 count=16",
        keys: &["source"],
        parse,
        needs_load: false,
        default_count: 16,
        unicast: false,
    };

    fn spec(&self) -> String {
        format!("blast:source={}", self.source)
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        source_ok(self.source, n)?;
        Ok((vec![self.source], Vec::new(), vec![n as u64 - 1]))
    }

    fn destinations(&self, s: u32, shape: &Shape, _rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.extend(others(shape.n, s))
    }
}
