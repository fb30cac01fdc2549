//! Measurement: the conventions of a workload run's statistics, the observer that keeps them
//! (`meter`), and the rows it reports.
//!
//! The protocol is BookSim's (`../shared/reference/booksim.md` §2), applied to messages: a
//! warm-up whose messages are generated but not measured, then `batches` measurement batches of
//! equal length. A message is *measured* when it is created inside the measurement window, and it
//! is tracked to completion however long that takes: after the window the sources keep
//! generating (so the measured messages see the same load to the end) until every measured
//! message has finished; then generation stops and the network drains. A one-shot workload
//! (`count=N`) measures every message, from time 0 until the network is empty.
//!
//! Statistics:
//! - Latency of a message = from its creation until its *last* destination's host has the whole
//!   message (source queueing included, like BookSim's packet latency); latency of a destination
//!   = until that destination has it.
//! - 95 % confidence intervals by batch means: the mean of each batch (messages grouped by the
//!   batch they were created in) is one observation, and the half-width is t(0.975, B−1)·s/√B.
//!   Batches are long compared with a message's latency, so their means are close to independent.
//! - Accepted load = flits that entered an NI during the window, per cycle per endpoint (counted
//!   as the flit leaves the switch for the NI); generated load = flits the messages created in
//!   the window would deliver, same unit. Both are comparable with the offered `load`.
//! - Busy fractions of links, hosts and NIs over the window; a server's busy time is counted
//!   when a job starts, so a job running across the window's end counts wholly inside it.
//! - Buffer occupancy sampled ten times per batch (flits in switch input buffers).
//!
//! Saturation (load workloads), each reason reported on its own:
//! - *unstable latency* (BookSim's rule, checked at the end of every batch and ten times per batch
//!   during the drain): the mean over messages finished since measurement started plus the ages
//!   of all unfinished messages exceeds `latency_limit` — by default `latency_factor` times the
//!   zero-load latency (the mean latency of the workload's first messages, each run alone). The
//!   run stops there: latency grows without bound.
//! - *accepted below offered*: accepted load below generated load by more than `accepted_margin`
//!   plus the backlog's noise relative to the window's messages (below).
//! - *queue growth*: unfinished messages grew over the window by more than `accepted_margin` of
//!   the messages generated in it and by more than the backlog's noise: 3 standard deviations of
//!   the difference of two Poisson-like counts, 3·√(start + end + 1) messages. Few long messages
//!   in a window otherwise look saturated by chance (`meter/report.rs`, `backlog_noise`).
//!
//! The default batch (`measure.batch` unset) is BookSim's 10,000 cycles, or longer where the
//! senders together create fewer than 100 messages in it (long messages at a low rate), so that
//! a batch's statistics rest on enough messages (`windows.rs`).

mod meter;
mod rows;
mod stats;
mod windows;

pub use crate::sim::params::{Detail, Measure};
pub(crate) use meter::{After, Meter, RunInputs};
pub use rows::{DestinationRow, RunRow, SampleRow, WorkloadOutcome, WorkloadResult};
pub(crate) use stats::mean;
