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
