//! The kubelet's containers: probes with upstream's timing (period, failureThreshold, successThreshold,
//! initialDelaySeconds), restarts through the back-off (CrashLoopBackOff 10 s doubling to 5 min, forgotten after
//! 10 min), failing image pulls (ErrImagePull, ImagePullBackOff), restart policies, and the pod status and events
//! a real kubelet writes. What the application does is the scenario's `app:` input (kubeloop's own).

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Pod, PodPhase};
use kubeloop_engine::behaviour::BehaviourPatch;
use kubeloop_engine::intervention::{AppAction, AppTarget, Intervene, Intervention};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

/// A Deployment `web` of `replicas` pods whose container `web` has these probe lines (YAML under the container).
fn deployment(replicas: i32, image: &str, probes: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      containers:\n      - name: web\n        image: {image}\n{probes}"
    )
}

const READINESS: &str = "        readinessProbe:\n          httpGet: {path: /ready, port: 8080}\n";
const LIVENESS: &str = "        livenessProbe:\n          httpGet: {path: /healthz, port: 8080}\n";
const SVC: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";

fn sim(nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 11, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

fn pod(sim: &Sim, name: &str) -> Pod {
    sim.store().peek(Kind::Pod, &ObjKey::new("default", name)).and_then(|o| o.as_pod().cloned()).expect("pod")
}

fn pod_names(sim: &Sim) -> Vec<String> {
    common::pods(sim).iter().filter(|p| !p.metadata.is_terminating()).map(|p| p.metadata.name.to_string()).collect()
}

fn app(sim: &mut Sim, target: AppTarget, patch: BehaviourPatch, crash: bool) {
    let what = Intervention::App(AppAction { target, container: None, patch, crash });
    let done = sim.intervene(&what, &kubectl::Input::none());
    assert!(done.ok(), "{done:?}");
}

fn on_pod(name: &str) -> AppTarget {
    AppTarget::Pod { namespace: "default".into(), name: name.into() }
}

fn ready_endpoints(sim: &Sim) -> usize {
    sim.store()
        .objects(Kind::EndpointSlice)
        .filter_map(|o| o.as_endpointslice())
        .flat_map(|s| s.endpoints().iter())
        .filter(|e| e.conditions.ready == Some(true))
        .count()
}

/// Runs in steps of `step` until `cond` holds (at most `limit`); returns the simulated time it took.
fn until(sim: &mut Sim, step: Millis, limit: Millis, mut cond: impl FnMut(&Sim) -> bool) -> Millis {
    let start = sim.now();
    while !cond(sim) {
        assert!(sim.now() - start < limit, "not within {limit} ms");
        sim.run_for(step);
    }
    sim.now() - start
}

#[test]
fn a_failing_readiness_check_takes_the_pod_out_of_the_endpoints_after_three_periods_and_back() {
    let mut sim = sim(2);
    kubectl::apply(&mut sim, &deployment(2, "shop/web:1.0", READINESS)).expect("apply");
    kubectl::apply(&mut sim, SVC).expect("svc");
    sim.run_for(MINUTE);
    assert_eq!(ready_endpoints(&sim), 2);
    let name = pod_names(&sim)[0].clone();
    assert!(pod(&sim, &name).is_ready());
    app(&mut sim, on_pod(&name), BehaviourPatch { readiness_fails: Some(true), ..Default::default() }, false);
    // Three failures in a row, a period (10 s) apart: the first within one period, the third 20 s later.
    sim.run_for(20 * SECOND);
    assert!(pod(&sim, &name).is_ready(), "two failures are not enough");
    sim.run_for(10 * SECOND);
    let p = pod(&sim, &name);
    assert!(!p.is_ready(), "three failures make it not ready");
    assert_eq!(p.status.phase, PodPhase::Running, "not ready is still running");
    let ready = p.condition("Ready").expect("Ready");
    assert_eq!(&*ready.reason, "ContainersNotReady");
    assert_eq!(&*ready.message, "containers with unready status: [web]");
    sim.run_for(2 * SECOND);
    assert_eq!(ready_endpoints(&sim), 1, "the EndpointSlice controller took it out");
    let unhealthy = common::events(&sim, "Unhealthy");
    assert_eq!(unhealthy, ["Readiness probe failed: HTTP probe failed with statuscode: 503"]);
    let out = common::kubectl(&mut sim, "get pods");
    assert!(out.stdout.contains(&format!("{name}   0/1     Running   0")), "{}", out.stdout);
    // Passing again: ready at the next tick (successThreshold 1), and back in the endpoints.
    app(&mut sim, on_pod(&name), BehaviourPatch { readiness_fails: Some(false), ..Default::default() }, false);
    sim.run_for(10 * SECOND);
    assert!(pod(&sim, &name).is_ready());
    sim.run_for(2 * SECOND);
    assert_eq!(ready_endpoints(&sim), 2);
}

#[test]
fn a_readiness_probe_makes_a_new_pod_wait_for_its_initial_delay() {
    let mut sim = sim(1);
    let probe = "        readinessProbe:\n          tcpSocket: {port: 8080}\n          initialDelaySeconds: 15\n";
    kubectl::apply(&mut sim, &deployment(1, "shop/web:1.0", probe)).expect("apply");
    let waited = until(&mut sim, SECOND, MINUTE, |s| common::live_running(s) == 1);
    assert!(waited < 10 * SECOND, "running after the pull: {waited}");
    let name = pod_names(&sim)[0].clone();
    let started = pod(&sim, &name).status.container_statuses[0].state.running.as_ref().and_then(|r| r.started_at);
    let started = started.expect("startedAt").0;
    until(&mut sim, SECOND, MINUTE, |s| pod(s, &name).is_ready());
    let ready_at = pod(&sim, &name).condition("Ready").and_then(|c| c.last_transition_time).expect("time").0;
    let after = ready_at - started;
    assert!((15 * SECOND..25 * SECOND).contains(&after), "ready {after} ms after start: the first tick after 15 s");
}

#[test]
fn a_failing_liveness_check_restarts_the_container_and_restarts_back_off() {
    let mut sim = sim(1);
    kubectl::apply(&mut sim, &deployment(1, "shop/web:1.0", LIVENESS)).expect("apply");
    sim.run_for(MINUTE);
    let name = pod_names(&sim)[0].clone();
    app(&mut sim, on_pod(&name), BehaviourPatch { liveness_fails: Some(true), ..Default::default() }, false);
    // Three failures, 10 s apart, then the kill; the kubelet notices the exit at its next relist and restarts at
    // once (the first restart has no back-off).
    until(&mut sim, SECOND, MINUTE, |s| pod(s, &name).restarts() == 1);
    let p = pod(&sim, &name);
    let last = p.status.container_statuses[0].last_state.terminated.clone().expect("lastState.terminated");
    assert_eq!((last.exit_code, &*last.reason), (143, "Error"));
    assert_eq!(common::events(&sim, "Killing"), ["Container web failed liveness probe, will be restarted"]);
    assert_eq!(common::events(&sim, "Unhealthy"), ["Liveness probe failed: HTTP probe failed with statuscode: 503"]);
    // Still failing: killed again, and now it waits in CrashLoopBackOff before the second restart.
    until(&mut sim, SECOND, 2 * MINUTE, |s| {
        pod(s, &name).status.container_statuses[0]
            .state
            .waiting
            .as_ref()
            .is_some_and(|w| &*w.reason == "CrashLoopBackOff")
    });
    let p = pod(&sim, &name);
    let waiting = p.status.container_statuses[0].state.waiting.clone().expect("waiting");
    let uid = &p.metadata.uid;
    assert_eq!(&*waiting.message, format!("back-off 10s restarting failed container=web pod={name}_default({uid})"));
    assert_eq!(p.restarts(), 1, "the restart count grows when the container runs again");
    assert!(common::events(&sim, "BackOff")
        .contains(&format!("Back-off restarting failed container web in pod {name}_default({uid})")));
    let out = common::kubectl(&mut sim, "get pods");
    assert!(out.stdout.contains("CrashLoopBackOff   1 ("), "{}", out.stdout);
    let out = common::kubectl(&mut sim, &format!("describe pod {name}"));
    for line in
        ["Reason:       CrashLoopBackOff", "Last State:     Terminated", "Exit Code:    143", "Restart Count:  1"]
    {
        assert!(out.stdout.contains(line), "{line:?} in\n{}", out.stdout);
    }
    assert!(out.stdout.contains(
        "Liveness:       http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3"
    ));
    // Healthy again: it runs on after its next restart and the count stays.
    app(&mut sim, on_pod(&name), BehaviourPatch { liveness_fails: Some(false), ..Default::default() }, false);
    until(&mut sim, SECOND, MINUTE, |s| pod(s, &name).is_ready());
    let restarts = pod(&sim, &name).restarts();
    sim.run_for(5 * MINUTE);
    assert_eq!(pod(&sim, &name).restarts(), restarts);
    assert!(pod(&sim, &name).is_ready());
}

/// When each restart of a container that exits `run` after every start happens, over `span`.
fn restart_times(run: Millis, span: Millis) -> Vec<Millis> {
    let mut sim = sim(1);
    kubectl::apply(&mut sim, &deployment(1, "shop/web:2.0", "")).expect("apply");
    sim.run_for(MINUTE);
    let name = pod_names(&sim)[0].clone();
    let patch = BehaviourPatch { crash_after: Some(Some(run)), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/web:2.0".into()), patch, false);
    let mut times = Vec::new();
    let mut seen = pod(&sim, &name).restarts();
    let end = sim.now() + span;
    while sim.now() < end {
        sim.run_for(SECOND);
        let r = pod(&sim, &name).restarts();
        if r != seen {
            times.push(sim.now());
            seen = r;
        }
    }
    times
}

#[test]
fn crash_loop_back_off_doubles_from_ten_seconds_to_five_minutes() {
    let times = restart_times(5 * SECOND, 30 * MINUTE);
    let gaps: Vec<Millis> = times.windows(2).map(|w| (w[1] - w[0]) / SECOND).collect();
    // Each run lasts 5 s and its exit is seen 1 s later; the wait before the next start doubles.
    assert_eq!(&gaps[..8], [5 + 10, 5 + 20, 5 + 40, 5 + 80, 5 + 160, 5 + 300, 5 + 300, 5 + 300], "{gaps:?}");
}

#[test]
fn the_back_off_is_forgotten_after_ten_minutes_of_running() {
    let times = restart_times(11 * MINUTE, 60 * MINUTE);
    let gaps: Vec<Millis> = times.windows(2).map(|w| (w[1] - w[0]) / SECOND).collect();
    assert!(gaps.len() >= 3, "{gaps:?}");
    assert!(gaps.iter().all(|g| *g == 11 * 60 + 1), "each restart at once after the relist: {gaps:?}");
}

#[test]
fn an_image_that_cannot_be_pulled_backs_off_until_it_can() {
    let mut sim = sim(1);
    let patch = BehaviourPatch { unpullable: Some(true), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/web:typo".into()), patch, false);
    kubectl::apply(&mut sim, &deployment(1, "shop/web:typo", "")).expect("apply");
    sim.run_for(30 * SECOND);
    let name = pod_names(&sim)[0].clone();
    let p = pod(&sim, &name);
    assert_eq!(p.status.phase, PodPhase::Pending);
    let w = p.status.container_statuses[0].state.waiting.clone().expect("waiting");
    assert!(matches!(&*w.reason, "ErrImagePull" | "ImagePullBackOff"), "{w:?}");
    let failed = common::events(&sim, "Failed");
    assert!(failed.contains(&"Failed to pull image \"shop/web:typo\": rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/shop/web:typo\": failed to resolve reference \"docker.io/shop/web:typo\": docker.io/shop/web:typo: not found".to_string()), "{failed:?}");
    assert!(failed.contains(&"Error: ErrImagePull".to_string()));
    assert!(failed.contains(&"Error: ImagePullBackOff".to_string()));
    assert!(common::events(&sim, "BackOff").contains(&"Back-off pulling image \"shop/web:typo\"".to_string()));
    let out = common::kubectl(&mut sim, "get pods");
    assert!(out.stdout.contains("ImagePullBackOff") || out.stdout.contains("ErrImagePull"), "{}", out.stdout);
    // The registry has it now: the next retry (within 5 minutes) pulls and starts it.
    let patch = BehaviourPatch { unpullable: Some(false), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/web:typo".into()), patch, false);
    until(&mut sim, SECOND, 6 * MINUTE, |s| pod(s, &name).is_ready());
    assert_eq!(pod(&sim, &name).restarts(), 0, "a pull failure is no restart");
}

/// A bare pod with this restart policy whose process exits with `code` one minute after it starts.
fn bare_pod_exiting(policy: &str, code: i32) -> (Sim, String) {
    let mut sim = sim(1);
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: job\nspec:\n  restartPolicy: {policy}\n  containers:\n  - name: main\n    image: tools/batch:1\n"
    );
    let patch = BehaviourPatch { crash_after: Some(Some(MINUTE)), exit_code: Some(Some(code)), ..Default::default() };
    app(&mut sim, AppTarget::Image("tools/batch:1".into()), patch, false);
    kubectl::apply(&mut sim, &text).expect("apply");
    sim.run_for(3 * MINUTE);
    (sim, "job".into())
}

#[test]
fn restart_policies_decide_what_follows_an_exit() {
    let (sim, name) = bare_pod_exiting("Never", 2);
    let p = pod(&sim, &name);
    assert_eq!(p.status.phase, PodPhase::Failed);
    let t = p.status.container_statuses[0].state.terminated.clone().expect("terminated");
    assert_eq!((t.exit_code, &*t.reason), (2, "Error"));
    assert_eq!(p.restarts(), 0);
    assert_eq!(&*p.condition("Ready").expect("Ready").reason, "PodFailed");

    let (mut sim, name) = bare_pod_exiting("OnFailure", 0);
    assert_eq!(pod(&sim, &name).status.phase, PodPhase::Succeeded);
    let out = common::kubectl(&mut sim, "get pods");
    assert!(out.stdout.contains("job    0/1     Completed   0"), "{}", out.stdout);

    let (sim, name) = bare_pod_exiting("OnFailure", 1);
    let p = pod(&sim, &name);
    assert_eq!(p.status.phase, PodPhase::Running, "restarted after a failure");
    assert!(p.restarts() >= 1);
}

#[test]
fn a_startup_probe_holds_the_other_probes_and_kills_a_container_that_never_starts() {
    let probes = "        startupProbe:\n          exec: {command: [cat, /tmp/started]}\n          periodSeconds: 5\n          failureThreshold: 4\n        readinessProbe:\n          httpGet: {path: /, port: 80}\n";
    let mut sim = sim(1);
    // Starts after 12 s: the startup probe (every 5 s, 4 failures allowed) passes, then readiness.
    let patch = BehaviourPatch { starts_after: Some(Some(12 * SECOND)), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/slow:1".into()), patch, false);
    kubectl::apply(&mut sim, &deployment(1, "shop/slow:1", probes)).expect("apply");
    sim.run_for(MINUTE);
    let name = pod_names(&sim)[0].clone();
    let p = pod(&sim, &name);
    assert!(p.is_ready(), "{:?}", p.status);
    assert_eq!(p.restarts(), 0);
    assert_eq!(p.status.container_statuses[0].started, Some(true));
    assert!(common::events(&sim, "Unhealthy").contains(&"Startup probe failed: ".to_string()));
    // A version that takes a minute to start never passes 4 failures 5 s apart: killed, and again.
    let patch = BehaviourPatch { starts_after: Some(Some(MINUTE)), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/slow:1".into()), patch, false);
    kubectl::apply(&mut sim, &deployment(1, "shop/slow:1", &probes.replace("/tmp/started", "/tmp/up"))).expect("v2");
    sim.run_for(3 * MINUTE);
    let killed = common::events(&sim, "Killing");
    assert!(killed.contains(&"Container web failed startup probe, will be restarted".to_string()), "{killed:?}");
}

#[test]
fn crash_now_restarts_the_container_and_kubectl_shows_when() {
    let mut sim = sim(1);
    kubectl::apply(&mut sim, &deployment(1, "shop/web:1.0", "")).expect("apply");
    sim.run_for(MINUTE);
    let name = pod_names(&sim)[0].clone();
    app(&mut sim, on_pod(&name), BehaviourPatch::default(), true);
    let p = pod(&sim, &name);
    let t = p.status.container_statuses[0].state.terminated.clone().expect("terminated at once");
    assert_eq!((t.exit_code, &*t.reason), (1, "Error"));
    let row = |sim: &mut Sim| {
        let out = common::kubectl(sim, "get pods --no-headers");
        out.stdout.split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
    };
    assert!(row(&mut sim).starts_with("0/1 Error 0 "), "{}", row(&mut sim));
    sim.run_for(2 * SECOND);
    assert_eq!(pod(&sim, &name).restarts(), 1);
    sim.run_for(MINUTE);
    assert!(row(&mut sim).starts_with("1/1 Running 1 (62s ago) "), "{}", row(&mut sim));
}

#[test]
fn a_crashing_new_version_stalls_the_rollout_while_the_old_pods_serve() {
    let mut sim = sim(3);
    // The new version crashes 3 s after it starts, before its first readiness check (after 5 s): never ready.
    let probe = format!("{READINESS}          initialDelaySeconds: 5\n");
    let text = deployment(3, "shop/web:1.0", &probe)
        .replace("  replicas: 3\n", "  replicas: 3\n  progressDeadlineSeconds: 120\n");
    kubectl::apply(&mut sim, &text).expect("apply");
    kubectl::apply(&mut sim, SVC).expect("svc");
    sim.run_for(MINUTE);
    assert_eq!(ready_endpoints(&sim), 3);
    let patch = BehaviourPatch { crash_after: Some(Some(3 * SECOND)), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/web:2.0".into()), patch, false);
    kubectl::apply(&mut sim, &text.replace("shop/web:1.0", "shop/web:2.0")).expect("v2");
    sim.run_for(4 * MINUTE);
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    let d = d.expect("deployment");
    let progressing = d.status.conditions.iter().find(|c| &*c.type_ == "Progressing").expect("Progressing");
    assert_eq!((&*progressing.status, &*progressing.reason), ("False", "ProgressDeadlineExceeded"));
    // maxUnavailable 25% of 3 rounds down to 0: all three old pods keep serving.
    assert_eq!(ready_endpoints(&sim), 3);
    let out = common::kubectl(&mut sim, "rollout status deployment/web --watch=false");
    assert!(out.stderr.contains("exceeded its progress deadline"), "{out:?}");
}

#[test]
fn min_ready_seconds_keeps_a_pod_that_crashes_before_it_from_counting_as_available() {
    let mut sim = sim(3);
    let text =
        deployment(3, "shop/web:1.0", READINESS).replace("  replicas: 3\n", "  replicas: 3\n  minReadySeconds: 30\n");
    kubectl::apply(&mut sim, &text).expect("apply");
    sim.run_for(2 * MINUTE);
    // The new version is ready at once but crashes 20 s after each start: ready, never for 30 s.
    let patch = BehaviourPatch { crash_after: Some(Some(20 * SECOND)), ..Default::default() };
    app(&mut sim, AppTarget::Image("shop/web:2.0".into()), patch, false);
    kubectl::apply(&mut sim, &text.replace("shop/web:1.0", "shop/web:2.0")).expect("v2");
    let mut ever_ready = false;
    for _ in 0..240 {
        sim.run_for(SECOND);
        let new: Vec<Pod> =
            common::pods(&sim).into_iter().filter(|p| &*p.spec.containers[0].image == "shop/web:2.0").collect();
        ever_ready |= new.iter().any(|p| p.is_ready());
        let d =
            sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
        let d = d.expect("deployment");
        assert_eq!(d.status.updated_replicas, 1, "one surge pod, never replaced as available");
        assert_eq!(d.status.available_replicas, 3, "the old pods, and only they, are available");
    }
    assert!(ever_ready, "the new pod was ready, just never for minReadySeconds");
}

/// The kubelet reads the pods it runs from its informer's cache (its pod manager), not from the store: when it
/// misses a pod's deletion (a lost watch event) it starts the pod's containers all the same, as a real kubelet
/// acts on what its watch told it, until a relist repairs its cache and it forgets the pod.
#[test]
fn a_kubelet_that_missed_a_deletion_acts_on_the_pod_its_cache_holds_until_a_relist() {
    let mut sim = sim(1);
    let node = sim.kubelets()[0].name.to_string();
    let manifest = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\nspec:\n  nodeName: {node}\n  containers:\n  - name: app\n    image: nginx:1.27\n"
    );
    kubectl::apply(&mut sim, &manifest).expect("apply solo");
    let admitted = |sim: &Sim| {
        sim.store().peek(Kind::Pod, &ObjKey::new("default", "solo")).and_then(|o| o.as_pod()).is_some_and(|p| {
            p.status
                .container_statuses
                .iter()
                .any(|c| c.state.waiting.as_ref().is_some_and(|w| &*w.reason == "ContainerCreating"))
        })
    };
    for _ in 0..10_000 {
        if admitted(&sim) {
            break;
        }
        sim.run_for(1);
    }
    assert!(admitted(&sim), "the kubelet admitted the pod");
    assert!(common::events(&sim, "Started").is_empty(), "nothing started yet");
    let informer = sim.kubelet_informers().next().expect("the kubelet's informer");
    sim.set_informer_watch_drop(informer, 1.0);
    let out = common::kubectl(&mut sim, "delete pod solo --grace-period=0 --force");
    assert_eq!(out.code, 0, "{}", out.text());
    assert!(sim.store().peek(Kind::Pod, &ObjKey::new("default", "solo")).is_none(), "gone from the store");
    sim.run_for(MINUTE);
    assert_eq!(common::events(&sim, "Started"), ["Started container app"], "started from its cache");
    assert_eq!(sim.informers()[informer].cache.len(), 1, "its cache still holds the pod");
    sim.set_informer_watch_drop(informer, 0.0);
    sim.force_relist(informer);
    sim.run_for(MINUTE);
    assert_eq!(sim.informers()[informer].cache.len(), 0, "the relist repaired its cache");
}
