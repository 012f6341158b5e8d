//! Graceful termination as the kubelet does it (pkg/kubelet/kuberuntime `killContainer`): a deleted pod stays
//! Terminating while its containers run their preStop hooks, get SIGTERM, and get SIGKILL (exit 137) when the
//! grace period (`terminationGracePeriodSeconds`, 30 by default, or the delete's `--grace-period`) ends; a hook
//! that uses the period up still leaves 2 s. The pod's status becomes terminal (Failed, or Succeeded when every
//! container exited 0) before the kubelet confirms the delete. Terminating pods stay in their Service's
//! EndpointSlice as serving and terminating. What the process does on SIGTERM is the scenario's `app:` input
//! (kubeloop's own).

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Pod, PodPhase};
use kubeloop_engine::behaviour::{BehaviourPatch, Sigterm};
use kubeloop_engine::intervention::{AppAction, AppTarget, Intervene, Intervention};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::scenario::Scenario;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

const SVC: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";

/// A pod `web` labelled `app=web`, with these lines under its spec (after `containers`' one container `web`).
fn pod_yaml(container_extra: &str, spec_extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {{app: web}}\nspec:\n{spec_extra}  containers:\n  - name: web\n    image: nginx:1.27\n{container_extra}"
    )
}

fn started(yaml: &str, patch: Option<BehaviourPatch>) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    sim.add_node(NodeConfig::default()).expect("node");
    kubectl::apply(&mut sim, yaml).expect("apply");
    kubectl::apply(&mut sim, SVC).expect("svc");
    sim.run_for(MINUTE);
    if let Some(patch) = patch {
        let target = AppTarget::Pod { namespace: "default".into(), name: "web".into() };
        let done = sim.intervene(
            &Intervention::App(AppAction { target, container: None, patch, crash: false }),
            &kubectl::Input::none(),
        );
        assert!(done.ok(), "{done:?}");
    }
    assert_eq!(web(&sim).map(|p| p.status.phase), Some(PodPhase::Running));
    sim
}

fn web(sim: &Sim) -> Option<Pod> {
    sim.store().peek(Kind::Pod, &ObjKey::new("default", "web")).and_then(|o| o.as_pod().cloned())
}

fn delete(sim: &mut Sim, line: &str) {
    let out = common::kubectl(sim, line);
    assert_eq!(out.code, 0, "{}", out.text());
}

/// What the pod went through after the delete, sampled every 100 ms until it is gone (at most `limit`): how long
/// it took, the phases it showed while it existed, and the exit code its last status reported.
struct Ending {
    took: Millis,
    phases: Vec<PodPhase>,
    exit_code: Option<i32>,
}

fn until_gone(sim: &mut Sim, limit: Millis) -> Ending {
    let start = sim.now();
    let mut phases: Vec<PodPhase> = Vec::new();
    let mut exit_code = None;
    while let Some(p) = web(sim) {
        assert!(p.metadata.is_terminating(), "the pod is deleted");
        if phases.last() != Some(&p.status.phase) {
            phases.push(p.status.phase);
        }
        let term = p.status.container_statuses.first().and_then(|c| c.state.terminated.as_ref());
        exit_code = term.map(|t| t.exit_code).or(exit_code);
        assert!(sim.now() - start <= limit, "still there after {limit} ms: {phases:?}");
        sim.run_for(100);
    }
    Ending { took: sim.now() - start, phases, exit_code }
}

fn ignores() -> Option<BehaviourPatch> {
    Some(BehaviourPatch { on_sigterm: Some(Some(Sigterm::Ignore)), ..Default::default() })
}

#[test]
fn a_process_that_exits_on_sigterm_stops_within_the_runtimes_stop_time_and_passes_through_failed() {
    let mut sim = started(&pod_yaml("", ""), None);
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 5 * SECOND);
    assert!(end.took <= 2 * SECOND + 500, "{} ms", end.took);
    assert_eq!(end.phases, [PodPhase::Running, PodPhase::Failed], "terminal before it goes");
    assert_eq!(end.exit_code, Some(143));
    assert_eq!(common::events(&sim, "Killing"), ["Stopping container web"]);
}

