//! The workload measurement settings ([`Measure`], keys `measure.*`): the second table of the same
//! machinery, so their key list, kinds and docs come from here rather than being spelled again
//! in the bindings and in Python. How they are used (windows, statistics, saturation) is
//! `sim/measure/`.

use super::table::{self, param_table};
use super::{Choice, Count, Kind};
use crate::error::SimError;
use crate::sim::units::Time;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use strum::{EnumMessage, EnumString, IntoStaticStr, VariantArray, VariantNames};

/// Which per-message rows a run keeps.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Detail {
    /// Only the run row.
    #[default]
    None,
    /// One [`SampleRow`](crate::sim::SampleRow) per message.
    Messages,
    /// Sample rows and one [`DestinationRow`](crate::sim::DestinationRow) per message and
    /// destination.
    Destinations,
}

/// What the unstable-run test averages with the finished messages' latencies.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Ages {
    /// One age per unfinished message, weighing like one finished message.
    #[default]
    Message,
    /// One age per flit of every unfinished message and destination (BookSim adds the age of
    /// every undelivered flit), so a backlog of long messages weighs by its flits. Flits already
    /// delivered of a message still in progress count until it finishes.
    Flit,
}

/// When a load run's drain begins once the measurement window is over.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    EnumString,
    IntoStaticStr,
    VariantNames,
    VariantArray,
    EnumMessage,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Stop {
    /// At the first measurement tick (ten per batch) at which every measured message has
    /// finished: sources keep creating unmeasured messages up to that tick.
    #[default]
    Tick,
    /// At the instant the last measured message finishes (BookSim stops generating in that
    /// cycle), so no message is created after it.
    Exact,
}

/// What a preset means by `none` for the measurement settings that differ between mcastlab's
/// conventions and a simulator a preset stands in for (`measure.latency_limit`, `measure.ages`,
/// `measure.stop`). Kept beside the settings so that a preset names a convention, not values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convention {
    /// The unstable-run limit in cycles (flit times); `None`: `latency_factor` × zero-load.
    pub latency_limit_cycles: Option<u32>,
    pub ages: Ages,
    pub stop: Stop,
}

impl Convention {
    /// mcastlab's own: a limit relative to the workload's zero-load latency, one age per
    /// unfinished message, the drain from a tick.
    pub const MCASTLAB: Convention = Convention { latency_limit_cycles: None, ages: Ages::Message, stop: Stop::Tick };
    /// BookSim 2.0's (`../shared/reference/booksim.md` §2): `latency_thres = 500` cycles, the
    /// age of every undelivered flit, generation stopping when the last measured packet arrives.
    pub const BOOKSIM: Convention = Convention { latency_limit_cycles: Some(500), ages: Ages::Flit, stop: Stop::Exact };
}

/// The settings a run uses once a preset's [`Convention`] has filled what was left `none`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resolved {
    /// Picoseconds; `None` only without a limit and without a zero-load latency.
    pub latency_limit_ps: Option<u64>,
    pub ages: Ages,
    pub stop: Stop,
}

param_table! {
    /// Every key of [`Measure`] (`measure.batches`, ...), in display order.
    pub const MEASURE_KEYS: [Measure] in measure;

    /// Warm-up, measurement and saturation settings of a workload run.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct Measure {
        /// Before measurement starts; `none`: three batches (BookSim's 3 × 10,000 cycles).
        pub warmup: Option<Time> as Option<Time>,
        /// One batch; `none`: 10,000 cycles (a cycle is one flit time), or the time the senders take to create 100 messages together where that is longer.
        pub batch: Option<Time> as Option<Time>,
        /// Measurement batches (BookSim: 5).
        pub batches: u32 as Count,
        /// Mean latency beyond which a run is unstable; `none`: the preset's (BookSim's 500 cycles under the `booksim_*` presets), else `latency_factor` × zero-load latency.
        pub latency_limit: Option<Time> as Option<Time>,
        /// The default `latency_limit` as a multiple of the zero-load latency.
        pub latency_factor: f64 as f64,
        /// Relative shortfall of accepted load (and relative queue growth) that means saturation, beyond the backlog's noise (3·√(unfinished messages at the window's start + at its end + 1) messages).
        pub accepted_margin: f64 as f64,
        /// Longest drain after the window; `none`: ten times the warm-up plus the window.
        pub drain_limit: Option<Time> as Option<Time>,
        /// Which per-message rows the run keeps; see [`Detail`].
        pub detail: Detail as Choice,
        /// What the unstable-run test adds to the finished latencies: the age of every unfinished `message`, or of every flit of them (`flit`, BookSim's rule); `none`: the preset's (`flit` under the `booksim_*` presets, else `message`); see [`Ages`].
        pub ages: Option<Ages> as Option<Choice>,
        /// When the drain of a load run begins after the window: at the first `tick` (ten per batch) with every measured message finished, or at the `exact` instant the last one finishes (BookSim); `none`: the preset's (`exact` under the `booksim_*` presets, else `tick`); see [`Stop`].
        pub stop: Option<Stop> as Option<Choice>,
    }
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            warmup: None,
            batch: None,
            batches: 5,
            latency_limit: None,
            latency_factor: 10.0,
            accepted_margin: 0.05,
            drain_limit: None,
            detail: Detail::None,
            ages: None,
            stop: None,
        }
    }
}

