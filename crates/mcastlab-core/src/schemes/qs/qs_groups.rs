//! coll03 §5.1–5.2: contiguous destination groups on a k-ary n-tree and the two ways parallel
//! hardware multicasts of one tree step can collide.
//!
//! A Quadrics hardware multicast reaches one contiguous range of endpoints, so a destination set
//! with holes (faulty or non-member endpoints) is cut into maximal contiguous *groups*. Each group
//! `[x, x']` has a root switch at level `l` = the smallest `l` with `x div k^(l+1) = x' div k^(l+1)`
//! (level 0 is where endpoints attach). A tree step sends, in parallel, one multicast per node that
//! already holds the message; two multicasts may run in parallel only if they share no link:
//!
//! - **Backward overlap** (Eq. 1): below the root the copies follow the broadcast tree, so two groups
//!   collide at level `l` when both use at least two of its level-`l` links (`x div k^l ≠ x' div
//!   k^l`) and one group ends in the block of `k^l` endpoints where the other begins. It does not
//!   depend on the senders.
//! - **Forward overlap** (Eqs. 2–3): on the way up, a multicast to a level-`l` root must use the
//!   broadcast-tree up links below level `l`, and two senders in the same block of `k^l` endpoints
//!   share the last of them. The *capabilities* `c` count, level by level from the top, how many
//!   holders can reach a root of that level in parallel (each holder counted once), the *needs* `n`
//!   count the groups whose root is at that level, and the differences `d` carry spare capability
//!   down; a negative `d_l` is an overlap at level `l`.
//!
//! The capabilities have a closed form: holders claimed at levels `≥ l` must lie in distinct
//! blocks of `k^l` endpoints, so `c_{L−1} + … + c_l = V_l`, the number of such blocks that hold
//! the message. The paper's example (holders {0, 2} on 16 nodes: one block of 4, two holders) gives
//! `c = (1, 1)`, and with it Eq. 2 reduces to "`N_l ≤ V_l` for every level", `N_l` being the number
//! of groups with root level `≥ l` — Hall's condition for giving every group its own up path, which
//! is why a sender assignment always exists when no forward overlap is found.

use crate::error::PlanError;
use crate::fabric::generators::kary_ntree::{self, KaryNtree};
use crate::ids::EndpointId;
use fixedbitset::FixedBitSet;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// A contiguous group of endpoints `lo..=hi` with the level of its root switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct QsGroup {
    pub lo: EndpointId,
    pub hi: EndpointId,
    /// Level of the root switch (coll03 Definition 2).
    pub level: u32,
}

impl QsGroup {
    /// Number of endpoints in the group.
    pub fn len(&self) -> u32 {
        self.hi.0 - self.lo.0 + 1
    }
    /// Never true: a group has at least one endpoint (for clippy's `len` convention).
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn contains(&self, x: EndpointId) -> bool {
        self.lo <= x && x <= self.hi
    }
    /// The paper's `[x, x']` notation.
    pub fn text(&self) -> String {
        format!("[{}, {}]", self.lo.0, self.hi.0)
    }
}

/// The paper's ordering heuristic (§5.3): more endpoints first, equal sizes by higher root level,
/// then left to right so that the order is total.
pub fn heuristic_cmp(a: &QsGroup, b: &QsGroup) -> Ordering {
    b.len().cmp(&a.len()).then(b.level.cmp(&a.level)).then(a.lo.cmp(&b.lo))
}

/// Sorts groups by [`heuristic_cmp`].
pub fn sort_heuristic(v: &mut [QsGroup]) {
    v.sort_unstable_by(heuristic_cmp);
}

/// Where two groups of a combination overlap in the backward phase: indices into the combination
/// of the positionally left and right group, and the level (the lowest at which Eq. 1 holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackwardOverlap {
    pub left: usize,
    pub right: usize,
    pub level: u32,
}

/// What keeps a combination of groups from being reached in one tree step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    Backward(BackwardOverlap),
    /// The highest level with a negative difference `d_l` (Eq. 3).
    Forward(u32),
}

