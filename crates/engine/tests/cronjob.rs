//! The cronjob controller (`kubernetes/pkg/controller/cronjob/cronjob_controllerv2.go`, `utils.go`): a Job at each
//! schedule time, named for its minute; `status.active`, `lastScheduleTime`, `lastSuccessfulTime`; Allow, Forbid
//! and Replace; suspend, and missed times within `startingDeadlineSeconds`; the history limits; time zones;
//! kubectl's get, describe, `create cronjob`, `create job --from`, and the API server's validation messages.

mod common;

use kubeloop_engine::api::{CronJob, Job, Kind, ObjKey};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{HOUR, MINUTE, SECOND};

use common::{events, image_exits};

/// The Kubernetes documentation's example CronJob (concepts/workloads/controllers/cron-jobs: `cronjob.yaml`).
const HELLO: &str = "apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: \"* * * * *\"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox:1.28
            imagePullPolicy: IfNotPresent
            command:
            - /bin/sh
            - -c
            - date; echo Hello from the Kubernetes cluster
          restartPolicy: OnFailure
";

fn cluster() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    for _ in 0..2 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

/// A CronJob `tick` with these spec lines (indented two spaces) running image `image`.
fn cronjob(spec: &str, image: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: tick\nspec:\n{spec}  jobTemplate:\n    spec:\n      backoffLimit: 0\n      template:\n        spec:\n          restartPolicy: Never\n          containers:\n          - name: main\n            image: {image}\n"
    )
}

fn get(sim: &Sim, name: &str) -> CronJob {
    let found = sim.store().peek(Kind::CronJob, &ObjKey::new("default", name)).and_then(|o| o.as_cronjob().cloned());
    found.expect("the CronJob")
}

/// The CronJob's Jobs (not being deleted), by name.
fn jobs(sim: &Sim) -> Vec<Job> {
    let mut v: Vec<Job> = sim
        .store()
        .objects(Kind::Job)
        .filter_map(|o| o.as_job().cloned())
        .filter(|j| !j.metadata.is_terminating())
        .collect();
    v.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    v
}

fn names(jobs: &[Job]) -> Vec<String> {
    jobs.iter().map(|j| j.metadata.name.to_string()).collect()
}

/// A Job's name for the minute `m` after simulated time 0 (2026-01-01T00:00:00Z, 29,453,760 minutes).
fn at_minute(name: &str, m: u64) -> String {
    format!("{name}-{}", 29_453_760 + m)
}

#[test]
fn the_documentations_hello_runs_a_job_every_minute_and_keeps_three() {
    let mut sim = cluster();
    kubectl::apply(&mut sim, HELLO).expect("apply");
    sim.run_for(3 * MINUTE + 30 * SECOND);
    // One a minute, each named for the minute it was scheduled for, each Complete (kubeloop's 10 s run).
    let js = jobs(&sim);
    assert_eq!(names(&js), [1, 2, 3].map(|m| at_minute("hello", m)));
    assert!(js.iter().all(|j| j.has_condition("Complete")), "{js:?}");
    let first = &js[0];
    let stamp = first.metadata.annotations.get("batch.kubernetes.io/cronjob-scheduled-timestamp").map(|v| &**v);
    assert_eq!(stamp, Some("2026-01-01T00:01:00Z"));
    let owner = &first.metadata.owner_references[0];
    assert_eq!((&*owner.kind, &*owner.name, owner.controller), ("CronJob", "hello", Some(true)));
    let cj = get(&sim, "hello");
    assert_eq!(cj.status.last_schedule_time.map(|t| t.0), Some(3 * MINUTE));
    assert!(cj.status.active.is_empty() && cj.status.last_successful_time.is_some());
    // The defaults.
    assert_eq!(cj.spec.concurrency_policy.as_deref(), Some("Allow"));
    assert_eq!((cj.spec.successful_jobs_history_limit, cj.spec.failed_jobs_history_limit), (Some(3), Some(1)));
    // A fourth: the oldest goes (successfulJobsHistoryLimit 3), with its pod.
    sim.run_for(MINUTE);
    assert_eq!(names(&jobs(&sim)), [2, 3, 4].map(|m| at_minute("hello", m)));
    sim.run_for(5 * SECOND);
    assert!(events(&sim, "SuccessfulDelete")
        .iter()
        .any(|e| e.ends_with(&format!("Deleted job {}", at_minute("hello", 1)))));
    assert!(events(&sim, "SawCompletedJob").iter().any(|e| e.contains("condition: Complete")));
    let pods = common::pods(&sim).into_iter().filter(|p| p.metadata.name.starts_with(&at_minute("hello", 1)));
    assert_eq!(pods.count(), 0, "the deleted Job's pod goes with it");
    let out = common::kubectl(&mut sim, "get cronjobs");
    assert_eq!(
        out.stdout,
        "NAME    SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE\nhello   * * * * *   <none>     False     0        35s             4m35s\n"
    );
    let d = common::kubectl(&mut sim, "describe cj hello").stdout;
    for want in [
        "Schedule:                      * * * * *",
        "Concurrency Policy:            Allow",
        "Successful Job History Limit:  3",
        "Starting Deadline Seconds:     <unset>",
        "Last Schedule Time:  Thu, 01 Jan 2026 00:04:00 +0000",
        "Active Jobs:         <none>",
    ] {
        assert!(d.contains(want), "{want}\n{d}");
    }
}

