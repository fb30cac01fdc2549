//! Reading and writing fabrics: mcastlab JSON (the native, versioned format), ibnetdiscover
//! topology dumps, and Graphviz DOT; reading plan files (`plan_json`).

pub mod dot;
pub mod ibnetdiscover;
pub mod json;
pub mod lft_dump;
pub mod lids;
pub mod mft_dump;
pub mod plan_json;

use crate::error::FabricError;
use crate::fabric::Fabric;
use std::path::Path;

/// Loads a fabric file, telling JSON (first non-blank character `{`) from ibnetdiscover text.
pub fn load(path: &Path) -> Result<Fabric, FabricError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| FabricError::File { file: name.clone(), message: e.to_string() })?;
    let text = String::from_utf8(bytes)
        .map_err(|e| FabricError::File { file: name.clone(), message: format!("not UTF-8 text ({e})") })?;
    load_str(&text, &name)
}

/// Parses fabric text of either format; `name` is used in error messages.
pub fn load_str(text: &str, name: &str) -> Result<Fabric, FabricError> {
    if text.trim_start().starts_with('{') {
        json::from_str(text, name)
    } else {
        ibnetdiscover::parse(text, name)
    }
}

/// Saves a fabric; the format follows the extension (`.json`, `.dot`/`.gv`, `.topo`/`.ibnd`/`.txt`).
pub fn save(f: &Fabric, path: &Path) -> Result<(), FabricError> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let text = match ext.as_str() {
        "json" => json::to_string(f),
        "dot" | "gv" => dot::to_dot(f),
        "topo" | "ibnd" | "txt" | "ibnetdiscover" => ibnetdiscover::export(f)?,
        other => {
            return Err(FabricError::File {
                file: name,
                message: format!("unknown extension `.{other}` (use .json, .dot or .topo)"),
            })
        }
    };
    std::fs::write(path, text).map_err(|e| FabricError::File { file: name, message: e.to_string() })
}
