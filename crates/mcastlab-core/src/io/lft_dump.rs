//! Unicast linear forwarding tables in OpenSM's `opensm-lfts.dump` format (reference/opensm.md
//! §3.3, `dump_ucast_lfts`), the format OpenSM's `file` routing engine loads back.
//!
//! Per switch, in OpenSM's switch-table order ([`guid_table_order`]):
//! `Unicast lids [0-<maxlid>] of switch Lid <lid> guid 0x<16 hex> ('<name>'):`, then one line per
//! routed LID in ascending order, `0x%04x %03u # <Channel Adapter|Switch> portguid 0x<16 hex>:
//! '<name>'`, then `<maxlid> lids dumped`.
//!
//! LIDs are the fabric's one LID plan ([`lid_plan`], shared with the multicast dumps and the
//! member selectors). Reading
//! accepts what the `file` engine accepts (the `# ...` comments are optional; `ibroute` column
//! headers and `N valid lids dumped` footers are skipped) and refuses, with the line number,
//! unknown switches, unknown LIDs, ports a switch does not have, multicast blocks and a truncated
//! last block; and, since a loaded table must describe the whole fabric, a switch whose block is
//! missing (a dump cut between blocks) or given twice, a LID given twice in one block, and port 0
//! (the switch itself) for a LID that is not the switch's own.

use crate::fabric::Fabric;
use crate::ids::{EndpointId, PortNum, SwitchId};
use crate::io::ibnetdiscover::SYNTH_CA_GUID;
pub use crate::io::lids::{lid_plan, LidPlan};
use crate::io::mft_dump::{guid_table_order, switch_guids};
use crate::routing::opensm_lft::{Lfts, UNROUTED};
use crate::routing::table::forwarding_table;
use crate::routing::Routing;
use std::collections::HashMap;
use std::fmt::Write;

/// The LFTs a routing programs: the engine's own for `minhop`/`updn`/loaded dumps; for other
/// engines the deterministic port towards every endpoint and only the switch's own LID (port 0),
/// since they do not route to switches.
pub fn lfts_of(f: &Fabric, r: &dyn Routing) -> Lfts {
    if let Some(l) = r.programmed_lfts() {
        return l.clone();
    }
    let t = forwarding_table(f, r);
    let (ne, ns) = (f.num_endpoints(), f.num_switches());
    let mut ports = vec![UNROUTED; ns * (ne + ns)];
    for s in 0..ns {
        for e in 0..ne {
            if let Some(p) = t.port(SwitchId(s as u32), EndpointId(e as u32)) {
                ports[s * (ne + ns) + e] = p.0 as u8;
            }
        }
        ports[s * (ne + ns) + ne + s] = 0;
    }
    Lfts { endpoints: ne, switches: ns, ports }
}

fn ca_port_guid(f: &Fabric, e: EndpointId) -> u64 {
    let imported = f.endpoint(e).ib.as_ref().and_then(|i| i.port_guid.as_deref()).and_then(|g| {
        let t = g.trim();
        u64::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16).ok()
    });
    imported.unwrap_or(SYNTH_CA_GUID.wrapping_add((e.0 as u64) << 8).wrapping_add(1))
}

/// `opensm-lfts.dump` text of LFTs on a fabric.
pub fn write_lfts(f: &Fabric, lfts: &Lfts) -> String {
    let lids = lid_plan(f);
    let guids = switch_guids(f);
    let max = lids.endpoint.iter().chain(&lids.switch).copied().max().unwrap_or(0);
    let mut rows: Vec<(u32, usize)> = lids
        .endpoint
        .iter()
        .enumerate()
        .map(|(i, l)| (*l, i))
        .chain(lids.switch.iter().enumerate().map(|(j, l)| (*l, lfts.endpoints + j)))
        .collect();
    rows.sort_unstable();
    let width = lfts.endpoints + lfts.switches;
    let mut out = String::new();
    for s in guid_table_order(f) {
        let sw = f.switch(s);
        let _ = writeln!(
            out,
            "Unicast lids [0-{max}] of switch Lid {} guid 0x{:016x} ('{}'):",
            lids.switch[s.idx()],
            guids[s.idx()],
            sw.name
        );
        for &(lid, t) in &rows {
            let p = lfts.ports[s.idx() * width + t];
            if p == UNROUTED {
                continue;
            }
            let (kind, guid, name) = if t < lfts.endpoints {
                let e = EndpointId(t as u32);
                ("Channel Adapter", ca_port_guid(f, e), f.endpoint(e).name.as_str())
            } else {
                let j = t - lfts.endpoints;
                ("Switch", guids[j], f.switches()[j].name.as_str())
            };
            let _ = writeln!(out, "0x{lid:04x} {p:03} # {kind} portguid 0x{guid:016x}: '{name}'");
        }
        let _ = writeln!(out, "{max} lids dumped");
    }
    out
}

