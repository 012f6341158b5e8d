//! Hostile input: texts built to cost a lot (alias bombs, deep nesting, huge text, many documents, huge names) get a
//! clear error with its line, never a panic, a hang or runaway memory. The time of each case is bounded by design
//! (the input is refused before it is parsed, or parsed in linear time); the tests assert the outcome.

use kubeloop_engine::limits::{MAX_MESSAGE_CHARS, MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_DOCUMENTS, MAX_YAML_NODES};
use kubeloop_engine::manifest;
use kubeloop_engine::scenario::Scenario;

const POD_HEAD: &str =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bomb\nspec:\n  containers:\n  - name: c\n    image: i\n";

/// One anchor, many aliases: about 70 KB that serde_yaml would expand a thousandfold.
fn alias_bomb() -> String {
    let big = format!("[{}]", vec!["x".repeat(100); 300].join(","));
    let mut text = format!("{POD_HEAD}    livenessProbe:\n      a: &a {big}\n      b:\n");
    while text.len() < 70_000 {
        text.push_str("      - *a\n");
    }
    text
}

#[test]
fn an_alias_bomb_manifest_is_refused_at_its_anchor() {
    let e = manifest::parse(&alias_bomb()).expect_err("aliases are refused");
    assert_eq!((e.document, e.line, e.column), (1, 10, Some(10)), "{e}");
    assert!(e.message.contains("YAML anchor `&a`") && e.message.contains("anchors, aliases"), "{e}");
    assert!(e.message.len() < 400, "{e}");
}

#[test]
fn an_alias_alone_is_refused_with_its_line_and_a_hint() {
    let text = format!("{POD_HEAD}    args: [a, b]\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: *x\n");
    let e = manifest::parse(&text).expect_err("alias");
    assert_eq!((e.document, e.line, e.column), (2, 14, Some(9)), "{e}");
    assert!(e.message.contains("YAML alias `*x`") && e.message.contains("quote it"), "{e}");
    let merge = format!("{POD_HEAD}    resources:\n      <<: *limits\n");
    let e = manifest::parse(&merge).expect_err("merge key");
    assert_eq!(e.line, 10, "{e}");
    assert!(e.message.contains("merge keys"), "{e}");
}

#[test]
fn asterisks_and_ampersands_in_text_are_not_aliases() {
    let text = format!(
        "{POD_HEAD}    command: [\"sh\", \"-c\", \"ls * && echo &\"]\n    args:\n    - '*'\n    - a&b\n    - x*y\n    # &c *d\n    workingDir: |\n      *x &y\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {{k: \"*v\"}}\n"
    )
    .replace("image: i", "image: foo*bar");
    let (ms, _) = manifest::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ms.len(), 2);
}

#[test]
fn deep_nesting_is_refused_before_the_scanner_crawls() {
    let text = format!("{POD_HEAD}    args: {}\n", "[".repeat(100_000));
    let e = manifest::parse(&text).expect_err("deep");
    assert_eq!((e.line, e.column), (9, Some(10 + MAX_YAML_DEPTH + 1 - 4)), "{e}");
    assert!(e.message.contains(&format!("more than {MAX_YAML_DEPTH} levels")), "{e}");
    let text = format!("{POD_HEAD}    args: {}\n", "{a: ".repeat(100_000));
    assert!(manifest::parse(&text).is_err_and(|e| e.message.contains("nested")));
    let mut block = format!("{POD_HEAD}    args:\n");
    for i in 0..200 {
        block.push_str(&format!("{}-\n", "  ".repeat(i + 2)));
    }
    let e = manifest::parse(&block).expect_err("deep block lists");
    assert_eq!(e.line, 9 + MAX_YAML_DEPTH + 1 - 4, "{e}");
    assert!(e.message.contains("nested"), "{e}");
}

#[test]
fn text_over_the_byte_budget_is_refused_before_parsing() {
    let mut text = String::from("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: big\n  annotations:\n");
    let line = format!("    k: {}\n", "v".repeat(1000));
    while text.len() <= 5_000_000 {
        text.push_str(&line);
    }
    let e = manifest::parse(&text).expect_err("too big");
    assert!(e.message.contains(&format!("at most {MAX_YAML_BYTES} bytes")), "{e}");
    assert!(e.line > 4000 && e.line < 5000, "{e}");
    let scenario = format!("cluster:\n  nodes: 1\nmanifests: |\n  {}", text.replace('\n', "\n  "));
    let e = Scenario::parse(&scenario).expect_err("too big");
    assert!(e.message.contains(&format!("at most {MAX_YAML_BYTES} bytes")), "{e}");
}

