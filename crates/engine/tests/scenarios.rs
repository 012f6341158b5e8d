//! Scenarios end to end: parse, run, timeline and summary.

mod common;

use std::path::PathBuf;

use kubeloop_engine::addons;
use kubeloop_engine::api::Kind;
use kubeloop_engine::scenario::{render_summary, render_timeline, EntryKind, RunOptions, RunOutput, Scenario};
use kubeloop_engine::time::SECOND;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn example(name: &str) -> String {
    let path = examples_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn run(text: &str, opts: RunOptions) -> RunOutput {
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    sc.run(opts).unwrap_or_else(|e| panic!("{e}"))
}

/// A two-node cluster with Deployment `web` (`common::web(3)`: 3 replicas of nginx:1.27) as its manifests.
static WEB: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let manifest: String = common::web(3).yaml().lines().map(|l| format!("  {l}\n")).collect();
    format!("\ncluster:\n  nodes: 2\nmanifests: |\n{manifest}")
});

#[test]
fn every_example_parses_and_runs() {
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(examples_dir()).expect("examples/").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // `kubectl -f PATH` reads relative to the scenario file, as `kubeloop run` does.
        let read = |name: &str| std::fs::read_to_string(examples_dir().join(name)).map_err(|e| format!("{name}: {e}"));
        let opts = RunOptions { read_file: Some(&read), ..RunOptions::default() };
        let out = sc.run(opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let errors: Vec<_> = out.timeline.iter().filter(|e| e.is_error()).collect();
        assert!(errors.is_empty(), "{}: action errors: {errors:?}", path.display());
        assert!(!render_summary(&out.summary).is_empty());
        seen += 1;
    }
    assert!(seen >= 5, "expected the five shipped examples, found {seen}");
}

#[test]
fn web_example_scales_to_two_and_converges() {
    let out = run(&example("web.yaml"), RunOptions::default());
    let s = &out.summary;
    // web's 2 and kube-system's add-ons on 3 nodes.
    assert_eq!(s.pods.by_phase.get("Running"), Some(&(2 + addons::pods(3))), "{}", render_summary(s));
    assert_eq!(s.pods.total, 2 + addons::pods(3));
    assert_eq!(s.pods.terminating, 0);
    assert_eq!(s.deployments.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["web", "coredns"]);
    let d = &s.deployments[0];
    assert_eq!((d.desired, d.updated, d.ready, d.available), (2, 2, 2, 2));
    let converged = s.converged_at_ms.expect("web.yaml converges");
    assert!(converged >= 120 * SECOND, "converged after the last action (120s), not at {converged}");
    assert_eq!(s.last_action_ms, 120 * SECOND);
    let text = render_timeline(&out.timeline);
    assert!(text.contains("deployment.apps/web scaled"), "{text}");
    assert!(text.contains("ScalingReplicaSet"), "{text}");
}

#[test]
fn unschedulable_example_stays_pending() {
    let out = run(&example("unschedulable.yaml"), RunOptions::default());
    assert_eq!(out.summary.converged_at_ms, None);
    assert_eq!(out.summary.pods.unscheduled + addons::pods(3), out.summary.pods.total);
    assert!(out.summary.pods.unscheduled > 0);
    assert!(out.timeline.iter().any(|e| e.kind == EntryKind::Event && e.text.contains("FailedScheduling")));
}

#[test]
fn self_healing_example_replaces_deleted_pods() {
    let out = run(&example("self-healing.yaml"), RunOptions::default());
    let deleted = out
        .timeline
        .iter()
        .filter(|e| e.kind == EntryKind::Result && e.text.ends_with("deleted from default namespace"))
        .count();
    assert!(deleted >= 1);
    assert!(out.timeline.iter().any(|e| e.at > 30 * SECOND && e.text.contains("SuccessfulCreate")));
    assert_eq!(out.summary.pods.by_phase.get("Running"), Some(&(3 + addons::pods(2))));
    assert!(out.summary.converged_at_ms.is_some());
}

#[test]
fn parse_errors_report_the_line() {
    let text = "seed: 4\ncluster:\n  nodes: 2\nactions:\n  - at: 10s\n    killNode: node-1\n  - atx: 20s\n    reviveNode: node-1\n";
    let e = Scenario::parse(text).expect_err("unknown field");
    assert_eq!(e.line, Some(7), "{e}");
    assert!(e.message.contains("unknown field `atx`"), "{e}");
    assert!(e.to_string().starts_with("scenario line 7 column "), "{e}");

    let e = Scenario::parse("cluster:\n  nodes: 1\nactions:\n  - {at: 10parsecs, killNode: node-1}\n")
        .expect_err("bad duration");
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.message.contains("invalid duration"), "{e}");

    let e = Scenario::parse(
        "cluster:\n  nodes: 1\nactions:\n  - at: 1s\n    delete: {kind: replicationcontroller, name: x}\n",
    )
    .expect_err("unknown kind");
    assert_eq!(e.line, Some(5), "{e}");
    assert!(e.message.contains("the server doesn't have a resource type \"replicationcontroller\""), "{e}");

    let e = Scenario::parse("cluster:\n  nodes: 9000\n").expect_err("node cap");
    assert_eq!(e.line, Some(2), "{e}");

    let e = Scenario::parse("cluster:\n  nodes: 1\nactions:\n  - at: 1s\n  - at: 2s\n    scale: {deployment: web, replicas: 1}\n    killNode: node-1\n")
        .expect_err("not exactly one action");
    assert_eq!(e.line, Some(4), "{e}");
    let e = Scenario::parse(
        "cluster:\n  nodes: 1\nactions:\n  - at: 2s\n    scale: {deployment: web, replicas: 1}\n    killNode: node-1\n",
    )
    .expect_err("two actions in one");
    assert!(e.message.contains("found scale and killNode"), "{e}");

    // A broken t=0 manifest is located in the scenario text.
    let bad = WEB.replace("replicas: 3", "replicas: 3\n    replicaz: 4");
    let e = Scenario::parse(&bad).expect_err("bad manifest");
    let line = bad.lines().position(|l| l.contains("replicaz")).map(|i| i + 1);
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.contains("replicaz"), "{e}");
}

