//! client-go's JSONPath (`k8s.io/client-go/util/jsonpath`), as `kubectl get -o jsonpath=`, `-o custom-columns=`
//! and `--sort-by=` use it: the template language (text, `{...}` actions, fields, `[*]`, slices, unions, filters,
//! `..`, `range` / `end`, quoted literals) parsed with upstream's parser's rules and messages, then walked over the
//! JSON kubeloop writes for `-o json` (an object as `UnstructuredContent()` holds it: integers are int64, maps
//! are `map[string]interface {}`). Bounded: the template's length, the parser's nesting, the values a walk visits
//! and the text it prints.

use serde_json::Value;

use crate::limits::OUTPUT_MAX_BYTES;

/// The longest template kubeloop reads (kubeloop's own bound; tutorials' templates are a few hundred bytes).
pub(crate) const MAX_TEMPLATE_BYTES: usize = 4096;
/// How deep the parser nests (unions, filters inside filters) and ranges nest (kubeloop's own bound).
const MAX_DEPTH: usize = 32;
/// The most values one template's walk may visit (kubeloop's own bound: `..` after `..` multiplies them).
const MAX_VISITS: usize = 2_000_000;

/// A parsed template: upstream's `Parser.Root.Nodes`.
#[derive(Clone, Debug)]
pub(crate) struct JsonPath {
    root: Vec<Node>,
}

#[derive(Clone, Debug)]
enum Node {
    Text(String),
    List(Vec<Node>),
    Field(String),
    Wildcard,
    Recursive,
    Array([Param; 3]),
    Filter { left: Vec<Node>, right: Vec<Node>, op: String },
    Union(Vec<Vec<Node>>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Identifier(String),
}

#[derive(Clone, Copy, Debug, Default)]
struct Param {
    value: i64,
    known: bool,
    derived: bool,
}

const EOF: Option<char> = None;

struct Parser<'t> {
    input: &'t str,
    pos: usize,
    start: usize,
    width: usize,
    depth: usize,
}

/// Parses `text` as upstream's `Parse` does; the error is upstream's message.
pub(crate) fn parse(text: &str) -> Result<JsonPath, String> {
    if text.len() > MAX_TEMPLATE_BYTES {
        return Err(format!(
            "kubeloop: a template is at most {MAX_TEMPLATE_BYTES} bytes (kubeloop's bound); this one has {}",
            text.len()
        ));
    }
    parse_at(text, 0).map(|root| JsonPath { root })
}

fn parse_at(text: &str, depth: usize) -> Result<Vec<Node>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("kubeloop: the template nests more than {MAX_DEPTH} levels (kubeloop's bound)"));
    }
    let mut p = Parser { input: text, pos: 0, start: 0, width: 0, depth };
    let mut root = Vec::new();
    p.parse_text(&mut root)?;
    Ok(root)
}

/// `parseAction`: `{text}` parsed, its first action's nodes.
fn parse_action(text: &str, depth: usize) -> Result<Vec<Node>, String> {
    let root = parse_at(&format!("{{{text}}}"), depth + 1)?;
    match root.into_iter().next() {
        Some(Node::List(nodes)) => Ok(nodes),
        _ => Ok(Vec::new()),
    }
}

fn is_terminator(r: Option<char>) -> bool {
    matches!(r, None | Some(' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'))
}

