//! Human-readable terminals and channels, for messages and reports.

use super::{Channel, Endpoint, Fabric, Switch, Terminal};

pub(super) fn term_str(t: &Terminal, sw: &[Switch], ep: &[Endpoint]) -> String {
    match *t {
        Terminal::Switch { switch, port } => match sw.get(switch.idx()) {
            Some(s) => format!("{}[{}]", s.name, port.0),
            None => format!("switch #{}[{}]", switch.0, port.0),
        },
        Terminal::Endpoint { endpoint } => match ep.get(endpoint.idx()) {
            Some(e) => e.name.clone(),
            None => format!("endpoint #{}", endpoint.0),
        },
    }
}

impl Fabric {
    /// Human-readable channel: `SW<00,2>[3] -> SW<00,1>[1]`.
    pub fn channel_str(&self, c: Channel) -> String {
        let (a, b) = self.channel_ends(c);
        format!("{} -> {}", self.terminal_str(&a), self.terminal_str(&b))
    }
    pub fn terminal_str(&self, t: &Terminal) -> String {
        term_str(t, &self.data.switches, &self.data.endpoints)
    }
}
