//! `mport_ntree`: the m-port n-tree InfiniBand fat-tree IBFT(m, n) of zhou07 §2.2.
//!
//! Shape: `2·(m/2)^n` endpoints and `(2n−1)·(m/2)^(n−1)` switches of `m` ports each, in `n`
//! switch levels. Level 0 is the TOP (the roots); level `n−1` holds the leaf switches the
//! endpoints attach to. (This is the opposite of coll03's k-ary n-trees, where level 0 is the
//! leaves; `Switch.level` records the zhou07 convention here.)
//!
//! Labels (digits are written most significant first, `h = m/2`):
//! - endpoint `P(p0 p1 … p_{n−1})`, `p0 ∈ 0..m`, the others in `0..h`;
//! - switch `SW<w0 … w_{n−2}, l>`: at level 0 every digit is in `0..h`; at levels `1..n` the
//!   first digit `w0` is in `0..m` and the others in `0..h`.
//!
//! Wiring (the zhou07 rule, ports `1..=m`): port `k` of `SW<w,l>` and port `k'` of
//! `SW<w',l+1>` are cabled iff `w0…w_{n−3}` equals `w'` with its digit `l` deleted,
//! `k = w'_l + 1` and `k' = w_{n−2} + h + 1`. Port `k = p_{n−1} + 1` of leaf `SW<p0…p_{n−2}, n−1>`
//! carries endpoint `P(p)`. Consequently ports `1..=h` lead down and `h+1..=m` lead up, except at
//! the roots, where all `m` ports lead down.
//!
//! Numbering:
//! - endpoint index = `PID(P(p)) = Σ p_i·h^(n−1−i)` (the label read as a base-`h` number whose
//!   leading digit may reach `m−1`), so endpoint order is label order;
//! - switches level by level from the top, and within a level by the label read the same way:
//!   `index = offset(l) + Σ w_i·h^(n−2−i)` with `offset(0) = 0`, `offset(l) = h^(n−1)·(2l−1)`.
//!
//! Names: digits are concatenated (`P(200)`, `SW<20,1>`) when `m ≤ 10`, because every digit is
//! then a single decimal character. When `m > 10` a digit can need two characters, so digits are
//! separated by dots (`P(12.3.0)`, `SW<12.3,1>`) to keep the labels unambiguous. With `n = 1` the
//! single switch has an empty label and is named `SW<,0>` (zhou07's ε).
//!
//! Validation: `m` even and ≥ 2, `n ≥ 1`, `m ≤ 65534` (16-bit port numbers), and at most 2^24
//! endpoints and 2^24 switches. For `n ≥ 2`, `m/2` must also be a power of two: the LID
//! assignment of zhou07 §3.1 uses `LMC = log2((m/2)^(n−1))`, which is an integer only then (with
//! `n = 1` the LMC is 0 for every `m`).

use super::{at_least, at_most, GeneratorEntry};
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use crate::ids::SwitchId;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