#[test]
fn actions_are_sorted_stably_by_time() {
    let text = format!(
        "{}actions:\n  - {{at: 40s, killNode: node-2}}\n  - {{at: 10s, scale: {{deployment: web, replicas: 1}}}}\n  - {{at: 40s, reviveNode: node-2}}\n", *WEB
    );
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let times: Vec<_> = sc.actions.iter().map(|a| a.at).collect();
    assert_eq!(times, vec![10 * SECOND, 40 * SECOND, 40 * SECOND]);
    let out = sc.run(RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let actions: Vec<_> =
        out.timeline.iter().filter(|e| e.kind == EntryKind::Action).map(|e| e.text.as_str()).collect();
    assert_eq!(actions[1..], ["kubectl scale deployment web --replicas=1", "kill node node-2", "revive node node-2"]);
}

#[test]
fn action_errors_go_to_the_timeline_and_the_run_goes_on() {
    let text = format!(
        "{}actions:\n  - at: 10s\n    delete: {{kind: po, name: nope}}\n  - at: 20s\n    apply: |\n      apiVersion: v1\n      kind: Pod\n      metadata:\n        name: p\n        namespace: missing\n      spec:\n        containers: [{{name: c, image: busybox}}]\n  - at: 25s\n    killNode: node-9\n  - {{at: 30s, scale: {{deployment: web, replicas: 1}}}}\n", *WEB
    );
    let out = run(&text, RunOptions { seed: Some(5), until: Some(90 * SECOND), ..RunOptions::default() });
    let errors: Vec<_> = out.timeline.iter().filter(|e| e.is_error()).collect();
    assert_eq!(errors.len(), 3, "{}", render_timeline(&out.timeline));
    assert!(errors[0].text.contains("Error from server (NotFound): pods \"nope\" not found"), "{:?}", errors[0]);
    assert_eq!(errors[0].at, 10 * SECOND);
    assert!(errors[1].text.contains("namespaces \"missing\" not found"), "{:?}", errors[1]);
    assert!(errors[2].text.contains("node-9"), "{:?}", errors[2]);
    // The later action ran.
    assert!(out.timeline.iter().any(|e| e.text == "deployment.apps/web scaled"));
    assert_eq!(
        out.summary.pods.by_phase.get("Running"),
        Some(&(1 + addons::pods(2))),
        "{}",
        render_summary(&out.summary)
    );
    assert!(out.summary.converged_at_ms.is_some());
}

#[test]
fn same_seed_same_history_different_seed_different_history() {
    let text = example("web.yaml");
    let opts = |seed| RunOptions { seed: Some(seed), until: Some(150 * SECOND), ..RunOptions::default() };
    let a = run(&text, opts(9));
    let b = run(&text, opts(9));
    let c = run(&text, opts(10));
    assert_eq!(a.summary.history_hash, b.summary.history_hash);
    assert_eq!(render_timeline(&a.timeline), render_timeline(&b.timeline));
    assert_eq!(a.summary, b.summary);
    assert_ne!(a.summary.history_hash, c.summary.history_hash);
}

#[test]
fn cli_options_override_the_scenario() {
    let text =
        format!("seed: 3\nuntil: 20s\n{}actions:\n  - {{at: 30s, scale: {{deployment: web, replicas: 1}}}}\n", *WEB);
    let out = run(&text, RunOptions::default());
    assert_eq!(out.summary.seed, 3);
    assert_eq!(out.summary.sim_time_ms, 20 * SECOND);
    assert_eq!(out.summary.actions_not_run, 1);
    let out = run(&text, RunOptions { seed: Some(8), until: Some(45 * SECOND), ..RunOptions::default() });
    assert_eq!(out.summary.seed, 8);
    assert_eq!(out.summary.sim_time_ms, 45 * SECOND);
    assert_eq!(out.summary.actions_not_run, 0);
}

#[test]
fn node_lists_and_added_nodes_get_their_shape() {
    let text = r#"
cluster:
  nodeTemplate: {cpu: "8", memory: 32Gi}
  nodes:
    - name: big-1
    - {name: gpu-1, cpu: "16", labels: {accelerator: gpu}, taints: [{key: gpu, value: "true", effect: NoSchedule}]}
actions:
  - {at: 5s, addNode: {name: extra-1, pods: 20}}
  - {at: 6s, addNode: {}}
"#;
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.nodes.len(), 2);
    assert_eq!(sc.nodes[0].cpu.milli(), 8000);
    assert_eq!(sc.nodes[1].cpu.milli(), 16000);
    assert_eq!(sc.nodes[1].taints.len(), 1);
    let out = sc
        .run(RunOptions { seed: None, until: Some(10 * SECOND), ..RunOptions::default() })
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = out.summary.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names.contains(&"extra-1"));
    assert!(out.summary.nodes.iter().all(|n| n.ready == "True" && n.alive));

    let e = Scenario::parse("cluster:\n  nodes:\n    - name: a\n    - name: a\n").expect_err("duplicate");
    assert_eq!(e.line, Some(4), "{e}");
    let e = Scenario::parse("cluster:\n  nodes:\n    - name: Bad_Name\n").expect_err("invalid name");
    assert_eq!(e.line, Some(3), "{e}");
    let e = Scenario::parse("cluster:\n  nodes:\n    - taints: [{key: a, effect: Sometimes}]\n").expect_err("effect");
    assert_eq!(e.line, Some(3), "{e}");
}

