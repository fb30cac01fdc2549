//! A routing read from an LFT dump (`io::lft_dump`, OpenSM's `file` engine): the table as
//! loaded, one port per (switch, LID). Not in the registry because it needs a file rather than a
//! spec; `mcastlab deadlock --lfts` and `Fabric.load_lfts` build it.

use super::minhop::lft_next_hop;
use super::opensm_lft::{self, Lfts};
use super::{Arrival, Hop, Routing, Turn};
use crate::fabric::Fabric;
use crate::ids::{Address, EndpointId, SwitchId};

#[derive(Debug)]
pub struct LoadedLfts {
    file: String,
    lfts: Lfts,
}

impl LoadedLfts {
    pub fn new(file: &str, lfts: Lfts) -> LoadedLfts {
        LoadedLfts { file: file.to_string(), lfts }
    }
}

impl Routing for LoadedLfts {
    fn engine(&self) -> &'static str {
        "lfts"
    }
    fn spec(&self) -> String {
        format!("lfts:{}", self.file)
    }
    fn num_addresses(&self) -> usize {
        self.lfts.endpoints
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        lft_next_hop(&self.lfts, at, to, out)
    }
    fn turns(&self, f: &Fabric) -> Option<Vec<Turn>> {
        Some(opensm_lft::table_turns(f, self.lfts.endpoints, |s, d| self.lfts.to_endpoint(s, EndpointId(d as u32))))
    }
    fn programmed_lfts(&self) -> Option<&Lfts> {
        Some(&self.lfts)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
