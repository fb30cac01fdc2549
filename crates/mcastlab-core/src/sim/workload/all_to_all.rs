//! `all_to_all`: every endpoint multicasts to all others (bhoedjang98 §5.2).

use super::draw::{others, Who};
use super::spec::SpecParams;
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllToAll {}

fn parse(_: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::AllToAll(AllToAll {}))
}

impl Kind for AllToAll {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "all_to_all",
        summary: "every endpoint broadcasts (bhoedjang98 §5.2)",
        params: "",
        keys: &[],
        parse,
        needs_load: false,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        "all_to_all:".into()
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        Ok(((0..n).collect(), Vec::new(), vec![n as u64 - 1; n as usize]))
    }

    fn destinations(&self, s: u32, shape: &Shape, _rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.extend(others(shape.n, s))
    }
}