#[test]
fn densely_packed_nodes_are_refused_over_the_node_budget() {
    // Within the byte budget, `[[[]]]` or `[a,a,a]` pack a node into every two bytes: each costs serde_yaml an event
    // and a value.
    let deep_wide = format!(
        "{POD_HEAD}    livenessProbe:\n{}",
        format!("      - {}{}\n", "[".repeat(50), "]".repeat(50)).repeat(20_000)
    );
    let e = manifest::parse(&deep_wide).expect_err("too many nodes");
    assert!(e.message.contains(&format!("more than {MAX_YAML_NODES} YAML nodes")), "{e}");
    assert!(e.line > 9_000 && e.line < 11_000, "{e}");
    // Over the documents of one text.
    let doc =
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {{{}}}\n", "a: b, ".repeat(1_000));
    let text = format!("{doc}---\n").repeat(MAX_YAML_NODES / 2_000 + 1);
    let e = manifest::parse(&text).expect_err("too many nodes");
    assert!(e.document > 200 && e.message.contains("YAML nodes"), "{e}");
}

#[test]
fn too_many_documents_are_refused_at_the_first_one_over() {
    let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n".repeat(MAX_YAML_DOCUMENTS + 1);
    let e = manifest::parse(&text).expect_err("too many documents");
    assert_eq!((e.document, e.line), (MAX_YAML_DOCUMENTS + 1, 5 * MAX_YAML_DOCUMENTS + 1), "{e}");
    assert!(e.message.contains(&format!("more than {MAX_YAML_DOCUMENTS} documents")), "{e}");
}

#[test]
fn scenario_files_have_the_same_budgets() {
    let bomb = "cluster:\n  nodes: 1\n  nodeTemplate: &t {cpu: \"1\"}\nactions:\n  - {at: 1s, addNode: *t}\n";
    let e = Scenario::parse(bomb).expect_err("anchor");
    assert_eq!((e.line, e.column), (Some(3), Some(17)), "{e}");
    assert!(e.message.contains("YAML anchor `&t`") && e.message.contains("a scenario does not need them"), "{e}");
    let deep = format!("cluster:\n  nodes: 1\nactions: {}\n", "[".repeat(100_000));
    let e = Scenario::parse(&deep).expect_err("deep");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.message.contains("nested"), "{e}");
    // Manifests in the scenario: checked where they are.
    let apply = "cluster:\n  nodes: 1\nactions:\n  - at: 1s\n    apply: |\n      apiVersion: v1\n      kind: Namespace\n      metadata:\n        name: &n a\n";
    let e = Scenario::parse(apply).expect_err("anchor in apply");
    assert_eq!(e.line, Some(9), "{e}");
    assert!(e.message.contains("YAML anchor `&n`"), "{e}");
    let manifests =
        "cluster:\n  nodes: 1\nmanifests: |\n  apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: *n\n";
    let e = Scenario::parse(manifests).expect_err("alias in manifests");
    assert_eq!(e.line, Some(7), "{e}");
    assert!(e.message.contains("YAML alias `*n`"), "{e}");
}

#[test]
fn messages_do_not_repeat_huge_user_text() {
    let huge = "x".repeat(100_000);
    let cases = [
        format!("apiVersion: v1\nkind: {huge}\nmetadata:\n  name: a\n"),
        format!("apiVersion: {huge}\nkind: Pod\nmetadata:\n  name: a\n"),
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  {huge}: 1\n"),
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {huge}\n"),
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {huge}\n"),
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  generation: \"{huge}\"\n"),
    ];
    for text in &cases {
        let (ms, _) = match manifest::parse(text) {
            Err(e) => {
                assert!(e.message.len() <= MAX_MESSAGE_CHARS + 100, "{}", e.message.len());
                continue;
            }
            Ok(r) => r,
        };
        let e = manifest::validate(&ms[0]).expect_err("invalid");
        assert!(e.message.len() <= MAX_MESSAGE_CHARS + 100, "{}", e.message.len());
    }
    let scenarios = [
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, kubectl: {huge}}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, kubectl: get pods --{huge}}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, delete: {{kind: {huge}, name: a}}}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, delete: {{kind: pod, selector: \"{huge}=(\"}}}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: {huge}, killNode: a}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, fault: {{crash: {huge}}}}}\n"),
        format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, mode: {{trigger: {huge}}}}}\n"),
        format!("cluster:\n  nodes: 1\n  {huge}: 2\n"),
        format!("cluster:\n  nodes: [{{name: {huge}}}]\n"),
        format!("cluster:\n  nodes: {huge}\n"),
        format!("cluster:\n  nodes: 1\nmanifests: |\n  apiVersion: v1\n  kind: {huge}\n"),
    ];
    for text in &scenarios {
        let e = Scenario::parse(text).expect_err("refused");
        let start: String = e.message.chars().take(300).collect();
        assert!(e.message.len() <= MAX_MESSAGE_CHARS + 100, "{}: {start}", e.message.len());
    }
}

