//! `ib_opensm`: OpenSM's default multicast tree (`mcast_mgr_build_spanning_tree`), the scheme
//! zhou07 compares its cyclic multicast with, rebuilt after `reference/opensm.md` §1.4–1.9 and
//! its §1.12 checklist.
//!
//! One tree per multicast group (the MLID box), shared by every sender: the members are the
//! source and the destinations, and the source sends one `Carrier::Mft`. Steps:
//! 1. **Hop counts.** OpenSM reads the hop matrices its unicast engine left in the switches
//!    ([`McastHops`]). Under the OpenSM engines `minhop` and `updn` the tree reads that engine's
//!    per-port matrix (`hops[T][p]`); under any other routing OpenSM falls back to minhop's,
//!    which mcastlab computes by BFS over the inter-switch links for just the member switches
//!    ([`HopTable`]). Only rows for switches are needed: a CA member is routed to the switch it
//!    hangs on, then one hop down.
//! 2. **Root.** Every switch is a candidate; its cost is the largest `hops(S, T) + 1` over the
//!    member switches `T` (the `+1` is the final switch→CA hop; no member is a switch here). The
//!    first switch of least cost in OpenSM's switch-table order (byte-reversed GUID,
//!    [`guid_table_order`]) wins ([`find_root_switch`]).
//! 3. **Branching** from the root ([`opensm_tree`]): a switch splits its members by output port —
//!    the CA's own port if it hangs here, else the lowest-numbered port `p` with
//!    `hops[member's switch][p]` equal to the least count — adds those ports and (except at the root) the port it was entered by to
//!    its MFT row, and recurses into each switch child. Members deeper than 63 switches are
//!    dropped (OpenSM's ERR 0A21 guard). With exact min-hop counts every switch is entered at most
//!    once, so the rows form a tree; with constrained counts (updn) OpenSM checks nothing, and
//!    a switch entered twice keeps the union of its ports, as OpenSM's bitwise OR does.
//! 4. **MLID.** First fit from 0xC000 ([`MlidPool`]), or a requested free MLID (`mlid=`);
//!    `ipoib=true` first reserves the lowest MLID for the IPoIB broadcast group OpenSM pre-creates
//!    in the default partition.
//!
//! OpenSM's builder ignores the topology, and so does this scheme: it applies to any fabric with
//! full-duplex links. Under `updn` the tree follows updn's restricted hop counts, as OpenSM's
//! does; under routings that leave no OpenSM matrix (mcastlab's `updown` on an irregular network)
//! it follows min-hop and can turn from a down link into an up link; the plan checker then reports
//! the tree as non-conforming and can find the deadlock cycle this opens — exactly what OpenSM
//! would install with its `minhop` matrices there. Engines with their own builder (dfsssp, sssp,
//! nue, torus-2QoS) are refused by name ([`crate::routing::hop_matrix::OWN_MCAST_BUILDERS`]).

use super::{SchemeEntry, SchemeInput};
use crate::error::PlanError;
use crate::fabric::{spec, Fabric, Terminal};
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::io::mft_dump::{guid_table_order, MCAST_LID_END, MCAST_LID_START};
use crate::mcast::select::Member;
use crate::plan::{Carrier, MftEntry, Plan, SwitchState, Transmission, Trigger};
use crate::routing::hop_matrix::{HopMatrix, NO_PATH};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

pub const ENTRY: SchemeEntry = SchemeEntry {
    name: "ib_opensm",
    summary: "OpenSM's default multicast spanning tree: min-hop centre root, lowest minimal ports, one MFT per group",
    params: "mlid=<first free from 0xC000> ipoib=false",
    applies_to: "any fabric with full-duplex links (OpenSM's builder is topology-agnostic; hop counts are those of the minhop/updn routing in force, else min-hop)",
    applies: full_duplex,
    build,
    creation: crate::plan::creation::not_modelled,
};

/// OpenSM's recursion guard: `mcast_mgr_branch` gives up on members at depth 64 and beyond.
pub const MAX_BRANCH_DEPTH: u32 = 64;
/// OpenSM's "no path" hop count; costs saturate here.
pub const NO_PATH_HOPS: u16 = 0xFF;
/// Distance of a switch that cannot reach a target at all.
const UNREACHED: u16 = u16::MAX;