#[test]
fn forbid_skips_a_time_while_a_job_runs_and_replace_deletes_it() {
    let mut sim = cluster();
    image_exits(&mut sim, "slow:1", 90 * SECOND, 0);
    kubectl::apply(&mut sim, &cronjob("  schedule: \"* * * * *\"\n  concurrencyPolicy: Forbid\n", "slow:1"))
        .expect("apply");
    sim.run_for(2 * MINUTE + 30 * SECOND);
    // The 1-minute Job still runs at 2 minutes: no second one.
    assert_eq!(names(&jobs(&sim)), [at_minute("tick", 1)]);
    assert_eq!(get(&sim, "tick").status.active.len(), 1);
    let skipped = events(&sim, "JobAlreadyActive");
    assert_eq!(
        skipped,
        ["Not starting job because prior execution is running and concurrency policy is Forbid".to_string()]
    );
    // Once it finishes (90 s and its pull after 1:00), the missed 2:00 time runs late, as upstream's (no
    // startingDeadlineSeconds to skip it).
    sim.run_for(30 * SECOND);
    assert_eq!(names(&jobs(&sim)), [at_minute("tick", 1), at_minute("tick", 2)]);
    let late = &jobs(&sim)[1];
    assert!(late.metadata.creation_timestamp.is_some_and(|t| t.0 > 2 * MINUTE + 30 * SECOND), "{late:?}");

    let mut sim = cluster();
    image_exits(&mut sim, "slow:1", 90 * SECOND, 0);
    kubectl::apply(&mut sim, &cronjob("  schedule: \"* * * * *\"\n  concurrencyPolicy: Replace\n", "slow:1"))
        .expect("apply");
    sim.run_for(2 * MINUTE + 30 * SECOND);
    assert_eq!(names(&jobs(&sim)), [at_minute("tick", 2)], "the running one replaced");
    assert!(events(&sim, "SuccessfulDelete").contains(&format!("Deleted job {}", at_minute("tick", 1))));
    assert_eq!(get(&sim, "tick").status.active.len(), 1);
}

#[test]
fn a_suspended_cronjob_makes_nothing_and_a_missed_time_runs_within_its_starting_deadline() {
    for (deadline, runs) in [("", true), ("  startingDeadlineSeconds: 10\n", false)] {
        let mut sim = cluster();
        let spec = format!("  schedule: \"*/5 * * * *\"\n  suspend: true\n{deadline}");
        kubectl::apply(&mut sim, &cronjob(&spec, "busybox")).expect("apply");
        sim.run_for(5 * MINUTE + 20 * SECOND);
        assert!(jobs(&sim).is_empty(), "suspended");
        kubectl::apply(&mut sim, &cronjob(&spec.replace("suspend: true", "suspend: false"), "busybox")).expect("apply");
        sim.run_for(5 * SECOND);
        // The 5-minute time was missed by 20 s: run late without a deadline, skipped with one of 10 s.
        let made = names(&jobs(&sim));
        assert_eq!(made == [at_minute("tick", 5)], runs, "deadline {deadline:?}: {made:?}");
        sim.run_for(5 * MINUTE);
        assert!(names(&jobs(&sim)).contains(&at_minute("tick", 10)), "the next time runs");
    }
}

#[test]
fn failed_jobs_are_kept_one_deep() {
    let mut sim = cluster();
    image_exits(&mut sim, "broken:1", 5 * SECOND, 1);
    kubectl::apply(&mut sim, &cronjob("  schedule: \"* * * * *\"\n", "broken:1")).expect("apply");
    sim.run_for(3 * MINUTE + 45 * SECOND);
    let js = jobs(&sim);
    assert_eq!(names(&js), [at_minute("tick", 3)], "failedJobsHistoryLimit 1");
    assert!(js[0].has_condition("Failed"));
    assert!(get(&sim, "tick").status.last_successful_time.is_none());
}

