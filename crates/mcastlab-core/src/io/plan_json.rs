//! Reading plan files (schema `mcastlab-plan`, docs/formats.md): a plan written by `Plan.save`, by
//! hand, or by `Plan.from_transmissions`. Everything a file says is checked before it is used: its
//! nesting (before parsing), its format and version, the fabric it was built for, the scheme it
//! names, then the plan itself against the fabric (`Plan::from_transmissions`).

use crate::error::PlanError;
use crate::fabric::{spec, Fabric};
use crate::plan::{state, EndpointSet, Plan, CUSTOM_SCHEME, PLAN_FORMAT, PLAN_VERSION};
use crate::schemes::SCHEMES;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// How deeply a plan file may nest arrays and objects: serde_json's own recursion limit, so a file
/// that passes this check never meets the parser's limit and any deeper one is refused with this
/// number. A real plan nests 5 levels (plan, switch state, reachability rows, a row's ports, a
/// port's set).
pub const MAX_PLAN_DEPTH: usize = 128;

/// Parses a plan file and re-validates it against the fabric; errors name `file`.
pub fn read_plan(text: &str, file: &str, fabric: &Fabric) -> Result<Plan, PlanError> {
    let bad = |message: String| PlanError::File { file: file.to_string(), message };
    if let Some(depth) = nesting_beyond(text, MAX_PLAN_DEPTH) {
        return Err(bad(format!(
            "JSON nested more than {MAX_PLAN_DEPTH} levels deep (at byte {depth}), the limit of a plan file"
        )));
    }
    endpoint_sets_within(text, fabric.num_endpoints()).map_err(&bad)?;
    let p: Plan = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if p.format != PLAN_FORMAT || p.version != PLAN_VERSION {
        return Err(bad(format!("expected format {PLAN_FORMAT} version {PLAN_VERSION}")));
    }
    if !crate::fabric::generators::same_fabric_name(&p.fabric, fabric.name()) {
        return Err(bad(format!("plan was built for fabric `{}`, not `{}`", p.fabric, fabric.name())));
    }
    known_scheme(&p.scheme).map_err(|m| bad(format!("field `scheme`: {m}")))?;
    if let Some(c) = state::mft_conflict(&p.switch_state.mft) {
        let lines = state::mft_row_lines(text);
        let line = |i: usize| lines.get(i).map_or_else(|| format!("row {i}"), |l| format!("line {l}"));
        let switch = fabric.switches().get(c.switch.idx()).map_or_else(|| c.switch.0.to_string(), |s| s.name.clone());
        return Err(bad(format!(
            "{} and {}: conflicting MFT rows for MLID 0x{:04X} on switch {switch} (a switch holds one row per MLID)",
            line(c.first),
            line(c.second),
            c.mlid
        )));
    }
    Plan::from_transmissions(fabric, &p.scheme, p.source, p.destinations, p.packets, p.discipline, p.transmissions)?
        .with_switch_state(fabric, p.switch_state)
}

/// The endpoint sets of a plan's reachability strings, as text: read first so that every set is
/// checked against the fabric before one is built (other fields are skipped).
#[derive(Deserialize)]
struct SetsOnly {
    #[serde(default)]
    switch_state: Option<StateSets>,
}

#[derive(Deserialize)]
struct StateSets {
    #[serde(default)]
    reachability: Vec<ReachSets>,
}

#[derive(Deserialize)]
struct ReachSets {
    total: String,
    #[serde(default)]
    down: Vec<(IgnoredAny, String)>,
}