fn full_duplex(f: &Fabric) -> Result<(), String> {
    if f.links().iter().any(|l| l.directed) {
        return Err("InfiniBand links are full duplex; this fabric has directed links".into());
    }
    Ok(())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default)]
    mlid: Option<Value>,
    #[serde(default)]
    ipoib: bool,
}

/// Reads an `mlid=` value: a number or a `0x` hexadecimal string, inside the multicast range.
pub fn parse_mlid(v: &Value) -> Result<u32, PlanError> {
    let bad = |m: String| PlanError::Param { param: "mlid", message: m };
    let n = match v {
        Value::Number(n) => n.as_u64().ok_or_else(|| bad(format!("`{n}` is not a LID")))?,
        Value::String(s) => {
            let t = s.trim();
            match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16).map_err(|_| bad(format!("`{s}` is not a hexadecimal LID")))?,
                None => t.parse::<u64>().map_err(|_| bad(format!("`{s}` is not a LID")))?,
            }
        }
        other => return Err(bad(format!("`{other}` is not a LID"))),
    };
    if !(MCAST_LID_START as u64..=MCAST_LID_END as u64).contains(&n) {
        return Err(bad(format!("0x{n:X} is outside the multicast LIDs 0xC000..=0xFFFE")));
    }
    Ok(n as u32)
}

/// OpenSM's MLID allocation (`get_new_mlid`, opensm.md §1.2): a requested MLID inside the
/// subnet's range that no group uses is granted; otherwise the lowest free MLID from 0xC000
/// (holes are reused).
#[derive(Clone, Debug)]
pub struct MlidPool {
    used: BTreeSet<u32>,
    /// Highest MLID the subnet allows: `0xC000 + MulticastFDBCap − 1` of the smallest switch.
    max: u32,
}

impl Default for MlidPool {
    fn default() -> Self {
        MlidPool { used: BTreeSet::new(), max: MCAST_LID_END }
    }
}

impl MlidPool {
    /// A pool limited by the smallest switch's `MulticastFDBCap` (ibsim's default is 1024).
    pub fn with_mft_cap(cap: u32) -> Result<MlidPool, PlanError> {
        if cap == 0 {
            return Err(PlanError::Param { param: "mft_cap", message: "a switch without MFT cannot multicast".into() });
        }
        Ok(MlidPool { used: BTreeSet::new(), max: (MCAST_LID_START + cap - 1).min(MCAST_LID_END) })
    }
    /// Allocates an MLID, honouring `requested` when it is free and in range.
    pub fn allocate(&mut self, requested: Option<u32>) -> Result<u32, PlanError> {
        let free = |m: u32, used: &BTreeSet<u32>| (MCAST_LID_START..=self.max).contains(&m) && !used.contains(&m);
        let pick = match requested.filter(|m| free(*m, &self.used)) {
            Some(m) => Some(m),
            None => (MCAST_LID_START..=self.max).find(|m| !self.used.contains(m)),
        };
        let m = pick.ok_or_else(|| PlanError::Param {
            param: "mlid",
            message: format!("all MLIDs 0xC000..=0x{:X} are in use", self.max),
        })?;
        self.used.insert(m);
        Ok(m)
    }
    /// Returns an MLID to the pool (the group was deleted).
    pub fn release(&mut self, mlid: u32) {
        self.used.remove(&mlid);
    }
}

/// The hop counts OpenSM's default multicast builder reads (`osm_switch_t.hops`, opensm.md §1.6,
/// §1.7): whatever the unicast engine in force left in the switches. Two sources implement it:
/// [`HopTable`] (exact min-hop by BFS, what `minhop` leaves, built only for the switches a group
/// needs) and the engines' own per-port [`HopMatrix`] (`minhop`, `updn`), so a tree built under
/// updn follows updn's up/down-restricted counts exactly as OpenSM's does.
pub trait McastHops: Sync {
    /// Least hops from `s` to target switch `t` (`hops[t][0]` at `s`); None without a path or
    /// when `t` is not covered.
    fn least_hops(&self, s: SwitchId, t: SwitchId) -> Option<u16>;
    /// Hops of a packet leaving `s` by port `p` (whose peer is switch `next`) towards `t`
    /// (`hops[t][p]` at `s`); None without a path.
    fn hops_via(&self, s: SwitchId, p: PortNum, next: SwitchId, t: SwitchId) -> Option<u16>;
    /// Root selection's inner loop: `cost[s] = max(cost[s], min(least(s, t), 0xFF) + w)` for
    /// every switch `s` ("no path" counts as OpenSM's 0xFF). Implementations read one contiguous
    /// row per target, which is what keeps 1,000 groups on 1,620 switches fast.
    fn raise_costs(&self, t: SwitchId, w: u16, cost: &mut [u16]);
}

