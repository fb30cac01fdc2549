//! Quantities with units for simulator parameters: durations in picoseconds ([`Time`]), data rates
//! in bits per second ([`Rate`]) and sizes in bytes or flits.
//!
//! Values are parsed exactly from decimal text (`"1.28Gb/s"`, `"0.5us"`, `"4KiB"`): the simulator
//! runs on integer picoseconds, so a value that is not a whole number of the base unit is refused
//! rather than silently rounded. Each type prints back in the largest unit that is exact, so a
//! serialized [`super::Params`] reads like the preset it came from and parses back to itself.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Picoseconds per unit, largest first (the printing order).
pub(crate) const TIME_UNITS: &[(&str, u128)] =
    &[("s", 1_000_000_000_000), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000), ("ps", 1)];

/// A duration, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }

    /// Parses `5ns`, `1.5 us`, `1µs`, `640ps`, `0`; a bare number other than 0 needs a unit.
    pub fn parse(text: &str) -> Result<Time, String> {
        let (num, unit) = split_number(text)?;
        let unit = match unit {
            "µs" | "μs" => "us",
            u => u,
        };
        let factor = match TIME_UNITS.iter().find(|(u, _)| *u == unit) {
            Some((_, f)) => *f,
            None if unit.is_empty() && num.is_zero() => 1,
            None if unit.is_empty() => return Err(format!("`{text}` needs a unit (ps, ns, us, ms, s)")),
            None => return Err(format!("`{text}`: unknown time unit `{unit}` (use ps, ns, us, ms, s)")),
        };
        num.times(factor).map(Time).ok_or_else(|| format!("`{text}` is not a whole number of picoseconds"))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0 as u128;
        let (unit, factor) =
            TIME_UNITS.iter().find(|(_, k)| v > 0 && v.checked_rem(*k) == Some(0)).copied().unwrap_or(("ns", 1_000));
        write!(f, "{}{unit}", v / factor)
    }
}

/// Bits per second per unit. Bytes are written `B`, bits `b`.
pub(crate) const RATE_UNITS: &[(&str, u128)] = &[
    ("Tb/s", 1_000_000_000_000),
    ("Gb/s", 1_000_000_000),
    ("Mb/s", 1_000_000),
    ("kb/s", 1_000),
    ("b/s", 1),
    ("Tbps", 1_000_000_000_000),
    ("Gbps", 1_000_000_000),
    ("Mbps", 1_000_000),
    ("kbps", 1_000),
    ("bps", 1),
    ("TB/s", 8_000_000_000_000),
    ("GB/s", 8_000_000_000),
    ("MB/s", 8_000_000),
    ("kB/s", 8_000),
    ("KB/s", 8_000),
    ("B/s", 8),
    ("GiB/s", 8 << 30),
    ("MiB/s", 8 << 20),
    ("KiB/s", 8 << 10),
];

/// A data rate in bits per second. [`Rate::UNLIMITED`] stands for "not modelled" and is only
/// accepted where a parameter says so (the I/O bus).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const UNLIMITED: Rate = Rate(u64::MAX);

    pub fn bits_per_s(self) -> u64 {
        self.0
    }
    pub fn is_unlimited(self) -> bool {
        self == Rate::UNLIMITED
    }

    /// Parses `1.28Gb/s`, `266MB/s`, `2.5Gbps`, `inf`.
    pub fn parse(text: &str) -> Result<Rate, String> {
        if matches!(text.trim(), "inf" | "unlimited") {
            return Ok(Rate::UNLIMITED);
        }
        let (num, unit) = split_number(text)?;
        if unit.is_empty() {
            // A bare number: bits or bytes? Say that a unit is missing, not that `` is unknown.
            return Err(format!("`{text}`: a rate needs a unit (b/s, Mb/s, Gb/s, B/s, MB/s, GB/s, ...)"));
        }
        let Some((_, factor)) = RATE_UNITS.iter().find(|(u, _)| *u == unit) else {
            return Err(format!("`{text}`: unknown rate unit `{unit}` (use b/s, Mb/s, Gb/s, B/s, MB/s, GB/s, ...)"));
        };
        match num.times(*factor) {
            Some(v) if v < u64::MAX => Ok(Rate(v)),
            _ => Err(format!("`{text}` is not a whole number of bits per second below 2^64")),
        }
    }

    /// Time to move `bytes` at this rate, rounded up to whole picoseconds (0 when unlimited).
    pub fn time_for_bytes(self, bytes: u64) -> u64 {
        if self.is_unlimited() || bytes == 0 {
            return 0;
        }
        let bits = bytes as u128 * 8 * 1_000_000_000_000;
        bits.div_ceil(self.0 as u128) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unlimited() {
            return write!(f, "inf");
        }
        // The exact unit giving the smallest number: `266MB/s`, `5300Mb/s`.
        let v = self.0 as u128;
        let (unit, factor) = ["GB/s", "MB/s", "kB/s", "B/s", "Tb/s", "Gb/s", "Mb/s", "kb/s", "b/s"]
            .iter()
            .filter_map(|u| RATE_UNITS.iter().find(|(n, _)| n == u).copied())
            .filter(|(_, k)| v.checked_rem(*k) == Some(0))
            .min_by_key(|(_, k)| v / k)
            .unwrap_or(("b/s", 1));
        write!(f, "{}{unit}", v / factor)
    }
}

