//! The job controller (pkg/controller/job) and the TTL-after-finished controller (pkg/controller/ttlafterfinished):
//! pods run to completion (kubeloop's own default run time: a container of a pod that does not restart always
//! exits 0 after 10 s unless its `app:` behaviour says otherwise), counted through the tracking finalizer; back-off
//! between failed pods; backoffLimit, activeDeadlineSeconds and pod failure policies end a Job; suspend and
//! resume; a finished Job deleted after its TTL with its pods; kubectl's get, describe and validation messages.

mod common;

use kubeloop_engine::api::{Job, Kind, ObjKey, Pod, PodPhase};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

use common::{events, golden, image_exits};

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

#[test]
fn an_indexed_job_runs_one_pod_per_index() {
    let mut sim = cluster(2);
    let spec = "  completions: 5\n  parallelism: 2\n  completionMode: Indexed\n";
    kubectl::apply(&mut sim, &job(spec, "busybox", "Never")).expect("apply");
    sim.run_for(5 * SECOND);
    let pods = job_pods(&sim, "work");
    let idx = |p: &Pod| p.metadata.annotations.get("batch.kubernetes.io/job-completion-index").map(|v| v.to_string());
    let mut first: Vec<String> = pods.iter().filter_map(idx).collect();
    first.sort();
    assert_eq!(first, vec!["0", "1"], "the lowest indexes first");
    for p in &pods {
        let i = idx(p).expect("index");
        assert_eq!(
            p.metadata.labels.get("batch.kubernetes.io/job-completion-index").map(|v| v.to_string()),
            Some(i.clone())
        );
        assert!(p.metadata.name.starts_with(&format!("work-{i}-")), "{}", p.metadata.name);
    }
    sim.run_for(12 * SECOND);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(&*j.status.completed_indexes, "0-1", "{:?}", j.status);
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert!(j.has_condition("Complete"));
    assert_eq!((&*j.status.completed_indexes, j.status.succeeded), ("0-4", 5));
    let mut all: Vec<String> = job_pods(&sim, "work").iter().filter_map(idx).collect();
    all.sort();
    assert_eq!(all, vec!["0", "1", "2", "3", "4"]);
    let out = run(&mut sim, "describe job work");
    assert!(out.stdout.contains("Completed Indexes:  0-4"), "{}", out.stdout);
}

#[test]
fn failing_pods_back_off_then_the_job_fails_at_its_backoff_limit() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "fails", 2 * SECOND, 1);
    kubectl::apply(&mut sim, &job("  backoffLimit: 2\n", "fails", "Never")).expect("apply");
    sim.run_for(5 * MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(
        conditions(&j),
        vec![cond("FailureTarget", "True", "BackoffLimitExceeded"), cond("Failed", "True", "BackoffLimitExceeded")]
    );
    assert_eq!(
        j.condition("Failed").map(|c| c.message.to_string()).as_deref(),
        Some("Job has reached the specified backoff limit")
    );
    assert_eq!((j.status.failed, j.status.active, j.status.succeeded), (3, 0, 0));
    let pods = job_pods(&sim, "work");
    assert_eq!(pods.len(), 3, "one pod, then two replacements");
    // Each replacement waits 10 s * 2^(failures-1) after the last failure.
    let created: Vec<Millis> = pods.iter().filter_map(|p| p.metadata.creation_timestamp.map(|t| t.0)).collect();
    let finished = |p: &Pod| {
        p.status.container_statuses[0]
            .state
            .terminated
            .as_ref()
            .and_then(|t| t.finished_at)
            .map(|t| t.0)
            .expect("finished")
    };
    let gap1 = created[1] - finished(&pods[0]);
    let gap2 = created[2] - finished(&pods[1]);
    assert!((10 * SECOND..11 * SECOND).contains(&gap1), "first back-off 10 s: {gap1}");
    assert!((20 * SECOND..21 * SECOND).contains(&gap2), "second back-off 20 s: {gap2}");
    assert_eq!(events(&sim, "BackoffLimitExceeded"), vec!["Job has reached the specified backoff limit".to_string()]);
    let out = run(&mut sim, "get job work");
    assert!(out.stdout.contains("work   Failed   0/1"), "{}", out.stdout);
}

