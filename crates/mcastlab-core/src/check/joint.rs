//! One deadlock proof for unicast and multicast together (issue 11): the channel dependency graph
//! of a unicast routing united with the dependencies of every multicast tree installed beside it.
//!
//! A multicast packet entering switch `s` through port `i` of its MLID's mask is replicated to
//! every other port of the mask, so each pair (`i` → `o`) of inter-switch ports in a mask is a
//! dependency, exactly like a unicast turn. Unicast and multicast share the channels' buffers
//! when they share a virtual lane: a cycle may need both kinds of dependency, so neither graph
//! alone proves anything. Each traffic class travels on one VL (its SL through the SL→VL table);
//! dependencies never change VL, so the union is checked per VL ([`cdg::deadlock`] with the VL as
//! the VC class), and a witness cycle names its channels by switch and port.

use super::{cdg, Deadlock};
use crate::error::RoutingError;
use crate::fabric::{Fabric, Terminal};
use crate::ids::{EndpointId, SwitchId};
use crate::plan::MftEntry;
use crate::routing::opensm_lft::Lfts;
use crate::routing::Turn;

/// The multicast dependencies of MFT rows, on VL `vl` (see the module doc).
pub fn mft_turns(f: &Fabric, mft: &[MftEntry], vl: u8) -> Vec<Turn> {
    let mut out = Vec::new();
    for e in mft {
        let inter: Vec<_> = e
            .ports
            .iter()
            .copied()
            .filter(|p| matches!(f.port(e.switch, *p).map(|pp| pp.peer), Some(Terminal::Switch { .. })))
            .collect();
        for &i in &inter {
            for &o in inter.iter().filter(|o| **o != i) {
                out.push(Turn { switch: e.switch, in_port: i, in_vc: vl, out_port: o, out_vc: vl });
            }
        }
    }
    out
}

/// Moves unicast turns (found on VC 0) onto VL `vl`.
pub fn on_vl(turns: &[Turn], vl: u8) -> Vec<Turn> {
    turns.iter().map(|t| Turn { in_vc: vl, out_vc: vl, ..*t }).collect()
}

/// The joint check: unicast turns (already on their VLs) and multicast trees, each tree with its
/// VL. Free means no VL's union of dependencies has a cycle.
pub fn joint_deadlock(f: &Fabric, unicast: &[Turn], trees: &[(&[MftEntry], u8)]) -> Deadlock {
    let mut all: Vec<Turn> = unicast.to_vec();
    for (mft, vl) in trees {
        all.extend(mft_turns(f, mft, *vl));
    }
    let vls = all.iter().map(|t| t.in_vc.max(t.out_vc)).max().unwrap_or(0) as u16 + 1;
    cdg::deadlock(f, vls.min(u8::MAX as u16) as u8, &all)
}

/// An SL→VL table (IB's SL2VLMappingTable, one for the whole subnet): 16 service levels, each
/// mapped to a data VL 0..=14. Read from text lines `SL VL` (`#` starts a comment); SLs not
/// listed map to VL 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sl2Vl(pub [u8; 16]);

impl Sl2Vl {
    /// Parses the text of an SL→VL file; errors name the line (`line 3: ...`).
    pub fn parse(text: &str) -> Result<Sl2Vl, String> {
        let mut map = [0u8; 16];
        let mut seen = [false; 16];
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |m: String| format!("line {}: {m} (expected `SL VL`, SL 0..=15, VL 0..=14)", i + 1);
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [sl, vl] = parts[..] else { return Err(bad(format!("`{line}` is not two numbers"))) };
            let sl: usize = sl.parse().ok().filter(|s| *s < 16).ok_or_else(|| bad(format!("`{sl}` is not an SL")))?;
            let vl: u8 = vl.parse().ok().filter(|v| *v < 15).ok_or_else(|| bad(format!("`{vl}` is not a data VL")))?;
            if seen[sl] {
                return Err(bad(format!("SL {sl} is mapped twice")));
            }
            seen[sl] = true;
            map[sl] = vl;
        }
        Ok(Sl2Vl(map))
    }
    /// The VL of service level `sl`.
    pub fn vl(&self, sl: u8) -> u8 {
        self.0[(sl & 0xF) as usize]
    }
}

