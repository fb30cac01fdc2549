//! Reading ibnetdiscover text: one pass over the lines collects the records (header lines, node
//! lines, port lines) with their 1-based line numbers; syntax only, no cross-references (those are
//! [`super::model::build`]'s). Every malformed line is an error naming the file and the line.

use super::model::{build, Lined, Node, NodeType, PortLine};
use super::{parse_hex, perr, MAX_PORTS, SPEEDS, WIDTHS};
use crate::error::FabricError;
use crate::fabric::{lid_lmc_problem, Fabric};

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
            let v = parse_hex(value).ok_or_else(bad)?;
            // NodeInfo.VendorID is 24 bits (an IEEE OUI), DeviceID 16 bits.
            let max: u64 = if word == "vendid" { 0xFF_FFFF } else { 0xFFFF };
            if v > max {
                return Err(perr(file, ln, format!("`{word}` 0x{v:x} does not fit its field (at most 0x{max:x})")));
            }
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
        let (w, _) = WIDTHS.iter().find(|(w, _)| tok.starts_with(*w))?;
        (Some(w.to_string()), &tok[w.len()..])
    };
    let speed = if SPEEDS.iter().any(|(s, _)| *s == rest) {
        Some(rest.to_string())
    } else if rest == "???" || rest == "??" {
        None
    } else {
        return None;
    };
    Some((width, speed))
}

/// Scans words for `lid N [lmc M]`, `enhanced|base`, width/speed. Words that are not numbers are
/// ignored: these words sit in comments, and the structure of the fabric does not depend on them.
/// A number after `lid` or `lmc` outside what the 16-bit LID and 3-bit LMC fields can hold is an
/// error naming the line, the peer's LID included: a file stating LID 70000 is not a dump of a
/// real subnet.
///
/// On a node line `lid N` and `lmc M` stand alone. On a port line only the pair `lid N lmc M` is
/// the local port's; a lone `lid N` there is the peer's LID, and a lone `lmc` means nothing.
fn scan_facts<'a>(
    words: impl Iterator<Item = &'a str>,
    node_line: bool,
    ln: usize,
    file: &str,
) -> Result<Facts, FabricError> {
    let w: Vec<&str> = words.collect();
    let num = |k: usize| w.get(k).and_then(|x| x.parse::<u64>().ok());
    for (i, t) in w.iter().enumerate() {
        let (lid, lmc) = match *t {
            "lid" => (num(i + 1), None),
            "lmc" => (None, num(i + 1)),
            _ => continue,
        };
        if let Some(why) = lid_lmc_problem(lid, lmc) {
            return Err(perr(file, ln, why));
        }
    }
    let mut f = Facts::default();
    let mut i = 0;
    while let Some(&t) = w.get(i) {
        let num = |k: usize| num(i + k).and_then(|x| u32::try_from(x).ok());
        match t {
            "lid" => {
                let lmc = (w.get(i + 2) == Some(&"lmc")).then(|| num(3).and_then(|m| u8::try_from(m).ok())).flatten();
                match (num(1), lmc) {
                    (Some(l), Some(m)) => {
                        if let Some(why) = lid_lmc_problem(Some(l as u64), Some(m as u64)) {
                            return Err(perr(file, ln, why));
                        }
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
    if node_line {
        if let Some(why) = lid_lmc_problem(f.lid.map(u64::from), f.lmc.map(u64::from)) {
            return Err(perr(file, ln, why));
        }
    }
    Ok(f)
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
    let facts = scan_facts(words.into_iter(), true, ln, file)?;
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

/// A port number in brackets: digits, at most [`MAX_PORTS`] (NumPorts is an 8-bit field), so
/// `[70000]` is named as out of range rather than as a malformed number.
fn port_number(text: &str, what: &str, ln: usize, file: &str) -> Result<u16, FabricError> {
    let (digits, rest) = split_digits(text);
    if digits.is_empty() || !rest.is_empty() {
        return Err(perr(file, ln, format!("bad {what} `[{text}]`")));
    }
    digits
        .parse::<u64>()
        .ok()
        .filter(|p| *p <= MAX_PORTS as u64)
        .map(|p| p as u16)
        .ok_or_else(|| perr(file, ln, format!("{what} `[{text}]` is outside 0..={MAX_PORTS} (NumPorts is 8-bit)")))
}

fn parse_port_line(s: &str, ln: usize, node: usize, file: &str) -> Result<PortLine, FabricError> {
    let (num, rest) = take_bracket(s, "the port number", ln, file)?;
    let port = port_number(num, "port number", ln, file)?;
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
        peer_port = port_number(n, "peer port number", ln, file)?;
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
    let facts = scan_facts(pre.split_whitespace().chain(post.split_whitespace()), false, ln, file)?;
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
