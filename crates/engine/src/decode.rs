//! The typed reading of a YAML tree ([`crate::yamltree`]): the primitives every API type is read with (strings,
//! integers, booleans, lists, maps, optional values, structs), each compiled once, with serde_yaml's errors: the
//! same messages (`spec.replicas: invalid type: string "many", expected i32`) at the same line and column. A struct
//! is read by one function ([`Cx::fields`]) that hands each key to the type's own small table of fields
//! ([`crate::manifest`]'s `objects`, the scenario's `read`); keys the table does not read are collected by path
//! (the manifest module's schema tables then say which are real-but-unsimulated, a warning, and which are unknown,
//! an error), or refused at once (a scenario's).
//!
//! The same reading serves a document's JSON form ([`to_json`]) and apply's merged JSON ([`from_json`]).

use std::fmt;

use crate::api::Str;
use crate::libyaml::Style;
use crate::yamltree::{self, local_tag, Node, Scalar, Value};

/// A decoding error at a node: serde_yaml's message (its path first) and the node's 1-based line and column
/// (0 when the node was not read from text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Error {
    pub message: String,
    pub line: usize,
    pub column: usize,
    /// Whether the error needs what a syntax error kept the reading from reaching: a required field of a mapping
    /// not closed, or a value not given ([`Node::open`]). The syntax error is then the one to report.
    pub needs_end: bool,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if self.line != 0 || self.column != 0 {
            write!(f, " at line {} column {}", self.line, self.column)?;
        }
        Ok(())
    }
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

/// One step of a path: a mapping key, a list index, or a key that is not text.
#[derive(Clone, Copy, Debug)]
enum Seg<'n> {
    Key(&'n str),
    Index(usize),
    Unknown,
}

/// The decoding context: where in the tree the reader is, and the keys no table read.
pub(crate) struct Cx<'n> {
    path: Vec<Seg<'n>>,
    /// Paths of the keys no field table read, dot-separated with list indices as numbers
    /// (`spec.template.spec.containers.0.livenessProbe`), in document order.
    pub ignored: Vec<String>,
    /// Label and annotation texts already read, each shared by every later use of the same text (see
    /// [`Cx::labels`]); at most [`SHARED_TEXTS`].
    shared: Vec<Str>,
}

/// How many distinct label texts a document shares (the rest are read as separate strings).
const SHARED_TEXTS: usize = 256;

/// The text of a scalar a typed field (a boolean, an integer) reads: plain, or a literal block with that type's
/// standard tag (`tag`); anything else is an invalid type.
fn typed_text<'n>(n: &'n Node, tag: &str) -> Option<&'n str> {
    match &n.value {
        Value::Scalar(s) if n.style == Style::Plain || (n.style == Style::Literal && n.tag.as_deref() == Some(tag)) => {
            Some(s)
        }
        _ => None,
    }
}

/// A plain scalar that stands for an empty list or map (`spec:` with nothing after it).
fn is_empty_plain(n: &Node) -> bool {
    matches!(&n.value, Value::Scalar(s) if s.is_empty() && n.style == Style::Plain)
}

impl<'n> Cx<'n> {
    pub(crate) fn new() -> Self {
        Cx { path: Vec::new(), ignored: Vec::new(), shared: Vec::new() }
    }

