//! PodDisruptionBudgets: the disruption controller's status (pkg/controller/disruption), the eviction subresource
//! that reads it (429 `Cannot evict pod as it would violate the pod's disruption budget.`), `kubectl drain`
//! retrying refused evictions every 5 s until its timeout, and the taint eviction controller, which deletes
//! without asking any budget.

mod common;

use common::{check, golden, kubectl, kubectl_stdin, pods, poll_until_done};
use kubeloop_engine::api::{Kind, ObjKey, PodDisruptionBudget};
use kubeloop_engine::kubectl::Output;
use kubeloop_engine::sim::Sim;
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{MINUTE, SECOND};

fn pdb_yaml(spec: &str) -> String {
    format!(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  {spec}\n  selector:\n    matchLabels: {{app: web}}\n"
    )
}

fn with_pdb(spec: &str) -> Sim {
    let mut sim = common::cluster();
    let out = kubectl_stdin(&mut sim, "apply -f -", &pdb_yaml(spec));
    assert_eq!(out.code, 0, "{out:?}");
    sim.run_for(5 * SECOND);
    sim
}

fn pdb(sim: &Sim) -> PodDisruptionBudget {
    let o = sim.store().peek(Kind::PodDisruptionBudget, &ObjKey::new("default", "web"));
    o.and_then(|o| o.as_pdb().cloned()).expect("pdb")
}

fn status(sim: &Sim) -> (i32, i32, i32, i32) {
    let s = pdb(sim).status;
    (s.current_healthy, s.desired_healthy, s.expected_pods, s.disruptions_allowed)
}

fn live_pods(sim: &Sim) -> Vec<String> {
    pods(sim).iter().filter(|p| !p.metadata.is_terminating()).map(|p| p.metadata.name.to_string()).collect()
}

