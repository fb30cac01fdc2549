//! Per-channel times of flight: which class each channel of a fabric is in (terminal, a torus's
//! wrap-around, a tree level, or none) and the time [`Params`] gives that class. Both switch
//! models take their link and credit delays from [`Params::channel_propagation_ps`].

use super::Params;
use crate::fabric::{Channel, Fabric, Terminal, Topology};
use crate::ids::SwitchId;
use std::collections::VecDeque;

impl Params {
    /// Time of flight of every channel of `f`, ps: `link.terminal_propagation` for a channel
    /// from or to an endpoint, `link.wrap_propagation` for a torus wrap-around link,
    /// `link.level_propagation` by the level of a link between switches (`switch_heights`),
    /// `link.propagation` for the others (each of the first three defaults to the last).
    pub fn channel_propagation_ps(&self, f: &Fabric) -> Vec<u64> {
        let base = self.link.propagation.ps();
        let terminal = self.link.terminal_propagation.map_or(base, |t| t.ps());
        let wrap = self.link.wrap_propagation.map_or(base, |t| t.ps());
        let levels = &self.link.level_propagation;
        let heights = (!levels.is_empty()).then(|| switch_heights(f));
        let dims = match f.topology() {
            Topology::Torus(t) => Some(t.dims.clone()),
            _ => None,
        };
        let wraps = |a: SwitchId, b: SwitchId| {
            dims.as_ref().is_some_and(|dims| {
                let (ca, cb) = (f.switch(a).coords.as_ref(), f.switch(b).coords.as_ref());
                ca.zip(cb).is_some_and(|(ca, cb)| {
                    ca.iter().zip(cb).zip(dims).any(|((&x, &y), &k)| k > 2 && x.abs_diff(y) == k - 1)
                })
            })
        };
        let level = |a: SwitchId, b: SwitchId| {
            let h = heights.as_ref()?;
            let k = h[a.idx()]?.max(h[b.idx()]?) as usize;
            (k >= 1).then(|| levels.get(k - 1)).flatten().map(|t| t.ps())
        };
        (0..f.num_channels())
            .map(|c| match f.channel_ends(Channel(c as u32)) {
                (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) => {
                    if wraps(a, b) {
                        wrap
                    } else {
                        level(a, b).unwrap_or(base)
                    }
                }
                _ => terminal,
            })
            .collect()
    }

    /// The longest time of flight any channel can have, ps.
    pub(crate) fn longest_propagation_ps(&self) -> u64 {
        let l = &self.link;
        [l.terminal_propagation, l.wrap_propagation]
            .iter()
            .flatten()
            .chain(&l.level_propagation)
            .map(|t| t.ps())
            .fold(l.propagation.ps(), u64::max)
    }
}

/// Per switch: its height, the fewest switch-to-switch hops to a switch with an endpoint (0 for
/// those; `None` when no such switch is reachable). A link between switches is at the level of
/// its higher end: in a fat-tree, 1 from the leaves to the level above, and so on up, whatever
/// way the generator numbers its levels.
pub(crate) fn switch_heights(f: &Fabric) -> Vec<Option<u32>> {
    let n = f.num_switches();
    let mut next: Vec<Vec<SwitchId>> = vec![Vec::new(); n];
    let mut h: Vec<Option<u32>> = vec![None; n];
    let mut queue = VecDeque::new();
    for c in 0..f.num_channels() {
        match f.channel_ends(Channel(c as u32)) {
            (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) => next[a.idx()].push(b),
            (Terminal::Endpoint { .. }, Terminal::Switch { switch, .. }) if h[switch.idx()].is_none() => {
                h[switch.idx()] = Some(0);
                queue.push_back(switch);
            }
            _ => {}
        }
    }
    while let Some(s) = queue.pop_front() {
        let d = h[s.idx()].expect("queued switches have a height") + 1;
        for &t in &next[s.idx()] {
            if h[t.idx()].is_none() {
                h[t.idx()] = Some(d);
                queue.push_back(t);
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::switch_heights;
    use crate::fabric::generators::generate;
    use crate::fabric::{Channel, Terminal};
    use crate::sim::{Params, Time};

    /// A 3-level 2-ary fat-tree: 4 switches per level, 8 endpoints.
    #[test]
    fn a_fat_trees_levels_count_from_the_leaves() {
        let f = generate("kary_ntree:k=2,n=3").unwrap();
        let h = switch_heights(&f);
        let count = |k| h.iter().filter(|&&x| x == Some(k)).count();
        assert_eq!((count(0), count(1), count(2)), (4, 4, 4), "{h:?}");
        let mut p = Params::preset("booksim_iq").unwrap();
        p.link.propagation = Time(1_000);
        p.link.terminal_propagation = Some(Time(500));
        p.link.level_propagation = vec![Time(2_000), Time(7_000)];
        let prop = p.channel_propagation_ps(&f);
        let mut by_level = std::collections::BTreeMap::<Option<u32>, Vec<u64>>::new();
        for (c, &ps) in prop.iter().enumerate() {
            let key = match f.channel_ends(Channel(c as u32)) {
                (Terminal::Switch { switch: a, .. }, Terminal::Switch { switch: b, .. }) => {
                    Some(h[a.idx()].unwrap().max(h[b.idx()].unwrap()))
                }
                _ => None,
            };
            by_level.entry(key).or_default().push(ps);
        }
        let only = |k: Option<u32>| {
            let v = &by_level[&k];
            assert!(v.iter().all(|&x| x == v[0]), "{k:?}: {v:?}");
            (v[0], v.len())
        };
        // 8 endpoints' links both ways; 8 leaf-to-middle and 8 middle-to-top links both ways.
        assert_eq!(only(None), (500, 16));
        assert_eq!(only(Some(1)), (2_000, 16));
        assert_eq!(only(Some(2)), (7_000, 16));
        assert_eq!(p.longest_propagation_ps(), 7_000);
        // A level the list does not reach keeps link.propagation.
        p.link.level_propagation = vec![Time(2_000)];
        let prop = p.channel_propagation_ps(&f);
        assert_eq!(prop.iter().filter(|&&x| x == 1_000).count(), 16);
    }

    /// On a mesh every switch has endpoints: no link has a level, so the list changes nothing.
    #[test]
    fn a_mesh_has_no_levels() {
        let f = generate("mesh:3x3").unwrap();
        assert!(switch_heights(&f).iter().all(|&x| x == Some(0)));
        let mut p = Params::preset("booksim_iq").unwrap();
        let before = p.channel_propagation_ps(&f);
        p.link.level_propagation = vec![Time(9_000)];
        assert_eq!(p.channel_propagation_ps(&f), before);
    }
}
