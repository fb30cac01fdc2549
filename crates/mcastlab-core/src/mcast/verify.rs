//! Verifying MFTs as a switch executes them: a packet for an MLID entering a switch leaves on
//! every port of the MLID's mask except the one it arrived on (IBA switch semantics; opensm.md
//! §1.7). From every member as sender, the flood must reach every other member exactly once and
//! enter no switch twice (a loop, or two branches meeting). Members come from the groups file
//! when given, else from the dump itself: the CA ports and switch port 0s its masks name.

use super::select::{member_name, Member};
use crate::error::PlanError;
use crate::fabric::{Fabric, Terminal};
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::io::mft_dump::switch_guids;
use crate::plan::{Carrier, MftEntry, Plan, SwitchState, Transmission, Trigger};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The verdict for one MLID.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MlidCheck {
    pub mlid: u32,
    pub members: usize,
    pub senders: usize,
    /// Members some member's packet never reaches: (sender, member) names, first few.
    pub unreached: Vec<String>,
    /// Members reached more than once from one sender.
    pub duplicates: Vec<String>,
    /// A switch entered twice by one flood: `switch 0x<guid> entered on ports a and b from sender X`.
    pub loops: Vec<String>,
    /// Endpoints the MFTs deliver to that are not members.
    pub strays: Vec<String>,
    pub ok: bool,
}

/// Members the rows of `mlid` name: CAs on ports of the masks, switches whose port 0 is set.
pub fn members_of(f: &Fabric, rows: &[MftEntry], mlid: u32) -> Vec<Member> {
    let mut out = BTreeSet::new();
    for e in rows.iter().filter(|e| e.mlid == mlid) {
        for p in &e.ports {
            if p.0 == 0 {
                out.insert(Member::Switch(e.switch));
            } else if let Some(Terminal::Endpoint { endpoint, .. }) = f.port(e.switch, *p).map(|pp| pp.peer) {
                out.insert(Member::Port(endpoint));
            }
        }
    }
    out.into_iter().collect()
}

const SHOWN: usize = 8;

/// Floods `mlid` from every member and reports what went wrong.
pub fn check_mlid(f: &Fabric, rows: &[MftEntry], mlid: u32, members: Option<&[Member]>) -> MlidCheck {
    let masks: BTreeMap<SwitchId, &[PortNum]> =
        rows.iter().filter(|e| e.mlid == mlid).map(|e| (e.switch, e.ports.as_slice())).collect();
    let members: Vec<Member> = match members {
        Some(m) => m.to_vec(),
        None => members_of(f, rows, mlid),
    };
    let set: BTreeSet<Member> = members.iter().copied().collect();
    let guids = switch_guids(f);
    let mut c = MlidCheck {
        mlid,
        members: members.len(),
        senders: members.len(),
        unreached: vec![],
        duplicates: vec![],
        loops: vec![],
        strays: vec![],
        ok: true,
    };
    let mut strays = BTreeSet::new();
    for &src in &members {
        let mut got: BTreeMap<Member, u32> = BTreeMap::new();
        let mut entered: BTreeMap<SwitchId, u16> = BTreeMap::new();
        // (switch, arrival port); a switch member sends from its port 0.
        let mut work: Vec<(SwitchId, u16)> = match src {
            Member::Port(e) => {
                let (s, p) = f.attachment(e);
                vec![(s, p.0)]
            }
            Member::Switch(s) => vec![(s, 0)],
        };
        while let Some((s, inp)) = work.pop() {
            if let Some(first) = entered.insert(s, inp) {
                if c.loops.len() < SHOWN {
                    c.loops.push(format!(
                        "switch 0x{:016x} ({}) entered on port {first} and again on port {inp} from sender {}",
                        guids[s.idx()],
                        f.switch(s).name,
                        member_name(f, src)
                    ));
                }
                c.ok = false;
                continue;
            }
            let Some(mask) = masks.get(&s) else { continue };
            for p in mask.iter().filter(|p| p.0 != inp) {
                if p.0 == 0 {
                    *got.entry(Member::Switch(s)).or_default() += 1;
                    continue;
                }
                match f.port(s, *p).map(|pp| pp.peer) {
                    Some(Terminal::Endpoint { endpoint, .. }) => {
                        *got.entry(Member::Port(endpoint)).or_default() += 1;
                    }
                    Some(Terminal::Switch { switch, port }) => work.push((switch, port.0)),
                    None => {}
                }
            }
        }
        for &m in members.iter().filter(|m| **m != src) {
            match got.get(&m).copied().unwrap_or(0) {
                0 if c.unreached.len() < SHOWN => {
                    c.unreached.push(format!("{} -> {}", member_name(f, src), member_name(f, m)))
                }
                0 => {}
                1 => {}
                n if c.duplicates.len() < SHOWN => {
                    c.duplicates.push(format!("{} -> {} ({n} copies)", member_name(f, src), member_name(f, m)))
                }
                _ => {}
            }
            if got.get(&m).copied().unwrap_or(0) != 1 {
                c.ok = false;
            }
        }
        strays.extend(got.keys().filter(|m| !set.contains(m)).map(|m| member_name(f, *m)));
    }
    // A delivery to an endpoint outside the group is a failure too (the verdict listed the
    // strays and still said `ok`).
    if !strays.is_empty() {
        c.ok = false;
    }
    c.strays = strays.into_iter().take(SHOWN).collect();
    // An MLID whose rows forward to no endpoint and no switch port 0 has no member to flood from:
    // nothing above could fail, so it would pass having checked nothing. Its table delivers to
    // nobody, which is what the verdict says (`members` 0).
    if members.is_empty() {
        c.ok = false;
    }
    c
}

