//! The channel dependency graph and its cycle finder.

use super::{ChannelVc, Deadlock};
use crate::fabric::{Channel, Fabric, Terminal};
use crate::routing::Turn;

/// Builds the dependency graph of inter-switch channels from turns and looks for a cycle.
/// Turns from or to an endpoint port cannot be part of a cycle (endpoints always sink and only
/// inject) and are left out.
pub fn deadlock(f: &Fabric, vcs: u8, turns: &[Turn]) -> Deadlock {
    let v = vcs.max(1) as usize;
    let n = f.num_channels() * v;
    let node = |c: Channel, vc: u8| c.idx() * v + vc as usize;
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(turns.len());
    for t in turns {
        let (Some(pi), Some(po)) = (f.port(t.switch, t.in_port), f.port(t.switch, t.out_port)) else { continue };
        if !matches!(pi.peer, Terminal::Switch { .. }) || !matches!(po.peer, Terminal::Switch { .. }) {
            continue;
        }
        let (Some(cin), Some(cout)) = (pi.inc, po.out) else { continue };
        edges.push((node(cin, t.in_vc) as u32, node(cout, t.out_vc) as u32));
    }
    edges.sort_unstable();
    edges.dedup();
    // CSR adjacency.
    let mut start = vec![0u32; n + 1];
    for &(a, _) in &edges {
        start[a as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let adj: Vec<u32> = edges.iter().map(|&(_, b)| b).collect();
    let used = {
        let mut u = vec![false; n];
        for &(a, b) in &edges {
            u[a as usize] = true;
            u[b as usize] = true;
        }
        u.iter().filter(|x| **x).count()
    };
    // Iterative DFS with colours; a grey target closes a cycle, read back from the stack.
    let mut color = vec![0u8; n];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..n as u32 {
        if color[root as usize] != 0 || start[root as usize] == start[root as usize + 1] {
            continue;
        }
        stack.push((root, start[root as usize]));
        color[root as usize] = 1;
        while let Some(top) = stack.last_mut() {
            let (u, i) = *top;
            if i == start[u as usize + 1] {
                color[u as usize] = 2;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let w = adj[i as usize];
            match color[w as usize] {
                0 => {
                    color[w as usize] = 1;
                    stack.push((w, start[w as usize]));
                }
                1 => {
                    let pos = stack.iter().position(|&(x, _)| x == w).expect("grey node is on the stack");
                    let cycle: Vec<ChannelVc> = stack[pos..]
                        .iter()
                        .map(|&(x, _)| ChannelVc {
                            channel: Channel((x as usize / v) as u32),
                            vc: (x as usize % v) as u8,
                        })
                        .collect();
                    let rendered =
                        cycle.iter().map(|c| format!("{} (vc {})", f.channel_str(c.channel), c.vc)).collect();
                    return Deadlock::Cycle { cycle, rendered };
                }
                _ => {}
            }
        }
    }
    Deadlock::Free { channels: used, dependencies: edges.len() }
}
