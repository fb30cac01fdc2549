//! InfiniBand multicast forwarding tables (MFTs) as OpenSM and infiniband-diags print them, so a
//! plan's switch state can be compared line by line with a real subnet (or with OpenSM running on
//! ibsim over the same fabric exported by [`super::ibnetdiscover::export`]).
//!
//! Two formats, both described in `reference/opensm.md`:
//! - [`opensm_mcfdbs`]: OpenSM's `opensm.mcfdbs` dump (§3.3, `dump_mcast_routes` in
//!   `osm_dump.c`). Switches in OpenSM's switch-table order, each with at least one non-empty MLID
//!   introduced by a blank line, `Switch 0x<guid, 16 lowercase hex digits>` and the column
//!   header `LID    : Out Port(s)`; then one line per non-empty MLID in ascending order:
//!   `0x%04X :` followed by ` 0x%03X ` for every port of its mask in ascending order.
//! - [`ibroute_mft`]: `ibroute -M` for one switch (§3.4, `dump_multicast_tables` in
//!   infiniband-diags), in its normal (`x` per port) or brief (`-n`, 16-bit mask words) layout.
//!
//! Switch identity: a switch keeps the node GUID it was imported with; switches of generated
//! fabrics get the GUIDs the ibnetdiscover export synthesizes for them ([`switch_guids`]), so a
//! dump and an exported topology name the same switches.

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::ids::SwitchId;
use crate::io::ibnetdiscover::SYNTH_SWITCH_GUID;
use crate::plan::MftEntry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// First multicast LID (`IB_LID_MCAST_START_HO`).
pub const MCAST_LID_START: u32 = 0xC000;
/// Last multicast LID (`IB_LID_MCAST_END_HO`; 0xFFFF is the permissive LID).
pub const MCAST_LID_END: u32 = 0xFFFE;
/// MLIDs per MFT block (`IB_MCAST_BLOCK_SIZE`).
pub const MCAST_BLOCK_SIZE: u32 = 32;
/// Ports per mask word, one "position" (`IB_MCAST_MASK_SIZE`).
pub const MCAST_MASK_SIZE: u16 = 16;

/// Node GUID of every switch, by switch index.
///
/// A switch imported from ibnetdiscover keeps its node GUID (or the GUID its `S-<guid>` id
/// spells). Other switches get `SYNTH_SWITCH_GUID + index`, skipping GUIDs an imported node
/// already uses, which is what [`super::ibnetdiscover::export`] writes for them; the two agree
/// except for fabrics whose node *names* mimic synthesized ids.
pub fn switch_guids(f: &Fabric) -> Vec<u64> {
    let imported = |s: &crate::fabric::Switch| -> Option<u64> {
        let ib = s.ib.as_ref()?;
        ib.node_guid.as_deref().and_then(parse_hex).or_else(|| {
            let hex = s.name.strip_prefix("S-")?;
            (hex.len() == 16).then(|| parse_hex(hex)).flatten()
        })
    };
    let mut used: BTreeSet<u64> = BTreeSet::new();
    let ibs =
        f.switches().iter().filter_map(|s| s.ib.as_ref()).chain(f.endpoints().iter().filter_map(|e| e.ib.as_ref()));
    for ib in ibs {
        used.extend([&ib.node_guid, &ib.port_guid].into_iter().filter_map(|g| g.as_deref().and_then(parse_hex)));
    }
    let names: BTreeSet<&str> =
        f.switches().iter().map(|s| s.name.as_str()).chain(f.endpoints().iter().map(|e| e.name.as_str())).collect();
    let mut out = Vec::with_capacity(f.num_switches());
    for (i, s) in f.switches().iter().enumerate() {
        if let Some(g) = imported(s) {
            out.push(g);
            continue;
        }
        let mut g = SYNTH_SWITCH_GUID.wrapping_add(i as u64);
        while used.contains(&g) || names.contains(format!("S-{g:016x}").as_str()) {
            g = g.wrapping_add(1);
        }
        used.insert(g);
        out.push(g);
    }
    out
}

/// The key OpenSM orders its switch table by: the node GUID as stored (network byte order) read
/// as a host integer on a little-endian machine, i.e. the byte-reversed GUID (opensm.md §1.6).
pub fn guid_table_key(guid: u64) -> u64 {
    guid.swap_bytes()
}

/// Switches in OpenSM's `sw_guid_tbl` order: ascending [`guid_table_key`]. Root selection breaks
/// ties and the dumps list switches in this order.
pub fn guid_table_order(f: &Fabric) -> Vec<SwitchId> {
    let guids = switch_guids(f);
    let mut order: Vec<SwitchId> = f.switch_ids().collect();
    order.sort_by_key(|s| (guid_table_key(guids[s.idx()]), *s));
    order
}

