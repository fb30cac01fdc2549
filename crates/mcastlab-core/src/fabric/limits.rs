//! How large a fabric mcastlab builds: one limit on its parts and one on its switch ports,
//! checked from a generator's parameters before anything is allocated ([`Size`], computed by
//! `generators::size`) and again by [`crate::fabric::Fabric::new`] for fabrics read from files.
//!
//! Why these numbers: a fabric costs about 200 bytes per part (switch, endpoint or link, with
//! its name and indexes; `torus:1024x1024`, 5.2M parts, takes 1.1 GB and is the largest fabric
//! docs/performance.md benchmarks), and per switch port the lookup tables and the routing's
//! per-port state. Past these limits a fabric would take gigabytes before any question about it
//! could be answered, so it is refused with its computed size instead.

use crate::error::FabricError;

/// Most switches + endpoints + links a fabric may have (8,388,608).
pub const MAX_PARTS: u64 = 1 << 23;
/// Most switch ports a fabric may have, summed over its switches (16,777,216).
pub const MAX_SWITCH_PORTS: u64 = 1 << 24;

/// The size of a fabric, computed (for generators, from their parameters) or counted. Values
/// saturate rather than overflow, so an absurd parameter still yields a size to refuse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub switches: u64,
    pub endpoints: u64,
    pub links: u64,
    pub switch_ports: u64,
}

impl Size {
    pub fn parts(&self) -> u64 {
        self.switches.saturating_add(self.endpoints).saturating_add(self.links)
    }

    /// Refuses a size past [`MAX_PARTS`] or [`MAX_SWITCH_PORTS`], naming `what` (a spec or a
    /// file) and the computed counts.
    pub fn check(&self, what: &str) -> Result<(), FabricError> {
        let counts = format!(
            "{} switches, {} endpoints, {} links, {} switch ports",
            self.switches, self.endpoints, self.links, self.switch_ports
        );
        if self.parts() > MAX_PARTS {
            return Err(FabricError::TooLarge {
                what: what.to_string(),
                message: format!(
                    "{counts}: {} parts exceed the limit of {MAX_PARTS} switches + endpoints + links",
                    self.parts()
                ),
            });
        }
        if self.switch_ports > MAX_SWITCH_PORTS {
            return Err(FabricError::TooLarge {
                what: what.to_string(),
                message: format!("{counts}: exceeds the limit of {MAX_SWITCH_PORTS} switch ports"),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_past_either_limit_is_refused_with_its_counts() {
        let ok = Size { switches: 1 << 20, endpoints: 1 << 20, links: 3 << 20, switch_ports: 5 << 20 };
        assert!(ok.check("torus:1024x1024").is_ok());
        let parts = Size { links: MAX_PARTS, ..ok };
        let e = parts.check("x").unwrap_err().to_string();
        assert!(e.contains("exceed the limit of 8388608") && e.contains("1048576 switches"), "{e}");
        let ports = Size { switch_ports: MAX_SWITCH_PORTS + 1, ..ok };
        assert!(ports.check("x").unwrap_err().to_string().contains("16777216 switch ports"));
        let huge = Size { switches: u64::MAX, endpoints: u64::MAX, links: 1, switch_ports: 0 };
        assert_eq!(huge.parts(), u64::MAX, "saturates instead of overflowing");
    }
}
