//! The budgets of a YAML text, checked before the text is read into a tree ([`crate::yamltree`]): its size, its
//! documents, its directives, its nodes, how deep its collections nest, and no anchors or aliases.
//!
//! A reader that keeps a whole document (a tree, or serde_yaml's events) pays for every node, and an alias would
//! replay its anchor each time it is used: a 70 KB text of aliases expands into gigabytes, and 100,000 nested `[`
//! keep the scanner busy for a minute. So the text is first walked here with the same parser ([`crate::libyaml`]),
//! one event at a time and keeping nothing, and refused at the first event over a budget: the cost of a refused
//! text is bounded by the budget, not by the text. What is inside quoted strings, block scalars (`|`, `>`) and
//! comments is text to this parser, exactly as to the reader: `image: foo*bar` or `command: ["sh", "-c", "a && b"]`
//! is not an alias.
//!
//! A text libyaml cannot parse is not refused here: the reader then fails at the same place with libyaml's message
//! (every event before that place has been checked).
//!
//! The budgets are in [`crate::limits`].

use std::fmt;

use crate::libyaml::{Events, Kind};
use crate::limits::{echo, MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_DIRECTIVES, MAX_YAML_DOCUMENTS, MAX_YAML_NODES};

/// What the text is, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// Kubernetes manifests: YAML documents of API objects.
    Manifest,
    /// A kubeloop scenario file.
    Scenario,
}

impl Subject {
    fn noun(self) -> &'static str {
        match self {
            Subject::Manifest => "manifest",
            Subject::Scenario => "scenario",
        }
    }
}

/// A text over a budget, located (1-based line and column, within the checked text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub line: usize,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(c) = self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// `4194304 bytes (4 MiB)`
fn bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{n} bytes ({:.1} MiB)", n as f64 / (1024.0 * 1024.0))
    } else {
        format!("{n} bytes")
    }
}

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    let end = at.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The size budget ([`MAX_YAML_BYTES`]), checked first and alone: nothing else is looked at in a text over it.
pub fn check_size(text: &str, subject: Subject) -> Result<(), Refusal> {
    if text.len() <= MAX_YAML_BYTES {
        return Ok(());
    }
    Err(Refusal {
        line: line_at(text, MAX_YAML_BYTES),
        column: None,
        message: format!(
            "the {} text is {}: kubeloop reads at most {} of YAML (its text budget); the budget is crossed on this line",
            subject.noun(),
            bytes(text.len()),
            bytes(MAX_YAML_BYTES)
        ),
    })
}

