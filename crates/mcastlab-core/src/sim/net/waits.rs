//! Wait-for graphs: when a network stalls, each blocked buffer waits for others; a cycle among
//! them is the deadlock's witness (the dynamic counterpart of the channel dependency cycle the
//! checker finds statically). Shared by every network model's diagnosis.

use std::collections::BTreeMap;

/// A cycle in the wait-for graph (iterative depth-first search, nodes in ascending order so the
/// witness is reproducible).
pub(crate) fn find_cycle<N: Copy + Ord>(g: &BTreeMap<N, Vec<N>>) -> Vec<N> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Finished,
    }
    let mut mark: BTreeMap<N, Mark> = BTreeMap::new();
    for &start in g.keys() {
        if mark.get(&start).copied().unwrap_or(Mark::New) != Mark::New {
            continue;
        }
        let mut path: Vec<(N, usize)> = vec![(start, 0)];
        mark.insert(start, Mark::OnPath);
        while let Some(&mut (n, ref mut next)) = path.last_mut() {
            let succ = g.get(&n).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&s) = succ.get(*next) {
                *next += 1;
                match mark.get(&s).copied().unwrap_or(Mark::New) {
                    Mark::OnPath => {
                        let from = path.iter().position(|(x, _)| *x == s).expect("on the path");
                        return path[from..].iter().map(|(x, _)| *x).collect();
                    }
                    Mark::New => {
                        mark.insert(s, Mark::OnPath);
                        path.push((s, 0));
                    }
                    Mark::Finished => {}
                }
            } else {
                mark.insert(n, Mark::Finished);
                path.pop();
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::find_cycle;
    use std::collections::BTreeMap;

    #[test]
    fn finds_the_cycle_and_only_a_cycle() {
        let g: BTreeMap<u32, Vec<u32>> = [(1, vec![2]), (2, vec![3]), (3, vec![4, 2]), (5, vec![1])].into();
        assert_eq!(find_cycle(&g), vec![2, 3]);
        let dag: BTreeMap<u32, Vec<u32>> = [(1, vec![2, 3]), (2, vec![3])].into();
        assert!(find_cycle(&dag).is_empty());
    }
}
