//! ibnetdiscover topology files (to be completed).

use crate::error::FabricError;
use crate::fabric::Fabric;

pub fn parse(_text: &str, file: &str) -> Result<Fabric, FabricError> {
    Err(FabricError::File { file: file.into(), message: "ibnetdiscover import not implemented yet".into() })
}

pub fn export(f: &Fabric) -> String {
    format!("# {} (ibnetdiscover export not implemented yet)\n", f.name())
}
