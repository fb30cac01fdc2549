//! The native JSON format (schema `mcastlab-fabric`, version 1; see docs/formats.md). Output is
//! deterministic (vectors in id order, no maps with random order), so the same fabric always
//! serializes to the same bytes and a load–save round trip is exact.

use crate::error::FabricError;
use crate::fabric::Fabric;

/// Pretty-printed JSON with a trailing newline.
pub fn to_string(f: &Fabric) -> String {
    let mut s = serde_json::to_string_pretty(f).expect("fabric serializes");
    s.push('\n');
    s
}

/// Parses and validates a JSON fabric; errors name the file, line and what was wrong.
pub fn from_str(text: &str, file: &str) -> Result<Fabric, FabricError> {
    serde_json::from_str::<Fabric>(text).map_err(|e| {
        if e.line() > 0 && !e.is_data() {
            FabricError::Parse { file: file.to_string(), line: e.line(), message: e.to_string() }
        } else {
            // Validation failures come through serde's try_from as data errors.
            let msg = e.to_string();
            let msg = match msg.rfind(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            FabricError::File { file: file.to_string(), message: msg }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::from_str;

    /// Two switches joined by `link` plus one endpoint per switch, named `e0` and `e1name`.
    fn fabric(e1name: &str, link: &str) -> String {
        format!(
            r#"{{"format": "mcastlab-fabric", "version": 1, "name": "two", "topology": {{"generator": "custom"}},
            "switches": [{{"name": "s0", "ports": 4}}, {{"name": "s1", "ports": 4}}],
            "endpoints": [{{"name": "e0"}}, {{"name": "{e1name}"}}],
            "links": [{{"a": {{"switch": 0, "port": 1}}, "b": {{"endpoint": 0}}}},
                      {{"a": {{"switch": 1, "port": 1}}, "b": {{"endpoint": 1}}}},
                      {{"a": {{"switch": 0, "port": 2}}, "b": {{"switch": 1, "port": 2}}}}{link}]}}"#
        )
    }

    /// An endpoint named like an index (or a LID selector) was hidden behind what the name reads
    /// as: refused, naming the file and the endpoint.
    #[test]
    fn endpoints_named_as_indices_are_refused() {
        assert!(from_str(&fabric("e1", ""), "f.json").is_ok());
        for (name, why) in [
            ("3", "reads as an endpoint index"),
            ("0", "reads as an endpoint index"),
            ("index:7", "reads as an endpoint index"),
            ("lid:4", "reads as a LID selector"),
            (" e1", "loses its surrounding spaces"),
        ] {
            let e = from_str(&fabric(name, ""), "f.json").unwrap_err().to_string();
            assert!(
                e.starts_with("f.json: ") && e.contains(&format!("endpoint #1 is named `{name}`, which {why}")),
                "{e}"
            );
        }
        // Two ports of one switch cabled together stay accepted: real fabrics have such loopback
        // cables (the reference dump jabl-ibtopotool/3.topo does), and an import must round-trip.
        let loopback = r#", {"a": {"switch": 1, "port": 3}, "b": {"switch": 1, "port": 4}}"#;
        assert!(from_str(&fabric("e1", loopback), "f.json").is_ok());
    }
}
