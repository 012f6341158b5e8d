//! `kubectl rollout status|history|undo|restart|pause|resume` against real rollouts of the fixture cluster.
mod common;

use common::{assert_answers, check, golden, kubectl, poll_until_done, FAILS, OK, WEB};
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::{self, Output};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{MINUTE, SECOND};
use kubeloop_engine::Faults;

fn web_with(image: &str) -> String {
    WEB.replace("nginx:1.27", image)
}

fn image_of(sim: &Sim) -> String {
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    d.map(|d| d.spec.template.spec.containers[0].image.to_string()).unwrap_or_default()
}

fn replica_sets(sim: &Sim) -> usize {
    sim.store().count_of(Kind::ReplicaSet)
}

/// Polls a followed command every `step` of simulated time until it is done (or `limit` passes); the whole
/// transcript.
fn follow_until_done(sim: &mut Sim, mut out: Output, step: u64, limit: u64) -> (String, i32, bool) {
    let mut text = out.text();
    let Some(mut f) = out.follow.take() else { return (text, out.code, true) };
    let (polled, code) = poll_until_done(sim, f.as_mut(), step, limit);
    text.push_str(&polled);
    match code {
        Some(code) => (text, code, true),
        None => {
            f.stop(sim);
            (text, 0, false)
        }
    }
}

#[test]
fn status_follows_a_rolling_update_to_the_end() {
    let mut sim = common::cluster();
    check(&mut sim, "rollout-status-complete", "rollout status deployment/web");
    kubectl::apply(&mut sim, &web_with("nginx:1.28")).expect("apply");
    let line = "rollout status deploy web";
    let out = kubectl(&mut sim, line);
    assert!(out.follow.is_some(), "{out:?}");
    let (text, code, done) = follow_until_done(&mut sim, out, 200, 5 * MINUTE);
    assert!(done && code == 0, "{text}");
    assert!(text.ends_with("deployment \"web\" successfully rolled out\n"), "{text}");
    // Each message is printed once, when it changes.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.windows(2).all(|w| w[0] != w[1]), "{text}");
    golden("rollout-status-watch", &format!("$ kubectl {line}\n{text}"));
    assert_eq!(image_of(&sim), "nginx:1.28");
}

#[test]
fn status_without_watch_prints_once() {
    let mut sim = common::cluster();
    kubectl::apply(&mut sim, &web_with("nginx:1.28")).expect("apply");
    sim.run_for(2 * SECOND);
    let out = check(&mut sim, "rollout-status-no-watch", "rollout status deployment/web --watch=false");
    assert!(out.follow.is_none());
    assert_eq!(out.code, 0);
}

#[test]
fn status_times_out_and_reports_the_progress_deadline() {
    let mut sim = common::cluster();
    // A request no node can hold: the new pods stay Pending and the rollout stalls.
    let stuck = web_with("nginx:1.28").replace("cpu: 100m", "cpu: \"64\"");
    kubectl::apply(&mut sim, &stuck).expect("apply");
    let out = kubectl(&mut sim, "rollout status deployment/web --timeout=20s");
    let (text, code, done) = follow_until_done(&mut sim, out, SECOND, MINUTE);
    assert!(done && code == 1, "{text}");
    assert!(text.ends_with("error: timed out waiting for the condition\n"), "{text}");
    golden("rollout-status-timeout", &format!("$ kubectl rollout status deployment/web --timeout=20s\n{text}"));

    let with_deadline = stuck.replace("  replicas: 3\n", "  replicas: 3\n  progressDeadlineSeconds: 30\n");
    kubectl::apply(&mut sim, &with_deadline).expect("apply");
    let out = kubectl(&mut sim, "rollout status deployment/web");
    let (text, code, done) = follow_until_done(&mut sim, out, SECOND, 5 * MINUTE);
    assert!(done && code == 1, "{text}");
    assert!(text.ends_with("error: deployment \"web\" exceeded its progress deadline\n"), "{text}");
}

/// sync.go getNewReplicaSet: every new ReplicaSet sets Progressing=True NewReplicaSetCreated, so a second
/// rollout whose pods cannot be created (a used-up quota) counts its deadline from then and reaches
/// ProgressDeadlineExceeded, instead of keeping the first rollout's NewReplicaSetAvailable for ever.
#[test]
fn a_second_rollout_that_cannot_create_pods_exceeds_its_deadline() {
    let mut sim = common::cluster();
    let with_deadline = WEB.replace("  replicas: 3\n", "  replicas: 3\n  progressDeadlineSeconds: 30\n");
    kubectl::apply(&mut sim, &with_deadline).expect("apply");
    sim.run_for(MINUTE);
    assert_eq!(progressing(&sim), ("True".into(), "NewReplicaSetAvailable".into()));
    sim.set_faults(Faults { reject_pod_creates: true, ..Faults::default() });
    kubectl::apply(&mut sim, &with_deadline.replace("nginx:1.27", "nginx:1.28")).expect("apply");
    sim.run_for(SECOND);
    assert_eq!(progressing(&sim), ("True".into(), "NewReplicaSetCreated".into()));
    let out = kubectl(&mut sim, "rollout status deployment/web");
    let (text, code, done) = follow_until_done(&mut sim, out, SECOND, 2 * MINUTE);
    assert!(done && code == 1, "{text}");
    assert!(text.ends_with("error: deployment \"web\" exceeded its progress deadline\n"), "{text}");
    assert_eq!(progressing(&sim), ("False".into(), "ProgressDeadlineExceeded".into()));
}

