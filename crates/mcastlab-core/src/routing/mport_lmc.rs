//! `mport_lmc`: the multiple-LID routing of zhou07 §3.1–3.3.1 on an m-port n-tree IBFT(m, n).
//!
//! Write `h = m/2`. Every endpoint owns `2^LMC` consecutive LIDs with `LMC = log2(h^(n−1))`:
//! `BaseLID(P(p)) = 2^LMC·PID(P(p)) + 1` and `LIDset(P(p)) = BaseLID .. BaseLID + 2^LMC − 1`.
//! LID 0 is reserved in InfiniBand, so the LIDs start at 1 and the routing's dense addresses are
//! shifted by one: **`Address(a)` is LID `a + 1`**, and the address owner is `a / 2^LMC`.
//!
//! Path selection (cyclic groups): a source picks, among the destination's LIDs, the one whose
//! offset from the base LID is the source's rank inside its greatest-common-prefix group one
//! level below the lowest common ancestors: with `α` the length of the common label prefix of
//! source `s` and destination, the offset is `Σ_{i>α} s_i·h^(n−1−i)`. All sources that share the
//! level `α` and the label suffix `s_{α+1}…s_{n−1}` form one cyclic group and use the same LID.
//! A source sending to itself uses the base LID.
//!
//! Forwarding at `SW<w,l>` for LID `lid` owned by `P(p)`:
//! - if `w0…w_{l−1} = p0…p_{l−1}` (the owner lies below): port `p_l + 1` (zhou07 Eq. 1);
//! - otherwise port `⌊(lid−1)/h^(n−1−l)⌋ mod h + h + 1` (Eq. 2), i.e. up port number `r_l + h + 1`
//!   where `r_l` is digit `l` of the LID's offset `r = (lid−1) mod 2^LMC` written with n−1 base-`h`
//!   digits `r_1…r_{n−1}`.
//!
//! The tables ignore the input port, so `next_hops` gives exactly one hop on VC 0.
//!
//! Why it is deadlock-free: a route climbs (Eq. 2) until the first switch whose label prefix
//! matches the owner's, then only descends (Eq. 1); no packet turns from a down-going channel
//! into an up-going one. [`MportLmc::turns`](Routing::turns) enumerates the turns in closed
//! form (see there), which is what makes the check of 65,536-endpoint fabrics (67M LIDs) cheap.

use super::{Arrival, Hop, Routing, RoutingEntry, Turn};
use crate::error::RoutingError;
use crate::fabric::generators::mport_ntree::{self, MportNtreeParams};
use crate::fabric::{spec, Fabric, Topology};
use crate::ids::{Address, EndpointId, PortNum, SwitchId};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::ops::RangeInclusive;

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "mport_lmc",
    summary: "zhou07 multiple-LID (LMC) routing with cyclic path selection on m-port n-trees",
    params: "",
    applies_to: "mport_ntree",
    applies,
    build,
};

/// Largest unicast LID InfiniBand allows (0xC000 and above are multicast LIDs).
pub const IB_MAX_UNICAST_LID: u64 = 0xBFFF;
/// Largest LMC InfiniBand allows (a 3-bit field).
pub const IB_MAX_LMC: u32 = 7;

fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::MportNtree(p) => {
            match MportLmc::new(p) {
                Err(RoutingError::NotApplicable { reason, .. }) => return Err(reason),
                Err(e) => return Err(e.to_string()),
                Ok(_) => {}
            }
            crate::fabric::generators::matches_generated(f)
        }
        other => Err(format!("mport_lmc needs an mport_ntree fabric (this one is `{}`)", other.kind())),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let _: Params = spec::typed("routing", "mport_lmc", p)?;
    let Topology::MportNtree(t) = f.topology() else {
        return Err(RoutingError::NotApplicable {
            engine: "mport_lmc",
            reason: format!("needs an mport_ntree fabric (this one is `{}`)", f.topology().kind()),
        });
    };
    Ok(Box::new(MportLmc::new(t)?))
}

