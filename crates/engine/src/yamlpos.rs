//! Locating things in multi-document YAML text, to give error messages line numbers.
//!
//! This is a line-oriented approximation of YAML's structure, not a parser: it understands
//! document markers, block mappings and block sequences (the style of virtually every Kubernetes
//! manifest), comments and quoted keys, and stops at flow collections and scalars. All line numbers
//! are 1-based. Nothing here panics, whatever the input.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

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
#[cfg(test)]
pub fn split_documents(text: &str) -> Vec<Doc<'_>> {
    split_documents_at_most(text, usize::MAX)
}

/// Like `split_documents`, but stops after the first `max` documents (the text after them is not looked at).
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

/// A block of lines: an optional first line made of what follows a sequence item's dash (`- name: x` gives
/// `name: x`), then `lines[rest]`.
#[derive(Clone, Copy)]
struct Block<'a> {
    head: Option<Line<'a>>,
    rest: (usize, usize),
}

/// A mapping key or sequence item: its line and the node of its nested block (`None` when there is none).
#[derive(Clone, Copy, Debug)]
struct Entry {
    line: usize,
    child: Option<usize>,
}

#[derive(Debug)]
enum Node<'a> {
    /// A block mapping: each key (the first of equal keys) and its entry.
    Map(FxHashMap<Cow<'a, str>, Entry>),
    /// A block sequence's items, in order.
    Seq(Vec<Entry>),
}

