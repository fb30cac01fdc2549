//! Exact extreme eccentricities of the switch graph without a BFS from every switch.
//!
//! The default up*/down* root (a centre) and the fabric's diameters need the smallest or the
//! largest eccentricity. Computing every eccentricity costs a BFS per switch, O(S·(S+L)): on a
//! 20,000-switch chain that alone took minutes. Takes & Kosters' bounding algorithm ("Determining
//! the diameter of small world networks", CIKM 2011) gives the same exact answers with few BFS
//! on real topologies: a BFS from `v` with eccentricity `e` bounds every `w` by
//! `max(e − d(v,w), d(v,w)) ≤ ecc(w) ≤ e + d(v,w)` (triangle inequality), and a switch whose
//! bounds can no longer change the answer is dropped. Worst case it is the BFS from every
//! switch again, never more. Distances must be symmetric: callers use it on full-duplex
//! fabrics only.

use super::Fabric;
use crate::ids::SwitchId;
use std::collections::VecDeque;

/// BFS hop distances from `s` over inter-switch links (None: unreachable).
pub fn bfs(f: &Fabric, s: SwitchId) -> Vec<Option<u32>> {
    let mut d = vec![None; f.num_switches()];
    d[s.idx()] = Some(0);
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        let du = d[u.idx()].unwrap_or(0);
        for (_, t, _, _) in f.switch_neighbors(u) {
            if d[t.idx()].is_none() {
                d[t.idx()] = Some(du + 1);
                q.push_back(t);
            }
        }
    }
    d
}

/// Which extreme is wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    /// The radius, and every switch attaining it (the centre).
    Min,
    /// The diameter.
    Max,
}

/// The smallest or largest eccentricity over the switches in `among`, where a switch's
/// eccentricity is its largest distance to a switch in `towards`, with (for `Min`) every switch
/// of `among` attaining it in ascending id order. `among` must be non-empty and a subset of
/// `towards` or equal to all switches, and the fabric connected and full duplex. With a
/// `budget` (in BFS steps: switches + links per BFS), None once the next BFS would pass it:
/// on fat trees, whose switches all have nearly the same eccentricity, the bounds prune little.
pub fn extreme(
    f: &Fabric,
    among: &[bool],
    towards: &[bool],
    want: Extreme,
    budget: Option<u64>,
) -> Option<(u32, Vec<SwitchId>)> {
    let per_bfs = (f.num_switches() + f.num_links()) as u64;
    let mut spent: u64 = 0;
    let n = f.num_switches();
    let mut lo = vec![0u32; n];
    let mut hi = vec![u32::MAX; n];
    let mut active: Vec<bool> = among.to_vec();
    let mut pick_low = true;
    loop {
        // The best bound so far: the largest lower bound (Max) or the smallest upper bound (Min).
        let best = match want {
            Extreme::Max => (0..n).filter(|&i| among[i]).map(|i| lo[i]).max().unwrap_or(0),
            Extreme::Min => (0..n).filter(|&i| among[i]).map(|i| hi[i]).min().unwrap_or(0),
        };
        for i in 0..n {
            let settled = lo[i] == hi[i];
            let useless = match want {
                Extreme::Max => hi[i] <= best,
                Extreme::Min => lo[i] > best,
            };
            if active[i] && (settled || useless) {
                active[i] = false;
            }
        }
        // Alternate between the most and the least promising switch (ties: lowest id).
        let cands = (0..n).filter(|&i| active[i]);
        let v = if pick_low { cands.min_by_key(|&i| (lo[i], i)) } else { cands.max_by_key(|&i| (hi[i], n - i)) };
        let Some(v) = v else {
            let centre = (0..n).filter(|&i| among[i] && hi[i] == best).map(|i| SwitchId(i as u32)).collect();
            return Some((best, centre));
        };
        spent = spent.saturating_add(per_bfs);
        if budget.is_some_and(|b| spent > b) {
            return None;
        }
        pick_low = !pick_low;
        let d = bfs(f, SwitchId(v as u32));
        let e = (0..n).filter(|&i| towards[i]).filter_map(|i| d[i]).max().unwrap_or(0);
        let v_is_target = towards[v];
        for w in 0..n {
            let Some(dw) = d[w] else { continue };
            let mut l = e.saturating_sub(dw);
            if v_is_target {
                l = l.max(dw);
            }
            lo[w] = lo[w].max(l);
            hi[w] = hi[w].min(e.saturating_add(dw));
        }
        lo[v] = e;
        hi[v] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::generators::generate;

    /// Every eccentricity by brute force.
    fn brute(f: &Fabric, among: &[bool], towards: &[bool]) -> Vec<(u32, SwitchId)> {
        f.switch_ids()
            .filter(|s| among[s.idx()])
            .map(|s| {
                let d = bfs(f, s);
                ((0..d.len()).filter(|&i| towards[i]).filter_map(|i| d[i]).max().unwrap_or(0), s)
            })
            .collect()
    }

    #[test]
    fn bounds_give_the_brute_force_radius_centre_and_diameter() {
        for spec in ["irregular", "irregular:switches=40,ports=6,endpoints=50,seed=3", "mesh:7x3", "kary_ntree:k=3,n=3"]
        {
            let f = generate(spec).unwrap();
            let all = vec![true; f.num_switches()];
            let hosts: Vec<bool> = f.switch_ids().map(|s| !f.endpoints_at(s).is_empty()).collect();
            for (among, towards) in [(&all, &all), (&hosts, &hosts)] {
                let b = brute(&f, among, towards);
                let r = b.iter().map(|x| x.0).min().unwrap();
                let centre: Vec<SwitchId> = b.iter().filter(|x| x.0 == r).map(|x| x.1).collect();
                assert_eq!(extreme(&f, among, towards, Extreme::Min, None), Some((r, centre)), "{spec}");
                let dmax = b.iter().map(|x| x.0).max().unwrap();
                assert_eq!(extreme(&f, among, towards, Extreme::Max, None).map(|x| x.0), Some(dmax), "{spec}");
                assert_eq!(extreme(&f, among, towards, Extreme::Max, Some(1)), None, "{spec}: over budget");
            }
        }
    }
}