/// One cyclic group `CG(P(d), level, suffix)` of zhou07 §3.2 (Fig. 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CyclicGroup {
    /// Level of the lowest common ancestors of the members and the destination (= length of the
    /// common label prefix).
    pub level: u32,
    /// The members' common label suffix `y`, `n − level − 1` digits (empty at the leaf level).
    pub suffix: Vec<u32>,
    /// The destination LID every member selects.
    pub lid: u32,
    /// The sources in the group, in endpoint (PID) order.
    pub members: Vec<EndpointId>,
}

/// The zhou07 LID routing of one IBFT(m, n).
#[derive(Debug)]
pub struct MportLmc {
    m: u32,
    n: u32,
    /// `m/2`.
    h: u32,
    lmc: u32,
    endpoints: u32,
    switches: u32,
    /// `pw[i] = h^i` for `i ∈ 0..=n`.
    pw: Vec<u32>,
}

impl MportLmc {
    /// The routing of IBFT(p.m, p.n), computed from the parameters alone (the fabric is only
    /// needed to check it is really that IBFT; see [`ENTRY`]). Fails on invalid parameters, and
    /// with `NotApplicable` when the LIDs would not fit the 32-bit address space (e.g. IBFT(64, 4)
    /// needs 2^21 endpoints · 2^15 LIDs).
    pub fn new(p: &MportNtreeParams) -> Result<MportLmc, RoutingError> {
        let (endpoints, switches) = mport_ntree::validate(p)?;
        let (m, n) = (p.m, p.n);
        let h = m / 2;
        if n >= 2 && !h.is_power_of_two() {
            return Err(RoutingError::NotApplicable {
                engine: "mport_lmc",
                reason: format!(
                    "m/2 must be a power of two (got m = {m}, m/2 = {h}): the LID assignment needs \
                     LMC = log2((m/2)^(n-1)) to be an integer"
                ),
            });
        }
        // With n = 1 the LMC is 0.
        let lmc = if n == 1 { 0 } else { (n - 1) * h.trailing_zeros() };
        let lids = (endpoints as u64) << lmc;
        if lids > u32::MAX as u64 {
            return Err(RoutingError::NotApplicable {
                engine: "mport_lmc",
                reason: format!(
                    "IBFT({m}, {n}) needs {lids} LIDs (endpoints · 2^LMC), more than the 2^32 − 1 \
                     addresses mcastlab supports"
                ),
            });
        }
        let pw = (0..=n).map(|i| h.pow(i)).collect();
        Ok(MportLmc { m, n, h, lmc, endpoints, switches, pw })
    }