/// Bytes per unit of a size (a bare number is bytes too). The binary units come first, largest
/// last: [`show_bytes`] prints in the largest of them that is exact.
pub(crate) const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
];

/// Parses a byte size: `128`, `128B`, `4KiB`, `1MiB`, `2KB` (SI), `1GiB`.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let (num, unit) = split_number(text)?;
    let factor = match SIZE_UNITS.iter().find(|(u, _)| *u == unit) {
        Some((_, f)) => *f,
        None if unit.is_empty() => 1,
        None => return Err(format!("`{text}`: unknown size unit `{unit}` (use B, KiB, MiB, GiB, KB, MB, GB)")),
    };
    num.times(factor).ok_or_else(|| format!("`{text}` is not a whole number of bytes below 2^64"))
}

/// A byte size in the largest binary unit that is exact: `128B`, `4KiB`, `1GiB` (parses back
/// with [`parse_bytes`]).
pub fn show_bytes(bytes: u64) -> String {
    let v = bytes as u128;
    let (unit, factor) = SIZE_UNITS[..4].iter().rev().find(|(_, k)| v > 0 && v % *k == 0).copied().unwrap_or(("B", 1));
    format!("{}{unit}", v / factor)
}

/// Parses a count of flits: `640` or `640flits`.
pub fn parse_flits(text: &str) -> Result<u64, String> {
    let (num, unit) = split_number(text)?;
    if !matches!(unit, "" | "flit" | "flits") {
        return Err(format!("`{text}`: give a number of flits (`640` or `640flits`)"));
    }
    num.times(1).ok_or_else(|| format!("`{text}` is not a whole number of flits"))
}

/// Parses a plain non-negative integer.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let (num, unit) = split_number(text)?;
    if !unit.is_empty() {
        return Err(format!("`{text}`: expected a plain number"));
    }
    num.times(1).ok_or_else(|| format!("`{text}` is not a whole number"))
}

/// A non-negative decimal number `digits · 10^-scale`, kept exact.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    digits: u128,
    scale: u32,
}

impl Decimal {
    fn is_zero(self) -> bool {
        self.digits == 0
    }
    /// `self · factor` if it is a whole number that fits 64 bits.
    fn times(self, factor: u128) -> Option<u64> {
        let p = self.digits.checked_mul(factor)?;
        let d = 10u128.checked_pow(self.scale)?;
        (p % d == 0).then_some(p / d).and_then(|v| u64::try_from(v).ok())
    }
}

/// Splits `"1.5 us"` into the exact number and the unit text; refuses negatives and garbage.
/// `text` for an error message: whole when short, else its first 40 characters and its length (a
/// 301-digit load was echoed digit by digit).
fn clipped(text: &str) -> String {
    match text.char_indices().nth(40) {
        None => text.to_string(),
        Some((at, _)) => format!("{}... ({} characters)", &text[..at], text.chars().count()),
    }
}