#[test]
fn the_active_deadline_ends_a_running_job() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "slow", 10 * MINUTE, 0);
    kubectl::apply(
        &mut sim,
        &job("  activeDeadlineSeconds: 30\n  parallelism: 2\n  completions: 4\n", "slow", "Never"),
    )
    .expect("apply");
    sim.run_for(20 * SECOND);
    assert_eq!(get_job(&sim, "work").expect("job").status.active, 2);
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(
        conditions(&j),
        vec![cond("FailureTarget", "True", "DeadlineExceeded"), cond("Failed", "True", "DeadlineExceeded")]
    );
    assert_eq!(
        j.condition("Failed").map(|c| c.message.to_string()).as_deref(),
        Some("Job was active longer than specified deadline")
    );
    assert_eq!((j.status.active, j.status.failed), (0, 2), "the active pods deleted, counted failed");
    let start = j.status.start_time.expect("start").0;
    let failed_at = j.condition("FailureTarget").and_then(|c| c.last_transition_time).expect("time").0;
    assert!(failed_at - start >= 30 * SECOND && failed_at - start < 32 * SECOND, "{}", failed_at - start);
    assert_eq!(events(&sim, "DeadlineExceeded"), vec!["Job was active longer than specified deadline".to_string()]);
    assert!(job_pods(&sim, "work").iter().all(|p| p.metadata.finalizers.is_empty()));
}

const POLICY: &str = "  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
";

#[test]
fn a_fail_job_rule_fails_the_job_on_its_exit_code() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "answer", 3 * SECOND, 42);
    kubectl::apply(&mut sim, &job(POLICY, "answer", "Never")).expect("apply");
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(
        conditions(&j),
        vec![cond("FailureTarget", "True", "PodFailurePolicy"), cond("Failed", "True", "PodFailurePolicy")]
    );
    let pod = &job_pods(&sim, "work")[0];
    let msg = format!(
        "Container main for pod default/{} failed with exit code 42 matching FailJob rule at index 0",
        pod.metadata.name
    );
    assert_eq!(j.condition("Failed").map(|c| c.message.to_string()), Some(msg));
    assert_eq!(j.status.failed, 1);
    assert_eq!(job_pods(&sim, "work").len(), 1, "no replacement");
}

#[test]
fn an_ignore_rule_does_not_count_a_disrupted_pod() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "long", 2 * MINUTE, 0);
    kubectl::apply(&mut sim, &job(POLICY, "long", "Never")).expect("apply");
    sim.run_for(10 * SECOND);
    let first = job_pods(&sim, "work")[0].metadata.name.to_string();
    let node = job_pods(&sim, "work")[0].spec.node_name.to_string();
    let out = run(&mut sim, &format!("drain {node} --ignore-daemonsets --force"));
    assert_eq!(out.code, 0, "{}", out.text());
    let out = run(&mut sim, &format!("uncordon {node}"));
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(j.status.failed, 0, "the DisruptionTarget pod is ignored: {:?}", j.status);
    assert!(!j.has_condition("Failed"));
    let pods = job_pods(&sim, "work");
    assert!(pods.iter().all(|p| *p.metadata.name != *first), "the evicted pod is gone");
    assert_eq!(j.status.active, 1, "a replacement runs");
    sim.run_for(3 * MINUTE);
    assert!(get_job(&sim, "work").expect("job").has_condition("Complete"));
}

