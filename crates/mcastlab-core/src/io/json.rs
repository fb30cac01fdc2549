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