fn split_number(text: &str) -> Result<(Decimal, &str), String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!("`{text}` is negative"));
    }
    let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = (&t[..end], t[end..].trim());
    let bad = || format!("`{}` is not a number with an optional unit", clipped(text));
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') || frac.len() > 30 {
        return Err(bad());
    }
    let mut digits: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        digits = digits.checked_mul(10).and_then(|d| d.checked_add(c as u128 - '0' as u128)).ok_or_else(bad)?;
    }
    Ok((Decimal { digits, scale: frac.len() as u32 }, unit))
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Accepts a string with a unit, or an integer in the base unit (ps, bits/s).
struct UnitVisitor<T>(fn(&str) -> Result<T, String>, fn(u64) -> T, &'static str);

impl<T> Visitor<'_> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.2)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.0)(v).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Ok((self.1)(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        u64::try_from(v).map(self.1).map_err(|_| E::custom(format!("{v} is negative")))
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
        d.deserialize_any(UnitVisitor(Time::parse, Time, "a duration such as \"5ns\" or an integer of picoseconds"))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        d.deserialize_any(UnitVisitor(Rate::parse, Rate, "a rate such as \"1.28Gb/s\" or an integer of bits/s"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_exactly_and_print_back() {
        assert_eq!(Time::parse("5ns"), Ok(Time(5_000)));
        assert_eq!(Time::parse("1.5 us"), Ok(Time(1_500_000)));
        assert_eq!(Time::parse("1µs"), Ok(Time(1_000_000)));
        assert_eq!(Time::parse("0"), Ok(Time(0)));
        assert_eq!(Time::parse("0.3ns"), Ok(Time(300)));
        assert!(Time::parse("1.5ps").unwrap_err().contains("whole number"));
        assert!(Time::parse("-1ns").unwrap_err().contains("negative"));
        assert!(Time::parse("5").unwrap_err().contains("needs a unit"));
        assert!(Time::parse("5 parsecs").unwrap_err().contains("unknown time unit"));
        assert!(Time::parse("fast").is_err());
        assert!(Time::parse("1.2.3ns").is_err());
        for t in [Time(5_000), Time(5_000_000), Time(640), Time(0), Time(20_000)] {
            assert_eq!(Time::parse(&t.to_string()), Ok(t), "{t}");
        }
        assert_eq!(Time(5_000_000).to_string(), "5us");
    }

    #[test]
    fn rates_parse_exactly_and_print_back() {
        assert_eq!(Rate::parse("1.28Gb/s"), Ok(Rate(1_280_000_000)));
        assert_eq!(Rate::parse("266MB/s"), Ok(Rate(2_128_000_000)));
        assert_eq!(Rate::parse("2.5Gbps"), Ok(Rate(2_500_000_000)));
        assert_eq!(Rate::parse("inf"), Ok(Rate::UNLIMITED));
        assert!(Rate::parse("3 furlongs/s").unwrap_err().contains("unknown rate unit"));
        // A number too long for 128 bits is named by its start and length, not echoed whole.
        let long = format!("1{}", "0".repeat(300));
        let e = Rate::parse(&format!("{long}MB/s")).unwrap_err();
        assert!(e.starts_with(&format!("`{}... (305 characters)` is not a number", &long[..40])), "{e}");
        assert!(Rate::parse("0").unwrap_err().contains("needs a unit"), "a bare number names the missing unit");
        for r in [Rate(1_280_000_000), Rate(2_128_000_000), Rate(1_600_000_000), Rate(5_300_000_000), Rate::UNLIMITED] {
            assert_eq!(Rate::parse(&r.to_string()), Ok(r), "{r}");
        }
        assert_eq!(Rate(1_600_000_000).to_string(), "200MB/s");
        // 128 bytes at 266 MB/s: 481.2 ns, rounded up to the picosecond.
        assert_eq!(Rate(2_128_000_000).time_for_bytes(128), 481_204);
        assert_eq!(Rate::UNLIMITED.time_for_bytes(1 << 20), 0);
    }

    #[test]
    fn sizes_and_counts() {
        assert_eq!(parse_bytes("4KiB"), Ok(4096));
        assert_eq!(parse_bytes("128"), Ok(128));
        assert_eq!(parse_bytes("2KB"), Ok(2000));
        assert!(parse_bytes("2 lumps").unwrap_err().contains("(use B, KiB, MiB, GiB, KB, MB, GB)"));
        for (n, text) in [(0, "0B"), (128, "128B"), (4096, "4KiB"), (1 << 30, "1GiB"), (1536, "1536B")] {
            assert_eq!(show_bytes(n), text);
            assert_eq!(parse_bytes(text), Ok(n));
        }
        assert!(parse_bytes("1.5B").is_err());
        assert_eq!(parse_flits("640flits"), Ok(640));
        assert!(parse_flits("640B").is_err());
        assert_eq!(parse_count("7"), Ok(7));
        assert!(parse_count("7x").is_err());
    }

    #[test]
    fn serde_accepts_strings_and_base_integers() {
        assert_eq!(serde_json::from_str::<Time>("\"5ns\"").unwrap(), Time(5_000));
        assert_eq!(serde_json::from_str::<Time>("640").unwrap(), Time(640));
        assert!(serde_json::from_str::<Time>("-3").is_err());
        assert_eq!(serde_json::to_string(&Rate(2_128_000_000)).unwrap(), "\"266MB/s\"");
    }
}