#[test]
fn a_process_that_ignores_sigterm_is_killed_when_the_grace_period_ends() {
    let mut sim = started(&pod_yaml("", ""), ignores());
    delete(&mut sim, "delete pod web --wait=false");
    // While it terminates, it stays in the Service's slice as serving and terminating, not ready.
    sim.run_for(10 * SECOND);
    let slices: Vec<_> =
        sim.store().objects(Kind::EndpointSlice).filter_map(|o| o.as_endpointslice().cloned()).collect();
    let e = slices.iter().flat_map(|s| s.endpoints().iter()).next().expect("an endpoint while terminating");
    assert_eq!(
        (e.conditions.ready, e.conditions.serving, e.conditions.terminating),
        (Some(false), Some(true), Some(true))
    );
    let out = common::kubectl(&mut sim, "get pod web");
    assert!(out.stdout.contains("Terminating"), "{}", out.text());
    let end = until_gone(&mut sim, 25 * SECOND);
    // 30 s from the delete: 10 s above, the rest here (within the 100 ms sampling).
    assert!((20_400..=20_600).contains(&end.took), "{} ms", end.took);
    assert_eq!(end.exit_code, Some(137));
    assert_eq!(end.phases.last(), Some(&PodPhase::Failed));
}

#[test]
fn the_deletes_grace_period_and_the_pods_own_are_what_the_kubelet_waits() {
    let mut sim = started(&pod_yaml("", "  terminationGracePeriodSeconds: 12\n"), ignores());
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 20 * SECOND);
    assert!((12_400..=12_600).contains(&end.took), "{} ms", end.took);

    let mut sim = started(&pod_yaml("", ""), ignores());
    delete(&mut sim, "delete pod web --grace-period=5 --wait=false");
    let end = until_gone(&mut sim, 10 * SECOND);
    assert!((5_400..=5_600).contains(&end.took), "{} ms", end.took);
}

#[test]
fn a_second_delete_with_a_shorter_grace_period_brings_sigkill_forward() {
    let mut sim = started(&pod_yaml("", ""), ignores());
    delete(&mut sim, "delete pod web --wait=false");
    sim.run_for(10 * SECOND);
    delete(&mut sim, "delete pod web --grace-period=3 --wait=false");
    let end = until_gone(&mut sim, 10 * SECOND);
    assert!((3_400..=3_600).contains(&end.took), "{} ms", end.took);
    assert_eq!(end.exit_code, Some(137));
}

#[test]
fn a_prestop_sleep_runs_before_sigterm_and_counts_against_the_grace_period() {
    // sleep 10 s, then SIGTERM; the process takes 4 s: gone at 14 s, exit 143.
    let hook = "    lifecycle:\n      preStop:\n        sleep: {seconds: 10}\n";
    let patch = BehaviourPatch { on_sigterm: Some(Some(Sigterm::ExitAfter(4 * SECOND))), ..Default::default() };
    let mut sim = started(&pod_yaml(hook, ""), Some(patch));
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 20 * SECOND);
    assert!((14_400..=14_600).contains(&end.took), "{} ms", end.took);
    assert_eq!(end.exit_code, Some(143));

    // A hook that takes the whole period still leaves the process 2 s before SIGKILL.
    let hook = "    lifecycle:\n      preStop:\n        exec:\n          command: [sh, -c, \"sleep 60\"]\n";
    let mut sim = started(&pod_yaml(hook, "  terminationGracePeriodSeconds: 5\n"), ignores());
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 20 * SECOND);
    assert!((7_400..=7_600).contains(&end.took), "{} ms", end.took);
    assert_eq!(end.exit_code, Some(137));
}