/// The shape the coll03 algorithms work on: arity `k`, `levels` switch levels, and the `size`
/// endpoints `0..size` that exist (a network smaller than `k^levels`, such as the 2048-node
/// configuration of Table 1, is the left part of the full tree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QsNet {
    k: u32,
    levels: u32,
    size: u32,
    /// `k^0 ..= k^levels`.
    pow: Vec<u32>,
}

fn param(param: &'static str, message: String) -> PlanError {
    PlanError::Param { param, message }
}

impl QsNet {
    /// Checks `k ≥ 2`, `levels ≥ 1`, `k^levels` within the generator's limit and
    /// `1 ≤ size ≤ k^levels`.
    pub fn new(k: u32, levels: u32, size: u32) -> Result<QsNet, PlanError> {
        let tree = KaryNtree::new(k, levels).map_err(|e| match e {
            crate::FabricError::Param { param: p, message } => param(p, message),
            other => param("k", other.to_string()),
        })?;
        if size == 0 || size > tree.num_endpoints() {
            return Err(param("size", format!("{size} is not in 1..={} (k^levels)", tree.num_endpoints())));
        }
        let pow = (0..=levels).map(|l| k.pow(l)).collect();
        Ok(QsNet { k, levels, size, pow })
    }

    /// The whole tree.
    pub fn from_tree(t: &KaryNtree) -> QsNet {
        QsNet { k: t.k(), levels: t.n(), size: t.num_endpoints(), pow: (0..=t.n()).map(|l| t.k().pow(l)).collect() }
    }

    /// The smallest k-ary tree with at least `size` endpoints, of which `0..size` exist.
    pub fn for_size(k: u32, size: u32) -> Result<QsNet, PlanError> {
        if k < 2 {
            return Err(param("k", format!("{k} is less than 2")));
        }
        let mut levels = 1;
        while (k as u64).pow(levels) < size as u64 {
            levels += 1;
        }
        QsNet::new(k, levels, size)
    }

    pub fn k(&self) -> u32 {
        self.k
    }
    /// Number of switch levels (`L` in Eq. 2; `n` of the k-ary n-tree).
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Number of endpoints that exist.
    pub fn size(&self) -> u32 {
        self.size
    }
    /// `k^level`.
    pub fn span(&self, level: u32) -> u32 {
        self.pow[level as usize]
    }
    /// Block of `k^level` endpoints that `x` lies in (`⌊x / k^level⌋`).
    pub fn block(&self, x: EndpointId, level: u32) -> u32 {
        x.0 / self.pow[level as usize]
    }

    /// Root switch level of `[lo, hi]`: the smallest `l` with equal blocks of `k^(l+1)`.
    pub fn root_level(&self, lo: EndpointId, hi: EndpointId) -> u32 {
        kary_ntree::nca_level(self.k, lo, hi).unwrap_or(0)
    }

    /// The group `[lo, hi]`, checked against the network.
    pub fn group(&self, lo: EndpointId, hi: EndpointId) -> Result<QsGroup, PlanError> {
        if lo > hi || hi.0 >= self.size {
            return Err(param("group", format!("[{}, {}] is not a range of 0..{}", lo.0, hi.0, self.size)));
        }
        Ok(self.group_of(lo.0, hi.0))
    }

    pub(crate) fn group_of(&self, lo: u32, hi: u32) -> QsGroup {
        let (lo, hi) = (EndpointId(lo), EndpointId(hi));
        QsGroup { lo, hi, level: self.root_level(lo, hi) }
    }

