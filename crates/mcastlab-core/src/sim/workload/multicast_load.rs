//! `multicast_load`: multicasts of `degree` destinations, each set drawn uniformly from the
//! endpoints other than the source, arriving at every endpoint at the rate that gives an
//! *effective applied load* (sivaram98 §6.2: degree × per-node load; §6.5 uses degrees 3 and 15).

use super::draw::{others, pick, Who};
use super::spec::{param, SpecParams};
use super::{Kind, Shape, Traffic, WorkloadEntry};
use crate::error::SimError;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MulticastLoad {
    pub degree: u32,
}

fn parse(p: &SpecParams) -> Result<Traffic, SimError> {
    Ok(Traffic::MulticastLoad(MulticastLoad { degree: p.degree.unwrap_or(3) }))
}

impl Kind for MulticastLoad {
    const ENTRY: WorkloadEntry = WorkloadEntry {
        name: "multicast_load",
        summary: "degree-d multicasts at an effective applied load (sivaram98 §6.5)",
        params: "degree=3 load=X",
        keys: &["degree"],
        parse,
        needs_load: true,
        default_count: 1,
        unicast: false,
    };

    fn spec(&self) -> String {
        format!("multicast_load:degree={}", self.degree)
    }

    fn who(&self, n: u32, _seed: u64) -> Result<Who, SimError> {
        let degree = self.degree;
        if degree == 0 || degree > n - 1 {
            return Err(param("degree", format!("{degree} is not between 1 and {} (endpoints − 1)", n - 1)));
        }
        Ok(((0..n).collect(), Vec::new(), vec![degree as u64; n as usize]))
    }

    fn destinations(&self, s: u32, shape: &Shape, rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.extend(pick(rng, &mut others(shape.n, s), self.degree as usize))
    }
}