    /// The path as serde_yaml prints it: `.` at the root, `spec.containers[0].image` below.
    fn path_text(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Seg::Index(i) => {
                    if out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&format!("[{i}]"));
                }
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Unknown => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push('?');
                }
            }
        }
        if out.is_empty() {
            out.push('.');
        }
        out
    }

    /// An error at `n`, with the current path. An error at a value the reading never reached (an open scalar:
    /// the reading stopped before it) needs the end.
    pub(crate) fn error(&self, n: &Node, message: impl fmt::Display) -> Error {
        let path = self.path_text();
        let message = if path == "." { message.to_string() } else { format!("{path}: {message}") };
        let needs_end = n.open && matches!(n.value, Value::Scalar(_));
        Error { message, line: n.line, column: n.column, needs_end }
    }

    /// serde's "invalid type: X, expected Y" at `n`, X being what `n` holds (a locally tagged scalar as its
    /// text reads; the error of a standard tag whose text is not of its type instead, if it is one).
    pub(crate) fn invalid_type(&self, n: &Node, expected: &str) -> Error {
        let got = match &n.value {
            Value::Seq(items) => Any::Seq(items),
            Value::Map(entries) => Any::Map(entries),
            Value::Scalar(s) => match yamltree::scalar(n, s) {
                Ok(scalar) => Any::Scalar(scalar),
                Err(m) => return self.error(n, m),
            },
        };
        self.not_expected(n, got, expected)
    }

    pub(crate) fn invalid_value(&self, n: &Node, what: impl fmt::Display, expected: &str) -> Error {
        self.error(n, format_args!("invalid value: {what}, expected {expected}"))
    }

    /// Runs `f` one step below the current path.
    fn at<T>(&mut self, seg: Seg<'n>, f: impl FnOnce(&mut Self) -> T) -> T {
        self.path.push(seg);
        let out = f(self);
        self.path.pop();
        out
    }

    /// Any scalar's text (a string field reads `3` as "3"); lists and maps are errors.
    pub(crate) fn text(&self, n: &'n Node, expected: &str) -> Result<&'n str> {
        match &n.value {
            Value::Scalar(s) => Ok(s),
            _ => Err(self.invalid_type(n, expected)),
        }
    }

    pub(crate) fn string(&mut self, n: &'n Node) -> Result<Str> {
        self.text(n, "a string").map(Str::from)
    }

    pub(crate) fn bool(&mut self, n: &'n Node) -> Result<bool> {
        typed_text(n, yamltree::TAG_BOOL).and_then(yamltree::bool_word).ok_or_else(|| self.invalid_type(n, "a boolean"))
    }

    /// A signed integer of at most 64 bits, checked against `[min, max]` (`expected` names the Rust type, as
    /// serde's messages do).
    fn int(&mut self, n: &'n Node, min: i64, max: i64, expected: &str) -> Result<i64> {
        let v = typed_text(n, yamltree::TAG_INT).and_then(|s| yamltree::signed(s, yamltree::parse_i64));
        match v {
            Some(v) if v < min || v > max => Err(self.invalid_value(n, format_args!("integer `{v}`"), expected)),
            Some(v) => Ok(v),
            None => Err(self.invalid_type(n, expected)),
        }
    }

    pub(crate) fn i32(&mut self, n: &'n Node) -> Result<i32> {
        self.int(n, i32::MIN.into(), i32::MAX.into(), "i32").map(|v| v as i32)
    }

    pub(crate) fn i64(&mut self, n: &'n Node) -> Result<i64> {
        self.int(n, i64::MIN, i64::MAX, "i64")
    }

    /// `null` (and `~`, or nothing) is `None`; anything else is read by `f`.
    pub(crate) fn option<T>(&mut self, n: &'n Node, f: fn(&mut Self, &'n Node) -> Result<T>) -> Result<Option<T>> {
        if self.is_null(n)? {
            Ok(None)
        } else {
            f(self, n).map(Some)
        }
    }

    /// Whether an optional value is absent, as serde_yaml decides it.
    pub(crate) fn is_null(&self, n: &Node) -> Result<bool> {
        let Value::Scalar(s) = &n.value else { return Ok(false) };
        if n.style != Style::Plain {
            return Ok(false);
        }
        match n.tag.as_deref() {
            Some(yamltree::TAG_NULL) if yamltree::is_null_word(s) => Ok(true),
            Some(yamltree::TAG_NULL) => Err(self.invalid_value(n, format_args!("string {s:?}"), "null")),
            Some(_) => Ok(false),
            None => Ok(s.is_empty() || yamltree::is_null_word(s)),
        }
    }

    /// A list, each item read by `f` (nothing after the key is an empty list).
    pub(crate) fn seq<T>(&mut self, n: &'n Node, f: fn(&mut Self, &'n Node) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.each(n, &mut |cx, item| {
            out.push(f(cx, item)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Each item of a list, one path step below.
    pub(crate) fn each(&mut self, n: &'n Node, f: &mut dyn FnMut(&mut Self, &'n Node) -> Result<()>) -> Result<()> {
        let items = match &n.value {
            Value::Seq(items) => items.as_slice(),
            _ if is_empty_plain(n) => &[],
            _ => return Err(self.invalid_type(n, "a sequence")),
        };
        for (i, item) in items.iter().enumerate() {
            self.at(Seg::Index(i), |cx| f(cx, item))?;
        }
        Ok(())
    }

    /// A list of strings.
    pub(crate) fn strings(&mut self, n: &'n Node) -> Result<Vec<Str>> {
        self.seq(n, Self::string)
    }

    /// The entries of a map with text keys, in the document's order, each value read by `f`.
    fn pairs<T>(&mut self, n: &'n Node, f: fn(&mut Self, &'n Node) -> Result<T>) -> Result<Vec<(Str, T)>> {
        let mut out = Vec::new();
        self.entries(n, "a map", "a string", &mut |cx, key, value| {
            out.push((Str::from(key), f(cx, value)?));
            Ok(())
        })?;
        Ok(out)
    }

    /// A map with text keys, each value read by `f` (a later duplicate key wins, as in a `BTreeMap`).
    pub(crate) fn map<T>(
        &mut self,
        n: &'n Node,
        f: fn(&mut Self, &'n Node) -> Result<T>,
    ) -> Result<std::collections::BTreeMap<Str, T>> {
        // Inserted one by one (a later duplicate key wins, as collecting would): collecting into a map sorts a
        // vector first, a sort compiled once more per value type (docs/size.md).
        let mut out = std::collections::BTreeMap::new();
        for (k, v) in self.pairs(n, f)? {
            out.insert(k, v);
        }
        Ok(out)
    }

    /// Labels and annotations (a later duplicate key wins). A text read before in the document is the same shared
    /// string: a selector's `app: api` and its template's are then one string each, and comparing them (which the
    /// control plane does for every pod it matches) stops at the pointer.
    pub(crate) fn labels(&mut self, n: &'n Node) -> Result<crate::api::Labels> {
        let mut pairs = Vec::new();
        self.entries(n, "a map", "a string", &mut |cx, key, value| {
            let value = cx.text(value, "a string")?;
            pairs.push((cx.share(key), cx.share(value)));
            Ok(())
        })?;
        Ok(crate::api::Labels::from_pairs(pairs))
    }

    /// A map of base64 texts (a Secret's `data`, a ConfigMap's `binaryData`), each checked as the API server
    /// decodes it (`illegal base64 data at input byte N`, at the value) and kept as it stores it.
    pub(crate) fn base64_values(&mut self, n: &'n Node) -> Result<crate::api::Labels> {
        let mut pairs = Vec::new();
        self.entries(n, "a map", "a string", &mut |cx, key, value| {
            let text = cx.text(value, "a string")?;
            if let Err(e) = crate::api::config::base64_decode(text) {
                return Err(cx.error(value, e));
            }
            // Stored as the bytes it holds, encoded again (a value wrapped over lines reads as one).
            let canonical = crate::api::config::canonical_base64(text);
            pairs.push((Str::from(key), Str::from(canonical.as_deref().unwrap_or(text))));
            Ok(())
        })?;
        Ok(crate::api::Labels::from_pairs(pairs))
    }

    /// `text` as a shared string: the one read before, if any.
    fn share(&mut self, text: &str) -> Str {
        if let Some(s) = self.shared.iter().find(|s| crate::api::text_eq(s, text)) {
            return s.clone();
        }
        let s = Str::from(text);
        if self.shared.len() < SHARED_TEXTS {
            self.shared.push(s.clone());
        }
        s
    }

    /// The entries of a mapping (`expected` names it in a type error), each key's text (`key_expected` names a
    /// key that is a list or a map) handed to `f` with the value, one path step below.
    fn entries(
        &mut self,
        n: &'n Node,
        expected: &str,
        key_expected: &str,
        f: &mut dyn FnMut(&mut Self, &'n str, &'n Node) -> Result<()>,
    ) -> Result<()> {
        let entries = match &n.value {
            Value::Map(entries) => entries.as_slice(),
            _ if is_empty_plain(n) => &[],
            _ => return Err(self.invalid_type(n, expected)),
        };
        for (k, v) in entries {
            let key = self.text(k, key_expected)?;
            self.at(Seg::Key(key), |cx| f(cx, key, v))?;
        }
        Ok(())
    }

    /// A struct of `shape`: each key of `n` that is one of its fields goes to `read` with its value; any other key
    /// is recorded in [`Cx::ignored`], or refused when the shape is strict. A field given twice is an error at the
    /// mapping, as is a missing required one.
    pub(crate) fn fields(
        &mut self,
        n: &'n Node,
        shape: &Shape,
        read: &mut dyn FnMut(&mut Self, &'n str, &'n Node) -> Result<()>,
    ) -> Result<()> {
        let entries = match &n.value {
            Value::Map(entries) => entries.as_slice(),
            _ if is_empty_plain(n) => &[],
            _ => return Err(self.invalid_type(n, shape.expected)),
        };
        let mut seen: Vec<&'n str> = Vec::new();
        for (k, v) in entries {
            let key = self.text(k, "field identifier")?;
            if shape.names.contains(&key) {
                if seen.contains(&key) {
                    return Err(self.error(n, format_args!("duplicate field `{key}`")));
                }
                seen.push(key);
                self.at(Seg::Key(key), |cx| read(cx, key, v))?;
            } else if shape.strict {
                let expected = expected_one_of(shape.names, "there are no fields");
                return Err(self.error(k, format_args!("unknown field `{key}`, {expected}")));
            } else {
                self.at(Seg::Key(key), |cx| {
                    let path = cx.ignored_path();
                    cx.ignored.push(path);
                });
            }
        }
        if let Some(missing) = shape.required.iter().find(|r| !seen.contains(r)) {
            return Err(self.missing_field(n, missing));
        }
        Ok(())
    }

    /// serde's "missing field" of mapping `n`. A mapping whose reading stopped early may have the field after the
    /// stop: the error then needs the end.
    pub(crate) fn missing_field(&self, n: &Node, field: &str) -> Error {
        let mut e = self.error(n, format_args!("missing field `{field}`"));
        e.needs_end |= n.open;
        e
    }

    /// The current path as an ignored key's path (`spec.template.spec.containers.0.foo`).
    fn ignored_path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            if !out.is_empty() {
                out.push('.');
            }
            match seg {
                Seg::Key(k) => out.push_str(k),
                Seg::Index(i) => out.push_str(&i.to_string()),
                Seg::Unknown => out.push('?'),
            }
        }
        out
    }

    /// A unit enum written as its variant's name (`Running`).
    pub(crate) fn variant(&mut self, n: &'n Node, variants: &[&'static str]) -> Result<usize> {
        // A locally tagged node names its variant with the tag, as serde_yaml reads an enum.
        let name = match (local_tag(n), &n.value) {
            (Some(tag), _) => tag,
            (None, Value::Scalar(s)) => s.as_str(),
            (None, _) => return Err(self.invalid_type(n, "a YAML tag starting with '!'")),
        };
        if let Some(i) = variants.iter().position(|v| *v == name) {
            return Ok(i);
        }
        let expected = expected_one_of(variants, "there are no variants");
        Err(self.error(n, format_args!("unknown variant `{name}`, {expected}")))
    }

    /// A value read "as it comes" (serde's `deserialize_any`): a scalar as what it is, a list, a map, or a locally
    /// tagged node (which serde_yaml reads as an enum). `Err` only for a standard tag its text does not match.
    pub(crate) fn any(&self, n: &'n Node) -> Result<Any<'n>> {
        Ok(match &n.value {
            _ if local_tag(n).is_some() => Any::Tagged,
            Value::Scalar(s) => Any::Scalar(yamltree::scalar(n, s).map_err(|m| self.error(n, m))?),
            Value::Seq(items) => Any::Seq(items),
            Value::Map(entries) => Any::Map(entries),
        })
    }

    /// A value read "as it comes" that is not what the reader takes: serde's invalid-type error.
    pub(crate) fn not_expected(&self, n: &Node, got: Any<'_>, expected: &str) -> Error {
        self.error(n, format_args!("invalid type: {got}, expected {expected}"))
    }

    /// A non-negative integer that fits `max` (`expected` names the Rust type).
    pub(crate) fn unsigned(&mut self, n: &'n Node, max: u64, expected: &str) -> Result<u64> {
        match typed_text(n, yamltree::TAG_INT).and_then(|s| yamltree::unsigned(s, yamltree::parse_u64)) {
            Some(v) if v > max => Err(self.invalid_value(n, format_args!("integer `{v}`"), expected)),
            Some(v) => Ok(v),
            None => Err(self.invalid_type(n, expected)),
        }
    }

    /// Runs `f` on the value of key `key` (a path step), for readers that walk a mapping themselves.
    pub(crate) fn below<T>(&mut self, key: &'n str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.at(Seg::Key(key), f)
    }

    /// Runs `f` on the value of a key that is not text (a path step serde_yaml writes `?`).
    pub(crate) fn unknown_below<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.at(Seg::Unknown, f)
    }

    /// Runs `f` on item `i` of a list (a path step).
    pub(crate) fn item<T>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        self.at(Seg::Index(i), f)
    }
}