impl Measure {
    /// Checks the settings; errors name the setting (`measure.batches`).
    pub fn validate(&self) -> Result<(), SimError> {
        use key::measure;
        let bad = |k: &str, m: &str| Err(SimError::param(k, m));
        if self.batches == 0 {
            return bad(measure::batches, "at least one batch");
        }
        if self.batch == Some(Time::ZERO) {
            return bad(measure::batch, "a batch must last some time");
        }
        if !(self.latency_factor > 1.0 && self.latency_factor.is_finite()) {
            return bad(measure::latency_factor, "must be a finite number above 1");
        }
        if !(self.accepted_margin > 0.0 && self.accepted_margin < 1.0) {
            return bad(measure::accepted_margin, "must be between 0 and 1");
        }
        if self.latency_limit == Some(Time::ZERO) {
            return bad(measure::latency_limit, "must be positive");
        }
        if self.drain_limit == Some(Time::ZERO) {
            // A drain of nothing ends the run with the window, before the last measured messages
            // could finish: every such run would end `drain_limit`, saying nothing of the load.
            return bad(measure::drain_limit, "must be positive (`none`: ten times the warm-up plus the window)");
        }
        Ok(())
    }

    /// The settings of a run under a preset's convention: what is set stays, what is `none`
    /// takes the convention's value. `cycle_ps` is the run's cycle (one flit time); `zero_ps`
    /// the workload's zero-load latency, when known.
    pub fn resolve(&self, c: Convention, cycle_ps: u64, zero_ps: Option<f64>) -> Resolved {
        let latency_limit_ps = self.latency_limit.map(|l| l.ps()).or_else(|| match c.latency_limit_cycles {
            Some(n) => Some(u64::from(n).saturating_mul(cycle_ps)),
            None => zero_ps.map(|z| (z * self.latency_factor).ceil() as u64),
        });
        Resolved { latency_limit_ps, ages: self.ages.unwrap_or(c.ages), stop: self.stop.unwrap_or(c.stop) }
    }

    /// Sets one setting from text with its unit (`measure.batch`, `"50us"`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SimError> {
        table::find(MEASURE_KEYS, key)?.set(self, value)
    }

    /// The value of one setting as text that [`Measure::set`] accepts.
    pub fn show(&self, key: &str) -> Result<String, SimError> {
        Ok(table::find(MEASURE_KEYS, key)?.show(self))
    }

    /// Settings from a JSON object keyed by field (`{"batch": "50us", "batches": 3}`), missing
    /// fields at their defaults. Durations are unit strings, integers of picoseconds, or cycles of
    /// the run (`"30000cycles"`, one cycle = `cycle_ps`, one flit time): the keys that take
    /// cycles are the table's time keys. The same conversions and messages as the bindings'
    /// `measure_from_json`, which can call this instead.
    pub fn from_json(text: &str, cycle_ps: u64) -> Result<Measure, SimError> {
        let mut v: Value = serde_json::from_str(text).map_err(|e| SimError::param("measure", e.to_string()))?;
        if let Some(obj) = v.as_object_mut() {
            for row in MEASURE_KEYS.iter().filter(|r| takes_cycles(r)) {
                let field = row.key.split_once('.').map_or(row.key, |(_, f)| f);
                let Some(Value::String(s)) = obj.get(field) else { continue };
                if let Some(n) = s.trim().strip_suffix("cycles").or_else(|| s.trim().strip_suffix("cycle")) {
                    let cycles: u64 = n
                        .trim()
                        .parse()
                        .map_err(|_| SimError::param(row.key, format!("`{s}`: not a whole number of cycles")))?;
                    obj.insert(field.into(), json!(cycles.saturating_mul(cycle_ps)));
                }
            }
            // One field at a time first, so that a bad value's error names its key.
            for (field, value) in obj.iter() {
                if let Err(e) = serde_json::from_value::<Measure>(json!({ field: value })) {
                    let row = MEASURE_KEYS.iter().find(|r| r.key.split_once('.').map(|(_, f)| f) == Some(field));
                    return Err(SimError::param(row.map_or("measure", |r| r.key), e.to_string()));
                }
            }
        }
        serde_json::from_value(v).map_err(|e| SimError::param("measure", e.to_string()))
    }
}

