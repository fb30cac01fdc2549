//! Reading MFT dumps back as switch state: OpenSM's `opensm.mcfdbs` and `ibroute -M` (normal or
//! brief `-n`, one or many switches concatenated, as `dump_fts -M` prints). The writers are in
//! `io::mft_dump`; what they write reads back to the same rows, and so to the same text.
//!
//! Switches are named by node GUID and must exist in the fabric; every row must be complete. A
//! truncated dump (a switch header without rows' header, a row cut mid-way, an `ibroute` block
//! without its `N valid mlids dumped` footer, or whose count disagrees) is refused with its line.

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::{PortNum, SwitchId};
use crate::io::mft_dump::{switch_guids, MCAST_LID_END, MCAST_LID_START, MCAST_MASK_SIZE};
use crate::plan::MftEntry;
use std::collections::{BTreeMap, HashMap};

fn bad(file: &str, line: usize, m: impl Into<String>) -> PlanError {
    PlanError::Group(format!("{file}:{line}: {}", m.into()))
}

fn hex(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    if t.is_empty() || t.len() > 16 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(t, 16).ok()
}

/// Rows of a dump (either format, told apart by its first non-blank line).
pub fn parse(f: &Fabric, text: &str, file: &str) -> Result<Vec<MftEntry>, PlanError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    match first {
        None => Ok(Vec::new()),
        Some(l) if l.starts_with("Switch 0x") => parse_mcfdbs(f, text, file),
        Some(l) if l.starts_with("Multicast mlids") => parse_ibroute(f, text, file),
        Some(l) => Err(bad(file, 1, format!("`{l}` starts neither an opensm.mcfdbs dump (`Switch 0x..`) nor an ibroute -M dump (`Multicast mlids ..`)"))),
    }
}

struct Switches {
    by_guid: HashMap<u64, SwitchId>,
}

impl Switches {
    fn new(f: &Fabric) -> Switches {
        Switches { by_guid: switch_guids(f).into_iter().enumerate().map(|(i, g)| (g, SwitchId(i as u32))).collect() }
    }
    fn get(&self, guid_text: &str, file: &str, line: usize) -> Result<SwitchId, PlanError> {
        let g = hex(guid_text).ok_or_else(|| bad(file, line, format!("`{guid_text}` is not a GUID")))?;
        self.by_guid
            .get(&g)
            .copied()
            .ok_or_else(|| bad(file, line, format!("switch GUID 0x{g:016x} is not in the fabric")))
    }
}

fn mlid_of(s: &str, file: &str, line: usize) -> Result<u32, PlanError> {
    let m = hex(s).ok_or_else(|| bad(file, line, format!("`{s}` is not an MLID")))? as u32;
    if !(MCAST_LID_START as u64..=MCAST_LID_END as u64).contains(&(m as u64)) {
        return Err(bad(file, line, format!("MLID 0x{m:X} is outside 0xC000..=0xFFFE")));
    }
    Ok(m)
}

fn entry(f: &Fabric, s: SwitchId, mlid: u32, ports: Vec<u16>, file: &str, line: usize) -> Result<MftEntry, PlanError> {
    let sw = f.switch(s);
    if let Some(p) = ports.iter().find(|p| **p > sw.ports) {
        return Err(bad(file, line, format!("port {p} of switch {} does not exist ({} ports)", sw.name, sw.ports)));
    }
    Ok(MftEntry { mlid, switch: s, ports: ports.into_iter().map(PortNum).collect() })
}

/// Checks that no (switch, MLID) appears twice.
fn unique(rows: &[(MftEntry, usize)], file: &str) -> Result<(), PlanError> {
    let mut seen: BTreeMap<(SwitchId, u32), usize> = BTreeMap::new();
    for (e, line) in rows {
        if let Some(first) = seen.insert((e.switch, e.mlid), *line) {
            return Err(bad(
                file,
                *line,
                format!("MLID 0x{:04X} of this switch was already given at line {first}", e.mlid),
            ));
        }
    }
    Ok(())
}

/// `opensm.mcfdbs`: `Switch 0x<guid>`, `LID    : Out Port(s)`, rows `0xC000 : 0x001  0x002 `.
pub fn parse_mcfdbs(f: &Fabric, text: &str, file: &str) -> Result<Vec<MftEntry>, PlanError> {
    let sws = Switches::new(f);
    let mut rows: Vec<(MftEntry, usize)> = Vec::new();
    let mut cur: Option<(SwitchId, bool)> = None;
    let mut header_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(g) = l.strip_prefix("Switch ") {
            if let Some((_, false)) = cur {
                return Err(bad(file, header_line, "switch without its `LID    : Out Port(s)` header (truncated?)"));
            }
            cur = Some((sws.get(g, file, n)?, false));
            header_line = n;
            continue;
        }
        let Some((s, seen_header)) = cur.as_mut() else {
            return Err(bad(file, n, format!("`{l}` before any `Switch 0x..` line")));
        };
        if l.starts_with("LID") && l.contains("Out Port(s)") {
            *seen_header = true;
            continue;
        }
        if !*seen_header {
            return Err(bad(file, n, "row before the `LID    : Out Port(s)` header"));
        }
        let (m, ports) =
            l.split_once(':').ok_or_else(|| bad(file, n, format!("`{l}`: expected `0xMLID : 0xPORT ...`")))?;
        let mlid = mlid_of(m, file, n)?;
        let mut ps = Vec::new();
        for t in ports.split_whitespace() {
            let p = hex(t).filter(|p| t.len() == 5 && *p <= 0xFF).ok_or_else(|| {
                bad(file, n, format!("`{t}` is not a port (`0x%03X`; a row cut short is a truncated dump)"))
            })?;
            ps.push(p as u16);
        }
        if ps.is_empty() {
            return Err(bad(file, n, "row without ports (truncated?)"));
        }
        if ps.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad(file, n, "ports must be ascending and distinct"));
        }
        rows.push((entry(f, *s, mlid, ps, file, n)?, n));
    }
    if let Some((_, false)) = cur {
        return Err(bad(file, header_line, "switch without its `LID    : Out Port(s)` header (truncated?)"));
    }
    unique(&rows, file)?;
    Ok(rows.into_iter().map(|(e, _)| e).collect())
}

