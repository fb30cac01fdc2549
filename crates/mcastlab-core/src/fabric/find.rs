//! Resolving what a user typed (an index, a name, a GUID or an ibnetdiscover description) to an
//! endpoint or a switch.

use super::Fabric;
use crate::error::FabricError;
use crate::ids::{EndpointId, SwitchId};

impl Fabric {
    /// What is wrong with an endpoint index past the last: the valid indices, written out (a
    /// Rust range `0..9` read as including 9).
    pub fn endpoint_index_range(&self) -> String {
        match self.num_endpoints() {
            0 => "index out of range: the fabric has no endpoint".to_string(),
            n => format!("index out of range: the endpoints are 0 to {}", n - 1),
        }
    }

    pub fn endpoint_by_name(&self, name: &str) -> Option<EndpointId> {
        self.name_to_endpoint.get(name).copied()
    }
    pub fn switch_by_name(&self, name: &str) -> Option<SwitchId> {
        self.name_to_switch.get(name).copied()
    }

    /// Resolves a user's endpoint reference: an index `0..N-1`, a name (`P(200)`, `e5`,
    /// `H-<guid>`), a GUID (`0x...`, node or port GUID), or a unique ibnetdiscover description.
    pub fn find_endpoint(&self, key: &str) -> Result<EndpointId, FabricError> {
        let raw = key;
        let key = key.trim();
        if key.starts_with("lid:") || key.contains("::") {
            return match crate::mcast::select::Selector::new(self).resolve(key) {
                Ok(crate::mcast::select::Member::Port(e)) => Ok(e),
                Ok(crate::mcast::select::Member::Switch(s)) => Err(FabricError::UnknownEndpoint(format!(
                    "{key} (the LID of switch {}, not of an endpoint)",
                    self.switch(s).name
                ))),
                Err(m) => Err(FabricError::UnknownEndpoint(m)),
            };
        }
        let key = key.strip_prefix("index:").unwrap_or(key);
        if let Ok(i) = key.parse::<u32>() {
            // On a fabric with LIDs a bare number could be either; picking the index silently
            // would name another port than the one the user's IB tools call `33`.
            let has_lids = self.data.endpoints.iter().any(|e| e.ib.as_ref().is_some_and(|ib| ib.lid.is_some()));
            if has_lids && !raw.trim().starts_with("index:") {
                return Err(FabricError::UnknownEndpoint(format!(
                    "{key} (ambiguous on an InfiniBand fabric with LIDs: write lid:{key} or index:{key})"
                )));
            }
            if (i as usize) < self.num_endpoints() {
                return Ok(EndpointId(i));
            }
            return Err(FabricError::UnknownEndpoint(format!("{key} ({})", self.endpoint_index_range())));
        }
        if let Some(e) = self.endpoint_by_name(key) {
            return Ok(e);
        }
        let guid = key.trim_start_matches("0x").trim_start_matches("0X").to_ascii_lowercase();
        let guid = guid.trim_start_matches('0');
        let mut hits: Vec<EndpointId> = Vec::new();
        for (i, e) in self.data.endpoints.iter().enumerate() {
            if let Some(ib) = &e.ib {
                let m = |g: &Option<String>| g.as_deref().map(|g| g.trim_start_matches('0') == guid).unwrap_or(false);
                if (!guid.is_empty() && (m(&ib.port_guid) || m(&ib.node_guid))) || ib.desc.as_deref() == Some(key) {
                    hits.push(EndpointId(i as u32));
                }
            }
        }
        match hits.len() {
            1 => Ok(hits[0]),
            0 => Err(FabricError::UnknownEndpoint(key.to_string())),
            n => Err(FabricError::UnknownEndpoint(format!(
                "{key} (ambiguous: {n} endpoints match, e.g. {} and {})",
                self.endpoint(hits[0]).name,
                self.endpoint(hits[1]).name
            ))),
        }
    }

    /// How a spec names switch `s` so that it reads back as `s` ([`Fabric::find_switch`] through
    /// the spec parser): its name where that round-trips and contains none of `avoid` (a
    /// separator of the value, such as `+` between updn's roots), else its index.
    pub fn switch_spec_ref(&self, s: SwitchId, avoid: &[char]) -> String {
        let name = &self.switch(s).name;
        let reads_back = super::spec::parse(&format!("x:k={name}"), |_| None)
            .is_ok_and(|p| p.params.get("k") == Some(&serde_json::Value::String(name.clone())));
        if reads_back && !name.contains(avoid) && self.find_switch(name).is_ok_and(|t| t == s) {
            name.clone()
        } else {
            s.0.to_string()
        }
    }

    /// Resolves a switch reference: an index, a name or a GUID.
    pub fn find_switch(&self, key: &str) -> Result<SwitchId, FabricError> {
        let key = key.trim();
        if let Ok(i) = key.parse::<u32>() {
            if (i as usize) < self.num_switches() {
                return Ok(SwitchId(i));
            }
        }
        if let Some(s) = self.switch_by_name(key) {
            return Ok(s);
        }
        let guid = key.trim_start_matches("0x").to_ascii_lowercase();
        let guid = guid.trim_start_matches('0');
        let mut by_desc = Vec::new();
        for (i, s) in self.data.switches.iter().enumerate() {
            if let Some(ib) = &s.ib {
                if let Some(g) = ib.node_guid.as_deref() {
                    if !guid.is_empty() && g.trim_start_matches('0') == guid {
                        return Ok(SwitchId(i as u32));
                    }
                }
                if ib.desc.as_deref() == Some(key) {
                    by_desc.push(SwitchId(i as u32));
                }
            }
        }
        match by_desc.len() {
            1 => Ok(by_desc[0]),
            0 => Err(FabricError::UnknownSwitch(key.to_string())),
            n => Err(FabricError::UnknownSwitch(format!("{key} (ambiguous: {n} switches have this description)"))),
        }
    }
}