impl McastHops for HopTable {
    fn least_hops(&self, s: SwitchId, t: SwitchId) -> Option<u16> {
        self.least(s, t).filter(|d| *d != UNREACHED)
    }
    fn hops_via(&self, _s: SwitchId, _p: PortNum, next: SwitchId, t: SwitchId) -> Option<u16> {
        self.least_hops(next, t).map(|d| d + 1)
    }
    fn raise_costs(&self, t: SwitchId, w: u16, cost: &mut [u16]) {
        match self.row.get(t.idx()).filter(|r| **r != u32::MAX) {
            Some(&r) => {
                let row = &self.dist[r as usize * self.switches..(r as usize + 1) * self.switches];
                for (c, d) in cost.iter_mut().zip(row) {
                    *c = (*c).max((*d).min(NO_PATH_HOPS) + w);
                }
            }
            // Not a target of this table: no path from anywhere.
            None => cost.iter_mut().for_each(|c| *c = (*c).max(NO_PATH_HOPS + w)),
        }
    }
}

impl<H: McastHops + Send + ?Sized> McastHops for std::sync::Arc<H> {
    fn least_hops(&self, s: SwitchId, t: SwitchId) -> Option<u16> {
        (**self).least_hops(s, t)
    }
    fn hops_via(&self, s: SwitchId, p: PortNum, next: SwitchId, t: SwitchId) -> Option<u16> {
        (**self).hops_via(s, p, next, t)
    }
    fn raise_costs(&self, t: SwitchId, w: u16, cost: &mut [u16]) {
        (**self).raise_costs(t, w, cost)
    }
}

impl McastHops for HopMatrix {
    fn least_hops(&self, s: SwitchId, t: SwitchId) -> Option<u16> {
        let d = self.least(s, t);
        (d != NO_PATH).then_some(d as u16)
    }
    fn hops_via(&self, s: SwitchId, p: PortNum, _next: SwitchId, t: SwitchId) -> Option<u16> {
        let d = self.hops(s, t, p);
        (d != NO_PATH).then_some(d as u16)
    }
    fn raise_costs(&self, t: SwitchId, w: u16, cost: &mut [u16]) {
        for (c, d) in cost.iter_mut().zip(self.least_to(t)) {
            *c = (*c).max(*d as u16 + w);
        }
    }
}

/// Min-hop distances from every switch to a set of target switches: the rows of OpenSM's hop
/// matrices that multicast routing reads (`hops[T.lid][·]`), computed by BFS over inter-switch
/// links (self-loop cables excluded: they never lie on a shortest path).
///
/// The BFS runs for 64 targets at once with one bit per target (a multi-source BFS), so a
/// broadcast on 2,048 leaf switches costs 32 sweeps over the links rather than 2,048.
pub struct HopTable {
    targets: Vec<SwitchId>,
    /// Row of each switch in `targets`, or `u32::MAX`.
    row: Vec<u32>,
    switches: usize,
    /// `dist[row · switches + s]`: hops from switch `s` to target `targets[row]`.
    dist: Vec<u16>,
    /// Per switch, the largest distance to any target (`UNREACHED` if one is unreachable).
    farthest: Vec<u16>,
}

impl HopTable {
    /// Distances to the distinct switches of `targets`.
    pub fn new(f: &Fabric, targets: &[SwitchId]) -> HopTable {
        let mut targets: Vec<SwitchId> = targets.to_vec();
        targets.sort_unstable();
        targets.dedup();
        let n = f.num_switches();
        let mut row = vec![u32::MAX; n];
        for (i, t) in targets.iter().enumerate() {
            row[t.idx()] = i as u32;
        }
        let adj = switch_adjacency(f);
        let mut dist = vec![UNREACHED; targets.len() * n];
        let mut farthest = vec![0u16; n];
        for (b, batch) in targets.chunks(64).enumerate() {
            bfs_batch(&adj, batch, b * 64, n, &mut dist, &mut farthest);
        }
        HopTable { targets, row, switches: n, dist, farthest }
    }
    /// The target switches, sorted.
    pub fn targets(&self) -> &[SwitchId] {
        &self.targets
    }
    /// Least hops from `s` to target `t` (None if `t` is not a target; `u16::MAX` if unreachable).
    pub fn least(&self, s: SwitchId, t: SwitchId) -> Option<u16> {
        let r = *self.row.get(t.idx())?;
        (r != u32::MAX).then(|| self.dist[r as usize * self.switches + s.idx()])
    }
    /// The largest least-hop count from `s` to any target.
    pub fn farthest(&self, s: SwitchId) -> u16 {
        self.farthest[s.idx()]
    }
}