/// Reads an `opensm-lfts.dump` (or `ibroute` unicast output) for a fabric; errors are one line,
/// `<file>:<line>: <what>`.
pub fn read_lfts(f: &Fabric, text: &str, file: &str) -> Result<Lfts, String> {
    let lids = lid_plan(f);
    let (ne, ns) = (f.num_endpoints(), f.num_switches());
    let mut target: HashMap<u32, usize> = HashMap::new();
    for (i, l) in lids.endpoint.iter().enumerate() {
        target.insert(*l, i);
    }
    for (j, l) in lids.switch.iter().enumerate() {
        target.insert(*l, ne + j);
    }
    let by_guid: HashMap<u64, SwitchId> =
        switch_guids(f).into_iter().enumerate().map(|(i, g)| (g, SwitchId(i as u32))).collect();
    let mut ports = vec![UNROUTED; ns * (ne + ns)];
    // The open block: switch and the line of its header.
    let mut open: Option<(SwitchId, usize)> = None;
    // The header line of each switch's block and, in the open block, the line of each target's
    // entry (`None`: not given yet).
    let mut block_at: Vec<Option<usize>> = vec![None; ns];
    let mut entry_at: Vec<Option<usize>> = vec![None; ne + ns];
    let err = |line: usize, m: String| format!("{file}:{line}: {m}");
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with("Lid") || line.starts_with("Port") {
            continue;
        }
        if line.starts_with("Multicast mlids") {
            return Err(err(n, "a multicast (MFT) block; this reads unicast LFTs only".into()));
        }
        if line.starts_with("Unicast lids") {
            if let Some((s, at)) = open {
                return Err(err(
                    n,
                    format!("block of switch {} (line {at}) has no `N lids dumped` line", f.switch(s).name),
                ));
            }
            let g = line
                .split(" guid 0x")
                .nth(1)
                .and_then(|r| {
                    u64::from_str_radix(r.split(|c: char| !c.is_ascii_hexdigit()).next().unwrap_or(""), 16).ok()
                })
                .ok_or_else(|| err(n, "header without ` guid 0x<hex>`".into()))?;
            let s = *by_guid.get(&g).ok_or_else(|| err(n, format!("switch guid 0x{g:016x} is not in the fabric")))?;
            if let Some(first) = block_at[s.idx()] {
                return Err(err(
                    n,
                    format!("switch {} has a second block (its first is at line {first})", f.switch(s).name),
                ));
            }
            block_at[s.idx()] = Some(n);
            entry_at.fill(None);
            open = Some((s, n));
            continue;
        }
        if line.ends_with("lids dumped") {
            if open.take().is_none() {
                return Err(err(n, "`lids dumped` outside a switch block".into()));
            }
            continue;
        }
        let Some((s, _)) = open else {
            return Err(err(n, format!("`{line}` before any `Unicast lids` header")));
        };
        let mut it = line.split_whitespace();
        let (Some(l), Some(p)) = (it.next(), it.next()) else {
            return Err(err(n, format!("`{line}` is not `0x<lid> <port>`")));
        };
        let lid = l
            .strip_prefix("0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| err(n, format!("`{l}` is not a hexadecimal LID")))?;
        let port: u16 = p.parse().map_err(|_| err(n, format!("`{p}` is not a port number")))?;
        let sw = f.switch(s);
        if port > sw.ports || (port > 0 && f.port(s, PortNum(port)).is_none()) {
            return Err(err(n, format!("switch {} has no connected port {port} ({} ports)", sw.name, sw.ports)));
        }
        let t = *target.get(&lid).ok_or_else(|| err(n, format!("LID {lid} (0x{lid:04x}) is not in the fabric")))?;
        if let Some(first) = entry_at[t] {
            return Err(err(n, format!("LID 0x{lid:04x} of switch {} was already given at line {first}", sw.name)));
        }
        entry_at[t] = Some(n);
        let own = t == ne + s.idx();
        if (port == 0) != own {
            let m = if own {
                format!("LID 0x{lid:04x} is switch {}'s own: its port is 0, not {port}", sw.name)
            } else {
                format!("port 0 (switch {} itself) for LID 0x{lid:04x}, which is not the switch's own", sw.name)
            };
            return Err(err(n, m));
        }
        ports[s.idx() * (ne + ns) + t] = port as u8;
    }
    if let Some((s, at)) = open {
        return Err(err(
            text.lines().count(),
            format!("truncated: block of switch {} (line {at}) has no `N lids dumped` line", f.switch(s).name),
        ));
    }
    let missing: Vec<&str> =
        f.switch_ids().filter(|s| block_at[s.idx()].is_none()).map(|s| f.switch(s).name.as_str()).collect();
    if !missing.is_empty() {
        let shown = missing.iter().take(5).copied().collect::<Vec<_>>().join(", ");
        let more = if missing.len() > 5 { format!(", ... ({} in all)", missing.len()) } else { String::new() };
        return Err(format!(
            "{file}: no block for {} of the fabric's {ns} switches ({shown}{more}): a truncated dump, or one of \
             another fabric",
            missing.len()
        ));
    }
    Ok(Lfts { endpoints: ne, switches: ns, ports })
}