fn is_alphanumeric(r: Option<char>) -> bool {
    r.is_some_and(|c| c == '_' || c.is_alphabetic() || c.is_numeric())
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn consume(&mut self) -> String {
        let v = self.input[self.start..self.pos].to_string();
        self.start = self.pos;
        v
    }

    fn next(&mut self) -> Option<char> {
        match self.rest().chars().next() {
            None => {
                self.width = 0;
                EOF
            }
            Some(c) => {
                self.width = c.len_utf8();
                self.pos += self.width;
                Some(c)
            }
        }
    }

    fn backup(&mut self) {
        self.pos -= self.width;
        self.width = 0;
    }

    fn peek(&mut self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The byte two before the current position (upstream's `p.input[p.pos-2]`).
    fn before_last(&self) -> Option<u8> {
        self.pos.checked_sub(2).and_then(|i| self.input.as_bytes().get(i).copied())
    }

    fn parse_text(&mut self, root: &mut Vec<Node>) -> Result<(), String> {
        loop {
            if self.rest().starts_with('{') {
                if self.pos > self.start {
                    let t = self.consume();
                    root.push(Node::Text(t));
                }
                self.pos += 1;
                self.consume();
                let mut list = Vec::new();
                self.parse_inside_action(&mut list)?;
                root.push(Node::List(list));
                continue;
            }
            if self.next() == EOF {
                break;
            }
        }
        if self.pos > self.start {
            let t = self.consume();
            root.push(Node::Text(t));
        }
        Ok(())
    }

    /// Tokens up to the action's `}`.
    fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            if self.rest().starts_with('}') {
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if self.rest().starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if self.rest().starts_with("..") {
                if matches!(cur.last(), Some(Node::Recursive)) {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                self.consume();
                cur.push(Node::Recursive);
                if is_alphanumeric(self.peek()) {
                    self.parse_field(cur);
                }
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".into()),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => self.parse_array(cur)?,
                Some(q @ ('"' | '\'')) => self.parse_quote(cur, q)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || c.is_numeric() => {
                    self.backup();
                    self.parse_number(cur)?;
                }
                c if is_alphanumeric(c) => {
                    self.backup();
                    self.parse_identifier(cur);
                }
                Some(c) => return Err(format!("unrecognized character in action: {}", go_rune(c))),
            }
        }
    }

    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        loop {
            let r = self.next();
            if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let v = self.consume();
        cur.push(match v.as_str() {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            _ => Node::Identifier(v),
        });
    }

    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || c.is_numeric() => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let v = self.consume();
        if let Ok(i) = v.parse::<i64>() {
            cur.push(Node::Int(i));
        } else if let Some(f) = go_parse_float(&v) {
            cur.push(Node::Float(f));
        } else {
            return Err(format!("cannot parse number {v}"));
        }
        Ok(())
    }

    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let consumed = self.consume();
        let mut text = &consumed[1..consumed.len() - 1];
        if text == "*" {
            text = ":";
        }
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            let mut union = Vec::new();
            for s in parts {
                union.push(parse_action(&format!("[{}]", s.trim_matches(' ')), self.depth)?);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        if let Some(key) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).filter(|k| !k.contains('\'')) {
            cur.extend(parse_action(&format!(".{key}"), self.depth)?);
            return Ok(());
        }
        // `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`
        let pieces: Vec<&str> = text.split(':').collect();
        let shaped = |s: &str| s.strip_prefix('-').unwrap_or(s).bytes().all(|b| b.is_ascii_digit());
        if pieces.len() > 3 || !pieces.iter().all(|s| shaped(s)) {
            return Err(format!("invalid array index {text}"));
        }
        let mut params = [Param::default(); 3];
        for i in 0..3 {
            match pieces.get(i) {
                Some(v) if i == 0 && v.is_empty() => {}
                Some(v) if i > 0 && v.is_empty() => params[i].known = false,
                Some(v) => {
                    params[i].known = true;
                    params[i].value = v.parse().map_err(|_| format!("array index {v} is not a number"))?;
                }
                None if i == 1 => {
                    params[1] = Param { value: params[0].value.wrapping_add(1), known: true, derived: true };
                }
                None => {}
            }
        }
        cur.push(Node::Array(params));
        Ok(())
    }

    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let (mut begin, mut end, mut pair) = (false, false, '"');
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if self.before_last() != Some(b'\\') && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let consumed = self.consume();
        let text = &consumed[..consumed.len() - 2];
        match split_comparison(text) {
            None => {
                let left = parse_action(text, self.depth)?;
                cur.push(Node::Filter { left, right: Vec::new(), op: "exists".into() });
            }
            Some((l, op, r)) => {
                let left = parse_action(l, self.depth)?;
                let right = parse_action(r, self.depth)?;
                cur.push(Node::Filter { left, right, op: op.to_string() });
            }
        }
        Ok(())
    }

    fn parse_quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && self.before_last() != Some(b'\\') => break,
                _ => {}
            }
        }
        let v = self.consume();
        match unquote(&v) {
            Some(s) => cur.push(Node::Text(s)),
            None => return Err(format!("unquote string {v} error invalid syntax")),
        }
        Ok(())
    }

    fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        loop {
            let r = self.next();
            if r == Some('\\') {
                self.next();
            } else if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let v = self.consume();
        cur.push(if v == "*" { Node::Wildcard } else { Node::Field(v.replace('\\', "")) });
    }
}