/// serde's list of what was expected: `expected `a``, `expected `a` or `b``, `expected one of `a`, `b`, `c``.
fn expected_one_of(names: &[&str], none: &str) -> String {
    match names {
        [] => none.to_string(),
        [one] => format!("expected `{one}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        many => format!("expected one of {}", many.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")),
    }
}

/// A struct's field table, as serde's derive would see it.
pub(crate) struct Shape<'a> {
    /// What a type error says was expected (`struct Pod`, or a scenario's own words).
    pub expected: &'a str,
    /// The fields read, as written in YAML.
    pub names: &'a [&'a str],
    /// The fields that must be given, in declaration order.
    pub required: &'a [&'a str],
    /// Whether a key that is not a field is an error (serde's `deny_unknown_fields`), not recorded as ignored.
    pub strict: bool,
}

/// A value as it comes.
#[derive(Clone, Copy)]
pub(crate) enum Any<'n> {
    Scalar(Scalar<'n>),
    Seq(&'n [Node]),
    Map(&'n [(Node, Node)]),
    /// A locally tagged node (`!x ...`).
    Tagged,
}

impl fmt::Display for Any<'_> {
    /// As serde names an unexpected value: `integer `3``, `sequence`, `map`, `enum`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Any::Scalar(s) => write!(f, "{s}"),
            Any::Seq(_) => f.write_str("sequence"),
            Any::Map(_) => f.write_str("map"),
            Any::Tagged => f.write_str("enum"),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON

/// A document's JSON form, as serde_yaml's `Value` converts to serde_json's: numbers as numbers (integers past
/// 64 bits as floats, as kubectl reads them), a locally tagged node as `{"!tag": value}`. A standard tag whose
/// text is not of its type (`!!int x`) is an error at its node; so is a mapping key that JSON cannot have (a list,
/// a map or null), reported as serde_json reports it.
pub(crate) fn to_json(n: &Node) -> std::result::Result<serde_json::Value, JsonError> {
    let mut cx = Cx::new();
    let mut key_error = None;
    let v = json_value(&mut cx, n, false, &mut key_error).map_err(JsonError::Value)?;
    match key_error {
        Some(e) => Err(JsonError::Key(e)),
        None => Ok(v),
    }
}

/// Why a document has no JSON form.
#[derive(Debug)]
pub(crate) enum JsonError {
    /// A scalar with a standard tag that its text does not match (found while reading the document).
    Value(Error),
    /// A key JSON cannot have (found when converting, after the whole document was read).
    Key(&'static str),
}

/// The JSON of `n`; the first key JSON cannot have (in the order a serializer meets keys) goes to `key_error`,
/// and its entry is left out.
fn json_value<'n>(
    cx: &mut Cx<'n>,
    n: &'n Node,
    tagged: bool,
    key_error: &mut Option<&'static str>,
) -> Result<serde_json::Value> {
    use serde_json::Value as J;
    if !tagged {
        if let Some(tag) = local_tag(n) {
            let tag = format!("!{tag}");
            let inner = json_value(cx, n, true, key_error)?;
            let mut out = serde_json::Map::new();
            out.insert(tag, inner);
            return Ok(J::Object(out));
        }
    }
    Ok(match &n.value {
        Value::Scalar(s) => {
            let scalar = if tagged {
                yamltree::below_local_tag(n, s)
            } else {
                yamltree::scalar(n, s).map_err(|m| cx.error(n, m))?
            };
            match scalar {
                Scalar::Null => J::Null,
                Scalar::Bool(b) => J::Bool(b),
                Scalar::U64(v) => J::from(v),
                Scalar::I64(v) => J::from(v),
                Scalar::U128(v) => J::from(v as f64),
                Scalar::I128(v) => J::from(v as f64),
                Scalar::F64(v) => J::from(v),
                Scalar::Str(s) => J::String(s.to_string()),
            }
        }
        Value::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(cx.at(Seg::Index(i), |cx| json_value(cx, item, false, key_error))?);
            }
            J::Array(out)
        }
        Value::Map(entries) => {
            let mut out = serde_json::Map::new();
            for (k, v) in entries {
                let key = json_value(cx, k, false, key_error)?;
                let non_finite = matches!(&k.value, Value::Scalar(s) if local_tag(k).is_none()
                    && matches!(yamltree::scalar(k, s), Ok(Scalar::F64(f)) if !f.is_finite()));
                let key = if non_finite {
                    Err("float key must be finite (got NaN or +/-inf)")
                } else {
                    json_key(key, local_tag(k).is_some())
                };
                let key = match key {
                    Ok(key) => Some(key),
                    Err(e) => {
                        key_error.get_or_insert(e);
                        None
                    }
                };
                let seg = match &k.value {
                    Value::Scalar(s) => Seg::Key(s),
                    _ => Seg::Unknown,
                };
                let value = cx.at(seg, |cx| json_value(cx, v, false, key_error))?;
                if let Some(key) = key {
                    out.insert(key, value);
                }
            }
            J::Object(out)
        }
    })
}

