//! The one parser for compact spec strings (`torus:4x4`, `updown:root=3`,
//! `irregular:switches=8,ports=8,endpoints=32,seed=1`).
//!
//! A spec string becomes `(name, JSON object)`; the object is then deserialized by serde into the
//! generator's or engine's typed parameter struct (with `deny_unknown_fields`), exactly as a JSON or
//! TOML config would be. So there is one schema, one set of defaults and one set of error messages.

use crate::error::SpecError;
use serde_json::{Map, Value};

/// A parsed spec: the registry name and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub name: String,
    pub params: Map<String, Value>,
}

/// Parses `NAME[:item[,item...]]` where an item is `key=value` or a bare token. A bare token is
/// the value of `positional` when the entry declares one (`torus:4x4` → `dims=4x4`); otherwise it
/// is a flag (`torus:4x4,unidirectional` → `unidirectional=true`).
pub fn parse(spec: &str, positional: impl Fn(&str) -> Option<&'static str>) -> Result<Spec, SpecError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(SpecError::Empty);
    }
    let (name, rest) = match spec.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (spec, ""),
    };
    if name.is_empty() {
        return Err(SpecError::Empty);
    }
    let mut params = Map::new();
    let mut used_positional = false;
    for item in split_items(rest).map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => {
                let k = k.trim();
                if k.is_empty() {
                    return Err(SpecError::Malformed { spec: spec.into(), item: item.into() });
                }
                (k.to_string(), scalar(v.trim()))
            }
            None => match positional(name) {
                Some(p) if !used_positional && item.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                    used_positional = true;
                    (p.to_string(), scalar(item))
                }
                _ if item.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    (item.to_string(), Value::Bool(true))
                }
                _ => return Err(SpecError::Malformed { spec: spec.into(), item: item.into() }),
            },
        };
        if params.insert(key.clone(), value).is_some() {
            return Err(SpecError::Duplicate { spec: spec.into(), key });
        }
    }
    Ok(Spec { name: name.to_string(), params })
}

/// The items of a spec: split at commas outside brackets, so that a value naming a switch or an
/// endpoint with a comma in its label (`updown:root=r(0,0)`, `SW<00,2>`, `P(1,2)`) stays one item,
/// as the engines print it. A closing bracket without its opening one is not counted.
fn split_items(rest: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0usize;
    rest.split(move |c: char| {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        c == ',' && depth == 0
    })
}

/// A spec value: booleans and numbers become JSON booleans and numbers, the rest strings.
fn scalar(v: &str) -> Value {
    match v {
        "true" | "yes" | "on" => return Value::Bool(true),
        "false" | "no" | "off" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(i) = v.parse::<i64>() {
        return Value::from(i);
    }
    if let Ok(u) = v.parse::<u64>() {
        return Value::from(u);
    }
    if v.contains('.') {
        // Finite only: JSON has no infinity, and `Value::from(inf)` would silently be `null`.
        if let Some(f) = v.parse::<f64>().ok().filter(|f| f.is_finite()) {
            return Value::from(f);
        }
    }
    Value::String(v.to_string())
}

/// Renders parameters back as a compact spec string (keys in the object's order).
pub fn render(name: &str, params: &Map<String, Value>) -> String {
    if params.is_empty() {
        return name.to_string();
    }
    let items: Vec<String> = params
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            Value::Array(a) => format!("{k}={}", a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x")),
            Value::Number(n) if n.is_f64() => format!("{k}={}", float_text(&n.to_string())),
            other => format!("{k}={other}"),
        })
        .collect();
    format!("{name}:{}", items.join(","))
}

/// A float's text with a decimal point, as [`scalar`] needs to read it back as a number: JSON
/// prints `1e300` and `3e-5` without one (found by fuzzing, docs/reliability.md).
fn float_text(t: &str) -> String {
    match t.find(['e', 'E']) {
        _ if t.contains('.') => t.to_string(),
        Some(i) => format!("{}.0{}", &t[..i], &t[i..]),
        None => format!("{t}.0"),
    }
}

/// Deserializes typed parameters from a parsed spec, naming the entry on error.
pub fn typed<T: serde::de::DeserializeOwned>(
    kind: &'static str,
    name: &str,
    params: &Map<String, Value>,
) -> Result<T, SpecError> {
    serde_json::from_value(Value::Object(params.clone())).map_err(|e| SpecError::Invalid {
        kind,
        name: name.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(name: &str) -> Option<&'static str> {
        (name == "torus").then_some("dims")
    }

    /// Switch labels with commas inside brackets, as engines print them, read back as one value.
    #[test]
    fn commas_inside_brackets_stay_in_their_item() {
        let s = parse("updown:root=r(0,0)", pos).unwrap();
        assert_eq!(s.params["root"], Value::String("r(0,0)".into()));
        let s = parse("updn:roots=SW<00,2>+SW<01,2>,x=1", pos).unwrap();
        assert_eq!(s.params["roots"], Value::String("SW<00,2>+SW<01,2>".into()));
        assert_eq!(s.params["x"], Value::from(1));
        assert_eq!(render(&s.name, &s.params), "updn:roots=SW<00,2>+SW<01,2>,x=1");
        // A stray closing bracket does not swallow the next item.
        let s = parse("a:x=),y=2", pos).unwrap();
        assert_eq!((s.params["x"].clone(), s.params["y"].clone()), (Value::String(")".into()), Value::from(2)));
    }

    #[test]
    fn positional_and_flags() {
        let s = parse("torus:4x4,unidirectional", pos).unwrap();
        assert_eq!(s.name, "torus");
        assert_eq!(s.params["dims"], Value::String("4x4".into()));
        assert_eq!(s.params["unidirectional"], Value::Bool(true));
    }

    #[test]
    fn key_values_are_typed() {
        let s = parse("irregular:switches=8,seed=7,name=x", pos).unwrap();
        assert_eq!(s.params["switches"], Value::from(8));
        assert_eq!(s.params["name"], Value::String("x".into()));
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(parse("", pos), Err(SpecError::Empty));
        assert!(matches!(parse("irregular:seed=1,seed=2", pos), Err(SpecError::Duplicate { .. })));
        assert!(matches!(parse("irregular:=3", pos), Err(SpecError::Malformed { .. })));
        assert!(matches!(parse("irregular:a b", pos), Err(SpecError::Malformed { .. })));
    }

    /// Fuzzing regressions: a float rendered as `1e+307` re-parsed as a string, and `1.0e400`
    /// became JSON `null`.
    #[test]
    fn floats_render_back_to_themselves() {
        for text in ["x:a=1.0e307", "x:a=2.5e-300", "x:a=0.5", "x:a=1.0"] {
            let s = parse(text, pos).unwrap();
            assert!(s.params["a"].is_f64(), "{text}");
            assert_eq!(parse(&render(&s.name, &s.params), pos).unwrap(), s, "{text}");
        }
        assert_eq!(parse("x:a=1.0e400", pos).unwrap().params["a"], Value::String("1.0e400".into()));
    }
}
