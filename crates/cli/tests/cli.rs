//! The `kubeloop` binary: exit codes and output.

use std::path::PathBuf;
use std::process::{Command, Output};

fn kubeloop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubeloop"))
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap_or_else(|e| panic!("running kubeloop: {e}"))
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn run_json_prints_the_summary() {
    let out = kubeloop(&["run", "examples/web.yaml", "--json"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["pods"]["byPhase"]["Running"].as_u64(), Some(2), "{v}");
    assert!(v["convergedAtMs"].is_u64(), "{v}");
    assert_eq!(v["seed"].as_u64(), Some(42));
}

#[test]
fn run_prints_timeline_and_summary() {
    let out = kubeloop(&["run", "examples/web.yaml", "--seed", "5", "--until=150s"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("$ kubectl scale deployment web --replicas=10"), "{s}");
    assert!(s.contains("Summary: seed 5, simulated 2m30s"), "{s}");
    let quiet = text(&kubeloop(&["run", "--quiet", "examples/web.yaml"]).stdout);
    assert!(!quiet.contains("$ kubectl"), "{quiet}");
    assert!(quiet.starts_with("Summary:"), "{quiet}");
}

#[test]
fn a_bad_scenario_exits_2() {
    let dir = std::env::temp_dir().join(format!("kubeloop-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "cluster:\n  nodes: 2\nactions:\n  - atx: 5s\n").expect("write");
    let out = kubeloop(&["run", bad.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("line 4"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["run"][..],
        &[],
        &["frobnicate"],
        &["run", "examples/web.yaml", "--seed"],
        &["run", "examples/web.yaml", "--seed", "x"],
        &["run", "examples/web.yaml", "--until", "soon"],
        &["run", "examples/web.yaml", "--colour"],
        &["run", "examples/does-not-exist.yaml"],
        &["bench", "--nodes", "0"],
    ] {
        let out = kubeloop(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).starts_with("error: "), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn help_and_version() {
    for args in [&["help"][..], &["--help"]] {
        let out = kubeloop(args);
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).contains("kubeloop run FILE"));
    }
    let out = kubeloop(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("kubeloop "));
}

#[test]
fn a_small_bench_converges() {
    let out = kubeloop(&["bench", "--nodes", "5", "--pods", "40", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("converged:") && s.contains("simulated seconds") && !s.contains("converged:          no"),
        "{s}"
    );
}

#[test]
fn kubectl_help_lists_the_commands_and_the_options() {
    let out = kubeloop(&["kubectl", "--help"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.starts_with("kubectl controls the Kubernetes cluster manager"), "{s}");
    assert!(s.contains("Commands:") && s.contains("  get "), "{s}");
    assert!(s.contains("kubeloop kubectl [--scenario FILE] [--at DURATION]"), "{s}");
    assert_eq!(text(&kubeloop(&["kubectl"]).stdout), s);
    // A command's own help is kubectl's.
    let out = kubeloop(&["kubectl", "get", "--help"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Usage:"), "{}", text(&out.stdout));
    assert!(text(&kubeloop(&["help"]).stdout).contains("kubeloop kubectl [--scenario FILE]"));
}

#[test]
fn kubectl_errors_exit_with_kubectls_code() {
    let out = kubeloop(&["kubectl", "gte", "pods"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), "error: unknown command \"gte\" for \"kubectl\"\n\nDid you mean this?\n\tget\n");
    // After `--` everything is kubectl's, even words that look like kubeloop's options.
    let out = kubeloop(&["kubectl", "--at", "1s", "--", "--at", "1s"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("error: unknown flag: --at"), "{}", text(&out.stderr));
    let out = kubeloop(&["kubectl", "--scenario", "examples/web.yaml", "--at", "5s", "get", "pods", "--bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n");
}

#[test]
fn kubectl_bad_options_exit_2() {
    for args in [
        &["kubectl", "--at"][..],
        &["kubectl", "--at", "soon", "get", "pods"],
        &["kubectl", "--at=1s", "--at=2s", "get", "pods"],
        &["kubectl", "--seed", "x", "get", "pods"],
        &["kubectl", "--for", "-5s", "get", "pods"],
        &["kubectl", "--at", "720h", "--for", "1h", "get", "pods"],
        &["kubectl", "--scenario", "examples/does-not-exist.yaml", "get", "pods"],
    ] {
        let out = kubeloop(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).starts_with("error: "), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn kubectl_gets_pods_of_a_scenario_at_a_time() {
    // Fails until the kubectl commands are merged (`get` prints "error: not yet built" before).
    let out = kubeloop(&["kubectl", "--scenario", "examples/web.yaml", "--at", "30s", "get", "pods"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 4, "{s}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], "{s}");
    for l in &lines[1..] {
        let cols: Vec<&str> = l.split_whitespace().collect();
        assert!(cols[0].starts_with("web-") && cols[1] == "1/1" && cols[2] == "Running", "{s}");
    }
}

#[test]
fn run_reads_kubectl_files_relative_to_the_scenario() {
    // Fails until the kubectl commands are merged (`apply -f` is a placeholder before).
    let dir = std::env::temp_dir().join(format!("kubeloop-cli-files-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("m")).expect("temp dir");
    std::fs::write(dir.join("m/ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n")
        .expect("write");
    let scenario = dir.join("s.yaml");
    std::fs::write(
        &scenario,
        "cluster:\n  nodes: 1\nuntil: 5s\nactions:\n  - {at: 1s, kubectl: apply -f m/ns.yaml}\n  - {at: 2s, kubectl: apply -f nope.yaml}\n",
    )
    .expect("write");
    let out = kubeloop(&["run", scenario.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("[   1.000s] $ kubectl apply -f m/ns.yaml\n[   1.000s]   namespace/team-a created\n"), "{s}");
    assert!(s.contains("[   2.000s] ! error: the path \"nope.yaml\" does not exist\n"), "{s}");
}
