//! OpenSM's hop matrix (`osm_switch_t.hops`, opensm.md §2): for every switch `S`, every target
//! switch `T` and every port `p` of `S`, the number of inter-switch hops a packet leaving `S`
//! through `p` needs to reach `T`; column 0 holds the least over the ports. Only switch rows
//! exist: a CA is reached through the switch it hangs on (one implicit extra hop).
//!
//! Two engines fill it, as OpenSM does: `minhop` with exact shortest paths ([`HopMatrix::minhop`],
//! the converged Bellman-Ford of `osm_ucast_mgr_build_lid_matrices`) and `updn` with the
//! up/down-constrained BFS of `updn_bfs_by_node` ([`HopMatrix::updn`]). Both unicast LFTs and
//! OpenSM's default multicast tree builder read it, which is why [`for_routing`] exposes the
//! matrix of the unicast routing in force: the multicast tree of a group follows the hop counts
//! the unicast engine left behind (§1.10).

use super::Routing;
use crate::fabric::{Fabric, Terminal};
use crate::ids::{PortNum, SwitchId};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::Arc;

/// OpenSM's "no path" hop count (`OSM_NO_PATH`).
pub const NO_PATH: u8 = 0xFF;

/// Most bytes a hop matrix may take (switches² × (ports + 1) bytes): 4 GiB.
pub const MAX_MATRIX_BYTES: u64 = 4 << 30;

/// Engines whose OpenSM multicast builder is not the default `mcast_mgr_build_spanning_tree`
/// (they set the `mcast_build_stree` hook, opensm.md §1.10), with what they do instead. mcastlab
/// models only the default builder, so `ib_opensm` refuses to stand in for them.
pub const OWN_MCAST_BUILDERS: &[(&str, &str)] = &[
    ("dfsssp", "a Dijkstra tree over the link weights left by unicast routing"),
    ("sssp", "a Dijkstra tree over the link weights left by unicast routing"),
    ("nue", "a Dijkstra tree over the least-loaded links"),
    ("torus-2QoS", "a pruned torus master spanning tree"),
];

/// Err(message) when OpenSM builds multicast trees of engine `name` with its own builder, which
/// mcastlab does not model; Ok for engines that use the default builder (minhop, updn, dnup,
/// ftree, dor, lash, file).
pub fn default_mcast_builder(name: &str) -> Result<(), String> {
    match OWN_MCAST_BUILDERS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        Some((n, what)) => Err(format!(
            "OpenSM's `{n}` engine builds multicast trees with its own builder ({what}); mcastlab models only \
             OpenSM's default builder (mcast_mgr_build_spanning_tree), used by minhop, updn, dnup, ftree, dor, \
             lash and file"
        )),
        None => Ok(()),
    }
}

/// Hop counts of every switch towards every switch, per port (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HopMatrix {
    switches: usize,
    /// Columns per (target, switch) row: the largest port number + 1 (column 0 = least).
    stride: usize,
    /// `hops[(s · switches + t) · stride + p]`: switch-major, so one switch's LFT build reads
    /// its rows in order (the builders work target by target and transpose at the end).
    hops: Vec<u8>,
    /// `least[t · switches + s]` = `hops[s][t][0]`, target-major: the multicast root selection
    /// reads one whole row per member switch, which in `hops` would be a strided gather.
    least: Vec<u8>,
}

/// Err(reason) when a hop matrix for this fabric would be larger than [`MAX_MATRIX_BYTES`].
pub fn fits(f: &Fabric) -> Result<(), String> {
    let n = f.num_switches() as u64;
    let stride = f.switches().iter().map(|s| s.ports as u64 + 1).max().unwrap_or(1);
    let bytes = n * n * stride;
    if bytes > MAX_MATRIX_BYTES {
        return Err(format!(
            "its hop matrix ({n}² switches × {stride} ports) would take {:.1} GiB, more than the {} GiB allowed",
            bytes as f64 / (1u64 << 30) as f64,
            MAX_MATRIX_BYTES >> 30
        ));
    }
    Ok(())
}

