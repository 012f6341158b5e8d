//! One YAML document as a tree whose every node keeps its line and column, built from libyaml's events
//! ([`crate::libyaml`]), and the YAML 1.2 core-schema reading of its scalars as serde_yaml reads them (so a manifest
//! means what it meant before kubeloop had its own decoder: `010` is a string, `0x1F` is 31, `~` is null).
//!
//! The text is held to kubeloop's YAML budgets first ([`crate::yamlcheck`]): its nesting is bounded, and it has no
//! anchors or aliases.

use std::fmt;

use crate::libyaml::{Events, Kind, Style, SyntaxError};

/// One node of a document.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    /// 1-based line and column of the node's start (0 for a node that was not read from text).
    pub line: usize,
    pub column: usize,
    /// The node's tag as libyaml resolves it (`!!int` is `tag:yaml.org,2002:int`).
    pub tag: Option<Box<str>>,
    pub style: Style,
    pub value: Value,
    /// Whether the reading stopped inside this node (a collection not closed, or a value not given), before an
    /// error: what needs its end (a required field) is not known.
    pub open: bool,
}

impl Node {
    /// An empty plain scalar (what a document with no content reads as).
    pub(crate) fn empty() -> Node {
        Node { line: 0, column: 0, tag: None, style: Style::Plain, value: Value::Scalar(String::new()), open: false }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Scalar(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// Why a text is not one YAML document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TreeError {
    Syntax(SyntaxError),
    /// An alias (`*name`): the budget check refuses them first.
    Alias {
        line: usize,
        column: usize,
    },
    MoreThanOneDocument,
}

impl TreeError {
    /// The 1-based line and column, when known.
    pub(crate) fn location(&self) -> Option<(usize, usize)> {
        match self {
            TreeError::Syntax(e) => Some(e.location()),
            TreeError::Alias { line, column } => Some((*line, *column)),
            TreeError::MoreThanOneDocument => None,
        }
    }
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Syntax(e) => write!(f, "{e}"),
            TreeError::Alias { line, column } => {
                write!(f, "YAML aliases are not accepted at line {line} column {column}")
            }
            TreeError::MoreThanOneDocument => {
                f.write_str("deserializing from YAML containing more than one document is not supported")
            }
        }
    }
}

pub(crate) const TAG_NULL: &str = "tag:yaml.org,2002:null";
pub(crate) const TAG_BOOL: &str = "tag:yaml.org,2002:bool";
pub(crate) const TAG_INT: &str = "tag:yaml.org,2002:int";
pub(crate) const TAG_FLOAT: &str = "tag:yaml.org,2002:float";

/// A document whose reading stopped at an error, and what was read before it.
#[derive(Debug)]
pub(crate) struct Stopped {
    pub error: TreeError,
    pub read: Option<Node>,
}