    /// `m`, the ports per switch.
    pub fn m(&self) -> u32 {
        self.m
    }
    /// `n`, the number of switch levels.
    pub fn n(&self) -> u32 {
        self.n
    }
    /// `LMC = log2((m/2)^(n−1))`.
    pub fn lmc(&self) -> u32 {
        self.lmc
    }
    /// LIDs per endpoint, `2^LMC`.
    pub fn lids_per_endpoint(&self) -> u32 {
        1 << self.lmc
    }
    /// The largest LID in use (`endpoints · 2^LMC`).
    pub fn max_lid(&self) -> u32 {
        self.endpoints << self.lmc
    }
    /// `BaseLID(P(p)) = 2^LMC · PID + 1`, for an endpoint of this fabric.
    pub fn base_lid(&self, e: EndpointId) -> u32 {
        (e.0 << self.lmc) + 1
    }
    /// `LIDset(P(p))`: `BaseLID ..= BaseLID + 2^LMC − 1`.
    pub fn lid_set(&self, e: EndpointId) -> RangeInclusive<u32> {
        let b = self.base_lid(e);
        b..=b + (self.lids_per_endpoint() - 1)
    }
    /// The LID an address stands for (`a + 1`; LID 0 is reserved).
    pub fn lid_of(a: Address) -> u32 {
        a.0 + 1
    }
    /// The address of a LID (None for LID 0 or a LID beyond [`max_lid`](Self::max_lid)).
    pub fn address_of_lid(&self, lid: u32) -> Option<Address> {
        (lid >= 1 && lid <= self.max_lid()).then(|| Address(lid - 1))
    }
    /// The endpoint owning a LID (None if out of range).
    pub fn lid_owner(&self, lid: u32) -> Option<EndpointId> {
        self.address_of_lid(lid).map(|a| EndpointId(a.0 >> self.lmc))
    }
    /// Label digits of an endpoint (`P(200)` → `[2, 0, 0]`).
    pub fn endpoint_digits(&self, e: EndpointId) -> Vec<u32> {
        mport_ntree::endpoint_digits(self.m, self.n, e.0)
    }
    /// Label digits and level of a switch (`SW<20,1>` → `([2, 0], 1)`).
    pub fn switch_label(&self, s: SwitchId) -> (Vec<u32>, u32) {
        mport_ntree::switch_label(self.m, self.n, s)
    }
    /// Length `α` of the greatest common label prefix of two endpoints (`n` if they are equal).
    pub fn gcp_len(&self, a: EndpointId, b: EndpointId) -> u32 {
        // For α ≥ 1 the prefix of length α of a PID is PID / h^(n−α). (Not for α = 0: the leading
        // digit can exceed h − 1, so PID / h^n is not always 0.)
        (1..=self.n).rev().find(|&al| self.prefix(a.0, al) == self.prefix(b.0, al)).unwrap_or(0)
    }
    /// The first `len` label digits of endpoint `pid`, as a number (0 for `len` = 0).
    #[inline]
    fn prefix(&self, pid: u32, len: u32) -> u32 {
        if len == 0 {
            0
        } else {
            pid / self.pw[(self.n - len) as usize]
        }
    }
    /// The least common ancestors of two endpoints: every switch at level `α` whose label starts
    /// with their common prefix (zhou07 Definition 2), in index order. For `a == b`, where the
    /// definition has no level, this is the shared leaf switch.
    pub fn lca(&self, a: EndpointId, b: EndpointId) -> Vec<SwitchId> {
        if a.0 >= self.endpoints || b.0 >= self.endpoints {
            return Vec::new();
        }
        let al = self.gcp_len(a, b).min(self.n - 1);
        // Switch labels at level α: prefix (α digits) then n−1−α free digits.
        let prefix = self.prefix(a.0, al);
        let free = self.pw[(self.n - 1 - al) as usize];
        let base = mport_ntree::level_offset(self.m, self.n, al) + prefix * free;
        (0..free).map(|i| SwitchId(base + i)).collect()
    }
    /// `rank(gcp_g(x, α), P(p)) = Σ_{i=α}^{n−1} p_i·h^(n−1−i)` (zhou07 Definition 4). With α = 0
    /// this is the PID.
    ///
    /// Note: Definitions 3 and 4 say a group `gcp_g(x, α)` has `h^(n−α)` members with ranks below
    /// `h^(n−α)`. That holds for α ≥ 1 only: the leading label digit ranges over `m = 2h` values,
    /// so `gcp_g(ε, 0)` has `2·h^n` members and PIDs up to `2·h^n − 1`. Path selection only uses
    /// α ≥ 1, where the rank stays below `2^LMC = h^(n−1)` and the LID stays in the LID set.
    pub fn rank(&self, e: EndpointId, alpha: u32) -> u32 {
        if alpha == 0 {
            e.0
        } else {
            e.0 % self.pw[(self.n - alpha.min(self.n)) as usize]
        }
    }
    /// The LID `src` selects for `dst` (cyclic path selection, zhou07 §3.2).
    pub fn select_lid(&self, src: EndpointId, dst: EndpointId) -> u32 {
        if src == dst {
            return self.base_lid(dst);
        }
        let l = self.gcp_len(src, dst);
        self.base_lid(dst) + self.rank(src, l + 1)
    }

