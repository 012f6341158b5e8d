//! Locating things in multi-document YAML text, to give error messages line numbers.
//!
//! This is a line-oriented approximation of YAML's structure, not a parser: it understands
//! document markers, block mappings and block sequences (the style of virtually every Kubernetes
//! manifest), comments and quoted keys, and stops at flow collections and scalars. All line numbers
//! are 1-based. Nothing here panics, whatever the input.

use std::borrow::Cow;

/// One non-empty document of a multi-document YAML text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Doc<'a> {
    /// 0-based position among the kept (non-empty) documents.
    pub index: usize,
    /// 1-based line, in the whole text, of the first line of `text`.
    pub first_line: usize,
    /// The document's text, without its `---` / `...` marker lines. When the `---` line carries
    /// content (`--- |`), `text` starts at that content, on line `first_line`.
    pub text: &'a str,
}

impl Doc<'_> {
    /// Converts a 1-based line within [`Doc::text`] to a 1-based line in the whole text.
    pub fn absolute_line(&self, line_in_doc: usize) -> usize {
        self.first_line.saturating_add(line_in_doc.max(1) - 1)
    }
}

/// A document marker line: `---` (starting a document, with the byte offset of any content on the
/// same line) or `...` (ending one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Start(Option<usize>),
    End,
}

fn marker(line: &str) -> Option<Marker> {
    let (rest, start) =
        if let Some(rest) = line.strip_prefix("---") { (rest, true) } else { (line.strip_prefix("...")?, false) };
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None; // `----`, `---x`, `...x`
    }
    let content = rest.trim_start_matches([' ', '\t']);
    if !start {
        return Some(Marker::End);
    }
    if content.is_empty() || content.starts_with('#') {
        Some(Marker::Start(None))
    } else {
        Some(Marker::Start(Some(line.len() - content.len())))
    }
}

/// True when a document holds nothing but whitespace, comments and directives.
fn is_blank_document(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim_start_matches(['\u{feff}', ' ', '\t', '\r']);
        t.trim_end().is_empty() || t.starts_with('#') || l.starts_with('%')
    })
}

/// Appends `text[start..end]` as a document unless it is blank.
fn push_document<'a>(docs: &mut Vec<Doc<'a>>, text: &'a str, start: usize, end: usize, first_line: usize) {
    if let Some(slice) = text.get(start..end) {
        if !is_blank_document(slice) {
            docs.push(Doc { index: docs.len(), first_line, text: slice });
        }
    }
}

/// Splits a multi-document YAML text into its documents.
///
/// Documents are separated by lines that are exactly `---`, optionally followed by whitespace and a
/// `# comment`, or by `--- ` and content (which then belongs to the new document); a `...` line
/// ends a document. Documents that are empty or hold only comments, whitespace or directives are
/// skipped; `index` counts only the kept ones, and `first_line` is always exact.
pub fn split_documents(text: &str) -> Vec<Doc<'_>> {
    split_documents_at_most(text, usize::MAX)
}

/// Like [`split_documents`], but stops after the first `max` documents (the text after them is not looked at).
pub fn split_documents_at_most(text: &str, max: usize) -> Vec<Doc<'_>> {
    let mut docs = Vec::new();
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut offset = text.len() - body.len();
    let mut start = offset;
    let mut first_line = 1;
    for (i, raw) in body.split_inclusive('\n').enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end_matches(['\n', '\r']);
        // A byte order mark may start any document of a stream.
        let (bom, line) = match line.strip_prefix('\u{feff}') {
            Some(rest) => ('\u{feff}'.len_utf8(), rest),
            None => (0, line),
        };
        if docs.len() >= max {
            return docs;
        }
        match marker(line) {
            Some(Marker::Start(content)) => {
                push_document(&mut docs, text, start, offset, first_line);
                match content {
                    Some(at) => {
                        start = offset + bom + at;
                        first_line = line_no;
                    }
                    None => {
                        start = offset + raw.len();
                        first_line = line_no + 1;
                    }
                }
            }
            Some(Marker::End) => {
                push_document(&mut docs, text, start, offset, first_line);
                start = offset + raw.len();
                first_line = line_no + 1;
            }
            None => {}
        }
        offset += raw.len();
    }
    if docs.len() < max {
        push_document(&mut docs, text, start, text.len(), first_line);
    }
    docs
}