/// Reads the one document of `text`: its root (`None` when it has none: an empty text, or only comments), or the
/// error that stopped the reading, with the part of the document read before it (whose nodes a reader meets
/// before the error, as serde_yaml's did).
pub(crate) fn parse(text: &str) -> Result<Option<Node>, Box<Stopped>> {
    let mut events = Events::with_payload(text);
    // Open collections, innermost last, each with its node and, for a mapping, a key waiting for its value.
    let mut open: Vec<(Node, Option<Node>)> = Vec::new();
    let mut root: Option<Node> = None;
    let mut documents = 0usize;
    let mut ended = false;
    let error = loop {
        let Some(event) = events.next() else { break None };
        let event = match event {
            Ok(event) => event,
            // Whatever follows a finished document is a second one, even when it is not YAML.
            Err(_) if ended => break Some(TreeError::MoreThanOneDocument),
            Err(e) => break Some(TreeError::Syntax(e)),
        };
        let node = |value: Value| Node {
            line: event.line,
            column: event.column,
            tag: event.tag.clone().map(String::into_boxed_str),
            style: event.style,
            value,
            open: false,
        };
        let done = match event.kind {
            Kind::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    break Some(TreeError::MoreThanOneDocument);
                }
                continue;
            }
            Kind::Alias(_) => break Some(TreeError::Alias { line: event.line, column: event.column }),
            Kind::Scalar => node(Value::Scalar(event.value.clone())),
            Kind::SequenceStart => {
                open.push((node(Value::Seq(Vec::new())), None));
                continue;
            }
            Kind::MappingStart => {
                open.push((node(Value::Map(Vec::new())), None));
                continue;
            }
            Kind::SequenceEnd | Kind::MappingEnd => match open.pop() {
                Some((n, _)) => n,
                None => continue,
            },
            Kind::DocumentEnd => {
                ended = true;
                continue;
            }
            Kind::StreamEnd | Kind::Other => continue,
        };
        attach(&mut open, &mut root, done);
    };
    let Some(error) = error else { return Ok(root) };
    // Close what was open, a key without its value given an empty one.
    while let Some((mut n, pending)) = open.pop() {
        n.open = true;
        if let (Value::Map(entries), Some(key)) = (&mut n.value, pending) {
            let empty =
                Node { value: Value::Scalar(String::new()), tag: None, style: Style::Plain, open: true, ..key.clone() };
            entries.push((key, empty));
        }
        attach(&mut open, &mut root, n);
    }
    Err(Box::new(Stopped { error, read: root }))
}

/// Puts a finished node in its collection, or makes it the root.
fn attach(open: &mut [(Node, Option<Node>)], root: &mut Option<Node>, done: Node) {
    match open.last_mut() {
        None => *root = Some(done),
        Some((parent, pending)) => match &mut parent.value {
            Value::Seq(items) => items.push(done),
            Value::Map(entries) => match pending.take() {
                None => *pending = Some(done),
                Some(key) => entries.push((key, done)),
            },
            Value::Scalar(_) => {}
        },
    }
}

/// A scalar as serde_yaml's typed reading sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F64(f64),
    Str(&'a str),
}

impl fmt::Display for Scalar<'_> {
    /// As serde names an unexpected value: `integer `3``, `string "x"`, `unit value`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Null => f.write_str("unit value"),
            Scalar::Bool(b) => write!(f, "boolean `{b}`"),
            Scalar::U64(v) => write!(f, "integer `{v}`"),
            Scalar::I64(v) => write!(f, "integer `{v}`"),
            Scalar::U128(v) => write!(f, "integer `{v}` as u128"),
            Scalar::I128(v) => write!(f, "integer `{v}` as i128"),
            Scalar::F64(v) => {
                let text = v.to_string();
                if v.is_finite() && !text.contains('.') {
                    write!(f, "floating point `{text}.0`")
                } else {
                    write!(f, "floating point `{text}`")
                }
            }
            Scalar::Str(s) => write!(f, "string {s:?}"),
        }
    }
}

pub(crate) fn is_null_word(s: &str) -> bool {
    matches!(s, "null" | "Null" | "NULL" | "~")
}

