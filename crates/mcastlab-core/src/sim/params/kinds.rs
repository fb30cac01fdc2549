//! How each kind of parameter value is written: parsed from text with its unit, shown back so that
//! it parses to the same value, and described for listings. A table row names its field's Rust
//! type and its kind (`flit_bytes: u32 as Bytes`): the type alone cannot tell bytes from flits
//! from a plain count, and the fields keep their plain types for the simulator's arithmetic.

use crate::sim::units::{parse_bytes, parse_count, parse_flits, show_bytes, Rate, Time, RATE_UNITS, TIME_UNITS};
use std::str::FromStr;
use strum::{EnumMessage, VariantArray, VariantNames};

/// The text form of values of type `T`.
pub trait Kind<T> {
    /// What the value is, for listings: `time`, `rate`, `size`, `flits`, `count`, `number`,
    /// `bool`, `choice`; `... or none` for an optional one.
    fn name() -> String;
    /// The units it is written in, or the names it takes.
    fn accepts() -> String;
    /// Parses the text a user typed. The error says what is wrong with the text; the caller adds
    /// the key.
    fn parse(text: &str) -> Result<T, String>;
    /// The value as text that [`Kind::parse`] turns back into the same value (for times and rates
    /// the text serde writes).
    fn show(value: &T) -> String;
}

impl Kind<Time> for Time {
    fn name() -> String {
        "time".into()
    }
    fn accepts() -> String {
        TIME_UNITS.iter().rev().map(|(u, _)| *u).collect::<Vec<_>>().join(", ")
    }
    fn parse(text: &str) -> Result<Time, String> {
        Time::parse(text)
    }
    fn show(value: &Time) -> String {
        value.to_string()
    }
}

impl Kind<Rate> for Rate {
    fn name() -> String {
        "rate".into()
    }
    fn accepts() -> String {
        let units: Vec<&str> = RATE_UNITS.iter().map(|(u, _)| *u).collect();
        format!("{}, inf", units.join(", "))
    }
    fn parse(text: &str) -> Result<Rate, String> {
        Rate::parse(text)
    }
    fn show(value: &Rate) -> String {
        value.to_string()
    }
}

/// A size in bytes (`128B`, `4KiB`; a bare number is bytes).
pub struct Bytes;
/// A number of flits (`640` or `640flits`).
pub struct Flits;
/// A plain non-negative integer.
pub struct Count;

/// `v` in the field's integer type, or an error naming the largest value it holds.
fn fit<T: TryFrom<u64> + Into<u64> + Copy>(v: u64, what: &str, max: T) -> Result<T, String> {
    T::try_from(v).map_err(|_| format!("{v}{what} is more than the largest allowed, {}", max.into()))
}

macro_rules! integer_kinds {
    ($($t:ty),*) => {$(
        impl Kind<$t> for Bytes {
            fn name() -> String {
                "size".into()
            }
            fn accepts() -> String {
                crate::sim::units::SIZE_UNITS.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ")
            }
            fn parse(text: &str) -> Result<$t, String> {
                fit(parse_bytes(text)?, " bytes", <$t>::MAX)
            }
            fn show(value: &$t) -> String {
                show_bytes(*value as u64)
            }
        }
        impl Kind<$t> for Flits {
            fn name() -> String {
                "flits".into()
            }
            fn accepts() -> String {
                "a number, optionally with the unit: 640 or 640flits".into()
            }
            fn parse(text: &str) -> Result<$t, String> {
                fit(parse_flits(text)?, " flits", <$t>::MAX)
            }
            fn show(value: &$t) -> String {
                format!("{value}flits")
            }
        }
        impl Kind<$t> for Count {
            fn name() -> String {
                "count".into()
            }
            fn accepts() -> String {
                format!("0..{}", <$t>::MAX)
            }
            fn parse(text: &str) -> Result<$t, String> {
                fit(parse_count(text)?, "", <$t>::MAX)
            }
            fn show(value: &$t) -> String {
                value.to_string()
            }
        }
    )*};
}

integer_kinds!(u8, u32, u64);

impl Kind<bool> for bool {
    fn name() -> String {
        "bool".into()
    }
    fn accepts() -> String {
        "true | false".into()
    }
    fn parse(text: &str) -> Result<bool, String> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            o => Err(format!("`{o}` is not one of true, false")),
        }
    }
    fn show(value: &bool) -> String {
        value.to_string()
    }
}

