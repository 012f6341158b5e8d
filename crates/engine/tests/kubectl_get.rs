//! `kubectl get` and `kubectl events` against the fixture cluster: golden outputs and behaviour.
mod common;

use common::{assert_answers, check, cluster, kubectl, FAILS, OK};
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::store::{DeleteOptions, Subresource};
use kubeloop_engine::time::{MINUTE, SECOND};

fn first_pod(sim: &kubeloop_engine::sim::Sim) -> String {
    sim.store().objects(Kind::Pod).next().map(|o| o.meta().name.to_string()).unwrap_or_default()
}

#[test]
fn tables_of_every_kind() {
    let mut sim = cluster();
    check(&mut sim, "get-pods", "get pods");
    check(&mut sim, "get-pods-wide", "get po -o wide");
    check(&mut sim, "get-deployments", "get deploy");
    check(&mut sim, "get-deployments-wide", "get deployments.apps -owide");
    check(&mut sim, "get-replicasets", "get rs");
    check(&mut sim, "get-replicasets-wide", "get rs -o wide");
    check(&mut sim, "get-nodes", "get nodes");
    check(&mut sim, "get-nodes-wide", "get no -o wide");
    check(&mut sim, "get-namespaces", "get ns");
    check(&mut sim, "get-leases", "get leases -n kube-node-lease");
    check(&mut sim, "get-events", "get events");
}

#[test]
fn flags_change_the_columns() {
    let mut sim = cluster();
    check(&mut sim, "get-pods-all-namespaces", "get pods -A");
    check(&mut sim, "get-pods-show-labels", "get pods --show-labels");
    check(&mut sim, "get-nodes-show-labels", "get nodes --show-labels");
    check(&mut sim, "get-pods-selector", "get pods -l app=web --no-headers");
    check(&mut sim, "get-pods-selector-none", "get pods -l 'app in (db)'");
    check(&mut sim, "get-leases-all-namespaces", "get lease -A");
}

#[test]
fn several_kinds_print_one_table_each() {
    let mut sim = cluster();
    // `all` is upstream's category: pods, services, deployments, replicasets (of the kinds kubeloop serves).
    let svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";
    assert_eq!(common::kubectl_stdin(&mut sim, "apply -f -", svc).code, 0);
    check(&mut sim, "get-all", "get all");
    check(&mut sim, "get-deploy-rs", "get deploy,rs -o wide");
    check(&mut sim, "get-type-slash-name", "get deploy/web node/node-1");
    check(&mut sim, "get-all-name", "get all -o name");
}

#[test]
fn yaml_json_and_name() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    check(&mut sim, "get-pod-yaml", &format!("get pod {pod} -o yaml"));
    check(&mut sim, "get-pod-json", &format!("get pod/{pod} -o json"));
    check(&mut sim, "get-deploy-list-yaml", "get deploy -o yaml");
    check(&mut sim, "get-pods-name", "get pods -o name");
    check(&mut sim, "get-empty-list-json", "get pods -n kube-system -o json");
}

#[test]
fn errors_and_empty_results() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    let out = check(&mut sim, "get-notfound", &format!("get pods nope {pod}"));
    assert_eq!(out.code, 1);
    let out = check(&mut sim, "get-empty-namespace", "get pods -n kube-system");
    assert_eq!(out.code, 0);
    check(&mut sim, "get-empty-cluster-scoped", "get nodes -l role=db");
    check(&mut sim, "get-unknown-output", "get pods -o xml");
    check(&mut sim, "get-no-type", "get");
    check(&mut sim, "get-unknown-type", "get rc");
    check(&mut sim, "get-ignore-not-found", "get pod nope --ignore-not-found");
}

#[test]
fn statuses_follow_print_pod() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    kubectl(&mut sim, "get pods");
    sim.delete(Kind::Pod, &ObjKey::new("default", &pod), &DeleteOptions::default()).expect("delete");
    sim.run_for(100);
    check(&mut sim, "get-pods-terminating", "get pods");
    sim.as_user(|api| {
        api.patch(Kind::Node, &ObjKey::cluster("node-2"), Subresource::Main, |o| {
            if let Some(n) = o.as_node_mut() {
                n.spec.unschedulable = true;
            }
        })
    })
    .expect("cordon");
    sim.kill_node("node-3").expect("kill");
    sim.run_for(2 * MINUTE);
    check(&mut sim, "get-nodes-not-ready", "get nodes");
}