/// `^([^!<>=]+)([!<>=]+)(.+?)$` on a filter's text: left, operator, right.
fn split_comparison(text: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let at = text.find(is_op).filter(|&i| i > 0)?;
    let run = text[at..].find(|c: char| !is_op(c)).map_or(text.len(), |n| at + n);
    if run < text.len() {
        Some((&text[..at], &text[at..run], &text[run..]))
    } else if run - at >= 2 {
        Some((&text[..at], &text[at..run - 1], &text[run - 1..]))
    } else {
        None
    }
}

/// strconv.ParseFloat of digits and dots with an optional sign.
fn go_parse_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || body == "." || !body.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    s.parse().ok()
}

/// client-go's `UnquoteExtend`: a quoted literal with Go's escapes, in single or double quotes.
fn unquote(s: &str) -> Option<String> {
    let quote = s.chars().next()?;
    let inner = s.get(1..s.len().checked_sub(1)?)?;
    if !inner.contains(['\\', quote]) {
        return Some(inner.to_string());
    }
    let mut buf: Vec<u8> = Vec::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == quote {
            return None;
        }
        if c != '\\' {
            let mut b = [0; 4];
            buf.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            continue;
        }
        let e = chars.next()?;
        let hex = |chars: &mut std::iter::Peekable<std::str::Chars>, n: usize| -> Option<u32> {
            let mut v = 0u32;
            for _ in 0..n {
                v = v * 16 + chars.next()?.to_digit(16)?;
            }
            Some(v)
        };
        let ch: u32 = match e {
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'n' => 10,
            'r' => 13,
            't' => 9,
            'v' => 11,
            'x' => {
                buf.push(u8::try_from(hex(&mut chars, 2)?).ok()?);
                continue;
            }
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    v = v * 8 + chars.next()?.to_digit(8)?;
                }
                buf.push(u8::try_from(v).ok()?);
                continue;
            }
            '\\' => '\\' as u32,
            '\'' | '"' if e == quote => e as u32,
            _ => return None,
        };
        let c = char::from_u32(ch)?;
        let mut b = [0; 4];
        buf.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    }
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Go's `%#U`: `U+0023 '#'`.
fn go_rune(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} '{c}'", c as u32)
    }
}

/// One value a walk reached: a part of the JSON, or one of the template's own (a literal, a byte of a string
/// `*` walked into).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Item<'a> {
    Json(&'a Value),
    Text(&'a str),
    Byte(u8),
    Int(i64),
    Float(f64),
    Bool(bool),
}

static NULL: Value = Value::Null;

/// A JSON number as unstructured content holds it: an int64, else a float64.
enum Num {
    Int(i64),
    Float(f64),
}

fn num(n: &serde_json::Number) -> Num {
    match n.as_i64() {
        Some(i) => Num::Int(i),
        None => Num::Float(n.as_f64().unwrap_or(0.0)),
    }
}

impl<'a> Item<'a> {
    fn is_nil(&self) -> bool {
        matches!(self, Item::Json(Value::Null))
    }

    /// The Go type's name, as upstream's messages print it.
    fn type_name(&self) -> &'static str {
        match self {
            Item::Json(Value::Object(_)) => "map[string]interface {}",
            Item::Json(Value::Array(_)) => "[]interface {}",
            Item::Json(Value::String(_)) | Item::Text(_) => "string",
            Item::Json(Value::Number(n)) => match num(n) {
                Num::Int(_) => "int64",
                Num::Float(_) => "float64",
            },
            Item::Json(Value::Bool(_)) | Item::Bool(_) => "bool",
            Item::Json(Value::Null) => "interface {}",
            Item::Byte(_) => "uint8",
            Item::Int(_) => "int",
            Item::Float(_) => "float64",
        }
    }

    /// What `*` and `..` walk into: a map's values (by key: upstream's order is Go's map order), a list's items, a
    /// string's bytes.
    fn children(&self, out: &mut Vec<Item<'a>>) {
        match *self {
            Item::Json(Value::Object(m)) => out.extend(m.values().map(Item::Json)),
            Item::Json(Value::Array(a)) => out.extend(a.iter().map(Item::Json)),
            Item::Json(Value::String(s)) => out.extend(s.bytes().map(Item::Byte)),
            Item::Text(s) => out.extend(s.bytes().map(Item::Byte)),
            _ => {}
        }
    }
}

/// A walk's failure: upstream's message, or kubeloop's bound.
pub(crate) type WalkError = String;

/// Upstream's `JSONPath` state while executing (its range counters).
struct Walk<'a> {
    root: &'a [Node],
    allow_missing: bool,
    begin_range: usize,
    in_range: usize,
    end_range: usize,
    last_end: Option<usize>,
    visits: usize,
}

