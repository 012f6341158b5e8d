//! The values a scenario's fields hold, read from its YAML tree with their lines: durations, kinds as kubectl names
//! them, label selectors, strings; and the text's [`Lines`]. A leaf of the scenario's readers (the scenario's, the
//! actions' and the lessons') that imports none of them.

use super::*;
use crate::decode::{Any, Cx};
use crate::yamltree::{Node, Scalar};

/// A duration: `500ms`, `30s`, `2m`, `1h30m`, or a number of seconds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dur(pub(super) Millis);

#[cfg(test)]
impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 500ms, 30s, 2m or 1h30m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                match v.checked_mul(SECOND) {
                    Some(ms) if ms <= MAX_DURATION => Ok(Dur(ms)),
                    _ => Err(E::custom(format!("invalid duration {v}: too large (at most 2562047h47m16.854s)"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: too large")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Dur, E> {
                u128::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u128(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A kind as kubectl names it: `pod`, `pods`, `po`, `Deployment`, `deploy`, `rs`, `no`, `ns`...
pub(super) struct KindName(pub(super) Kind);

#[cfg(test)]
impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        parse_kind(&v).map(KindName).map_err(de::Error::custom)
    }
}

/// Parses a kind the way kubectl resolves resource names ([`crate::kubectl::resource::kind_of`]: singular,
/// plural, short name or kind, any case, optional group). The error is kubectl's.
pub fn parse_kind(name: &str) -> Result<Kind, String> {
    crate::kubectl::resource::kind_of(name.trim())
}

/// A label selector in kubectl's `-l` syntax, checked.
pub(super) struct Sel(pub(super) LabelSelector, pub(super) String);

#[cfg(test)]
impl<'de> Deserialize<'de> for Sel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        match parse_selector(&v) {
            Ok(sel) => Ok(Sel(sel, v)),
            Err(e) => Err(de::Error::custom(format!("invalid selector {:?}: {e}", echo(&v)))),
        }
    }
}

/// What a reader of a scenario's part returns (the readers of actions and of lessons share it).
pub(super) type Read<T> = crate::decode::Result<T>;

/// A string field (any scalar's text, as serde_yaml reads a `String`).
pub(super) fn string<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<String> {
    cx.text(n, "a string").map(str::to_string)
}

pub(super) fn opt_string<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Option<String>> {
    cx.option(n, string)
}

pub(super) fn dur<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Dur> {
    const EXPECTED: &str = "a duration such as 500ms, 30s, 2m or 1h30m";
    let negative =
        |cx: &Cx<'n>, v: &dyn fmt::Display| cx.error(n, format!("invalid duration {v}: must not be negative"));
    let too_large = |cx: &Cx<'n>, v: &dyn fmt::Display| cx.error(n, format!("invalid duration {v}: too large"));
    let seconds = |cx: &Cx<'n>, v: u64| match v.checked_mul(SECOND) {
        Some(ms) if ms <= MAX_DURATION => Ok(Dur(ms)),
        _ => Err(cx.error(n, format!("invalid duration {v}: too large (at most 2562047h47m16.854s)"))),
    };
    match cx.any(n)? {
        Any::Scalar(Scalar::Str(v)) => parse_duration(v).map(Dur).map_err(|e| cx.error(n, e)),
        Any::Scalar(Scalar::U64(v)) => seconds(cx, v),
        Any::Scalar(Scalar::I64(v)) => u64::try_from(v).map_err(|_| negative(cx, &v)).and_then(|v| seconds(cx, v)),
        Any::Scalar(Scalar::U128(v)) => u64::try_from(v).map_err(|_| too_large(cx, &v)).and_then(|v| seconds(cx, v)),
        Any::Scalar(Scalar::I128(v)) => u128::try_from(v)
            .map_err(|_| negative(cx, &v))
            .and_then(|v| u64::try_from(v).map_err(|_| too_large(cx, &v)))
            .and_then(|v| seconds(cx, v)),
        Any::Scalar(Scalar::F64(v)) => parse_duration(&v.to_string()).map(Dur).map_err(|e| cx.error(n, e)),
        other => Err(cx.not_expected(n, other, EXPECTED)),
    }
}

pub(super) fn kind_name<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<KindName> {
    let v = cx.text(n, "a string")?;
    parse_kind(v).map(KindName).map_err(|e| cx.error(n, e))
}

pub(super) fn sel<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Sel> {
    let v = cx.text(n, "a string")?;
    match parse_selector(v) {
        Ok(sel) => Ok(Sel(sel, v.to_string())),
        Err(e) => Err(cx.error(n, format!("invalid selector {:?}: {e}", echo(v)))),
    }
}

/// The lines of the scenario text: [`Lines::of`] a path is its line (the nearest ancestor found; flow-style
/// values are not entered). Indexed once, so that a scenario of many actions is read in linear time.
pub(super) struct Lines<'a> {
    pub(super) text: &'a str,
    pub(super) index: LineIndex<'a>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lines { text, index: LineIndex::new(text) }
    }

    pub(super) fn of(&self, path: &[&str]) -> usize {
        self.index.nearest_line_of_path(path)
    }
}