/// A line with content: not blank, not a comment, not a marker or directive.
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    /// 1-based line number within the document text.
    no: usize,
    /// Column of the first non-blank character (tabs count as one column).
    indent: usize,
    /// The line from its first non-blank character, without trailing blanks.
    text: &'a str,
}

fn content_lines(doc: &str) -> Vec<Line<'_>> {
    let doc = doc.strip_prefix('\u{feff}').unwrap_or(doc);
    doc.split('\n')
        .enumerate()
        .filter_map(|(i, raw)| {
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            let text = raw.trim_start_matches([' ', '\t']);
            let indent = raw.len() - text.len();
            let text = text.trim_end_matches([' ', '\t', '\r']);
            let skip = text.is_empty()
                || text.starts_with('#')
                || (indent == 0 && (text.starts_with('%') || marker(raw).is_some()));
            (!skip).then_some(Line { no: i + 1, indent, text })
        })
        .collect()
}

/// `- item`, `-` alone, or `-<tab>item`.
fn is_seq_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ") || text.starts_with("-\t")
}

/// Drops a trailing ` # comment` from a value (good enough to classify the value).
fn strip_comment(value: &str) -> &str {
    if value.starts_with('#') {
        return "";
    }
    let cut = value
        .char_indices()
        .zip(value.chars().skip(1))
        .find(|((_, c), next)| (*c == ' ' || *c == '\t') && *next == '#')
        .map_or(value.len(), |((i, _), _)| i);
    value[..cut].trim_end()
}

/// Parses a double-quoted scalar at the start of `s`; returns it and the byte length consumed.
fn double_quoted(s: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' => {
                let (_, e) = chars.next()?;
                let hex_len = match e {
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    _ => 0,
                };
                if hex_len > 0 {
                    let mut code = 0u32;
                    for _ in 0..hex_len {
                        let (_, h) = chars.next()?;
                        code = code.checked_mul(16)? + h.to_digit(16)?;
                    }
                    out.push(char::from_u32(code)?);
                    continue;
                }
                out.push(match e {
                    'n' => '\n',
                    't' | '\t' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    other => other, // \" \\ \/ \ and anything unknown
                });
            }
            c => out.push(c),
        }
    }
    None
}

/// Parses a single-quoted scalar at the start of `s`; returns it and the byte length consumed.
fn single_quoted(s: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if chars.peek().map(|&(_, n)| n) == Some('\'') {
                chars.next();
                out.push('\'');
            } else {
                return Some((out, i + 1));
            }
        } else {
            out.push(c);
        }
    }
    None
}

/// Splits `key: value` into the (unquoted) key and the value with any comment removed.
fn split_key(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let (key, rest) = match text.chars().next()? {
        '"' | '\'' => {
            let (key, len) = if text.starts_with('"') { double_quoted(text)? } else { single_quoted(text)? };
            let rest = text[len..].trim_start_matches([' ', '\t']);
            let after = rest.strip_prefix(':')?;
            if !(after.is_empty() || after.starts_with([' ', '\t'])) {
                return None;
            }
            (Cow::Owned(key), after)
        }
        _ => {
            let mut prev_blank = false;
            let mut found = None;
            let mut iter = text.char_indices().peekable();
            while let Some((i, c)) = iter.next() {
                if c == '#' && prev_blank {
                    return None; // a comment before any `: `
                }
                if c == ':' && iter.peek().is_none_or(|&(_, n)| n == ' ' || n == '\t') {
                    found = Some(i);
                    break;
                }
                prev_blank = c == ' ' || c == '\t';
            }
            let i = found?;
            (Cow::Borrowed(text[..i].trim_end()), &text[i + 1..])
        }
    };
    Some((key, strip_comment(rest.trim_start_matches([' ', '\t']))))
}

