//! YAML text as serde_yaml writes it (`serde_yaml::to_string` of a `Value`), without its serializer and libyaml's
//! emitter: `kubectl get -o yaml`, `kubectl version -o yaml`, `explain`'s check of a field, and a scenario's inline
//! manifests are written here, so that the page carries no YAML emitter (docs/size.md).
//!
//! Two steps, as serde_yaml's: its serializer turns the value into libyaml's events ([`Events`], including its
//! handling of tags: a one-entry mapping may turn out to be a tagged value), and an emitter writes them in libyaml's
//! block style with serde_yaml's settings (unlimited width, Unicode, indent 2) ([`Emitter`], a port of the parts of
//! `emitter.c` those settings reach, event by event and with its messages for a stream it cannot write). A
//! differential test holds both to serde_yaml's output byte for byte, on generated values and strings.

use serde_yaml::{Mapping, Number, Value};

/// The message of serde_yaml's error for a tag on a tagged value.
const NESTED_TAG: &str = "serializing nested enums in YAML is not supported yet";

/// `value` as YAML text, or the message of the error serde_yaml gives for it.
pub(crate) fn to_string(value: &Value) -> Result<String, String> {
    let mut events = Events { depth: 0, state: State::Nothing, out: Vec::new() };
    events.value(value)?;
    Emitter::write(&events.out)
}

/// A JSON value as the YAML value serde_yaml serializes it as (the same mapping order, numbers and texts).
pub(crate) fn from_json(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => Value::Number(match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Number::from(u),
            (None, Some(i)) => Number::from(i),
            _ => Number::from(n.as_f64().unwrap_or_default()),
        }),
        J::String(s) => Value::String(s.clone()),
        J::Array(items) => Value::Sequence(items.iter().map(from_json).collect()),
        J::Object(map) => {
            let mut out = Mapping::with_capacity(map.len());
            for (k, v) in map {
                out.insert(Value::String(k.clone()), from_json(v));
            }
            Value::Mapping(out)
        }
    }
}

/// A JSON value as YAML text (`serde_yaml::to_string` of it).
pub(crate) fn json_to_string(v: &serde_json::Value) -> String {
    to_string(&from_json(v)).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------------------------
// serde_yaml's serializer: a value as events

/// The scalar style serde_yaml asks the emitter for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Style {
    Any,
    Plain,
    SingleQuoted,
    Literal,
}

#[derive(Debug)]
enum Event {
    DocumentStart,
    DocumentEnd,
    Scalar { tag: Option<String>, value: String, style: Style },
    SequenceStart { tag: Option<String> },
    SequenceEnd,
    MappingStart { tag: Option<String> },
    MappingEnd,
}

/// serde_yaml's serializer state: a one-entry mapping waits to see whether its key is a tag.
enum State {
    Nothing,
    CheckForTag,
    CheckForDuplicateTag,
    FoundTag(String),
    AlreadyTagged,
}