/// A mapping key as serde_json writes it: text as is, numbers and booleans as their text.
fn json_key(key: serde_json::Value, tagged: bool) -> std::result::Result<String, &'static str> {
    use serde_json::Value as J;
    const NOT_A_STRING: &str = "key must be a string";
    match key {
        _ if tagged => Err(NOT_A_STRING),
        J::String(s) => Ok(s),
        J::Bool(b) => Ok(b.to_string()),
        J::Number(n) => Ok(n.to_string()),
        J::Null | J::Array(_) | J::Object(_) => Err(NOT_A_STRING),
    }
}

/// `v` as Go's `encoding/json` writes it (`json.Marshal`, `json.Encoder.Encode` without its newline): serde_json's
/// compact text (keys sorted, as Go sorts a map's: serde_json's map is ordered by key) with Go's own escapes of `<`,
/// `>`, `&`, U+2028 and U+2029 in strings (`\u003c` ...), and numbers as Go prints an int64 or a float64, the two
/// kubectl holds a manifest's numbers as (1.0 is `1`, 1e21 is `1e+21`).
pub(crate) fn go_json(v: &serde_json::Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut token = String::new();
    for c in text.chars() {
        if in_string {
            match c {
                '<' => out.push_str("\\u003c"),
                '>' => out.push_str("\\u003e"),
                '&' => out.push_str("\\u0026"),
                '\u{2028}' => out.push_str("\\u2028"),
                '\u{2029}' => out.push_str("\\u2029"),
                c => out.push(c),
            }
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.') {
            token.push(c);
        } else {
            out.push_str(&go_number(&token));
            token.clear();
            in_string = c == '"';
            out.push(c);
        }
    }
    out.push_str(&go_number(&token));
    out
}

