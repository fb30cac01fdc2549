//! ibnetdiscover topology files (and the ibsim `net` subset): import and export.
//!
//! A user's real fabric arrives as the text `ibnetdiscover` prints (infiniband-diags), or as an
//! ibsim net file, which is a superset of it. Both list one record per node: optional header
//! lines, a node line, then one line per cabled port. See docs/formats.md and
//! `shared/reference/opensm.md` §3.1–3.2 for the grammar this follows.
//!
//! # What is accepted
//!
//! * Blank lines end a record. Lines starting with `#` are comments (they do not end a record).
//! * Header lines `vendid=0x..`, `devid=0x..`, `sysimgguid=0x..`, `switchguid=0xG(P)`,
//!   `caguid=0x..` (also `hcaguids=`) and `rtguid=0x..` apply to the next node line. The GUID
//!   header must match that node's type; a header block not followed by a node line is an error
//!   (a truncated file).
//! * Node lines: `Switch`, `Ca`, `Hca` or `Rt`, the port count (1–255), the quoted node id (any
//!   string without `"`: `S-<hex16>`, `H-<hex16>`, `Hca1`), then optionally `# "description"`
//!   (the description runs to the *last* quote of the line, because real descriptions contain
//!   `#`; unquoted ibsim descriptions run up to `enhanced`/`base`/`lid`/`lmc`) and
//!   `enhanced|base port 0 lid N lmc M`.
//! * Port lines `[p]` (optionally `[ext N]` and `(port guid)`), the quoted peer id, `[rp]`
//!   (1 when missing, as ibsim does), optionally `(peer port guid)` (port GUIDs are kept for CA
//!   and router ports; switch ports share the port-0 GUID), ibsim options (`w=4`, ignored)
//!   and a `#` comment from which only the pair `lid L lmc M` (the local CA port's LID and LMC; a
//!   lone `lid N` is the peer's and is skipped) and the width/speed token (`4xQDR`, `12xEDR`,
//!   `4xFDR10`; `??`/`???` = unknown) are taken. When the two ends of a link disagree on width or
//!   speed, the first line in the file wins.
//! * Routers (`Rt`) are imported like CAs: each cabled router port becomes an endpoint with
//!   `ib.kind = "Rt"`. mcastlab models hosts at the edge of one subnet, and a router port is, for
//!   routing inside the subnet, exactly such an edge port.
//! * A line whose first word is `Switch`, `Ca`, `Hca`, `Rt` or a header keyword is always read as
//!   such (and is an error if malformed). Lines that fit none of the above (stderr warnings
//!   mixed into the dump, `-g` chassis headers
//!   such as `Chassis 1 (guid ..)`, ibsim `width`/`speed`/`extspeed` defaults) are ignored and do
//!   not end a record, so a warning printed between two port lines does not cut a record short.
//!
//! # What is rejected (each error names the file and the 1-based line)
//!
//! * A malformed node, header or port line (missing port count, unterminated quote, bracket or
//!   parenthesis, bad number): such a line is what a truncated file ends with.
//! * An *unknown record*: a line shaped like a node line (`Word <count> "id"`) whose word is not
//!   `Switch`, `Ca`, `Hca` or `Rt` (`Router2 4 "R-.."`); ibsim `include`/`module`/`do` directives
//!   and `@` alias lines (they would silently drop nodes or ports if ignored).
//! * A port line outside a record (after a blank line), a header block without a node line.
//! * Duplicate node ids, duplicate GUIDs (node GUIDs, switch port-0 GUIDs and CA port GUIDs must
//!   be unique across nodes; system-image GUIDs may repeat), conflicting port GUIDs.
//! * A port (or peer port) beyond the node's declared port count, port 0, a port listed twice, a
//!   port cabled to itself, a CA cabled directly to a CA.
//! * A link to nowhere (peer id never defined). A link whose ends disagree (`A[1]` names `B[2]` but
//!   `B[2]` names `C[5]`); both lines are named. A link listed from one end only: ibnetdiscover always
//!   prints every link from both ends, so a missing other half means a truncated or edited file.
//! * No switch at all (including an empty file), no cabled CA port at all, and a disconnected
//!   fabric (from [`Fabric::new`], reported with the file name).
//!
//! CAs without any cabled port are skipped (not an error; [`parse_with_notes`] reports them).
//! Each cabled CA port is one endpoint, named by the CA id when the CA has one cabled port and
//! `<id>/<port>` otherwise. Switches keep their id as name. The parse is deterministic: nodes,
//! endpoints and links come in file order.

use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, IbInfo, Link, Switch, Terminal, Topology};
use crate::ids::{EndpointId, PortNum, SwitchId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// InfiniBand's NumPorts is an 8-bit field; larger counts are not real hardware and would let a
/// tiny malformed file allocate huge port tables.
pub const MAX_PORTS: u16 = 255;
/// First GUID given to switches of a fabric that carries none (generated fabrics): switch `i`
/// gets `SYNTH_SWITCH_GUID + i` unless that GUID is taken.
pub const SYNTH_SWITCH_GUID: u64 = 0x0002_0000_0000_0000;
/// First GUID given to synthesized CAs: endpoint `i` becomes CA `SYNTH_CA_GUID + 256·i` with
/// port GUID `node GUID + 1` (ibsim's "port GUID = node GUID + port" convention).
pub const SYNTH_CA_GUID: u64 = 0x0001_0000_0000_0000;

const WIDTHS: &[&str] = &["12x", "1x", "2x", "4x", "8x"];
const SPEEDS: &[&str] = &["SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeType {
    Switch,
    Ca,
    Rt,
}

impl NodeType {
    fn name(self) -> &'static str {
        match self {
            NodeType::Switch => "Switch",
            NodeType::Ca => "Ca",
            NodeType::Rt => "Rt",
        }
    }
    fn from_word(w: &str) -> Option<NodeType> {
        match w {
            "Switch" => Some(NodeType::Switch),
            "Ca" | "Hca" => Some(NodeType::Ca),
            "Rt" => Some(NodeType::Rt),
            _ => None,
        }
    }
}

/// One header value with the line it came from.
type Lined<T> = Option<(T, usize)>;
/// A node port: (index of the node in file order, port number).
type NodePort = (usize, u16);

/// Header lines seen since the last node line.
#[derive(Default)]
struct Pending {
    vendid: Lined<String>,
    devid: Lined<String>,
    sysimg: Lined<String>,
    /// (node type the GUID header is for, header word, node GUID, port-0 GUID).
    guid: Lined<(NodeType, String, String, Option<String>)>,
}

