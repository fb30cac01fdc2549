//! Fuzzing every parser with seeded mutations of valid inputs (the harness is `tests/fuzz/`; what
//! is fuzzed and why is in docs/reliability.md, "Fuzzing").
//!
//! The short runs below are part of `cargo test`: a few thousand executions per parser, so CI keeps
//! exercising every parser and every property on fresh mutations. The long run is ignored by
//! default and is the documented rerun (100,000 executions per parser, eleven parsers):
//!
//! ```text
//! nice -n 10 cargo test --release -p mcastlab-core --test fuzz_parsers -- --ignored --nocapture --test-threads=1
//! ```
//!
//! Environment: `FUZZ_EXECS` (executions per parser), `FUZZ_TARGETS` (comma-separated names),
//! `FUZZ_SEED`, `FUZZ_TIMEOUT_MS` (an execution slower than this is a hang), `FUZZ_OUT` (where
//! failing inputs are saved), `FUZZ_TRACE` (print every execution), `FUZZ_SAVE_SLOWEST` (save each target's slowest input). A saved input replays with
//! `FUZZ_INPUT=<file> FUZZ_TARGETS=<name> cargo test ... -- --ignored replay --nocapture`.

mod fuzz;

use fuzz::targets::{by_name, NAMES};
use fuzz::{report, run, Verdict};
use std::time::Duration;

fn env_u64(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// Fuzzes one parser and fails with the findings, each with its saved input.
fn fuzz(name: &str, seed: u64, execs: u64, timeout: Duration) {
    let t = by_name(name);
    let s = run(&t, seed, execs, timeout);
    let line = report(name, seed, &s);
    println!("{line}");
    assert_eq!(s.execs, execs);
    assert!(s.findings.is_empty(), "{line}");
}

/// Every seed is accepted as given: a seed the parser refuses would make the fuzzer mutate
/// rejected input only and never reach the properties of accepted input.
fn seeds_accepted(name: &str) {
    let t = by_name(name);
    assert!(!t.seeds.is_empty(), "{name}: no seeds");
    for (i, s) in t.seeds.iter().enumerate() {
        match (t.run)(s) {
            Ok(Verdict::Accepted) => {}
            Ok(Verdict::Rejected) => panic!("{name}: seed {i} rejected: {}", String::from_utf8_lossy(s)),
            Err(e) => panic!("{name}: seed {i}: {e}"),
        }
    }
}

/// Executions per parser in `cargo test` (debug build): a few seconds each.
const SHORT: u64 = 3_000;

macro_rules! short {
    ($($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            seeds_accepted($name);
            fuzz($name, env_u64("FUZZ_SEED", 7), env_u64("FUZZ_SHORT_EXECS", SHORT), Duration::from_secs(60));
        }
    )*
        /// The targets the short runs cover, to compare with the registry.
        const SHORT_NAMES: &[&str] = &[$($name),*];
    };
}

short! {
    short_ibnetdiscover => "ibnetdiscover",
    short_json => "json",
    short_plan => "plan",
    short_mft => "mft",
    short_spec => "spec",
    short_fabric_spec => "fabric_spec",
    short_routing_spec => "routing_spec",
    short_scheme_spec => "scheme_spec",
    short_params => "params",
    short_workload => "workload",
    short_units => "units",
}

#[test]
fn every_target_has_a_short_run() {
    // The macro above lists the targets by hand; a target added to the registry needs a line there.
    assert_eq!(SHORT_NAMES, NAMES);
}

/// Replays one saved input (`FUZZ_INPUT=path FUZZ_TARGETS=name`), printing what the target did;
/// a panic or violated property fails the test with its message.
#[test]
#[ignore]
fn replay() {
    let path = std::env::var("FUZZ_INPUT").expect("FUZZ_INPUT=<saved input>");
    let t = by_name(std::env::var("FUZZ_TARGETS").expect("FUZZ_TARGETS=<one target>").trim());
    let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = std::time::Instant::now();
    match (t.run)(&input) {
        Ok(Verdict::Accepted) => println!("{path}: accepted in {:?}", start.elapsed()),
        Ok(Verdict::Rejected) => println!("{path}: rejected in {:?}", start.elapsed()),
        Err(e) => panic!("{path}: {e}"),
    }
}

/// The million-execution run (see the module doc for the command).
#[test]
#[ignore]
fn long_fuzz() {
    let execs = env_u64("FUZZ_EXECS", 100_000);
    let seed = env_u64("FUZZ_SEED", 1);
    let timeout = Duration::from_millis(env_u64("FUZZ_TIMEOUT_MS", 10_000));
    let targets = std::env::var("FUZZ_TARGETS").unwrap_or_else(|_| NAMES.join(","));
    let mut failed = Vec::new();
    let mut total = 0;
    let t0 = std::time::Instant::now();
    for name in targets.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = run(&by_name(name), seed, execs, timeout);
        let line = report(name, seed, &s);
        println!("{line}");
        total += s.execs;
        if !s.findings.is_empty() {
            failed.push(line);
        }
    }
    println!("fuzz total: {total} executions in {:.1} s", t0.elapsed().as_secs_f64());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