#[test]
fn suspending_deletes_the_active_pods_and_resuming_makes_them_again() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "long", 5 * MINUTE, 0);
    kubectl::apply(&mut sim, &job("  parallelism: 2\n  completions: 2\n", "long", "Never")).expect("apply");
    sim.run_for(10 * SECOND);
    assert_eq!(get_job(&sim, "work").expect("job").status.active, 2);
    let spec = |suspend: bool| format!("  parallelism: 2\n  completions: 2\n  suspend: {suspend}\n");
    kubectl::apply(&mut sim, &job(&spec(true), "long", "Never")).expect("suspend");
    sim.run_for(MINUTE);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(conditions(&j), vec![cond("Suspended", "True", "JobSuspended")]);
    assert_eq!((j.status.active, j.status.failed), (0, 0), "deleted pods are not failures");
    assert!(job_pods(&sim, "work").is_empty(), "{:?}", job_pods(&sim, "work").len());
    assert_eq!(events(&sim, "Suspended"), vec!["Job suspended".to_string()]);
    assert_eq!(events(&sim, "SuccessfulDelete").len(), 2);
    let out = run(&mut sim, "get job work");
    assert!(out.stdout.contains("work   Suspended   0/2"), "{}", out.stdout);
    kubectl::apply(&mut sim, &job(&spec(false), "long", "Never")).expect("resume");
    sim.run_for(10 * SECOND);
    let j = get_job(&sim, "work").expect("job");
    assert_eq!(conditions(&j), vec![cond("Suspended", "False", "JobResumed")]);
    assert_eq!(j.status.active, 2);
    assert_eq!(events(&sim, "Resumed"), vec!["Job resumed".to_string()]);
}

#[test]
fn a_finished_job_is_deleted_with_its_pods_after_its_ttl() {
    let mut sim = cluster(1);
    kubectl::apply(&mut sim, &job("  ttlSecondsAfterFinished: 30\n", "busybox", "Never")).expect("apply");
    sim.run_for(40 * SECOND);
    let j = get_job(&sim, "work").expect("still there before its TTL");
    let finished = j.finished().and_then(|c| c.last_transition_time).expect("finished").0;
    assert_eq!(job_pods(&sim, "work").len(), 1);
    sim.run_until(finished + 29 * SECOND);
    assert!(get_job(&sim, "work").is_some());
    sim.run_for(30 * SECOND);
    assert!(get_job(&sim, "work").is_none(), "deleted after 30 s");
    assert!(job_pods(&sim, "work").is_empty(), "its pods with it");
}

#[test]
fn deleting_a_running_job_deletes_its_pods() {
    let mut sim = cluster(1);
    image_exits(&mut sim, "long", 5 * MINUTE, 0);
    kubectl::apply(&mut sim, &job("  parallelism: 2\n  completions: 2\n", "long", "Never")).expect("apply");
    sim.run_for(10 * SECOND);
    assert_eq!(job_pods(&sim, "work").len(), 2);
    let out = run(&mut sim, "delete job work");
    assert_eq!(out.stdout, "job.batch \"work\" deleted from default namespace\n");
    sim.run_for(MINUTE);
    assert!(get_job(&sim, "work").is_none());
    assert!(job_pods(&sim, "work").is_empty(), "the finalizers released, the pods gone");
}

#[test]
fn invalid_jobs_are_refused_with_upstreams_messages() {
    let mut sim = cluster(1);
    let cases: [(String, &str); 5] = [
        (
            job("", "busybox", "Always"),
            "The Job \"work\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
        ),
        (
            job("  parallelism: -1\n", "busybox", "Never"),
            "The Job \"work\" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            job("  completionMode: Indexed\n  parallelism: 2\n", "busybox", "Never"),
            "The Job \"work\" is invalid: spec.completions: Required value: when completion mode is Indexed",
        ),
        (
            job("  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {operator: In, values: [1]}\n", "busybox", "OnFailure"),
            "The Job \"work\" is invalid: spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is supported when podFailurePolicy is specified",
        ),
        (
            job("  selector:\n    matchLabels: {app: x}\n", "busybox", "Never"),
            "The Job \"work\" is invalid: ",
        ),
    ];
    for (yaml, want) in cases {
        let err = kubectl::apply(&mut sim, &yaml).expect_err(&yaml);
        assert!(err.message.starts_with(want), "{}\nwant: {want}", err.message);
    }
    let err =
        kubectl::apply(&mut sim, &job("  selector:\n    matchLabels: {app: x}\n", "busybox", "Never")).expect_err("x");
    assert!(err.message.contains("`selector` not auto-generated"), "{}", err.message);
}

