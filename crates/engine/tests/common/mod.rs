//! Shared fixtures of the kubectl golden tests: one small deterministic cluster, a `kubectl` helper and golden
//! files. A golden file holds exactly what kubectl prints (stdout then stderr) for a command against the
//! fixture cluster; `KUBELOOP_BLESS=1 cargo test` rewrites them (review the diff: they must read like real
//! kubectl's output).
#![allow(dead_code)]

use std::path::PathBuf;

use kubeloop_engine::kubectl::{self, Follow, Input, Output};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::MINUTE;

/// The web Deployment the tests build on: `name: web`, selector and pod labels `app: web`, one `nginx` container.
/// [`Web::yaml`] writes it; what varies between tests (replicas, image, requests, the Deployment's own labels) is
/// set with the builder.
#[derive(Clone, Copy, Debug)]
pub struct Web<'a> {
    pub replicas: i32,
    pub image: &'a str,
    pub cpu: Option<&'a str>,
    pub memory: Option<&'a str>,
    /// `metadata.labels: {app: web}` on the Deployment itself.
    pub labelled: bool,
    /// `metadata.namespace` (none: the default namespace).
    pub namespace: Option<&'a str>,
}

/// `web(3)`: 3 replicas of `nginx:1.27`, no requests, no labels of its own.
pub fn web<'a>(replicas: i32) -> Web<'a> {
    Web { replicas, image: "nginx:1.27", cpu: None, memory: None, labelled: false, namespace: None }
}

impl<'a> Web<'a> {
    pub fn image(self, image: &'a str) -> Self {
        Web { image, ..self }
    }

    pub fn cpu(self, cpu: &'a str) -> Self {
        Web { cpu: Some(cpu), ..self }
    }

    pub fn memory(self, memory: &'a str) -> Self {
        Web { memory: Some(memory), ..self }
    }

    pub fn labelled(self) -> Self {
        Web { labelled: true, ..self }
    }

    pub fn namespace(self, namespace: &'a str) -> Self {
        Web { namespace: Some(namespace), ..self }
    }

    pub fn yaml(&self) -> String {
        let mut labels = self.namespace.map(|n| format!("  namespace: {n}\n")).unwrap_or_default();
        if self.labelled {
            labels.push_str("  labels:\n    app: web\n");
        }
        let mut requests = String::new();
        if self.cpu.is_some() || self.memory.is_some() {
            requests.push_str("        resources:\n          requests:\n");
        }
        if let Some(c) = self.cpu {
            requests.push_str(&format!("            cpu: {c}\n"));
        }
        if let Some(m) = self.memory {
            requests.push_str(&format!("            memory: {m}\n"));
        }
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n{labels}spec:\n  replicas: {}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: {}\n{requests}",
            self.replicas, self.image
        )
    }
}

/// The golden tests' Deployment: `web(3).labelled().cpu("100m").memory("64Mi")`.
pub static WEB: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| web(3).labelled().cpu("100m").memory("64Mi").yaml());

/// Seed 1, three default nodes, Deployment `web` (3 replicas of nginx:1.27, 100m/64Mi) applied at t=0, run
/// for 2 simulated minutes: every pod Running.
pub fn cluster() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, &WEB).expect("apply web");
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

/// Polls `follow` every `step` of simulated time until it is done or `limit` has passed: what it printed (warnings,
/// stdout, stderr of each poll), and its exit code when it finished.
pub fn poll_until_done(sim: &mut Sim, follow: &mut dyn Follow, step: u64, limit: u64) -> (String, Option<i32>) {
    let mut text = String::new();
    let end = sim.now() + limit;
    while sim.now() < end {
        sim.run_for(step);
        let p = follow.poll(sim);
        text.push_str(&p.warnings);
        text.push_str(&p.stdout);
        text.push_str(&p.stderr);
        if p.done {
            return (text, Some(p.code));
        }
    }
    (text, None)
}

/// Every pod in the store.
pub fn pods(sim: &Sim) -> Vec<kubeloop_engine::api::Pod> {
    sim.store().objects(kubeloop_engine::api::Kind::Pod).filter_map(|o| o.as_pod().cloned()).collect()
}

/// Pods Running and not being deleted.
pub fn live_running(sim: &Sim) -> usize {
    pods(sim)
        .iter()
        .filter(|p| !p.metadata.is_terminating() && p.status.phase == kubeloop_engine::api::PodPhase::Running)
        .count()
}

/// The messages of the Events with this reason.
pub fn events(sim: &Sim, reason: &str) -> Vec<String> {
    sim.store()
        .objects(kubeloop_engine::api::Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.reason == reason)
        .map(|e| e.body.message.to_string())
        .collect()
}

/// An odd input's expected outcome: kubectl succeeds ([`OK`]) or refuses it ([`FAILS`]).
pub const OK: bool = true;
pub const FAILS: bool = false;

/// An odd input gets an answer as kubectl gives one, never a panic: on success exit 0 and no error line; on failure
/// exit 1 with kubectl's error on stderr (a line `error: ...`, `Error from server (...)`, or `The <Kind> "<name>" is
/// invalid: ...`), ended by a newline.
pub fn assert_answers(line: &str, out: &Output, succeeds: bool) {
    let error_line = |l: &str| {
        l.starts_with("error: ")
            || l.starts_with("Error from server (")
            || (l.starts_with("The ") && l.contains(" is invalid: "))
    };
    if succeeds {
        assert_eq!(out.code, 0, "`{line}` succeeds: {}", out.text());
        assert!(!out.stderr.lines().any(error_line), "`{line}` succeeds without an error: {}", out.stderr);
    } else {
        assert_eq!(out.code, 1, "`{line}` fails: {}", out.text());
        assert!(
            out.stderr.lines().any(error_line) && out.stderr.ends_with('\n'),
            "`{line}`: kubectl's error: {}",
            out.stderr
        );
    }
}

/// Sets how an image's containers end (the `app:` input): after `after`, with exit code `code`.
pub fn image_exits(sim: &mut Sim, image: &str, after: kubeloop_engine::time::Millis, code: i32) {
    use kubeloop_engine::behaviour::BehaviourPatch;
    use kubeloop_engine::intervention::{AppAction, AppTarget, Intervene, Intervention};
    let patch = BehaviourPatch { crash_after: Some(Some(after)), exit_code: Some(Some(code)), ..Default::default() };
    let target = AppTarget::Image(image.into());
    let app = Intervention::App(AppAction { target, container: None, patch, crash: false });
    let done = sim.intervene(&app, &Input::none());
    assert!(done.ok(), "{done:?}");
}