impl Pending {
    fn first_line(&self) -> Option<usize> {
        [
            self.vendid.as_ref().map(|x| x.1),
            self.devid.as_ref().map(|x| x.1),
            self.sysimg.as_ref().map(|x| x.1),
            self.guid.as_ref().map(|x| x.1),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

struct Node {
    ty: NodeType,
    nports: u16,
    id: String,
    line: usize,
    desc: Option<String>,
    vendid: Option<String>,
    devid: Option<String>,
    sysimg: Option<String>,
    /// Node GUID and the line that gave it (header, or the node line when derived from the id).
    guid: Lined<String>,
    port0_guid: Option<String>,
    lid: Option<u32>,
    lmc: Option<u8>,
    /// `base` / `enhanced` (switch port 0).
    esp0: Option<String>,
}

struct PortLine {
    line: usize,
    node: usize,
    port: u16,
    own_guid: Option<String>,
    peer_id: String,
    peer_port: u16,
    peer_guid: Option<String>,
    lid: Option<u32>,
    lmc: Option<u8>,
    width: Option<String>,
    speed: Option<String>,
}

fn perr(file: &str, line: usize, message: impl Into<String>) -> FabricError {
    FabricError::Parse { file: file.to_string(), line, message: message.into() }
}

/// Parses ibnetdiscover output or an ibsim net file into a validated fabric. `file` names the
/// source in errors and in `Topology::Imported`; the fabric is named after its base name.
pub fn parse(text: &str, file: &str) -> Result<Fabric, FabricError> {
    parse_with_notes(text, file).map(|(f, _)| f)
}

/// Like [`parse`], also returning notes about what was skipped (CAs with no cabled port), so a
/// CLI can tell the user why a host is missing.
pub fn parse_with_notes(text: &str, file: &str) -> Result<(Fabric, Vec<String>), FabricError> {
    let (nodes, ports) = read_records(text, file)?;
    build(nodes, ports, file)
}

/// The leading identifier of a line (letters, digits, `_`).
fn leading_word(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// Splits a leading run of ASCII digits off `s`.
fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

/// Whether a line has the shape of a node line, `Word <count> "id"`, whatever the word.
fn record_shaped(s: &str) -> bool {
    let word = leading_word(s);
    if !word.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let rest = &s[word.len()..];
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return false;
    }
    let (digits, rest) = split_digits(rest.trim_start());
    !digits.is_empty() && rest.trim_start().starts_with('"')
}

/// Parses a hex number with optional `0x`.
fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if h.is_empty() || h.len() > 16 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// GUIDs are stored as 16 lowercase hex digits without `0x`.
fn guid_str(g: u64) -> String {
    format!("{g:016x}")
}

/// The GUID embedded in an ibnetdiscover id (`S-`, `H-` or `R-` and 16 hex digits).
fn guid_from_id(id: &str) -> Option<String> {
    let h = id.strip_prefix("S-").or_else(|| id.strip_prefix("H-")).or_else(|| id.strip_prefix("R-"))?;
    (h.len() == 16).then(|| parse_hex(h)).flatten().map(guid_str)
}

/// Reads the records: syntax only, no cross-references.
fn read_records(text: &str, file: &str) -> Result<(Vec<Node>, Vec<PortLine>), FabricError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut nodes: Vec<Node> = Vec::new();
    let mut ports: Vec<PortLine> = Vec::new();
    let mut pending = Pending::default();
    let mut current: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let s = raw.trim();
        if s.is_empty() {
            current = None;
            continue;
        }
        if s.starts_with('#') {
            continue;
        }
        if s.starts_with('[') {
            let Some(node) = current else {
                return Err(perr(
                    file,
                    ln,
                    "port line outside a node record (port lines must follow their Switch/Ca line, \
                     with no blank line in between)",
                ));
            };
            ports.push(parse_port_line(s, ln, node, file)?);
            continue;
        }
        if s.starts_with('@') {
            return Err(perr(file, ln, "ibsim port alias lines (`@...`) are not supported"));
        }
        let word = leading_word(s);
        let after = &s[word.len()..];
        match word {
            "vendid" | "devid" | "sysimgguid" | "switchguid" | "caguid" | "hcaguids" | "rtguid" => {
                current = None;
                parse_header(word, after, ln, file, &mut pending)?;
                continue;
            }
            "include" | "module" | "do" if after.starts_with(char::is_whitespace) || after.is_empty() => {
                return Err(perr(file, ln, format!("ibsim directive `{word}` is not supported")));
            }
            _ => {}
        }
        if let Some(ty) = NodeType::from_word(word) {
            let node = parse_node_line(ty, word, after, ln, file, &mut pending)?;
            nodes.push(node);
            current = Some(nodes.len() - 1);
            continue;
        }
        if record_shaped(s) {
            return Err(perr(file, ln, format!("unknown record type `{word}` (expected Switch, Ca, Hca or Rt)")));
        }
        // Anything else (stderr noise, chassis headers, ibsim width/speed defaults) is ignored.
    }
    if let Some(l) = pending.first_line() {
        return Err(perr(file, l, "record header is not followed by a node line (truncated file?)"));
    }
    Ok((nodes, ports))
}

fn parse_header(word: &str, after: &str, ln: usize, file: &str, p: &mut Pending) -> Result<(), FabricError> {
    let Some(value) = after.trim_start().strip_prefix('=') else {
        return Err(perr(file, ln, format!("malformed header: expected `{word}=0x...`")));
    };
    let value = value.trim();
    let bad = || perr(file, ln, format!("malformed header `{word}`: `{value}` is not a hex number"));
    let dup = |prev: usize| perr(file, ln, format!("header `{word}` given twice for one record (also at line {prev})"));
    match word {
        "vendid" | "devid" => {
            let v = parse_hex(value).filter(|v| *v <= u32::MAX as u64).ok_or_else(bad)?;
            let slot = if word == "vendid" { &mut p.vendid } else { &mut p.devid };
            if let Some((_, prev)) = slot {
                return Err(dup(*prev));
            }
            *slot = Some((format!("0x{v:x}"), ln));
        }
        "sysimgguid" => {
            let v = parse_hex(value).ok_or_else(bad)?;
            if let Some((_, prev)) = &p.sysimg {
                return Err(dup(*prev));
            }
            p.sysimg = Some((guid_str(v), ln));
        }
        _ => {
            let ty = match word {
                "switchguid" => NodeType::Switch,
                "rtguid" => NodeType::Rt,
                _ => NodeType::Ca,
            };
            let (main, port0) = match value.find('(') {
                Some(i) => {
                    let inner = &value[i + 1..];
                    let Some(close) = inner.find(')') else {
                        return Err(perr(file, ln, format!("unterminated `(` in `{word}` header (truncated line?)")));
                    };
                    if !inner[close + 1..].trim().is_empty() {
                        return Err(perr(file, ln, format!("unexpected text after `{word}` header")));
                    }
                    let pg = parse_hex(inner[..close].trim()).ok_or_else(bad)?;
                    (value[..i].trim(), Some(guid_str(pg)))
                }
                None => (value, None),
            };
            let g = parse_hex(main).ok_or_else(bad)?;
            if let Some((_, prev)) = &p.guid {
                return Err(perr(file, ln, format!("second GUID header for one record (also at line {prev})")));
            }
            p.guid = Some(((ty, word.to_string(), guid_str(g), port0), ln));
        }
    }
    Ok(())
}

/// Extracts a quoted string at the start of `s` (which starts with `"`): (content, rest).
fn take_quoted<'a>(s: &'a str, what: &str, ln: usize, file: &str) -> Result<(&'a str, &'a str), FabricError> {
    let inner = s.strip_prefix('"').unwrap_or(s);
    match inner.find('"') {
        Some(end) => Ok((&inner[..end], &inner[end + 1..])),
        None => Err(perr(file, ln, format!("unterminated quote in {what} (truncated line?)"))),
    }
}