fn evict(sim: &mut Sim, name: &str) -> Result<(), String> {
    let key = ObjKey::new("default", name);
    sim.as_user(|api| api.evict(&key, &DeleteOptions::default())).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn the_disruption_controller_counts_healthy_desired_and_expected_pods() {
    let sim = with_pdb("minAvailable: 2");
    assert_eq!(status(&sim), (3, 2, 3, 1), "(currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed)");
    let p = pdb(&sim);
    assert_eq!(p.status.observed_generation, p.metadata.generation);
    let c = p.allowed_condition().expect("DisruptionAllowed");
    assert_eq!((&*c.status, &*c.reason), ("True", "SufficientPods"));

    // maxUnavailable and percentages take the expected count from the Deployment's scale.
    assert_eq!(status(&with_pdb("maxUnavailable: 1")), (3, 2, 3, 1));
    assert_eq!(status(&with_pdb("minAvailable: \"50%\"")), (3, 2, 3, 1), "50% of 3 rounds up to 2");
    assert_eq!(status(&with_pdb("maxUnavailable: 0")), (3, 3, 3, 0));
    let p = pdb(&with_pdb("minAvailable: 3"));
    let c = p.allowed_condition().expect("DisruptionAllowed");
    assert_eq!((&*c.status, &*c.reason), ("False", "InsufficientPods"));
}

#[test]
fn an_eviction_takes_a_disruption_and_the_next_is_refused_with_429() {
    let mut sim = with_pdb("minAvailable: 2");
    let names = live_pods(&sim);
    assert_eq!(evict(&mut sim, &names[0]), Ok(()));
    let p = pdb(&sim);
    assert_eq!(p.status.disruptions_allowed, 0, "the eviction took the one allowed");
    assert!(p.status.disrupted_pods.contains_key(names[0].as_str()), "{:?}", p.status.disrupted_pods);
    let evicted = pods(&sim).into_iter().find(|p| *p.metadata.name == *names[0]).expect("still terminating");
    let target = evicted.condition("DisruptionTarget").cloned().expect("DisruptionTarget");
    assert_eq!((&*target.reason, &*target.message), ("EvictionByEvictionAPI", "Eviction API: evicting"));
    assert_eq!(
        evict(&mut sim, &names[1]),
        Err("Cannot evict pod as it would violate the pod's disruption budget.".to_string())
    );
    // kubectl's way of printing it.
    let err = sim
        .as_user(|api| api.evict(&ObjKey::new("default", &names[1]), &DeleteOptions::default()))
        .expect_err("refused");
    assert_eq!((err.code(), err.reason()), (429, "TooManyRequests"));
    // The replacement becomes ready: a disruption is allowed again.
    sim.run_for(MINUTE);
    assert_eq!(status(&sim), (3, 2, 3, 1));
    assert!(pdb(&sim).status.disrupted_pods.is_empty(), "the evicted pod is gone from the map");
    assert_eq!(evict(&mut sim, &names[1]), Ok(()));
}

#[test]
fn pods_no_budget_selects_and_pending_pods_are_evicted_at_once() {
    let mut sim = with_pdb("minAvailable: 3");
    let names = live_pods(&sim);
    assert!(evict(&mut sim, &names[0]).is_err(), "every pod is needed");
    let out = kubectl_stdin(
        &mut sim,
        "apply -f -",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lone\n  labels: {app: other}\nspec:\n  containers:\n  - {name: c, image: busybox}\n",
    );
    assert_eq!(out.code, 0);
    sim.run_for(30 * SECOND);
    assert_eq!(evict(&mut sim, "lone"), Ok(()), "no budget selects it");
    assert_eq!(evict(&mut sim, "nope"), Err("pods \"nope\" not found".to_string()));
}

/// Runs a drain to its end (or `limit`), its output as kubectl prints it.
fn drain(sim: &mut Sim, line: &str, limit: u64) -> (String, Output) {
    let mut out = kubectl(sim, line);
    let mut text = format!("$ kubectl {line}\n{}", out.text());
    if let Some(f) = out.follow.as_mut() {
        let (polled, code) = poll_until_done(sim, f.as_mut(), SECOND, limit);
        text.push_str(&polled);
        if let Some(code) = code {
            out.code = code;
        }
    }
    (text, out)
}

fn node_of(sim: &Sim, pod: &str) -> String {
    pods(sim).iter().find(|p| *p.metadata.name == *pod).map(|p| p.spec.node_name.to_string()).unwrap_or_default()
}

#[test]
fn a_budget_makes_drain_wait_until_the_replacement_is_ready() {
    // Pods that are ready 20 s after they start (a readiness probe's initial delay).
    let mut sim = Sim::new(kubeloop_engine::sim::SimConfig { seed: 1, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(kubeloop_engine::kubelet::NodeConfig::default()).expect("node");
    }
    let web = common::web(3).yaml().replace(
        "        image: nginx:1.27\n",
        "        image: nginx:1.27\n        readinessProbe:\n          tcpSocket: {port: 80}\n          initialDelaySeconds: 20\n",
    );
    assert!(web.contains("readinessProbe"), "{web}");
    kubectl_stdin(&mut sim, "apply -f -", &web);
    kubectl_stdin(&mut sim, "apply -f -", &pdb_yaml("minAvailable: 2"));
    sim.run_for(2 * MINUTE);
    assert_eq!(status(&sim), (3, 2, 3, 1));
    let names = live_pods(&sim);
    let (first, second) = (node_of(&sim, &names[0]), node_of(&sim, &names[1]));
    assert_ne!(first, second, "the three pods are spread over the three nodes");
    let (text, out) = drain(&mut sim, &format!("drain {first}"), 2 * MINUTE);
    assert_eq!(out.code, 0, "{text}");
    assert!(text.contains(&format!("node/{first} drained")), "{text}");
    // Straight after: the second node's pod is refused until the first one's replacement is ready.
    let (text, out) = drain(&mut sim, &format!("drain {second}"), 2 * MINUTE);
    assert_eq!(out.code, 0, "{text}");
    let refused = format!(
        "error when evicting pods/\"{}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n",
        names[1]
    );
    assert!(text.contains(&refused), "{text}");
    assert!(text.contains(&format!("pod/{} evicted\nnode/{second} drained\n", names[1])), "{text}");
    // drain.go evictPods: every attempt, the retries included, starts with `evicting pod NS/NAME`.
    let attempts = text.matches(&format!("evicting pod default/{}\n", names[1])).count();
    assert_eq!(attempts, text.matches(&refused).count() + 1, "{text}");
    assert!(text.contains(&format!("{refused}evicting pod default/{}\n", names[1])), "{text}");
    golden("drain-pdb-waits", &text);
}

#[test]
fn drain_gives_up_at_its_timeout_when_the_budget_allows_nothing() {
    let mut sim = with_pdb("minAvailable: 3");
    let node = node_of(&sim, &live_pods(&sim)[0]);
    let (text, out) = drain(&mut sim, &format!("drain {node} --timeout=20s"), MINUTE);
    assert_eq!(out.code, 1, "{text}");
    let retries = text.matches("(will retry after 5s)").count();
    assert!((4..=5).contains(&retries), "every 5 s for 20 s: {retries}\n{text}");
    assert!(text.contains("global timeout reached: 20s"), "{text}");
    assert!(text.contains("There are pending nodes to be drained:"), "{text}");
    assert_eq!(live_pods(&sim).len(), 3, "nothing was evicted");
}

#[test]
fn the_taint_eviction_controller_does_not_ask_the_budget() {
    let mut sim = with_pdb("minAvailable: 3");
    let node = node_of(&sim, &live_pods(&sim)[0]);
    sim.kill_node(&node).expect("kill");
    // 50 s to NotReady/Unknown, then the 300 s default toleration of the unreachable taint.
    sim.run_for(7 * MINUTE);
    let evicted: Vec<String> =
        pods(&sim).iter().filter(|p| p.metadata.is_terminating()).map(|p| p.metadata.name.to_string()).collect();
    assert_eq!(evicted.len(), 1, "the dead node's pod was deleted although the budget allows no disruption");
    assert_eq!(pdb(&sim).status.disruptions_allowed, 0);
}

#[test]
fn kubectl_shows_budgets_as_kubectl_does() {
    let mut sim = with_pdb("minAvailable: 2");
    check(&mut sim, "pdb-get", "get pdb");
    check(&mut sim, "pdb-describe", "describe pdb web");
    check(&mut sim, "pdb-yaml", "get pdb web -o yaml");
    let both = pdb_yaml("minAvailable: 2\n  maxUnavailable: 1");
    let out = kubectl_stdin(&mut sim, "apply -f -", &both);
    golden("pdb-both-set", &format!("$ kubectl apply -f - (minAvailable and maxUnavailable)\n{}", out.text()));
    let bad = pdb_yaml("maxUnavailable: \"150%\"");
    let out = kubectl_stdin(&mut sim, "apply -f -", &bad);
    assert!(out.stderr.contains("spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%"), "{out:?}");
    check(&mut sim, "pdb-explain", "explain pdb.spec");
    // describe.go: FormatLabelSelector prints an empty selector (every pod) as <none>, no selector as <unset>.
    let all = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: all\nspec:\n  minAvailable: 1\n  selector: {}\n";
    let unset =
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: unset\nspec:\n  minAvailable: 1\n";
    for text in [all, unset] {
        assert_eq!(kubectl_stdin(&mut sim, "apply -f -", text).code, 0);
    }
    let out = check(&mut sim, "pdb-describe-selectors", "describe pdb all unset");
    assert!(
        out.stdout.contains("Selector:       <none>\n") && out.stdout.contains("Selector:       <unset>\n"),
        "{}",
        out.stdout
    );
}

/// At `--timeout`, drain ends as upstream's `evictPods` does: a pod whose eviction waits for its retry is asked
/// no more, but its goroutine wakes when its 5 s are up, prints one more `evicting pod NS/NAME` and returns
/// `global timeout reached` (so the drain ends then, after the deadline, not at it); the pods still on the node are
/// listed; kubectl's last line is the aggregate's one error, without `error: `.
#[test]
fn drain_at_its_timeout_prints_the_last_attempt_as_evict_pods_does() {
    let mut sim = with_pdb("minAvailable: 3");
    let pod = live_pods(&sim)[0].clone();
    let node = node_of(&sim, &pod);
    let start = sim.now();
    let (text, out) = drain(&mut sim, &format!("drain {node} --timeout=12s"), MINUTE);
    assert_eq!(out.code, 1, "{text}");
    // Attempts at 0, 5, 10 s; the deadline at 12 s; the goroutine wakes at 15 s.
    assert_eq!(sim.now() - start, 15 * SECOND, "{text}");
    assert_eq!(text.matches(&format!("evicting pod default/{pod}\n")).count(), 4, "{text}");
    let refused = "Cannot evict pod as it would violate the pod's disruption budget.";
    let timeout = format!("error when evicting pods/\"{pod}\" -n \"default\": global timeout reached: 12s");
    let retry = format!("error when evicting pods/\"{pod}\" -n \"default\" (will retry after 5s): {refused}\n");
    let attempt = format!("evicting pod default/{pod}\n{retry}");
    let want = format!(
        "$ kubectl drain {node} --timeout=12s\nnode/{node} cordoned\n{attempt}{attempt}{attempt}evicting pod default/{pod}\nThere are pending pods in node \"{node}\" when an error occurred: {timeout}\npod/{pod}\nerror: unable to drain node \"{node}\" due to error: {timeout}, continuing command...\nThere are pending nodes to be drained:\n {node}\n{timeout}\n"
    );
    assert_eq!(text, want);
    assert_eq!(live_pods(&sim).len(), 3, "nothing was evicted");
}

/// A pod that will not go (a finalizer holds it) is waited for until the deadline: an evicted one is `evictPods`'
/// `error when waiting for pod ... to terminate: context deadline exceeded`, at the deadline itself; with
/// `--disable-eviction`, `deletePods` returns the context's own error, which kubectl prints with `error: `.
#[test]
fn drain_at_its_timeout_says_what_the_context_says_of_a_pod_that_stays() {
    for (flags, last) in [
        ("", "error when waiting for pod \"held\" in namespace \"default\" to terminate: context deadline exceeded"),
        (" --disable-eviction", "context deadline exceeded"),
    ] {
        let mut sim = common::cluster();
        let held = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\nspec:\n  nodeName: node-1\n  containers:\n  - name: app\n    image: busybox:1.36\n";
        assert_eq!(kubectl_stdin(&mut sim, "apply -f -", held).code, 0);
        sim.run_for(10 * SECOND);
        let start = sim.now();
        let line = format!("drain node-1 --force --timeout=7500ms{flags}");
        // Polled as the runner polls a following command (every 100 ms): it ends at the deadline itself.
        let mut out = kubectl(&mut sim, &line);
        let mut text = format!("$ kubectl {line}\n{}", out.text());
        let f = out.follow.as_mut().expect("drain waits");
        loop {
            sim.run_for(100);
            let p = f.poll(&mut sim);
            text.push_str(&format!("{}{}{}", p.warnings, p.stdout, p.stderr));
            if p.done || sim.now() - start > MINUTE {
                out.code = p.code;
                break;
            }
        }
        assert_eq!(out.code, 1, "{text}");
        assert_eq!(sim.now() - start, 7500, "{text}");
        let lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        assert_eq!(
            lines[n - 6..],
            [
                format!("There are pending pods in node \"node-1\" when an error occurred: {last}").as_str(),
                "pod/held",
                format!("error: unable to drain node \"node-1\" due to error: {last}, continuing command...").as_str(),
                "There are pending nodes to be drained:",
                " node-1",
                if flags.is_empty() { last.to_string() } else { format!("error: {last}") }.as_str(),
            ],
            "{text}"
        );
        golden(&format!("drain-timeout-held{}", flags.replace(' ', "")), &text);
    }
}
