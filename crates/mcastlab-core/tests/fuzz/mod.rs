//! A seeded mutation fuzzer for the parsers (why not cargo-fuzz: it needs a nightly toolchain
//! and libFuzzer, which CI does not have; see docs/reliability.md, "Fuzzing").
//!
//! Each [`Target`] has seed inputs (valid files and specs) and a `run` that parses one input and
//! checks what the parser accepted (round trips, re-validation). [`run`] mutates seeds with a
//! ChaCha stream seeded per execution, so execution `k` of a target under seed `s` is always the
//! same input, and calls `run` under `catch_unwind`. It reports:
//! - a panic (the parser or a check of what it accepted), with the input saved to a file;
//! - a property violation (`run` returned `Err`), saved likewise;
//! - a hang: an execution that takes longer than the timeout; a watchdog thread aborts the
//!   process (a stuck parser cannot be interrupted from inside), leaving the input on disk;
//! - an abort (a failed allocation): the input is on disk as well;
//! - a memory blow-up: the process's peak resident memory growing by more than
//!   [`MEMORY_JUMP`] during one execution.

pub mod mutate;
pub mod targets;
pub mod values;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

/// What one execution's parser did with its input.
pub enum Verdict {
    Accepted,
    Rejected,
}

/// Parses one input and checks what was accepted; `Err` is a violated property.
pub type RunFn = Box<dyn Fn(&[u8]) -> Result<Verdict, String> + Send + Sync>;

/// One fuzzed parser.
pub struct Target {
    pub name: &'static str,
    pub seeds: Vec<Vec<u8>>,
    /// Tokens of the format, inserted by the mutator.
    pub dict: &'static [&'static str],
    /// Also mutate inputs as JSON values.
    pub json: bool,
    pub run: RunFn,
}

/// A failure with the file holding its input.
#[derive(Debug)]
pub struct Finding {
    pub exec: u64,
    pub kind: &'static str,
    pub message: String,
    pub saved: PathBuf,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Summary {
    pub execs: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub wall: Duration,
    pub slowest: Duration,
    pub slowest_exec: u64,
    pub max_len: usize,
    pub findings: Vec<Finding>,
}

/// Growth of peak resident memory in one execution that counts as a blow-up. The largest seed
/// fabric needs a few MiB; a parser that allocates from a number in its input without a bound
/// jumps by far more.
pub const MEMORY_JUMP: u64 = 512 << 20;

thread_local! {
    /// The message of the last panic on this thread (the hook records it instead of printing, so a
    /// million executions do not flood the log).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let loc = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{loc}")));
        }));
    });
}

/// Peak resident memory of this process in bytes (`VmHWM`), 0 where /proc is missing.
fn peak_rss() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb << 10)
}

/// Where failing inputs go: `$FUZZ_OUT`, or `target/fuzz-findings` of the workspace.
pub fn out_dir() -> PathBuf {
    std::env::var_os("FUZZ_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/fuzz-findings")))
}

fn save(target: &str, seed: u64, exec: u64, input: &[u8]) -> PathBuf {
    let dir = out_dir();
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{target}-s{seed}-e{exec}.bin"));
    let _ = std::fs::write(&path, input);
    path
}