#[test]
fn a_time_zone_moves_the_schedule_and_the_annotation_says_it_in_that_zone() {
    let mut sim = cluster();
    // 01:00 in Tokyo is 16:00 UTC: 16 hours after simulated time 0.
    let spec = "  schedule: \"0 1 * * *\"\n  timeZone: Asia/Tokyo\n";
    kubectl::apply(&mut sim, &cronjob(spec, "busybox")).expect("apply");
    sim.run_for(16 * HOUR - MINUTE);
    assert!(jobs(&sim).is_empty());
    sim.run_for(2 * MINUTE);
    let js = jobs(&sim);
    assert_eq!(names(&js), [at_minute("tick", 16 * 60)]);
    let stamp = js[0].metadata.annotations.get("batch.kubernetes.io/cronjob-scheduled-timestamp").map(|v| &**v);
    assert_eq!(stamp, Some("2026-01-02T01:00:00+09:00"));
    let out = common::kubectl(&mut sim, "get cj tick -o wide");
    assert!(out.stdout.contains("0 1 * * *   Asia/Tokyo   False     0        60s"), "{}", out.stdout);
}

#[test]
fn the_api_server_refuses_a_bad_schedule_zone_policy_or_name_with_upstreams_messages() {
    let mut sim = cluster();
    for (spec, want) in [
        ("  schedule: \"61 * * * *\"\n", "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"),
        ("  schedule: \"* * *\"\n", "spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]"),
        ("  schedule: \"TZ=UTC * * * * *\"\n", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
        ("  schedule: \"* * * * *\"\n  timeZone: Mars/Olympus\n", "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus"),
        ("  schedule: \"* * * * *\"\n  concurrencyPolicy: Sometimes\n", "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\""),
        ("  schedule: \"* * * * *\"\n  startingDeadlineSeconds: -1\n", "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"),
    ] {
        let out = common::kubectl_stdin(&mut sim, "apply -f -", &cronjob(spec, "busybox"));
        assert_eq!(out.code, 1, "{spec}");
        assert!(out.stderr.contains(want), "{spec}: {}", out.stderr);
    }
    let long =
        cronjob("  schedule: \"* * * * *\"\n", "busybox").replace("name: tick", &format!("name: {}", "a".repeat(53)));
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &long);
    assert!(out.stderr.contains("must be no more than 52 characters"), "{}", out.stderr);
    let always =
        cronjob("  schedule: \"* * * * *\"\n", "busybox").replace("restartPolicy: Never", "restartPolicy: Always");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &always);
    let want =
        "spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"";
    assert!(out.stderr.contains(want), "{}", out.stderr);
    assert_eq!(sim.store().count_of(Kind::CronJob), 0, "nothing stored");
}

#[test]
fn kubectl_creates_a_cronjob_and_a_job_from_it() {
    let mut sim = cluster();
    let out = common::kubectl(&mut sim, "create cronjob tick --image=busybox --schedule='*/2 * * * *' -- date");
    assert_eq!(out.stdout, "cronjob.batch/tick created\n", "{}", out.stderr);
    let cj = get(&sim, "tick");
    assert_eq!(&*cj.spec.schedule, "*/2 * * * *");
    assert_eq!(&*cj.spec.job_template.spec.template.spec.restart_policy, "OnFailure");
    let out = common::kubectl(&mut sim, "create job now --from=cronjob/tick");
    assert_eq!(out.stdout, "job.batch/now created\n", "{}", out.stderr);
    let job = sim.store().peek(Kind::Job, &ObjKey::new("default", "now")).and_then(|o| o.as_job().cloned());
    let job = job.expect("job/now");
    assert_eq!(job.metadata.annotations.get("cronjob.kubernetes.io/instantiate").map(|v| &**v), Some("manual"));
    sim.run_for(30 * SECOND);
    let job = sim.store().peek(Kind::Job, &ObjKey::new("default", "now")).and_then(|o| o.as_job().cloned());
    assert!(job.is_some_and(|j| j.has_condition("Complete")));
    let out = common::kubectl(&mut sim, "create job x --from=cronjob/none");
    assert!(out.stderr.contains("cronjobs.batch \"none\" not found"), "{}", out.stderr);
}