    /// Cuts a set of endpoints into maximal contiguous groups, left to right. Every endpoint outside
    /// the set (faulty, not a member, the source) breaks contiguity.
    pub fn decompose(&self, members: &[EndpointId]) -> Result<Vec<QsGroup>, PlanError> {
        let mut v: Vec<u32> = members.iter().map(|e| e.0).collect();
        v.sort_unstable();
        v.dedup();
        if let Some(&x) = v.last().filter(|&&x| x >= self.size) {
            return Err(param("group", format!("endpoint {x} is not in 0..{}", self.size)));
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < v.len() {
            let start = v[i];
            while i + 1 < v.len() && v[i + 1] == v[i] + 1 {
                i += 1;
            }
            out.push(self.group_of(start, v[i]));
            i += 1;
        }
        Ok(out)
    }

    /// Eq. 1 at one level `l ≥ 1`, literally: both groups use two or more links of level `l` and one
    /// ends in the block where the other begins.
    pub fn backward_overlap_at(&self, a: &QsGroup, b: &QsGroup, l: u32) -> bool {
        let bl = |x: EndpointId| self.block(x, l);
        bl(a.lo) != bl(a.hi) && bl(b.lo) != bl(b.hi) && (bl(a.hi) == bl(b.lo) || bl(a.lo) == bl(b.hi))
    }

    /// The lowest level at which two groups overlap in the backward phase (Eq. 1), if any.
    pub fn backward_overlap(&self, a: &QsGroup, b: &QsGroup) -> Option<u32> {
        (1..self.levels).find(|&l| self.backward_overlap_at(a, b, l))
    }

    /// The first backward overlap of a combination, scanning its groups left to right and checking
    /// each against those before it (coll03 §5.2.1). Only the nearest earlier group using two or more
    /// level-`l` links can share a level-`l` block with the current one (any group in between would
    /// have to fit inside that block), so the scan is `O(q·levels)` after sorting.
    pub fn first_backward_overlap(&self, c: &[QsGroup]) -> Option<BackwardOverlap> {
        let mut order: Vec<usize> = (0..c.len()).collect();
        if !c.windows(2).all(|w| w[0].lo < w[1].lo) {
            order.sort_unstable_by_key(|&i| c[i].lo);
        }
        let mut wide: Vec<Option<usize>> = vec![None; self.levels as usize];
        for &i in &order {
            let g = &c[i];
            for l in 1..=g.level.min(self.levels - 1) {
                if let Some(j) = wide[l as usize] {
                    if self.block(c[j].hi, l) == self.block(g.lo, l) {
                        return Some(BackwardOverlap { left: j, right: i, level: l });
                    }
                }
            }
            for slot in wide.iter_mut().take(g.level as usize + 1).skip(1) {
                *slot = Some(i);
            }
        }
        None
    }

    /// Splits `g` at `boundary` (the first endpoint of the second piece).
    fn split_at(&self, g: &QsGroup, boundary: u32) -> [QsGroup; 2] {
        [self.group_of(g.lo.0, boundary - 1), self.group_of(boundary, g.hi.0)]
    }

    /// The two alternatives of coll03 §5.2.1 for a backward overlap in combination `c`: first the
    /// right group is split where the shared block ends (`right_try`), then the left group where it
    /// begins (`left_try`). The other groups are kept; the pieces take the split group's place, so
    /// a list in left-to-right order stays so.
    /// For `[2, 5], [7, 15]` on 16 nodes: `[2, 5], [7, 7], [8, 15]` and `[2, 3], [4, 5], [7, 15]`.
    pub fn resolve_backward(&self, c: &[QsGroup], ov: &BackwardOverlap) -> (Vec<QsGroup>, Vec<QsGroup>) {
        let span = self.span(ov.level);
        let shared = self.block(c[ov.left].hi, ov.level);
        let right = self.split_at(&c[ov.right], (shared + 1) * span);
        let left = self.split_at(&c[ov.left], shared * span);
        (replace(c, ov.right, &right), replace(c, ov.left, &left))
    }

    /// The needs `n = (n_{L−1}, …, n_0)`: groups per root level, highest level first.
    pub fn needs(&self, groups: &[QsGroup]) -> Vec<u32> {
        let mut n = vec![0u32; self.levels as usize];
        for g in groups {
            n[(self.levels - 1 - g.level) as usize] += 1;
        }
        n
    }

    /// The differences of Eq. 2, highest level first: `d_{L−1} = c_{L−1} − n_{L−1}` and, going
    /// down, `d_i = c_i − n_i` plus `d_{i+1}` when that is positive (spare capability moves down).
    pub fn differences(c: &[u32], n: &[u32]) -> Vec<i64> {
        let mut d: Vec<i64> = Vec::with_capacity(c.len());
        for (ci, ni) in c.iter().zip(n) {
            let carry = d.last().copied().filter(|x| *x > 0).unwrap_or(0);
            d.push(*ci as i64 - *ni as i64 + carry);
        }
        d
    }

    /// Forward overlap (Eq. 3): the highest level `l` with `d_l < 0`, if any.
    pub fn forward_overlap(&self, holders: &Holders, groups: &[QsGroup]) -> Option<u32> {
        let d = QsNet::differences(&holders.capabilities(), &self.needs(groups));
        d.iter().position(|x| *x < 0).map(|i| self.levels - 1 - i as u32)
    }

    /// Splits a group into the pieces below each child of its root switch: their roots are at least
    /// one level lower (coll03 §5.2.2: `[3, 7]` → `[3, 3], [4, 7]`). A level-0 group stays whole.
    pub fn split_children(&self, g: &QsGroup) -> Vec<QsGroup> {
        if g.level == 0 {
            return vec![*g];
        }
        let span = self.span(g.level);
        let mut out = Vec::new();
        let mut lo = g.lo.0;
        while lo <= g.hi.0 {
            let end = ((lo / span + 1) * span - 1).min(g.hi.0);
            out.push(self.group_of(lo, end));
            lo = end + 1;
        }
        out
    }

    /// The alternatives of coll03 §5.2.2 for a forward overlap at `level`: one list per group of `c`
    /// whose root is at or above `level`, with that group split by [`QsNet::split_children`] in its
    /// place. They are tried in the order [`QsNet::split_order`] gives, so the first one is the
    /// greedy choice.
    pub fn resolve_forward(&self, c: &[QsGroup], level: u32) -> Vec<Vec<QsGroup>> {
        QsNet::split_order(c, level).into_iter().map(|i| self.split_group(c, i)).collect()
    }

    /// Which group to split for a forward overlap at `level`, best first: groups whose root is
    /// exactly at `level`, then the higher ones, each from the last in heuristic order (the least
    /// promising group, §5.3) to the first. Only splitting a group at exactly `level` lowers the
    /// count of groups at `level` and above by one without touching the higher levels, which have no
    /// overlap; there always is such a group, since `N_l > V_l` while `N_{l+1} ≤ V_{l+1}`. (coll03
    /// leaves this choice open in Algorithm 2; its Fig. 5 text lists the bigger group first.)
    pub fn split_order(c: &[QsGroup], level: u32) -> Vec<usize> {
        let mut high: Vec<usize> = (0..c.len()).filter(|&i| c[i].level >= level).collect();
        high.sort_unstable_by(|&a, &b| split_cmp(&c[a], &c[b], level));
        high
    }

    /// The first of [`QsNet::split_order`], found in one pass.
    pub fn first_to_split(c: &[QsGroup], level: u32) -> Option<usize> {
        (0..c.len()).filter(|&i| c[i].level >= level).min_by(|&a, &b| split_cmp(&c[a], &c[b], level))
    }

    /// `c` with group `i` split by [`QsNet::split_children`] in its place.
    pub fn split_group(&self, c: &[QsGroup], i: usize) -> Vec<QsGroup> {
        replace(c, i, &self.split_children(&c[i]))
    }

    /// A lower bound on the groups of any overlap-free list covering the same endpoints as `c`
    /// (ignoring backward overlaps): at every level `l ≥ 1` at most `V_l` pieces may have their root
    /// at `l` or above, and a group without such a piece is cut into at least one piece per block of
    /// `k^l` endpoints it touches (`B_l`). Keeping the `V_l` groups with the most blocks whole is the
    /// best case, so the list needs at least `Σ B_l − Σ_{best V_l} (B_l − 1)` groups.
    pub fn min_groups_after_repair(&self, holders: &Holders, c: &[QsGroup]) -> usize {
        let mut bound = c.len();
        let mut extra: Vec<u32> = Vec::with_capacity(c.len());
        for l in 1..self.levels {
            extra.clear();
            extra.extend(c.iter().map(|g| self.block(g.hi, l) - self.block(g.lo, l)));
            let whole = (holders.occupied_blocks(l) as usize).min(extra.len());
            if whole < extra.len() {
                extra.select_nth_unstable_by(whole, |a, b| b.cmp(a));
            }
            let cut: usize = extra[whole..].iter().map(|x| *x as usize).sum();
            bound = bound.max(c.len() + cut);
        }
        bound
    }

    /// Why the combination `c` cannot be reached in one step from `holders`: backward overlaps are
    /// looked for first, because removing them splits groups later on their way and keeps pieces
    /// bigger (coll03 §5.2.2, last paragraph).
    pub fn check(&self, holders: &Holders, c: &[QsGroup]) -> Option<Overlap> {
        if let Some(ov) = self.first_backward_overlap(c) {
            return Some(Overlap::Backward(ov));
        }
        self.forward_overlap(holders, c).map(Overlap::Forward)
    }
}

/// The order of [`QsNet::split_order`]: groups exactly at `level` first, then from the last in
/// heuristic order to the first.
fn split_cmp(a: &QsGroup, b: &QsGroup, level: u32) -> Ordering {
    (a.level != level).cmp(&(b.level != level)).then(heuristic_cmp(b, a))
}

/// `c` with element `i` replaced by `pieces` (in their order) at its place.
fn replace(c: &[QsGroup], i: usize, pieces: &[QsGroup]) -> Vec<QsGroup> {
    let mut v = Vec::with_capacity(c.len() + pieces.len());
    v.extend_from_slice(&c[..i]);
    v.extend_from_slice(pieces);
    v.extend_from_slice(&c[i + 1..]);
    v
}

/// The `h` best groups of `list` by the heuristic order, kept in left-to-right order (the list itself
/// when it is not longer than `h`): the combination a step takes first.
pub fn best(list: &[QsGroup], h: usize) -> Vec<QsGroup> {
    if list.len() <= h {
        return list.to_vec();
    }
    let mut v = list.to_vec();
    v.sort_unstable_by(heuristic_cmp);
    v.truncate(h);
    v.sort_unstable();
    v
}

/// The endpoints holding the message, kept as the set of occupied blocks of `k^l` endpoints at every
/// level `l` (level 0: the endpoints themselves), which is all the capabilities depend on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Holders {
    blocks: Vec<FixedBitSet>,
    counts: Vec<u32>,
}