/// `ibroute -M` blocks: `Multicast mlids [..] of switch <id> guid 0x<guid> (<desc>):`, column
/// header, rows (`x` per port, or brief mask words), `N valid mlids dumped`.
pub fn parse_ibroute(f: &Fabric, text: &str, file: &str) -> Result<Vec<MftEntry>, PlanError> {
    let sws = Switches::new(f);
    let mut rows: Vec<(MftEntry, usize)> = Vec::new();
    // (switch, header line, rows so far, brief, column of port 0)
    let mut cur: Option<(SwitchId, usize, usize, bool, Option<usize>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let l = raw.trim_end();
        if l.trim().is_empty() {
            continue;
        }
        if l.starts_with("Multicast mlids") {
            if let Some((_, h, ..)) = cur {
                return Err(bad(file, h, "switch block without its `N valid mlids dumped` footer (truncated?)"));
            }
            let g = l
                .split_once(" guid ")
                .and_then(|(_, r)| r.split_whitespace().next())
                .ok_or_else(|| bad(file, n, "header without `guid 0x..`"))?;
            cur = Some((sws.get(g, file, n)?, n, 0, false, None));
            continue;
        }
        let Some((s, _, count, brief, col0)) = cur.as_mut() else {
            return Err(bad(file, n, format!("`{}` before any `Multicast mlids` header", l.trim())));
        };
        let t = l.trim();
        if let Some(num) = t.strip_suffix("valid mlids dumped") {
            let k: usize = num.trim().parse().map_err(|_| bad(file, n, "bad `N valid mlids dumped` footer"))?;
            if k != *count {
                return Err(bad(file, n, format!("footer says {k} mlids, the block holds {count} (truncated?)")));
            }
            cur = None;
            continue;
        }
        if t.starts_with("MLid") && t.contains("Port Mask") {
            *brief = true;
            continue;
        }
        if t == "MLid" || (!t.starts_with("0x") && !t.starts_with("Ports:")) {
            continue; // tens ruler and ` MLid` line
        }
        if t.starts_with("Ports:") {
            *col0 = l.find("Ports:").map(|c| c + "Ports: ".len());
            continue;
        }
        let sw = f.switch(*s);
        let (m, rest) = t.split_at(t.find(char::is_whitespace).unwrap_or(t.len()));
        let mlid = mlid_of(m, file, n)?;
        let mut ps = Vec::new();
        if *brief {
            let words = rest.trim();
            let positions = (sw.ports as usize + 1).div_ceil(MCAST_MASK_SIZE as usize);
            if words.len() != positions * 4 || !words.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(file, n, format!("expected {positions} mask word(s) of 4 hex digits (truncated?)")));
            }
            for (pos, w) in words.as_bytes().chunks(4).enumerate() {
                let w = u16::from_str_radix(std::str::from_utf8(w).expect("ascii"), 16).expect("hex");
                for b in 0..16u16 {
                    if w & (1 << b) != 0 {
                        ps.push(pos as u16 * 16 + b);
                    }
                }
            }
        } else {
            let c0 = col0.ok_or_else(|| bad(file, n, "row before the `Ports:` header"))?;
            let bytes = l.as_bytes();
            for p in 0..=sw.ports {
                match bytes.get(c0 + 2 * p as usize) {
                    Some(b'x') => ps.push(p),
                    Some(b' ') | None => {}
                    Some(_) => return Err(bad(file, n, format!("unexpected character in the column of port {p}"))),
                }
            }
            if bytes.len() > c0 + 2 * (sw.ports as usize + 1) && l[c0 + 2 * (sw.ports as usize + 1)..].trim() != "" {
                return Err(bad(file, n, format!("marks past port {} of switch {}", sw.ports, sw.name)));
            }
        }
        if ps.is_empty() {
            return Err(bad(file, n, "row without ports"));
        }
        *count += 1;
        rows.push((entry(f, *s, mlid, ps, file, n)?, n));
    }
    if let Some((_, h, ..)) = cur {
        return Err(bad(file, h, "switch block without its `N valid mlids dumped` footer (truncated?)"));
    }
    unique(&rows, file)?;
    Ok(rows.into_iter().map(|(e, _)| e).collect())
}
