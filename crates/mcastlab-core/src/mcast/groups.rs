//! Multicast groups as a user writes them: a JSON document, a simple text form, or the
//! MCMemberRecords `saquery -m` prints; parsed into [`GroupSpec`]s (members still as text), then
//! resolved against a fabric into [`Group`]s. Formats: docs/formats.md, "Multicast groups".
//!
//! Every error names the file and the line (text, saquery) or the group and member (JSON), and
//! nothing is built from a file that has one.

use super::select::{member_name, parse_lid, Member, Selector};
use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::io::mft_dump::{MCAST_LID_END, MCAST_LID_START};
use serde_json::Value;
use std::collections::BTreeMap;

/// JoinState bits of an MCMemberRecord (IBA 15.2.5.17): full member, non-member, send-only
/// non-member, send-only full member. Routing ignores them (OpenSM gives send-only members MFT
/// bits like receivers, opensm.md §1.2); they matter for the HCA's receive attachments, which
/// send-only members do not take.
pub const JOIN_FULL: u8 = 1;
pub const JOIN_NON: u8 = 2;
pub const JOIN_SEND_ONLY: u8 = 4;
pub const JOIN_SEND_ONLY_FULL: u8 = 8;

/// JoinState names as written after `@` in the text form and in JSON's `join`.
pub const JOIN_NAMES: [(&str, u8); 4] =
    [("full", JOIN_FULL), ("non", JOIN_NON), ("sendonly", JOIN_SEND_ONLY), ("sendonly-full", JOIN_SEND_ONLY_FULL)];

fn join_state(name: &str) -> Option<u8> {
    JOIN_NAMES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

/// One member as written, with where it was written (for errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberSpec {
    pub key: String,
    pub join: u8,
    /// `file:line` or `group NAME member N`.
    pub at: String,
}

/// One group as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSpec {
    pub name: String,
    /// A requested MLID (explicit MLIDs are granted; two groups asking for one are refused).
    pub mlid: Option<u32>,
    /// The IPoIB broadcast group of the default partition, which OpenSM creates first.
    pub ipoib: bool,
    pub members: Vec<MemberSpec>,
    pub at: String,
}

/// A group resolved against a fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub mlid: Option<u32>,
    pub ipoib: bool,
    /// Members with their JoinState bits, in the order written, unique.
    pub members: Vec<(Member, u8)>,
}

fn err(file: &str, message: String) -> PlanError {
    PlanError::File { file: file.to_string(), message }
}

/// Reads an MLID (`0xC001` or decimal) and checks it lies in 0xC000..=0xFFFE.
pub fn parse_mlid_text(s: &str) -> Result<u32, String> {
    let m = parse_lid(s).ok_or_else(|| format!("`{s}` is not an MLID"))?;
    if !(MCAST_LID_START..=MCAST_LID_END).contains(&m) {
        return Err(format!("MLID 0x{m:X} is outside the multicast range 0xC000..=0xFFFE"));
    }
    Ok(m)
}

/// [`parse`] for the text of a file, which must hold a group: one with none (empty, only
/// comments, `[]`, `{"groups": []}`) is refused as `FILE: no groups`, because every use of a
/// groups file would otherwise report on nothing as if it were the fabric's groups (`mfts` wrote
/// an empty dump, `capacity` admitted nothing, `check --groups` checked a dump against nothing). A
/// program's own list goes through [`parse`]: it may well have no group to give.
pub fn parse_file(text: &str, file: &str) -> Result<Vec<GroupSpec>, PlanError> {
    let groups = parse(text, file)?;
    if groups.is_empty() {
        return Err(err(file, "no groups".into()));
    }
    Ok(groups)
}

/// Parses a groups text: JSON (starts with `{` or `[`), `saquery -m` output (holds
/// `MCMemberRecord`), else the text form.
pub fn parse(text: &str, file: &str) -> Result<Vec<GroupSpec>, PlanError> {
    let t = text.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        parse_json(text, file)
    } else if text.contains("MCMemberRecord") {
        parse_saquery(text, file)
    } else {
        parse_text(text, file)
    }
}

