//! Fabric generators, one file each, registered in [`GENERATORS`].
//!
//! Adding a generator: write `foo.rs` with a `FooParams` serde struct (`deny_unknown_fields`,
//! defaults) and `pub fn build(&FooParams) -> Result<Fabric, FabricError>`, add a `Topology::Foo`
//! variant, one line in [`GENERATORS`] and one arm in [`build`]. See docs/extending.md.

pub mod hypercube;
pub mod irregular;
pub mod kary_ntree;
pub mod mport_ntree;
pub mod size;
pub mod torus;

use super::spec;
use super::{Fabric, Topology};
use crate::error::{FabricError, SpecError};
use serde_json::Value;

/// One registered generator.
#[derive(Clone, Copy, Debug)]
pub struct GeneratorEntry {
    pub name: &'static str,
    pub summary: &'static str,
    /// Parameters with their defaults, as shown by `mcastlab list generators`.
    pub params: &'static str,
    /// Key a bare leading token fills (`torus:4x4` → `dims`).
    pub positional: Option<&'static str>,
    /// Endpoint numbering, documented per generator.
    pub endpoint_order: &'static str,
    /// Routing engine used when none is named.
    pub default_routing: &'static str,
}

/// Every generator, in the order `mcastlab list generators` shows them.
pub const GENERATORS: &[GeneratorEntry] =
    &[irregular::ENTRY, torus::TORUS_ENTRY, torus::MESH_ENTRY, mport_ntree::ENTRY, kary_ntree::ENTRY, hypercube::ENTRY];

/// The built-in default fabric: sivaram98's 32 endpoints on eight 8-port switches.
pub const DEFAULT_SPEC: &str = "irregular";

pub fn entry(name: &str) -> Option<&'static GeneratorEntry> {
    GENERATORS.iter().find(|g| g.name == name)
}

