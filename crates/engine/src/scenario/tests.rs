use super::*;

const SMALL: &str = "cluster:\n  nodes: 2\nmanifests: |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 2\n    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: web}\n      spec:\n        containers:\n        - name: nginx\n          image: nginx:1.27\n";

#[test]
fn parses_and_runs_a_small_scenario() {
    let sc = Scenario::parse(SMALL).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.nodes.len(), 2);
    let out = sc
        .run(RunOptions { seed: Some(3), until: Some(30 * SECOND), ..RunOptions::default() })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.summary.pods.by_phase.get("Running"), Some(&(2 + crate::addons::pods(2))));
    assert!(out.summary.converged_at_ms.is_some());
}

#[test]
fn unknown_fields_are_located() {
    let e = Scenario::parse("cluster:\n  nodes: 1\nactions:\n  - atx: 3s\n").err().map(|e| (e.line, e.message));
    let (line, msg) = e.unwrap_or_default();
    assert_eq!(line, Some(4));
    assert!(msg.contains("unknown field `atx`"), "{msg}");
}

#[test]
fn kinds_accept_kubectl_names() {
    for (n, k) in [("po", Kind::Pod), ("Deployments", Kind::Deployment), ("rs", Kind::ReplicaSet), ("no", Kind::Node)] {
        assert_eq!(parse_kind(n), Ok(k));
    }
    assert_eq!(parse_kind("svc"), Ok(Kind::Service));
    assert_eq!(parse_kind("ing"), Ok(Kind::Ingress));
    assert_eq!(parse_kind("sts"), Ok(Kind::StatefulSet));
    assert!(parse_kind("replicationcontroller").is_err());
}

/// Prints `NAME N` at each poll until `until`, then ends with `code`; records whether it was stopped.
struct Ticker {
    name: &'static str,
    until: Millis,
    code: i32,
    polls: u32,
    stopped: std::rc::Rc<std::cell::Cell<bool>>,
}

impl Follow for Ticker {
    fn poll(&mut self, sim: &mut Sim) -> crate::kubectl::FollowPoll {
        self.polls += 1;
        let mut p =
            crate::kubectl::FollowPoll { stdout: format!("{} {}\n", self.name, self.polls), ..Default::default() };
        if sim.now() >= self.until {
            p.done = true;
            p.code = self.code;
            if self.code != 0 {
                p.stderr = format!("error: {} failed\n", self.name);
            }
        }
        p
    }
    fn stop(&mut self, _: &mut Sim) {
        self.stopped.set(true);
    }
}