#[test]
fn thousands_of_warnings_in_one_document_each_have_their_line() {
    let mut text = String::from("apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  containers:\n");
    for i in 0..5000 {
        text.push_str(&format!("  - name: c{i}\n    image: nginx\n    workingDir: /w\n"));
    }
    let (_, warnings) = manifest::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(warnings.len(), 5000);
    for (i, w) in warnings.iter().enumerate() {
        assert_eq!(w.path, format!("spec.containers[{i}].workingDir"));
        assert_eq!(w.line, 9 + 3 * i, "{w}");
    }
}

#[test]
fn a_scenario_of_thousands_of_actions_locates_each() {
    let mut text = String::from("cluster:\n  nodes: 1\nactions:\n");
    for i in 0..10_000 {
        text.push_str(&format!("  - at: {i}s\n    scale:\n      deployment: web\n      replicas: 1\n"));
    }
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.actions.len(), 10_000);
    assert!(sc.actions.iter().enumerate().all(|(i, a)| a.line == 4 + 4 * i));
    text.push_str("  - at: 1s\n    scale:\n      deployment: \"\"\n      replicas: 1\n");
    let e = Scenario::parse(&text).expect_err("a name is required");
    assert_eq!(e.line, Some(4 + 4 * 10_000 + 1), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Garbage made of YAML's own characters: a result, or an error with a bounded message that names a line of
    /// the text (when it names one), never a panic.
    #[test]
    fn yaml_like_garbage_is_read_or_refused_at_a_line_of_it(text in "([-:&*!|>{}\\[\\],#'\"%@` \\t\\n.a-z0-9]|\u{feff}|é|---\n|\\.\\.\\.\n){0,200}") {
        let lines = |t: &str| t.matches('\n').count() + 1;
        let refused = |t: &str, line: Option<usize>, message: &str| {
            proptest::prop_assert!(!message.is_empty() && message.chars().count() <= MAX_MESSAGE_CHARS + 60, "{message}");
            proptest::prop_assert!(line.is_none_or(|l| (1..=lines(t) + 1).contains(&l)), "line {line:?} of {} in {t:?}: {message}", lines(t));
            Ok(())
        };
        if let Err(e) = manifest::parse(&text) {
            proptest::prop_assert!(e.line >= 1);
            refused(&text, Some(e.line), &e.message)?;
        }
        for scenario in [
            text.clone(),
            format!("cluster:\n  nodes: 1\nmanifests: |\n  {}", text.replace('\n', "\n  ")),
            format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, kubectl: {text}}}\n"),
        ] {
            if let Err(e) = Scenario::parse(&scenario) {
                refused(&scenario, e.line, &e.message)?;
            }
        }
        if let Err(e) = kubeloop_engine::time::parse_duration(&text) {
            refused(&text, None, &e)?;
        }
    }
}

/// Found by the fuzzers: a selector's errors repeated every value whole, Go duration errors repeated the whole
/// text, and a piece of text full of control characters, cut at 120 characters, still grew sevenfold once quoted
/// (`\u{1d}`).
#[test]
fn selector_and_duration_errors_repeat_a_bounded_piece_of_the_input() {
    use kubeloop_engine::api::selector::parse_selector;
    use kubeloop_engine::time::parse_duration;
    let long = "node-1".repeat(200);
    for text in [format!("app in ({long}-)"), format!("{long}-=x"), format!("app {long}"), format!("app in x{long}")] {
        let e = parse_selector(&text).expect_err("invalid");
        assert!(e.chars().count() < 700 && e.contains("more bytes"), "{e}");
    }
    let e = parse_duration(&format!("0{}", "\u{1d}".repeat(300))).expect_err("invalid");
    assert!(e.chars().count() < 400 && e.contains("more bytes"), "{e}");
    // kubectl's duration flags (Go's time.ParseDuration and its quoting).
    for text in [format!("1{}", "\0".repeat(300)), format!("{}s", "x".repeat(5000)), "9".repeat(5000)] {
        let e = kubeloop_engine::time::parse_go_duration(&text).expect_err("invalid");
        assert!(e.chars().count() < 700 && e.contains("more bytes"), "{e}");
    }
}