impl JsonPath {
    /// `FindResults`: the values of each action (and each text between them), ranges expanded.
    pub(crate) fn find<'a>(&'a self, data: &'a Value, allow_missing: bool) -> Result<Vec<Vec<Item<'a>>>, WalkError> {
        let mut w = Walk {
            root: &self.root,
            allow_missing,
            begin_range: 0,
            in_range: 0,
            end_range: 0,
            last_end: None,
            visits: 0,
        };
        w.find_results(0, Item::Json(data))
    }

    /// `Execute` then `PrintResults`: the text kubectl prints, at most [`OUTPUT_MAX_BYTES`] of it (the second value
    /// says whether it was cut there). `as_json` is `-o jsonpath-as-json`.
    pub(crate) fn execute(
        &self,
        data: &Value,
        allow_missing: bool,
        as_json: bool,
    ) -> Result<(String, bool), WalkError> {
        let results = self.find(data, allow_missing)?;
        let mut out = String::new();
        for group in &results {
            if out.len() > OUTPUT_MAX_BYTES {
                return Ok((cut(out), true));
            }
            if as_json {
                let mut s = String::from("[");
                for (i, r) in group.iter().enumerate() {
                    s.push_str(if i == 0 { "\n" } else { ",\n" });
                    s.push_str("    ");
                    go_json(r, Some(1), &mut s);
                }
                if !group.is_empty() {
                    s.push('\n');
                }
                s.push_str("]\n");
                out.push_str(&s);
                continue;
            }
            for (i, r) in group.iter().enumerate() {
                if out.len() > OUTPUT_MAX_BYTES {
                    break;
                }
                match r {
                    Item::Json(Value::Object(_) | Value::Array(_)) => go_json(r, None, &mut out),
                    Item::Json(Value::Null) => out.push_str("null"),
                    _ => go_text(r, &mut out),
                }
                if i + 1 < group.len() {
                    out.push(' ');
                }
            }
        }
        if out.len() > OUTPUT_MAX_BYTES {
            return Ok((cut(out), true));
        }
        Ok((out, false))
    }
}

fn cut(mut s: String) -> String {
    let mut at = OUTPUT_MAX_BYTES.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s.truncate(at);
    s
}

impl<'a> Walk<'a> {
    fn count(&mut self, n: usize) -> Result<(), WalkError> {
        self.visits += n;
        if self.visits > MAX_VISITS {
            return Err(format!("kubeloop: the template visits more than {MAX_VISITS} values (kubeloop's bound)"));
        }
        Ok(())
    }

    fn find_results(&mut self, base: usize, data: Item<'a>) -> Result<Vec<Vec<Item<'a>>>, WalkError> {
        let root = self.root;
        let nodes = root.get(base..).unwrap_or(&[]);
        let cur = vec![data];
        let mut full = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            let results = self.walk(&cur, &nodes[i])?;
            if self.end_range > 0 && self.end_range <= self.in_range {
                self.end_range -= 1;
                self.last_end = Some(base + i);
                break;
            }
            if self.begin_range > 0 {
                self.begin_range -= 1;
                self.in_range += 1;
                if self.in_range > MAX_DEPTH {
                    return Err(format!("kubeloop: ranges nest more than {MAX_DEPTH} levels (kubeloop's bound)"));
                }
                if results.is_empty() {
                    self.find_results(base + i + 1, Item::Json(&NULL))?;
                } else {
                    for v in results {
                        let next = self.find_results(base + i + 1, v)?;
                        full.extend(next);
                    }
                }
                self.in_range -= 1;
                if let Some(k) = (i + 1..nodes.len()).find(|k| Some(base + k) == self.last_end) {
                    i = k;
                }
                i += 1;
                continue;
            }
            full.push(results);
            i += 1;
        }
        Ok(full)
    }