/// The block structure of one YAML document, built once in time linear in the document: every lookup then costs
/// the length of its path, however many there are (one per warning of a manifest, one per action of a scenario).
///
/// It is the line-oriented approximation described in the module documentation: block mappings and sequences,
/// comments, quoted keys, sequences indented at their key's level and items written `- name: x`; flow
/// collections and scalars are not descended into.
#[derive(Debug)]
pub struct LineIndex<'a> {
    nodes: Vec<Node<'a>>,
    /// The node of the whole document (`None`: no content line).
    root: Option<usize>,
    /// The first content line.
    root_line: Option<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `doc_text` (one document, lines numbered from 1).
    pub fn new(doc_text: &'a str) -> LineIndex<'a> {
        let lines = content_lines(doc_text);
        let mut index = LineIndex { nodes: Vec::new(), root: None, root_line: lines.first().map(|l| l.no) };
        // Blocks still to index, each with the node it becomes: iterative, so no nesting can exhaust a stack.
        let mut todo: Vec<(usize, Block<'a>)> = Vec::new();
        index.root = index.node_for(Block { head: None, rest: (0, lines.len()) }, &lines, &mut todo);
        while let Some((id, block)) = todo.pop() {
            let node = index.build(block, &lines, &mut todo);
            index.nodes[id] = node;
        }
        index
    }

    /// A node for a non-empty block, indexed later (`None` for an empty block).
    fn node_for(&mut self, block: Block<'a>, lines: &[Line<'a>], todo: &mut Vec<(usize, Block<'a>)>) -> Option<usize> {
        if block.head.is_none() && block.rest.0 >= block.rest.1.min(lines.len()) {
            return None;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Seq(Vec::new()));
        todo.push((id, block));
        Some(id)
    }

    /// The entries of a non-empty block; their nested blocks are queued.
    fn build(&mut self, block: Block<'a>, lines: &[Line<'a>], todo: &mut Vec<(usize, Block<'a>)>) -> Node<'a> {
        let (start, end) = (block.rest.0, block.rest.1.min(lines.len()));
        let rest = lines.get(start..end).unwrap_or(&[]);
        let Some(first) = block.head.or_else(|| rest.first().copied()) else { return Node::Seq(Vec::new()) };
        let ind = first.indent;
        // Position p in the block: the head (if any) is position 0, then `rest`.
        let offset = usize::from(block.head.is_some());
        let len = rest.len() + offset;
        let at = |p: usize| -> Line<'a> {
            match (block.head, p) {
                (Some(h), 0) => h,
                _ => rest[p - offset],
            }
        };
        // The lines of `rest` after position p.
        let after = |p: usize| start + (p + 1).saturating_sub(offset);
        if is_seq_item(first.text) {
            let mut items = Vec::new();
            let mut p = 0;
            while p < len {
                let dash = at(p);
                if !(dash.indent == ind && is_seq_item(dash.text)) {
                    p += 1;
                    continue;
                }
                let mut q = p + 1;
                while q < len && at(q).indent > ind {
                    q += 1;
                }
                let text = dash.text[1..].trim_start_matches([' ', '\t']);
                let head = (!text.is_empty() && !text.starts_with('#')).then(|| Line {
                    no: dash.no,
                    indent: ind + (dash.text.len() - text.len()),
                    text,
                });
                let child = Block { head, rest: (after(p), after(q - 1)) };
                let child = self.node_for(child, lines, todo);
                items.push(Entry { line: dash.no, child });
                p = q;
            }
            return Node::Seq(items);
        }
        let mut map: FxHashMap<Cow<'a, str>, Entry> = FxHashMap::default();
        let mut p = 0;
        while p < len {
            let l = at(p);
            p += 1;
            if l.indent != ind || is_seq_item(l.text) {
                continue;
            }
            let Some((key, value)) = split_key(l.text) else { continue };
            let mut child = None;
            if value_opens_block(value) {
                // The nested block: the more indented lines that follow, or a sequence at the key's indentation.
                let seq_at_key = p < len && at(p).indent == ind && is_seq_item(at(p).text);
                let mut q = p;
                while q < len && (at(q).indent > ind || (seq_at_key && at(q).indent == ind && is_seq_item(at(q).text)))
                {
                    q += 1;
                }
                if q > p && !map.contains_key(&key) {
                    child = self.node_for(Block { head: None, rest: (after(p - 1), after(q - 1)) }, lines, todo);
                }
                p = q;
            }
            map.entry(key).or_insert(Entry { line: l.no, child });
        }
        Node::Map(map)
    }

    /// Follows `path`; returns (exact line, deepest line found).
    fn search(&self, path: &[&str]) -> (Option<usize>, Option<usize>) {
        if path.is_empty() {
            return (self.root_line, self.root_line);
        }
        let mut node = self.root;
        let mut deepest = None;
        for seg in path {
            let Some(n) = node.and_then(|n| self.nodes.get(n)) else { return (None, deepest) };
            let entry = match n {
                Node::Map(map) => map.get(*seg),
                Node::Seq(items) => {
                    if seg.is_empty() || !seg.bytes().all(|b| b.is_ascii_digit()) {
                        return (None, deepest);
                    }
                    seg.parse::<usize>().ok().and_then(|i| items.get(i))
                }
            };
            let Some(e) = entry else { return (None, deepest) };
            deepest = Some(e.line);
            node = e.child;
        }
        (deepest, deepest)
    }

    /// The 1-based line of the node at `path`, or `None` if it cannot be found: see [`line_of_path`].
    pub fn line_of_path(&self, path: &[&str]) -> Option<usize> {
        self.search(path).0
    }

    /// The line of the node at `path`, or of its deepest ancestor found, or 1: see [`nearest_line_of_path`].
    pub fn nearest_line_of_path(&self, path: &[&str]) -> usize {
        self.search(path).1.unwrap_or(1)
    }
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
///
/// This indexes the whole document: for more than one lookup, build a [`LineIndex`] once.
#[cfg(test)]
pub fn line_of_path(doc_text: &str, path: &[&str]) -> Option<usize> {
    LineIndex::new(doc_text).line_of_path(path)
}

/// Like `line_of_path`, but when the full path cannot be found, returns the line of the deepest
/// ancestor that was found, or 1 if not even the first segment was.
pub fn nearest_line_of_path(doc_text: &str, path: &[&str]) -> usize {
    LineIndex::new(doc_text).nearest_line_of_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search this module did before [`LineIndex`]: path by path, over the lines (quadratic when many paths
    /// are looked up). Kept as the reference the index must agree with.
    mod reference {
        use super::super::*;

        /// The lines of the block nested under the mapping key at `block[i]` (indented `ind`).
        fn block_after<'a>(block: &[Line<'a>], i: usize, ind: usize) -> Vec<Line<'a>> {
            let rest = block.get(i + 1..).unwrap_or(&[]);
            match rest.first() {
                Some(n) if n.indent > ind => rest.iter().take_while(|l| l.indent > ind).copied().collect(),
                // A sequence may sit at the same indentation as its key.
                Some(n) if n.indent == ind && is_seq_item(n.text) => rest
                    .iter()
                    .take_while(|l| l.indent > ind || (l.indent == ind && is_seq_item(l.text)))
                    .copied()
                    .collect(),
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
        pub(super) fn search(doc_text: &str, path: &[&str]) -> (Option<usize>, Option<usize>) {
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
                let found =
                    if is_seq_item(first.text) { seq_item(&block, ind, seg) } else { map_entry(&block, ind, seg) };
                let Some((line, child)) = found else {
                    return (None, deepest);
                };
                deepest = Some(line.no);
                block = child;
            }
            (deepest, deepest)
        }
    }

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
    fn a_manifest_splits_into_its_non_empty_documents_with_their_first_lines() {
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
    fn splitting_handles_markers_byte_order_marks_crlf_and_directives_like_yaml() {
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
    fn paths_in_a_deployment_find_their_line_or_their_nearest_ancestors_line() {
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
    fn paths_resolve_through_block_scalars_anchors_comments_and_nested_sequences() {
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

    /// Every path of a document, and some that are not there: the index finds what the reference search finds.
    fn agrees_with_the_reference(doc: &str) {
        let index = LineIndex::new(doc);
        let mut keys: Vec<String> = vec!["0".into(), "1".into(), "2".into(), "x".into(), "".into()];
        for l in content_lines(doc) {
            let t = l.text.trim_start_matches(['-', ' ', '\t']);
            if let Some((k, _)) = split_key(t) {
                keys.push(k.into_owned());
            }
        }
        crate::sort::sort(&mut keys);
        keys.dedup();
        let mut paths: Vec<Vec<&str>> = vec![vec![]];
        for _ in 0..8 {
            let mut next = Vec::new();
            for p in &paths {
                for k in &keys {
                    let mut q = p.clone();
                    q.push(k.as_str());
                    let want = reference::search(doc, &q);
                    assert_eq!(index.search(&q), want, "{q:?} in\n{doc}");
                    if want.0.is_some() {
                        next.push(q);
                    }
                }
            }
            paths = next;
        }
    }

    #[test]
    fn the_index_agrees_with_the_reference_search() {
        let docs = split_documents(MANIFEST);
        for d in &docs {
            agrees_with_the_reference(d.text);
        }
        for doc in [
            "- a: 1\n- b:\n    \"0\": zero\n",
            "a:\n- x\n- y:\n  - z\nb: 2\n",
            "a:\n  - x\n  -\n    - y\n  - - p\n    - q\nb:\n   c: 1\n  d: 2\ne: 3\n",
            "spec: 1\nspec:\n  a: 1\n",
            "spec:\n  a: 1\nspec:\n  b: 1\n",
            "   a: 1\nb: 2\n c: 3\n",
            "a: |\n  b: 1\n  c:\n    d: 2\ne:\n  - -  - f: 1\n        g: 2\n",
            "- # c\n  a: 1\n-\n- -\n  - b\n",
            "",
            "# only\n",
        ] {
            agrees_with_the_reference(doc);
        }
    }

    #[test]
    fn deep_and_large_documents_index_without_recursion() {
        let mut doc = String::new();
        for i in 0..3000 {
            doc.push_str(&format!("{}k:\n", " ".repeat(i)));
        }
        let index = LineIndex::new(&doc);
        let path = vec!["k"; 3000];
        assert_eq!(index.line_of_path(&path), Some(3000));
        let mut doc = String::from("items:\n");
        for i in 0..20_000 {
            doc.push_str(&format!("- name: n{i}\n  image: x\n"));
        }
        let index = LineIndex::new(&doc);
        for i in (0..20_000).step_by(997) {
            let s = i.to_string();
            assert_eq!(index.line_of_path(&["items", &s, "image"]), Some(2 * i + 3));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// On block-ish YAML made of random lines (keys, items, comments, odd indentation, tabs, quotes), the index
        /// finds what the reference search finds, and nothing panics.
        #[test]
        fn the_index_agrees_on_random_documents(
            lines in proptest::collection::vec(
                (0usize..7, proptest::sample::select(vec![
                    "a:", "b:", "a: 1", "- a:", "-", "- x", "- - y", "\"a\":", "'b': 2", "# c", "a: |", "a: &x",
                    "c: {d: 1}", "-\tz", "\tb:", "e: [1]", "a b: c", "---", "...", "%YAML 1.2", "", "é:", "- b: 1",
                ])),
                0..40,
            )
        ) {
            let doc: String = lines.iter().map(|(i, l)| format!("{}{l}\n", " ".repeat(*i))).collect();
            agrees_with_the_reference(&doc);
        }
    }
}
