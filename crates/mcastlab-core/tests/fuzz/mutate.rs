//! Byte- and JSON-level mutations of seed inputs. Deterministic: every mutation draws from the
//! ChaCha stream the runner seeds per execution, so `(target, seed, execution)` names one input.
//!
//! Why these mutations: the parsers are line- and token-oriented, so the bugs worth finding sit at
//! token boundaries (a number that overflows, a quote or bracket cut off, a line repeated past a
//! table's size) rather than in random noise. Byte flips and random bytes cover the noise; the
//! number, token, line and splice mutations reach the boundaries. JSON inputs are also mutated as
//! values (a field replaced, dropped or duplicated) so the result still gets past serde's syntax
//! check and into the validation behind it.

use rand::seq::IndexedRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

/// Inputs never grow past this: the parsers must be bounded in time for bounded input, and the
/// fuzzer must be too.
pub const MAX_LEN: usize = 128 << 10;

/// Numbers at the edges of every integer and float type a parser might read into.
pub const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "256",
    "65535",
    "65536",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "99999999999999999999999999999999999999999",
    "1e308",
    "1e309",
    "-1e308",
    "1e-308",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "-0",
    "0.5",
    "0x0",
    "0xffffffffffffffff",
    "0x10000000000000000",
    "0xC000",
    "0xFFFF",
    "49151",
    "",
];

/// Bytes that end or open tokens in every format fuzzed here.
const STRUCTURAL: &[u8] = b"\"[](){}#:,=\n \t-.x0\\/@";

/// A JSON scalar at the edge of what a field might hold.
fn json_extreme(rng: &mut ChaCha8Rng) -> Value {
    match rng.random_range(0..12) {
        0 => Value::from(0),
        1 => Value::from(-1),
        2 => Value::from(u32::MAX),
        3 => Value::from(u32::MAX as u64 + 1),
        4 => Value::from(u64::MAX),
        5 => Value::from(i64::MIN),
        6 => Value::from(1e308),
        7 => Value::from(0.5),
        8 => Value::Null,
        9 => Value::String(EXTREMES.choose(rng).unwrap().to_string()),
        10 => Value::Bool(rng.random()),
        _ => Value::Array(vec![]),
    }
}

/// Applies 1–4 random mutations; `dict` holds tokens of the format, `seeds` donate splices.
pub fn mutate(rng: &mut ChaCha8Rng, input: &[u8], dict: &[&str], seeds: &[Vec<u8>], json: bool) -> Vec<u8> {
    let mut out = input.to_vec();
    if json && rng.random_bool(0.5) {
        if let Ok(mut v) = serde_json::from_slice::<Value>(&out) {
            for _ in 0..rng.random_range(1..=3) {
                mutate_value(rng, &mut v, dict);
            }
            out = serde_json::to_vec(&v).unwrap_or(out);
            if rng.random_bool(0.7) && out.len() <= MAX_LEN {
                return out;
            }
        }
    }
    for _ in 0..rng.random_range(1..=4) {
        mutate_bytes(rng, &mut out, dict, seeds);
    }
    out.truncate(MAX_LEN);
    out
}

/// One byte-level mutation.
fn mutate_bytes(rng: &mut ChaCha8Rng, b: &mut Vec<u8>, dict: &[&str], seeds: &[Vec<u8>]) {
    let len = b.len();
    let at = |rng: &mut ChaCha8Rng| if len == 0 { 0 } else { rng.random_range(0..=len) };
    match rng.random_range(0..12) {
        0 if len > 0 => {
            let i = rng.random_range(0..len);
            b[i] ^= 1 << rng.random_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.random_range(0..len);
            b[i] = if rng.random_bool(0.5) { *STRUCTURAL.choose(rng).unwrap() } else { rng.random() };
        }
        2 => {
            let i = at(rng);
            let n = rng.random_range(1..=8);
            let bytes: Vec<u8> = (0..n).map(|_| *STRUCTURAL.choose(rng).unwrap()).collect();
            b.splice(i..i, bytes);
        }
        3 if len > 0 => {
            let i = rng.random_range(0..len);
            let n = rng.random_range(1..=(len - i).min(64));
            b.drain(i..i + n);
        }
        4 => {
            let i = at(rng);
            let tok = dict.choose(rng).copied().unwrap_or("x");
            b.splice(i..i, tok.bytes());
        }
        5 | 6 => replace_number(rng, b),
        7 => repeat_line(rng, b),
        8 if len > 0 => b.truncate(rng.random_range(0..len)),
        9 => delete_or_swap_line(rng, b),
        10 => splice(rng, b, seeds),
        _ => {
            let i = at(rng);
            let bytes = EXTREMES.choose(rng).unwrap().as_bytes().to_vec();
            b.splice(i..i, bytes);
        }
    }
}