pub(crate) fn bool_word(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `007` and `-012`: leading zeros make digits a string in YAML 1.2.
pub(crate) fn zero_padded_digits(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    body.len() > 1 && body.starts_with('0') && body.bytes().skip(1).all(|b| b.is_ascii_digit())
}

/// The integer prefixes YAML 1.2 reads: hexadecimal, octal and binary.
const RADIXES: [(&str, u32); 3] = [("0x", 16), ("0o", 8), ("0b", 2)];

/// A number in `radix` written after a prefix; a sign right after the prefix is not a number.
fn digits_in<T>(rest: &str, radix: u32, parse: fn(&str, u32) -> Option<T>) -> Option<T> {
    if rest.starts_with(['+', '-']) {
        return None;
    }
    parse(rest, radix)
}

/// A non-negative integer: `+` allowed, `0x`/`0o`/`0b` prefixes, no leading zeros.
pub(crate) fn unsigned<T>(s: &str, parse: fn(&str, u32) -> Option<T>) -> Option<T> {
    let body = s.strip_prefix('+').unwrap_or(s);
    for (prefix, radix) in RADIXES {
        if let Some(v) = body.strip_prefix(prefix).and_then(|rest| digits_in(rest, radix, parse)) {
            return Some(v);
        }
    }
    if body.starts_with(['+', '-']) || zero_padded_digits(s) {
        return None;
    }
    parse(body, 10)
}

/// A negative (or any decimal) integer: `-0x..` prefixes, no leading zeros.
fn negative<T>(s: &str, parse: fn(&str, u32) -> Option<T>) -> Option<T> {
    for (prefix, radix) in RADIXES {
        if let Some(rest) = s.strip_prefix('-').and_then(|r| r.strip_prefix(prefix)) {
            if let Some(v) = parse(&format!("-{rest}"), radix) {
                return Some(v);
            }
        }
    }
    if zero_padded_digits(s) {
        return None;
    }
    parse(s, 10)
}

/// A signed integer as a typed integer field reads it (`+5`, `-0x10`, `0o17`).
pub(crate) fn signed<T>(s: &str, parse: fn(&str, u32) -> Option<T>) -> Option<T> {
    let body = match s.strip_prefix('+') {
        Some(b) if b.starts_with(['+', '-']) => return None,
        Some(b) => b,
        None => s,
    };
    for (prefix, radix) in RADIXES {
        if let Some(v) = body.strip_prefix(prefix).and_then(|rest| digits_in(rest, radix, parse)) {
            return Some(v);
        }
        if let Some(rest) = s.strip_prefix('-').and_then(|r| r.strip_prefix(prefix)) {
            if let Some(v) = parse(&format!("-{rest}"), radix) {
                return Some(v);
            }
        }
    }
    if zero_padded_digits(s) {
        return None;
    }
    parse(body, 10)
}

pub(crate) fn parse_u64(s: &str, radix: u32) -> Option<u64> {
    u64::from_str_radix(s, radix).ok()
}
pub(crate) fn parse_i64(s: &str, radix: u32) -> Option<i64> {
    i64::from_str_radix(s, radix).ok()
}
fn parse_u128(s: &str, radix: u32) -> Option<u128> {
    u128::from_str_radix(s, radix).ok()
}
fn parse_i128(s: &str, radix: u32) -> Option<i128> {
    i128::from_str_radix(s, radix).ok()
}

/// A float: `.inf`, `-.inf`, `.nan` in their three spellings, or a finite decimal.
pub(crate) fn float(s: &str) -> Option<f64> {
    let body = match s.strip_prefix('+') {
        Some(b) if b.starts_with(['+', '-']) => return None,
        Some(b) => b,
        None => s,
    };
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return Some(f64::INFINITY);
    }
    if matches!(s, "-.inf" | "-.Inf" | "-.INF") {
        return Some(f64::NEG_INFINITY);
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    body.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// An integer of any width, as untagged scalars are read.
fn integer(s: &str) -> Option<Scalar<'_>> {
    if let Some(v) = unsigned(s, parse_u64) {
        return Some(Scalar::U64(v));
    }
    if let Some(v) = negative(s, parse_i64) {
        return Some(Scalar::I64(v));
    }
    if let Some(v) = unsigned(s, parse_u128) {
        return Some(Scalar::U128(v));
    }
    negative(s, parse_i128).map(Scalar::I128)
}

/// A plain scalar without a (standard) tag: null, a boolean, an integer, a float, or a string.
pub(crate) fn untagged(s: &str) -> Scalar<'_> {
    if s.is_empty() || is_null_word(s) {
        return Scalar::Null;
    }
    if let Some(b) = bool_word(s) {
        return Scalar::Bool(b);
    }
    if let Some(i) = integer(s) {
        return i;
    }
    if !zero_padded_digits(s) {
        if let Some(f) = float(s) {
            return Scalar::F64(f);
        }
    }
    Scalar::Str(s)
}