/// Refuses a reachability string naming an endpoint `>= endpoints` before any set is built: a
/// set is a bit string up to its largest endpoint, so `"0-4294967295"` alone would take 512 MiB.
fn endpoint_sets_within(text: &str, endpoints: usize) -> Result<(), String> {
    let sets: SetsOnly = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let rows = sets.switch_state.map(|s| s.reachability).unwrap_or_default();
    for (i, row) in rows.iter().enumerate() {
        for set in std::iter::once(&row.total).chain(row.down.iter().map(|(_, s)| s)) {
            match EndpointSet::largest_in_ranges(set)? {
                Some(e) if e as usize >= endpoints => {
                    return Err(format!(
                        "switch_state.reachability[{i}]: endpoint {e} is outside the fabric (0..{endpoints})"
                    ))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Checks the `scheme` a plan records: `custom`, or the spec of a registered scheme (the check
/// reports that scheme's tree-creation work, so a misspelt or invented name would be silently
/// taken for a plan nobody can rebuild).
fn known_scheme(scheme: &str) -> Result<(), String> {
    if scheme == CUSTOM_SCHEME {
        return Ok(());
    }
    let known = || std::iter::once(CUSTOM_SCHEME).chain(SCHEMES.iter().map(|s| s.name)).collect::<Vec<_>>().join(", ");
    let s = spec::parse(scheme, |_| None).map_err(|e| format!("{e}; known schemes: {}", known()))?;
    if SCHEMES.iter().any(|e| e.name == s.name) {
        Ok(())
    } else {
        Err(format!("unknown scheme `{}`; known: {}", s.name, known()))
    }
}

/// The byte offset where `text` first nests arrays and objects more than `limit` deep, ignoring
/// brackets inside strings; `None` when it never does. One pass, no recursion, no allocation.
fn nesting_beyond(text: &str, limit: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::EndpointId;
    use crate::plan::Discipline;
    use crate::schemes::testing::{plan_from_0, torus};

    fn saved() -> (Fabric, serde_json::Value) {
        let (f, r) = torus();
        let p = plan_from_0(&f, r.as_ref(), "binomial", &[1, 2, 3].map(EndpointId), 1, Discipline::NiFpfs).unwrap();
        let v = serde_json::from_str(&p.to_json()).unwrap();
        (f, v)
    }

    #[test]
    fn nesting_is_measured_outside_strings_only() {
        assert_eq!(nesting_beyond("[[[]]]", 3), None);
        assert_eq!(nesting_beyond("[[[[]]]]", 3), Some(3));
        assert_eq!(nesting_beyond(r#"{"a": "[[[[\"[[[["}"#, 1), None);
        assert_eq!(nesting_beyond(r#"["\\", [[]]]"#, 2), Some(8));
    }

    #[test]
    fn a_deep_file_is_refused_naming_the_limit_not_the_parser() {
        let (f, _) = saved();
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let text = format!(r#"{{"format": "mcastlab-plan", "transmissions": {deep}}}"#);
        let e = read_plan(&text, "deep.json", &f).unwrap_err().to_string();
        assert!(e.starts_with("deep.json: JSON nested more than 128 levels deep"), "{e}");
    }

    #[test]
    fn an_unknown_scheme_is_refused_naming_file_field_and_known_schemes() {
        let (f, mut v) = saved();
        v["scheme"] = "binomail:order=index".into();
        let e = read_plan(&v.to_string(), "p.json", &f).unwrap_err().to_string();
        assert!(e.starts_with("p.json: field `scheme`: unknown scheme `binomail`; known: custom, separate,"), "{e}");
        v["scheme"] = "binomial:=index".into();
        let e = read_plan(&v.to_string(), "p.json", &f).unwrap_err().to_string();
        assert!(e.contains("field `scheme`") && e.contains("malformed item `=index`"), "{e}");
    }

    #[test]
    fn a_reachability_string_past_the_fabric_is_refused_before_its_set_is_built() {
        let (f, mut v) = saved();
        v["switch_state"] = serde_json::json!({"reachability": [
            {"switch": 0, "total": "0-3", "down": [[1, "0-4294967295"]]}
        ]});
        let e = read_plan(&v.to_string(), "p.json", &f).unwrap_err().to_string();
        assert_eq!(e, "p.json: switch_state.reachability[0]: endpoint 4294967295 is outside the fabric (0..16)");
        // Within the fabric, the strings pass this check and reach the plan's own validation.
        v["switch_state"]["reachability"][0]["down"] = serde_json::json!([[1, "0-15"]]);
        assert!(read_plan(&v.to_string(), "p.json", &f).is_ok());
        v["switch_state"]["reachability"][0]["total"] = "9-3".into();
        assert!(read_plan(&v.to_string(), "p.json", &f).unwrap_err().to_string().contains("range `9-3` is reversed"));
    }

    /// A plan records its fabric's name; one written `torus:4x4` (by hand, or by a fabric file
    /// named so) was refused against the generated `torus:dims=4x4,...` though both are one spec.
    #[test]
    fn the_fabric_is_matched_by_canonical_spec_not_text() {
        let (f, mut v) = saved();
        let canonical = f.name().to_string();
        let short = canonical.split(',').next().unwrap().replace("dims=", "");
        assert_ne!(short, canonical);
        v["fabric"] = short.clone().into();
        assert!(read_plan(&v.to_string(), "p.json", &f).is_ok(), "{short} vs {canonical}");
        v["fabric"] = "torus:5x5".into();
        let e = read_plan(&v.to_string(), "p.json", &f).unwrap_err().to_string();
        assert!(e.starts_with("p.json: plan was built for fabric `torus:5x5`"), "{e}");
        v["fabric"] = "my fabric".into();
        assert!(read_plan(&v.to_string(), "p.json", &f).is_err());
    }

    #[test]
    fn registered_and_custom_schemes_are_read() {
        let (f, mut v) = saved();
        assert!(read_plan(&v.to_string(), "p.json", &f).is_ok());
        v["scheme"] = CUSTOM_SCHEME.into();
        assert_eq!(read_plan(&v.to_string(), "p.json", &f).unwrap().scheme, "custom");
    }
}
