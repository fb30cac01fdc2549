//! The discrete-event simulator: timed, contended execution of a [`crate::plan::Plan`], or of a
//! [`Workload`] of many messages created over time.
//!
//! A run replays each transmission's carrier along the replication tree the plan walker decodes
//! (so every header is decoded exactly as the checker decodes it) and gives it time: host and NI
//! overheads, the I/O bus, packetization into MTU packets and flits, links with serialization
//! and propagation, input-buffered switches with per-VC FIFOs, credit-based flow control,
//! routing delay, output arbitration, wormhole, virtual cut-through and store-and-forward
//! switching, and replication with independent branches; Quadrics range multicasts take all
//! their output VCs at once, and circuits may be held until a combined acknowledgement returns
//! (coll03 §2–§3).
//!
//! Time is integer picoseconds; events are ordered by `(time, rank)`, the rank fixing the order of
//! simultaneous events from the model's state alone (`queue.rs`); one [`Simulation`] owns all its
//! state; a run is single-threaded and deterministic (no random numbers are drawn for a plan run,
//! and nothing iterates a hash map). A flit-by-flit reference model in the tests
//! (`tests/reference_model/`) checks the engine flit by flit. One file per concern:
//!
//! | file | what |
//! |---|---|
//! | `units.rs` | times, rates and sizes with units, parsed exactly |
//! | `params.rs` | [`Params`], the papers' presets, `key=value` overrides, validation |
//! | `queue.rs` | the event queue |
//! | `trees.rs` | the walker's replication trees as index arrays |
//! | `link.rs` | output ports: serialization, VCs, credits, arbitration |
//! | `train.rs` | packet trains: the network at packet granularity, exact where packets stream |
//! | `granularity.rs` | `switch.granularity`: flits or trains for a run, and the fallback to flits |
//! | `switch.rs` | input buffers, routing, replication |
//! | `gang.rs` | Quadrics range multicasts: all output VCs at once, serialized on overlap |
//! | `circuit.rs` | circuits held until the combined acknowledgement (`switch.circuit_until_ack`) |
//! | `iq/` | the input-queued VC router (`switch.router = iq`): cycle-stepped RC, VA, SA, ST |
//! | `endpoint.rs` | host, NI and DMA servers; send order and triggers |
//! | `engine.rs` | [`Simulation`], the run loop, budgets, [`run_plan`] |
//! | `watchdog.rs` | deadlock diagnosis |
//! | `result.rs` | [`RunResult`] |
//! | `message.rs` | messages as instances of plan templates, so one run carries many |
//! | `workload.rs` | [`Workload`]: who sends what to whom, and when |
//! | `measure.rs` | warm-up and measurement windows, statistics, [`RunRow`] and sample rows |
//! | `run.rs` | [`run_workload`] and [`sweep`] |

mod engine;
mod ids;
pub mod measure;
mod net;
mod ni;
pub mod params;
mod queue;
mod refs;
mod result;
mod run;
mod slab;
mod trees;
pub mod units;
pub mod workload;

pub use engine::{run_plan, Simulation};
pub use measure::{DestinationRow, RunRow, SampleRow, WorkloadOutcome, WorkloadResult};
pub use ni::protocol::{ProtocolEntry, PROTOCOLS};
pub use params::{
    Allocator, Detail, Granularity, Measure, NiSend, Params, Router, Switching, KEYS, MEASURE_KEYS, PRESETS,
};
pub use result::{DestinationResult, Diagnosis, EndpointResult, FlitRecord, LinkResult, Outcome, RunResult};
pub use run::{run_workload, run_workload_with, sweep, sweep_with, Progress};
pub use units::{Rate, Time};
pub use workload::{Inject, Load, Process, Traffic, Workload, WORKLOADS};
