//! The job controller (pkg/controller/job) and the TTL-after-finished controller (pkg/controller/ttlafterfinished):
//! pods run to completion (kubeloop's own default run time: a container of a pod that does not restart always
//! exits 0 after 10 s unless its `app:` behaviour says otherwise), counted through the tracking finalizer; back-off
//! between failed pods; backoffLimit, activeDeadlineSeconds and pod failure policies end a Job; suspend and
//! resume; a finished Job deleted after its TTL with its pods; kubectl's get, describe and validation messages.

mod common;

use kubeloop_engine::api::{Job, Kind, ObjKey, Pod, PodPhase};
use kubeloop_engine::behaviour::BehaviourPatch;
use kubeloop_engine::intervention::{AppAction, AppTarget, Intervene, Intervention};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

use common::{events, golden};

/// The Kubernetes documentation's example Job (concepts/workloads/controllers/job: `job.yaml`).
const PI: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: [\"perl\",  \"-Mbignum=bpi\", \"-wle\", \"print bpi(2000)\"]
      restartPolicy: Never
  backoffLimit: 4
";

fn cluster(nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 7, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

/// A Job `work` of image `image` with these spec lines (indented two spaces) and restart policy.
fn job(spec: &str, image: &str, restart: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: work\nspec:\n{spec}  template:\n    spec:\n      restartPolicy: {restart}\n      containers:\n      - name: main\n        image: {image}\n"
    )
}

fn get_job(sim: &Sim, name: &str) -> Option<Job> {
    sim.store().peek(Kind::Job, &ObjKey::new("default", name)).and_then(|o| o.as_job().cloned())
}

fn job_pods(sim: &Sim, name: &str) -> Vec<Pod> {
    let mut pods: Vec<Pod> = common::pods(sim)
        .into_iter()
        .filter(|p| p.metadata.labels.get("batch.kubernetes.io/job-name").is_some_and(|v| &**v == name))
        .collect();
    pods.sort_by_key(|p| (p.metadata.creation_timestamp.map(|t| t.0), p.metadata.name.to_string()));
    pods
}

fn conditions(job: &Job) -> Vec<(String, String, String)> {
    job.status.conditions.iter().map(|c| (c.type_.to_string(), c.status.to_string(), c.reason.to_string())).collect()
}

fn cond(t: &str, s: &str, r: &str) -> (String, String, String) {
    (t.into(), s.into(), r.into())
}

/// Sets how an image's containers end: after `after`, with `code`.
fn image_exits(sim: &mut Sim, image: &str, after: Millis, code: i32) {
    let patch = BehaviourPatch { crash_after: Some(Some(after)), exit_code: Some(Some(code)), ..Default::default() };
    let target = AppTarget::Image(image.into());
    let done = sim.intervene(
        &Intervention::App(AppAction { target, container: None, patch, crash: false }),
        &kubectl::Input::none(),
    );
    assert!(done.ok(), "{done:?}");
}

fn run(sim: &mut Sim, line: &str) -> kubectl::Output {
    kubectl::run(sim, line, &kubectl::Input::none())
}

#[test]
fn the_documentations_pi_job_completes() {
    let mut sim = cluster(1);
    kubectl::apply(&mut sim, PI).expect("apply");
    sim.run_for(MINUTE);
    let j = get_job(&sim, "pi").expect("job");
    assert_eq!(
        conditions(&j),
        vec![cond("SuccessCriteriaMet", "True", "CompletionsReached"), cond("Complete", "True", "CompletionsReached")]
    );
    assert_eq!((j.status.succeeded, j.status.active, j.status.failed), (1, 0, 0));
    assert_eq!(j.status.ready, Some(0));
    assert_eq!(j.status.terminating, Some(0));
    assert!(j.status.completion_time.is_some() && j.status.start_time.is_some());
    // Defaults and the generated selector and labels.
    assert_eq!((j.spec.parallelism, j.spec.completions, j.spec.backoff_limit), (Some(1), Some(1), Some(4)));
    assert_eq!(j.spec.completion_mode.as_deref(), Some("NonIndexed"));
    assert_eq!(j.spec.pod_replacement_policy.as_deref(), Some("TerminatingOrFailed"));
    let uid = j.metadata.uid.to_string();
    let sel = j.spec.selector.clone().expect("selector");
    assert_eq!(sel.match_labels.get("batch.kubernetes.io/controller-uid").map(|v| v.to_string()), Some(uid.clone()));
    for (k, v) in [("controller-uid", uid.as_str()), ("job-name", "pi"), ("batch.kubernetes.io/job-name", "pi")] {
        assert_eq!(j.metadata.labels.get(k).map(|v| v.to_string()).as_deref(), Some(v), "{k}");
    }
    let pods = job_pods(&sim, "pi");
    assert_eq!(pods.len(), 1);
    let p = &pods[0];
    assert!(p.metadata.name.starts_with("pi-") && p.metadata.name.len() == "pi-".len() + 5, "{}", p.metadata.name);
    assert_eq!(p.status.phase, PodPhase::Succeeded);
    assert!(p.metadata.finalizers.is_empty(), "the tracking finalizer is removed once counted");
    assert_eq!(events(&sim, "Completed"), vec!["Job completed".to_string()]);
    assert_eq!(events(&sim, "SuccessfulCreate"), vec![format!("Created pod: {}", p.metadata.name)]);
}

#[test]
fn completions_three_with_parallelism_two() {
    let mut sim = cluster(2);
    kubectl::apply(&mut sim, &job("  completions: 3\n  parallelism: 2\n", "busybox", "Never")).expect("apply");
    sim.run_for(5 * SECOND);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(j.status.active, 2, "two at a time");
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert!(j.has_condition("Complete"), "{:?}", conditions(&j));
    assert_eq!(j.status.succeeded, 3);
    let pods = job_pods(&sim, "work");
    assert_eq!(pods.len(), 3, "never more than the completions left");
    assert!(pods.iter().all(|p| p.status.phase == PodPhase::Succeeded));
    let out = run(&mut sim, "get jobs");
    assert!(out.stdout.contains("work   Complete   3/3"), "{}", out.stdout);
}
