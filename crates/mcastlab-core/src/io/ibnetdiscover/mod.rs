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
//!   fabric (from [`Fabric::new`](crate::fabric::Fabric::new), reported with the file name).
//!
//! CAs without any cabled port are skipped (not an error; [`parse_with_notes`] reports them).
//! Each cabled CA port is one endpoint, named by the CA id when the CA has one cabled port and
//! `<id>/<port>` otherwise. Switches keep their id as name. The parse is deterministic: nodes,
//! endpoints and links come in file order.
//!
//! # Where things are
//!
//! | file | what |
//! | --- | --- |
//! | `mod.rs` | this grammar; limits and vocabulary shared by reading and writing; the line-numbered error |
//! | `parse.rs` | [`parse()`], [`parse_with_notes`]: header, node and port lines read into records |
//! | `model.rs` | the records (nodes, port lines) and their cross-check into a [`Fabric`](crate::fabric::Fabric) |
//! | `export.rs` | [`export()`]: a fabric written back as text, ids and GUIDs synthesized where missing |

mod export;
mod model;
mod parse;

pub use export::export;
pub use parse::{parse, parse_with_notes};

use crate::error::FabricError;

/// InfiniBand's NumPorts is an 8-bit field; larger counts are not real hardware and would let a
/// tiny malformed file allocate huge port tables.
pub const MAX_PORTS: u16 = 255;
/// First GUID given to switches of a fabric that carries none (generated fabrics): switch `i`
/// gets `SYNTH_SWITCH_GUID + i` unless that GUID is taken.
pub const SYNTH_SWITCH_GUID: u64 = 0x0002_0000_0000_0000;
/// First GUID given to synthesized CAs: endpoint `i` becomes CA `SYNTH_CA_GUID + 256·i` with
/// port GUID `node GUID + 1` (ibsim's "port GUID = node GUID + port" convention).
pub const SYNTH_CA_GUID: u64 = 0x0001_0000_0000_0000;

/// Link widths and speeds as ibnetdiscover prints them (`4xQDR`), read and written alike.
use crate::fabric::speed::{SPEEDS, WIDTHS};

/// An error at 1-based line `line` of `file`.
fn perr(file: &str, line: usize, message: impl Into<String>) -> FabricError {
    FabricError::Parse { file: file.to_string(), line, message: message.into() }
}

/// Parses a hex number with optional `0x`.
fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if h.is_empty() || h.len() > 16 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}