/// Per switch, per MLID, the set of ports (port 0 = the switch itself), after validation.
type Masks = BTreeMap<SwitchId, BTreeMap<u32, BTreeSet<u16>>>;

/// Collects entries into masks. Two entries for one (switch, MLID) are refused: a switch holds
/// one mask per MLID, and a dump that merged them would show tables the plan's checker never saw.
fn masks(f: &Fabric, mft: &[MftEntry]) -> Result<Masks, PlanError> {
    if let Some(c) = crate::plan::mft_conflict(mft) {
        return Err(PlanError::Param {
            param: "mft",
            message: format!(
                "rows {} and {} both give MLID 0x{:04X} on switch {}; a switch holds one row per MLID",
                c.first, c.second, c.mlid, c.switch.0
            ),
        });
    }
    let mut out: Masks = BTreeMap::new();
    for e in mft {
        if !(MCAST_LID_START..=MCAST_LID_END).contains(&e.mlid) {
            return Err(PlanError::Param {
                param: "mlid",
                message: format!("0x{:X} is not a multicast LID (0xC000..=0xFFFE)", e.mlid),
            });
        }
        if e.switch.idx() >= f.num_switches() {
            return Err(PlanError::Param {
                param: "switch",
                message: format!("MFT entry for switch {} outside the fabric", e.switch.0),
            });
        }
        let sw = f.switch(e.switch);
        if let Some(p) = e.ports.iter().find(|p| p.0 > sw.ports) {
            return Err(PlanError::Param {
                param: "ports",
                message: format!("port {p} of {} does not exist ({} ports)", sw.name, sw.ports),
            });
        }
        out.entry(e.switch).or_default().entry(e.mlid).or_default().extend(e.ports.iter().map(|p| p.0));
    }
    out.retain(|_, by_mlid| {
        by_mlid.retain(|_, ports| !ports.is_empty());
        !by_mlid.is_empty()
    });
    Ok(out)
}