/// Inter-switch neighbours of every switch (compressed rows), self-loops excluded.
fn switch_adjacency(f: &Fabric) -> Vec<Vec<u32>> {
    f.switch_ids().map(|s| f.switch_neighbors(s).into_iter().map(|(_, t, _, _)| t.0).collect()).collect()
}

/// One multi-source BFS for up to 64 targets (`first` = row of `batch[0]`): bit `i` of a switch's
/// word says target `batch[i]` has reached it.
fn bfs_batch(adj: &[Vec<u32>], batch: &[SwitchId], first: usize, n: usize, dist: &mut [u16], far: &mut [u16]) {
    let mut seen = vec![0u64; n];
    let mut frontier = vec![0u64; n];
    for (i, t) in batch.iter().enumerate() {
        seen[t.idx()] |= 1 << i;
        frontier[t.idx()] |= 1 << i;
        dist[(first + i) * n + t.idx()] = 0;
    }
    let full: u64 = if batch.len() == 64 { u64::MAX } else { (1u64 << batch.len()) - 1 };
    let mut next = vec![0u64; n];
    let mut level: u16 = 0;
    loop {
        level += 1;
        let mut any = false;
        for s in 0..n {
            let reach = adj[s].iter().fold(0u64, |acc, &t| acc | frontier[t as usize]);
            let new = reach & !seen[s];
            next[s] = new;
            if new != 0 {
                any = true;
                seen[s] |= new;
                far[s] = far[s].max(level);
                let mut bits = new;
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    dist[(first + i) * n + s] = level;
                    bits &= bits - 1;
                }
            }
        }
        if !any {
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
    }
    for s in 0..n {
        if seen[s] != full {
            far[s] = UNREACHED;
        }
    }
}

/// OpenSM's root choice (`mcast_mgr_find_optimal_switch`, non-ANAFA build) for CA-only groups:
/// the first switch, in switch-table order, minimizing `max over member switches T of
/// (hops(S, T) + 1)`; hop counts saturate at OpenSM's "no path" 0xFF. None for a fabric without
/// switches.
pub fn find_root_switch(f: &Fabric, hops: &HopTable) -> Option<SwitchId> {
    let mut best: Option<(u32, SwitchId)> = None;
    for s in guid_table_order(f) {
        let cost = hops.farthest(s).min(NO_PATH_HOPS) as u32 + 1;
        if best.is_none_or(|(b, _)| cost < b) {
            best = Some((cost, s));
        }
    }
    best.map(|(_, s)| s)
}

/// The root choice for any member set (CA ports and switch port 0s): the cost of candidate `S`
/// is `max over member switches T of (hops(S, T) + w(T))`, where `w(T)` is 0 when `T` itself
/// joined (its port 0 is a member) and 1 otherwise — OpenSM's quirk: a switch member that also
/// has CA members below it counts without the final hop (opensm.md §1.6). `order` is the switch
/// table order ([`guid_table_order`]); the first switch of least cost wins.
fn find_root_for<H: McastHops + ?Sized>(
    f: &Fabric,
    hops: &H,
    members: &[Member],
    order: &[SwitchId],
) -> Option<SwitchId> {
    // Weight per member switch: 0 if it joined itself, else 1.
    let mut weight: Vec<(SwitchId, u16)> = members
        .iter()
        .map(|m| match *m {
            Member::Port(e) => (f.attachment(e).0, 1),
            Member::Switch(s) => (s, 0),
        })
        .collect();
    weight.sort_unstable();
    weight.dedup_by_key(|(s, _)| *s);
    let mut cost = vec![0u16; f.num_switches()];
    for (t, w) in weight {
        hops.raise_costs(t, w, &mut cost);
    }
    let mut best: Option<(u16, SwitchId)> = None;
    for &s in order {
        if best.is_none_or(|(b, _)| cost[s.idx()] < b) {
            best = Some((cost[s.idx()], s));
        }
    }
    best.map(|(_, s)| s)
}