#[test]
fn summary_json_is_camel_case() {
    let out = run(&WEB, RunOptions { seed: Some(2), until: Some(30 * SECOND), ..RunOptions::default() });
    let v = serde_json::to_value(&out.summary).expect("json");
    for key in [
        "seed",
        "simTimeMs",
        "historyHash",
        "eventsProcessed",
        "pods",
        "deployments",
        "nodes",
        "api",
        "reconciles",
        "convergedAtMs",
        "drift",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert!(v["pods"]["byPhase"]["Running"].as_u64() == Some(3 + addons::pods(2) as u64), "{v}");
    assert!(v["api"]["byClient"]["kubelet"]["writes"].as_u64().unwrap_or(0) > 0, "{v}");
    assert!(v["api"]["byClient"].as_object().is_some_and(|m| !m.keys().any(|k| k.starts_with("kubelet/"))));
    assert!(v["reconciles"]["deployment"]["reconciles"].as_u64().unwrap_or(0) > 0, "{v}");
    assert_eq!(v["historyHash"].as_str().map(str::len), Some(16));
}

#[test]
fn kubectl_actions_are_checked_when_the_scenario_is_read() {
    let sc = Scenario::parse(&format!(
        "{}actions:\n  - at: 5s\n    kubectl: kubectl get pods\n  - {{at: 6s, kubectl: \"-n kube-system get po\"}}\n  - {{at: 7s, kubectl: help}}\n", *WEB
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<_> = sc.actions.iter().map(|a| a.what.kubectl_line().unwrap_or_default()).collect();
    assert_eq!(lines, ["get pods", "-n kube-system get po", "help"]);

    // Each error names the action and the line of its `kubectl:` key.
    let cases: &[(&str, &str)] = &[
        ("kubectl: \"get 'pods\"", "actions[1].kubectl: unterminated quoted string"),
        ("kubectl: \"\"", "actions[1].kubectl: a command is required"),
        ("kubectl: kubectl", "actions[1].kubectl: a command is required"),
        (
            "kubectl: gte pods",
            "actions[1].kubectl: unknown command \"gte\" for \"kubectl\"\n\nDid you mean this?\n\tget",
        ),
        ("kubectl: logs web-1", "actions[1].kubectl: \"kubectl logs\" is not simulated by kubeloop"),
        ("kubectl: --version", "actions[1].kubectl: unknown flag: --version"),
        ("kubectl: get pods --bogus", "actions[1].kubectl: unknown flag: --bogus (see `kubectl get --help`)"),
        ("kubectl: [get, pods]", "invalid type: sequence, expected a string"),
    ];
    for (action, want) in cases {
        let text = format!("{}actions:\n  - {{at: 1s, kubectl: help}}\n  - at: 5s\n    {action}\n", *WEB);
        let line = text.lines().position(|l| l.contains(action)).map(|i| i + 1);
        let e = Scenario::parse(&text).expect_err(action);
        assert_eq!(e.line, line, "{action}: {e}");
        assert!(e.message.contains(want), "{action}: {e}");
    }

    let e = Scenario::parse(&format!(
        "{}actions:\n  - at: 5s\n    kubectl: get pods\n    scale: {{deployment: web, replicas: 1}}\n",
        *WEB
    ))
    .expect_err("two things");
    assert!(e.message.contains("exactly one of apply, kubectl, scale"), "{e}");
    assert!(e.message.contains("found kubectl and scale"), "{e}");
}

#[test]
fn a_kubectl_action_prints_what_kubectl_prints() {
    let text = format!(
        "{}actions:\n  - {{at: 5s, kubectl: \"kubectl help\"}}\n  - {{at: 6s, kubectl: \"delete pod nope\"}}\n",
        *WEB
    );
    let out = run(&text, RunOptions { until: Some(10 * SECOND), ..RunOptions::default() });
    let from = |t: u64| out.timeline.iter().filter(move |e| e.at == t * SECOND && e.kind != EntryKind::Event);

    // The command as an action, then its stdout, one result a line, exactly as kubectl printed it.
    let help: Vec<_> = from(5).collect();
    assert_eq!((help[0].kind, help[0].text.as_str()), (EntryKind::Action, "kubectl help"));
    let printed: Vec<_> = help[1..].iter().map(|e| (e.kind, e.text.as_str())).collect();
    let help_text = kubeloop_engine::kubectl::help();
    let want: Vec<_> = help_text.lines().map(|l| (EntryKind::Result, l)).collect();
    assert_eq!(printed, want);
    assert!(render_timeline(&out.timeline).contains("[   5.000s]   kubectl controls the Kubernetes cluster manager"));

    // A failing command: its stderr as errors, and the run goes on.
    let failed: Vec<_> = from(6).map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(failed[0], (EntryKind::Action, "kubectl delete pod nope"));
    assert!(failed[1..].iter().all(|(k, _)| *k == EntryKind::Error), "{failed:?}");
    // Fails until the kubectl commands are merged (`delete` prints "error: not yet built" before).
    assert_eq!(failed[1..], [(EntryKind::Error, "Error from server (NotFound): pods \"nope\" not found")]);
}

#[test]
fn a_following_kubectl_action_prints_as_time_passes() {
    // Fails until the kubectl commands are merged (`rollout status` is a placeholder before).
    let text = format!(
        "{}actions:\n  - at: 20s\n    apply: |\n{}\n  - {{at: 20s, kubectl: rollout status deployment/web}}\n",
        *WEB,
        WEB.split_once("manifests: |\n")
            .map_or("", |(_, m)| m)
            .replace("nginx:1.27", "nginx:1.28")
            .trim_end()
            .lines()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let out = run(&text, RunOptions { seed: Some(4), until: Some(3 * 60 * SECOND), ..RunOptions::default() });
    let timeline = render_timeline(&out.timeline);
    let printed: Vec<_> = out
        .timeline
        .iter()
        .skip_while(|e| e.text != "kubectl rollout status deployment/web")
        .filter(|e| e.kind == EntryKind::Result || e.kind == EntryKind::Error)
        .collect();
    assert!(printed.iter().all(|e| e.kind == EntryKind::Result), "{timeline}");
    let waiting =
        printed.iter().filter(|e| e.text.starts_with("Waiting for deployment \"web\" rollout to finish")).count();
    assert!(waiting >= 1, "{timeline}");
    let done = printed.last().expect("output");
    assert_eq!(done.text, "deployment \"web\" successfully rolled out", "{timeline}");
    assert!(done.at > 20 * SECOND && done.at < 3 * 60 * SECOND, "{timeline}");
    assert!(!timeline.contains("still running at the end"), "{timeline}");
}

#[test]
fn kubectl_actions_read_files_through_the_runner() {
    // Fails until the kubectl commands are merged (`apply` is a placeholder before, with no `-f` flag).
    let text = format!(
        "{}actions:\n  - {{at: 5s, kubectl: apply -f app.yaml}}\n  - {{at: 6s, kubectl: apply -f missing.yaml}}\n  - {{at: 7s, kubectl: apply -f -}}\n", *WEB
    );
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let read = |name: &str| match name {
        "app.yaml" => Ok("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n".to_string()),
        _ => Err(format!("the path \"{name}\" does not exist")),
    };
    let out = sc
        .run(RunOptions { until: Some(10 * SECOND), read_file: Some(&read), ..RunOptions::default() })
        .unwrap_or_else(|e| panic!("{e}"));
    let at = |t: u64| -> Vec<(EntryKind, &str)> {
        out.timeline
            .iter()
            .filter(|e| e.at == t * SECOND && e.kind != EntryKind::Event)
            .map(|e| (e.kind, e.text.as_str()))
            .collect()
    };
    assert_eq!(at(5)[1..], [(EntryKind::Result, "namespace/team-a created")]);
    assert_eq!(at(6)[1..], [(EntryKind::Error, "error: the path \"missing.yaml\" does not exist")]);
    // No standard input in a scenario: kubectl's error.
    let stdin = at(7);
    assert!(stdin.len() > 1 && stdin[1..].iter().all(|(k, _)| *k == EntryKind::Error), "{stdin:?}");
}

#[test]
fn kubectl_example_rolls_out_and_scales() {
    // Fails until the kubectl commands are merged.
    let text = example("kubectl.yaml");
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let read = |name: &str| std::fs::read_to_string(examples_dir().join(name)).map_err(|e| format!("{name}: {e}"));
    let out = sc.run(RunOptions { read_file: Some(&read), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
    let timeline = render_timeline(&out.timeline);
    for want in [
        "$ kubectl apply -f manifests/api.yaml",
        "  deployment.apps/api created",
        "$ kubectl rollout status deployment/web",
        "  deployment \"web\" successfully rolled out",
        "  deployment.apps/web scaled",
    ] {
        assert!(timeline.contains(want), "{want}\n{timeline}");
    }
    let mut deploys: Vec<_> = out.summary.deployments.iter().map(|d| (d.name.as_str(), d.available)).collect();
    deploys.sort();
    assert_eq!(deploys, [("api", 2), ("coredns", 2), ("web", 5)], "{}", render_summary(&out.summary));
    assert!(out.summary.converged_at_ms.is_some());
}

#[test]
fn edge_vs_level_example_never_heals_edge_triggered_and_heals_level_triggered() {
    let edge = example("edge-vs-level.yaml");
    let out = run(&edge, RunOptions::default());
    assert_eq!(out.summary.converged_at_ms, None, "edge: the deleted replicas stay missing");
    assert_eq!(out.summary.drift, 0, "edge: the 410 relist repaired the caches anyway");
    let text: Vec<String> = out.timeline.iter().map(|e| e.text.clone()).collect();
    assert!(text.iter().any(|t| t == "mode: replicaset edge-triggered"), "{text:?}");
    assert!(text.iter().any(|t| t == "edge-triggered: replicaset"), "{text:?}");
    assert!(text.iter().any(|t| t == "fault: drop 100% of watch events"), "{text:?}");
    let level = edge.replace("trigger: replicaset=edge", "trigger: replicaset=level");
    let out = run(&level, RunOptions::default());
    let at = out.summary.converged_at_ms.expect("level: healed by the relist");
    assert!((6 * 60_000..7 * 60_000).contains(&at), "healed after the 410 at 6m, not before: {at}");
    // Without the 410 nothing re-observes: upstream's reflector has no periodic relist.
    let never = level.replace("fault: {forceRelist: true}", "fault: {conflicts: 0%}");
    let out = run(&never, RunOptions::default());
    assert_eq!(out.summary.converged_at_ms, None, "level, no 410: the lost deletions are never re-observed");
    assert!(out.summary.drift > 0);
}

#[test]
fn node_failure_example_evicts_and_replaces_then_recovers() {
    let out = run(&example("node-failure.yaml"), RunOptions::default());
    let reasons: Vec<String> = out.timeline.iter().map(|e| e.text.clone()).collect();
    for r in ["NodeNotReady", "TaintManagerEviction"] {
        assert!(reasons.iter().any(|t| t.contains(r)), "an event {r}");
    }
    assert!(out.summary.converged_at_ms.is_some(), "all replicas back, node revived");
}

#[test]
fn fault_and_mode_actions_are_checked_when_read() {
    let bad = [
        ("  - {at: 1s, fault: {crash: cp-3}}\n", "actions[0].fault.crash: no process \"cp-3\""),
        ("  - {at: 1s, fault: {dropWatchEvents: 2}}\n", "not a fraction from 0 to 1"),
        ("  - {at: 1s, fault: {conflicts: 120%}}\n", "not a percentage from 0% to 100%"),
        ("  - {at: 1s, fault: {}}\n", "actions[0].fault: name at least one fault"),
        ("  - {at: 1s, mode: {trigger: sideways}}\n", "not a trigger mode: level or edge"),
        ("  - {at: 1s, mode: {trigger: foo=edge}}\n", "no controller \"foo\""),
        ("  - {at: 1s, mode: {observe: psychic}}\n", "not an observe mode: informer or polling"),
        ("  - {at: 1s, fault: {bogus: 1}}\n", "unknown field `bogus`"),
        ("  - {at: 1s, fault: {forceRelist: true, informer: cp-9/pods}}\n", "is not PROCESS/RESOURCE"),
        ("  - {at: 1s, fault: {forceRelist: true, informer: cp-1/widgets}}\n", "is not PROCESS/RESOURCE"),
    ];
    for (action, want) in bad {
        let text = format!("cluster:\n  nodes: 1\nactions:\n{action}");
        let e = Scenario::parse(&text).expect_err(action);
        assert!(e.to_string().contains(want), "{action}: {e}");
        assert!(e.line.is_some_and(|l| l >= 4), "{action}: located: {e}");
    }
}

#[test]
fn periods_and_durations_are_bounded_when_read() {
    let bad = [
        ("  - {at: 1s, mode: {observe: polling, pollPeriod: 1ms}}\n", "mode.pollPeriod: 0.001s is too short"),
        ("  - {at: 1s, mode: {observe: polling, pollPeriod: 0}}\n", "mode.pollPeriod: 0s is too short"),
        ("  - {at: 1s, mode: {observe: polling, pollPeriod: 721h}}\n", "mode.pollPeriod: 721h is too long"),
        ("  - {at: 1s, mode: {pollPeriod: 5s}}\n", "pollPeriod needs observe: polling"),
        ("  - {at: 1s, mode: {relistPeriod: 500ms}}\n", "mode.relistPeriod: 0.5s is too short"),
        ("  - {at: 1s, mode: {relistPeriod: 9999h}}\n", "mode.relistPeriod: 9999h is too long"),
        ("  - {at: 1s, mode: {resyncPeriod: 999ms}}\n", "client-go's minimum resync period of 1s"),
        ("  - {at: 1s, fault: {apiLatency: 61s}}\n", "fault.apiLatency: 1m1s is too long"),
        ("  - {at: 99999999999999999999h, killNode: a}\n", "too large"),
        ("  - {at: 99999999999999999999, killNode: a}\n", "too large"),
        ("  - {at: 18446744073709551615, killNode: a}\n", "too large"),
        ("  - {at: 1e300, killNode: a}\n", "too large"),
        ("  - {at: -1, killNode: a}\n", "must not be negative"),
        ("  - {at: -5s, killNode: a}\n", "actions[0].at: invalid duration \"-5s\": must not be negative"),
        ("  - {at: \"-1m30s\", killNode: a}\n", "invalid duration \"-1m30s\": must not be negative"),
        ("  - {at: -1.5, killNode: a}\n", "invalid duration \"-1.5\": must not be negative"),
        ("  - {at: 1s, mode: {observe: polling, pollPeriod: -2s}}\n", "invalid duration \"-2s\": must not be negative"),
    ];
    for (action, want) in bad {
        let text = format!("cluster:\n  nodes: 1\nactions:\n{action}");
        let e = Scenario::parse(&text).expect_err(action);
        assert!(e.to_string().contains(want), "{action}: {e}");
        assert_eq!(e.line, Some(4), "{action}: located: {e}");
    }
    let block =
        "cluster:\n  nodes: 1\nactions:\n  - at: 1s\n    mode:\n      observe: polling\n      pollPeriod: 10ms\n";
    let e = Scenario::parse(block).expect_err("too short");
    assert_eq!(e.line, Some(7), "{e}");
    assert!(e.message.contains("at least 1s"), "{e}");
    let good = "cluster:\n  nodes: 1\nactions:\n  - {at: 1s, mode: {observe: polling, pollPeriod: 1s, relistPeriod: 0, resyncPeriod: 0}}\n  - {at: 2s, mode: {relistPeriod: 720h, resyncPeriod: 1s}}\n  - {at: 3s, fault: {apiLatency: 1m}}\n";
    assert!(Scenario::parse(good).is_ok_and(|sc| sc.actions.len() == 3));
    let e = Scenario::parse("until: 1e30\ncluster:\n  nodes: 1\n").expect_err("until");
    assert!(e.message.contains("too large"), "{e}");
    let e = Scenario::parse("until: -1m\ncluster:\n  nodes: 1\n").expect_err("until");
    assert_eq!((e.line, e.message.as_str()), (Some(1), "until: invalid duration \"-1m\": must not be negative"), "{e}");
    // A negative zero is zero, as Go reads it.
    assert!(Scenario::parse("until: -0s\ncluster:\n  nodes: 1\n").is_ok());
}

#[test]
fn a_long_run_keeps_a_bounded_number_of_watches() {
    // Every relist (each 5 minutes) starts a new watch; the old one must end, or it buffers every later change
    // for nobody until the run ends (a 30-day run grew to tens of GB).
    let text = "cluster:\n  nodes: 2\nactions:\n  - {at: 1s, mode: {relistPeriod: 1m}}\n";
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mut r = sc.start(RunOptions { until: Some(40 * 60 * SECOND), ..RunOptions::default() }).expect("starts");
    let open =
        |r: &kubeloop_engine::scenario::Run| (0..10_000).filter(|&id| r.sim().store().watcher(id).is_some()).count();
    let buffered = |r: &kubeloop_engine::scenario::Run| {
        (0..10_000).filter_map(|id| r.sim().store().watcher(id)).map(|w| w.buffer.len()).sum::<usize>()
    };
    r.run_to(10 * 60 * SECOND);
    let (watches, events) = (open(&r), buffered(&r));
    r.run_to(40 * 60 * SECOND);
    assert_eq!(open(&r), watches);
    assert!(buffered(&r) <= events + 10, "{} events buffered, {events} at 10m", buffered(&r));
}

#[test]
fn faults_replay_exactly_and_stop_when_cleared() {
    let text = "seed: 4\nuntil: 3m\ncluster:\n  nodes: 2\nmanifests: |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 4\n    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: web}\n      spec:\n        containers:\n        - {name: c, image: nginx}\nactions:\n  - {at: 10s, fault: {conflicts: 50%, apiLatency: 20ms}}\n  - {at: 11s, scale: {deployment: web, replicas: 8}}\n  - {at: 12s, fault: {crash: cp-1}}\n  - {at: 40s, fault: {conflicts: 0%, apiLatency: 0ms, restart: cp-1}}\n";
    let a = run(text, RunOptions::default());
    let b = run(text, RunOptions::default());
    assert_eq!(a.summary.history_hash, b.summary.history_hash);
    assert!(a.summary.api.total.counters.conflicts > 0, "conflicts were injected");
    assert!(a.summary.converged_at_ms.is_some(), "converged once the faults stopped");
    assert_eq!(a.summary.pods.by_phase.get("Running").copied(), Some(8 + addons::pods(2)));
}

#[test]
fn a_fault_can_target_one_informer() {
    let text = "seed: 2\nuntil: 40s\ncluster:\n  nodes: 1\nactions:\n  - {at: 10s, fault: {dropWatchEvents: 100%, informer: cp-1/pods}}\n  - {at: 10s, fault: {forceRelist: true, informer: kube-scheduler/pods}}\n";
    let sc = Scenario::parse(text).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("starts");
    run.run_to(20_000);
    let sim = run.sim();
    let cm_pods = sim.host(kubeloop_engine::sim::CONTROLLER_MANAGER).informers[Kind::Pod.index()].expect("cm pods");
    let cm_rs = sim.host(kubeloop_engine::sim::CONTROLLER_MANAGER).informers[Kind::ReplicaSet.index()].expect("cm rs");
    let sched = sim.host(kubeloop_engine::sim::SCHEDULER).informers[Kind::Pod.index()].expect("scheduler pods");
    assert_eq!(sim.informers()[cm_pods].drop_fraction(), 1.0);
    assert_eq!(sim.informers()[cm_rs].drop_fraction(), 0.0, "only the named informer");
    assert_eq!(sim.informers()[sched].stats().gone, 1, "410 for the scheduler's pod informer");
    assert!(sim.informers()[sched].stats().relists >= 1, "and it relisted");
}

/// The up-front work check counts a run shorter than an hour pro rata (it used to count whole hours, so 5,000
/// nodes for 59 minutes counted nothing and built every node before the budget stopped them).
#[test]
fn a_run_under_an_hour_is_held_to_its_work_budget_up_front() {
    let s = Scenario::parse("until: 59m\ncluster:\n  nodes: 5000\n").expect("parse");
    let e = s.start(RunOptions { max_events: Some(100_000), ..Default::default() }).err().expect("refused up front");
    assert!(e.message.contains("5000 node(s) for 59m") && e.message.contains("at least 1770000"), "{}", e.message);
    let small = Scenario::parse("until: 10m\ncluster:\n  nodes: 2\n").expect("parse");
    assert!(small.start(RunOptions { max_events: Some(100_000), ..Default::default() }).is_ok());
}

/// `killNode: {every: true}` stops every kubelet: the node lifecycle controller sees a full disruption (every node
/// Unknown) and evicts nothing; `reviveNode: {every: true}` starts them all again and the nodes are Ready.
#[test]
fn every_node_killed_and_revived_at_once() {
    let text = format!(
        "until: 8m\ncluster:\n  nodes: 3\nmanifests: |\n{}actions:\n  - {{at: 30s, killNode: {{every: true}}}}\n  - {{at: 7m, reviveNode: {{every: true}}}}\n  - {{at: 7m, reviveNode: {{every: true}}}}\n",
        SMALL_WEB.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let sc = Scenario::parse(&text).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(6 * 60 * SECOND);
    let sim = run.sim();
    assert!(sim.kubelets().iter().all(|k| !k.alive));
    let unknown = sim.store().objects(Kind::Node).filter_map(|o| o.as_node()).filter(|n| n.ready_status() == "Unknown");
    assert_eq!(unknown.count(), 3, "every node Unknown");
    let evicted = sim.store().objects(Kind::Pod).filter(|o| o.meta().is_terminating()).count();
    assert_eq!(evicted, 0, "a full disruption evicts nothing, whatever the tolerations say");
    run.run_to(run.until());
    assert_eq!(run.sim().nodes_ready(), 3);
    let out = run.finish();
    let text = render_timeline(&out.timeline);
    assert!(text.contains("kill every node"), "{text}");
    assert!(text.contains("node/node-3: kubelet stopped"), "{text}");
    assert!(text.contains("no node's kubelet is stopped"), "the second revive finds none: {text}");
    assert!(out.timeline.iter().all(|e| !e.is_error()), "{text}");

    for (bad, says) in [("{every: false}", "only `every: true`"), ("{all: true}", "expected one of `nodeOf`, `every`")]
    {
        let text = format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, killNode: {bad}}}\n");
        let e = Scenario::parse(&text).expect_err(bad);
        assert!(e.to_string().contains(says) && e.line == Some(4), "{bad}: {e}");
    }
}

const SMALL_WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - {name: nginx, image: nginx:1.27}\n";

/// Every scenario written back ([`Scenario::to_yaml`]) reads as the same scenario: the examples, the lessons, and
/// one with every kind of action.
#[test]
fn scenarios_are_written_back_as_they_read() {
    let every_kind = include_str!("../testdata/every-action.yaml");
    let mut texts = vec![("every kind".to_string(), every_kind.to_string())];
    for dir in [examples_dir(), examples_dir().join("lessons")] {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("examples").flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
            texts.push((p.display().to_string(), std::fs::read_to_string(&p).expect("read")));
        }
    }
    for (name, text) in texts {
        let a = Scenario::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let written = a.to_yaml();
        let b = Scenario::parse(&written).unwrap_or_else(|e| panic!("{name}: {e}\n{written}"));
        assert_eq!((a.seed, a.until, a.timing), (b.seed, b.until, b.timing), "{name}");
        assert_eq!((&a.node_template, &a.nodes, &a.manifests), (&b.node_template, &b.nodes, &b.manifests), "{name}");
        assert_eq!(a.actions.len(), b.actions.len(), "{name}");
        for (x, y) in a.actions.iter().zip(&b.actions) {
            assert_eq!((x.at, &x.what, &x.label), (y.at, &y.what, &y.label), "{name}\n{written}");
        }
        assert_eq!(b.to_yaml(), written, "{name}: writing is stable");
    }
}

/// `app:` (kubeloop's own input) in a scenario: an image rule and a crash land at their times and the timeline
/// says what they did; a malformed one is refused with its line.
#[test]
fn app_actions_set_behaviour_and_crash_at_their_times() {
    let text = format!(
        "until: 3m\ncluster:\n  nodes: 2\nmanifests: |\n{}actions:\n  - {{at: 1m, app: {{image: \"nginx:1.27\", readiness: fail}}}}\n  - {{at: 2m, app: {{podOf: \"app=web\", crash: true}}}}\n  - {{at: 2m, app: {{pod: nope, crash: true}}}}\n",
        SMALL_WEB.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let sc = Scenario::parse(&text).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(run.until());
    let out = run.finish();
    let rendered = render_timeline(&out.timeline);
    assert!(rendered.contains("app: image nginx:1.27: readiness fails"), "{rendered}");
    assert!(rendered.contains("image nginx:1.27: behaviour set"), "{rendered}");
    assert!(rendered.contains("app: pod web-") && rendered.contains(": crashed"), "{rendered}");
    assert!(rendered.contains("pods \"nope\" not found"), "{rendered}");

    for (bad, says) in [
        ("{image: x}", "say what the application does"),
        ("{image: x, pod: y, readiness: fail}", "exactly one of image, pod or podOf"),
        ("{image: x, readiness: maybe}", "\"maybe\" is not fail or pass"),
        ("{image: x, crash: true}", "crash needs a pod"),
        ("{image: x, container: c, liveness: fail}", "an image rule has no namespace or container"),
        ("{pod: y, readyness: fail}", "unknown field `readyness`"),
    ] {
        let text = format!("cluster:\n  nodes: 1\nactions:\n  - {{at: 1s, app: {bad}}}\n");
        let e = Scenario::parse(&text).expect_err(bad);
        assert!(e.to_string().contains(says) && e.line == Some(4), "{bad}: {e}");
    }
}

/// `for:` interrupts a command that keeps printing (as Ctrl+C) that long after it started: the timeline says so at
/// that time and it prints no more; on an action that is not a kubectl line it is an error with its line.
#[test]
fn for_interrupts_a_command_that_keeps_printing() {
    let text = format!("{}until: 60s\nactions:\n  - {{at: 10s, kubectl: get pods -w, for: 5s}}\n  - {{at: 30s, scale: {{deployment: web, replicas: 5}}}}\n", *WEB);
    let out = run(&text, RunOptions::default());
    let note = out.timeline.iter().find(|e| e.text.contains("interrupted")).expect("a note");
    assert_eq!((note.at, note.text.as_str()), (15 * SECOND, "kubectl get pods -w: interrupted (its for: is up)"));
    assert!(
        !out.timeline.iter().any(|e| e.source == "kubectl" && e.text.starts_with("web-") && e.at > 15 * SECOND),
        "nothing printed after the interruption: {}",
        render_timeline(&out.timeline)
    );
    let followed = run(&text.replace(", for: 5s", ""), RunOptions::default());
    assert!(
        followed.timeline.iter().any(|e| e.source == "kubectl" && e.text.starts_with("web-") && e.at > 30 * SECOND),
        "without for:, it goes on"
    );
    // Written back as read.
    let sc = Scenario::parse(&text).expect("parses");
    assert!(sc.to_yaml().contains("kubectl: \"get pods -w\", for: 5s}"), "{}", sc.to_yaml());

    let e = Scenario::parse("cluster:\n  nodes: 1\nactions:\n  - at: 1s\n    killNode: node-1\n    for: 5s\n")
        .expect_err("for on a node kill");
    assert_eq!(e.line, Some(6), "{e}");
    assert!(e.message.contains("actions[0].for: is for kubectl actions only"), "{e}");
}

/// A scenario that gives no `cluster.nodes` starts the documented default cluster (3 nodes of the template's shape,
/// as `kubeloop kubectl` without a scenario does), not an empty one; `nodes: 0` is an empty cluster, and the
/// timeline says so.
#[test]
fn a_scenario_without_nodes_starts_the_default_cluster() {
    for text in ["seed: 3\n", "cluster:\n  nodeTemplate: {cpu: \"8\"}\n"] {
        let sc = Scenario::parse(text).expect("parse");
        assert_eq!(sc.nodes.len(), 3, "{text}");
        let out = sc.run(RunOptions { until: Some(10 * SECOND), ..Default::default() }).expect("run");
        let first = out.timeline.iter().find(|e| e.source == "scenario").map(|e| e.text.as_str());
        assert_eq!(first, Some("cluster: 3 node(s): node-1, node-2, node-3"), "{text}");
    }
    let sc = Scenario::parse("cluster:\n  nodeTemplate: {cpu: \"8\"}\n").expect("parse");
    assert!(sc.nodes.iter().all(|n| n.cpu == sc.node_template.cpu) && sc.node_template.cpu.to_string() == "8");
    let empty = Scenario::parse("cluster:\n  nodes: 0\n").expect("parse");
    assert!(empty.nodes.is_empty());
    let out = empty.run(RunOptions { until: Some(SECOND), ..Default::default() }).expect("run");
    assert!(out.timeline.iter().any(|e| e.text.starts_with("cluster: no nodes (nodes: 0)")), "{:?}", out.timeline);
}