impl HopMatrix {
    fn empty(f: &Fabric) -> HopMatrix {
        let n = f.num_switches();
        let stride = f.switches().iter().map(|s| s.ports as usize + 1).max().unwrap_or(1);
        HopMatrix { switches: n, stride, hops: vec![NO_PATH; n * n * stride], least: Vec::new() }
    }

    /// OpenSM's minhop matrix: after Bellman-Ford converges, `hops[T][p]` at `S` is one more than
    /// the least hops from the switch behind `p` to `T`. Computed as one BFS per target.
    pub fn minhop(f: &Fabric) -> HopMatrix {
        let mut m = HopMatrix::empty(f);
        let (n, stride) = (m.switches, m.stride);
        let nbrs: Vec<Vec<(PortNum, SwitchId)>> =
            f.switch_ids().map(|s| f.switch_neighbors(s).into_iter().map(|(p, t, _, _)| (p, t)).collect()).collect();
        m.hops.par_chunks_mut(n * stride).enumerate().for_each(|(t, block)| {
            let mut least = vec![NO_PATH; n];
            least[t] = 0;
            let mut q = VecDeque::from([t]);
            while let Some(u) = q.pop_front() {
                for &(_, v) in &nbrs[u] {
                    if least[v.idx()] == NO_PATH && least[u] < NO_PATH - 1 {
                        least[v.idx()] = least[u] + 1;
                        q.push_back(v.idx());
                    }
                }
            }
            for s in 0..n {
                let row = &mut block[s * stride..(s + 1) * stride];
                row[0] = least[s];
                for &(p, v) in &nbrs[s] {
                    if least[v.idx()] < NO_PATH - 1 {
                        row[p.0 as usize] = least[v.idx()] + 1;
                    }
                }
            }
        });
        m.switch_major()
    }

    /// OpenSM's updn matrix (`updn_bfs_by_node`, opensm.md §2.2): per target switch `T`, a BFS
    /// outwards from `T` that never steps UP after a DOWN step (directions by [`UpDownRanks`]).
    /// A switch's entry for the port it was reached through is set when it improves that port's
    /// count; the switch is (re)queued, with the direction of that step, unless it is already
    /// waiting in the queue — exactly OpenSM's `visited` flag, which is cleared on dequeue.
    pub fn updn(f: &Fabric, ranks: &UpDownRanks) -> HopMatrix {
        let mut m = HopMatrix::empty(f);
        let (n, stride) = (m.switches, m.stride);
        let nbrs: Vec<Vec<(PortNum, SwitchId, PortNum)>> =
            f.switch_ids().map(|s| f.switch_neighbors(s).into_iter().map(|(p, t, q, _)| (p, t, q)).collect()).collect();
        m.hops.par_chunks_mut(n * stride).enumerate().for_each(|(t, block)| {
            block[t * stride] = 0;
            // Direction of the step that queued each switch: true = UP.
            let mut up = vec![true; n];
            let mut queued = vec![false; n];
            let mut q = VecDeque::from([t]);
            queued[t] = true;
            while let Some(u) = q.pop_front() {
                queued[u] = false;
                let current_up = up[u];
                let current = block[u * stride];
                for &(_, r, rp) in &nbrs[u] {
                    let next_up = ranks.step_is_up(SwitchId(u as u32), r);
                    if !current_up && next_up {
                        continue;
                    }
                    let cell = r.idx() * stride + rp.0 as usize;
                    if current < NO_PATH - 1 && current + 1 < block[cell] {
                        block[cell] = current + 1;
                        let least = &mut block[r.idx() * stride];
                        *least = (*least).min(current + 1);
                        if !queued[r.idx()] {
                            up[r.idx()] = next_up;
                            queued[r.idx()] = true;
                            q.push_back(r.idx());
                        }
                    }
                }
            }
        });
        m.switch_major()
    }

    /// Reorders a target-major matrix (`(t · switches + s) · stride + p`, as the per-target
    /// builders fill it) into the switch-major layout of `hops`.
    fn switch_major(self) -> HopMatrix {
        let (n, stride) = (self.switches, self.stride);
        let least: Vec<u8> = (0..n * n).into_par_iter().map(|i| self.hops[i * stride]).collect();
        let mut out = vec![NO_PATH; self.hops.len()];
        out.par_chunks_mut(n * stride).enumerate().for_each(|(s, block)| {
            for t in 0..n {
                let from = (t * n + s) * stride;
                block[t * stride..(t + 1) * stride].copy_from_slice(&self.hops[from..from + stride]);
            }
        });
        HopMatrix { hops: out, least, ..self }
    }

