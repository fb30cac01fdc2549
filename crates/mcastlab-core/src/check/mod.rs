//! Verification of a routing: deadlock freedom (channel dependency graph) and reachability.
//!
//! Both come from one generic exploration: for every address, start a packet at every other
//! endpoint and follow *every* choice `next_hops` offers. That visits exactly the (switch, input
//! port, VC) states packets to that address can occupy, so it
//! - proves reachability: no state without a choice, no choice that leaves through an unconnected
//!   port or delivers to the wrong endpoint, and no cycle among the states (a cycle would let a
//!   packet loop forever; without one every route ends within the state count);
//! - collects every turn (input channel/VC → output channel/VC) that some packet can take. Their
//!   union is the channel dependency graph of Dally and Seitz; if it is acyclic the routing is
//!   deadlock-free. A cycle is returned as the witness.
//!
//! Engines with enormous address spaces (the paper's LMC addressing on 65,536 endpoints has 67M
//! LIDs) can enumerate their turns directly ([`crate::routing::Routing::turns`]); tests check that
//! enumeration against this exploration on small fabrics.

pub mod cdg;
pub mod joint;

use crate::fabric::{Channel, Fabric};
use crate::ids::{Address, EndpointId, PortNum, SwitchId};
use crate::routing::path::{follow, hop_limit};
use crate::routing::{Arrival, Hop, Routing, Turn};
use rayon::prelude::*;
use serde::Serialize;

/// Options of a routing check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Skip the per-address exploration when addresses × states exceeds this (work units).
    pub max_work: u64,
    /// How many problems to report at most.
    pub max_problems: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { max_work: 4_000_000_000, max_problems: 10 }
    }
}

/// Outcome of the reachability check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Reachability {
    /// Every source reaches every destination along every allowed choice; no loops.
    Verified { addresses: usize, states: u64, longest_route: usize },
    /// Routing problems found (first few).
    Failed { problems: Vec<String> },
    /// Too large for exhaustive exploration under the work budget.
    Skipped { reason: String },
}

/// A channel with its VC class, as it appears in the dependency graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ChannelVc {
    pub channel: Channel,
    pub vc: u8,
}

/// Outcome of the deadlock check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Deadlock {
    /// The channel dependency graph is acyclic.
    Free {
        channels: usize,
        dependencies: usize,
    },
    /// A cycle of channel dependencies: a deadlock is possible.
    Cycle {
        cycle: Vec<ChannelVc>,
        rendered: Vec<String>,
    },
    Skipped {
        reason: String,
    },
}

/// Everything `check` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoutingCheck {
    pub routing: String,
    pub vc_classes: u8,
    pub reachability: Reachability,
    pub deadlock: Deadlock,
    /// Where the dependency graph came from: `exploration` or `engine` (enumerated turns).
    pub turns_from: &'static str,
}

impl RoutingCheck {
    pub fn ok(&self) -> bool {
        matches!(self.deadlock, Deadlock::Free { .. }) && !matches!(self.reachability, Reachability::Failed { .. })
    }
}

/// Dense numbering of (switch, input port, VC) states and of turns.
pub(crate) struct StateSpace {
    port_base: Vec<u64>,
    total_ports: u64,
    vcs: u64,
    /// `turn_base[s]`: offset of switch s in the turn bitset (ports² · vcs² bits per switch).
    turn_base: Vec<u64>,
}

impl StateSpace {
    pub(crate) fn new(f: &Fabric, vcs: u8) -> Self {
        let vcs = vcs.max(1) as u64;
        let mut port_base = Vec::with_capacity(f.num_switches());
        let mut turn_base = Vec::with_capacity(f.num_switches());
        let (mut pb, mut tb) = (0u64, 0u64);
        for s in f.switches() {
            port_base.push(pb);
            turn_base.push(tb);
            pb += s.ports as u64;
            tb += (s.ports as u64) * (s.ports as u64) * vcs * vcs;
        }
        StateSpace { port_base, total_ports: pb, vcs, turn_base }
    }
    fn states(&self) -> u64 {
        self.total_ports * self.vcs
    }
    fn state(&self, s: SwitchId, a: Arrival) -> usize {
        ((self.port_base[s.idx()] + a.port.0 as u64 - 1) * self.vcs + a.vc as u64) as usize
    }
    fn turn_bit(&self, f: &Fabric, s: SwitchId, a: Arrival, h: Hop) -> u64 {
        let p = f.switch(s).ports as u64;
        self.turn_base[s.idx()]
            + (((a.port.0 as u64 - 1) * self.vcs + a.vc as u64) * p + (h.port.0 as u64 - 1)) * self.vcs
            + h.vc as u64
    }
    /// Decodes a turn bit.
    fn turn_of(&self, f: &Fabric, bit: u64) -> Turn {
        let s = match self.turn_base.binary_search(&bit) {
            Ok(mut i) => {
                // Several switches can share a base only if some have zero ports, which Fabric forbids.
                while i + 1 < self.turn_base.len() && self.turn_base[i + 1] == bit {
                    i += 1;
                }
                i
            }
            Err(i) => i - 1,
        };
        let p = f.switches()[s].ports as u64;
        let mut r = bit - self.turn_base[s];
        let out_vc = r % self.vcs;
        r /= self.vcs;
        let out_port = r % p;
        r /= p;
        let in_vc = r % self.vcs;
        let in_port = r / self.vcs;
        Turn {
            switch: SwitchId(s as u32),
            in_port: PortNum(in_port as u16 + 1),
            in_vc: in_vc as u8,
            out_port: PortNum(out_port as u16 + 1),
            out_vc: out_vc as u8,
        }
    }
}