/// A token of serde_json's text outside strings: a number as Go prints it (an integer past int64 is a float64 to
/// Go), anything else (`true`, `null`) as it is.
fn go_number(token: &str) -> String {
    match (token.parse::<i64>(), token.parse::<f64>()) {
        (Err(_), Ok(f)) if token.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => go_float(f),
        _ => token.to_string(),
    }
}

/// A float64 as Go's JSON encoder prints it: the shortest digits, plain between 1e-6 and 1e21, else in exponent
/// form with a sign and no leading zero (`1e+21`, `1e-7`).
fn go_float(f: f64) -> String {
    if f == 0.0 || (1e-6..1e21).contains(&f.abs()) {
        return format!("{f}");
    }
    let e = format!("{f:e}");
    match e.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => e,
    }
}

/// A tree for a JSON value (apply's merged object), to be read by the same decoders as a document. Its nodes have
/// no position; strings are quoted (so `"3"` stays text) and numbers plain.
pub(crate) fn from_json(v: &serde_json::Value) -> Node {
    use serde_json::Value as J;
    let node = |style: Style, value: Value| Node { line: 0, column: 0, tag: None, style, value, open: false };
    match v {
        J::Null => node(Style::Plain, Value::Scalar("null".into())),
        J::Bool(b) => node(Style::Plain, Value::Scalar(b.to_string())),
        // Floats as YAML writes them (`1e42`, `1000.0`), so a number read as text reads as it did.
        J::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => node(Style::Plain, Value::Scalar(format!("{f:?}"))),
            _ => node(Style::Plain, Value::Scalar(n.to_string())),
        },
        J::String(s) => node(Style::DoubleQuoted, Value::Scalar(s.clone())),
        J::Array(items) => node(Style::Plain, Value::Seq(items.iter().map(from_json).collect())),
        J::Object(m) => node(
            Style::Plain,
            Value::Map(
                m.iter().map(|(k, v)| (node(Style::DoubleQuoted, Value::Scalar(k.clone())), from_json(v))).collect(),
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// encoding/json's floatEncoder: shortest digits, plain from 1e-6 up to 1e21, exponent form otherwise.
    #[test]
    fn floats_print_as_go_prints_them() {
        let cases = [
            (0.0, "0"),
            (1.0, "1"),
            (0.5, "0.5"),
            (1e-6, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (1e-10, "1e-10"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (-1.25e300, "-1.25e+300"),
            (18446744073709551615.0, "18446744073709552000"),
        ];
        for (f, want) in cases {
            assert_eq!(go_float(f), want, "{f:e}");
        }
    }

    #[test]
    fn strings_escape_as_go_escapes_them() {
        let v = serde_json::json!({"b": "<a&b>\u{2028}\"\\\n\u{1}", "a": [1, 2.5, u64::MAX, null, true]});
        assert_eq!(
            go_json(&v),
            r#"{"a":[1,2.5,18446744073709552000,null,true],"b":"\u003ca\u0026b\u003e\u2028\"\\\n\u0001"}"#
        );
    }
}