impl Holders {
    pub fn new(net: &QsNet) -> Holders {
        let blocks =
            (0..net.levels).map(|l| FixedBitSet::with_capacity(net.size.div_ceil(net.span(l)) as usize)).collect();
        Holders { blocks, counts: vec![0; net.levels as usize] }
    }

    pub fn from_endpoints(net: &QsNet, es: &[EndpointId]) -> Holders {
        let mut h = Holders::new(net);
        for e in es {
            h.add_range(net, *e, *e);
        }
        h
    }

    /// Adds `lo..=hi`: `O(Σ_l (hi − lo)/k^l + levels)`.
    pub fn add_range(&mut self, net: &QsNet, lo: EndpointId, hi: EndpointId) {
        for l in 0..net.levels {
            let (a, b) = (net.block(lo, l) as usize, net.block(hi, l) as usize);
            let bits = &mut self.blocks[l as usize];
            let before = bits.count_ones(a..b + 1);
            bits.insert_range(a..b + 1);
            self.counts[l as usize] += (b - a + 1 - before) as u32;
        }
    }

    /// Number of endpoints holding the message.
    pub fn count(&self) -> u32 {
        self.counts[0]
    }
    pub fn contains(&self, x: EndpointId) -> bool {
        self.blocks[0].contains(x.idx())
    }
    /// `V_l`: blocks of `k^l` endpoints with at least one holder.
    pub fn occupied_blocks(&self, level: u32) -> u32 {
        self.counts[level as usize]
    }
    /// The capabilities `c = (c_{L−1}, …, c_0)`: `c_l = V_l − V_{l+1}` (with `V_L = 0`).
    pub fn capabilities(&self) -> Vec<u32> {
        let levels = self.counts.len();
        (0..levels).rev().map(|l| self.counts[l] - self.counts.get(l + 1).copied().unwrap_or(0)).collect()
    }
    /// The holders, ascending.
    pub fn endpoints(&self) -> impl Iterator<Item = EndpointId> + '_ {
        self.blocks[0].ones().map(|i| EndpointId(i as u32))
    }
}
