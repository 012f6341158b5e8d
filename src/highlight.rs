//! A small YAML highlighter for the editor's backdrop: one line at a time, no state between lines (block scalars
//! are coloured as plain text), so it is cheap and can never fail.

/// What a piece of a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Plain,
    Key,
    Str,
    Num,
    Bool,
    Comment,
    DocSep,
    Punct,
}

impl Tok {
    pub fn class(self) -> &'static str {
        match self {
            Tok::Plain => "t-plain",
            Tok::Key => "t-key",
            Tok::Str => "t-str",
            Tok::Num => "t-num",
            Tok::Bool => "t-bool",
            Tok::Comment => "t-com",
            Tok::DocSep => "t-doc",
            Tok::Punct => "t-punct",
        }
    }
}

/// A line as pieces; concatenated they give the line back exactly.
pub type Line = Vec<(Tok, String)>;

/// Colours the given lines (the text split at `\n`, a trailing `\r` kept; the editor draws only the visible ones).
pub fn highlight_lines(lines: &[&str]) -> Vec<Line> {
    lines.iter().map(|l| line(l)).collect()
}

fn push(out: &mut Line, tok: Tok, s: &str) {
    if s.is_empty() {
        return;
    }
    match out.last_mut() {
        Some((t, prev)) if *t == tok => prev.push_str(s),
        _ => out.push((tok, s.to_string())),
    }
}

/// What a scan outside quotes does at a character ([`outside_quotes`]).
enum Scan {
    /// A quote opens here (it closes at the same character).
    Open,
    /// The character looked for.
    Found,
    /// Nothing to find past here.
    Stop,
    Next,
}

/// Scans `s`, skipping quoted text, until `at` finds its character (its byte index) or stops.
fn outside_quotes(s: &str, at: &dyn Fn(usize, char) -> Scan) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match at(i, c) {
            Scan::Open => quote = Some(c),
            Scan::Found => return Some(i),
            Scan::Stop => return None,
            Scan::Next => {}
        }
    }
    None
}

/// Byte index of a comment start (`#` at the start or after whitespace, outside quotes).
fn comment_start(s: &str) -> Option<usize> {
    let after_space =
        |i: usize| s[..i].chars().next_back().is_none_or(|p| p.is_whitespace() || matches!(p, '[' | '{' | ','));
    outside_quotes(s, &|i, c| match c {
        '#' if after_space(i) => Scan::Found,
        '"' | '\'' if after_space(i) => Scan::Open,
        _ => Scan::Next,
    })
}

/// Byte index of the `:` that ends a mapping key (followed by a space or the end), outside quotes.
fn key_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    outside_quotes(s, &|i, c| match c {
        '"' | '\'' if i == 0 => Scan::Open,
        ':' if i + 1 == s.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t' => Scan::Found,
        '{' | '[' => Scan::Stop,
        _ => Scan::Next,
    })
}

fn is_number(v: &str) -> bool {
    let v = v.strip_prefix(['-', '+']).unwrap_or(v);
    !v.is_empty()
        && v.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.')
        && v.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '_' || c == 'e' || c == 'E')
        && v.chars().filter(|c| *c == '.').count() <= 1
}

fn scalar_tok(v: &str) -> Tok {
    let t = v.trim();
    if t.starts_with('"') || t.starts_with('\'') {
        Tok::Str
    } else if is_number(t) {
        Tok::Num
    } else if matches!(t, "true" | "false" | "null" | "~" | "True" | "False" | "Null" | "TRUE" | "FALSE" | "NULL") {
        Tok::Bool
    } else {
        Tok::Plain
    }
}

/// A value: a scalar, or a flow collection (`{a: 1}`, `[x, y]`) coloured piece by piece.
fn value(out: &mut Line, v: &str) {
    let trimmed = v.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        flow(out, v);
    } else if matches!(trimmed.chars().next(), Some('|' | '>')) {
        push(out, Tok::Punct, v);
    } else {
        let lead = v.len() - trimmed.len();
        push(out, Tok::Plain, &v[..lead]);
        push(out, scalar_tok(trimmed), trimmed);
    }
}