/// True when a mapping value leaves its content to the following, more indented lines: nothing,
/// or only an anchor and/or a tag (`spec: &base`, `data: !!map`).
fn value_opens_block(value: &str) -> bool {
    value.split_whitespace().all(|t| t.starts_with('&') || t.starts_with('!'))
}

/// The lines of the block nested under the mapping key at `block[i]` (indented `ind`).
fn block_after<'a>(block: &[Line<'a>], i: usize, ind: usize) -> Vec<Line<'a>> {
    let rest = block.get(i + 1..).unwrap_or(&[]);
    match rest.first() {
        Some(n) if n.indent > ind => rest.iter().take_while(|l| l.indent > ind).copied().collect(),
        // A sequence may sit at the same indentation as its key.
        Some(n) if n.indent == ind && is_seq_item(n.text) => {
            rest.iter().take_while(|l| l.indent > ind || (l.indent == ind && is_seq_item(l.text))).copied().collect()
        }
        _ => Vec::new(),
    }
}

/// The `seg`-th item of the sequence `block` (items at indentation `ind`): its dash line and the
/// lines of its content (the content after the dash becomes a line of its own).
fn seq_item<'a>(block: &[Line<'a>], ind: usize, seg: &str) -> Option<(Line<'a>, Vec<Line<'a>>)> {
    if seg.is_empty() || !seg.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: usize = seg.parse().ok()?;
    let (i, dash) = block.iter().enumerate().filter(|(_, l)| l.indent == ind && is_seq_item(l.text)).nth(n)?;
    let end = block.iter().skip(i + 1).position(|l| l.indent <= ind).map_or(block.len(), |p| i + 1 + p);
    let after = dash.text[1..].trim_start_matches([' ', '\t']);
    let mut child = Vec::new();
    if !after.is_empty() && !after.starts_with('#') {
        child.push(Line { no: dash.no, indent: ind + (dash.text.len() - after.len()), text: after });
    }
    child.extend_from_slice(block.get(i + 1..end).unwrap_or(&[]));
    Some((*dash, child))
}

/// The entry `seg` of the mapping `block` (keys at indentation `ind`): its key line and the lines
/// of its nested block (empty when the value is inline).
fn map_entry<'a>(block: &[Line<'a>], ind: usize, seg: &str) -> Option<(Line<'a>, Vec<Line<'a>>)> {
    block.iter().enumerate().find_map(|(i, l)| {
        if l.indent != ind || is_seq_item(l.text) {
            return None;
        }
        let (key, value) = split_key(l.text)?;
        if key != seg {
            return None;
        }
        let child = if value_opens_block(value) { block_after(block, i, ind) } else { Vec::new() };
        Some((*l, child))
    })
}

/// Follows `path`; returns (exact line, deepest line found).
fn search(doc_text: &str, path: &[&str]) -> (Option<usize>, Option<usize>) {
    let mut block = content_lines(doc_text);
    if path.is_empty() {
        let root = block.first().map(|l| l.no);
        return (root, root);
    }
    let mut deepest = None;
    for seg in path {
        let Some(first) = block.first() else {
            return (None, deepest);
        };
        let ind = first.indent;
        let found = if is_seq_item(first.text) { seq_item(&block, ind, seg) } else { map_entry(&block, ind, seg) };
        let Some((line, child)) = found else {
            return (None, deepest);
        };
        deepest = Some(line.no);
        block = child;
    }
    (deepest, deepest)
}

/// The 1-based line (within `doc_text`) of the node at `path` in a block-style YAML document, or
/// `None` if it cannot be found.
///
/// Each segment is a mapping key (`"spec"`) or, inside a block sequence, a 0-based item index
/// (`"0"`, giving the line of the item's `-`). For example
/// `["spec", "template", "spec", "containers", "0", "image"]` finds the first container's
/// `image:` line. Comments, quoted keys (`"spec":`, `'spec':`), sequences indented at their key's
/// level, and items written `- name: x` are understood. Flow collections (`{...}`, `[...]`) and
/// scalars are not descended into. The empty path gives the first content line.
pub fn line_of_path(doc_text: &str, path: &[&str]) -> Option<usize> {
    search(doc_text, path).0
}