    /// The cyclic groups of destination `dst` (zhou07 §3.2, Fig. 5): by level, then by suffix.
    /// Every other endpoint is in exactly one group; `dst` itself is in none.
    pub fn cyclic_groups(&self, dst: EndpointId) -> Vec<CyclicGroup> {
        let mut out = Vec::new();
        if dst.0 >= self.endpoints {
            return out;
        }
        let n = self.n;
        let d = self.endpoint_digits(dst);
        for l in 0..n {
            let suffixes = self.pw[(n - l - 1) as usize];
            let choices = if l == 0 { self.m } else { self.h };
            // Members: prefix d0…d_{l−1}, digit x ≠ d_l at position l, then the suffix y.
            let base = self.prefix(dst.0, l) * choices * suffixes;
            for y in 0..suffixes {
                let members = (0..choices)
                    .filter(|&x| x != d[l as usize])
                    .map(|x| EndpointId(base + x * suffixes + y))
                    .collect::<Vec<_>>();
                let suffix = mport_ntree::endpoint_digits(self.m, n, y)[(l + 1) as usize..].to_vec();
                out.push(CyclicGroup { level: l, suffix, lid: self.base_lid(dst) + y, members });
            }
        }
        out
    }

    /// Output port of switch `s` for `lid` (zhou07 Eqs. 1 and 2); None for an unknown switch or LID.
    pub fn out_port(&self, s: SwitchId, lid: u32) -> Option<PortNum> {
        if s.0 >= self.switches {
            return None;
        }
        let a = self.address_of_lid(lid)?;
        Some(self.port(s.0, a.0))
    }

    /// Eqs. (1) and (2) for a valid switch index and address.
    #[inline]
    fn port(&self, s: u32, a: u32) -> PortNum {
        let (n, h) = (self.n, self.h);
        let (l, w) = mport_ntree::switch_level_pos(self.m, n, s);
        let pid = a >> self.lmc;
        // Label prefixes of length l: of w (n−1 digits) and of p (n digits).
        let below = l == 0 || w / self.pw[(n - 1 - l) as usize] == self.prefix(pid, l);
        let k = if below {
            let q = pid / self.pw[(n - 1 - l) as usize];
            if l == 0 {
                q
            } else {
                q % h
            }
        } else {
            (a / self.pw[(n - 1 - l) as usize]) % h + h
        };
        PortNum(k as u16 + 1)
    }

    /// The linear forwarding table of a switch: entry `i` is the output port for LID `i + 1`, for
    /// every LID `1..=max_lid()`. Empty for an unknown switch. Built block by block (one block per
    /// owning endpoint), not LID by LID, so even 67M-entry tables take well under a second.
    pub fn lft(&self, s: SwitchId) -> Vec<u16> {
        if s.0 >= self.switches {
            return Vec::new();
        }
        let (n, h) = (self.n, self.h);
        let (l, w) = mport_ntree::switch_level_pos(self.m, n, s.0);
        let per = self.lids_per_endpoint() as usize;
        let mut t = Vec::with_capacity(self.max_lid() as usize);
        // Eq. (2) depends only on the LID's offset inside its owner's LID set (h^(n−1−l)
        // divides 2^LMC), so one up block serves every owner that is not below this switch.
        let up: Vec<u16> = (0..per as u32).map(|r| ((r / self.pw[(n - 1 - l) as usize]) % h + h + 1) as u16).collect();
        let wprefix = w / self.pw[(n - 1 - l) as usize];
        for pid in 0..self.endpoints {
            if l == 0 || self.prefix(pid, l) == wprefix {
                let q = pid / self.pw[(n - 1 - l) as usize];
                let k = if l == 0 { q } else { q % h } + 1;
                t.resize(t.len() + per, k as u16);
            } else {
                t.extend_from_slice(&up);
            }
        }
        t
    }
}