/// Per-thread scratch of the exploration.
struct Scratch {
    /// 0 = unseen, 1 = on the DFS stack, 2 = done; reset per address through `touched`.
    color: Vec<u8>,
    /// Longest remaining route (in hops) from each finished state.
    depth: Vec<u32>,
    touched: Vec<usize>,
    turns: Vec<u64>,
    problems: Vec<String>,
    states: u64,
    longest: usize,
    hops: Vec<Hop>,
}

fn explore_address(f: &Fabric, r: &dyn Routing, sp: &StateSpace, a: Address, sc: &mut Scratch, max_problems: usize) {
    let owner = r.owner(a);
    for &t in &sc.touched {
        sc.color[t] = 0;
    }
    sc.touched.clear();
    let limit = hop_limit(f, r);
    for src in f.endpoint_ids() {
        if src == owner || sc.problems.len() >= max_problems {
            continue;
        }
        // Every source is explored for every address, not only the ones its path selection
        // would pick: a switch forwards whatever address a packet carries.
        let (s0, p0) = f.attachment(src);
        let start = Arrival { port: p0, vc: 0 };
        let st0 = sp.state(s0, start);
        if sc.color[st0] == 2 {
            continue;
        }
        // Iterative DFS over states: (switch, arrival, first choice, next choice, end of its
        // choices). The choices of the states on the stack share one arena, truncated as states
        // are popped (a vector per state cost an allocation per visited state).
        let mut stack: Vec<(SwitchId, Arrival, usize, usize, usize)> = Vec::new();
        let mut arena: Vec<Hop> = Vec::new();
        let push = |s: SwitchId,
                    ar: Arrival,
                    sc: &mut Scratch,
                    stack: &mut Vec<(SwitchId, Arrival, usize, usize, usize)>,
                    arena: &mut Vec<Hop>| {
            let id = sp.state(s, ar);
            sc.color[id] = 1;
            sc.depth[id] = 0;
            sc.touched.push(id);
            sc.states += 1;
            r.next_hops(s, ar, a, &mut sc.hops);
            let first = arena.len();
            arena.extend_from_slice(&sc.hops);
            stack.push((s, ar, first, first, arena.len()));
        };
        push(s0, start, sc, &mut stack, &mut arena);
        while let Some(top) = stack.last_mut() {
            let (s, ar, first) = (top.0, top.1, top.2);
            let id = sp.state(s, ar);
            if first == top.4 {
                sc.problems.push(format!(
                    "no route at {} (arrived on port {} vc {}) towards {}",
                    f.switch(s).name,
                    ar.port,
                    ar.vc,
                    f.endpoint(owner).name
                ));
                sc.color[id] = 2;
                stack.pop();
                arena.truncate(first);
                continue;
            }
            if top.3 == top.4 {
                sc.color[id] = 2;
                let d = sc.depth[id];
                stack.pop();
                arena.truncate(first);
                if let Some(parent) = stack.last() {
                    let pid = sp.state(parent.0, parent.1);
                    sc.depth[pid] = sc.depth[pid].max(d + 1);
                }
                continue;
            }
            let h = arena[top.3];
            top.3 += 1;
            sc.turns.push(sp.turn_bit(f, s, ar, h));
            match follow(f, s, h, owner) {
                Err(m) => {
                    sc.problems.push(format!("towards {}: {}", f.endpoint(owner).name, m));
                }
                Ok(None) => {
                    sc.depth[id] = sc.depth[id].max(1);
                }
                Ok(Some((t, ta))) => {
                    let tid = sp.state(t, ta);
                    match sc.color[tid] {
                        0 => {
                            if stack.len() > limit {
                                sc.problems
                                    .push(format!("route towards {} exceeds {limit} hops", f.endpoint(owner).name));
                            } else {
                                push(t, ta, sc, &mut stack, &mut arena);
                            }
                        }
                        1 => {
                            sc.problems.push(format!(
                                "routing loop towards {} through {} (port {})",
                                f.endpoint(owner).name,
                                f.switch(t).name,
                                ta.port
                            ));
                        }
                        _ => {
                            let d = sc.depth[tid];
                            sc.depth[id] = sc.depth[id].max(d + 1);
                        }
                    }
                }
            }
            if sc.problems.len() >= max_problems {
                break;
            }
        }
        sc.longest = sc.longest.max(sc.depth[st0] as usize);
    }
}