/// Whether a setting is a duration, which the API and the CLI also take in cycles.
fn takes_cycles(row: &table::Param<Measure>) -> bool {
    row.kind().split(' ').next() == Some(<Time as Kind<Time>>::name().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_the_serde_fields_with_the_prefix() {
        let json = serde_json::to_value(Measure::default()).unwrap();
        let fields: Vec<String> = json.as_object().unwrap().keys().map(|k| format!("measure.{k}")).collect();
        let keys: Vec<&str> = MEASURE_KEYS.iter().map(|r| r.key).collect();
        assert_eq!(fields, keys);
        // The JSON (a workload row's `measure`) is what the hand-written struct wrote.
        assert_eq!(
            serde_json::to_string(&Measure::default()).unwrap(),
            r#"{"warmup":null,"batch":null,"batches":5,"latency_limit":null,"latency_factor":10.0,"#.to_string()
                + r#""accepted_margin":0.05,"drain_limit":null,"detail":"none","ages":null,"stop":null}"#
        );
    }

    #[test]
    fn durations_in_cycles_from_json() {
        let m = Measure::from_json(r#"{"batch": "3000cycles", "warmup": "1 cycle", "batches": 2}"#, 5_000).unwrap();
        assert_eq!((m.batch, m.warmup, m.batches), (Some(Time(15_000_000)), Some(Time(5_000)), 2));
        let m = Measure::from_json(r#"{"latency_limit": "500ns", "drain_limit": 7}"#, 1_000).unwrap();
        assert_eq!((m.latency_limit, m.drain_limit), (Some(Time(500_000)), Some(Time(7))));
        let e = Measure::from_json(r#"{"batch": "x cycles"}"#, 1_000).unwrap_err().to_string();
        assert!(e.starts_with("parameter `measure.batch`") && e.contains("whole number of cycles"), "{e}");
        let e = Measure::from_json(r#"{"batch": "xyz", "batches": 2}"#, 1_000).unwrap_err().to_string();
        assert!(e.starts_with("parameter `measure.batch`: `xyz`"), "{e}");
        let e = Measure::from_json(r#"{"batches": -1}"#, 1_000).unwrap_err().to_string();
        assert!(e.starts_with("parameter `measure.batches`"), "{e}");
        let e = Measure::from_json(r#"{"batchez": 3}"#, 1_000).unwrap_err().to_string();
        assert!(e.contains("measure") && e.contains("batchez"), "{e}");
        let cycles: Vec<&str> = MEASURE_KEYS.iter().filter(|r| takes_cycles(r)).map(|r| r.key).collect();
        assert_eq!(cycles, ["measure.warmup", "measure.batch", "measure.latency_limit", "measure.drain_limit"]);
    }

    #[test]
    fn set_parses_units_and_validate_names_the_key() {
        let mut m = Measure::default();
        m.set("measure.batch", "50us").unwrap();
        m.set("measure.detail", "destinations").unwrap();
        m.set("measure.latency_factor", "4.5").unwrap();
        assert_eq!((m.batch, m.detail, m.latency_factor), (Some(Time::from_us(50)), Detail::Destinations, 4.5));
        assert_eq!(m.show("measure.batch").unwrap(), "50us");
        let e = m.set("measure.detail", "all").unwrap_err().to_string();
        assert!(e.contains("`all` is not one of none, messages, destinations"), "{e}");
        m.set("measure.batches", "0").unwrap();
        assert!(m.validate().unwrap_err().to_string().starts_with("parameter `measure.batches`"));
        let e = m.set("measure.bogus", "1").unwrap_err().to_string();
        assert!(MEASURE_KEYS.iter().all(|r| e.contains(r.key)), "{e}");
    }

    #[test]
    fn a_zero_drain_is_refused_and_the_shortest_one_kept() {
        let mut m = Measure::default();
        m.set("measure.drain_limit", "0").unwrap();
        let e = m.validate().unwrap_err().to_string();
        assert!(e.starts_with("parameter `measure.drain_limit`: must be positive"), "{e}");
        m.set("measure.drain_limit", "1ps").unwrap();
        assert!(m.validate().is_ok());
    }
}