/// Replaces one run of digits (with a `0x` prefix and hex digits if present) by an extreme.
fn replace_number(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) {
    let starts: Vec<usize> =
        (0..b.len()).filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric())).collect();
    let Some(&s) = starts.choose(rng) else { return };
    let mut e = s;
    if b[s..].starts_with(b"0x") || b[s..].starts_with(b"0X") {
        e += 2;
    }
    while e < b.len() && (b[e].is_ascii_hexdigit() || b[e] == b'.') {
        e += 1;
    }
    let rep = EXTREMES.choose(rng).unwrap().as_bytes().to_vec();
    b.splice(s..e, rep);
}

/// Line `(start, end)` byte ranges, the newline included.
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < b.len() {
        out.push((s, b.len()));
    }
    out
}

/// Repeats one line 2–1000 times in place (a table row, a port, a record header).
fn repeat_line(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) {
    let ls = lines(b);
    let Some(&(s, e)) = ls.choose(rng) else { return };
    let n = if rng.random_bool(0.3) { 1000 } else { rng.random_range(2..=20) };
    let line = b[s..e].to_vec();
    let mut rep = Vec::with_capacity(line.len() * n);
    for _ in 0..n {
        rep.extend_from_slice(&line);
        if rep.len() > MAX_LEN {
            break;
        }
    }
    b.splice(e..e, rep);
}

fn delete_or_swap_line(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) {
    let ls = lines(b);
    if ls.len() < 2 {
        return;
    }
    let (i, j) = (rng.random_range(0..ls.len()), rng.random_range(0..ls.len()));
    if rng.random_bool(0.5) || i == j {
        b.drain(ls[i].0..ls[i].1);
    } else {
        let (a, c) = (ls[i.min(j)], ls[i.max(j)]);
        let mut out = b[..a.0].to_vec();
        out.extend_from_slice(&b[c.0..c.1]);
        out.extend_from_slice(&b[a.1..c.0]);
        out.extend_from_slice(&b[a.0..a.1]);
        out.extend_from_slice(&b[c.1..]);
        *b = out;
    }
}

/// Copies a slice of another seed into this input (two files' records mixed).
fn splice(rng: &mut ChaCha8Rng, b: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    let Some(d) = seeds.choose(rng) else { return };
    if d.is_empty() {
        return;
    }
    let s = rng.random_range(0..d.len());
    let e = (s + rng.random_range(1..=256)).min(d.len());
    let at = if b.is_empty() { 0 } else { rng.random_range(0..=b.len()) };
    b.splice(at..at, d[s..e].iter().copied());
}

/// One value-level mutation somewhere in the tree: replace a scalar by an extreme, drop or add a
/// key, duplicate, drop or empty an array, swap in a dictionary string.
fn mutate_value(rng: &mut ChaCha8Rng, v: &mut Value, dict: &[&str]) {
    let depth_stop = rng.random_bool(0.25);
    match v {
        Value::Object(m) if !m.is_empty() && !depth_stop => {
            let k = m.keys().nth(rng.random_range(0..m.len())).unwrap().clone();
            match rng.random_range(0..8) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    m.insert(format!("{k}_x"), json_extreme(rng));
                }
                _ => mutate_value(rng, m.get_mut(&k).unwrap(), dict),
            }
        }
        Value::Array(a) if !a.is_empty() && !depth_stop => {
            let i = rng.random_range(0..a.len());
            match rng.random_range(0..8) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let x = a[i].clone();
                    let n = if rng.random_bool(0.2) { 1000 } else { 1 };
                    for _ in 0..n {
                        a.push(x.clone());
                    }
                }
                2 => {
                    let j = rng.random_range(0..a.len());
                    a.swap(i, j)
                }
                _ => mutate_value(rng, &mut a[i], dict),
            }
        }
        Value::String(s) if rng.random_bool(0.5) => {
            *s = match dict.choose(rng) {
                Some(t) if rng.random_bool(0.6) => t.to_string(),
                _ => format!("{s}{}", EXTREMES.choose(rng).unwrap()),
            }
        }
        Value::Number(n) if rng.random_bool(0.5) => {
            // Off by one around the current value: the boundary of whatever range it sits in.
            let d: i64 = if rng.random_bool(0.5) { 1 } else { -1 };
            *v = match n.as_i64() {
                Some(x) => Value::from(x.saturating_add(d)),
                None => json_extreme(rng),
            };
        }
        _ => *v = if rng.random_bool(0.2) { Value::Object(Map::new()) } else { json_extreme(rng) },
    }
}