#[test]
fn following_commands_print_as_time_passes_until_done_or_the_end() {
    let sc = Scenario::parse("cluster:\n  nodes: 1\n").unwrap_or_else(|e| panic!("{e}"));
    let mut r = sc.start(RunOptions { until: Some(SECOND), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
    let stopped: Vec<std::rc::Rc<std::cell::Cell<bool>>> = (0..3).map(|_| Default::default()).collect();
    for (i, (name, until, code)) in
        [("ok", 250, 0), ("bad", 150, 1), ("forever", Millis::MAX, 0)].into_iter().enumerate()
    {
        let follow = Ticker { name, until, code, polls: 0, stopped: stopped[i].clone() };
        r.follows.push(Following {
            command: format!("kubectl {name}"),
            follow: Box::new(follow),
            action: 0,
            stop_at: None,
            grid: FollowGrid::new(0),
        });
    }
    r.run_to(r.until());
    let out = r.finish();
    let lines: Vec<(Millis, EntryKind, &str)> = out
        .timeline
        .iter()
        .filter(|e| e.source == "kubectl" || e.kind == EntryKind::Note && e.text.starts_with("kubectl"))
        .map(|e| (e.at, e.kind, e.text.as_str()))
        .collect();
    use EntryKind::{Error, Note, Result as R};
    assert_eq!(
        lines[..8],
        [
            (100, R, "ok 1"),
            (100, R, "bad 1"),
            (100, R, "forever 1"),
            (200, R, "ok 2"),
            (200, R, "bad 2"),
            (200, Error, "error: bad failed"),
            (200, R, "forever 2"),
            (300, R, "ok 3"),
        ]
    );
    assert_eq!(lines.iter().filter(|l| l.2.starts_with("ok ") || l.2.starts_with("bad ")).count(), 5);
    assert_eq!(lines.iter().filter(|l| l.2.starts_with("forever ")).count(), 10);
    assert_eq!(lines.last(), Some(&(SECOND, Note, "kubectl forever: still running at the end of the run, stopped")));
    assert_eq!(stopped.iter().map(|s| s.get()).collect::<Vec<_>>(), [false, false, true]);
}

fn note(at: Millis, text: &str) -> TimelineEntry {
    TimelineEntry { at, kind: EntryKind::Note, source: "test".into(), text: text.into() }
}

#[test]
fn the_timeline_keeps_its_first_and_last_entries_and_counts_the_rest() {
    let mut t = Timeline::new(3, 2);
    for i in 0..10 {
        t.push(note(i, &format!("e{i}")));
    }
    assert_eq!(t.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["e0", "e1", "e2", "e8", "e9"]);
    let v = t.into_vec();
    let texts: Vec<&str> = v.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts[..3], ["e0", "e1", "e2"]);
    assert_eq!(texts[4..], ["e8", "e9"]);
    assert_eq!(v[3].at, 3);
    assert_eq!(v[3].kind, EntryKind::Note);
    assert_eq!(
        v[3].text,
        "(5 timeline entries from 0.003s to 0.007s not kept: kubeloop keeps the first 3 and the last 2 of a run)"
    );
    let mut small = Timeline::new(3, 2);
    small.push(note(0, "only"));
    assert_eq!(small.into_vec().len(), 1);
    assert_eq!(crate::limits::MAX_TIMELINE_ENTRIES, Timeline::default().head_cap + Timeline::default().tail_cap);
}

#[test]
fn a_command_following_for_days_keeps_the_timeline_bounded() {
    let sc = Scenario::parse("cluster:\n  nodes: 1\n").unwrap_or_else(|e| panic!("{e}"));
    let mut r = sc.start(RunOptions { until: Some(HOUR), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
    r.timeline = Timeline::new(100, 50);
    let stopped = std::rc::Rc::new(std::cell::Cell::new(false));
    let follow = Ticker { name: "forever", until: Millis::MAX, code: 0, polls: 0, stopped: stopped.clone() };
    let (command, grid) = ("kubectl forever".into(), FollowGrid::new(0));
    r.follows.push(Following { command, follow: Box::new(follow), action: 0, stop_at: None, grid });
    r.run_to(r.until());
    let out = r.finish();
    assert_eq!(out.timeline.len(), 151, "{}", render_timeline(&out.timeline[95..]));
    let dropped = &out.timeline[100];
    assert!(dropped.text.ends_with("not kept: kubeloop keeps the first 100 and the last 50 of a run)"), "{dropped}");
    assert_eq!(
        out.timeline.last().map(|e| e.text.as_str()),
        Some("kubectl forever: still running at the end of the run, stopped")
    );
    assert_eq!(out.timeline[149].text, "forever 36000");
    assert!(stopped.get());
}

#[test]
fn at_most_max_follows_commands_keep_printing() {
    let mut text = String::from("cluster:\n  nodes: 1\nactions:\n");
    for _ in 0..crate::limits::MAX_FOLLOWS + 2 {
        text.push_str("  - {at: 1s, kubectl: get pods -w}\n");
    }
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut r =
        sc.start(RunOptions { until: Some(2 * SECOND), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
    r.run_to(r.until());
    assert_eq!(r.follows.len(), crate::limits::MAX_FOLLOWS);
    let out = r.finish();
    let refused: Vec<&TimelineEntry> = out.timeline.iter().filter(|e| e.text.contains("not followed")).collect();
    assert_eq!(refused.len(), 2, "{}", render_timeline(&out.timeline));
    assert!(refused[0].text.contains(&format!("at most {} commands", crate::limits::MAX_FOLLOWS)), "{}", refused[0]);
}

#[test]
fn scale_and_delete_are_kubectl_command_lines() {
    let text = "cluster:\n  nodes: 1\nactions:\n  - {at: 1s, scale: {deployment: web, namespace: team-a, replicas: 4}}\n  - {at: 2s, delete: {kind: po, selector: \"tier in (a, b)\"}}\n  - {at: 3s, delete: {kind: rs, name: web-1, namespace: default}}\n  - {at: 4s, delete: {kind: no, name: node-1}}\n  - {at: 5s, kubectl: \"kubectl  get pods\"}\n  - {at: 6s, kubectl: \"k -n a get po\"}\n";
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<Option<String>> = sc.actions.iter().map(|a| a.what.kubectl_line()).collect();
    assert_eq!(
        lines,
        [
            Some("scale deployment web -n team-a --replicas=4".to_string()),
            Some("delete pod -l 'tier in (a, b)'".to_string()),
            Some("delete replicaset web-1".to_string()),
            Some("delete node node-1".to_string()),
            Some("get pods".to_string()),
            Some("-n a get po".to_string()),
        ]
    );
    for l in lines.iter().flatten() {
        assert!(crate::kubectl::args::split_words(l).is_ok(), "{l}");
    }
    assert_eq!(crate::intervention::shell_word("it's"), r"'it'\''s'");
    assert_eq!(
        crate::kubectl::args::split_words(&crate::intervention::shell_word("it's")),
        Ok(vec!["it's".to_string()])
    );
}

#[test]
fn a_written_scenario_reads_like_the_format() {
    let sc = Scenario::parse(
        "seed: 3\ncluster:\n  nodes: 1\nactions:\n  - {at: 90s, label: crash, fault: {crash: cp-1}}\n  - {at: 2m, kubectl: get pods}\n",
    )
    .expect("parses");
    let text = sc.to_yaml();
    assert_eq!(
        text,
        "seed: 3\ntiming: real\ncluster:\n  nodeTemplate: {cpu: \"4\", memory: \"16Gi\", pods: 110}\n  nodes:\n  - {cpu: \"4\", memory: \"16Gi\", pods: 110}\nactions:\n  - {at: 1m30s, label: \"crash\", fault: {crash: \"cp-1\"}}\n  - {at: 2m0s, kubectl: \"get pods\"}\n"
    );
}

/// The scenario as serde_yaml read it before the field tables: the oracle of the differential test below.
fn serde_reader(text: &str) -> Result<RawScenario, ScenarioError> {
    serde_yaml::from_str(text).map_err(|e| yaml_error(&e))
}

/// A message's path and the rest (`actions[0].at: invalid ...`); the root has no path.
fn path_and_tail(message: &str) -> (&str, &str) {
    match message.split_once(": ") {
        Some((path, tail)) if !path.contains(' ') => (path, tail),
        _ => ("", message),
    }
}

/// Whether `new` is `old` located at the value rather than at the mapping holding it: serde_yaml placed an error
/// raised after a value was read (a kind, a selector or a taint effect that does not parse, a `!!null` that is
/// not null) at the enclosing mapping; the field tables place it at the value, on the same line or below.
fn sharper(old: &ScenarioError, new: &ScenarioError) -> bool {
    let ((old_path, tail), (new_path, new_tail)) = (path_and_tail(&old.message), path_and_tail(&new.message));
    let step = if old_path.is_empty() {
        Some(new_path)
    } else {
        new_path.strip_prefix(old_path).and_then(|r| r.strip_prefix('.'))
    };
    let below = step.is_some_and(|s| !s.is_empty() && !s.contains('.') && !s.contains('['));
    tail == new_tail && below && new.line >= old.line
}

/// Both readers over `text`: the same scenario or the same error.
fn compare(text: &str) -> Result<(), String> {
    let old = Scenario::parse_with(text, serde_reader);
    let new = Scenario::parse(text);
    let same = match (&old, &new) {
        (Ok(a), Ok(b)) => format!("{a:?}") == format!("{b:?}"),
        (Err(a), Err(b)) => a == b || sharper(a, b),
        _ => false,
    };
    if same {
        return Ok(());
    }
    let show = |r: &Result<Scenario, ScenarioError>| match r {
        Ok(s) => format!("Ok({s:?})"),
        Err(e) => format!("Err({e:?})"),
    };
    Err(format!("{text}\n--- serde_yaml: {}\n--- tables:     {}", show(&old), show(&new)))
}

#[test]
fn the_field_tables_read_every_scenario_as_serde_yaml_did() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut bases = vec![include_str!("../../testdata/every-action.yaml").to_string(), SMALL.to_string()];
    for dir in [examples.clone(), examples.join("lessons")] {
        let mut paths: Vec<_> = std::fs::read_dir(dir).expect("examples").flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
            bases.push(std::fs::read_to_string(p).expect("read"));
        }
    }
    for base in &bases {
        compare(base).unwrap_or_else(|e| panic!("{e}"));
    }
    const SCENARIO_KEYS: &[&str] = &[
        "at",
        "label",
        "apply",
        "kubectl",
        "scale",
        "delete",
        "cordon",
        "uncordon",
        "killNode",
        "reviveNode",
        "addNode",
        "fault",
        "mode",
        "nodes",
        "nodeTemplate",
        "cpu",
        "memory",
        "pods",
        "labels",
        "taints",
        "effect",
        "seed",
        "until",
        "timing",
        "cluster",
        "manifests",
        "actions",
        "nodeOf",
        "every",
        "oneOf",
        "selector",
        "wait",
        "namespace",
        "deployment",
        "replicaset",
        "replicas",
        "dropWatchEvents",
        "apiLatency",
        "trigger",
        "observe",
        "pollPeriod",
        "resyncPeriod",
        "informer",
        "crash",
        "lesson",
        "title",
        "figures",
        "speed",
        "order",
        "ask",
        "choices",
        "answer",
        "expect",
        "within",
        "throughout",
        "running",
        "ready",
        "createdSince",
        "endpoints",
        "unchanged",
        "retries",
        "condition",
        "drift",
        "leader",
    ];
    let cases: u64 = std::env::var("KUBELOOP_DECODE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3_000);
    let seed = std::env::var("KUBELOOP_DECODE_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(11);
    let mut rng = crate::rng::Rng::new(seed);
    let mut failures = Vec::new();
    for case in 0..cases {
        let base = &bases[(case % bases.len() as u64) as usize];
        let text = crate::testing::mutate(base, &mut rng, SCENARIO_KEYS);
        if let Err(e) = compare(&text) {
            failures.push(format!("case {case}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{} of {cases} differ; the first:\n{}", failures.len(), failures[0]);
}

#[test]
fn a_node_name_its_kubelet_could_not_register_is_a_scenario_error() {
    let text = format!("cluster:\n  nodes:\n  - name: {}\n", "a".repeat(64));
    let e = Scenario::parse(&text).expect_err("hostname label too long");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.message.contains("metadata.labels: Invalid value") && e.message.contains("no more than 63"), "{e}");
}

/// Each following command's grid of looks runs from its own start, every 100 ms; a look off the grid (an
/// interruption) moves nothing.
#[test]
fn a_following_command_is_looked_at_on_its_own_grid() {
    let mut g = FollowGrid::new(250);
    assert_eq!(g.next(), 350);
    assert!(!g.due(349) && g.due(350));
    g.polled(350);
    assert_eq!(g.next(), 450);
    g.polled(1_020);
    assert_eq!(g.next(), 1_050, "a look between points keeps the grid");
    g.polled(1_050);
    assert_eq!(g.next(), 1_150);
    g.polled(900);
    assert_eq!(g.next(), 1_150, "looks never go back");
    assert_eq!(FollowGrid::new(Millis::MAX - 10).next(), Millis::MAX, "saturates");
}

/// Commands that only read (here 18 watches) never crowd out one that writes as it goes: each kind has its own
/// bound.
#[test]
fn commands_that_only_read_never_crowd_out_one_that_writes() {
    assert!(room_to_follow([false; 15], false) && !room_to_follow([false; 16], false));
    assert!(room_to_follow([false; 16], true) && !room_to_follow([true; 16], true));
    let mut text = String::from("cluster:\n  nodes: 2\nmanifests: |\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: alone}\n  spec:\n    containers: [{name: c, image: nginx}]\nactions:\n");
    for _ in 0..crate::limits::MAX_FOLLOWS + 2 {
        text.push_str("  - {at: 1s, kubectl: get pods -w}\n");
    }
    // A pod without a controller: drain waits for it to go (30 s of grace) after deleting it.
    text.push_str("  - {at: 2s, kubectl: drain node-1 node-2 --force --disable-eviction --ignore-daemonsets}\n");
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = sc.run(RunOptions { until: Some(MINUTE), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
    let text = render_timeline(&out.timeline);
    assert_eq!(text.matches("not followed: at most 16 commands that only read keep printing at once").count(), 2);
    assert!(text.contains("pod/alone deleted") && text.contains("node/node-2 drained"), "{text}");
}

#[test]
fn a_lesson_question_or_expectation_that_makes_no_sense_is_refused_at_its_line() {
    let with =
        |tail: &str| format!("{SMALL}actions:\n  - at: 10s\n    scale: {{deployment: web, replicas: 3}}\n{tail}");
    let cases: [(String, usize, &str); 9] = [
        (
            with("    ask: {question: Q, choices: [a, b], answer: 2}\n    expect:\n      - {within: 5s, drift: 0}\n"),
            22,
            "actions[0].ask.answer: 2 is not a choice (0 to 1)",
        ),
        (
            with("    ask: {question: Q, choices: [a], answer: 0}\n    expect:\n      - {within: 5s, drift: 0}\n"),
            22,
            "actions[0].ask.choices: 1 choices: a question has 2 to 6",
        ),
        (
            with("    ask: {question: Q, choices: [a, b], answer: 0}\n"),
            22,
            "actions[0].ask: a question needs the step's expect: to check its answer",
        ),
        (
            with("    expect:\n      - {drift: 0}\n"),
            23,
            "actions[0].expect[0]: an expectation needs exactly one of within, at or throughout (found 0)",
        ),
        (
            with("    expect:\n      - {within: 5s, at: 3s, drift: 0}\n"),
            23,
            "actions[0].expect[0]: an expectation needs exactly one of within, at or throughout (found 2)",
        ),
        (
            with("    expect:\n      - {within: 5s}\n"),
            23,
            "actions[0].expect[0]: an expectation needs something to check",
        ),
        (
            with("    expect:\n      - {within: 5s, pods: {selector: app=web}}\n"),
            23,
            "actions[0].expect[0].pods: says nothing to check",
        ),
        (
            with("    expect:\n      - {within: 5s, retries: {controller: rs, count: 1}}\n"),
            23,
            "actions[0].expect[0].retries: \"rs\" is not a controller",
        ),
        (
            format!("lesson:\n  title: T\n  figures: [deployments, pies]\n{SMALL}"),
            3,
            "lesson.figures[1]: \"pies\" is not a figure",
        ),
    ];
    for (text, line, message) in cases {
        let e = Scenario::parse(&text).expect_err(message);
        assert_eq!(e.line, Some(line), "{message}: {e}");
        assert!(e.message.starts_with(message), "{e}");
    }
    let e = Scenario::parse(&with("    expect:\n      - {within: 5s, drift: \">= x\"}\n")).expect_err("a bad count");
    assert_eq!(e.to_string(), "scenario line 23 column 29: actions[0].expect[0].drift: \">= x\" is not a count: a number, or \">= N\" or \"<= N\"");
}

/// A run is a value: its scheduled actions and those a person performs between steps ([`Run::act`]) are recorded
/// at their times, and the export replays from scratch to the same history hash at the same time.
#[test]
fn a_run_with_acts_between_its_steps_exports_what_replays_to_the_same_history() {
    let text = format!("{SMALL}actions:\n  - {{at: 5s, scale: {{deployment: web, replicas: 4}}}}\n");
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut r = sc.start(RunOptions { seed: Some(9), until: Some(MINUTE), ..RunOptions::default() }).expect("starts");
    r.run_to(3 * SECOND);
    r.act(Intervention::Kubectl("cordon node-1".into()), Some("a hand on the cluster".into()));
    r.run_to(20 * SECOND);
    r.act(Intervention::Kubectl("get pods".into()), None);
    r.run_to(30 * SECOND);
    let at: Vec<Millis> = r.record().actions().iter().map(|a| a.at).collect();
    assert_eq!(at, [3 * SECOND, 5 * SECOND, 20 * SECOND], "in the order performed, each at its time");
    let exported = r.export().expect("exportable");
    let again = Scenario::parse(&exported).unwrap_or_else(|e| panic!("{e}\n{exported}"));
    let mut replay = again.start(RunOptions::default()).expect("starts");
    replay.run_to(replay.until());
    assert_eq!((replay.now(), replay.sim().history_hash()), (r.now(), r.sim().history_hash()));
}