/// LID, LMC and width/speed found in the words of a node-line tail or port-line comment. A
/// `lid N` without `lmc` is the peer's LID on a port line; it is skipped, because the peer's own
/// line states it (and a second source could only disagree).
#[derive(Default)]
struct Facts {
    /// `lid N lmc M`: the local LID/LMC (CA port line, switch line).
    lid: Option<u32>,
    lmc: Option<u8>,
    width: Option<String>,
    speed: Option<String>,
    esp0: Option<String>,
}

/// Width and speed of a token such as `4xQDR`; `??`/`???` stand for unknown. None if the token
/// is not a width/speed token at all.
fn width_speed(tok: &str) -> Option<(Option<String>, Option<String>)> {
    let (width, rest) = if let Some(r) = tok.strip_prefix("??") {
        (None, r)
    } else {
        let w = WIDTHS.iter().find(|w| tok.starts_with(**w))?;
        (Some(w.to_string()), &tok[w.len()..])
    };
    let speed = if SPEEDS.contains(&rest) {
        Some(rest.to_string())
    } else if rest == "???" || rest == "??" {
        None
    } else {
        return None;
    };
    Some((width, speed))
}

/// Scans words for `lid N [lmc M]`, `enhanced|base`, width/speed. Malformed values are ignored:
/// these words sit in comments, and the structure of the fabric does not depend on them.
///
/// On a node line `lid N` and `lmc M` stand alone. On a port line only the pair `lid N lmc M` is
/// the local port's; a lone `lid N` there is the peer's LID, and a lone `lmc` means nothing.
fn scan_facts<'a>(words: impl Iterator<Item = &'a str>, node_line: bool) -> Facts {
    let w: Vec<&str> = words.collect();
    let mut f = Facts::default();
    let mut i = 0;
    while let Some(&t) = w.get(i) {
        let num = |k: usize| w.get(i + k).and_then(|x| x.parse::<u32>().ok());
        match t {
            "lid" => {
                let lmc = (w.get(i + 2) == Some(&"lmc")).then(|| num(3).and_then(|m| u8::try_from(m).ok())).flatten();
                match (num(1), lmc) {
                    (Some(l), Some(m)) => {
                        if f.lid.is_none() && f.lmc.is_none() {
                            f.lid = Some(l);
                            f.lmc = Some(m);
                        }
                        i += 4;
                    }
                    (Some(l), None) => {
                        if node_line {
                            f.lid.get_or_insert(l);
                        }
                        i += 2;
                    }
                    _ => i += 1,
                }
            }
            "lmc" if node_line => match num(1).and_then(|m| u8::try_from(m).ok()) {
                Some(m) => {
                    f.lmc.get_or_insert(m);
                    i += 2;
                }
                None => i += 1,
            },
            "enhanced" | "base" => {
                f.esp0.get_or_insert_with(|| t.to_string());
                i += 1;
            }
            _ => {
                if let Some((wd, sp)) = width_speed(t) {
                    if f.width.is_none() && f.speed.is_none() {
                        f.width = wd;
                        f.speed = sp;
                    }
                }
                i += 1;
            }
        }
    }
    f
}

fn parse_node_line(
    ty: NodeType,
    word: &str,
    after: &str,
    ln: usize,
    file: &str,
    pending: &mut Pending,
) -> Result<Node, FabricError> {
    let (digits, rest) = split_digits(after.trim_start());
    if digits.is_empty() {
        return Err(perr(file, ln, format!("`{word}` line without a port count (truncated line?)")));
    }
    let nports = digits
        .parse::<u16>()
        .ok()
        .filter(|n| (1..=MAX_PORTS).contains(n))
        .ok_or_else(|| perr(file, ln, format!("`{word}` port count {digits} is outside 1..={MAX_PORTS}")))?;
    let rest = rest.trim_start();
    if !rest.starts_with('"') {
        return Err(perr(file, ln, format!("`{word}` line without a quoted node id (truncated line?)")));
    }
    let (id, tail) = take_quoted(rest, "the node id", ln, file)?;
    if id.is_empty() {
        return Err(perr(file, ln, "empty node id"));
    }
    // Description: after `#`, quoted up to the last quote of the line (descriptions may contain
    // `#` and even quotes), or unquoted up to the first keyword (ibsim).
    let (before, comment) = match tail.find('#') {
        Some(h) => (&tail[..h], &tail[h + 1..]),
        None => (tail, ""),
    };
    let c = comment.trim_start();
    let mut words: Vec<&str> = before.split_whitespace().collect();
    let desc = if c.starts_with('"') {
        let Some(e) = c.rfind('"').filter(|&e| e > 0) else {
            return Err(perr(file, ln, "unterminated quote in the node description (truncated line?)"));
        };
        words.extend(c[e + 1..].split_whitespace());
        Some(c[1..e].to_string())
    } else {
        let all: Vec<&str> = c.split_whitespace().collect();
        let end = all.iter().position(|t| matches!(*t, "enhanced" | "base" | "lid" | "lmc")).unwrap_or(all.len());
        words.extend(all.get(end..).unwrap_or(&[]).iter().copied());
        let d = all.get(..end).unwrap_or(&[]).join(" ");
        (!d.is_empty()).then_some(d)
    };
    let facts = scan_facts(words.into_iter(), true);
    finish_node(ty, nports, id, ln, file, desc, facts, pending)
}

