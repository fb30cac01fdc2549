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

/// Parses fabric text of either format; `name` is used in error messages. A leading byte-order
/// mark (which Windows editors write) is skipped: left in, it hid a JSON file's `{`, and the file
/// was then read, and refused, as ibnetdiscover text. Blank text is refused as an empty file.
pub fn load_str(text: &str, name: &str) -> Result<Fabric, FabricError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(FabricError::File { file: name.to_string(), message: "empty file (no fabric in it)".into() });
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::generators::generate;

    /// Whether two fabrics have the same text in both formats (a stand-in for equality).
    fn same(a: &Fabric, b: &Fabric) -> bool {
        json::to_string(a) == json::to_string(b)
    }

    #[test]
    fn a_byte_order_mark_before_either_format_is_skipped() {
        let f = generate("mesh:3x3").unwrap();
        let js = json::to_string(&f);
        let from_bom = load_str(&format!("\u{feff}{js}"), "f.json").unwrap();
        assert!(same(&from_bom, &load_str(&js, "f.json").unwrap()));
        let ib = ibnetdiscover::export(&f).unwrap();
        let from_bom = load_str(&format!("\u{feff}{ib}"), "f.topo").unwrap();
        assert!(same(&from_bom, &load_str(&ib, "f.topo").unwrap()));
    }

    #[test]
    fn blank_text_is_refused_as_an_empty_file_naming_it() {
        for text in ["", "  \n\t\n", "\u{feff}", "\u{feff}\n"] {
            match load_str(text, "e.json") {
                Err(FabricError::File { file, message }) => {
                    assert_eq!(file, "e.json");
                    assert!(message.starts_with("empty file"), "{message}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }
}