#[test]
fn kubectl_prints_jobs_as_upstream() {
    let mut sim = cluster(1);
    kubectl::apply(&mut sim, PI).expect("apply");
    image_exits(&mut sim, "long", 10 * MINUTE, 0);
    kubectl::apply(&mut sim, &job("  parallelism: 3\n", "long", "OnFailure")).expect("apply");
    sim.run_for(MINUTE);
    let mut text = String::new();
    for line in ["get jobs", "get jobs -o wide", "describe job pi"] {
        let out = run(&mut sim, line);
        let masked = mask_uids(&out.text());
        text.push_str(&format!("$ kubectl {line}\n{masked}"));
    }
    golden("job-get-describe", &text);
}

/// UIDs and generated pod names vary with nothing a reader cares about: masked.
fn mask_uids(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_inclusive(|c: char| c.is_whitespace() || c == ',' || c == '=') {
        let core = word.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == '=');
        if core.len() == 36 && core.chars().filter(|c| *c == '-').count() == 4 {
            out.push_str(&word.replacen(core, "<uid>", 1));
        } else {
            out.push_str(word);
        }
    }
    out
}

#[test]
fn kubectl_create_job_runs_its_command_once() {
    let mut sim = cluster(1);
    let out = run(&mut sim, "create job hello --image=busybox -- echo hi");
    assert_eq!((out.stdout.as_str(), out.code), ("job.batch/hello created\n", 0), "{}", out.text());
    let j = get_job(&sim, "hello").expect("job");
    let c = &j.spec.template.spec.containers[0];
    assert_eq!((&*c.name, &*c.image), ("hello", "busybox"));
    assert_eq!(c.command.iter().map(|w| w.to_string()).collect::<Vec<_>>(), vec!["echo", "hi"]);
    assert_eq!(&*j.spec.template.spec.restart_policy, "Never");
    sim.run_for(MINUTE);
    assert!(get_job(&sim, "hello").expect("job").has_condition("Complete"));
    let out = run(&mut sim, "create job nothing");
    assert_eq!(out.stderr, "error: either --image or --from must be specified\n");
}

#[test]
fn kubectl_explains_jobs() {
    let mut sim = cluster(1);
    let mut text = String::new();
    for line in ["explain job", "explain job.spec", "explain job.spec.podFailurePolicy.rules"] {
        let out = run(&mut sim, line);
        text.push_str(&format!("$ kubectl {line}\n{}", out.text()));
    }
    golden("job-explain", &text);
}

/// A scenario file: the `app:` input sets how long the Job's containers run and their exit code.
#[test]
fn a_scenarios_app_input_sets_how_job_pods_end() {
    let text = "seed: 3
until: 3m
cluster:
  nodes: 1
manifests: |
  apiVersion: batch/v1
  kind: Job
  metadata:
    name: flaky
  spec:
    backoffLimit: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: flaky:1
actions:
  - {at: 0s, app: {image: \"flaky:1\", crashAfter: 5s, exitCode: 3}}
  - {at: 2m, kubectl: get jobs}
  - {at: 2m, kubectl: get pods}
";
    let sc = kubeloop_engine::scenario::Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let out = sc.run(kubeloop_engine::scenario::RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let timeline = kubeloop_engine::scenario::render_timeline(&out.timeline);
    assert!(timeline.contains("flaky   Failed   0/1"), "{timeline}");
    assert_eq!(timeline.matches("Error").count(), 2, "two pods, each exited 3: {timeline}");
}