    fn walk(&mut self, input: &[Item<'a>], node: &'a Node) -> Result<Vec<Item<'a>>, WalkError> {
        let out = match node {
            Node::List(nodes) => return self.eval_list(input, nodes),
            Node::Text(t) => vec![Item::Text(t)],
            Node::Field(name) => {
                let mut out = Vec::new();
                for v in input {
                    if let Item::Json(Value::Object(m)) = v {
                        out.extend(m.get(name.as_str()).map(Item::Json));
                    }
                }
                if out.is_empty() && !input.is_empty() && !self.allow_missing {
                    return Err(format!("{name} is not found"));
                }
                out
            }
            Node::Array(params) => self.eval_array(input, *params)?,
            Node::Filter { left, right, op } => self.eval_filter(input, left, right, op)?,
            Node::Int(i) => vec![Item::Int(*i); input.len()],
            Node::Float(f) => vec![Item::Float(*f); input.len()],
            Node::Bool(b) => vec![Item::Bool(*b); input.len()],
            Node::Wildcard => {
                let mut out = Vec::new();
                for v in input {
                    v.children(&mut out);
                    self.count(0)?;
                }
                out
            }
            Node::Recursive => {
                let mut out = Vec::new();
                self.recursive(input, &mut out, 0)?;
                out
            }
            Node::Union(lists) => {
                let mut out = Vec::new();
                for l in lists {
                    out.extend(self.eval_list(input, l)?);
                }
                out
            }
            Node::Identifier(name) => match name.as_str() {
                "range" => {
                    self.begin_range += 1;
                    input.to_vec()
                }
                "end" if self.in_range > 0 => {
                    self.end_range += 1;
                    Vec::new()
                }
                "end" => return Err("not in range, nothing to end".into()),
                _ => return Err(format!("unrecognized identifier {name}")),
            },
        };
        self.count(out.len())?;
        Ok(out)
    }

    fn eval_list(&mut self, input: &[Item<'a>], nodes: &'a [Node]) -> Result<Vec<Item<'a>>, WalkError> {
        let mut cur = input.to_vec();
        for n in nodes {
            cur = self.walk(&cur, n)?;
        }
        Ok(cur)
    }