/// sync.go getNewReplicaSet: a ReplicaSet the API server refuses is a ReplicaSetCreateError event and
/// Progressing=False with the same message. Here the Deployment's selector requires pods without a
/// pod-template-hash label: valid for the Deployment, but its ReplicaSet's template carries the label, so the
/// ReplicaSet's own selector cannot match it.
#[test]
fn a_refused_replicaset_is_a_create_error_condition_and_event() {
    let mut sim = common::cluster();
    let text = WEB.replace("web", "shop").replace(
        "    matchLabels:\n      app: shop\n",
        "    matchLabels:\n      app: shop\n    matchExpressions:\n    - key: pod-template-hash\n      operator: DoesNotExist\n",
    );
    kubectl::apply(&mut sim, &text).expect("apply");
    sim.run_for(10 * SECOND);
    let d =
        sim.store().peek(Kind::Deployment, &ObjKey::new("default", "shop")).and_then(|o| o.as_deployment().cloned());
    let c = d.expect("deployment").status.conditions.into_iter().find(|c| &*c.type_ == "Progressing");
    let c = c.expect("Progressing");
    assert_eq!((&*c.status, &*c.reason), ("False", "ReplicaSetCreateError"), "{c:?}");
    assert!(c.message.starts_with("Failed to create new replica set \"shop-"), "{c:?}");
    assert!(c.message.contains("`selector` does not match template `labels`"), "{c:?}");
    let events: Vec<_> = sim
        .store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.involved_object.name == "shop")
        .map(|e| (e.body.type_.to_string(), e.body.reason.to_string(), e.body.message.to_string()))
        .collect();
    assert_eq!(events, [("Warning".into(), "ReplicaSetCreateError".into(), c.message.to_string())]);
    assert!(sim.store().objects(Kind::ReplicaSet).all(|rs| !rs.meta().name.starts_with("shop")));
    let out = kubectl(&mut sim, "rollout status deployment/shop --watch=false");
    assert_eq!(out.stdout, "Waiting for deployment spec update to be observed...\n", "{out:?}");
}

fn progressing(sim: &Sim) -> (String, String) {
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    let c = d.and_then(|d| d.status.conditions.iter().find(|c| &*c.type_ == "Progressing").cloned());
    c.map(|c| (c.status.to_string(), c.reason.to_string())).unwrap_or_default()
}

#[test]
fn history_lists_revisions_and_shows_one() {
    let mut sim = common::cluster();
    kubectl::apply(&mut sim, &web_with("nginx:1.28")).expect("apply");
    sim.run_for(2 * MINUTE);
    let cause = web_with("nginx:1.29").replace(
        "  labels:\n    app: web\nspec:",
        "  labels:\n    app: web\n  annotations:\n    kubernetes.io/change-cause: upgrade to 1.29\nspec:",
    );
    kubectl::apply(&mut sim, &cause).expect("apply");
    sim.run_for(2 * MINUTE);
    let out = check(&mut sim, "rollout-history", "rollout history deployment/web");
    assert_eq!(out.code, 0);
    check(&mut sim, "rollout-history-revision", "rollout history deploy/web --revision=3");
    let out = check(&mut sim, "rollout-history-unknown-revision", "rollout history deploy/web --revision=7");
    assert_eq!(out.code, 1);
}

#[test]
fn undo_rolls_back_to_the_previous_template() {
    let mut sim = common::cluster();
    let out = check(&mut sim, "rollout-undo-no-history", "rollout undo deployment/web");
    assert_eq!(out.code, 1);
    kubectl::apply(&mut sim, &web_with("nginx:1.28")).expect("apply");
    sim.run_for(2 * MINUTE);
    assert_eq!(image_of(&sim), "nginx:1.28");
    let out = check(&mut sim, "rollout-undo", "rollout undo deployment/web");
    assert_eq!(out.code, 0, "{}", out.text());
    assert_eq!(image_of(&sim), "nginx:1.27");
    sim.run_for(2 * MINUTE);
    // The old ReplicaSet is reused and takes the next revision: 2 and 3 now, 1 is gone.
    let out = kubectl(&mut sim, "rollout history deployment/web");
    assert!(
        out.stdout.contains("\n2 ") && out.stdout.contains("\n3 ") && !out.stdout.contains("\n1 "),
        "{}",
        out.stdout
    );
    assert_eq!(replica_sets(&sim), 2);
    let out = check(&mut sim, "rollout-undo-to-revision-current", "rollout undo deployment/web --to-revision=3");
    assert_eq!(out.code, 0);
    let out = check(&mut sim, "rollout-undo-unknown-revision", "rollout undo deployment/web --to-revision=9");
    assert_eq!(out.code, 1);
    let out = kubectl(&mut sim, "rollout undo deployment/web --to-revision=2");
    assert_eq!(out.code, 0, "{}", out.text());
    assert_eq!(image_of(&sim), "nginx:1.28");
    kubectl(&mut sim, "rollout pause deployment/web");
    let out = check(&mut sim, "rollout-undo-paused", "rollout undo deployment/web");
    assert_eq!(out.code, 1);
}

