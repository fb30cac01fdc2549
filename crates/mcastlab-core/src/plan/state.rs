//! The switch state a plan relies on: InfiniBand multicast forwarding tables and the
//! reachability strings of bit-string worms. A plan carries it so that checking and simulation
//! need nothing else.

use crate::ids::{EndpointId, PortNum, SwitchId};
use fixedbitset::FixedBitSet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Endpoints a range list may name: the generators' largest fabric (2^24 endpoints, a 2 MiB bit
/// string). A plan file is also checked against its fabric before its sets are built
/// (`io::plan_json`); this bound holds wherever a set is read, so a 12-byte `"0-4294967295"`
/// never allocates 512 MiB (found by fuzzing, docs/reliability.md).
pub const MAX_RANGE_ENDPOINTS: u32 = 1 << 24;

/// An N-bit string over endpoints (bit `i` = endpoint `i`), written in JSON as a compact list of
/// endpoint ranges (`"0-5,9,12-15"`; empty string for none) because fabric numberings make
/// reachable sets mostly contiguous.
#[derive(Clone, Debug, Eq, Default)]
pub struct EndpointSet(pub FixedBitSet);

/// Equal when they hold the same endpoints. The bit string's length is an allocation detail
/// (a scheme sizes it to the fabric, the JSON reader to the highest endpoint named), so a plan
/// read back from its own file compared unequal before (found by fuzzing, docs/reliability.md).
impl PartialEq for EndpointSet {
    fn eq(&self, other: &EndpointSet) -> bool {
        self.0.ones().eq(other.0.ones())
    }
}

impl EndpointSet {
    pub fn with_capacity(n: usize) -> Self {
        EndpointSet(FixedBitSet::with_capacity(n))
    }
    pub fn from_endpoints(n: usize, es: &[EndpointId]) -> Self {
        let mut b = FixedBitSet::with_capacity(n);
        for e in es {
            b.grow(e.idx() + 1);
            b.insert(e.idx());
        }
        EndpointSet(b)
    }
    pub fn contains(&self, e: EndpointId) -> bool {
        self.0.contains(e.idx())
    }
    pub fn insert(&mut self, e: EndpointId) {
        self.0.grow(e.idx() + 1);
        self.0.insert(e.idx());
    }
    pub fn len(&self) -> usize {
        self.0.count_ones(..)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_clear()
    }
    pub fn iter(&self) -> impl Iterator<Item = EndpointId> + '_ {
        self.0.ones().map(|i| EndpointId(i as u32))
    }
    /// `self ∩ other`.
    pub fn and(&self, other: &EndpointSet) -> EndpointSet {
        EndpointSet(&self.0 & &other.0)
    }
    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &EndpointSet) -> bool {
        self.0.is_subset(&other.0)
    }
    pub fn union_with(&mut self, other: &EndpointSet) {
        self.0.union_with(&other.0);
    }

    /// The range-list text form.
    pub fn to_ranges(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut it = self.0.ones().peekable();
        while let Some(a) = it.next() {
            let mut b = a;
            while it.peek() == Some(&(b + 1)) {
                b = it.next().expect("peeked");
            }
            out.push(if a == b { a.to_string() } else { format!("{a}-{b}") });
        }
        out.join(",")
    }
    pub fn from_ranges(text: &str) -> Result<EndpointSet, String> {
        let mut set = EndpointSet::default();
        for r in ranges(text) {
            let (a, b) = r?;
            if b >= MAX_RANGE_ENDPOINTS {
                return Err(format!(
                    "range `{a}-{b}` names endpoint {b}, beyond the {MAX_RANGE_ENDPOINTS} endpoints any fabric has"
                ));
            }
            set.0.grow(b as usize + 1);
            set.0.insert_range(a as usize..b as usize + 1);
        }
        Ok(set)
    }

    /// The largest endpoint a range-list text names (`None` for the empty set), without building
    /// the set: a file can name endpoint 4,294,967,295 in a dozen bytes, and the set would take
    /// 512 MiB before the fabric could say that endpoint does not exist.
    pub fn largest_in_ranges(text: &str) -> Result<Option<u32>, String> {
        ranges(text).map(|r| r.map(|(_, b)| b)).try_fold(None, |m: Option<u32>, b| Ok(m.max(Some(b?))))
    }
}

/// The ranges `a-b` (or single endpoints `a`) of a range-list text, in order.
fn ranges(text: &str) -> impl Iterator<Item = Result<(u32, u32), String>> + '_ {
    text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|part| {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let parse = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("`{part}` is not an endpoint range"));
        let (a, b) = (parse(a)?, parse(b)?);
        if a > b {
            return Err(format!("range `{part}` is reversed"));
        }
        Ok((a, b))
    })
}

impl Serialize for EndpointSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_ranges())
    }
}
impl<'de> Deserialize<'de> for EndpointSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        EndpointSet::from_ranges(&s).map_err(serde::de::Error::custom)
    }
}

/// One InfiniBand MFT row: the ports a switch replicates packets for `mlid` to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MftEntry {
    pub mlid: u32,
    pub switch: SwitchId,
    pub ports: Vec<PortNum>,
}

/// Reachability strings of one switch (sivaram98 §5.3.2): the total string and, per "down"
/// output port, the restricted string (endpoints this port is responsible for).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchReach {
    pub switch: SwitchId,
    pub total: EndpointSet,
    pub down: Vec<(PortNum, EndpointSet)>,
}

/// Everything switches must hold for a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchState {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mft: Vec<MftEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reachability: Vec<SwitchReach>,
}

