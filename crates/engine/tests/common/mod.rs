//! Shared fixtures of the kubectl golden tests: one small deterministic cluster, a `kubectl` helper and golden
//! files. A golden file holds exactly what kubectl prints (stdout then stderr) for a command against the
//! fixture cluster; `KUBELOOP_BLESS=1 cargo test` rewrites them (review the diff: they must read like real
//! kubectl's output).
#![allow(dead_code)]

use std::path::PathBuf;

use kubeloop_engine::kubectl::{self, Input, Output};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::MINUTE;

pub const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
";

/// Seed 1, three default nodes, Deployment `web` (3 replicas of nginx:1.27, 100m/64Mi) applied at t=0, run
/// for 2 simulated minutes: every pod Running.
pub fn cluster() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, WEB).expect("apply web");
    sim.run_for(2 * MINUTE);
    sim
}

/// Runs one kubectl line with no stdin and no files.
pub fn kubectl(sim: &mut Sim, line: &str) -> Output {
    kubectl::run(sim, line, &Input::none())
}

/// Runs one kubectl line with `stdin` as `-f -`.
pub fn kubectl_stdin(sim: &mut Sim, line: &str, stdin: &str) -> Output {
    kubectl::run(sim, line, &Input { stdin: Some(stdin), ..Input::none() })
}

/// Compares `actual` with `tests/golden/kubectl/NAME.txt` (or writes it when `KUBELOOP_BLESS` is set).
pub fn golden(name: &str, actual: &str) {
    let path: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "tests", "golden", "kubectl", &format!("{name}.txt")].iter().collect();
    if std::env::var_os("KUBELOOP_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden file {}: run with KUBELOOP_BLESS=1 and review it", path.display()));
    if expected != actual {
        panic!("output differs from {}\n--- expected\n{expected}\n--- actual\n{actual}", path.display());
    }
}

/// Runs `line` and checks its whole output (stdout then stderr) against the golden file `name`.
pub fn check(sim: &mut Sim, name: &str, line: &str) -> Output {
    let out = kubectl(sim, line);
    golden(name, &format!("$ kubectl {line}\n{}", out.text()));
    out
}
