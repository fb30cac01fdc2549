//! What the endpoints count for results: deliveries, packets, and oral's host metrics (CPU load
//! with polling, startup, transfers in flight), kept as the events happen so a result is a read.

/// Per-endpoint counts of what happened, for results.
#[derive(Clone, Debug, Default)]
pub(crate) struct EndpointStats {
    /// When each host first had a whole message, and how many it had.
    pub first_delivery: Vec<Option<u64>>,
    pub deliveries: Vec<u32>,
    /// Packets each NI received.
    pub packets_at: Vec<u32>,
    /// Packet copies the NIs sent and received.
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Messages started.
    pub messages: u64,
    /// When an NI last sent or took a packet copy (the endpoints' own deadlock watchdog).
    pub last_progress: u64,
    /// oral §4.2–§4.5, timed. Per endpoint: when its host last finished a send, and when a copy it
    /// sent was last taken by its receiver (its host polls for completion in between).
    pub host_send_end: Vec<Option<u64>>,
    pub own_taken: Vec<u64>,
    /// The first message's startup: from its creation until the source has sent the first packet
    /// of every transmission it starts.
    pub startup: Option<u64>,
    /// Transfers (one transmission of one message) in flight now, the most held up to
    /// `concurrency_at`, and their integral over time (ps) up to then.
    pub transfers: u32,
    pub transfers_max: u32,
    pub transfers_integral: u128,
    pub concurrency_at: u64,
}

impl EndpointStats {
    /// The transfer count goes up or down by one at `now`. The most in flight is taken over the
    /// counts held for a positive time, so the order of simultaneous starts and ends (which the
    /// flit engine and packet trains may take differently) does not matter.
    pub(super) fn transfers_change(&mut self, now: u64, up: bool) {
        if now > self.concurrency_at {
            self.transfers_max = self.transfers_max.max(self.transfers);
            self.transfers_integral += self.transfers as u128 * (now - self.concurrency_at) as u128;
            self.concurrency_at = now;
        }
        if up {
            self.transfers += 1;
        } else {
            self.transfers -= 1;
        }
    }

    /// Most transfers in flight at once up to `until`.
    pub(crate) fn concurrency_max(&self, until: u64) -> u32 {
        let open = if until > self.concurrency_at { self.transfers } else { 0 };
        self.transfers_max.max(open)
    }

    /// Host busy time plus polling of endpoint `e`: from its last host send until the last copy
    /// it sent was taken (oral's CPU load, with polling notification).
    pub(crate) fn poll_ps(&self, e: usize) -> u64 {
        self.host_send_end[e].map_or(0, |end| self.own_taken[e].saturating_sub(end))
    }

    /// Mean number of transfers in flight over `[0, until]`.
    pub(crate) fn concurrency_mean(&self, until: u64) -> f64 {
        if until == 0 {
            return 0.0;
        }
        let rest = self.transfers as u128 * until.saturating_sub(self.concurrency_at) as u128;
        (self.transfers_integral + rest) as f64 / until as f64
    }
}
