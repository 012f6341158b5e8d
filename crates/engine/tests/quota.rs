//! ResourceQuota and LimitRange as the API server's admission acts on them (`plugin/pkg/admission/resourcequota`,
//! `plugin/pkg/admission/limitranger`), and the resource quota controller's status.

mod common;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl;
use kubeloop_engine::time::MINUTE;

const QUOTA: &str = "apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: team
spec:
  hard:
    pods: \"3\"
    requests.cpu: \"1\"
    limits.memory: 1Gi
";

const LIMITS: &str = "apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: team
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 250m, memory: 128Mi}
    max: {cpu: \"1\"}
";

fn team() -> kubeloop_engine::sim::Sim {
    let mut sim = common::cluster();
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n").expect("namespace");
    sim
}

fn pod(name: &str, resources: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: team\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n{resources}")
}

#[test]
fn a_limit_range_defaults_a_new_pods_resources_and_holds_it_to_its_max() {
    let mut sim = team();
    kubectl::apply(&mut sim, LIMITS).expect("limits");
    kubectl::apply(&mut sim, &pod("plain", "")).expect("pod");
    let p = sim.store().peek(Kind::Pod, &ObjKey::new("team", "plain")).and_then(|o| o.as_pod().cloned()).expect("pod");
    let r = &p.spec.containers[0].resources;
    assert_eq!(r.requests.get("cpu").map(|q| q.to_string()), Some("250m".into()));
    assert_eq!(r.limits.get("memory").map(|q| q.to_string()), Some("256Mi".into()));
    assert_eq!(
        p.metadata.annotation("kubernetes.io/limit-ranger"),
        Some("LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app")
    );
    let big = pod("big", "    resources:\n      limits: {cpu: \"2\"}\n");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &big);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("pods \"big\" is forbidden: maximum cpu usage per Container is 1, but limit is 2"),
        "{}",
        out.text()
    );
}

#[test]
fn a_quota_refuses_what_would_exceed_it_and_its_status_says_what_is_used() {
    let mut sim = team();
    kubectl::apply(&mut sim, QUOTA).expect("quota");
    // A pod that names no cpu request or memory limit is refused: the quota limits them.
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &pod("bare", ""));
    assert!(
        out.stderr.contains("pods \"bare\" is forbidden: failed quota: compute: must specify limits.memory for: app; requests.cpu for: app"),
        "{}",
        out.text()
    );
    let sized = "    resources:\n      requests: {cpu: 400m}\n      limits: {memory: 256Mi}\n";
    for name in ["a", "b"] {
        kubectl::apply(&mut sim, &pod(name, sized)).expect("within the quota");
    }
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &pod("c", sized));
    assert!(
        out.stderr.contains("pods \"c\" is forbidden: exceeded quota: compute, requested: requests.cpu=400m, used: requests.cpu=800m, limited: requests.cpu=1"),
        "{}",
        out.text()
    );
    sim.run_for(MINUTE);
    let d = common::kubectl(&mut sim, "describe quota compute -n team").stdout;
    assert!(d.contains("requests.cpu") && d.contains("800m"), "{d}");
    let y = common::kubectl(&mut sim, "get quota compute -n team -o yaml").stdout;
    assert!(y.contains("used:") && y.contains("pods: \"2\""), "{y}");
    // Deleted, a pod frees its share: the controller's status follows, and a create fits again.
    common::kubectl(&mut sim, "delete pod a -n team --wait=false");
    sim.run_for(MINUTE);
    let y = common::kubectl(&mut sim, "get quota compute -n team -o yaml").stdout;
    assert!(y.contains("requests.cpu: 400m"), "{y}");
    kubectl::apply(&mut sim, &pod("c", sized)).expect("fits again");
}

#[test]
fn a_deployment_past_its_quota_reports_failed_create() {
    let mut sim = team();
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: few\n  namespace: team\nspec:\n  hard:\n    pods: \"2\"\n").expect("quota");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &common::web(4).namespace("team").yaml());
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(MINUTE);
    let running = common::pods(&sim).iter().filter(|p| p.metadata.namespace.as_ref() == "team").count();
    assert_eq!(running, 2);
    let failed = common::events(&sim, "FailedCreate");
    assert!(
        failed
            .iter()
            .any(|m| m.contains("is forbidden: exceeded quota: few, requested: pods=1, used: pods=2, limited: pods=2")),
        "{failed:?}"
    );
}