#[test]
fn restart_makes_a_new_replica_set() {
    let mut sim = common::cluster();
    assert_eq!(replica_sets(&sim), 1);
    let out = check(&mut sim, "rollout-restart", "rollout restart deployment/web");
    assert_eq!(out.code, 0);
    let out = check(&mut sim, "rollout-restart-again", "rollout restart deployment/web");
    assert_eq!(out.code, 1, "a second restart within the same second is refused");
    sim.run_for(2 * MINUTE);
    assert_eq!(replica_sets(&sim), 2);
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    let stamp =
        d.and_then(|d| d.spec.template.metadata.annotation("kubectl.kubernetes.io/restartedAt").map(str::to_string));
    assert_eq!(stamp.as_deref(), Some("2026-01-01T00:02:00Z"));
    let out = kubectl(&mut sim, "rollout status deployment/web --watch=false");
    assert_eq!(out.stdout, "deployment \"web\" successfully rolled out\n");
}

#[test]
fn a_paused_deployment_makes_no_new_replica_set_until_resumed() {
    let mut sim = common::cluster();
    check(&mut sim, "rollout-pause", "rollout pause deployment/web");
    check(&mut sim, "rollout-pause-again", "rollout pause deployment/web");
    // Paused: a template change makes no new ReplicaSet.
    kubectl::apply(&mut sim, &web_with("nginx:1.28")).expect("apply");
    sim.run_for(MINUTE);
    assert_eq!(replica_sets(&sim), 1);
    check(&mut sim, "rollout-restart-paused", "rollout restart deployment/web");
    check(&mut sim, "rollout-resume", "rollout resume deployment/web");
    sim.run_for(MINUTE);
    assert_eq!(replica_sets(&sim), 2);
    check(&mut sim, "rollout-resume-again", "rollout resume deploy/web");
}

#[test]
fn usage_errors_read_like_kubectl() {
    let mut sim = common::cluster();
    check(&mut sim, "rollout-no-resource", "rollout status");
    check(&mut sim, "rollout-not-found", "rollout history deployment/nope");
    check(&mut sim, "rollout-unsupported-kind", "rollout pause rs -l app=web");
    check(&mut sim, "rollout-unknown-subcommand", "rollout frobnicate deploy/web");
    check(&mut sim, "rollout-by-selector", "rollout status deployment -l app=web");
    check(&mut sim, "rollout-wrong-flag", "rollout history deploy/web --to-revision=1");
    let out = kubectl(&mut sim, "rollout restart pod -l app=web");
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with("error: pods \"web-"), "{}", out.stderr);
    assert!(out.stderr.contains("restarting is not supported"), "{}", out.stderr);
}

#[test]
fn odd_inputs_get_kubectls_answers() {
    let mut sim = common::cluster();
    for (line, ok) in [
        ("rollout", OK),
        ("rollout --help", OK),
        ("rollout status deploy", OK),
        ("rollout status deploy/", FAILS),
        ("rollout status /web", FAILS),
        ("rollout status deploy web extra", FAILS),
        ("rollout status deploy/web --revision=-1", FAILS),
        ("rollout status deploy/web --revision=x", FAILS),
        ("rollout status deploy/web --revision=99 --watch=false", FAILS),
        ("rollout status deploy/web --timeout=banana", FAILS),
        ("rollout status deploy/web -l 'a in ('", FAILS),
        ("rollout status deploy/web -l app=web", FAILS),
        ("rollout history deploy/web --revision=-3", FAILS),
        ("rollout history nodes", FAILS),
        ("rollout history no/x", FAILS),
        ("rollout undo deploy/web --to-revision=-1", FAILS),
        ("rollout undo deploy/web --to-revision=99999999999999999999", FAILS),
        ("rollout undo svc/web", FAILS),
        ("rollout restart deploy", OK),
        ("rollout pause deploy/web deploy/web", OK),
        ("rollout resume ''", OK),
        ("rollout status -n nope deploy/web", FAILS),
        ("rollout history deploy -n kube-system", OK),
        ("rollout status pod,deploy", FAILS),
    ] {
        let before = sim.history_hash();
        let out = kubectl(&mut sim, line);
        assert_answers(line, &out, ok);
        if let Some(mut f) = out.follow {
            let _ = f.poll(&mut sim);
            f.stop(&mut sim);
        }
        // Only a restart or a pause that found its Deployment writes.
        let writes = ok && (line.starts_with("rollout restart") || line.starts_with("rollout pause"));
        assert_eq!(sim.history_hash() != before, writes, "`{line}` writes: {writes}");
    }
}