/// Like [`line_of_path`], but when the full path cannot be found, returns the line of the deepest
/// ancestor that was found, or 1 if not even the first segment was.
pub fn nearest_line_of_path(doc_text: &str, path: &[&str]) -> usize {
    search(doc_text, path).1.unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"# Web tier
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # the name
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels: {app: web}
    spec:
      # two containers
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
          protocol: TCP
        resources:
          requests:
            cpu: 100m

      - name: sidecar
        image: "busybox"
        args: ["sleep", "3600"]
        env:
          - name: A
            value: "1"
          -   name: B
              value: "2"
---
# only a comment

---   # empty with a comment
--- 
apiVersion: v1
kind: Service
metadata:
  "name": web
  'namespace': default
spec:
  ports:
    - port: 80
      targetPort: 8080
...
# trailing junk after the end marker
"#;

    #[test]
    fn split_manifest() {
        let docs = split_documents(MANIFEST);
        // The leading comment-only part, the comment-only and empty documents and what follows
        // `...` are skipped.
        assert_eq!(docs.len(), 2, "{docs:#?}");
        assert_eq!((docs[0].index, docs[0].first_line), (0, 3));
        assert!(docs[0].text.starts_with("apiVersion: apps/v1\n"));
        assert!(docs[0].text.ends_with("value: \"2\"\n"));
        assert_eq!((docs[1].index, docs[1].first_line), (1, 42));
        assert!(docs[1].text.starts_with("apiVersion: v1\nkind: Service\n"));
        assert!(docs[1].text.ends_with("targetPort: 8080\n"));
        for d in &docs {
            let line = MANIFEST.lines().nth(d.first_line - 1).unwrap();
            assert!(d.text.starts_with(line), "{d:?}");
        }
        // Absolute line of the first container's image.
        let rel = line_of_path(docs[0].text, &["spec", "template", "spec", "containers", "0", "image"]);
        let abs = docs[0].absolute_line(rel.unwrap());
        assert_eq!(MANIFEST.lines().nth(abs - 1).unwrap().trim(), "image: nginx:1.25");
    }

    #[test]
    fn split_edge_cases() {
        assert!(split_documents("").is_empty());
        assert!(split_documents("\n\n# c\n---\n--- # x\n...\n").is_empty());
        let docs = split_documents("a: 1");
        assert_eq!(docs, [Doc { index: 0, first_line: 1, text: "a: 1" }]);
        let docs = split_documents("\u{feff}a: 1\n---\nb: 2\n");
        assert_eq!(docs[0].text, "a: 1\n");
        let with_bom = split_documents("a: 1\n\u{feff}--- {b: 2}\n");
        assert_eq!((with_bom[1].first_line, with_bom[1].text), (2, "{b: 2}\n"));
        assert_eq!(docs[1], Doc { index: 1, first_line: 3, text: "b: 2\n" });
        // Content on the `---` line belongs to the new document.
        let docs = split_documents("a: 1\n--- |\n  text\n--- {b: 2}\n");
        assert_eq!(docs.len(), 3);
        assert_eq!((docs[1].first_line, docs[1].text), (2, "|\n  text\n"));
        assert_eq!((docs[2].first_line, docs[2].text), (4, "{b: 2}\n"));
        // `...` ends a document; a bare document may follow.
        let docs = split_documents("a: 1\n...\nb: 2\n");
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[1].first_line, docs[1].text), (3, "b: 2\n"));
        // Not markers: longer dashes, indented, or glued to text.
        let docs = split_documents("a: |\n  ---\nb: ----\n---x: 1\n....\n");
        assert_eq!(docs.len(), 1);
        // CRLF and directives.
        let docs = split_documents("%YAML 1.2\r\n---\r\na: 1\r\n---\t\r\nb: 2\r\n");
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[0].first_line, docs[0].text), (3, "a: 1\r\n"));
        assert_eq!((docs[1].first_line, docs[1].text), (5, "b: 2\r\n"));
        assert_eq!(docs[1].absolute_line(1), 5);
        assert_eq!(docs[1].absolute_line(0), 5);
        assert_eq!(docs[1].absolute_line(usize::MAX), usize::MAX);
    }

    fn deployment() -> &'static str {
        split_documents(MANIFEST)[0].text
    }

    #[test]
    fn paths_in_deployment() {
        let d = deployment();
        let at = |p: &[&str]| line_of_path(d, p);
        // Lines within the document (it starts at line 3 of MANIFEST).
        assert_eq!(at(&[]), Some(1));
        assert_eq!(at(&["apiVersion"]), Some(1));
        assert_eq!(at(&["kind"]), Some(2));
        assert_eq!(at(&["metadata", "name"]), Some(4));
        assert_eq!(at(&["metadata", "labels", "app"]), Some(6));
        assert_eq!(at(&["spec"]), Some(7));
        assert_eq!(at(&["spec", "replicas"]), Some(8));
        assert_eq!(at(&["spec", "selector", "matchLabels", "app"]), Some(11));
        assert_eq!(at(&["spec", "template", "metadata", "labels"]), Some(14));
        assert_eq!(at(&["spec", "template", "spec", "containers"]), Some(17));
        let c = ["spec", "template", "spec", "containers"];
        let at_c = |rest: &[&str]| at(&[&c[..], rest].concat());
        assert_eq!(at_c(&["0"]), Some(18));
        assert_eq!(at_c(&["0", "name"]), Some(18));
        assert_eq!(at_c(&["0", "image"]), Some(19));
        assert_eq!(at_c(&["0", "ports", "0", "containerPort"]), Some(21));
        assert_eq!(at_c(&["0", "ports", "0", "protocol"]), Some(22));
        assert_eq!(at_c(&["0", "resources", "requests", "cpu"]), Some(25));
        assert_eq!(at_c(&["1"]), Some(27));
        assert_eq!(at_c(&["1", "image"]), Some(28));
        assert_eq!(at_c(&["1", "args"]), Some(29));
        assert_eq!(at_c(&["1", "env", "0", "value"]), Some(32));
        assert_eq!(at_c(&["1", "env", "1", "name"]), Some(33));
        assert_eq!(at_c(&["1", "env", "1", "value"]), Some(34));
        // Not found.
        assert_eq!(at_c(&["2"]), None);
        assert_eq!(at_c(&["0", "command"]), None);
        assert_eq!(at_c(&["x"]), None);
        assert_eq!(at_c(&["1", "args", "0"]), None, "flow sequence");
        assert_eq!(at(&["spec", "template", "metadata", "labels", "app"]), None, "flow map");
        assert_eq!(at(&["spec", "replicas", "x"]), None);
        assert_eq!(at(&["name"]), None, "not at the top level");
        assert_eq!(at(&["metadata", "app"]), None, "not directly under metadata");
        // Nearest ancestor.
        let near = |p: &[&str]| nearest_line_of_path(d, p);
        assert_eq!(near(&["spec", "template", "metadata", "labels", "app"]), 14);
        assert_eq!(near(&[&c[..], &["1", "args", "0"]].concat()), 29);
        assert_eq!(near(&[&c[..], &["5", "image"]].concat()), 17);
        assert_eq!(near(&[&c[..], &["0", "image"]].concat()), 19);
        assert_eq!(near(&["nope"]), 1);
        assert_eq!(near(&[]), 1);
    }

    #[test]
    fn quoted_keys_and_indented_sequences() {
        let svc = split_documents(MANIFEST)[1].text;
        assert_eq!(line_of_path(svc, &["metadata", "name"]), Some(4));
        assert_eq!(line_of_path(svc, &["metadata", "namespace"]), Some(5));
        assert_eq!(line_of_path(svc, &["spec", "ports", "0", "targetPort"]), Some(9));
        let doc = "\"a b\": 1\n'it''s': 2\n\"\\u00e9t\\u00E9\": 3\n\"x\" : 4\n\"y\":5\n\"unterminated: 6\n";
        assert_eq!(line_of_path(doc, &["a b"]), Some(1));
        assert_eq!(line_of_path(doc, &["it's"]), Some(2));
        assert_eq!(line_of_path(doc, &["été"]), Some(3));
        assert_eq!(line_of_path(doc, &["x"]), Some(4));
        assert_eq!(line_of_path(doc, &["y"]), None);
        assert_eq!(line_of_path(doc, &["unterminated"]), None);
    }

    #[test]
    fn tricky_structures() {
        let doc = "\
data:
  script.sh: |
    spec:
      x: 1
  other: >-
    folded
spec: &base   # anchored
  a: 1
  url: http://x:80/y
  'k: v': 2
  c # not a key: 3
  empty:
  list:
  - - nested
    - second
  -
    name: late
  - # comment
    name: commented
tabbed:\t
\tkey: v
";
        assert_eq!(line_of_path(doc, &["data", "script.sh"]), Some(2));
        assert_eq!(line_of_path(doc, &["data", "script.sh", "spec"]), None);
        assert_eq!(line_of_path(doc, &["spec"]), Some(7));
        assert_eq!(line_of_path(doc, &["spec", "a"]), Some(8));
        assert_eq!(line_of_path(doc, &["spec", "url"]), Some(9));
        assert_eq!(line_of_path(doc, &["spec", "k: v"]), Some(10));
        assert_eq!(line_of_path(doc, &["spec", "c"]), None);
        assert_eq!(line_of_path(doc, &["spec", "empty"]), Some(12));
        assert_eq!(line_of_path(doc, &["spec", "empty", "list"]), None);
        assert_eq!(line_of_path(doc, &["spec", "list", "0", "1"]), Some(15));
        assert_eq!(line_of_path(doc, &["spec", "list", "0", "0"]), Some(14));
        assert_eq!(line_of_path(doc, &["spec", "list", "1", "name"]), Some(17));
        assert_eq!(line_of_path(doc, &["spec", "list", "2", "name"]), Some(19));
        assert_eq!(line_of_path(doc, &["spec", "list", "3"]), None);
        assert_eq!(line_of_path(doc, &["spec", "list", "-1"]), None);
        assert_eq!(line_of_path(doc, &["spec", "list", "+1"]), None);
        assert_eq!(line_of_path(doc, &["spec", "list", "99999999999999999999999"]), None);
        assert_eq!(line_of_path(doc, &["tabbed", "key"]), Some(21));
    }

    #[test]
    fn top_level_sequence_and_numeric_keys() {
        let doc = "- a: 1\n- b:\n    \"0\": zero\n";
        assert_eq!(line_of_path(doc, &["0", "a"]), Some(1));
        assert_eq!(line_of_path(doc, &["1", "b", "0"]), Some(3));
        assert_eq!(line_of_path(doc, &["a"]), None);
    }

    #[test]
    fn no_panics_on_odd_input() {
        let inputs = [
            "",
            "\n",
            "-",
            "- ",
            ":",
            ": :",
            "\"",
            "'",
            "\"\\",
            "\"\\u12",
            "\"\\uD800\": x",
            "é: ü\n  ö:\n\t- ä",
            "---",
            "--- ",
            "...",
            "a:\n\t\tb:\n - c\n-\n  -",
            "   a: 1\nb: 2\n",
            "\r\n\r",
            "a:\n  - \n  -\t\n",
            "#",
            "a: 'x\nb: \"y",
            "\u{feff}",
            "\u{feff}---\n\u{feff}",
        ];
        let paths: [&[&str]; 5] = [&[], &["a"], &["a", "0"], &["0", "0", "b"], &["", ""]];
        for s in inputs {
            for d in split_documents(s) {
                assert!(d.first_line >= 1);
                let _ = line_of_path(d.text, &["a"]);
            }
            for p in paths {
                let _ = line_of_path(s, p);
                assert!(nearest_line_of_path(s, p) >= 1);
            }
        }
        assert_eq!(line_of_path("é: ü\n", &["é"]), Some(1));
        assert_eq!(line_of_path("a:\n - c\n", &["a", "0"]), Some(2));
    }
}