/// The text form: one group per line, `NAME [mlid=0xC001] [ipoib] : MEMBER[@JOIN] ...`; `#`
/// starts a comment, blank lines are skipped.
pub fn parse_text(text: &str, file: &str) -> Result<Vec<GroupSpec>, PlanError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = format!("{file}:{}", i + 1);
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |m: String| PlanError::Group(format!("{at}: {m}"));
        let (head, rest) =
            line.split_once(" : ").or_else(|| line.split_once(": ")).or_else(|| line.split_once(" :")).ok_or_else(
                || bad("expected `NAME [mlid=0xC001] [ipoib] : MEMBER ...` (a ` : ` after the group name)".into()),
            )?;
        let mut words = head.split_whitespace();
        let name = words.next().ok_or_else(|| bad("a group needs a name before ` : `".into()))?.to_string();
        let mut g = GroupSpec { name, mlid: None, ipoib: false, members: Vec::new(), at: at.clone() };
        for w in words {
            // An option given twice is refused: which of two MLIDs the line meant is not ours to
            // guess (the last one silently won).
            if let Some(v) = w.strip_prefix("mlid=") {
                if g.mlid.is_some() {
                    return Err(bad(format!("group {}: `mlid=` is given twice; give it once", g.name)));
                }
                g.mlid = Some(parse_mlid_text(v).map_err(&bad)?);
            } else if w == "ipoib" {
                if g.ipoib {
                    return Err(bad(format!("group {}: `ipoib` is given twice; give it once", g.name)));
                }
                g.ipoib = true;
            } else {
                return Err(bad(format!("unknown group option `{w}` (known: mlid=, ipoib)")));
            }
        }
        for tok in rest.split_whitespace() {
            let (key, join) = match tok.rsplit_once('@') {
                Some((k, j)) => (
                    k,
                    join_state(j).ok_or_else(|| {
                        bad(format!(
                            "member `{tok}`: unknown JoinState `{j}` (known: full, non, sendonly, sendonly-full)"
                        ))
                    })?,
                ),
                None => (tok, JOIN_FULL),
            };
            g.members.push(MemberSpec { key: key.to_string(), join, at: at.clone() });
        }
        out.push(g);
    }
    Ok(out)
}

/// JSON: `{"groups": [GROUP, ...]}` or a bare list; a group is
/// `{"name": .., "mlid": "0xC001"|49153, "ipoib": bool, "members": [MEMBER, ...]}` and a member is
/// a string or `{"member": "..", "join": "full"}`.
pub fn parse_json(text: &str, file: &str) -> Result<Vec<GroupSpec>, PlanError> {
    let v: Value = serde_json::from_str(text).map_err(|e| err(file, format!("line {}: {e}", e.line())))?;
    let list = match &v {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("groups") {
            Some(Value::Array(a)) => {
                if let Some(k) = o.keys().find(|k| *k != "groups") {
                    return Err(err(file, format!("unknown key `{k}` (known: groups)")));
                }
                a
            }
            _ => return Err(err(file, "expected {\"groups\": [...]} or a list of groups".into())),
        },
        _ => return Err(err(file, "expected {\"groups\": [...]} or a list of groups".into())),
    };
    let mut out = Vec::new();
    for (gi, g) in list.iter().enumerate() {
        let Value::Object(o) = g else {
            return Err(err(file, format!("group {gi}: expected an object with `members`")));
        };
        let name = match o.get("name") {
            None => format!("group{gi}"),
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(other) => {
                return Err(err(file, format!("group {gi}: `name` must be a non-empty string, not {other}")))
            }
        };
        let at = format!("group {name}");
        if let Some(k) = o.keys().find(|k| !["name", "mlid", "ipoib", "members"].contains(&k.as_str())) {
            return Err(err(file, format!("{at}: unknown key `{k}` (known: name, mlid, ipoib, members)")));
        }
        let mlid = match o.get("mlid") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(parse_mlid_text(s).map_err(|m| err(file, format!("{at}: {m}")))?),
            Some(Value::Number(n)) => {
                Some(parse_mlid_text(&n.to_string()).map_err(|m| err(file, format!("{at}: {m}")))?)
            }
            Some(other) => return Err(err(file, format!("{at}: `mlid` must be a number or \"0x...\", not {other}"))),
        };
        let ipoib = match o.get("ipoib") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(err(file, format!("{at}: `ipoib` must be true or false, not {other}"))),
        };
        let Some(Value::Array(ms)) = o.get("members") else {
            return Err(err(file, format!("{at}: `members` must be a list")));
        };
        let mut members = Vec::new();
        for (mi, m) in ms.iter().enumerate() {
            let mat = format!("{at} member {mi}");
            let (key, join) = match m {
                Value::String(s) => (s.clone(), JOIN_FULL),
                Value::Object(mo) => {
                    if let Some(k) = mo.keys().find(|k| *k != "member" && *k != "join") {
                        return Err(err(file, format!("{mat}: unknown key `{k}` (known: member, join)")));
                    }
                    let Some(Value::String(key)) = mo.get("member") else {
                        return Err(err(file, format!("{mat}: `member` must be a string")));
                    };
                    let join = match mo.get("join") {
                        None => JOIN_FULL,
                        Some(Value::String(j)) => join_state(j).ok_or_else(|| {
                            err(
                                file,
                                format!("{mat}: unknown JoinState `{j}` (known: full, non, sendonly, sendonly-full)"),
                            )
                        })?,
                        Some(other) => return Err(err(file, format!("{mat}: `join` must be a string, not {other}"))),
                    };
                    (key.clone(), join)
                }
                Value::Number(n) => {
                    return Err(err(
                        file,
                        format!(
                        "{mat}: `{n}` is ambiguous: write \"lid:{n}\" for a LID or \"index:{n}\" for an endpoint index"
                    ),
                    ))
                }
                other => return Err(err(file, format!("{mat}: expected a string, not {other}"))),
            };
            members.push(MemberSpec { key, join, at: mat });
        }
        out.push(GroupSpec { name, mlid, ipoib, members, at });
    }
    Ok(out)
}