/// The tree OpenSM builds for one MLID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpensmTree {
    pub mlid: u32,
    /// The root switch (None when the group has fewer than two members: OpenSM builds nothing).
    pub root: Option<SwitchId>,
    /// MFT rows, by switch index; ports ascending.
    pub mft: Vec<MftEntry>,
    /// Members OpenSM would drop (no path, or deeper than [`MAX_BRANCH_DEPTH`]).
    pub dropped: Vec<Member>,
}

/// One pending `mcast_mgr_branch` call.
struct Frame {
    switch: SwitchId,
    members: Vec<Member>,
    depth: u32,
    /// Port of `switch` that leads back to its parent (0 at the root).
    upstream: u16,
}

/// OpenSM's default tree for the members (CA ports) of one MLID: root selection, then the
/// recursive partition by output port (see the module doc). Deterministic: members are taken in
/// index order, ports in ascending order.
pub fn opensm_tree(f: &Fabric, members: &[EndpointId], mlid: u32) -> OpensmTree {
    let members: Vec<Member> = members.iter().map(|e| Member::Port(*e)).collect();
    let mut switches: Vec<SwitchId> = members.iter().map(|m| member_switch(f, *m)).collect();
    switches.sort_unstable();
    switches.dedup();
    let hops = HopTable::new(f, &switches);
    opensm_tree_members(f, &hops, &guid_table_order(f), &members, mlid)
}

/// The switch a member is routed to: its own switch for a port 0, the attached one for a CA port.
pub fn member_switch(f: &Fabric, m: Member) -> SwitchId {
    match m {
        Member::Port(e) => f.attachment(e).0,
        Member::Switch(s) => s,
    }
}

/// OpenSM's default tree for any members (CA ports and switch port 0s) over a hop matrix whose
/// targets include every member's switch, with the switch-table `order` computed once by the
/// caller (it is the same for every group of a fabric). Fewer than two distinct members program
/// nothing (OpenSM's `mcast_mgr_build_spanning_tree`, opensm.md §1.5).
pub fn opensm_tree_members<H: McastHops + ?Sized>(
    f: &Fabric,
    hops: &H,
    order: &[SwitchId],
    members: &[Member],
    mlid: u32,
) -> OpensmTree {
    let mut members: Vec<Member> = members.to_vec();
    members.sort_unstable();
    members.dedup();
    let mut tree = OpensmTree { mlid, root: None, mft: Vec::new(), dropped: Vec::new() };
    if members.len() < 2 {
        return tree;
    }
    let Some(root) = find_root_for(f, hops, &members, order) else { return tree };
    tree.root = Some(root);
    let mut rows: Vec<(SwitchId, Vec<u16>)> = Vec::new();
    let mut stack = vec![Frame { switch: root, members, depth: 0, upstream: 0 }];
    while let Some(frame) = stack.pop() {
        let children = branch(f, hops, frame, &mut rows, &mut tree.dropped);
        // Reverse so that children are expanded in ascending port order, as the recursion does.
        stack.extend(children.into_iter().rev());
    }
    tree.dropped.sort_unstable();
    rows.sort_unstable_by_key(|(s, _)| *s);
    // A switch entered twice (possible only with hop matrices that are not exact min-hop) keeps
    // the union of its ports, as OpenSM's bitwise OR into the MFT does.
    let mut merged: Vec<(SwitchId, Vec<u16>)> = Vec::with_capacity(rows.len());
    for (s, r) in rows {
        match merged.last_mut() {
            Some((t, acc)) if *t == s => acc.extend(r),
            _ => merged.push((s, r)),
        }
    }
    tree.mft = merged
        .into_iter()
        .filter(|(_, r)| !r.is_empty())
        .map(|(switch, mut r)| {
            r.sort_unstable();
            r.dedup();
            MftEntry { mlid, switch, ports: r.into_iter().map(PortNum).collect() }
        })
        .collect();
    tree
}