impl Kind<f64> for f64 {
    fn name() -> String {
        "number".into()
    }
    fn accepts() -> String {
        "decimal number".into()
    }
    fn parse(text: &str) -> Result<f64, String> {
        text.trim().parse().map_err(|_| format!("`{text}` is not a number"))
    }
    fn show(value: &f64) -> String {
        // Rust prints the shortest text that parses back to the same f64.
        value.to_string()
    }
}

/// A list of times separated by `/` (`2ns/4ns`), or `none` for the empty list: `/` rather than a
/// comma, which separates the items of the specs such a value may sit in.
pub struct Times;

impl Kind<Vec<Time>> for Times {
    fn name() -> String {
        "times".into()
    }
    fn accepts() -> String {
        format!("times separated by / ({}), or none", <Time as Kind<Time>>::accepts())
    }
    /// Also takes the list as JSON or a Python list prints it (`["3ns", "10ns"]`, `[]`), the
    /// form a parameter file or a `params` dict of the Python API gives.
    fn parse(text: &str) -> Result<Vec<Time>, String> {
        let t = text.trim();
        let items: Vec<&str> = match t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            Some(inner) if inner.trim().is_empty() => Vec::new(),
            Some(inner) => inner.split(',').map(|x| x.trim().trim_matches(|c| c == '"' || c == '\'')).collect(),
            None if t == "none" => Vec::new(),
            None => t.split('/').map(str::trim).collect(),
        };
        items.into_iter().map(Time::parse).collect()
    }
    fn show(value: &Vec<Time>) -> String {
        if value.is_empty() {
            return "none".into();
        }
        value.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("/")
    }
}

/// One of an enum's names (or an alias of one), as strum derives them from the enum.
pub struct Choice;

impl<E> Kind<E> for Choice
where
    E: FromStr + VariantNames + VariantArray + EnumMessage + Copy + Into<&'static str>,
{
    fn name() -> String {
        "choice".into()
    }
    /// `wormhole | cut_through (or cut-through, vct) | ...`
    fn accepts() -> String {
        let names: Vec<String> = <E as VariantArray>::VARIANTS
            .iter()
            .map(|v| {
                let name: &'static str = (*v).into();
                let aliases: Vec<&str> = v.get_serializations().iter().copied().filter(|s| *s != name).collect();
                if aliases.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} (or {})", aliases.join(", "))
                }
            })
            .collect();
        names.join(" | ")
    }
    fn parse(text: &str) -> Result<E, String> {
        let t = text.trim();
        E::from_str(t).map_err(|_| format!("`{t}` is not one of {}", <E as VariantNames>::VARIANTS.join(", ")))
    }
    fn show(value: &E) -> String {
        let name: &'static str = (*value).into();
        name.to_string()
    }
}

/// An optional value: `none`, or a value of kind `K`.
impl<T, K: Kind<T>> Kind<Option<T>> for Option<K> {
    fn name() -> String {
        format!("{} or none", K::name())
    }
    fn accepts() -> String {
        K::accepts()
    }
    fn parse(text: &str) -> Result<Option<T>, String> {
        if text == "none" {
            Ok(None)
        } else {
            K::parse(text).map(Some)
        }
    }
    fn show(value: &Option<T>) -> String {
        value.as_ref().map_or_else(|| "none".to_string(), K::show)
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, Times};
    use crate::sim::units::Time;

    #[test]
    fn a_list_of_times_reads_its_own_text_json_and_a_python_list() {
        let want = vec![Time(3_000), Time(10_000)];
        for text in ["3ns/10ns", " 3ns / 10ns ", r#"["3ns","10ns"]"#, "['3ns', '10ns']", "[3000ps, 10ns]"] {
            assert_eq!(Times::parse(text), Ok(want.clone()), "{text}");
        }
        assert_eq!(Times::show(&want), "3ns/10ns");
        for empty in ["none", "[]", "[ ]"] {
            assert_eq!(Times::parse(empty), Ok(Vec::new()), "{empty}");
        }
        assert_eq!(Times::show(&Vec::new()), "none");
        for bad in ["3ns/", "3ns,10ns", "[3ns,]", "fast"] {
            assert!(Times::parse(bad).is_err(), "{bad}");
        }
    }
}