/// The IPoIB IPv4 broadcast MGID of the default partition (P_Key 0xFFFF), which OpenSM creates
/// at start-up (`prtn_make_default`) and so numbers first.
pub const IPOIB_BROADCAST_MGID: &str = "ff12:401b:ffff::ffff:ffff";

/// `saquery -m` output: records introduced by `MCMemberRecord member dump:`, fields written
/// `Name....value` (`MGID`, `Mlid`, `PortGid`, `ScopeState`; others ignored). One group per
/// MGID, in order of first appearance, with its MLID; the JoinState is the low nibble of
/// `ScopeState`. The IPoIB broadcast MGID is marked `ipoib`.
pub fn parse_saquery(text: &str, file: &str) -> Result<Vec<GroupSpec>, PlanError> {
    #[derive(Default)]
    struct Rec {
        line: usize,
        mgid: Option<String>,
        mlid: Option<String>,
        gid: Option<String>,
        scope: Option<String>,
    }
    let mut recs: Vec<Rec> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with("MCMemberRecord") {
            recs.push(Rec { line: i + 1, ..Default::default() });
            continue;
        }
        let Some(dots) = line.find("..") else { continue };
        let name = &line[..dots];
        let value = line[dots..].trim_start_matches('.').trim().to_string();
        let Some(r) = recs.last_mut() else {
            return Err(PlanError::Group(format!(
                "{file}:{}: field `{name}` before any `MCMemberRecord member dump:`",
                i + 1
            )));
        };
        match name {
            "MGID" => r.mgid = Some(value),
            "Mlid" => r.mlid = Some(value),
            "PortGid" => r.gid = Some(value),
            "ScopeState" => r.scope = Some(value),
            _ => {}
        }
    }
    let mut groups: Vec<GroupSpec> = Vec::new();
    let mut by_mgid: BTreeMap<String, usize> = BTreeMap::new();
    for r in recs {
        let at = format!("{file}:{}", r.line);
        let bad = |m: &str| PlanError::Group(format!("{at}: MCMemberRecord {m}"));
        let mgid = r.mgid.ok_or_else(|| bad("without MGID (truncated?)"))?;
        let gid = r.gid.ok_or_else(|| bad("without PortGid (truncated?)"))?;
        let mlid = r.mlid.map(|m| parse_mlid_text(&m)).transpose().map_err(|m| bad(&m))?;
        let join = match r.scope {
            Some(s) => (parse_lid(&s).ok_or_else(|| bad(&format!("ScopeState `{s}` is not a number")))? & 0xF) as u8,
            None => JOIN_FULL,
        };
        let gi = *by_mgid.entry(mgid.clone()).or_insert_with(|| {
            let ipoib =
                mgid.parse::<std::net::Ipv6Addr>().ok() == IPOIB_BROADCAST_MGID.parse::<std::net::Ipv6Addr>().ok();
            groups.push(GroupSpec { name: mgid.clone(), mlid, ipoib, members: Vec::new(), at: at.clone() });
            groups.len() - 1
        });
        let g = &mut groups[gi];
        if g.mlid != mlid {
            return Err(bad(&format!("gives MGID {mgid} a second MLID")));
        }
        match g.members.iter_mut().find(|m| m.key == gid) {
            // A port joined twice (two records): OpenSM ORs the JoinStates.
            Some(m) => m.join |= join,
            None => g.members.push(MemberSpec { key: gid, join, at }),
        }
    }
    Ok(groups)
}

/// Resolves every member; refuses unknown members, a member named twice in one group, group
/// names used twice and an MLID asked for by two groups.
pub fn resolve(f: &Fabric, specs: &[GroupSpec]) -> Result<Vec<Group>, PlanError> {
    let sel = Selector::new(f);
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    let mut mlids: BTreeMap<u32, &str> = BTreeMap::new();
    let mut out = Vec::with_capacity(specs.len());
    for g in specs {
        if let Some(first) = names.insert(&g.name, &g.at) {
            return Err(PlanError::Group(format!("{}: group name `{}` already used at {first}", g.at, g.name)));
        }
        if let Some(m) = g.mlid {
            if let Some(other) = mlids.insert(m, &g.name) {
                return Err(PlanError::Group(format!(
                    "{}: MLID 0x{m:04X} of group `{}` is already used by group `{other}`",
                    g.at, g.name
                )));
            }
        }
        let mut members: Vec<(Member, u8)> = Vec::with_capacity(g.members.len());
        let mut seen: BTreeMap<Member, &str> = BTreeMap::new();
        for m in &g.members {
            let r = sel.resolve(&m.key).map_err(|e| PlanError::Group(format!("{}: member {e}", m.at)))?;
            if let Some(first) = seen.insert(r, &m.key) {
                return Err(PlanError::Group(format!(
                    "{}: duplicate member `{}` ({} already named as `{first}`)",
                    m.at,
                    m.key,
                    member_name(f, r)
                )));
            }
            members.push((r, m.join));
        }
        out.push(Group { name: g.name.clone(), mlid: g.mlid, ipoib: g.ipoib, members });
    }
    Ok(out)
}
