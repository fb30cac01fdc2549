//! What the parameter tables tell users: [`rows`] (every key with its kind, units, doc and value
//! in each preset; `mcastlab.param_table()` and `mcastlab list params` read them) and
//! [`markdown`], the page `docs/params.md`. A preset's value is its `Params` shown through the
//! key's row; the measurement settings are not part of a preset, so each preset shows their
//! defaults.

use super::table::Param;
use super::{Measure, Params, KEYS, MEASURE_KEYS, PRESETS};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write;

/// The command that rewrites `docs/params.md` (the page's header and the test that compares
/// it with [`markdown`] both name it).
pub const REGENERATE: &str = "MCASTLAB_WRITE_DOCS=1 cargo test -p mcastlab-core --test sim_params docs_page";

/// One settable key for listings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// `link.bandwidth`, `measure.batches`.
    pub key: &'static str,
    /// `time`, `size`, `choice`, `count or none`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The units it is written in, or the names it takes.
    pub unit_or_values: String,
    /// The field's doc comment as one paragraph.
    pub doc: String,
    /// Preset name → the value as text, in [`PRESETS`] order.
    pub presets: Map<String, Value>,
}

fn row<R>(p: &Param<R>, values: &[(&'static str, &R)]) -> Row {
    Row {
        key: p.key,
        kind: p.kind(),
        unit_or_values: p.accepts(),
        doc: p.doc(),
        presets: values.iter().map(|(name, r)| (name.to_string(), Value::String(p.show(r)))).collect(),
    }
}

/// Every key of [`Params`] and then of [`Measure`], with each preset's value.
pub fn rows() -> Vec<Row> {
    let params: Vec<(&'static str, Params)> = PRESETS.iter().map(|p| (p.name, (p.build)())).collect();
    let params: Vec<(&'static str, &Params)> = params.iter().map(|(n, p)| (*n, p)).collect();
    let measure = Measure::default();
    let measures: Vec<(&'static str, &Measure)> = PRESETS.iter().map(|p| (p.name, &measure)).collect();
    let mut out: Vec<Row> = KEYS.iter().map(|k| row(k, &params)).collect();
    out.extend(MEASURE_KEYS.iter().map(|k| row(k, &measures)));
    out
}

/// A markdown table row of cells.
fn cells<S: AsRef<str>>(out: &mut String, cells: impl IntoIterator<Item = S>) {
    let cells: Vec<String> = cells.into_iter().map(|c| c.as_ref().to_string()).collect();
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// One section per group: a table of the values (every preset's, or with `default_only` the
/// value all presets share), then each key's units and doc.
fn section(out: &mut String, title: &str, rows: &[&Row], default_only: bool) {
    let _ = writeln!(out, "## {title}\n");
    let columns: Vec<&str> = if default_only { vec!["default"] } else { PRESETS.iter().map(|p| p.name).collect() };
    cells(out, ["key", "type"].into_iter().chain(columns.iter().copied()));
    cells(out, std::iter::repeat_n("---", columns.len() + 2));
    for r in rows {
        let values = r.presets.values().take(columns.len()).map(|v| format!("`{}`", v.as_str().unwrap_or("")));
        cells(out, [format!("`{}`", r.key), r.kind.clone()].into_iter().chain(values));
    }
    out.push('\n');
    for r in rows {
        let _ = writeln!(out, "- **`{}`** — {} ({}). {}", r.key, r.kind, r.unit_or_values, r.doc);
    }
    out.push('\n');
}

/// The page `docs/params.md`: every key with its type and units, its doc and its value in each
/// preset, then the measurement settings with their defaults.
pub fn markdown() -> String {
    let rows = rows();
    let mut out = String::new();
    let _ = write!(
        out,
        "# Simulator parameters\n\n\
         <!-- Generated from the parameter table in crates/mcastlab-core/src/sim/params/; do not edit. -->\n\
         _Generated from the parameter table (`crates/mcastlab-core/src/sim/params/`): do not edit this page; \
         change the table or a preset and regenerate it with `{REGENERATE}` (the same test fails while the \
         page differs from the table)._\n\n\
         A run starts from a preset and overrides keys as `key=value`, each value with its unit: \
         `--param link.bandwidth=1.28Gb/s` on the command line, `params={{\"link.bandwidth\": \"1.28Gb/s\"}}` \
         in Python, `Params::set` or `Params::with_overrides` in Rust. Unknown keys and malformed values \
         are errors naming the key; `Params::validate` then checks the rules between keys. \
         `mcastlab.param_table()` returns the same table as a DataFrame.\n\n"
    );
    cells(&mut out, ["preset", "summary"]);
    cells(&mut out, ["---", "---"]);
    for p in PRESETS {
        cells(&mut out, [format!("`{}`", p.name), p.summary.to_string()]);
    }
    out.push('\n');
    let mut groups: Vec<(&str, String)> = Vec::new();
    for k in KEYS {
        if groups.last().map(|g| g.0) != Some(k.group()) {
            groups.push((k.group(), k.group_doc()));
        }
    }
    for (group, doc) in groups {
        let of_group: Vec<&Row> =
            rows.iter().filter(|r| r.key.split_once('.').map(|(g, _)| g) == Some(group)).collect();
        section(&mut out, &format!("`{group}`: {doc}"), &of_group, false);
    }
    let doc = MEASURE_KEYS.first().map(|k| k.group_doc()).unwrap_or_default();
    let _ = writeln!(
        out,
        "Workload runs also take measurement settings, the same in every preset: `--measure batch=50us` on \
         the command line, `measure={{\"batch\": \"50us\"}}` in Python (keys without the `measure.` prefix), \
         where durations may also be given in cycles of one flit time (`batch=10000cycles`).\n"
    );
    let of_measure: Vec<&Row> = rows.iter().filter(|r| r.key.starts_with("measure.")).collect();
    section(&mut out, &format!("`measure`: {doc}"), &of_measure, true);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_key_with_every_presets_value() {
        let rows = rows();
        assert_eq!(rows.len(), KEYS.len() + MEASURE_KEYS.len());
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        for r in &rows {
            assert_eq!(r.presets.keys().map(String::as_str).collect::<Vec<_>>(), names, "{}", r.key);
        }
        let bw = &rows[0];
        assert_eq!(
            (bw.key, bw.kind.as_str(), bw.presets["sivaram98"].as_str()),
            ("link.bandwidth", "rate", Some("200MB/s"))
        );
        let json = serde_json::to_value(bw).unwrap();
        let fields: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields, ["key", "type", "unit_or_values", "doc", "presets"]);
        let batches = rows.iter().find(|r| r.key == "measure.batches").unwrap();
        assert!(batches.presets.values().all(|v| v == "5"));
    }
}