#[allow(clippy::too_many_arguments)]
fn finish_node(
    ty: NodeType,
    nports: u16,
    id: &str,
    ln: usize,
    file: &str,
    desc: Option<String>,
    facts: Facts,
    pending: &mut Pending,
) -> Result<Node, FabricError> {
    let p = std::mem::take(pending);
    let (guid, port0_guid) = match p.guid {
        Some(((gty, gword, g, port0), gl)) => {
            if gty != ty {
                return Err(perr(
                    file,
                    ln,
                    format!("`{gword}=` header (line {gl}) does not fit this {} record", ty.name()),
                ));
            }
            (Some((g, gl)), port0)
        }
        None => (guid_from_id(id).map(|g| (g, ln)), None),
    };
    Ok(Node {
        ty,
        nports,
        id: id.to_string(),
        line: ln,
        desc,
        vendid: p.vendid.map(|x| x.0),
        devid: p.devid.map(|x| x.0),
        sysimg: p.sysimg.map(|x| x.0),
        guid,
        port0_guid,
        lid: facts.lid,
        lmc: facts.lmc,
        esp0: if ty == NodeType::Switch { facts.esp0 } else { None },
    })
}

/// Parses `[n]` at the start of `s` into (number text, rest).
fn take_bracket<'a>(s: &'a str, what: &str, ln: usize, file: &str) -> Result<(&'a str, &'a str), FabricError> {
    let inner = s.strip_prefix('[').unwrap_or(s);
    match inner.find(']') {
        Some(e) => Ok((inner[..e].trim(), &inner[e + 1..])),
        None => Err(perr(file, ln, format!("unterminated `[` in {what} (truncated line?)"))),
    }
}

/// Parses `(hex)` at the start of `s` into (GUID, rest).
fn take_guid<'a>(s: &'a str, what: &str, ln: usize, file: &str) -> Result<(String, &'a str), FabricError> {
    let inner = s.strip_prefix('(').unwrap_or(s);
    let Some(e) = inner.find(')') else {
        return Err(perr(file, ln, format!("unterminated `(` in {what} (truncated line?)")));
    };
    let g = parse_hex(inner[..e].trim())
        .ok_or_else(|| perr(file, ln, format!("{what} `{}` is not a hex GUID", &inner[..e])))?;
    Ok((guid_str(g), &inner[e + 1..]))
}

fn parse_port_line(s: &str, ln: usize, node: usize, file: &str) -> Result<PortLine, FabricError> {
    let (num, rest) = take_bracket(s, "the port number", ln, file)?;
    let port = num.parse::<u16>().map_err(|_| perr(file, ln, format!("bad port number `[{num}]`")))?;
    let mut rest = rest.trim_start();
    // `-g` grouped output: `[p][ext N]`.
    if rest.starts_with("[ext") {
        rest = take_bracket(rest, "`[ext ..]`", ln, file)?.1.trim_start();
    }
    let mut own_guid = None;
    if rest.starts_with('(') {
        let (g, r) = take_guid(rest, "the port GUID", ln, file)?;
        own_guid = Some(g);
        rest = r.trim_start();
    }
    if !rest.starts_with('"') {
        return Err(perr(file, ln, format!("port [{port}]: expected the quoted peer id (truncated line?)")));
    }
    let (peer_id, r) = take_quoted(rest, "the peer id", ln, file)?;
    if peer_id.is_empty() {
        return Err(perr(file, ln, format!("port [{port}]: empty peer id")));
    }
    rest = r.trim_start();
    let mut peer_port = 1;
    if rest.starts_with('[') {
        let (n, r) = take_bracket(rest, "the peer port number", ln, file)?;
        peer_port = n.parse::<u16>().map_err(|_| perr(file, ln, format!("bad peer port number `[{n}]`")))?;
        rest = r.trim_start();
    }
    let mut peer_guid = None;
    if rest.starts_with('(') {
        let (g, r) = take_guid(rest, "the peer port GUID", ln, file)?;
        peer_guid = Some(g);
        rest = r;
    }
    let (opts, comment) = match rest.find('#') {
        Some(h) => (&rest[..h], &rest[h + 1..]),
        None => (rest, ""),
    };
    // Before the comment only ibsim options (`w=4`, `s=2`, `e=1`) may follow.
    if let Some(bad) = opts.split_whitespace().find(|t| !t.contains('=')) {
        return Err(perr(file, ln, format!("port [{port}]: unexpected text `{bad}` after the peer")));
    }
    // Comment: `[lid L lmc M] ["peer description"] lid RL 4xQDR ...`; the description runs from
    // the first to the last quote.
    let (pre, post) = match (comment.find('"'), comment.rfind('"')) {
        (Some(a), Some(b)) if b > a => (&comment[..a], &comment[b + 1..]),
        (Some(_), _) => return Err(perr(file, ln, "unterminated quote in the port comment (truncated line?)")),
        _ => (comment, ""),
    };
    let facts = scan_facts(pre.split_whitespace().chain(post.split_whitespace()), false);
    Ok(PortLine {
        line: ln,
        node,
        port,
        own_guid,
        peer_id: peer_id.to_string(),
        peer_port,
        peer_guid,
        lid: facts.lid,
        lmc: facts.lmc,
        width: facts.width,
        speed: facts.speed,
    })
}

/// GUID bookkeeping: every node GUID, switch port-0 GUID and CA port GUID belongs to one node.
struct Guids<'a> {
    file: &'a str,
    owner: BTreeMap<String, (usize, usize)>,
    port: BTreeMap<NodePort, (String, usize)>,
}