/// The input of execution `exec`: a seed (unmutated for the first executions, so every seed is
/// checked as given), then 1–4 mutations of a seed or of a seed already mutated once.
pub fn input_of(t: &Target, seed: u64, exec: u64) -> Vec<u8> {
    if (exec as usize) < t.seeds.len() {
        return t.seeds[exec as usize].clone();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ exec.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let base = &t.seeds[rng.random_range(0..t.seeds.len())];
    let once = mutate::mutate(&mut rng, base, t.dict, &t.seeds, t.json);
    if rng.random_bool(0.3) {
        mutate::mutate(&mut rng, &once, t.dict, &t.seeds, t.json)
    } else {
        once
    }
}

/// Runs `execs` executions of `t` from `seed`; an execution over `timeout` aborts the process
/// after saving its input.
pub fn run(t: &Target, seed: u64, execs: u64, timeout: Duration) -> Summary {
    quiet_panics();
    // The input under test is also in a file, so an execution that aborts the process (a failed
    // allocation) or hangs leaves it behind. The file is in memory (/dev/shm) where there is one:
    // rewriting it on disk for every execution cost 3 ms, thirty times the parsing.
    let scratch = ["/dev/shm"].iter().map(PathBuf::from).find(|d| d.is_dir()).unwrap_or_else(std::env::temp_dir);
    let current = scratch.join(format!("mcastlab-fuzz-{}-{}.bin", std::process::id(), t.name));
    let started_ms = Arc::new(AtomicU64::new(u64::MAX));
    let done = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let watchdog = {
        let (started_ms, done, name, current) = (started_ms.clone(), done.clone(), t.name, current.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let s = started_ms.load(Ordering::Relaxed);
                if s != u64::MAX && t0.elapsed().as_millis() as u64 > s + timeout.as_millis() as u64 {
                    eprintln!(
                        "fuzz {name}: HANG: an execution ran over {timeout:?}; its input is {}",
                        current.display()
                    );
                    std::process::abort();
                }
            }
        })
    };
    let trace = std::env::var_os("FUZZ_TRACE").is_some();
    let mut sum = Summary::default();
    let mut peak = peak_rss();
    let mut slowest_input = Vec::new();
    for exec in 0..execs {
        let input = input_of(t, seed, exec);
        sum.max_len = sum.max_len.max(input.len());
        if trace {
            eprintln!("fuzz {}: execution {exec} ({} bytes)", t.name, input.len());
        }
        let _ = std::fs::write(&current, &input);
        let start = Instant::now();
        started_ms.store(t0.elapsed().as_millis() as u64, Ordering::Relaxed);
        let result = catch_unwind(AssertUnwindSafe(|| (t.run)(&input)));
        started_ms.store(u64::MAX, Ordering::Relaxed);
        let took = start.elapsed();
        if took > sum.slowest {
            sum.slowest = took;
            sum.slowest_exec = exec;
            slowest_input.clone_from(&input);
        }
        sum.execs += 1;
        let mut finding = |kind, message| {
            let saved = save(t.name, seed, exec, &input);
            sum.findings.push(Finding { exec, kind, message, saved });
        };
        match result {
            Ok(Ok(Verdict::Accepted)) => sum.accepted += 1,
            Ok(Ok(Verdict::Rejected)) => sum.rejected += 1,
            Ok(Err(m)) => finding("property", m),
            Err(_) => {
                let m = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
                finding("panic", m)
            }
        }
        let now = peak_rss();
        if now > peak + MEMORY_JUMP {
            finding("memory", format!("peak resident memory grew by {} MiB", (now - peak) >> 20));
        }
        peak = peak.max(now);
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    let _ = std::fs::remove_file(&current);
    if std::env::var_os("FUZZ_SAVE_SLOWEST").is_some() {
        save(t.name, seed, sum.slowest_exec, &slowest_input);
    }
    sum.wall = t0.elapsed();
    sum
}

/// One line per run, the first findings after it.
pub fn report(name: &str, seed: u64, s: &Summary) -> String {
    let mut out = format!(
        "fuzz {name}: seed {seed}: {} executions ({} accepted, {} rejected) in {:.1} s; slowest {:.1} ms (execution {}); largest input {} bytes; {} findings",
        s.execs,
        s.accepted,
        s.rejected,
        s.wall.as_secs_f64(),
        s.slowest.as_secs_f64() * 1e3,
        s.slowest_exec,
        s.max_len,
        s.findings.len()
    );
    for f in s.findings.iter().take(10) {
        out.push_str(&format!("\n  {} at execution {}: {} (input: {})", f.kind, f.exec, f.message, f.saved.display()));
    }
    out
}