/// The directive budget ([`MAX_YAML_DIRECTIVES`]): libyaml reads a document's directives all at once, comparing
/// each `%TAG` with every earlier one, before it gives the first event of the document.
fn check_directives(text: &str, subject: Subject) -> Result<(), Refusal> {
    let mut seen = 0;
    for (i, line) in text.split('\n').enumerate() {
        if line.starts_with('%') {
            seen += 1;
            if seen > MAX_YAML_DIRECTIVES {
                return Err(Refusal {
                    line: i + 1,
                    column: Some(1),
                    message: format!(
                        "more than {MAX_YAML_DIRECTIVES} YAML directives (`%` lines): kubeloop's budget for a {} text (it needs none)",
                        subject.noun()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Checks every budget of a YAML text (one or more documents): its size, the number of its documents
/// (`max_documents`, at most [`MAX_YAML_DOCUMENTS`]), its directives, its nodes ([`MAX_YAML_NODES`]), the nesting of
/// its collections ([`MAX_YAML_DEPTH`]), and that it has no anchor (`&name`) or alias (`*name`). The first problem
/// is returned.
pub fn check(text: &str, subject: Subject, max_documents: usize) -> Result<(), Refusal> {
    Budget::new(subject).check(text, max_documents)
}

/// The budgets of several texts that count as one (the documents of a manifest text, checked one by one): their
/// nodes add up.
#[derive(Debug)]
pub struct Budget {
    subject: Subject,
    /// Nodes (scalars, mappings, sequences) seen so far.
    nodes: usize,
}

impl Budget {
    pub fn new(subject: Subject) -> Self {
        Budget { subject, nodes: 0 }
    }

    /// [`check`] of one more text.
    pub fn check(&mut self, text: &str, max_documents: usize) -> Result<(), Refusal> {
        let subject = self.subject;
        check_size(text, subject)?;
        check_directives(text, subject)?;
        let max_documents = max_documents.min(MAX_YAML_DOCUMENTS);
        let mut events = Events::new(text);
        let mut depth = 0usize;
        let mut documents = 0usize;
        loop {
            let event = match events.next() {
                Some(Ok(event)) => event,
                // The decode fails at the same place, with libyaml's message.
                Some(Err(_)) | None => return Ok(()),
            };
            let at = |message: String| Refusal { line: event.line, column: Some(event.column), message };
            if let Some(name) = &event.anchor {
                return Err(at(anchor_message(subject, '&', name)));
            }
            match event.kind {
                Kind::StreamEnd => return Ok(()),
                Kind::DocumentStart => {
                    documents += 1;
                    if documents > max_documents {
                        return Err(at(if subject == Subject::Scenario && max_documents == 1 {
                            "a scenario is one YAML document: a second one starts here".to_string()
                        } else {
                            format!(
                                "more than {max_documents} YAML document(s): kubeloop's budget for a {} text",
                                subject.noun()
                            )
                        }));
                    }
                }
                Kind::Alias(name) => return Err(at(anchor_message(subject, '*', &name))),
                Kind::Scalar | Kind::SequenceStart | Kind::MappingStart if self.nodes >= MAX_YAML_NODES => {
                    let noun = subject.noun();
                    return Err(at(format!(
                        "more than {MAX_YAML_NODES} YAML nodes (scalars, mappings and lists): kubeloop's budget for a \
                         {noun} text (a Deployment has a few dozen)"
                    )));
                }
                Kind::Scalar => self.nodes += 1,
                Kind::SequenceStart | Kind::MappingStart => {
                    self.nodes += 1;
                    depth += 1;
                    if depth > MAX_YAML_DEPTH {
                        let noun = subject.noun();
                        return Err(at(format!(
                            "collections nested more than {MAX_YAML_DEPTH} levels deep (mappings and lists, block or \
                             flow `[`/`{{`): kubeloop's nesting budget for a {noun} text"
                        )));
                    }
                }
                Kind::SequenceEnd | Kind::MappingEnd => depth = depth.saturating_sub(1),
                Kind::DocumentEnd | Kind::Other => {}
            }
        }
    }
}

fn anchor_message(subject: Subject, sigil: char, name: &str) -> String {
    let what = if sigil == '&' { "anchor" } else { "alias" };
    let who = match subject {
        Subject::Manifest => "Kubernetes manifests do not need them",
        Subject::Scenario => "a scenario does not need them",
    };
    let mut msg = format!(
        "YAML {what} `{sigil}{}`: kubeloop does not accept YAML anchors, aliases or merge keys (`<<: *name`) ({who}, \
         and an alias repeated many times makes a small text expand into a huge one)",
        echo(name)
    );
    if sigil == '*' {
        msg.push_str(&format!("; if `{sigil}{}` is meant as text, quote it", echo(name)));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Option<Refusal> {
        check(text, Subject::Manifest, MAX_YAML_DOCUMENTS).err()
    }

    #[test]
    fn anchors_and_aliases_are_refused_where_they_are() {
        let r = refused("a: 1\nb: &base\n  c: 2\n").expect("anchor");
        assert_eq!((r.line, r.column), (2, Some(4)), "{r}");
        assert!(r.message.contains("YAML anchor `&base`") && r.message.contains("Kubernetes manifests"), "{r}");
        let r = refused("a: [x, *y]\n").expect("alias");
        // An alias to nothing is an alias all the same: refused before any "unknown anchor".
        assert_eq!((r.line, r.column), (1, Some(8)), "{r}");
        assert!(r.message.contains("YAML alias `*y`") && r.message.contains("quote it"), "{r}");
        for text in [
            "- &a x\n- *a\n",
            "{a: &x 1, b: *x}\n",
            "? &k key\n: v\n",
            "a:\n  <<: *base\n",
            "!!map &m {a: 1}\n",
            "--- &doc\na: 1\n",
            "a: - x\n", // not YAML: no refusal, the reader reports it
        ] {
            let r = refused(text);
            if text.starts_with("a: - x") {
                assert!(r.is_none(), "{text:?}");
            } else {
                assert!(r.is_some_and(|r| r.message.contains("YAML a")), "{text:?}");
            }
        }
    }

    #[test]
    fn text_that_looks_like_anchors_is_text() {
        let text = r#"
image: foo*bar
tag: a&b
cmd: ["sh", "-c", "echo * && ls &"]
q1: "*not an alias"
q2: '&not an anchor'
# &comment *comment
script: |
  &literal
  *literal
folded: >
  *folded &folded
flow: {k: "*v", l: '&w'}
plain: x *y &z
"#;
        assert_eq!(refused(text), None);
    }

    #[test]
    fn nesting_is_bounded_in_flow_and_block_style() {
        let ok = format!("{}{}", "[".repeat(MAX_YAML_DEPTH), "]".repeat(MAX_YAML_DEPTH));
        assert_eq!(refused(&ok), None);
        let deep = "[".repeat(100_000);
        let r = refused(&deep).expect("deep");
        assert_eq!((r.line, r.column), (1, Some(MAX_YAML_DEPTH + 1)), "{r}");
        assert!(r.message.contains(&format!("more than {MAX_YAML_DEPTH} levels")), "{r}");
        let r = refused(&"{a: ".repeat(10_000)).expect("deep maps");
        assert!(r.message.contains("nested"), "{r}");
        let r = refused(&"- ".repeat(10_000)).expect("deep block lists");
        assert!(r.message.contains("nested"), "{r}");
        let mut block = String::new();
        for i in 0..100 {
            block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        let r = refused(&block).expect("deep block maps");
        assert_eq!(r.line, MAX_YAML_DEPTH + 1, "{r}");
        // Brackets inside text are text.
        assert_eq!(refused(&format!("a: \"{}\"\nb: |\n  {}\nc: x[[[\n", "[".repeat(1000), "{".repeat(1000))), None);
    }

    #[test]
    fn size_documents_and_directives_are_bounded() {
        let big = "a: b\n".repeat(MAX_YAML_BYTES / 5 + 1);
        let r = refused(&big).expect("big");
        assert_eq!(r.line, MAX_YAML_BYTES / 5 + 1, "{r}");
        assert!(r.message.contains(&format!("at most {} bytes", MAX_YAML_BYTES)), "{r}");
        let r = check("a: 1\n---\nb: 2\n---\nc: 3\n", Subject::Manifest, 2).expect_err("documents");
        assert_eq!(r.line, 4, "{r}"); // the third `---`
        assert!(r.message.contains("more than 2 YAML document(s)"), "{r}");
        let r = check("a: 1\n---\nb: 2\n", Subject::Scenario, 1).expect_err("documents");
        assert_eq!(r.line, 2, "{r}");
        assert!(r.message.contains("a scenario is one YAML document"), "{r}");
        let directives = "%TAG !a! tag:a,2000:\n".repeat(100_000) + "---\na: 1\n";
        let r = refused(&directives).expect("directives");
        assert_eq!(r.line, MAX_YAML_DIRECTIVES + 1, "{r}");
        assert_eq!(refused("%YAML 1.1\n---\na: 1\n"), None);
    }

    #[test]
    fn nodes_are_bounded_over_texts_that_count_as_one() {
        let flat = format!("[{}]", vec!["a"; MAX_YAML_NODES].join(","));
        let r = refused(&flat).expect("one node too many");
        assert_eq!((r.line, r.column), (1, Some(2 * MAX_YAML_NODES)), "{r}");
        assert!(r.message.contains(&format!("more than {MAX_YAML_NODES} YAML nodes")), "{r}");
        let half = format!("[{}]", vec!["a"; MAX_YAML_NODES / 2].join(","));
        assert_eq!(refused(&half), None);
        let mut budget = Budget::new(Subject::Manifest);
        assert_eq!(budget.check(&half, 1), Ok(()));
        assert!(budget.check(&half, 1).is_err_and(|r| r.message.contains("YAML nodes")));
    }

    #[test]
    fn broken_yaml_is_left_to_serde_yaml_and_nothing_panics() {
        for text in ["", "a: [", "a: 'x", "\t- x", "a: b: c", "---\n...\n---", "\u{feff}a: 1", "*", "&", "!<", "%"] {
            let _ = refused(text);
        }
        assert_eq!(refused("a: ["), None);
    }
}