impl SwitchState {
    pub fn is_empty(&self) -> bool {
        self.mft.is_empty() && self.reachability.is_empty()
    }
    /// MFT lookup: `(mlid, switch) → ports`.
    pub fn mft_index(&self) -> BTreeMap<(u32, SwitchId), &[PortNum]> {
        self.mft.iter().map(|e| ((e.mlid, e.switch), e.ports.as_slice())).collect()
    }
    /// Reachability strings by switch.
    pub fn reach_index(&self) -> BTreeMap<SwitchId, &SwitchReach> {
        self.reachability.iter().map(|r| (r.switch, r)).collect()
    }
}

/// Two MFT rows for one (MLID, switch): indexes into the row list, `first < second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MftConflict {
    pub mlid: u32,
    pub switch: SwitchId,
    pub first: usize,
    pub second: usize,
}

/// The first pair of rows naming the same (MLID, switch), if any. A switch holds one port mask
/// per MLID; two rows would be read one way by a lookup (the last wins) and another by a dump
/// (the union), so a plan with both is refused rather than guessed at.
pub fn mft_conflict(mft: &[MftEntry]) -> Option<MftConflict> {
    let mut seen: BTreeMap<(u32, SwitchId), usize> = BTreeMap::new();
    for (i, e) in mft.iter().enumerate() {
        if let Some(&first) = seen.get(&(e.mlid, e.switch)) {
            return Some(MftConflict { mlid: e.mlid, switch: e.switch, first, second: i });
        }
        seen.insert((e.mlid, e.switch), i);
    }
    None
}

/// The 1-based line of every row of `switch_state.mft` in a plan file's text (empty if the text
/// does not parse that far), so errors about rows can name lines. Only read on the error path.
pub fn mft_row_lines(text: &str) -> Vec<usize> {
    use serde_json::value::RawValue;
    #[derive(Deserialize)]
    struct File<'a> {
        #[serde(borrow, default)]
        switch_state: Option<State<'a>>,
    }
    #[derive(Deserialize)]
    struct State<'a> {
        #[serde(borrow, default)]
        mft: Vec<&'a RawValue>,
    }
    let Ok(f) = serde_json::from_str::<File<'_>>(text) else { return Vec::new() };
    let base = text.as_ptr() as usize;
    f.switch_state
        .map(|s| s.mft)
        .unwrap_or_default()
        .into_iter()
        .map(|raw| {
            let at = (raw.get().as_ptr() as usize).saturating_sub(base).min(text.len());
            text[..at].matches('\n').count() + 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicting_mft_rows_are_found_with_their_lines() {
        let row = |mlid, s, p: u16| MftEntry { mlid, switch: SwitchId(s), ports: vec![PortNum(p)] };
        assert_eq!(mft_conflict(&[row(0xC000, 1, 1), row(0xC001, 1, 2), row(0xC000, 2, 1)]), None);
        let c = mft_conflict(&[row(0xC000, 1, 1), row(0xC001, 1, 2), row(0xC000, 1, 3)]).unwrap();
        assert_eq!((c.mlid, c.switch, c.first, c.second), (0xC000, SwitchId(1), 0, 2));
        let text = "{\"a\": 1,\n \"switch_state\": {\"mft\": [\n  {\"mlid\": 1},\n\n  {\"mlid\": 2}]}}";
        assert_eq!(mft_row_lines(text), vec![3, 5]);
        assert_eq!(mft_row_lines("not json"), Vec::<usize>::new());
    }
    use proptest::prelude::*;

    #[test]
    fn ranges_text() {
        let s = EndpointSet::from_endpoints(16, &[0, 1, 2, 5, 9, 10].map(EndpointId));
        assert_eq!(s.to_ranges(), "0-2,5,9-10");
        assert_eq!(EndpointSet::from_ranges("0-2,5,9-10").unwrap().to_ranges(), "0-2,5,9-10");
        assert_eq!(EndpointSet::default().to_ranges(), "");
        assert!(EndpointSet::from_ranges("3-1").is_err());
        assert!(EndpointSet::from_ranges("a").is_err());
    }

    /// Fuzzing regression: a bitstring plan's reachability strings (sized to the fabric) and the
    /// same strings read back from JSON (sized to their highest endpoint) must compare equal.
    #[test]
    fn sets_compare_by_members_not_by_capacity() {
        let wide = EndpointSet::from_endpoints(64, &[1, 6].map(EndpointId));
        let read = EndpointSet::from_ranges(&wide.to_ranges()).unwrap();
        assert_eq!(wide, read);
        assert_ne!(wide, EndpointSet::from_ranges("1,7").unwrap());
        assert_eq!(EndpointSet::with_capacity(10), EndpointSet::default());
    }

    /// Fuzzing regression: `"7-4294967295"` in a plan's reachability strings hung the reader
    /// (4·10^9 inserts into a 512 MiB bit string); ranges now stop at the largest fabric.
    #[test]
    fn ranges_stop_at_the_largest_fabric() {
        let e = EndpointSet::from_ranges("7-4294967295").unwrap_err();
        assert!(e.contains("beyond the 16777216 endpoints"), "{e}");
        assert_eq!(EndpointSet::from_ranges("2-9").unwrap().to_ranges(), "2-9");
        assert!(EndpointSet::from_ranges(&format!("{}", MAX_RANGE_ENDPOINTS - 1)).is_ok());
    }

    proptest! {
        #[test]
        fn ranges_round_trip(xs in proptest::collection::btree_set(0u32..200, 0..40)) {
            let v: Vec<EndpointId> = xs.iter().map(|x| EndpointId(*x)).collect();
            let s = EndpointSet::from_endpoints(200, &v);
            let back = EndpointSet::from_ranges(&s.to_ranges()).unwrap();
            prop_assert_eq!(back.iter().collect::<Vec<_>>(), v);
        }
    }
}