/// What `mcastlab deadlock` reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JointReport {
    pub routing: String,
    /// Multicast trees (distinct MLIDs of each MFT set) united with the unicast routing.
    pub trees: usize,
    /// The VLs in use (unicast's first).
    pub vls: Vec<u8>,
    /// Where the unicast dependencies came from: `engine` (enumerated) or `exploration`.
    pub unicast_turns_from: &'static str,
    pub deadlock: Deadlock,
}

/// What the walk towards one destination knows of a switch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Not reached yet.
    Unseen,
    /// On the path being followed now: reaching it again is a loop.
    OnPath,
    /// Its table leads to the destination.
    Routes,
}

/// Ok if LFTs route every endpoint to every other: from each source's switch, following the
/// tables towards the destination reaches it without a missing entry, a port that leads nowhere
/// or a loop. A table that does not route some pair has no dependencies for it, so a deadlock
/// check of it proves nothing about that traffic (a dump cut short looked deadlock-free). Each
/// (switch, destination) is walked once: endpoints × switches steps.
pub fn lfts_route_every_pair(f: &Fabric, lfts: &Lfts, routing: &str) -> Result<(), RoutingError> {
    let name = |e: EndpointId| f.endpoint(e).name.clone();
    let mut state = vec![Walk::Unseen; f.num_switches()];
    let mut path: Vec<SwitchId> = Vec::new();
    for d in f.endpoint_ids() {
        state.fill(Walk::Unseen);
        for src in f.endpoint_ids().filter(|e| *e != d) {
            let mut at = f.attachment(src).0;
            path.clear();
            loop {
                match state[at.idx()] {
                    Walk::Routes => break,
                    Walk::OnPath => return Err(RoutingError::Loop { src: name(src), dst: name(d), hops: path.len() }),
                    Walk::Unseen => {}
                }
                state[at.idx()] = Walk::OnPath;
                path.push(at);
                let fail = |m: String| RoutingError::NoRoute {
                    switch: f.switch(at).name.clone(),
                    target: format!("endpoint {} (from {})", name(d), name(src)),
                    message: format!(
                        "{m}; the deadlock check of `{routing}` needs LFTs that route every endpoint pair"
                    ),
                };
                let port = lfts.to_endpoint(at, d).ok_or_else(|| fail("the LFT has no entry".into()))?;
                match f.port(at, port).map(|pp| pp.peer) {
                    Some(Terminal::Endpoint { endpoint }) if endpoint == d => break,
                    Some(Terminal::Endpoint { endpoint }) => {
                        return Err(fail(format!("port {} leads to endpoint {}", port.0, name(endpoint))))
                    }
                    Some(Terminal::Switch { switch, .. }) => at = switch,
                    None => return Err(fail(format!("port {} is not connected", port.0))),
                }
            }
            for s in &path {
                state[s.idx()] = Walk::Routes;
            }
        }
    }
    Ok(())
}

/// The joint check of a routing and multicast trees, unicast on service level `unicast_sl` and
/// tree `i` on `trees[i].1`, both mapped to VLs by `sl2vl`. A routing given as LFTs (loaded from
/// a dump, or programmed by its engine) must route every endpoint pair
/// ([`lfts_route_every_pair`]), or the check is refused.
pub fn check_joint(
    f: &Fabric,
    r: &dyn crate::routing::Routing,
    trees: &[(&[MftEntry], u8)],
    unicast_sl: u8,
    sl2vl: &Sl2Vl,
) -> Result<JointReport, RoutingError> {
    if let Some(lfts) = r.programmed_lfts() {
        lfts_route_every_pair(f, lfts, &r.spec())?;
    }
    let (turns, from) = match r.turns(f) {
        Some(t) => (t, "engine"),
        None => (super::explored_turns(f, r), "exploration"),
    };
    let uvl = sl2vl.vl(unicast_sl);
    let unicast = on_vl(&turns, uvl);
    let mapped: Vec<(&[MftEntry], u8)> = trees.iter().map(|(m, sl)| (*m, sl2vl.vl(*sl))).collect();
    let mut vls = vec![uvl];
    for (_, v) in &mapped {
        if !vls.contains(v) {
            vls.push(*v);
        }
    }
    Ok(JointReport {
        routing: r.spec(),
        trees: trees
            .iter()
            .map(|(m, _)| m.iter().map(|e| e.mlid).collect::<std::collections::BTreeSet<_>>().len())
            .sum(),
        vls,
        unicast_turns_from: from,
        deadlock: joint_deadlock(f, &unicast, &mapped),
    })
}