    fn recursive(&mut self, input: &[Item<'a>], out: &mut Vec<Item<'a>>, depth: usize) -> Result<(), WalkError> {
        for v in input {
            if v.is_nil() {
                continue;
            }
            let mut children = Vec::new();
            v.children(&mut children);
            if !children.is_empty() {
                out.push(*v);
                self.count(children.len())?;
                if depth < 4 * MAX_DEPTH + 64 {
                    self.recursive(&children, out, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    fn eval_array(&mut self, input: &[Item<'a>], node: [Param; 3]) -> Result<Vec<Item<'a>>, WalkError> {
        let mut out = Vec::new();
        for v in input {
            if v.is_nil() {
                continue;
            }
            let Item::Json(Value::Array(list)) = v else {
                return Err(format!("{} is not array or slice", v.type_name()));
            };
            let len = i64::try_from(list.len()).unwrap_or(i64::MAX);
            let mut p = node;
            if !p[0].known {
                p[0].value = 0;
            }
            if p[0].value < 0 {
                p[0].value = p[0].value.wrapping_add(len);
            }
            if !p[1].known {
                p[1].value = len;
            }
            if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
                p[1].value = p[1].value.wrapping_add(len);
            }
            let (from, to) = (p[0].value, p[1].value);
            if from == to {
                return Ok(out);
            }
            if from >= len || from < 0 {
                return Err(format!("array index out of bounds: index {from}, length {len}"));
            }
            if to > len || to < 0 {
                return Err(format!("array index out of bounds: index {}, length {len}", to.wrapping_sub(1)));
            }
            if from > to {
                return Err(format!("starting index {from} is greater than ending index {to}"));
            }
            let step = if p[2].known {
                if p[2].value <= 0 {
                    return Err("step must be > 0".into());
                }
                usize::try_from(p[2].value).unwrap_or(usize::MAX)
            } else {
                1
            };
            // from and to are within 0..=len here.
            let slice = &list[from as usize..to as usize];
            out.extend(slice.iter().step_by(step).map(Item::Json));
        }
        Ok(out)
    }

    fn eval_filter(
        &mut self,
        input: &[Item<'a>],
        left: &'a [Node],
        right: &'a [Node],
        op: &str,
    ) -> Result<Vec<Item<'a>>, WalkError> {
        let mut out = Vec::new();
        for v in input {
            let Item::Json(Value::Array(list)) = v else {
                return Err(format!("{} is not array or slice and cannot be filtered", go_v_string(v)));
            };
            for el in list {
                let temp = [Item::Json(el)];
                let lefts = self.eval_list(&temp, left);
                if op == "exists" {
                    if lefts.is_ok_and(|l| !l.is_empty()) {
                        out.push(Item::Json(el));
                    }
                    continue;
                }
                let lefts = lefts?;
                match lefts.len() {
                    0 => continue,
                    1 => {}
                    _ => return Err("can only compare one element at a time".into()),
                }
                let rights = self.eval_list(&temp, right)?;
                match rights.len() {
                    0 => continue,
                    1 => {}
                    _ => return Err("can only compare one element at a time".into()),
                }
                let (l, r) = (&lefts[0], &rights[0]);
                let pass = match op {
                    "<" => less(l, r)?,
                    ">" => !(less(l, r)? || equal(l, r)?),
                    "==" => equal(l, r)?,
                    "!=" => !equal(l, r)?,
                    "<=" => less(l, r)? || equal(l, r)?,
                    ">=" => !less(l, r)?,
                    _ => return Err(format!("unrecognized filter operator {op}")),
                };
                if pass {
                    out.push(Item::Json(el));
                }
            }
        }
        Ok(out)
    }
}

/// text/template's basic kinds, for comparisons.
enum Basic<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(&'a str),
}

fn basic<'a>(v: &Item<'a>) -> Result<Basic<'a>, WalkError> {
    Ok(match *v {
        Item::Json(&Value::Bool(b)) | Item::Bool(b) => Basic::Bool(b),
        Item::Json(Value::Number(n)) => match num(n) {
            Num::Int(i) => Basic::Int(i),
            Num::Float(f) => Basic::Float(f),
        },
        Item::Int(i) => Basic::Int(i),
        Item::Float(f) => Basic::Float(f),
        Item::Byte(b) => Basic::Uint(u64::from(b)),
        Item::Json(Value::String(s)) => Basic::Str(s),
        Item::Text(s) => Basic::Str(s),
        _ => return Err("invalid type for comparison".into()),
    })
}

const INCOMPATIBLE: &str = "incompatible types for comparison";

fn equal(a: &Item, b: &Item) -> Result<bool, WalkError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Bool(x), Basic::Bool(y)) => x == y,
        (Basic::Int(x), Basic::Int(y)) => x == y,
        (Basic::Uint(x), Basic::Uint(y)) => x == y,
        (Basic::Float(x), Basic::Float(y)) => x == y,
        (Basic::Str(x), Basic::Str(y)) => x == y,
        (Basic::Int(x), Basic::Uint(y)) | (Basic::Uint(y), Basic::Int(x)) => u64::try_from(x).is_ok_and(|x| x == y),
        _ => return Err(INCOMPATIBLE.into()),
    })
}

fn less(a: &Item, b: &Item) -> Result<bool, WalkError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Bool(_), Basic::Bool(_)) => return Err("invalid type for comparison".into()),
        (Basic::Int(x), Basic::Int(y)) => x < y,
        (Basic::Uint(x), Basic::Uint(y)) => x < y,
        (Basic::Float(x), Basic::Float(y)) => x < y,
        (Basic::Str(x), Basic::Str(y)) => x < y,
        (Basic::Int(x), Basic::Uint(y)) => u64::try_from(x).map_or(true, |x| x < y),
        (Basic::Uint(x), Basic::Int(y)) => u64::try_from(y).is_ok_and(|y| x < y),
        _ => return Err(INCOMPATIBLE.into()),
    })
}

/// Go's `%v` of a float64 (`strconv` 'g', shortest, exponent from 1e+06 or below 1e-04).
fn go_float(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return format!("{f}");
    }
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
    } else {
        format!("{f}")
    }
}

/// encoding/json's float64: `'f'` between 1e-6 and 1e21, `'e'` outside (`1e+21`, `1e-7`).
fn json_float(f: f64) -> String {
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let e = format!("{f:e}");
        match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        }
    } else {
        format!("{f}")
    }
}

/// A scalar as `fmt.Fprint` prints it (`evalToText`).
fn go_text(v: &Item, out: &mut String) {
    match *v {
        Item::Json(Value::String(s)) => out.push_str(s),
        Item::Text(s) => out.push_str(s),
        Item::Json(Value::Number(n)) => match num(n) {
            Num::Int(i) => out.push_str(&i.to_string()),
            Num::Float(f) => out.push_str(&go_float(f)),
        },
        Item::Json(&Value::Bool(b)) | Item::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Item::Int(i) => out.push_str(&i.to_string()),
        Item::Float(f) => out.push_str(&go_float(f)),
        Item::Byte(b) => out.push_str(&b.to_string()),
        Item::Json(Value::Null) => out.push_str("<nil>"),
        Item::Json(other) => go_v(other, out),
    }
}

