//! `dor`: dimension-order routing on tori and meshes.
//!
//! A packet corrects dimension 0 first, then 1, and so on. In a mesh it moves towards the target
//! coordinate; in a bidirectional torus it takes the shorter way round (ties go the `+` way); in a
//! unidirectional torus it can only go `+`.
//!
//! Deadlock freedom on tori needs two virtual-channel classes per ring (Dally and Seitz's
//! datelines): a packet travels on class 0 until it takes the wrap-around link of the ring it is in
//! (from coordinate k−1 to 0 going `+`, from 0 to k−1 going `−`) and on class 1 from that link on;
//! it returns to class 0 when it turns into the next dimension. `dor:datelines=false` uses a single
//! class, whose channel dependency graph has the ring cycle — useful to see why datelines exist.
//!
//! Two rules are options, because simulators differ on them and the choice moves saturation:
//!
//! * `tie` — which way a packet goes when both ways round a ring are equally short (distance
//!   exactly k/2): `plus` (also `+`, the default) always goes `+`; `parity` goes `+` when the
//!   source's coordinate in that dimension is even and `−` when it is odd (a deterministic way to
//!   split the tied traffic evenly); `random` allows both, as BookSim's `dim_order_torus` does with
//!   a fair coin per packet. A tie can only occur at the switch where the packet enters the
//!   dimension (one hop later the way it took is strictly shorter), so the rule never splits a
//!   packet's course within a ring.
//! * `classes` — how the two VC classes are assigned: `dateline` (the default) switches to class 1
//!   on the wrap-around link, as above; `entry` fixes the class when the packet enters a dimension
//!   and keeps it for the whole ring, class 1 exactly when the packet's coordinate there is above
//!   the destination's (BookSim's rule: in the `+` direction that is the packets that will wrap, in
//!   the `−` direction the packets that will not). Either way each class's arcs in a ring direction
//!   leave one channel unused (a minimal arc is at most k/2 long), so neither class closes the
//!   ring; the checker proves it for every fabric it is given.

use super::{Arrival, ChoiceRule, Hop, Routing, RoutingEntry, RunTimeChoice};
use crate::error::RoutingError;
use crate::fabric::{spec, Fabric, Topology};
use crate::ids::{Address, PortNum, SwitchId};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const ENTRY: RoutingEntry = RoutingEntry {
    name: "dor",
    summary: "dimension-order routing; datelines (2 VC classes) on tori",
    params: "datelines=true, tie=plus|parity|random, classes=dateline|entry",
    applies_to: "torus, mesh",
    applies,
    build,
};

fn applies(f: &Fabric) -> Result<(), String> {
    match f.topology() {
        Topology::Torus(_) | Topology::Mesh(_) => crate::fabric::generators::matches_generated(f),
        other => Err(format!("dor needs a torus or mesh fabric (this one is `{}`)", other.kind())),
    }
}

/// Which way a packet goes round a ring when both ways are equally short.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tie {
    /// Always `+`.
    #[default]
    #[serde(alias = "+")]
    Plus,
    /// `+` from an even source coordinate in that dimension, `−` from an odd one.
    Parity,
    /// Either way: both are legal; the simulator tosses a seeded coin per packet, the checker
    /// follows both.
    Random,
}

impl Tie {
    fn name(self) -> &'static str {
        match self {
            Tie::Plus => "plus",
            Tie::Parity => "parity",
            Tie::Random => "random",
        }
    }
}

/// How a torus packet's VC class is chosen (with `datelines=true`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Classes {
    /// Class 1 from the wrap-around link on, class 0 before it (Dally and Seitz).
    #[default]
    Dateline,
    /// Fixed on entering a dimension: class 1 iff the coordinate there exceeds the destination's
    /// (BookSim's `dim_order_torus`).
    Entry,
}