fn known() -> String {
    GENERATORS.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

/// Parses a compact spec (`torus:4x4`) into a typed [`Topology`].
pub fn parse_spec(text: &str) -> Result<Topology, FabricError> {
    let s = spec::parse(text, |n| entry(n).and_then(|e| e.positional))?;
    if entry(&s.name).is_none() {
        return Err(SpecError::Unknown { kind: "generator", name: s.name, known: known() }.into());
    }
    let mut params = s.params;
    params.insert("generator".into(), Value::String(s.name.clone()));
    Ok(spec::typed::<Topology>("generator", &s.name, &params)?)
}

/// The canonical spec string of a generated topology (all parameters, defaults filled in).
pub fn canonical_spec(t: &Topology) -> String {
    let mut v = serde_json::to_value(t).expect("topology serializes");
    let obj = v.as_object_mut().expect("topology is an object");
    // `retain` keeps the struct field order (a `remove` would swap the last field to the front).
    obj.retain(|k, _| k != "generator");
    spec::render(t.kind(), obj)
}

/// Whether two fabric names name the same fabric: equal texts, or generator specs with the same
/// canonical form (`mesh:3x3` and `mesh:dims=3x3`). A name that is no generator spec (a file's
/// free-text name) matches only itself. Parsing builds nothing.
pub fn same_fabric_name(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (parse_spec(a), parse_spec(b)) {
        (Ok(x), Ok(y)) => canonical_spec(&x) == canonical_spec(&y),
        _ => false,
    }
}

/// Builds the fabric a topology describes. Each generator checks its own parameters (naming
/// them), then `check_size` before it allocates anything.
pub fn build(t: &Topology) -> Result<Fabric, FabricError> {
    match t {
        Topology::Irregular(p) => irregular::build(p),
        Topology::Torus(p) => torus::build_torus(p),
        Topology::Mesh(p) => torus::build_mesh(p),
        Topology::MportNtree(p) => mport_ntree::build(p),
        Topology::KaryNtree(p) => kary_ntree::build(p),
        Topology::Hypercube(p) => hypercube::build(p),
        Topology::Imported { format, source } => Err(FabricError::Invalid(format!(
            "an imported fabric ({format} file {source}) cannot be regenerated; load the file"
        ))),
        Topology::Custom {} => Err(FabricError::Invalid("a custom fabric cannot be regenerated".into())),
    }
}

/// Refuses a topology whose size, computed from its parameters ([`size::size`]), exceeds
/// `fabric::limits`: the last check of every generator before it allocates.
/// (`mport_ntree:m=256,n=3` used to take 21 s and 2.6 GB before its routing refused it.)
pub(crate) fn check_size(t: &Topology) -> Result<(), FabricError> {
    match size::size(t) {
        Some(s) => s.check(&canonical_spec(t)),
        None => Ok(()),
    }
}

/// Parses and builds a spec string.
pub fn generate(text: &str) -> Result<Fabric, FabricError> {
    build(&parse_spec(text)?)
}

/// Checks `value >= min`, naming the parameter otherwise.
pub(crate) fn at_least(param: &'static str, value: u64, min: u64) -> Result<(), FabricError> {
    if value < min {
        return Err(FabricError::Param { param, message: format!("must be at least {min} (got {value})") });
    }
    Ok(())
}

/// Checks `value <= max`, naming the parameter otherwise.
pub(crate) fn at_most(param: &'static str, value: u64, max: u64, why: &str) -> Result<(), FabricError> {
    if value > max {
        return Err(FabricError::Param { param, message: format!("must be at most {max} (got {value}): {why}") });
    }
    Ok(())
}

/// Serde helper: dimensions given as `4x4`, `8`, or `[4, 4]`; serialized as a list.
pub(crate) mod dims {
    use serde::{de, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &[u32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(d.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            One(u32),
            List(Vec<u32>),
        }
        match Raw::deserialize(d)? {
            Raw::One(k) => Ok(vec![k]),
            Raw::List(v) => Ok(v),
            Raw::Text(t) => t
                .split(['x', 'X', '*'])
                .map(|p| {
                    p.trim()
                        .parse::<u32>()
                        .map_err(|_| de::Error::custom(format!("dims `{t}`: expected sizes like 4x4")))
                })
                .collect(),
        }
    }
}

/// Switches the recorded generator parameters make, from the generators' closed forms (`None`
/// for records that are not generated, or on overflow).
fn recorded_switches(t: &Topology) -> Option<u64> {
    let pow = |b: u64, e: u32| b.checked_pow(e);
    match t {
        Topology::Irregular(p) => Some(p.switches as u64),
        Topology::Torus(torus::TorusParams { dims, .. }) | Topology::Mesh(torus::MeshParams { dims }) => {
            dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        }
        Topology::Hypercube(p) => 1u64.checked_shl(p.dim),
        Topology::KaryNtree(p) => pow(p.k as u64, p.n.checked_sub(1)?)?.checked_mul(p.n as u64),
        Topology::MportNtree(p) => pow(p.m as u64 / 2, p.n.checked_sub(1)?)?.checked_mul(2 * p.n as u64 - 1),
        Topology::Imported { .. } | Topology::Custom {} => None,
    }
}

/// `Ok` if the fabric is exactly what its recorded generator parameters produce. Structure-aware
/// routing engines call this so that an edited JSON file cannot silently break their arithmetic.
pub fn matches_generated(f: &Fabric) -> Result<(), String> {
    // A record that names another switch count cannot match; saying so before building keeps a
    // few edited bytes (`"dims": [3, 3, ..., 3]`) from regenerating a million-switch fabric
    // (found by fuzzing, docs/reliability.md).
    if recorded_switches(f.topology()).is_some_and(|n| n != f.num_switches() as u64) {
        return Err(format!(
            "the fabric differs from what `{}` generates (was the file edited?)",
            canonical_spec(f.topology())
        ));
    }
    let g = build(f.topology()).map_err(|e| format!("cannot regenerate the recorded topology: {e}"))?;
    if g.num_switches() != f.num_switches() || g.num_endpoints() != f.num_endpoints() || g.links() != f.links() {
        return Err(format!(
            "the fabric differs from what `{}` generates (was the file edited?)",
            canonical_spec(f.topology())
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_switch_counts_are_what_the_generators_build() {
        for spec in [
            "torus:4x3x2",
            "mesh:5",
            "hypercube:4",
            "kary_ntree:k=3,n=3",
            "kary_ntree:k=2,n=1",
            "mport_ntree:m=4,n=3",
            "mport_ntree:m=8,n=2",
            "irregular:switches=7",
        ] {
            let t = parse_spec(spec).unwrap();
            assert_eq!(recorded_switches(&t), Some(generate(spec).unwrap().num_switches() as u64), "{spec}");
        }
    }

    /// Fuzzing regression: a 6-switch mesh whose record was edited to 13 dimensions made every
    /// structure-aware routing regenerate a 1.06M-switch mesh (over 10 s) before refusing it.
    #[test]
    fn an_edited_record_of_another_size_is_refused_without_building() {
        let f = generate("mesh:3x2").unwrap();
        let mut v = serde_json::to_value(&f).unwrap();
        v["topology"]["dims"] = serde_json::json!([3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2]);
        let edited: Fabric = serde_json::from_value(v).unwrap();
        let start = std::time::Instant::now();
        let e = matches_generated(&edited).unwrap_err();
        assert!(e.contains("differs"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(1), "{:?}", start.elapsed());
        assert!(matches_generated(&f).is_ok());
    }
}