impl Routing for MportLmc {
    /// Multicast trees and worms may take any up-then-down turn, not only minimal ones (zhou07 numbers levels from the top).
    fn allows_turn(&self, f: &Fabric, t: &Turn) -> bool {
        super::fat_tree_allows(f, t, |here, peer| peer < here)
    }
    fn engine(&self) -> &'static str {
        "mport_lmc"
    }
    fn spec(&self) -> String {
        "mport_lmc".into()
    }
    fn num_addresses(&self) -> usize {
        self.max_lid() as usize
    }
    fn address(&self, src: EndpointId, dst: EndpointId) -> Address {
        Address(self.select_lid(src, dst) - 1)
    }
    fn owner(&self, a: Address) -> EndpointId {
        EndpointId(a.0 >> self.lmc)
    }
    fn lid(&self, a: Address) -> Option<u32> {
        Some(Self::lid_of(a))
    }
    fn next_hops(&self, at: SwitchId, _arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        if at.0 >= self.switches || to.0 >= self.max_lid() {
            return;
        }
        out.push(Hop { port: self.port(at.0, to.0), vc: 0 });
    }

    /// Every (in port, out port) turn some LID can produce, in closed form. Ports `1..=h` lead
    /// down (to endpoints at the leaves), `h+1..=m` up; at the roots all `m` ports lead down.
    ///
    /// Derivation (the exploration sends every LID from every endpoint but its owner). A packet
    /// with LID offset `r` (digits `r_1…r_{n−1}`) from `s` to owner `d`, `α = gcp_len(s, d)`:
    /// - climbing, it visits at level `l > α` the switch `s0…s_{l−1} r_{n−1}…r_{l+1}`, entering by
    ///   down port `s_l + 1` and leaving by up port `r_l + h + 1`;
    /// - at level `α` it enters by down port `s_α + 1` and leaves by down port `d_α + 1`, `s_α ≠ d_α`;
    /// - descending, it visits at level `l > α` the switch `d0…d_{l−1} r_{n−1}…r_{l+1}`, entering
    ///   by up port `r_l + h + 1` (the port Eq. 2 climbs through) and leaving by `d_l + 1`.
    ///
    /// The digits `s_i`, `d_i` and `r_i` are independent, so every switch at level `l ≥ 1` sees
    /// every down→up and up→down turn and every down→down turn between distinct ports, and every
    /// root every turn between distinct ports. Up→up never happens (deadlock freedom), nor does a
    /// U-turn. Tests compare this with [`crate::check::explored_turns`].
    fn turns(&self, _fabric: &Fabric) -> Option<Vec<Turn>> {
        let (m, h) = (self.m as u16, self.h as u16);
        let top = mport_ntree::switches_in_level(self.m, self.n, 0) as usize;
        let per_root = (m as usize) * (m as usize - 1);
        let per_other = if self.n > 1 { (h as usize) * (h as usize - 1) + 2 * (h as usize) * (h as usize) } else { 0 };
        let mut v = Vec::with_capacity(top * per_root + (self.switches as usize - top) * per_other);
        let t = |s: u32, i: u16, o: u16| Turn {
            switch: SwitchId(s),
            in_port: PortNum(i),
            in_vc: 0,
            out_port: PortNum(o),
            out_vc: 0,
        };
        for s in 0..self.switches {
            let root = (s as usize) < top;
            for i in 1..=m {
                let in_down = root || i <= h;
                for o in 1..=m {
                    let out_down = root || o <= h;
                    let ok = match (in_down, out_down) {
                        (true, true) => i != o,
                        (true, false) | (false, true) => true,
                        (false, false) => false,
                    };
                    if ok {
                        v.push(t(s, i, o));
                    }
                }
            }
        }
        Some(v)
    }

    fn facts(&self) -> Vec<(String, String)> {
        let mut f = vec![
            ("LMC".into(), self.lmc.to_string()),
            ("LIDs per endpoint".into(), self.lids_per_endpoint().to_string()),
            ("max LID".into(), self.max_lid().to_string()),
        ];
        if self.max_lid() as u64 > IB_MAX_UNICAST_LID || self.lmc > IB_MAX_LMC {
            f.push((
                "warning".into(),
                format!(
                    "IBFT({}, {}) exceeds InfiniBand limits (LMC {} vs at most {IB_MAX_LMC}; max LID {} vs \
                     unicast LIDs up to {IB_MAX_UNICAST_LID}); a real subnet manager could not assign these \
                     LIDs, but mcastlab still follows zhou07's formulas",
                    self.m,
                    self.n,
                    self.lmc,
                    self.max_lid()
                ),
            ));
        }
        f
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