fn flow(out: &mut Line, v: &str) {
    let mut start = 0;
    let mut quote: Option<char> = None;
    let flush = |out: &mut Line, piece: &str| {
        if piece.is_empty() {
            return;
        }
        if let Some(k) = key_end(piece.trim_start()) {
            let lead = piece.len() - piece.trim_start().len();
            push(out, Tok::Plain, &piece[..lead]);
            push(out, Tok::Key, &piece[lead..lead + k]);
            push(out, Tok::Punct, ":");
            value(out, &piece[lead + k + 1..]);
        } else {
            let lead = piece.len() - piece.trim_start().len();
            push(out, Tok::Plain, &piece[..lead]);
            push(out, scalar_tok(&piece[lead..]), &piece[lead..]);
        }
    };
    for (i, c) in v.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' | '}' | '[' | ']' | ',' => {
                flush(out, &v[start..i]);
                push(out, Tok::Punct, &v[i..i + 1]);
                start = i + 1;
            }
            _ => {}
        }
    }
    flush(out, &v[start..]);
}

/// Colours one line.
pub fn line(l: &str) -> Line {
    let mut out = Line::new();
    let (body, comment) = match comment_start(l) {
        Some(i) => (&l[..i], &l[i..]),
        None => (l, ""),
    };
    let t = body.trim_end();
    if t == "---" || t == "..." || t.starts_with("--- ") {
        push(&mut out, Tok::DocSep, body);
        push(&mut out, Tok::Comment, comment);
        return out;
    }
    // Indentation and list markers.
    let mut rest = body;
    loop {
        let lead = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        push(&mut out, Tok::Plain, &rest[..lead]);
        rest = &rest[lead..];
        if rest == "-" || rest.starts_with("- ") {
            push(&mut out, Tok::Punct, "-");
            rest = &rest[1..];
        } else {
            break;
        }
    }
    match key_end(rest) {
        Some(k) => {
            push(&mut out, Tok::Key, &rest[..k]);
            push(&mut out, Tok::Punct, ":");
            value(&mut out, &rest[k + 1..]);
        }
        None => value(&mut out, rest),
    }
    push(&mut out, Tok::Comment, comment);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(l: &Line) -> String {
        l.iter().map(|(_, s)| s.as_str()).collect()
    }

    fn highlight(text: &str) -> Vec<Line> {
        highlight_lines(&text.split('\n').collect::<Vec<_>>())
    }

    fn toks(l: &Line) -> Vec<Tok> {
        l.iter().map(|(t, _)| *t).filter(|t| *t != Tok::Plain).collect()
    }

    #[test]
    fn lines_round_trip_exactly() {
        for ex in crate::examples::EXAMPLES {
            let yaml = ex.text().expect("native builds carry the examples");
            let hl = highlight(&yaml);
            let back: Vec<String> = hl.iter().map(joined).collect();
            assert_eq!(back.join("\n"), &*yaml);
        }
        let odd = "a: 'x # y' # c\n  - {a: 1, b: [x, \"y\"]}\r\n---\n\t:\n\"k\": v\nkey:value\n";
        let back: Vec<String> = highlight(odd).iter().map(joined).collect();
        assert_eq!(back.join("\n"), odd);
    }

    #[test]
    fn keys_values_comments_and_separators_are_told_apart() {
        assert_eq!(toks(&line("  replicas: 3")), vec![Tok::Key, Tok::Punct, Tok::Num]);
        assert_eq!(toks(&line("name: web # the name")), vec![Tok::Key, Tok::Punct, Tok::Comment]);
        assert_eq!(toks(&line("  cpu: \"6\"")), vec![Tok::Key, Tok::Punct, Tok::Str]);
        assert_eq!(toks(&line("- name: nginx")), vec![Tok::Punct, Tok::Key, Tok::Punct]);
        assert_eq!(toks(&line("---")), vec![Tok::DocSep]);
        assert_eq!(toks(&line("# only a comment")), vec![Tok::Comment]);
        assert_eq!(toks(&line("paused: false")), vec![Tok::Key, Tok::Punct, Tok::Bool]);
        assert_eq!(toks(&line("image: nginx:1.27")), vec![Tok::Key, Tok::Punct]);
        assert_eq!(
            toks(&line("x: {a: 1}")),
            vec![Tok::Key, Tok::Punct, Tok::Punct, Tok::Key, Tok::Punct, Tok::Num, Tok::Punct]
        );
        assert_eq!(toks(&line("url: http://x#y")), vec![Tok::Key, Tok::Punct]);
    }
}