#[test]
fn watch_prints_rows_as_objects_change() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    let mut out = kubectl(&mut sim, "get pods -w");
    let mut follow = out.follow.take().expect("get -w follows");
    let watches = sim.store().open_watchers();
    sim.delete(Kind::Pod, &ObjKey::new("default", &pod), &DeleteOptions::default()).expect("delete");
    sim.run_for(40 * SECOND);
    let polled = follow.poll(&mut sim);
    assert!(!polled.done);
    common::golden("get-pods-watch", &format!("$ kubectl get pods -w\n{}{}", out.stdout, polled.stdout));
    follow.stop(&mut sim);
    assert_eq!(sim.store().open_watchers(), watches - 1, "stop closes the watch");
    assert!(follow.poll(&mut sim).done);

    let mut out = kubectl(&mut sim, "get deploy --watch-only");
    assert_eq!(out.stdout, "");
    let mut follow = out.follow.take().expect("follows");
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 4).expect("scale");
    sim.run_for(30 * SECOND);
    let polled = follow.poll(&mut sim);
    common::golden("get-deploy-watch-only", &format!("$ kubectl get deploy --watch-only\n{}", polled.stdout));
    follow.stop(&mut sim);
    let out = kubectl(&mut sim, "get pods,deploy -w");
    assert_eq!(out.code, 1);
}

#[test]
fn reads_are_api_calls_of_the_user() {
    let mut sim = cluster();
    let before = sim.store().counters(sim.user()).reads();
    kubectl(&mut sim, "get pods");
    let after = sim.store().counters(sim.user()).reads();
    assert_eq!(after - before, 3, "one LIST of three pods");
    kubectl(&mut sim, "get deploy web");
    assert_eq!(sim.store().counters(sim.user()).gets, 1);
}

#[test]
fn events_filters_by_type_and_object_refuses_bad_flags_and_watches() {
    let mut sim = cluster();
    check(&mut sim, "events", "events");
    check(&mut sim, "events-all-namespaces", "events -A --types=Warning");
    check(&mut sim, "events-for-deployment", "events --for deployment/web");
    check(&mut sim, "events-bad-types", "events --types=Info");
    check(&mut sim, "events-bad-for", "events --for web");
    let mut out = kubectl(&mut sim, "events --for deploy/web -w");
    let mut follow = out.follow.take().expect("events -w follows");
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 1).expect("scale");
    sim.run_for(10 * SECOND);
    let polled = follow.poll(&mut sim);
    common::golden("events-watch", &format!("$ kubectl events --for deploy/web -w\n{}{}", out.stdout, polled.stdout));
    follow.stop(&mut sim);
}

#[test]
fn odd_inputs_get_kubectls_answers_and_write_nothing() {
    let mut sim = cluster();
    for (line, ok) in [
        ("get", FAILS),
        ("get pods/", FAILS),
        ("get /x", FAILS),
        ("get pods -o", FAILS),
        ("get pods -o ''", OK),
        ("get nodes -l '!!'", FAILS),
        ("get nodes -l 'a in ('", FAILS),
        ("get pods -l=", OK),
        ("get pødś ñ", FAILS),
        ("get pods 'ü/ñ'", FAILS),
        ("get ,,,", FAILS),
        ("get all,all -w", FAILS),
        ("get pods/a/b", FAILS),
        ("get pod a -l x=y", FAILS),
        ("get pod/a -l x=y", FAILS),
        ("get events -o wide", OK),
        ("get ns -A -o wide --show-labels", OK),
        ("get pods --watch-only -o yaml", OK),
        ("get pods -w -o name", OK),
        ("events --for", FAILS),
        ("events --for=/", FAILS),
        ("events --for pod/", OK),
        ("events --types=,", OK),
        ("events -o xml", FAILS),
        ("events -o json -A", OK),
        ("describe", FAILS),
        ("describe pods/", FAILS),
        ("describe nope", FAILS),
        ("describe pod -l '!!'", FAILS),
        ("describe pod/ü", FAILS),
        ("describe all", OK),
    ] {
        let before = sim.history_hash();
        let out = kubectl::run(&mut sim, line, &Input::none());
        assert_answers(line, &out, ok);
        if let Some(mut f) = out.follow {
            let _ = f.poll(&mut sim);
            f.stop(&mut sim);
        }
        assert_eq!(sim.history_hash(), before, "`{line}` reads and writes nothing");
    }
}
