//! OpenSM's linear forwarding tables on top of a hop matrix (`ucast_mgr_build_lfts` and
//! `osm_switch_recommend_path`, opensm.md §2.1), shared by the `minhop` and `updn` engines (updn
//! only changes the matrix).
//!
//! Targets are taken in OpenSM's balancing order: CA ports grouped by the switch they hang on,
//! switches by number of attached CA ports, most first (`sort_ports_by_switch_load`; OpenSM's
//! `qsort` leaves ties unordered, mcastlab keeps OpenSM's switch-table order among equals and
//! port order within a switch), then the switches' own port-0 LIDs in switch-table order. At
//! every switch each target gets, among the ports with the least hop count towards the target's
//! switch, the one with the fewest CA paths assigned so far, the lowest port winning ties; only
//! CA targets count (`port_profile_switch_nodes` off). LMC 0, first sweep (no earlier LFTs).
//! Every switch's table is independent, so they are built in parallel.

use super::hop_matrix::{HopMatrix, NO_PATH};
use crate::fabric::Fabric;
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::io::mft_dump::guid_table_order;
use rayon::prelude::*;

/// An LFT entry that forwards nowhere: IB's unrouted port value (255 is never a real port).
pub const UNROUTED: u8 = 0xFF;

/// Targets of an LFT: every endpoint (CA port), then every switch's port 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Endpoint(EndpointId),
    Switch(SwitchId),
}

/// LFTs of every switch: `port[s · targets + i]` towards target `i` (endpoints by index, then
/// switches by index), [`UNROUTED`] when there is no path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lfts {
    pub endpoints: usize,
    pub switches: usize,
    pub ports: Vec<u8>,
}

impl Lfts {
    fn width(&self) -> usize {
        self.endpoints + self.switches
    }
    /// Output port at `s` towards endpoint `e` (None if unrouted).
    #[inline]
    pub fn to_endpoint(&self, s: SwitchId, e: EndpointId) -> Option<PortNum> {
        let p = self.ports[s.idx() * self.width() + e.idx()];
        (p != UNROUTED).then_some(PortNum(p as u16))
    }
    /// Output port at `s` towards switch `t`'s port 0 (0 at `t` itself; None if unrouted).
    #[inline]
    pub fn to_switch(&self, s: SwitchId, t: SwitchId) -> Option<PortNum> {
        let p = self.ports[s.idx() * self.width() + self.endpoints + t.idx()];
        (p != UNROUTED).then_some(PortNum(p as u16))
    }
}

/// Err(reason) if a switch has more ports than an 8-bit LFT entry can name.
pub fn ports_fit(f: &Fabric) -> Result<(), String> {
    match f.switches().iter().find(|s| s.ports >= UNROUTED as u16) {
        Some(s) => Err(format!("switch {} has {} ports; LFT entries name ports 0..=254", s.name, s.ports)),
        None => Ok(()),
    }
}

/// OpenSM's target order (see the module doc).
pub fn target_order(f: &Fabric) -> Vec<Target> {
    let order = guid_table_order(f);
    let mut by_switch: Vec<Vec<(PortNum, EndpointId)>> = vec![Vec::new(); f.num_switches()];
    for e in f.endpoint_ids() {
        let (s, p) = f.attachment(e);
        by_switch[s.idx()].push((p, e));
    }
    let mut loaded: Vec<SwitchId> = order.clone();
    loaded.sort_by_key(|s| std::cmp::Reverse(by_switch[s.idx()].len()));
    let mut out = Vec::with_capacity(f.num_endpoints() + f.num_switches());
    for s in loaded {
        let mut eps = by_switch[s.idx()].clone();
        eps.sort_unstable();
        out.extend(eps.into_iter().map(|(_, e)| Target::Endpoint(e)));
    }
    out.extend(order.into_iter().map(Target::Switch));
    out
}