/// One `mcast_mgr_branch` step at `frame.switch`: sets its MFT row and returns the switch
/// children to visit, in ascending port order.
fn branch<H: McastHops + ?Sized>(
    f: &Fabric,
    hops: &H,
    frame: Frame,
    rows: &mut Vec<(SwitchId, Vec<u16>)>,
    dropped: &mut Vec<Member>,
) -> Vec<Frame> {
    let depth = frame.depth + 1;
    if depth >= MAX_BRANCH_DEPTH {
        dropped.extend(frame.members);
        return Vec::new();
    }
    let s = frame.switch;
    let ports = f.switch(s).ports as usize;
    let mut lists: Vec<Vec<Member>> = vec![Vec::new(); ports + 1];
    for m in frame.members {
        match recommend_member_port(f, hops, s, m) {
            Some(p) => lists[p.0 as usize].push(m),
            None => dropped.push(m),
        }
    }
    let mut row = Vec::new();
    if depth > 1 {
        row.push(frame.upstream);
    }
    let mut children = Vec::new();
    for (p, list) in lists.into_iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        if p == 0 {
            // The switch itself is a member: its port 0 receives (mcast_mgr_branch 638-650).
            row.push(0);
            continue;
        }
        let Some(pp) = f.port(s, PortNum(p as u16)) else {
            dropped.extend(list);
            continue;
        };
        row.push(p as u16);
        if let Terminal::Switch { switch, port } = pp.peer {
            children.push(Frame { switch, members: list, depth, upstream: port.0 });
        }
    }
    rows.push((s, row));
    children
}

/// `osm_switch_recommend_mcast_path` for a CA member: its own port if it hangs on `s`, else the
/// lowest-numbered port whose neighbour is one hop closer to the member's switch. None when the
/// member's switch is unreachable.
pub fn recommend_port(f: &Fabric, hops: &HopTable, s: SwitchId, member: EndpointId) -> Option<PortNum> {
    recommend_member_port(f, hops, s, Member::Port(member))
}

/// `osm_switch_recommend_mcast_path` for any member: port 0 when the member is `s` itself, the
/// CA's own port when it hangs on `s`, else the lowest-numbered port towards another switch whose
/// hop count to the member's switch is the least one (`hops[target][p] == hops[target][0]`).
pub fn recommend_member_port<H: McastHops + ?Sized>(
    f: &Fabric,
    hops: &H,
    s: SwitchId,
    member: Member,
) -> Option<PortNum> {
    let target = match member {
        Member::Switch(t) if t == s => return Some(PortNum(0)),
        Member::Switch(t) => t,
        Member::Port(e) => {
            let (t, port) = f.attachment(e);
            if t == s {
                return Some(port);
            }
            t
        }
    };
    let least = hops.least_hops(s, target)?;
    f.switch_ports(s).find(|&p| match f.port(s, p).map(|pp| pp.peer) {
        Some(Terminal::Switch { switch: next, .. }) if next != s => hops.hops_via(s, p, next, target) == Some(least),
        _ => false,
    })
}

fn build(input: &SchemeInput<'_>, p: &Map<String, Value>) -> Result<Plan, PlanError> {
    let params: Params = spec::typed("scheme", "ib_opensm", p)?;
    let requested = params.mlid.as_ref().map(parse_mlid).transpose()?;
    let mut pool = MlidPool::default();
    if params.ipoib {
        pool.allocate(None)?;
    }
    let mlid = pool.allocate(requested)?;
    let mut members: Vec<EndpointId> = input.destinations.to_vec();
    members.push(input.source);
    // Under an OpenSM engine (minhop, updn) the tree follows that engine's hop matrix, as
    // OpenSM's builder does; other routings leave no matrix, and OpenSM would use minhop's.
    let tree = match input.routing.opensm_matrix() {
        Some(m) => {
            let members: Vec<Member> = members.iter().map(|e| Member::Port(*e)).collect();
            opensm_tree_members(input.fabric, &*m, &guid_table_order(input.fabric), &members, mlid)
        }
        None => opensm_tree(input.fabric, &members, mlid),
    };
    let tx = vec![Transmission {
        sender: input.source,
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid },
        delivers: input.destinations.to_vec(),
    }];
    let name = format!("ib_opensm:mlid=0x{mlid:X},ipoib={}", params.ipoib);
    Plan::from_transmissions(
        input.fabric,
        &name,
        input.source,
        input.destinations.to_vec(),
        input.packets,
        input.discipline,
        tx,
    )?
    .with_switch_state(input.fabric, SwitchState { mft: tree.mft, ..Default::default() })
}