impl Guids<'_> {
    fn claim(&mut self, nodes: &[Node], g: &str, node: usize, line: usize) -> Result<(), FabricError> {
        match self.owner.get(g) {
            Some(&(o, ol)) if o != node => Err(perr(
                self.file,
                line,
                format!(
                    "duplicate GUID 0x{g}: also used by \"{}\" (line {ol})",
                    nodes.get(o).map(|n| n.id.as_str()).unwrap_or("?")
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.owner.insert(g.to_string(), (node, line));
                Ok(())
            }
        }
    }
    fn set_port(&mut self, nodes: &[Node], node: usize, port: u16, g: &str, line: usize) -> Result<(), FabricError> {
        if let Some((old, ol)) = self.port.get(&(node, port)) {
            if old != g {
                let id = nodes.get(node).map(|n| n.id.as_str()).unwrap_or("?");
                return Err(perr(
                    self.file,
                    line,
                    format!("port GUID of \"{id}\"[{port}] is 0x{g} here but 0x{old} at line {ol}"),
                ));
            }
            return Ok(());
        }
        self.claim(nodes, g, node, line)?;
        self.port.insert((node, port), (g.to_string(), line));
        Ok(())
    }
}

/// Cross-references the records and builds the fabric.
fn build(nodes: Vec<Node>, ports: Vec<PortLine>, file: &str) -> Result<(Fabric, Vec<String>), FabricError> {
    if !nodes.iter().any(|n| n.ty == NodeType::Switch) {
        return Err(FabricError::File {
            file: file.to_string(),
            message: "no Switch record found (empty file, or not ibnetdiscover/ibsim output)".into(),
        });
    }
    let node_at = |i: usize| nodes.get(i).ok_or_else(|| FabricError::Invalid(format!("internal: node #{i}")));

    // Unique ids and GUIDs, in file order.
    let mut by_id: BTreeMap<&str, usize> = BTreeMap::new();
    let mut guids = Guids { file, owner: BTreeMap::new(), port: BTreeMap::new() };
    for (i, n) in nodes.iter().enumerate() {
        if let Some(&j) = by_id.get(n.id.as_str()) {
            let first = node_at(j)?.line;
            return Err(perr(file, n.line, format!("duplicate node id \"{}\" (first defined at line {first})", n.id)));
        }
        by_id.insert(&n.id, i);
        if let Some((g, gl)) = &n.guid {
            guids.claim(&nodes, g, i, *gl)?;
        }
        if let Some(g) = &n.port0_guid {
            guids.claim(&nodes, g, i, n.guid.as_ref().map(|x| x.1).unwrap_or(n.line))?;
        }
    }

    // Resolve every port line: ranges, peers, duplicates, GUIDs.
    let mut explicit: BTreeMap<NodePort, (NodePort, usize)> = BTreeMap::new();
    let mut peer_of: Vec<usize> = Vec::with_capacity(ports.len());
    for (k, pl) in ports.iter().enumerate() {
        let n = node_at(pl.node)?;
        if pl.port == 0 {
            return Err(perr(file, pl.line, "port [0] is the management port and carries no cable"));
        }
        if pl.port > n.nports {
            return Err(perr(
                file,
                pl.line,
                format!("port [{}] is beyond the {} ports \"{}\" declares (line {})", pl.port, n.nports, n.id, n.line),
            ));
        }
        let Some(&m) = by_id.get(pl.peer_id.as_str()) else {
            return Err(perr(
                file,
                pl.line,
                format!("link to nowhere: peer \"{}\" is not defined anywhere in the file", pl.peer_id),
            ));
        };
        let pn = node_at(m)?;
        if pl.peer_port == 0 || pl.peer_port > pn.nports {
            return Err(perr(
                file,
                pl.line,
                format!(
                    "peer port [{}] is beyond the {} ports \"{}\" declares (line {})",
                    pl.peer_port, pn.nports, pn.id, pn.line
                ),
            ));
        }
        if (pl.node, pl.port) == (m, pl.peer_port) {
            return Err(perr(file, pl.line, format!("port [{}] is cabled to itself", pl.port)));
        }
        if n.ty != NodeType::Switch && pn.ty != NodeType::Switch {
            return Err(perr(
                file,
                pl.line,
                format!("\"{}\" is cabled directly to \"{}\": endpoints must attach to switches", n.id, pn.id),
            ));
        }
        if let Some((_, prev)) = explicit.insert((pl.node, pl.port), ((m, pl.peer_port), k)) {
            let pline = ports.get(prev).map(|p| p.line).unwrap_or(0);
            return Err(perr(
                file,
                pl.line,
                format!("port [{}] of \"{}\" is listed twice (also at line {pline})", pl.port, n.id),
            ));
        }
        if n.ty != NodeType::Switch {
            if let Some(g) = &pl.own_guid {
                guids.set_port(&nodes, pl.node, pl.port, g, pl.line)?;
            }
        }
        if pn.ty != NodeType::Switch {
            if let Some(g) = &pl.peer_guid {
                guids.set_port(&nodes, m, pl.peer_port, g, pl.line)?;
            }
        }
        peer_of.push(m);
    }

    // Both ends must name each other.
    for (k, pl) in ports.iter().enumerate() {
        let n = node_at(pl.node)?;
        let m = peer_of.get(k).copied().unwrap_or(0);
        let pn = node_at(m)?;
        match explicit.get(&(m, pl.peer_port)) {
            Some(&(z, _)) if z == (pl.node, pl.port) => {}
            Some(&((z, zp), zk)) => {
                let zl = ports.get(zk).map(|p| p.line).unwrap_or(0);
                let zid = node_at(z).map(|x| x.id.as_str()).unwrap_or("?");
                return Err(perr(
                    file,
                    pl.line,
                    format!(
                        "link ends disagree: line {} says \"{}\"[{}] is cabled to \"{}\"[{}], but line {} says \
                         \"{}\"[{}] is cabled to \"{}\"[{}]",
                        pl.line, n.id, pl.port, pn.id, pl.peer_port, zl, pn.id, pl.peer_port, zid, zp
                    ),
                ));
            }
            None => {
                return Err(perr(
                    file,
                    pl.line,
                    format!(
                        "link \"{}\"[{}] - \"{}\"[{}] is listed from one end only: the record of \"{}\" (line {}) \
                         has no port line [{}] (ibnetdiscover lists every link from both ends; truncated file?)",
                        n.id, pl.port, pn.id, pl.peer_port, pn.id, pn.line, pl.peer_port
                    ),
                ));
            }
        }
    }

    // Switches in file order.
    let mut switch_of: BTreeMap<usize, SwitchId> = BTreeMap::new();
    let mut switches = Vec::new();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.ty == NodeType::Switch) {
        switch_of.insert(i, SwitchId(switches.len() as u32));
        switches.push(Switch {
            name: n.id.clone(),
            ports: n.nports,
            level: None,
            coords: None,
            ib: Some(IbInfo {
                node_guid: n.guid.as_ref().map(|g| g.0.clone()),
                port_guid: n.port0_guid.clone(),
                sysimg_guid: n.sysimg.clone(),
                vendid: n.vendid.clone(),
                devid: n.devid.clone(),
                desc: n.desc.clone(),
                lid: n.lid,
                lmc: n.lmc,
                ca_ports: None,
                ca_port: None,
                kind: n.esp0.clone(),
            }),
        });
    }

    // Endpoints: every cabled CA/router port, CAs in file order, ports ascending.
    let mut notes = Vec::new();
    let mut endpoint_of: BTreeMap<NodePort, EndpointId> = BTreeMap::new();
    let mut endpoints = Vec::new();
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.ty != NodeType::Switch) {
        let cabled: Vec<(u16, usize)> =
            explicit.range((i, 0)..=(i, u16::MAX)).map(|(&(_, p), &(_, k))| (p, k)).collect();
        if cabled.is_empty() {
            notes.push(format!("{file}:{}: {} \"{}\" has no cabled port; skipped", n.line, n.ty.name(), n.id));
            continue;
        }
        for &(p, k) in &cabled {
            let pl = ports.get(k);
            let name = if cabled.len() == 1 { n.id.clone() } else { format!("{}/{p}", n.id) };
            endpoint_of.insert((i, p), EndpointId(endpoints.len() as u32));
            endpoints.push(Endpoint {
                name,
                ib: Some(IbInfo {
                    node_guid: n.guid.as_ref().map(|g| g.0.clone()),
                    port_guid: guids.port.get(&(i, p)).map(|g| g.0.clone()),
                    sysimg_guid: n.sysimg.clone(),
                    vendid: n.vendid.clone(),
                    devid: n.devid.clone(),
                    desc: n.desc.clone(),
                    lid: pl.and_then(|x| x.lid),
                    lmc: pl.and_then(|x| x.lmc),
                    ca_ports: Some(n.nports),
                    ca_port: Some(p),
                    kind: Some(n.ty.name().to_string()),
                }),
            });
        }
    }

    // ibnetdiscover always runs from a CA, so real output has one; a fabric without endpoints
    // is also useless to every later stage (and is what a file cut after its first switch is).
    if endpoints.is_empty() {
        return Err(FabricError::File {
            file: file.to_string(),
            message: "no endpoint: no CA or router port is cabled to a switch".into(),
        });
    }

    // Links, once each, in order of first mention; a switch end comes first.
    let term = |node: usize, port: u16| -> Option<Terminal> {
        if let Some(s) = switch_of.get(&node) {
            Some(Terminal::Switch { switch: *s, port: PortNum(port) })
        } else {
            endpoint_of.get(&(node, port)).map(|e| Terminal::Endpoint { endpoint: *e })
        }
    };
    let mut links: Vec<Link> = Vec::new();
    let mut link_of: BTreeMap<(NodePort, NodePort), usize> = BTreeMap::new();
    for (k, pl) in ports.iter().enumerate() {
        let x = (pl.node, pl.port);
        let y = (peer_of.get(k).copied().unwrap_or(0), pl.peer_port);
        let key = if x <= y { (x, y) } else { (y, x) };
        if let Some(&li) = link_of.get(&key) {
            if let Some(l) = links.get_mut(li) {
                if l.width.is_none() {
                    l.width = pl.width.clone();
                }
                if l.speed.is_none() {
                    l.speed = pl.speed.clone();
                }
            }
            continue;
        }
        let (Some(a), Some(b)) = (term(x.0, x.1), term(y.0, y.1)) else {
            return Err(perr(file, pl.line, "internal error: unresolved link end"));
        };
        let (a, b) = if matches!(a, Terminal::Endpoint { .. }) { (b, a) } else { (a, b) };
        link_of.insert(key, links.len());
        links.push(Link { a, b, directed: false, width: pl.width.clone(), speed: pl.speed.clone() });
    }

    let name = std::path::Path::new(file)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| file.to_string());
    let topo = Topology::Imported { format: "ibnetdiscover".into(), source: file.to_string() };
    let f = Fabric::new(name, topo, switches, endpoints, links).map_err(|e| match e {
        FabricError::Parse { .. } | FabricError::File { .. } => e,
        other => FabricError::File { file: file.to_string(), message: other.to_string() },
    })?;
    Ok((f, notes))
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