/// What a scalar node holds, standard tags (`!!int`, `!!bool`, `!!float`, `!!null`) included; `Err` with serde's
/// message when a standard tag's text is not of its type (`!!int x`).
pub(crate) fn scalar<'a>(node: &'a Node, text: &'a str) -> Result<Scalar<'a>, String> {
    let bad = |expected: &str| format!("invalid value: string {text:?}, expected {expected}");
    match node.tag.as_deref() {
        Some(TAG_BOOL) => bool_word(text).map(Scalar::Bool).ok_or_else(|| bad("a boolean")),
        Some(TAG_INT) => integer(text).ok_or_else(|| bad("an integer")),
        Some(TAG_FLOAT) => float(text).map(Scalar::F64).ok_or_else(|| bad("a float")),
        Some(TAG_NULL) => is_null_word(text).then_some(Scalar::Null).ok_or_else(|| bad("null")),
        Some(t) if t.starts_with('!') && node.style == Style::Plain => Ok(untagged(text)),
        Some(_) => Ok(Scalar::Str(text)),
        None if node.style == Style::Plain => Ok(untagged(text)),
        None => Ok(Scalar::Str(text)),
    }
}

/// What a locally tagged scalar holds below its tag: serde_yaml reads it as if untagged (plain text by the core
/// schema, quoted text as text).
pub(crate) fn below_local_tag<'a>(node: &Node, text: &'a str) -> Scalar<'a> {
    if node.style == Style::Plain {
        untagged(text)
    } else {
        Scalar::Str(text)
    }
}

/// The name of a local tag (`!foo` is `foo`, a lone `!` is `!`); `None` for standard and untagged nodes.
pub(crate) fn local_tag(node: &Node) -> Option<&str> {
    let tag = node.tag.as_deref()?;
    let rest = tag.strip_prefix('!')?;
    Some(if rest.is_empty() { tag } else { rest })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_keep_lines_and_columns() {
        let n = parse("a: 1\nb:\n  - x\n  - {c: d}\n").expect("yaml").expect("a document");
        let Value::Map(entries) = &n.value else { panic!("{n:?}") };
        assert_eq!(entries.len(), 2);
        let (k, v) = &entries[1];
        assert_eq!((k.line, k.column), (2, 1));
        let Value::Seq(items) = &v.value else { panic!("{v:?}") };
        assert_eq!((items[1].line, items[1].column), (4, 5));
        assert!(matches!(parse("# nothing\n"), Ok(None)));
        let stopped = parse("a: 1\n---\nb: 2\n").expect_err("two documents");
        assert!(matches!(*stopped, Stopped { error: TreeError::MoreThanOneDocument, read: Some(_) }));
        let stopped = parse("a: 1\nb: [x\n").expect_err("broken");
        assert!(matches!(stopped.error, TreeError::Syntax(_)), "{}", stopped.error);
        let Some(Node { value: Value::Map(entries), .. }) = stopped.read else { panic!("{stopped:?}") };
        assert_eq!(entries.len(), 2, "what was read before the error is kept");
    }

    #[test]
    fn scalars_read_as_yaml_1_2_core() {
        assert_eq!(untagged("~"), Scalar::Null);
        assert_eq!(untagged(""), Scalar::Null);
        assert_eq!(untagged("True"), Scalar::Bool(true));
        assert_eq!(untagged("0x1F"), Scalar::U64(31));
        assert_eq!(untagged("-0o17"), Scalar::I64(-15));
        assert_eq!(untagged("010"), Scalar::Str("010"));
        assert_eq!(untagged("1e3"), Scalar::F64(1000.0));
        assert_eq!(untagged("99999999999999999999"), Scalar::U128(99_999_999_999_999_999_999));
        assert_eq!(untagged("yes"), Scalar::Str("yes"));
        assert_eq!(Scalar::F64(2.0).to_string(), "floating point `2.0`");
        assert_eq!(Scalar::Str("a\"b").to_string(), "string \"a\\\"b\"");
        assert_eq!(signed("+0x10", parse_i64), Some(16));
        assert_eq!(signed("-0x10", parse_i64), Some(-16));
        assert_eq!(signed("++1", parse_i64), None);
    }
}