/// A mapping entry's key: a value, or the tag of a tagged value (which serde_yaml writes as a one-entry mapping's
/// key that it then recognizes).
enum Key<'a> {
    Value(&'a Value),
    Tag(&'a str),
}

struct Events {
    depth: usize,
    state: State,
    out: Vec<Event>,
}

impl Events {
    fn value(&mut self, v: &Value) -> Result<(), String> {
        match v {
            Value::Null => self.scalar("null", Style::Plain),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain),
            Value::Number(n) => self.scalar(&n.to_string(), Style::Plain),
            Value::String(s) => self.text(s),
            Value::Sequence(items) => {
                self.start(false)?;
                for item in items {
                    self.value(item)?;
                }
                self.out.push(Event::SequenceEnd);
                self.value_end();
                Ok(())
            }
            Value::Mapping(m) => {
                self.map_start(m.len())?;
                for (k, v) in m {
                    self.entry(Key::Value(k), v)?;
                }
                self.map_end()
            }
            Value::Tagged(t) => {
                // The tag as serde_yaml displays it is `!` and its name.
                let tag = t.tag.to_string();
                self.map_start(1)?;
                self.entry(Key::Tag(tag.strip_prefix('!').unwrap_or(&tag)), &t.value)?;
                self.map_end()
            }
        }
    }

    /// `serialize_str`: a text with a line break as a literal block; one that would read as another type (a number,
    /// `true`, `null`, digits with a leading zero) single-quoted; any other as the emitter sees fit.
    fn text(&mut self, s: &str) -> Result<(), String> {
        use crate::yamltree::{untagged, zero_padded_digits, Scalar};
        let style = if s.contains('\n') {
            Style::Literal
        } else if matches!(untagged(s), Scalar::Str(_)) && !zero_padded_digits(s) {
            Style::Any
        } else {
            Style::SingleQuoted
        };
        self.scalar(s, style)
    }

    fn scalar(&mut self, value: &str, style: Style) -> Result<(), String> {
        self.flush_mapping_start()?;
        let tag = self.take_tag();
        self.value_start();
        self.out.push(Event::Scalar { tag, value: value.to_string(), style });
        self.value_end();
        Ok(())
    }

    /// A sequence's or mapping's start, with the tag found for it.
    fn start(&mut self, mapping: bool) -> Result<(), String> {
        self.flush_mapping_start()?;
        self.value_start();
        let tag = self.take_tag();
        self.out.push(if mapping { Event::MappingStart { tag } } else { Event::SequenceStart { tag } });
        Ok(())
    }

    fn value_start(&mut self) {
        if self.depth == 0 {
            self.out.push(Event::DocumentStart);
        }
        self.depth += 1;
    }

    fn value_end(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            self.out.push(Event::DocumentEnd);
        }
    }

    fn take_tag(&mut self) -> Option<String> {
        match std::mem::replace(&mut self.state, State::Nothing) {
            State::FoundTag(tag) if tag.starts_with('!') => Some(tag),
            State::FoundTag(tag) => Some(format!("!{tag}")),
            other => {
                self.state = other;
                None
            }
        }
    }

    fn flush_mapping_start(&mut self) -> Result<(), String> {
        match self.state {
            State::CheckForTag => {
                self.state = State::Nothing;
                self.start(true)
            }
            State::CheckForDuplicateTag => {
                self.state = State::Nothing;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `serialize_map`: a one-entry mapping is not started until its key shows it is not a tag.
    fn map_start(&mut self, len: usize) -> Result<(), String> {
        if len == 1 {
            self.state = if let State::FoundTag(_) = self.state {
                self.start(true)?;
                State::CheckForDuplicateTag
            } else {
                State::CheckForTag
            };
            Ok(())
        } else {
            self.start(true)
        }
    }

    fn entry(&mut self, key: Key<'_>, value: &Value) -> Result<(), String> {
        match key {
            Key::Value(k) => self.value(k)?,
            // `collect_str` of the tag (`!` and its name): a tag where a mapping waits for one, else a text.
            Key::Tag(name) => match self.state {
                State::CheckForTag => self.state = State::FoundTag(name.to_string()),
                State::CheckForDuplicateTag => return Err(NESTED_TAG.to_string()),
                _ => self.text(&format!("!{name}"))?,
            },
        }
        let tagged = matches!(self.state, State::FoundTag(_));
        self.value(value)?;
        if tagged {
            self.state = State::AlreadyTagged;
        }
        Ok(())
    }

    fn map_end(&mut self) -> Result<(), String> {
        if let State::CheckForTag = self.state {
            self.start(true)?;
        }
        if !matches!(self.state, State::AlreadyTagged) {
            self.out.push(Event::MappingEnd);
            self.value_end();
        }
        self.state = State::Nothing;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------------------------
// libyaml's emitter: events as text

/// What the emitter expects next (`yaml_emitter_state_t`, without the stream's start and end, which serde_yaml's
/// `to_string` does not send).
#[derive(Clone, Copy, PartialEq)]
enum Expect {
    FirstDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    FlowSequenceFirstItem,
    FlowMappingFirstKey,
    BlockSequenceFirstItem,
    BlockSequenceItem,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
}

/// What libyaml's `yaml_emitter_analyze_scalar` finds in a scalar.
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// An event's tag as the emitter writes it: a handle (`!`, `!!`) and a suffix, or a verbatim tag (`!<...>`).
struct TagParts<'a> {
    handle: &'a str,
    suffix: &'a str,
}

struct Emitter<'e> {
    events: &'e [Event],
    next: usize,
    out: String,
    state: Expect,
    states: Vec<Expect>,
    indent: i32,
    indents: Vec<i32>,
    flow_level: i32,
    column: i32,
    whitespace: bool,
    indention: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

/// serde_yaml's indentation (libyaml's `best_indent`).
const INDENT: i32 = 2;

impl<'e> Emitter<'e> {
    fn write(events: &'e [Event]) -> Result<String, String> {
        let mut e = Emitter {
            events,
            next: 0,
            out: String::new(),
            state: Expect::FirstDocumentStart,
            states: Vec::new(),
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            column: 0,
            whitespace: true,
            indention: true,
            mapping_context: false,
            simple_key_context: false,
        };
        while e.next < events.len() {
            let event = &events[e.next];
            e.next += 1;
            e.emit(event)?;
        }
        Ok(e.out)
    }

    /// The event after the one being emitted.
    fn peek(&self) -> Option<&'e Event> {
        self.events.get(self.next)
    }

    fn pop_state(&mut self) -> Expect {
        self.states.pop().unwrap_or(Expect::DocumentEnd)
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn emit(&mut self, event: &Event) -> Result<(), String> {
        match self.state {
            Expect::FirstDocumentStart | Expect::DocumentStart => {
                let Event::DocumentStart = event else {
                    return Err("expected DOCUMENT-START or STREAM-END".into());
                };
                if self.state == Expect::DocumentStart {
                    self.write_indent();
                    self.write_indicator("---", true, false, false);
                }
                self.state = Expect::DocumentContent;
            }
            Expect::DocumentContent => {
                self.states.push(Expect::DocumentEnd);
                self.node(event, false, false)?;
            }
            Expect::DocumentEnd => {
                let Event::DocumentEnd = event else { return Err("expected DOCUMENT-END".into()) };
                self.write_indent();
                self.state = Expect::DocumentStart;
            }
            Expect::FlowSequenceFirstItem | Expect::FlowMappingFirstKey => {
                let sequence = self.state == Expect::FlowSequenceFirstItem;
                let (open, close) = if sequence { ("[", "]") } else { ("{", "}") };
                self.write_indicator(open, true, true, false);
                self.increase_indent(true, false);
                self.flow_level += 1;
                // A flow collection is only chosen when its end is the next event (an empty one).
                if !matches!((sequence, event), (true, Event::SequenceEnd) | (false, Event::MappingEnd)) {
                    return Err("expected the end of an empty flow collection".into());
                }
                self.flow_level -= 1;
                self.pop_indent();
                self.write_indicator(close, false, false, false);
                self.state = self.pop_state();
            }
            Expect::BlockSequenceFirstItem | Expect::BlockSequenceItem => {
                if self.state == Expect::BlockSequenceFirstItem {
                    self.increase_indent(false, self.mapping_context && !self.indention);
                }
                if let Event::SequenceEnd = event {
                    self.pop_indent();
                    self.state = self.pop_state();
                    return Ok(());
                }
                self.write_indent();
                self.write_indicator("-", true, false, true);
                self.states.push(Expect::BlockSequenceItem);
                self.node(event, false, false)?;
            }
            Expect::BlockMappingFirstKey | Expect::BlockMappingKey => {
                if self.state == Expect::BlockMappingFirstKey {
                    self.increase_indent(false, false);
                }
                if let Event::MappingEnd = event {
                    self.pop_indent();
                    self.state = self.pop_state();
                    return Ok(());
                }
                self.write_indent();
                if self.simple_key(event) {
                    self.states.push(Expect::BlockMappingSimpleValue);
                    self.node(event, true, true)?;
                } else {
                    self.write_indicator("?", true, false, true);
                    self.states.push(Expect::BlockMappingValue);
                    self.node(event, true, false)?;
                }
            }
            Expect::BlockMappingSimpleValue | Expect::BlockMappingValue => {
                if self.state == Expect::BlockMappingSimpleValue {
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indent();
                    self.write_indicator(":", true, false, true);
                }
                self.states.push(Expect::BlockMappingKey);
                self.node(event, true, false)?;
            }
        }
        Ok(())
    }

    /// `yaml_emitter_emit_node`.
    fn node(&mut self, event: &Event, mapping: bool, simple_key: bool) -> Result<(), String> {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match event {
            Event::Scalar { tag, value, style } => {
                self.scalar(tag.as_deref(), value, *style);
                self.state = self.pop_state();
            }
            Event::SequenceStart { tag } | Event::MappingStart { tag } => {
                self.process_tag(tag.as_deref());
                let sequence = matches!(event, Event::SequenceStart { .. });
                // An empty collection is written in flow style (`[]`, `{}`), as is all inside one.
                let empty = match self.peek() {
                    Some(Event::SequenceEnd) => sequence,
                    Some(Event::MappingEnd) => !sequence,
                    _ => false,
                };
                self.state = match (sequence, self.flow_level > 0 || empty) {
                    (true, true) => Expect::FlowSequenceFirstItem,
                    (true, false) => Expect::BlockSequenceFirstItem,
                    (false, true) => Expect::FlowMappingFirstKey,
                    (false, false) => Expect::BlockMappingFirstKey,
                };
            }
            _ => return Err("expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS".into()),
        }
        Ok(())
    }

    /// `yaml_emitter_check_simple_key`: a key written on its own line as `key: value` (else `? key` and `: value`).
    fn simple_key(&self, event: &Event) -> bool {
        let tag_len =
            |tag: &Option<String>| tag.as_deref().map_or(0, |t| tag_parts(t).handle.len() + tag_parts(t).suffix.len());
        let length = match event {
            Event::Scalar { tag, value, .. } => {
                if analyze(value).multiline {
                    return false;
                }
                tag_len(tag) + value.len()
            }
            Event::SequenceStart { tag } if matches!(self.peek(), Some(Event::SequenceEnd)) => tag_len(tag),
            Event::MappingStart { tag } if matches!(self.peek(), Some(Event::MappingEnd)) => tag_len(tag),
            _ => return false,
        };
        length <= 128
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    /// `yaml_emitter_emit_scalar`: the style, the tag, the text.
    fn scalar(&mut self, tag: Option<&str>, value: &str, requested: Style) {
        let a = analyze(value);
        // yaml_emitter_select_scalar_style (serde_yaml's events are implicit exactly when untagged).
        let mut style = match requested {
            Style::Any | Style::Plain => Written::Plain,
            Style::SingleQuoted => Written::SingleQuoted,
            Style::Literal => Written::Literal,
        };
        if self.simple_key_context && a.multiline {
            style = Written::DoubleQuoted;
        }
        if style == Written::Plain {
            let plain_allowed = if self.flow_level > 0 { a.flow_plain_allowed } else { a.block_plain_allowed };
            if !plain_allowed || (value.is_empty() && (self.flow_level > 0 || self.simple_key_context)) {
                style = Written::SingleQuoted;
            }
        }
        if style == Written::SingleQuoted && !a.single_quoted_allowed {
            style = Written::DoubleQuoted;
        }
        if style == Written::Literal && (!a.block_allowed || self.flow_level > 0 || self.simple_key_context) {
            style = Written::DoubleQuoted;
        }
        self.process_tag(tag);
        self.increase_indent(true, false);
        match style {
            Written::Plain => self.write_plain(value),
            Written::SingleQuoted => self.write_single_quoted(value),
            Written::DoubleQuoted => self.write_double_quoted(value),
            Written::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn process_tag(&mut self, tag: Option<&str>) {
        let Some(tag) = tag else { return };
        let parts = tag_parts(tag);
        if parts.handle.is_empty() {
            self.write_indicator("!<", true, false, false);
            self.write_tag_content(parts.suffix);
            self.write_indicator(">", false, false, false);
        } else {
            if !self.whitespace {
                self.put(' ');
            }
            self.out.push_str(parts.handle);
            self.column += parts.handle.chars().count() as i32;
            self.whitespace = false;
            self.indention = false;
            self.write_tag_content(parts.suffix);
        }
    }

    /// `yaml_emitter_write_tag_content`: URI characters as they are, any other byte as `%XX`.
    fn write_tag_content(&mut self, suffix: &str) {
        for c in suffix.chars() {
            if c.is_ascii_alphanumeric() || "-;/?:@&=+$,_.~*'()[]".contains(c) {
                self.put(c);
            } else {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    self.out.push_str(&format!("%{b:02X}"));
                    self.column += 3;
                }
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `WRITE_BREAK`: a line feed as a new line, another break character as itself, starting a line.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, indicator: &str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(indicator);
        self.column += indicator.chars().count() as i32;
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn write_plain(&mut self, value: &str) {
        if !self.whitespace && (!value.is_empty() || self.flow_level > 0) {
            self.put(' ');
        }
        // A plain scalar has no line breaks (the analysis forbids them); the width is unlimited.
        for c in value.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str) {
        self.write_indicator("'", true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if c == ' ' {
                self.put(c);
            } else if c == '\'' {
                // A quote inside single quotes is written twice.
                self.write_text(c, &mut breaks);
                self.put(c);
            } else {
                if is_break(c) && !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_text(c, &mut breaks);
            }
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str) {
        self.write_indicator("\"", true, false, false);
        for c in value.chars() {
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{B}' => Some('v'),
                    '\u{C}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1B}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{A0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                if let Some(s) = short {
                    self.put(s);
                } else {
                    let v = c as u32;
                    let code = match v {
                        0..=0xFF => format!("x{v:02X}"),
                        0x100..=0xFFFF => format!("u{v:04X}"),
                        _ => format!("U{v:08X}"),
                    };
                    self.out.push_str(&code);
                    self.column += code.len() as i32;
                }
            } else {
                self.put(c);
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // yaml_emitter_write_block_scalar_hints: an indentation indicator when the text starts with a space or a
        // break, and the chomping indicator its trailing breaks call for.
        let mut chars = value.chars();
        if chars.clone().next().is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        let last = chars.next_back();
        let before_last = chars.next_back();
        match (last, before_last) {
            (Some(l), _) if !is_break(l) => self.write_indicator("-", false, false, false),
            (None, _) => self.write_indicator("-", false, false, false),
            (Some(_), None) => self.write_indicator("+", false, false, false),
            (Some(_), Some(b)) if is_break(b) => self.write_indicator("+", false, false, false),
            _ => {}
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            self.write_text(c, &mut breaks);
        }
    }

    /// One character of a quoted or block scalar's text: a break as a line break, any other character after the
    /// indentation the breaks before it call for (`breaks`: the character before was a break).
    fn write_text(&mut self, c: char, breaks: &mut bool) {
        if is_break(c) {
            self.write_break(c);
            self.indention = true;
            *breaks = true;
        } else {
            if *breaks {
                self.write_indent();
            }
            self.put(c);
            self.indention = false;
            *breaks = false;
        }
    }
}

/// The style the emitter writes a scalar in.
#[derive(Clone, Copy, PartialEq)]
enum Written {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// libyaml's tag directives (`!` and `!!`): a tag that starts with one's prefix and is longer is written with its
/// handle; any other verbatim.
fn tag_parts(tag: &str) -> TagParts<'_> {
    for (handle, prefix) in [("!", "!"), ("!!", "tag:yaml.org,2002:")] {
        if let Some(suffix) = tag.strip_prefix(prefix).filter(|s| !s.is_empty()) {
            return TagParts { handle, suffix };
        }
    }
    TagParts { handle: "", suffix: tag }
}

/// libyaml's line breaks: LF, CR, NEL, LS and PS.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's printable characters (`IS_PRINTABLE`).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..) && c != '\u{FEFF}'
}

/// `yaml_emitter_analyze_scalar` (with serde_yaml's Unicode output): which styles can write `value` as it is.
fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut line_breaks, mut special_characters) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    // IS_BLANKZ: a blank, a break, or the end (the text is followed by a NUL; a NUL inside it counts too).
    let blankz = |c: Option<char>| c.is_none_or(|c| matches!(c, ' ' | '\t' | '\0') || is_break(c));
    let chars: Vec<char> = value.chars().collect();
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = blankz(chars.get(i + 1).copied());
        let first = i == 0;
        let last = i + 1 == chars.len();
        if first {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                flow_indicators = true;
                block_indicators = true;
            }
            if c == '?' || c == ':' {
                flow_indicators = true;
                block_indicators |= followed_by_whitespace;
            }
            if c == '-' && followed_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        } else {
            if ",?[]{}".contains(c) {
                flow_indicators = true;
            }
            if c == ':' {
                flow_indicators = true;
                block_indicators |= followed_by_whitespace;
            }
            if c == '#' && preceded_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special_characters = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = blankz(Some(c));
    }
    // libyaml's yaml_emitter_analyze_scalar, each style's flags gathered: no plain style with a leading or trailing
    // space or break, a line break, a space next to a break or a special character.
    let no_plain = leading_space
        || leading_break
        || trailing_space
        || trailing_break
        || line_breaks
        || break_space
        || space_break
        || special_characters;
    Analysis {
        multiline: line_breaks,
        flow_plain_allowed: !(no_plain || flow_indicators),
        block_plain_allowed: !(no_plain || block_indicators),
        single_quoted_allowed: !(break_space || space_break || special_characters),
        block_allowed: !(trailing_space || space_break || special_characters),
    }
}

#[cfg(test)]
mod tests;