pub const ENTRY: GeneratorEntry = GeneratorEntry {
    name: "mport_ntree",
    summary: "m-port n-tree InfiniBand fat-tree IBFT(m, n) (zhou07 §2.2)",
    params: "m=8 n=3",
    positional: None,
    endpoint_order:
        "PID order: endpoint PID(P(p)) = sum p_i (m/2)^(n-1-i); named P(p0p1...) (digits dot-separated if m > 10)",
    default_routing: "mport_lmc",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MportNtreeParams {
    /// Ports per switch (even; `m/2` a power of two when `n ≥ 2`).
    pub m: u32,
    /// Number of switch levels (the tree's height is `n + 1` counting the endpoints).
    pub n: u32,
}

impl Default for MportNtreeParams {
    fn default() -> Self {
        MportNtreeParams { m: 8, n: 3 }
    }
}

/// Largest number of endpoints (and of switches) a generated IBFT may have.
pub const MAX_NODES: u64 = 1 << 24;

/// Checks the parameters and returns `(endpoints, switches)` of IBFT(m, n).
///
/// Every other function of this module assumes parameters that passed this check.
pub fn validate(p: &MportNtreeParams) -> Result<(u32, u32), FabricError> {
    let (m, n) = (p.m, p.n);
    at_least("m", m as u64, 2)?;
    if m % 2 != 0 {
        return Err(FabricError::Param {
            param: "m",
            message: format!("must be even (got {m}): each switch has m/2 ports down and m/2 ports up"),
        });
    }
    at_most("m", m as u64, 65534, "port numbers are 16-bit")?;
    at_least("n", n as u64, 1)?;
    let h = (m / 2) as u64;
    // m/2 need not be a power of two for the fabric itself (IBFT(36, 3) is a real 11,664-host
    // fat-tree); only zhou07's LID assignment needs it, and `routing::mport_lmc` says so.
    // h^(n-1) with overflow checks; n may be huge (with h = 1 the product never grows).
    let mut top: u64 = 1;
    if h > 1 {
        for _ in 1..n {
            top = top.saturating_mul(h);
            if top > MAX_NODES {
                break;
            }
        }
    }
    let endpoints = top.saturating_mul(h).saturating_mul(2);
    if endpoints > MAX_NODES {
        return Err(FabricError::Param {
            param: "n",
            message: format!(
                "IBFT({m}, {n}) would have more than {MAX_NODES} endpoints (2·(m/2)^n); \
                 at most 2^24 are supported"
            ),
        });
    }
    let switches = top.saturating_mul(2 * n as u64 - 1);
    if switches > MAX_NODES {
        return Err(FabricError::Param {
            param: "n",
            message: format!(
                "IBFT({m}, {n}) would have more than {MAX_NODES} switches ((2n-1)·(m/2)^(n-1)); \
                 at most 2^24 are supported"
            ),
        });
    }
    Ok((endpoints as u32, switches as u32))
}

/// `(endpoints, switches)` of IBFT(m, n) by the zhou07 formulas, without building it
/// (None if the parameters are invalid).
pub fn counts(m: u32, n: u32) -> Option<(u32, u32)> {
    validate(&MportNtreeParams { m, n }).ok()
}

// The label helpers below are pure arithmetic for speed: they expect `m` and `n` that passed
// [`validate`] (and indexes in range); other values give meaningless results.

/// `h^e` for the small exponents used here (callers pass validated parameters).
#[inline]
fn pow(h: u32, e: u32) -> u32 {
    h.pow(e)
}

/// Digits `p0 … p_{n−1}` of the endpoint with index (PID) `pid`. The leading digit may reach
/// `m−1`; the others are below `m/2`.
pub fn endpoint_digits(m: u32, n: u32, pid: u32) -> Vec<u32> {
    label_digits(m / 2, n, pid)
}

/// `PID(P(p)) = Σ p_i·(m/2)^(n−1−i)`: the endpoint index of the label `p` (n digits).
pub fn endpoint_pid(m: u32, digits: &[u32]) -> u32 {
    label_value(m / 2, digits)
}

/// Number of switches in one level: `(m/2)^(n−1)` at the top, twice that below.
pub fn switches_in_level(m: u32, n: u32, l: u32) -> u32 {
    let top = pow(m / 2, n.saturating_sub(1));
    if l == 0 {
        top
    } else {
        2 * top
    }
}

/// Index of the first switch of level `l` (levels are numbered from the top).
pub fn level_offset(m: u32, n: u32, l: u32) -> u32 {
    if l == 0 {
        0
    } else {
        pow(m / 2, n.saturating_sub(1)) * (2 * l - 1)
    }
}

/// Switch index of `SW<w, l>` (`w` has n−1 digits).
pub fn switch_index(m: u32, n: u32, w: &[u32], l: u32) -> u32 {
    level_offset(m, n, l) + label_value(m / 2, w)
}

/// The inverse of [`switch_index`]: label digits `w0 … w_{n−2}` and level of a switch.
pub fn switch_label(m: u32, n: u32, s: SwitchId) -> (Vec<u32>, u32) {
    let (l, within) = switch_level_pos(m, n, s.0);
    (label_digits(m / 2, n.saturating_sub(1), within), l)
}

/// Level of switch index `s` and its position inside the level (its label value).
pub fn switch_level_pos(m: u32, n: u32, s: u32) -> (u32, u32) {
    let top = pow(m / 2, n.saturating_sub(1)).max(1);
    if s < top {
        (0, s)
    } else {
        let r = s - top;
        (1 + r / (2 * top), r % (2 * top))
    }
}

/// The leaf switch (level n−1) and port endpoint `pid` is cabled to.
pub fn endpoint_attachment(m: u32, n: u32, pid: u32) -> (u32, u16) {
    let h = m / 2;
    if n == 1 {
        // The single switch is both root and leaf; all its m ports carry endpoints.
        (0, (pid + 1) as u16)
    } else {
        (level_offset(m, n, n - 1) + pid / h, (pid % h + 1) as u16)
    }
}

/// Digits of `v` written with `len` digits in base `h`, the leading one unbounded.
fn label_digits(h: u32, len: u32, mut v: u32) -> Vec<u32> {
    let mut d = vec![0; len as usize];
    for i in (1..len as usize).rev() {
        d[i] = v % h;
        v /= h;
    }
    if len > 0 {
        d[0] = v;
    }
    d
}

fn label_value(h: u32, digits: &[u32]) -> u32 {
    digits.iter().fold(0, |acc, &x| acc * h + x)
}

/// Appends the digits of `v` (`len` digits, base `h`) to `out`, dot-separated when `m > 10`.
fn push_label(out: &mut String, m: u32, len: u32, v: u32) {
    let h = m / 2;
    let mut div = if len == 0 { 1 } else { pow(h, len - 1) };
    let mut rest = v;
    for i in 0..len {
        let d = if i == 0 { rest / div } else { (rest / div) % h };
        if i == 0 {
            rest %= div;
        }
        if m > 10 && i > 0 {
            out.push('.');
        }
        if d < 10 {
            out.push((b'0' + d as u8) as char);
        } else {
            let _ = write!(out, "{d}");
        }
        div = (div / h).max(1);
    }
}

/// Name of an endpoint label: `P(200)`, or `P(12.3.0)` when `m > 10`.
pub fn endpoint_name(m: u32, digits: &[u32]) -> String {
    let mut s = String::with_capacity(3 + 3 * digits.len());
    s.push_str("P(");
    push_digits(&mut s, m, digits);
    s.push(')');
    s
}

/// Name of a switch label: `SW<20,1>`, or `SW<12.3,1>` when `m > 10`.
pub fn switch_name(m: u32, w: &[u32], l: u32) -> String {
    let mut s = String::with_capacity(8 + 3 * w.len());
    s.push_str("SW<");
    push_digits(&mut s, m, w);
    let _ = write!(s, ",{l}>");
    s
}

fn push_digits(out: &mut String, m: u32, digits: &[u32]) {
    for (i, d) in digits.iter().enumerate() {
        if m > 10 && i > 0 {
            out.push('.');
        }
        let _ = write!(out, "{d}");
    }
}

/// Builds IBFT(m, n).
pub fn build(p: &MportNtreeParams) -> Result<Fabric, FabricError> {
    let (num_ep, num_sw) = validate(p)?;
    super::check_size(&Topology::MportNtree(p.clone()))?;
    let (m, n) = (p.m, p.n);
    let h = m / 2;
    let top = pow(h, n - 1);
    let mut switches = Vec::with_capacity(num_sw as usize);
    for s in 0..num_sw {
        let (l, within) = switch_level_pos(m, n, s);
        let mut name = String::with_capacity(8 + 3 * n as usize);
        name.push_str("SW<");
        push_label(&mut name, m, n - 1, within);
        let _ = write!(name, ",{l}>");
        switches.push(Switch { name, ports: m as u16, level: Some(l), coords: None, ib: None });
    }
    let mut endpoints = Vec::with_capacity(num_ep as usize);
    // One endpoint link per endpoint, plus m/2 up links for every switch below the top.
    let mut links = Vec::with_capacity(num_ep as usize + (num_sw - top) as usize * h as usize);
    for pid in 0..num_ep {
        let mut name = String::with_capacity(3 + 3 * n as usize);
        name.push_str("P(");
        push_label(&mut name, m, n, pid);
        name.push(')');
        endpoints.push(Endpoint { name, ib: None });
        let (s, port) = endpoint_attachment(m, n, pid);
        links.push(Link::new(Terminal::switch(s, port), Terminal::endpoint(pid)));
    }
    // Down links of every non-leaf switch SW<w,l>, in switch then port order. With W the label
    // value of w: w0…w_{n−3} = W / h and w_{n−2} = W % h. The child behind port k inserts digit
    // k−1 at position l of w0…w_{n−3}, and the cable enters the child at port w_{n−2} + h + 1.
    for l in 0..n.saturating_sub(1) {
        let down = if l == 0 { m } else { h };
        // Digits of w0…w_{n−3} after position l−1: n−2−l of them.
        let tail = pow(h, n - 2 - l);
        for within in 0..switches_in_level(m, n, l) {
            let upper = level_offset(m, n, l) + within;
            let head = within / h;
            let child_port = (within % h + h + 1) as u16;
            let (prefix, suffix) = (head / tail, head % tail);
            for k in 1..=down {
                let child = (prefix * h + (k - 1)) * tail + suffix;
                links.push(Link::new(
                    Terminal::switch(upper, k as u16),
                    Terminal::switch(level_offset(m, n, l + 1) + child, child_port),
                ));
            }
        }
    }
    let topo = Topology::MportNtree(p.clone());
    let name = super::canonical_spec(&topo);
    Fabric::new(name, topo, switches, endpoints, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for (m, n) in [(4u32, 3u32), (8, 2), (8, 3), (16, 2), (2, 3), (6, 1)] {
            let (ne, ns) = counts(m, n).unwrap();
            for pid in 0..ne {
                let d = endpoint_digits(m, n, pid);
                assert_eq!(endpoint_pid(m, &d), pid);
                let mut s = String::new();
                s.push_str("P(");
                push_label(&mut s, m, n, pid);
                s.push(')');
                assert_eq!(s, endpoint_name(m, &d));
            }
            for s in 0..ns {
                let (w, l) = switch_label(m, n, SwitchId(s));
                assert_eq!(switch_index(m, n, &w, l), s);
                let mut name = String::from("SW<");
                push_label(&mut name, m, n - 1, switch_level_pos(m, n, s).1);
                let _ = write!(name, ",{l}>");
                assert_eq!(name, switch_name(m, &w, l));
            }
        }
        assert_eq!(endpoint_name(4, &[2, 0, 0]), "P(200)");
        assert_eq!(endpoint_name(32, &[12, 3, 0]), "P(12.3.0)");
        assert_eq!(switch_name(4, &[2, 0], 1), "SW<20,1>");
        assert_eq!(switch_name(4, &[], 0), "SW<,0>");
    }
}
