//! libyaml's parser (through `unsafe-libyaml`, the parser serde_yaml uses), safely: the events of a text one at a
//! time, each copied out and freed, and a failed parse as libyaml's own problem and context with their marks.
//! [`crate::yamlcheck`] walks these events to hold a text to its budgets; [`crate::yamltree`] builds a document
//! from them.

use std::fmt;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_yaml;

/// What an event is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar,
    SequenceStart,
    MappingStart,
    SequenceEnd,
    MappingEnd,
    Other,
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// One event. The payload (tag, value, style) is copied only by an [`Events::with_payload`] parser.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub kind: Kind,
    /// The anchor a node defines (`&name`).
    pub anchor: Option<String>,
    /// A node's tag as libyaml resolves it (`!!str` is `tag:yaml.org,2002:str`; a local `!x` stays `!x`).
    pub tag: Option<String>,
    /// A scalar's text.
    pub value: String,
    pub style: Style,
    /// 1-based line and column of the event's start.
    pub line: usize,
    pub column: usize,
}

/// A mark as libyaml keeps it (0-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub index: u64,
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for Mark {
    /// `line L column C` (1-based), or the byte position when libyaml knows no line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line != 0 || self.column != 0 {
            write!(f, "line {} column {}", self.line.saturating_add(1), self.column.saturating_add(1))
        } else {
            write!(f, "position {}", self.index)
        }
    }
}

/// Why libyaml could not parse a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub problem: String,
    pub problem_offset: u64,
    pub problem_mark: Mark,
    pub context: Option<String>,
    pub context_mark: Mark,
}

impl SyntaxError {
    /// The 1-based line and column of the problem.
    pub(crate) fn location(&self) -> (usize, usize) {
        let one_based = |v: u64| usize::try_from(v).unwrap_or(usize::MAX).saturating_add(1);
        (one_based(self.problem_mark.line), one_based(self.problem_mark.column))
    }
}

impl fmt::Display for SyntaxError {
    /// As serde_yaml shows libyaml's errors: the problem, where, and the context it was found in.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problem)?;
        let (p, c) = (self.problem_mark, self.context_mark);
        if p.line != 0 || p.column != 0 {
            write!(f, " at {p}")?;
        } else if self.problem_offset != 0 {
            write!(f, " at position {}", self.problem_offset)?;
        }
        if let Some(context) = &self.context {
            write!(f, ", {context}")?;
            if (c.line != 0 || c.column != 0) && (c.line != p.line || c.column != p.column) {
                write!(f, " at {c}")?;
            }
        }
        Ok(())
    }
}

/// libyaml's parser over a string, giving its events one at a time and freeing each.
pub(crate) struct Events<'a> {
    parser: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>>,
    /// Whether `parser` was initialized (and must be deleted).
    live: bool,
    /// Whether the parser failed or ended: it is not called again.
    done: bool,
    /// Whether scalars' values and tags are copied out.
    payload: bool,
    /// The parser reads from this string: it must outlive the parser.
    _input: std::marker::PhantomData<&'a str>,
}