/// Go's `%v` (`fmt.Sprint`), as custom columns print a value: `map[k:v]`, `[a b]`, `<nil>`.
pub(crate) fn go_v_string(v: &Item) -> String {
    let mut s = String::new();
    go_text(v, &mut s);
    s
}

fn go_v(v: &Value, out: &mut String) {
    if out.len() > OUTPUT_MAX_BYTES {
        return;
    }
    match v {
        Value::Object(m) => {
            out.push_str("map[");
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                go_v(x, out);
            }
            out.push(']');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_v(x, out);
            }
            out.push(']');
        }
        other => go_text(&Item::Json(other), out),
    }
}

/// encoding/json's text of a value (`Marshal`, or `MarshalIndent` with four spaces from `indent` levels):
/// keys sorted, `<`, `>`, `&` escaped as Go escapes them.
fn go_json(v: &Item, indent: Option<usize>, out: &mut String) {
    match *v {
        Item::Json(j) => json_value(j, indent, out),
        Item::Text(s) => json_string(s, out),
        Item::Byte(b) => out.push_str(&b.to_string()),
        Item::Int(i) => out.push_str(&i.to_string()),
        Item::Float(f) => out.push_str(&json_float(f)),
        Item::Bool(b) => out.push_str(if b { "true" } else { "false" }),
    }
}

fn json_value(v: &Value, indent: Option<usize>, out: &mut String) {
    if out.len() > OUTPUT_MAX_BYTES {
        return;
    }
    let newline = |out: &mut String, level: usize| {
        if indent.is_some() {
            out.push('\n');
            out.extend(std::iter::repeat_n("    ", level));
        }
    };
    let level = indent.unwrap_or(0);
    let inner = indent.map(|l| l + 1);
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                json_string(k, out);
                out.push_str(if indent.is_some() { ": " } else { ":" });
                json_value(x, inner, out);
            }
            newline(out, level);
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                json_value(x, inner, out);
            }
            newline(out, level);
            out.push(']');
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => json_string(s, out),
        Value::Number(n) => match num(n) {
            Num::Int(i) => out.push_str(&i.to_string()),
            Num::Float(f) => out.push_str(&json_float(f)),
        },
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
    }
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `%q` of a string (`strconv.Quote`).
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%#v` of unstructured content (`map[string]interface {}{"kind":"Pod", ...}`), as kubectl's jsonpath error
/// prints the object it was given; cut at [`OUTPUT_MAX_BYTES`].
pub(crate) fn go_syntax(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        if out.len() > OUTPUT_MAX_BYTES {
            return;
        }
        match v {
            Value::Object(m) => {
                out.push_str("map[string]interface {}{");
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&go_quote(k));
                    out.push(':');
                    walk(x, out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push_str("[]interface {}{");
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    walk(x, out);
                }
                out.push('}');
            }
            Value::String(s) => out.push_str(&go_quote(s)),
            Value::Null => out.push_str("interface {}(nil)"),
            other => go_text(&Item::Json(other), out),
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    if out.len() > OUTPUT_MAX_BYTES {
        let total = out.len();
        out = cut(out);
        out.push_str(&format!("... ({} more bytes)", total - out.len()));
    }
    out
}