#[test]
fn an_exec_hooks_time_is_its_sleep_or_the_apps_input() {
    let hook =
        "    lifecycle:\n      preStop:\n        exec:\n          command: [/bin/sh, -c, \"nginx -s quit; sleep 8\"]\n";
    let patch = BehaviourPatch { on_sigterm: Some(Some(Sigterm::ExitAfter(SECOND))), ..Default::default() };
    let mut sim = started(&pod_yaml(hook, ""), Some(patch.clone()));
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 20 * SECOND);
    assert!((9_400..=9_600).contains(&end.took), "{} ms", end.took);

    let hook = "    lifecycle:\n      preStop:\n        httpGet: {path: /drain, port: 8080}\n";
    let patch = BehaviourPatch { pre_stop_takes: Some(Some(6 * SECOND)), ..patch };
    let mut sim = started(&pod_yaml(hook, ""), Some(patch));
    delete(&mut sim, "delete pod web --wait=false");
    let end = until_gone(&mut sim, 20 * SECOND);
    assert!((7_400..=7_600).contains(&end.took), "{} ms", end.took);
}

#[test]
fn lifecycle_hooks_are_validated_defaulted_and_printed_as_upstream_does() {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    let long = pod_yaml("    lifecycle:\n      preStop:\n        sleep: {seconds: 45}\n", "");
    let err = kubectl::apply(&mut sim, &long).expect_err("a sleep past the grace period").to_string();
    assert!(
        err.contains("spec.containers[0].lifecycle.preStop.sleep: Invalid value: 45: must be non-negative and less than terminationGracePeriodSeconds (30)"),
        "{err}"
    );
    let none = pod_yaml("    lifecycle:\n      preStop: {}\n", "");
    let err = kubectl::apply(&mut sim, &none).expect_err("a hook without a handler").to_string();
    assert!(err.contains("spec.containers[0].lifecycle.preStop: Required value: must specify a handler type"), "{err}");
    let http = pod_yaml("    lifecycle:\n      preStop:\n        httpGet: {port: 80}\n", "");
    kubectl::apply(&mut sim, &http).expect("apply");
    let out = common::kubectl(&mut sim, "get pod web -o jsonpath={.spec.containers[0].lifecycle}");
    let yaml = common::kubectl(&mut sim, "get pod web -o yaml");
    let printed = if out.code == 0 { out.stdout } else { yaml.stdout };
    assert!(printed.contains("path") && printed.contains("HTTP"), "defaulted path and scheme: {printed}");
}

#[test]
fn a_hook_in_the_template_is_part_of_the_pod_template_hash() {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    sim.add_node(NodeConfig::default()).expect("node");
    let deploy = |hook: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n{hook}")
    };
    kubectl::apply(&mut sim, &deploy("")).expect("apply");
    sim.run_for(MINUTE);
    kubectl::apply(&mut sim, &deploy("        lifecycle:\n          preStop:\n            sleep: {seconds: 5}\n"))
        .expect("apply");
    sim.run_for(MINUTE);
    assert_eq!(sim.store().objects(Kind::ReplicaSet).count(), 2, "a new ReplicaSet for the new template");
}

#[test]
fn the_scenarios_app_input_says_what_the_process_does_on_sigterm() {
    let text = "\
cluster: {nodes: 1}
manifests: |
  apiVersion: v1
  kind: Pod
  metadata: {name: web, labels: {app: web}}
  spec:
    containers:
    - {name: web, image: nginx:1.27}
actions:
- {at: 30s, app: {pod: web, sigterm: ignore}}
- {at: 31s, kubectl: delete pod web --wait=false}
- {at: 40s, app: {image: nginx:1.27, sigterm: 3s, preStop: 2s}}
";
    let sc = Scenario::parse(text).expect("parse");
    let written = kubeloop_engine::scenario::action_yaml(&sc.actions[0]);
    assert_eq!(written, "- {at: 30s, app: {pod: \"web\", namespace: \"default\", sigterm: ignore}}");
    let written = kubeloop_engine::scenario::action_yaml(&sc.actions[2]);
    assert!(written.contains("sigterm: 3s, preStop: 2s"), "{written}");
    let bad = text.replace("sigterm: ignore", "sigterm: sometimes");
    let err = Scenario::parse(&bad).expect_err("bad sigterm").to_string();
    assert!(err.contains("line 10") && err.contains("is not ignore, exit or a duration"), "{err}");
}