/// OpenSM's `opensm.mcfdbs` text for a set of MFT entries (see the module doc for the layout).
/// Switches without a non-empty entry are left out, as OpenSM does.
pub fn opensm_mcfdbs(f: &Fabric, mft: &[MftEntry]) -> Result<String, PlanError> {
    let masks = masks(f, mft)?;
    let guids = switch_guids(f);
    let mut out = String::new();
    for s in guid_table_order(f) {
        let Some(by_mlid) = masks.get(&s) else { continue };
        let _ = write!(out, "\nSwitch 0x{:016x}\nLID    : Out Port(s)\n", guids[s.idx()]);
        for (mlid, ports) in by_mlid {
            let _ = write!(out, "0x{mlid:04X} :");
            for p in ports {
                let _ = write!(out, " 0x{p:03X} ");
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// The 16-bit mask words of one MFT row, position 0 (ports 0–15) first: bit `p % 16` of word
/// `p / 16` is port `p`. A switch with `ports` ports has `⌈(ports + 1)/16⌉` positions.
pub fn mask_words(ports: &BTreeSet<u16>, switch_ports: u16) -> Vec<u16> {
    let positions = (switch_ports as usize + 1).div_ceil(MCAST_MASK_SIZE as usize);
    let mut w = vec![0u16; positions];
    for &p in ports {
        w[(p / MCAST_MASK_SIZE) as usize] |= 1 << (p % MCAST_MASK_SIZE);
    }
    w
}

/// `MulticastFDBTop` as OpenSM programs it (`use_mfttop`, on by default): the last MLID of the
/// highest block holding an entry of this switch, or 0xBFFF when it has none (opensm.md §1.9).
fn mft_top(by_mlid: Option<&BTreeMap<u32, BTreeSet<u16>>>) -> u32 {
    match by_mlid.and_then(|m| m.keys().next_back()) {
        Some(&hi) => MCAST_LID_START + ((hi - MCAST_LID_START) / MCAST_BLOCK_SIZE + 1) * MCAST_BLOCK_SIZE - 1,
        None => MCAST_LID_START - 1,
    }
}

/// `ibroute -M` output for one switch (`brief` = `ibroute -M -n`), as read from a switch whose
/// `MulticastFDBTop` OpenSM has set: the MLID range runs from 0xC000 to that top, so a switch
/// without entries prints the empty range `[0xc000-0xbfff]`. The switch is addressed as
/// `Lid <switch_lid>`; its description is the imported one or, for generated switches, the
/// mcastlab name (as in the ibnetdiscover export).
pub fn ibroute_mft(
    f: &Fabric,
    mft: &[MftEntry],
    s: SwitchId,
    switch_lid: u32,
    brief: bool,
) -> Result<String, PlanError> {
    if s.idx() >= f.num_switches() {
        return Err(PlanError::Param { param: "switch", message: format!("switch {} outside the fabric", s.0) });
    }
    let masks = masks(f, mft)?;
    let by_mlid = masks.get(&s);
    let sw = f.switch(s);
    let desc = sw.ib.as_ref().and_then(|ib| ib.desc.clone()).unwrap_or_else(|| sw.name.clone());
    let top = mft_top(by_mlid);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Multicast mlids [0x{MCAST_LID_START:x}-0x{top:x}] of switch Lid {switch_lid} guid 0x{:016x} ({desc}):",
        switch_guids(f)[s.idx()]
    );
    out.push_str(&ibroute_columns(sw.ports, brief));
    let mut rows = 0;
    for (mlid, ports) in by_mlid.into_iter().flatten() {
        let _ = write!(out, "0x{mlid:04x}      ");
        if brief {
            for w in mask_words(ports, sw.ports) {
                let _ = write!(out, "{w:04x}");
            }
        } else {
            for p in 0..=sw.ports {
                out.push_str(if ports.contains(&p) { "x " } else { "  " });
            }
        }
        out.push('\n');
        rows += 1;
    }
    let _ = writeln!(out, "{rows} valid mlids dumped ");
    Ok(out)
}

/// The column header of `ibroute -M`: a tens ruler (only past 9 ports; its digit is
/// `'0' + port/10`, which runs past `'9'` beyond port 99 exactly as ibroute's does), the ports'
/// last digits and ` MLid`; in brief mode one line.
fn ibroute_columns(nports: u16, brief: bool) -> String {
    if brief {
        return " MLid       Port Mask\n".into();
    }
    let mut out = String::new();
    if nports > 9 {
        out.push_str("            ");
        for i in 0..=nports {
            out.push(if i % 10 != 0 { ' ' } else { char::from(b'0'.wrapping_add((i / 10) as u8)) });
            out.push(' ');
        }
        out.push('\n');
    }
    out.push_str("     Ports: ");
    for i in 0..=nports {
        let _ = write!(out, "{} ", i % 10);
    }
    out.push_str("\n MLid\n");
    out
}

/// One `SubnSet(MulticastForwardingTable)` MAD as OpenSM sends it (opensm.md §1.8): 32 MLIDs
/// (`0xC000 + 32·block ..`) by 16 ports (`16·position ..`), one mask word per MLID, bit 0 = the
/// lowest port of the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MftMad {
    pub switch: SwitchId,
    pub block: u32,
    pub position: u32,
    /// `block | position << 28`.
    pub attribute_modifier: u32,
    pub masks: [u16; MCAST_BLOCK_SIZE as usize],
}

/// `MulticastFDBTop` OpenSM programs into switch `s` for these entries (0xBFFF for none).
pub fn mft_top_of(f: &Fabric, mft: &[MftEntry], s: SwitchId) -> Result<u32, PlanError> {
    Ok(mft_top(masks(f, mft)?.get(&s)))
}

/// The MFT MADs one OpenSM pass sends (`mcast_mgr_set_mftables`, opensm.md §1.9): every block up
/// to the switch's highest used one, every position, no diffing; switches without entries get
/// none. Order: block by block; within a block, position by position; within a position, the
/// switches in switch-table order. This is the SM traffic a routing change costs.
pub fn mft_set_mads(f: &Fabric, mft: &[MftEntry]) -> Result<Vec<MftMad>, PlanError> {
    let masks = masks(f, mft)?;
    let last_block = |by_mlid: &BTreeMap<u32, BTreeSet<u16>>| {
        by_mlid.keys().next_back().map(|m| (m - MCAST_LID_START) / MCAST_BLOCK_SIZE)
    };
    let positions = |s: SwitchId| (f.switch(s).ports as u32 + 1).div_ceil(MCAST_MASK_SIZE as u32);
    let order: Vec<SwitchId> = guid_table_order(f).into_iter().filter(|s| masks.contains_key(s)).collect();
    let top_block = masks.values().filter_map(last_block).max();
    let top_position = order.iter().map(|s| positions(*s)).max().unwrap_or(0);
    let mut out = Vec::new();
    for block in 0..top_block.map_or(0, |b| b + 1) {
        for position in 0..top_position {
            for &s in &order {
                let by_mlid = &masks[&s];
                if last_block(by_mlid).is_none_or(|b| block > b) || position >= positions(s) {
                    continue;
                }
                let mut words = [0u16; MCAST_BLOCK_SIZE as usize];
                let first = MCAST_LID_START + block * MCAST_BLOCK_SIZE;
                for (mlid, ports) in by_mlid.range(first..first + MCAST_BLOCK_SIZE) {
                    words[(mlid - first) as usize] = mask_words(ports, f.switch(s).ports)[position as usize];
                }
                out.push(MftMad {
                    switch: s,
                    block,
                    position,
                    attribute_modifier: block | position << 28,
                    masks: words,
                });
            }
        }
    }
    Ok(out)
}

fn parse_hex(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    if t.is_empty() || t.len() > 16 {
        return None;
    }
    u64::from_str_radix(t, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn mask_words_put_port_p_at_bit_p_mod_16_of_word_p_div_16() {
        let ports: BTreeSet<u16> = [0, 3, 15, 16, 36].into_iter().collect();
        // 36 ports + port 0 = 37 → 3 positions.
        assert_eq!(mask_words(&ports, 36), vec![0x8009, 0x0001, 0x0010]);
        assert_eq!(mask_words(&BTreeSet::new(), 15), vec![0]);
        assert_eq!(mask_words(&BTreeSet::new(), 16), vec![0, 0]);
    }

    #[test]
    fn mads_cover_every_position_of_every_used_block() {
        use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
        use crate::ids::PortNum;
        // Two switches of 36 and 8 ports, linked on port 1 of each.
        let sw = |name: &str, ports| Switch { name: name.into(), ports, level: None, coords: None, ib: None };
        let links = vec![
            Link::new(Terminal::switch(0, 1), Terminal::switch(1, 1)),
            Link::new(Terminal::switch(0, 36), Terminal::endpoint(0)),
            Link::new(Terminal::switch(1, 2), Terminal::endpoint(1)),
        ];
        let eps = vec![Endpoint { name: "a".into(), ib: None }, Endpoint { name: "b".into(), ib: None }];
        let f = Fabric::new("t".into(), Topology::Custom {}, vec![sw("x", 36), sw("y", 8)], eps, links).unwrap();
        let e = |mlid, s, ports: &[u16]| MftEntry {
            mlid,
            switch: SwitchId(s),
            ports: ports.iter().map(|p| PortNum(*p)).collect(),
        };
        let mft = vec![e(0xC021, 0, &[1, 36]), e(0xC000, 1, &[1, 2])];
        let mads = mft_set_mads(&f, &mft).unwrap();
        // Switch x: blocks 0..=1 × positions 0..=2; switch y: block 0 × position 0.
        let order: Vec<(u32, u32, u32)> = mads.iter().map(|m| (m.block, m.position, m.switch.0)).collect();
        assert_eq!(order, vec![(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 2, 0), (1, 0, 0), (1, 1, 0), (1, 2, 0)]);
        let y = &mads[1];
        assert_eq!((y.attribute_modifier, y.masks[0], y.masks[1]), (0, 0b110, 0));
        let x_hi = &mads[6];
        assert_eq!(x_hi.attribute_modifier, 1 | 2 << 28);
        assert_eq!(x_hi.masks[1], 1 << 4, "port 36 = position 2, bit 4, MLID 0xC021 = slot 1");
        assert_eq!(mads[4].masks[1], 1 << 1, "port 1 in position 0");
        assert_eq!(mft_top_of(&f, &mft, SwitchId(0)).unwrap(), 0xC03F);
        assert_eq!(mft_top_of(&f, &mft, SwitchId(1)).unwrap(), 0xC01F);
        assert_eq!(mft_top_of(&f, &[], SwitchId(1)).unwrap(), 0xBFFF);
    }

    #[test]
    fn guid_key_is_the_byte_reversed_guid() {
        assert_eq!(guid_table_key(0x0002_0000_0000_0001), 0x0100_0000_0000_0200);
        assert!(guid_table_key(0x0002_0000_0000_0100) < guid_table_key(0x0002_0000_0000_0001));
    }

    #[test]
    fn tens_ruler_matches_ibroute_for_36_ports() {
        let h = ibroute_columns(36, false);
        let first = h.lines().next().unwrap();
        assert_eq!(
            first,
            format!("            0{}1{}2{}3{}", " ".repeat(19), " ".repeat(19), " ".repeat(19), " ".repeat(13))
        );
        assert_eq!(ibroute_columns(8, false), "     Ports: 0 1 2 3 4 5 6 7 8 \n MLid\n");
    }
}