/// Builds every switch's LFT from `m` (see the module doc).
pub fn build(f: &Fabric, m: &HopMatrix) -> Lfts {
    let (ne, ns) = (f.num_endpoints(), f.num_switches());
    let width = ne + ns;
    let order = target_order(f);
    let mut ports = vec![UNROUTED; ns * width];
    ports.par_chunks_mut(width.max(1)).enumerate().for_each(|(s, row)| {
        let s = SwitchId(s as u32);
        let nports = f.switch(s).ports as usize;
        let mut paths = vec![0u32; nports + 1];
        let linked: Vec<bool> = (0..=nports).map(|p| p > 0 && f.port(s, PortNum(p as u16)).is_some()).collect();
        for t in &order {
            let (slot, target, counts) = match *t {
                Target::Endpoint(e) => {
                    let (at, p) = f.attachment(e);
                    if at == s {
                        row[e.idx()] = p.0 as u8;
                        paths[p.0 as usize] += 1;
                        continue;
                    }
                    (e.idx(), at, true)
                }
                Target::Switch(t) => {
                    if t == s {
                        row[ne + t.idx()] = 0;
                        continue;
                    }
                    (ne + t.idx(), t, false)
                }
            };
            let least = m.least(s, target);
            if least == NO_PATH {
                continue;
            }
            let best = (1..=nports)
                .filter(|&p| linked[p] && m.hops(s, target, PortNum(p as u16)) == least)
                .min_by_key(|&p| (paths[p], p));
            if let Some(p) = best {
                row[slot] = p as u8;
                if counts {
                    paths[p] += 1;
                }
            }
        }
    });
    Lfts { endpoints: ne, switches: ns, ports }
}

/// Every turn a destination-based table makes some packet take, exactly the turns the generic
/// exploration finds (`check::explored_turns`), in time linear in switches × endpoints. For each
/// destination `d`, a switch carries packets to `d` if it has an endpoint other than `d` or a
/// carrying neighbour forwards `d` to it; each carrying switch `s` (not `d`'s) whose port for `d`
/// leads to switch `n` adds the turn at `n` from that link into `n`'s own port for `d`.
/// `port(s, d)` is the table's port (None = unrouted).
pub fn table_turns(
    f: &Fabric,
    endpoints: usize,
    port: impl Fn(SwitchId, usize) -> Option<PortNum> + Sync,
) -> Vec<super::Turn> {
    use crate::fabric::Terminal;
    let ns = f.num_switches();
    // Dense numbering of (switch, in port, out port) triples.
    let width: Vec<usize> = f.switch_ids().map(|s| f.switch(s).ports as usize + 1).collect();
    let mut base = vec![0usize; ns + 1];
    for s in 0..ns {
        base[s + 1] = base[s] + width[s] * width[s];
    }
    let peers: Vec<Vec<Option<(SwitchId, PortNum)>>> = f
        .switch_ids()
        .map(|s| {
            (0..=f.switch(s).ports)
                .map(|p| match f.port(s, PortNum(p)).map(|pp| pp.peer) {
                    Some(Terminal::Switch { switch, port }) if switch != s => Some((switch, port)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut local = vec![0u32; ns];
    for e in f.endpoint_ids() {
        local[f.attachment(e).0.idx()] += 1;
    }
    let words = base[ns].div_ceil(64);
    let bits = (0..endpoints)
        .into_par_iter()
        .fold(
            || (vec![0u64; words], vec![u32::MAX; ns]),
            |(mut bits, mut mark), d| {
                let dsw = f.attachment(crate::ids::EndpointId(d as u32)).0;
                let stamp = d as u32;
                for s0 in f.switch_ids() {
                    let own = local[s0.idx()] - u32::from(s0 == dsw);
                    let mut s = s0;
                    if own == 0 || mark[s.idx()] == stamp {
                        continue;
                    }
                    // Walk towards d until a switch already walked this round.
                    loop {
                        mark[s.idx()] = stamp;
                        if s == dsw {
                            break;
                        }
                        let Some(p) = port(s, d) else { break };
                        let Some((n, q)) = peers[s.idx()].get(p.0 as usize).copied().flatten() else { break };
                        let Some(o) = port(n, d) else { break };
                        let i = base[n.idx()] + q.0 as usize * width[n.idx()] + o.0 as usize;
                        bits[i / 64] |= 1 << (i % 64);
                        if mark[n.idx()] == stamp {
                            break;
                        }
                        s = n;
                    }
                }
                (bits, mark)
            },
        )
        .map(|(b, _)| b)
        .reduce(
            || vec![0u64; words],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    let mut out = Vec::new();
    for s in 0..ns {
        for i in base[s]..base[s + 1] {
            if bits[i / 64] >> (i % 64) & 1 == 1 {
                let k = i - base[s];
                out.push(super::Turn {
                    switch: SwitchId(s as u32),
                    in_port: PortNum((k / width[s]) as u16),
                    in_vc: 0,
                    out_port: PortNum((k % width[s]) as u16),
                    out_vc: 0,
                });
            }
        }
    }
    out
}