impl<'a> Events<'a> {
    /// Events without their payload (kinds, anchors and marks), for walking a text.
    pub(crate) fn new(input: &'a str) -> Events<'a> {
        Self::start(input, false)
    }

    /// Events with their tags, scalar values and styles, for building a document.
    pub(crate) fn with_payload(input: &'a str) -> Events<'a> {
        Self::start(input, true)
    }

    fn start(input: &'a str, payload: bool) -> Events<'a> {
        let mut parser: Box<MaybeUninit<unsafe_yaml::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        let p = parser.as_mut_ptr();
        // SAFETY: `p` points to memory for a parser, which yaml_parser_initialize initializes (it fails only when
        // it cannot allocate, and then the parser is not used). The input string outlives the parser: `Events`
        // borrows it for 'a.
        let live = unsafe {
            if unsafe_yaml::yaml_parser_initialize(p).fail {
                false
            } else {
                unsafe_yaml::yaml_parser_set_encoding(p, unsafe_yaml::YAML_UTF8_ENCODING);
                unsafe_yaml::yaml_parser_set_input_string(p, input.as_ptr(), input.len() as u64);
                true
            }
        };
        Events { parser, live, done: !live, payload, _input: std::marker::PhantomData }
    }

    /// The next event; `Err` when the text is not YAML libyaml can parse; `None` after the end or an error.
    pub(crate) fn next(&mut self) -> Option<Result<Event, SyntaxError>> {
        if self.done {
            return None;
        }
        let p = self.parser.as_mut_ptr();
        let mut raw = MaybeUninit::<unsafe_yaml::yaml_event_t>::uninit();
        // SAFETY: the parser is initialized (`done` is false only then) and has not failed; on success
        // yaml_parser_parse initializes `raw`, which is read and then freed once with yaml_event_delete. The
        // strings it points to are NUL-terminated (a scalar's value has its length) and copied before that. On
        // failure the parser's problem and context are NUL-terminated static strings or null.
        unsafe {
            if unsafe_yaml::yaml_parser_parse(p, raw.as_mut_ptr()).fail {
                self.done = true;
                let parser = &*p;
                let mark = |m: unsafe_yaml::yaml_mark_t| Mark { index: m.index, line: m.line, column: m.column };
                return Some(Err(SyntaxError {
                    problem: c_string(parser.problem.cast())
                        .unwrap_or_else(|| "libyaml parser failed but there is no error".into()),
                    problem_offset: parser.problem_offset,
                    problem_mark: mark(parser.problem_mark),
                    context: c_string(parser.context.cast()),
                    context_mark: mark(parser.context_mark),
                }));
            }
            let e = raw.as_mut_ptr();
            let mark = (*e).start_mark;
            let mut event = Event {
                kind: Kind::Other,
                anchor: None,
                tag: None,
                value: String::new(),
                style: Style::Plain,
                line: usize::try_from(mark.line).unwrap_or(usize::MAX).saturating_add(1),
                column: usize::try_from(mark.column).unwrap_or(usize::MAX).saturating_add(1),
            };
            let payload = self.payload;
            let tag = |t: *const u8| if payload { c_string(t) } else { None };
            match (*e).type_ {
                unsafe_yaml::YAML_STREAM_END_EVENT => event.kind = Kind::StreamEnd,
                unsafe_yaml::YAML_DOCUMENT_START_EVENT => event.kind = Kind::DocumentStart,
                unsafe_yaml::YAML_DOCUMENT_END_EVENT => event.kind = Kind::DocumentEnd,
                unsafe_yaml::YAML_ALIAS_EVENT => {
                    event.kind = Kind::Alias(c_string((*e).data.alias.anchor).unwrap_or_default());
                }
                unsafe_yaml::YAML_SCALAR_EVENT => {
                    let s = (*e).data.scalar;
                    event.kind = Kind::Scalar;
                    event.anchor = c_string(s.anchor);
                    event.tag = tag(s.tag);
                    if payload {
                        let len = usize::try_from(s.length).unwrap_or(0);
                        let bytes = if s.value.is_null() { &[][..] } else { std::slice::from_raw_parts(s.value, len) };
                        event.value = String::from_utf8_lossy(bytes).into_owned();
                        event.style = match s.style {
                            unsafe_yaml::YAML_SINGLE_QUOTED_SCALAR_STYLE => Style::SingleQuoted,
                            unsafe_yaml::YAML_DOUBLE_QUOTED_SCALAR_STYLE => Style::DoubleQuoted,
                            unsafe_yaml::YAML_LITERAL_SCALAR_STYLE => Style::Literal,
                            unsafe_yaml::YAML_FOLDED_SCALAR_STYLE => Style::Folded,
                            _ => Style::Plain,
                        };
                    }
                }
                unsafe_yaml::YAML_SEQUENCE_START_EVENT => {
                    event.kind = Kind::SequenceStart;
                    event.anchor = c_string((*e).data.sequence_start.anchor);
                    event.tag = tag((*e).data.sequence_start.tag);
                }
                unsafe_yaml::YAML_MAPPING_START_EVENT => {
                    event.kind = Kind::MappingStart;
                    event.anchor = c_string((*e).data.mapping_start.anchor);
                    event.tag = tag((*e).data.mapping_start.tag);
                }
                unsafe_yaml::YAML_SEQUENCE_END_EVENT => event.kind = Kind::SequenceEnd,
                unsafe_yaml::YAML_MAPPING_END_EVENT => event.kind = Kind::MappingEnd,
                _ => {}
            }
            unsafe_yaml::yaml_event_delete(e);
            if event.kind == Kind::StreamEnd {
                self.done = true;
            }
            Some(Ok(event))
        }
    }
}

/// A copy of a NUL-terminated string of libyaml (`None` for a null pointer).
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn c_string(p: *const u8) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per this function's contract.
    let s = unsafe { std::ffi::CStr::from_ptr(p.cast()) };
    Some(String::from_utf8_lossy(s.to_bytes()).into_owned())
}

impl Drop for Events<'_> {
    fn drop(&mut self) {
        if self.live {
            // SAFETY: the parser was initialized and is deleted once.
            unsafe { unsafe_yaml::yaml_parser_delete(self.parser.as_mut_ptr()) }
        }
    }
}