/// Whether a name can be written as a quoted ibnetdiscover id and read back unchanged: the
/// parser takes everything between two quotes on one line, so only quotes and line breaks are out.
fn valid_id(s: &str) -> bool {
    !s.is_empty() && !s.contains(['"', '\n', '\r'])
}

/// Descriptions are quoted but not escaped (the parser reads up to the last quote of the line),
/// so only line breaks would break the line structure; those become spaces.
fn clean_desc(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn hexn(g: &Option<String>) -> Option<u64> {
    g.as_deref().and_then(parse_hex)
}

/// Width/speed token (`4xQDR`) for a link, if anything about it is known and writable.
fn ws_token(l: &Link) -> Option<String> {
    if l.width.is_none() && l.speed.is_none() {
        return None;
    }
    let w = match &l.width {
        Some(w) if WIDTHS.contains(&w.as_str()) => w.clone(),
        Some(_) => return None,
        None => "??".into(),
    };
    let s = match &l.speed {
        Some(s) if SPEEDS.contains(&s.as_str()) => s.clone(),
        Some(_) => return None,
        None => "???".into(),
    };
    Some(format!("{w}{s}"))
}

/// What the export writes for one node.
struct OutNode {
    id: String,
    guid: Option<u64>,
    port0_guid: Option<u64>,
    desc: Option<String>,
    lid: Option<u32>,
    lmc: Option<u8>,
    kind: Option<String>,
    vendid: Option<String>,
    devid: Option<String>,
    sysimg: Option<u64>,
}

impl OutNode {
    /// A node of a generated fabric: only an id, GUIDs and the mcastlab name as description.
    fn synthesized(id: String, guid: Option<u64>, port0_guid: Option<u64>, desc: &str) -> OutNode {
        OutNode {
            id,
            guid,
            port0_guid,
            desc: Some(desc.to_string()),
            lid: None,
            lmc: None,
            kind: None,
            vendid: None,
            devid: None,
            sysimg: None,
        }
    }
}

/// One CA of the export: a group of endpoints that are ports of one imported CA, or one
/// synthesized single-port CA per endpoint.
struct OutCa {
    node: OutNode,
    ports: u16,
    router: bool,
    /// CA port → (endpoint, port GUID).
    members: BTreeMap<u16, (EndpointId, Option<u64>)>,
    synthesized: bool,
}

/// Hands out GUIDs that no node of the fabric uses yet.
struct GuidAlloc {
    used: BTreeSet<u64>,
}

impl GuidAlloc {
    /// The first free GUID at or after `start` (stepping by `step`) such that `g..g+span` is free.
    fn take(&mut self, start: u64, step: u64, span: u64, ids: &BTreeSet<String>, prefix: &str) -> u64 {
        let mut g = start;
        loop {
            let free = (0..span).all(|d| !self.used.contains(&g.wrapping_add(d)));
            if free && !ids.contains(&format!("{prefix}{g:016x}")) {
                for d in 0..span {
                    self.used.insert(g.wrapping_add(d));
                }
                return g;
            }
            g = g.wrapping_add(step);
        }
    }
}

/// Writes a fabric in ibnetdiscover format: a comment preamble, then switch records, then CA
/// records, each port line in ascending port order and every link from both of its ends.
///
/// Imported nodes keep their ids, GUIDs, LIDs and descriptions, so an imported fabric survives a
/// round trip unchanged (except for the order of links). Nodes of generated fabrics get ids from
/// synthesized GUIDs ([`SYNTH_SWITCH_GUID`] + index for switch `i`, [`SYNTH_CA_GUID`] + 256·index
/// for endpoint `i`, one single-port CA per endpoint) and their mcastlab name as description, so
/// `Fabric::find_endpoint("<old name>")` still finds them after a round trip.
///
/// Fails for fabrics ibnetdiscover cannot describe: directed (unidirectional) links and switches
/// with more than 255 ports.
pub fn export(f: &Fabric) -> Result<String, FabricError> {
    if let Some((i, l)) = f.links().iter().enumerate().find(|(_, l)| l.directed) {
        return Err(FabricError::Invalid(format!(
            "ibnetdiscover format cannot express directed (unidirectional) links: link {i} ({} -> {})",
            f.terminal_str(&l.a),
            f.terminal_str(&l.b)
        )));
    }
    if let Some(s) = f.switches().iter().find(|s| s.ports > MAX_PORTS) {
        return Err(FabricError::Invalid(format!(
            "switch {} has {} ports; InfiniBand switches have at most {MAX_PORTS}",
            s.name, s.ports
        )));
    }

    // GUIDs already present, so synthesized ones never collide with them.
    let mut alloc = GuidAlloc { used: BTreeSet::new() };
    for ib in
        f.switches().iter().filter_map(|s| s.ib.as_ref()).chain(f.endpoints().iter().filter_map(|e| e.ib.as_ref()))
    {
        for g in [&ib.node_guid, &ib.port_guid] {
            if let Some(g) = hexn(g) {
                alloc.used.insert(g);
            }
        }
    }
    let mut ids: BTreeSet<String> = BTreeSet::new();

    // Switches: imported ones (with `ib`) keep their id; others are synthesized.
    let mut sw_nodes: Vec<Option<OutNode>> = Vec::with_capacity(f.num_switches());
    for s in f.switches() {
        match &s.ib {
            Some(ib) if valid_id(&s.name) && !ids.contains(&s.name) => {
                ids.insert(s.name.clone());
                sw_nodes.push(Some(OutNode {
                    id: s.name.clone(),
                    guid: hexn(&ib.node_guid),
                    port0_guid: hexn(&ib.port_guid),
                    desc: ib.desc.clone(),
                    lid: ib.lid,
                    lmc: ib.lmc,
                    kind: ib.kind.clone().filter(|k| k == "base" || k == "enhanced"),
                    vendid: ib.vendid.clone(),
                    devid: ib.devid.clone(),
                    sysimg: hexn(&ib.sysimg_guid),
                }));
            }
            _ => sw_nodes.push(None),
        }
    }

    // CAs: group imported endpoints by CA id (`<id>` or `<id>/<port>`).
    let mut cas: Vec<OutCa> = Vec::new();
    let mut ca_by_id: BTreeMap<String, usize> = BTreeMap::new();
    let mut ca_of_ep: Vec<(usize, u16)> = Vec::with_capacity(f.num_endpoints());
    for (i, e) in f.endpoints().iter().enumerate() {
        let eid = EndpointId(i as u32);
        let grouped = e.ib.as_ref().and_then(|ib| {
            let p = ib.ca_port.filter(|p| *p >= 1 && *p <= MAX_PORTS)?;
            let base = e.name.strip_suffix(&format!("/{p}")).unwrap_or(&e.name);
            if !valid_id(base) {
                return None;
            }
            match ca_by_id.get(base) {
                Some(&c) => {
                    let ca = cas.get(c)?;
                    (!ca.members.contains_key(&p)).then(|| (Some(c), base.to_string(), p, ib))
                }
                None => (!ids.contains(base)).then(|| (None, base.to_string(), p, ib)),
            }
        });
        match grouped {
            Some((existing, base, p, ib)) => {
                let c = match existing {
                    Some(c) => c,
                    None => {
                        ids.insert(base.clone());
                        ca_by_id.insert(base.clone(), cas.len());
                        cas.push(OutCa {
                            node: OutNode {
                                id: base,
                                guid: hexn(&ib.node_guid),
                                port0_guid: None,
                                desc: ib.desc.clone(),
                                lid: None,
                                lmc: None,
                                kind: None,
                                vendid: ib.vendid.clone(),
                                devid: ib.devid.clone(),
                                sysimg: hexn(&ib.sysimg_guid),
                            },
                            ports: 0,
                            router: ib.kind.as_deref() == Some("Rt"),
                            members: BTreeMap::new(),
                            synthesized: false,
                        });
                        cas.len() - 1
                    }
                };
                if let Some(ca) = cas.get_mut(c) {
                    ca.ports = ca.ports.max(p).max(ib.ca_ports.unwrap_or(0).min(MAX_PORTS));
                    ca.members.insert(p, (eid, hexn(&ib.port_guid)));
                }
                ca_of_ep.push((c, p));
            }
            None => {
                cas.push(OutCa {
                    node: OutNode::synthesized(String::new(), None, None, &e.name),
                    ports: 1,
                    router: false,
                    members: BTreeMap::from([(1, (eid, None))]),
                    synthesized: true,
                });
                ca_of_ep.push((cas.len() - 1, 1));
            }
        }
    }

    // Synthesized ids and GUIDs, now that every kept id is known.
    let mut sw_out: Vec<OutNode> = Vec::with_capacity(f.num_switches());
    for (i, (s, n)) in f.switches().iter().zip(sw_nodes).enumerate() {
        match n {
            Some(n) => sw_out.push(n),
            None => {
                let g = alloc.take(SYNTH_SWITCH_GUID.wrapping_add(i as u64), 1, 1, &ids, "S-");
                let id = format!("S-{g:016x}");
                ids.insert(id.clone());
                sw_out.push(OutNode::synthesized(id, Some(g), Some(g), &s.name));
            }
        }
    }
    for ca in cas.iter_mut().filter(|c| c.synthesized) {
        let first = ca.members.values().next().map(|m| m.0 .0 as u64).unwrap_or(0);
        let g = alloc.take(SYNTH_CA_GUID.wrapping_add(first << 8), 256, 2, &ids, "H-");
        ca.node.id = format!("H-{g:016x}");
        ca.node.guid = Some(g);
        ids.insert(ca.node.id.clone());
        for m in ca.members.values_mut() {
            m.1 = Some(g.wrapping_add(1));
        }
    }
    // Per-endpoint facts: LID/LMC of the CA port.
    let ep_ib = |e: EndpointId| f.endpoints().get(e.idx()).and_then(|x| x.ib.as_ref());
    let ep_keeps_ib =
        |e: EndpointId| ca_of_ep.get(e.idx()).and_then(|(c, _)| cas.get(*c)).is_some_and(|c| !c.synthesized);

    let mut out = String::new();
    out.push_str("#\n");
    let _ = writeln!(out, "# Topology file: generated by mcastlab from fabric \"{}\"", clean_desc(f.name()));
    out.push_str("#\n");
    if let Some(ca) = cas.first() {
        if let (Some(g), Some((_, Some(pg)))) = (ca.node.guid, ca.members.values().next()) {
            let _ = writeln!(out, "# Initiated from node {g:016x} port {pg:016x}");
        }
    }

    let push_headers = |out: &mut String, n: &OutNode| {
        if let Some(v) = &n.vendid {
            let _ = writeln!(out, "vendid={v}");
        }
        if let Some(v) = &n.devid {
            let _ = writeln!(out, "devid={v}");
        }
        if let Some(v) = n.sysimg {
            let _ = writeln!(out, "sysimgguid=0x{v:x}");
        }
    };
    let quoted_desc = |d: &Option<String>| d.as_ref().map(|d| format!("\"{}\"", clean_desc(d)));

    // Switch records.
    for (si, n) in sw_out.iter().enumerate() {
        let s = SwitchId(si as u32);
        out.push('\n');
        push_headers(&mut out, n);
        if let Some(g) = n.guid {
            match n.port0_guid {
                Some(pg) => {
                    let _ = writeln!(out, "switchguid=0x{g:x}({pg:x})");
                }
                None => {
                    let _ = writeln!(out, "switchguid=0x{g:x}");
                }
            }
        }
        let _ = write!(out, "Switch\t{} \"{}\"", f.switch(s).ports, n.id);
        let mut tail: Vec<String> = Vec::new();
        tail.extend(quoted_desc(&n.desc));
        if let Some(k) = &n.kind {
            tail.push(format!("{k} port 0"));
        }
        if let Some(l) = n.lid {
            tail.push(format!("lid {l}"));
        }
        if let Some(m) = n.lmc {
            tail.push(format!("lmc {m}"));
        }
        if !tail.is_empty() {
            let _ = write!(out, "\t\t# {}", tail.join(" "));
        }
        out.push('\n');
        for p in f.switch_ports(s) {
            let Some(pp) = f.port(s, p) else { continue };
            let link = f.link(pp.link);
            let mut comment: Vec<String> = Vec::new();
            match pp.peer {
                Terminal::Switch { switch: t, port: q } => {
                    let Some(tn) = sw_out.get(t.idx()) else { continue };
                    let _ = write!(out, "[{}]\t\"{}\"[{}]", p.0, tn.id, q.0);
                    comment.extend(quoted_desc(&tn.desc));
                    if let Some(l) = tn.lid {
                        comment.push(format!("lid {l}"));
                    }
                }
                Terminal::Endpoint { endpoint: e } => {
                    let Some(&(c, cp)) = ca_of_ep.get(e.idx()) else { continue };
                    let Some(ca) = cas.get(c) else { continue };
                    let _ = write!(out, "[{}]\t\"{}\"[{}]", p.0, ca.node.id, cp);
                    if let Some(Some(pg)) = ca.members.get(&cp).map(|m| m.1) {
                        let _ = write!(out, "({pg:x}) ");
                    }
                    comment.extend(quoted_desc(&ca.node.desc));
                    if let Some(l) = ep_ib(e).filter(|_| ep_keeps_ib(e)).and_then(|ib| ib.lid) {
                        comment.push(format!("lid {l}"));
                    }
                }
            }
            comment.extend(ws_token(link));
            if !comment.is_empty() {
                let _ = write!(out, "\t\t# {}", comment.join(" "));
            }
            out.push('\n');
        }
    }

    // CA records.
    for ca in &cas {
        out.push('\n');
        push_headers(&mut out, &ca.node);
        if let Some(g) = ca.node.guid {
            let _ = writeln!(out, "{}=0x{g:x}", if ca.router { "rtguid" } else { "caguid" });
        }
        let _ = write!(out, "{}\t{} \"{}\"", if ca.router { "Rt" } else { "Ca" }, ca.ports.max(1), ca.node.id);
        if let Some(d) = quoted_desc(&ca.node.desc) {
            let _ = write!(out, "\t\t# {d}");
        }
        out.push('\n');
        for (&cp, &(e, pg)) in &ca.members {
            let (s, p) = f.attachment(e);
            let Some(sn) = sw_out.get(s.idx()) else { continue };
            let _ = write!(out, "[{cp}]");
            if let Some(pg) = pg {
                let _ = write!(out, "({pg:x}) ");
            }
            let _ = write!(out, "\t\"{}\"[{}]", sn.id, p.0);
            let mut comment: Vec<String> = Vec::new();
            if let Some(ib) = ep_ib(e).filter(|_| !ca.synthesized) {
                if let (Some(l), Some(m)) = (ib.lid, ib.lmc) {
                    comment.push(format!("lid {l} lmc {m}"));
                }
            }
            comment.extend(quoted_desc(&sn.desc));
            if let Some(l) = sn.lid {
                comment.push(format!("lid {l}"));
            }
            if let Some(link) = f.link_at(s, p) {
                comment.extend(ws_token(f.link(link)));
            }
            if !comment.is_empty() {
                let _ = write!(out, "\t\t# {}", comment.join(" "));
            }
            out.push('\n');
        }
    }
    Ok(out)
}