/// Verifies a whole dump: every MLID its rows name and, when the groups are given
/// (`groups`: members by MLID), every group of two or more members, whose MLID the dump may lack
/// (then no member reaches another, and the group fails rather than going unchecked).
pub fn check_dump(f: &Fabric, rows: &[MftEntry], groups: &BTreeMap<u32, Vec<Member>>) -> Vec<MlidCheck> {
    let mut mlids: BTreeSet<u32> = rows.iter().map(|e| e.mlid).collect();
    mlids.extend(groups.iter().filter(|(_, m)| m.len() > 1).map(|(&mlid, _)| mlid));
    mlids.into_iter().map(|m| check_mlid(f, rows, m, groups.get(&m).map(Vec::as_slice))).collect()
}

/// A one-sender plan over dumped MFTs, for the plan checker and the simulator: `src` sends
/// `packets` packets to `mlid`; the destinations are the other members (from the groups, else the dump).
pub fn plan_from_mfts(
    f: &Fabric,
    rows: Vec<MftEntry>,
    mlid: u32,
    src: EndpointId,
    members: Option<&[Member]>,
    packets: u32,
) -> Result<Plan, PlanError> {
    if !rows.iter().any(|e| e.mlid == mlid) {
        return Err(PlanError::Param {
            param: "mlid",
            message: format!("the dump holds no row for MLID 0x{mlid:04X}"),
        });
    }
    let members: Vec<Member> = match members {
        Some(m) => m.to_vec(),
        None => members_of(f, &rows, mlid),
    };
    let dests: Vec<EndpointId> = members
        .iter()
        .filter_map(|m| match m {
            Member::Port(e) if *e != src => Some(*e),
            _ => None,
        })
        .collect();
    if dests.is_empty() {
        return Err(PlanError::Group(format!("MLID 0x{mlid:04X}: no member other than the source")));
    }
    // The simulator delivers to CA ports; a switch's own port 0 receives nothing it models.
    let rows: Vec<MftEntry> = rows
        .into_iter()
        .map(|mut e| {
            e.ports.retain(|p| p.0 != 0);
            e
        })
        .filter(|e| !e.ports.is_empty())
        .collect();
    let tx = vec![Transmission {
        sender: src,
        trigger: Trigger::Start,
        carrier: Carrier::Mft { mlid },
        delivers: dests.clone(),
    }];
    Plan::from_transmissions(f, &format!("mfts:mlid=0x{mlid:04X}"), src, dests, packets, Default::default(), tx)?
        .with_switch_state(f, SwitchState { mft: rows, ..Default::default() })
}