    /// Number of switches (rows and targets).
    pub fn switches(&self) -> usize {
        self.switches
    }

    /// Hops from `s` through port `p` to switch `t` ([`NO_PATH`] if none); port 0 gives the least.
    #[inline]
    pub fn hops(&self, s: SwitchId, t: SwitchId, p: PortNum) -> u8 {
        let p = p.0 as usize;
        if p >= self.stride {
            return NO_PATH;
        }
        self.hops[(s.idx() * self.switches + t.idx()) * self.stride + p]
    }

    /// Least hops from `s` to `t` over all ports (`hops[T][0]`; [`NO_PATH`] if unreachable).
    #[inline]
    pub fn least(&self, s: SwitchId, t: SwitchId) -> u8 {
        self.hops(s, t, PortNum(0))
    }

    /// Least hops from every switch to `t`, indexed by switch ([`NO_PATH`] where none).
    #[inline]
    pub fn least_to(&self, t: SwitchId) -> &[u8] {
        &self.least[t.idx() * self.switches..(t.idx() + 1) * self.switches]
    }

    /// OpenSM's `osm_switch_recommend_mcast_path` towards a switch: the lowest-numbered port of
    /// `s` with the least hop count to `t` (None at `t` itself or without a path).
    pub fn lowest_min_port(&self, f: &Fabric, s: SwitchId, t: SwitchId) -> Option<PortNum> {
        let least = self.least(s, t);
        if least == 0 || least == NO_PATH {
            return None;
        }
        f.switch_ports(s).find(|&p| {
            self.hops(s, t, p) == least && matches!(f.port(s, p).map(|pp| pp.peer), Some(Terminal::Switch { .. }))
        })
    }
}

/// The ranks and tie-break ids updn's direction rule reads (opensm.md §2.2): rank = BFS distance
/// from the nearest root; a step to a lower rank goes UP, to a higher rank DOWN; at equal rank it
/// goes UP iff the current switch's GUID is larger, and a step between two roots is UP.
#[derive(Clone, Debug)]
pub struct UpDownRanks {
    pub rank: Vec<u32>,
    pub guid: Vec<u64>,
}

impl UpDownRanks {
    pub fn new(f: &Fabric, roots: &[SwitchId]) -> UpDownRanks {
        let mut rank = vec![u32::MAX; f.num_switches()];
        let mut q = VecDeque::new();
        for r in roots {
            rank[r.idx()] = 0;
            q.push_back(*r);
        }
        while let Some(u) = q.pop_front() {
            for (_, t, _, _) in f.switch_neighbors(u) {
                if rank[t.idx()] > rank[u.idx()] + 1 {
                    rank[t.idx()] = rank[u.idx()] + 1;
                    q.push_back(t);
                }
            }
        }
        UpDownRanks { rank, guid: crate::io::mft_dump::switch_guids(f) }
    }

    /// Whether the step `from -> to` goes UP (`updn_get_dir`).
    pub fn step_is_up(&self, from: SwitchId, to: SwitchId) -> bool {
        let (a, b) = (self.rank[from.idx()], self.rank[to.idx()]);
        if a == 0 && b == 0 {
            return true;
        }
        match a.cmp(&b) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => self.guid[from.idx()] > self.guid[to.idx()],
        }
    }
}

/// The hop matrix of the unicast routing in force, as OpenSM's multicast builder reads it: the
/// engine's own matrix for `minhop` and `updn`, and minhop's for every other engine (OpenSM falls
/// back to minhop's `build_lid_matrices` for engines that provide none, and ftree's matrix equals
/// it on a proper fat-tree, §1.10).
pub fn for_routing(f: &Fabric, r: &dyn Routing) -> Arc<HopMatrix> {
    r.opensm_matrix().unwrap_or_else(|| Arc::new(HopMatrix::minhop(f)))
}
