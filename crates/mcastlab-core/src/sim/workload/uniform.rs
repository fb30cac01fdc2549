//! `uniform`: unicasts to a destination drawn uniformly from the endpoints other than the source;
//! with `self=1`, from all endpoints, the source included, as BookSim's uniform traffic does
//! (`../shared/reference/booksim.md` §2: 1/N of its packets go through the source's own switch and
//! back). Plain unicasts: no scheme.

use super::draw::Who;
use super::spec::{flag, SpecParams};
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uniform {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_self: bool,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::Uniform(Uniform { include_self: flag("self", p.include_self.as_ref())? }))
}

impl Kind for Uniform {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "uniform",
        summary: "uniform random unicasts (BookSim)",
        params: "load=X self=0",
        keys: &["self"],
        parse,
        needs_load: true,
        default_count: 1,
        unicast: true,
    };

    fn spec(&self) -> String {
        if self.include_self { "uniform:self=1" } else { "uniform:" }.into()
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        Ok(((0..n).collect(), Vec::new(), vec![1; n as usize]))
    }

    fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        let n = shape.n;
        if self.include_self {
            out.push(rng.random_range(0..n));
        } else {
            let d = rng.random_range(0..n - 1);
            out.push(if d >= s { d + 1 } else { d });
        }
    }
}