/// Turn bits of every packet's possible moves, plus reachability, by exploring every address.
fn explore(f: &Fabric, r: &dyn Routing, sp: &StateSpace, opts: &CheckOptions) -> (Vec<u64>, Reachability) {
    let n = r.num_addresses();
    let chunk = 64usize;
    let results: Vec<(Vec<u64>, Vec<String>, u64, usize)> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|ci| {
            let mut sc = Scratch {
                color: vec![0; sp.states() as usize],
                depth: vec![0; sp.states() as usize],
                touched: Vec::new(),
                turns: Vec::new(),
                problems: Vec::new(),
                states: 0,
                longest: 0,
                hops: Vec::new(),
            };
            let mut bits: Vec<u64> = Vec::new();
            for a in (ci * chunk)..((ci + 1) * chunk).min(n) {
                explore_address(f, r, sp, Address(a as u32), &mut sc, opts.max_problems);
                sc.turns.sort_unstable();
                sc.turns.dedup();
                bits.append(&mut sc.turns);
                if bits.len() > 1 << 20 {
                    bits.sort_unstable();
                    bits.dedup();
                }
            }
            bits.sort_unstable();
            bits.dedup();
            // Every chunk's result is kept until all are merged: without this each would keep
            // the capacity it grew to (megabytes), not the few distinct turns it holds; on a
            // 20,000-switch chain that was 2.6 GB of the check's peak.
            bits.shrink_to_fit();
            (bits, sc.problems, sc.states, sc.longest)
        })
        .collect();
    let mut all: Vec<u64> = Vec::new();
    let mut problems = Vec::new();
    let mut states = 0;
    let mut longest = 0;
    for (b, p, s, l) in results {
        all.extend(b);
        problems.extend(p);
        states += s;
        longest = longest.max(l);
    }
    all.sort_unstable();
    all.dedup();
    problems.truncate(opts.max_problems);
    let reach = if problems.is_empty() {
        Reachability::Verified { addresses: n, states, longest_route: longest }
    } else {
        Reachability::Failed { problems }
    };
    (all, reach)
}

/// Every turn of the routing found by exploration (the reference the engines' own enumerations
/// are tested against).
pub fn explored_turns(f: &Fabric, r: &dyn Routing) -> Vec<Turn> {
    let sp = StateSpace::new(f, r.vc_classes());
    let (bits, _) = explore(f, r, &sp, &CheckOptions::default());
    bits.into_iter().map(|b| sp.turn_of(f, b)).collect()
}

/// The exploration's cost in work units, known before it starts: addresses × (switch, input
/// port, VC) states, the most states the exploration can visit. The check skips the
/// exploration above `CheckOptions::max_work`; callers show it so a long check says why.
pub fn estimated_work(f: &Fabric, r: &dyn Routing) -> u64 {
    (r.num_addresses() as u64).saturating_mul(StateSpace::new(f, r.vc_classes()).states())
}

/// Checks a routing: reachability and deadlock freedom.
pub fn check(f: &Fabric, r: &dyn Routing, opts: &CheckOptions) -> RoutingCheck {
    check_with_turns(f, r, opts).0
}

/// [`check`], also returning the routing's turns (when known) for callers that add their own
/// dependencies, such as multicast carriers.
pub fn check_with_turns(f: &Fabric, r: &dyn Routing, opts: &CheckOptions) -> (RoutingCheck, Option<Vec<Turn>>) {
    let sp = StateSpace::new(f, r.vc_classes());
    let work = estimated_work(f, r);
    let engine_turns = r.turns(f);
    let from_engine = engine_turns.is_some();
    let (turns, reachability, turns_from) = if work <= opts.max_work {
        let (bits, reach) = explore(f, r, &sp, opts);
        let turns = match engine_turns {
            Some(t) => t,
            None => bits.into_iter().map(|b| sp.turn_of(f, b)).collect(),
        };
        (Some(turns), reach, if from_engine { "engine" } else { "exploration" })
    } else {
        let reason = format!(
            "{} addresses x {} states = {} work units exceeds the budget of {} (raise it with --max-work, \
             or max_work= in Python)",
            r.num_addresses(),
            sp.states(),
            work,
            opts.max_work
        );
        (engine_turns, Reachability::Skipped { reason }, "engine")
    };
    let deadlock = match &turns {
        Some(t) => cdg::deadlock(f, r.vc_classes(), t),
        None => Deadlock::Skipped { reason: "too large to explore and the engine does not enumerate its turns".into() },
    };
    (RoutingCheck { routing: r.spec(), vc_classes: r.vc_classes(), reachability, deadlock, turns_from }, turns)
}

/// The endpoint a routing error names, for messages.
pub fn endpoint_name(f: &Fabric, e: EndpointId) -> &str {
    &f.endpoint(e).name
}