/// kubectl's `RelaxedJSONPathExpression`: `metadata.name`, `.metadata.name`, `{metadata.name}` and
/// `{.metadata.name}` all become `{.metadata.name}`.
pub(crate) fn relaxed(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    let braced = expr.strip_prefix('{').and_then(|e| e.strip_suffix('}'));
    let body = match braced {
        Some(b) => b.strip_prefix('.').unwrap_or(b),
        None => expr.strip_prefix('.').unwrap_or(expr),
    };
    if body.is_empty() || body.contains(['{', '}']) {
        return Err(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
                .into(),
        );
    }
    Ok(format!("{{.{body}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(t: &str, v: &Value) -> Result<String, String> {
        let p = parse(t)?;
        p.execute(v, true, false).map(|(s, _)| s)
    }

    fn data() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"app": "web"}}, "status": {"phase": "Running", "n": 2}},
            {"metadata": {"name": "b"}, "status": {"phase": "Pending", "n": 0}},
            {"metadata": {"name": "c"}, "status": {"phase": "Running", "n": 5, "x": 1.5}}
        ]})
    }

    #[test]
    fn paths_filters_ranges_and_slices() {
        let d = data();
        assert_eq!(run("{.items[*].metadata.name}", &d).unwrap(), "a b c");
        assert_eq!(run("{.items[0].metadata}", &d).unwrap(), r#"{"labels":{"app":"web"},"name":"a"}"#);
        assert_eq!(run("{.items[-1:].metadata.name}", &d).unwrap(), "c");
        assert_eq!(run("{.items[1:3].metadata.name}", &d).unwrap(), "b c");
        assert_eq!(run("{.items[::2].metadata.name}", &d).unwrap(), "a c");
        assert_eq!(run("{.items[?(@.status.phase==\"Running\")].metadata.name}", &d).unwrap(), "a c");
        assert_eq!(run("{.items[?(@.status.n>1)].metadata.name}", &d).unwrap(), "a c");
        assert_eq!(run("{.items[?(@.status.n<=0)].metadata.name}", &d).unwrap(), "b");
        assert_eq!(run("{.items[?(@.status.x)].metadata.name}", &d).unwrap(), "c");
        assert_eq!(run("{.items[?(@.metadata.name!='a')].metadata.name}", &d).unwrap(), "b c");
        assert_eq!(
            run("{range .items[*]}{.metadata.name}{\"\\t\"}{.status.phase}{\"\\n\"}{end}", &d).unwrap(),
            "a\tRunning\nb\tPending\nc\tRunning\n"
        );
        assert_eq!(run("{..app}", &d).unwrap(), "web");
        assert_eq!(run("{.items[0].metadata['name','labels']}", &d).unwrap(), r#"a {"app":"web"}"#);
        assert_eq!(run("{$.kind} {.nope}x", &d).unwrap(), "List x");
        assert_eq!(run("{.items[2].status.x} {.items[0].status.n}", &d).unwrap(), "1.5 2");
        assert_eq!(parse("{.items[0].metadata.name}").unwrap().execute(&d, true, true).unwrap().0, "[\n    \"a\"\n]\n");
    }

    #[test]
    fn errors_are_upstreams() {
        let d = data();
        assert_eq!(run("{.items[", &d).unwrap_err(), "unterminated array");
        assert_eq!(run("{.items[?(@.a==1)", &d).unwrap_err(), "unclosed array expect ]");
        assert_eq!(run("{.a", &d).unwrap_err(), "unclosed action");
        assert_eq!(run("{#}", &d).unwrap_err(), "unrecognized character in action: U+0023 '#'");
        assert_eq!(run("{.items[9]}", &d).unwrap_err(), "array index out of bounds: index 9, length 3");
        assert_eq!(run("{.kind[0]}", &d).unwrap_err(), "string is not array or slice");
        assert_eq!(run("{end}", &d).unwrap_err(), "not in range, nothing to end");
        assert_eq!(run("{foo}", &d).unwrap_err(), "unrecognized identifier foo");
        assert_eq!(run("{.items[?(@.status.n==\"x\")]}", &d).unwrap_err(), INCOMPATIBLE);
        assert_eq!(parse("{.foo}").unwrap().execute(&d, false, false).unwrap_err(), "foo is not found");
        assert_eq!(run("{.items[x]}", &d).unwrap_err(), "invalid array index x");
        assert_eq!(run("{\"\\q\"}", &d).unwrap_err(), "unquote string \"\\q\" error invalid syntax");
    }

    #[test]
    fn hostile_templates_stay_bounded() {
        let d = data();
        for t in [
            "{..*..*..*..*..*..*..*..*..*..*..*}",
            "{[?([?([?(",
            "{range ..}{range ..}{range ..}{..}{end}{end}{end}",
            "{.items[-9223372036854775808:9223372036854775807:9223372036854775807]}",
            "{[9223372036854775807]}",
            "{\"\\x\"}",
            "{'\\",
            "{[?(@'\\')]}",
        ] {
            let _ = run(t, &d);
        }
        let deep = "{".to_string() + &"[?(".repeat(1000);
        assert!(run(&deep, &d).is_err());
        assert!(parse(&"x".repeat(MAX_TEMPLATE_BYTES + 1)).is_err());
        assert_eq!(relaxed(".metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed("{metadata.name}").unwrap(), "{.metadata.name}");
        assert!(relaxed("{.a}{.b}").is_err());
        assert_eq!(go_float(1e6), "1e+06");
        assert_eq!(go_float(123456.5), "123456.5");
        assert_eq!(
            go_syntax(&json!({"a": [1, null, "x"]})),
            r#"map[string]interface {}{"a":[]interface {}{1, interface {}(nil), "x"}}"#
        );
    }
}