impl Classes {
    fn name(self) -> &'static str {
        match self {
            Classes::Dateline => "dateline",
            Classes::Entry => "entry",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Params {
    datelines: bool,
    tie: Tie,
    classes: Option<Classes>,
}

impl Default for Params {
    fn default() -> Self {
        Params { datelines: true, tie: Tie::Plus, classes: None }
    }
}

#[derive(Debug)]
pub struct Dor {
    dims: Vec<u32>,
    wrap: bool,
    unidirectional: bool,
    datelines: bool,
    tie: Tie,
    classes: Classes,
}

fn build(f: &Fabric, p: &Map<String, Value>) -> Result<Box<dyn Routing>, RoutingError> {
    let params: Params = spec::typed("routing", "dor", p)?;
    let (dims, wrap, uni) = match f.topology() {
        Topology::Torus(t) => (t.dims.clone(), true, t.unidirectional),
        Topology::Mesh(m) => (m.dims.clone(), false, false),
        _ => unreachable!("checked by applies"),
    };
    if !params.datelines && params.classes.is_some() {
        return Err(crate::error::SpecError::Invalid {
            kind: "routing",
            name: "dor".into(),
            message: "`classes` chooses how the two VC classes are used; with datelines=false there is one class"
                .into(),
        }
        .into());
    }
    Ok(Box::new(Dor {
        dims,
        wrap,
        unidirectional: uni,
        datelines: params.datelines && wrap,
        tie: params.tie,
        classes: params.classes.unwrap_or_default(),
    }))
}

impl Dor {
    /// The dimension and direction (`true` = `+`) a packet arriving on `port` was travelling in.
    fn arrival_dim(port: PortNum) -> Option<(usize, bool)> {
        if port.0 < 2 {
            return None;
        }
        let d = ((port.0 - 2) / 2) as usize;
        // Entering through port 3+2d means the packet came from the −d side, moving +.
        Some((d, port.0 % 2 == 1))
    }
}

impl Routing for Dor {
    fn engine(&self) -> &'static str {
        "dor"
    }
    fn spec(&self) -> String {
        if self.wrap {
            // The defaults keep the spec they always had, so stored results still match.
            let mut s = format!("dor:datelines={}", self.datelines);
            if self.tie != Tie::Plus {
                s += &format!(",tie={}", self.tie.name());
            }
            if self.datelines && self.classes != Classes::Dateline {
                s += &format!(",classes={}", self.classes.name());
            }
            s
        } else {
            "dor".into()
        }
    }
    fn run_time_choice(&self) -> Option<RunTimeChoice> {
        (self.wrap && !self.unidirectional && self.tie == Tie::Random)
            .then(|| RunTimeChoice { option: "tie=random".into(), rule: ChoiceRule::Random })
    }
    fn vc_classes(&self) -> u8 {
        if self.datelines {
            2
        } else {
            1
        }
    }
    fn num_addresses(&self) -> usize {
        self.dims.iter().product::<u32>() as usize
    }
    fn next_hops(&self, at: SwitchId, arrived: Arrival, to: Address, out: &mut Vec<Hop>) {
        out.clear();
        if at.0 == to.0 {
            out.push(Hop { port: PortNum(1), vc: 0 });
            return;
        }
        // Only the first dimension in which the two switches differ matters: its coordinates are
        // taken digit by digit (dimension 0 fastest, as `coords_of` numbers them) rather than
        // as two coordinate lists, which cost two allocations per hop of every decoded route.
        let Some((d, c, t)) = first_difference(&self.dims, at.0, to.0) else { return };
        let k = self.dims[d];
        let same_ring = |plus: bool| Dor::arrival_dim(arrived.port) == Some((d, plus));
        let hop = |plus: bool, out: &mut Vec<Hop>| {
            let port = PortNum(if plus { 2 + 2 * d as u16 } else { 3 + 2 * d as u16 });
            let vc = match (self.datelines, self.classes) {
                (false, _) => 0,
                (true, Classes::Dateline) => {
                    let wraps = if plus { c == k - 1 } else { c == 0 };
                    u8::from(wraps || (same_ring(plus) && arrived.vc == 1))
                }
                (true, Classes::Entry) if same_ring(plus) => arrived.vc,
                (true, Classes::Entry) => u8::from(c > t),
            };
            out.push(Hop { port, vc });
        };
        if !self.wrap {
            hop(t > c, out);
        } else if self.unidirectional {
            hop(true, out);
        } else {
            let fwd = (t + k - c) % k;
            let back = (c + k - t) % k;
            match (fwd.cmp(&back), self.tie) {
                (std::cmp::Ordering::Less, _) | (std::cmp::Ordering::Equal, Tie::Plus) => hop(true, out),
                (std::cmp::Ordering::Greater, _) => hop(false, out),
                (std::cmp::Ordering::Equal, Tie::Parity) => hop(c % 2 == 0, out),
                (std::cmp::Ordering::Equal, Tie::Random) => {
                    hop(true, out);
                    hop(false, out);
                }
            }
        }
    }
    fn facts(&self) -> Vec<(String, String)> {
        vec![
            ("order".into(), "dimension 0 first".into()),
            (
                "datelines".into(),
                if self.datelines {
                    "on (2 VC classes per ring)".into()
                } else if self.wrap {
                    "off".into()
                } else {
                    "not needed (mesh)".into()
                },
            ),
            ("tie at k/2".into(), self.tie.name().into()),
            ("class rule".into(), if self.datelines { self.classes.name().into() } else { "one class".into() }),
        ]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The first dimension in which switches `a` and `b` differ, with their coordinates in it
/// (`None`: the same switch).
fn first_difference(dims: &[u32], mut a: u32, mut b: u32) -> Option<(usize, u32, u32)> {
    for (d, &k) in dims.iter().enumerate() {
        let (ca, cb) = (a % k, b % k);
        if ca != cb {
            return Some((d, ca, cb));
        }
        a /= k;
        b /= k;
    }
    None
}
