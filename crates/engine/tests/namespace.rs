//! Namespace lifecycle: the API server's side (spec.finalizers, Terminating, NamespaceLifecycle admission, the
//! finalize subresource) and the namespace controller's (empty the namespace, report its conditions, finalize
//! it), through scenarios. Each test names the upstream behaviour it reproduces.

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Object, Pod};
use kubeloop_engine::kubectl::{self, Output};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig, CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
use kubeloop_engine::store::Subresource;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

/// Namespace `team` and the 3-replica Deployment `web` in it.
static TEAM: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n---\n{}",
        common::web(3).namespace("team").yaml()
    )
});

/// Seed 1, three nodes, namespace `team` with the 3-replica Deployment `web`, run until its pods run.
fn team() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    if let Err(e) = kubectl::apply(&mut sim, &TEAM) {
        panic!("apply: {e}");
    }
    sim.run_for(2 * MINUTE);
    assert_eq!(running(&sim, "team"), 3, "the fixture's pods run");
    sim
}

fn kubectl(sim: &mut Sim, line: &str) -> Output {
    common::kubectl(sim, line)
}

fn namespace(sim: &Sim, name: &str) -> Option<kubeloop_engine::api::Namespace> {
    sim.store().peek(Kind::Namespace, &ObjKey::cluster(name)).and_then(|o| o.as_namespace().cloned())
}

fn pods_in(sim: &Sim, ns: &str) -> Vec<Pod> {
    sim.store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| &*p.metadata.namespace == ns)
        .cloned()
        .collect()
}

fn running(sim: &Sim, ns: &str) -> usize {
    pods_in(sim, ns).iter().filter(|p| p.is_ready() && !p.metadata.is_terminating()).count()
}

/// Every object of every namespaced kind the store holds in `ns`.
fn content(sim: &Sim, ns: &str) -> Vec<String> {
    Kind::ALL
        .into_iter()
        .filter(|k| k.namespaced())
        .flat_map(|k| {
            sim.store().objects(k).filter(|o| &*o.meta().namespace == ns).map(move |o| format!("{k}/{}", o.key()))
        })
        .collect()
}

fn condition(sim: &Sim, ns: &str, type_: &str) -> Option<(String, String, String)> {
    let n = namespace(sim, ns)?;
    let c = n.condition(type_)?;
    Some((c.status.to_string(), c.reason.to_string(), c.message.to_string()))
}

/// Runs until `f` holds (checked every 100 ms) or `limit` passes; the time it took.
fn run_until(sim: &mut Sim, limit: Millis, mut f: impl FnMut(&Sim) -> bool) -> Option<Millis> {
    let start = sim.now();
    while sim.now() < start + limit {
        if f(sim) {
            return Some(sim.now() - start);
        }
        sim.run_for(100);
    }
    f(sim).then(|| sim.now() - start)
}

#[test]
fn a_new_namespace_carries_the_kubernetes_finalizer_and_is_active() {
    // namespaceStrategy.PrepareForCreate: status.phase Active and spec.finalizers [kubernetes], whatever the
    // manifest said; `kubectl get ns -o yaml` shows both.
    let mut sim = team();
    let out = kubectl(&mut sim, "get ns team -o yaml");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("spec:\n  finalizers:\n  - kubernetes\nstatus:\n  phase: Active\n"), "{}", out.stdout);
    let out = kubectl(&mut sim, "get ns default -o yaml");
    assert!(out.stdout.contains("  finalizers:\n  - kubernetes\n"), "the built-in namespaces too: {}", out.stdout);
    // A main-resource update cannot drop them (namespaceStrategy.PrepareForUpdate keeps spec.finalizers).
    let updated = sim.as_user(|api| {
        api.patch(Kind::Namespace, &ObjKey::cluster("team"), Subresource::Main, |o| {
            if let Object::Namespace(n) = o {
                n.spec.finalizers.clear();
                n.metadata.labels.insert("x".into(), "y".into());
                n.metadata.labels.insert("kubernetes.io/metadata.name".into(), "other".into());
            }
        })
    });
    let updated = updated.expect("patch");
    let n = updated.as_namespace().expect("namespace");
    assert_eq!(n.spec.finalizers.iter().map(|f| &**f).collect::<Vec<_>>(), ["kubernetes"]);
    assert_eq!(n.metadata.label("x"), Some("y"));
    // namespaceStrategy.Canonicalize: the label kubernetes.io/metadata.name always names the namespace
    // (NamespaceDefaultLabelName), on create and on every update, the built-in namespaces included.
    assert_eq!(n.metadata.label("kubernetes.io/metadata.name"), Some("team"));
    let labels = kubectl(&mut sim, "get ns --show-labels");
    assert!(labels.stdout.contains("kubernetes.io/metadata.name=kube-system"), "{}", labels.stdout);
}

#[test]
fn deleting_a_namespace_terminates_its_pods_gracefully_then_removes_everything() {
    // Namespace registry Delete: deletionTimestamp + phase Terminating, the namespace stays while
    // spec.finalizers has `kubernetes`. The namespace controller (namespaced_resources_deleter.go) deletes every
    // namespaced kind's collection in the background, reports NamespaceContentRemaining while the pods
    // terminate (30 s grace, confirmed by their kubelets), requeues after estimate/2+1 s, then finalizes;
    // kubectl prints `namespace "team" deleted` and waits (--wait=true) until it is gone.
    let mut sim = team();
    let mut out = kubectl(&mut sim, "delete namespace team");
    assert_eq!(out.stdout, "namespace \"team\" deleted\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.follow.is_some(), "kubectl delete waits for the namespace to be gone");

    let n = namespace(&sim, "team").expect("still there: Terminating");
    assert!(n.metadata.is_terminating());
    assert_eq!(&*n.status.phase, "Terminating");
    assert_eq!(n.spec.finalizers.iter().map(|f| &**f).collect::<Vec<_>>(), ["kubernetes"]);
    let get = kubectl(&mut sim, "get ns team");
    assert!(get.stdout.lines().nth(1).is_some_and(|l| l.contains("Terminating")), "{}", get.stdout);

    // Nothing happens before the controller's 5 s namespaceDeletionGracePeriod.
    sim.run_for(4 * SECOND);
    assert_eq!(running(&sim, "team"), 3);
    assert!(namespace(&sim, "team").is_some_and(|n| n.status.conditions.is_empty()));

    // The first pass: the collections are deleted, what remains is listed and reported. Looked at right then
    // (a pod's containers stop 100 ms to 1.5 s after its deletion, then its kubelet confirms it).
    run_until(&mut sim, 2 * SECOND, |s| condition(s, "team", "NamespaceContentRemaining").is_some())
        .expect("the controller's first pass reports the content");
    assert_eq!(
        condition(&sim, "team", "NamespaceContentRemaining"),
        Some((
            "True".into(),
            "SomeResourcesRemain".into(),
            "Some resources are remaining: pods. has 3 resource instances".into()
        ))
    );
    assert_eq!(
        condition(&sim, "team", "NamespaceDeletionContentFailure"),
        Some((
            "False".into(),
            "ContentDeleted".into(),
            "All content successfully deleted, may be waiting on finalization".into()
        ))
    );
    assert_eq!(
        condition(&sim, "team", "NamespaceDeletionDiscoveryFailure"),
        Some(("False".into(), "ResourcesDiscovered".into(), "All resources successfully discovered".into()))
    );
    assert_eq!(
        condition(&sim, "team", "NamespaceDeletionGroupVersionParsingFailure"),
        Some(("False".into(), "ParsedGroupVersions".into(), "All legacy kube types successfully parsed".into()))
    );
    assert_eq!(
        condition(&sim, "team", "NamespaceFinalizersRemaining"),
        Some(("False".into(), "ContentHasNoFinalizers".into(), "All content-preserving finalizers finished".into()))
    );
    // The Deployment and its ReplicaSet went at once; the pods terminate gracefully, none is replaced.
    assert!(sim.store().objects(Kind::Deployment).all(|o| &*o.meta().namespace != "team"));
    assert!(sim.store().objects(Kind::ReplicaSet).all(|o| &*o.meta().namespace != "team"));
    let pods = pods_in(&sim, "team");
    assert!(!pods.is_empty() && pods.len() <= 3, "no replacement pod, creates are refused: {pods:?}");
    assert!(pods.iter().all(|p| p.metadata.deletion_grace_period_seconds == Some(30)), "{pods:?}");

    let describe = kubectl(&mut sim, "describe namespace team");
    assert!(describe.stdout.contains("Status:       Terminating\nConditions:\n"), "{}", describe.stdout);
    assert!(
        describe.stdout.contains("  NamespaceContentRemaining                    True    ")
            && describe
                .stdout
                .contains("SomeResourcesRemain     Some resources are remaining: pods. has 3 resource instances\n"),
        "{}",
        describe.stdout
    );

    // The namespace outlives everything in it: it is finalized only after its last pod is gone.
    let gone = run_until(&mut sim, 2 * MINUTE, |s| {
        let gone = namespace(s, "team").is_none();
        assert!(!gone || content(s, "team").is_empty(), "removed with content left: {:?}", content(s, "team"));
        gone
    });
    gone.expect("the namespace is removed once empty");
    assert_eq!(content(&sim, "team"), Vec::<String>::new(), "nothing of it remains");
    let (_, done) = follow(&mut sim, &mut out, 10 * SECOND);
    assert!(done, "kubectl's wait ends when the namespace is gone");
    assert_eq!(
        kubectl(&mut sim, "get ns team").stderr,
        "Error from server (NotFound): namespaces \"team\" not found\n"
    );
}

/// Polls a follow until done (or `limit` simulated time), collecting its output.
fn follow(sim: &mut Sim, out: &mut Output, limit: u64) -> (String, bool) {
    let mut text = String::new();
    let Some(f) = out.follow.as_mut() else { return (text, true) };
    let end = sim.now() + limit;
    loop {
        let p = f.poll(sim);
        text.push_str(&p.stdout);
        text.push_str(&p.stderr);
        if p.done {
            return (text, true);
        }
        if sim.now() >= end {
            return (text, false);
        }
        sim.run_for(SECOND);
    }
}

#[test]
fn creates_into_a_terminating_namespace_are_forbidden() {
    // NamespaceLifecycle admission: a create into a namespace whose phase is Terminating is refused with 403
    // `<resource> "<name>" is forbidden: unable to create new content in namespace X because it is being
    // terminated` (a generateName create names its prefix); one into a missing namespace is 404
    // `namespaces "X" not found`. Updates of what is still there are allowed.
    let mut sim = team();
    kubectl(&mut sim, "delete namespace team");
    let out = kubectl(&mut sim, "create deployment api --image=nginx -n team");
    assert_eq!(
        out.stderr,
        "error: failed to create deployment: deployments.apps \"api\" is forbidden: unable to create new content in namespace team because it is being terminated\n"
    );
    assert_eq!(out.code, 1);
    let pod = |name: &str, generate: &str, ns: &str| {
        let mut p = Pod::default();
        p.metadata.name = name.into();
        p.metadata.generate_name = generate.into();
        p.metadata.namespace = ns.into();
        let c = kubeloop_engine::api::Container { name: "c".into(), image: "nginx".into(), ..Default::default() };
        std::rc::Rc::make_mut(&mut p.spec).containers.push(c);
        Object::Pod(p)
    };
    let err = sim.as_user(|api| api.create(pod("x", "", "team"))).expect_err("refused");
    assert_eq!((err.code(), err.reason()), (403, "Forbidden"));
    assert_eq!(
        err.to_string(),
        "pods \"x\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    let err = sim.as_user(|api| api.create(pod("", "web-", "team"))).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "pods \"web-\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    let err = sim.as_user(|api| api.create(pod("x", "", "nope"))).expect_err("no such namespace");
    assert_eq!((err.code(), err.to_string()), (404, "namespaces \"nope\" not found".to_string()));
    let applied = kubectl::apply(&mut sim, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: late\n  namespace: team\nspec:\n  containers:\n  - name: c\n    image: nginx\n");
    let e = applied.expect_err("apply refuses the create");
    assert!(
        e.to_string().contains(
            "pods \"late\" is forbidden: unable to create new content in namespace team because it is being terminated"
        ),
        "{e}"
    );
    // The ReplicaSet controller's replacements are refused too, until the namespace is gone; then it can be
    // created again, empty.
    run_until(&mut sim, 2 * MINUTE, |s| namespace(s, "team").is_none()).expect("gone");
    if let Err(e) = kubectl::apply(&mut sim, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n") {
        panic!("recreate: {e}");
    }
    sim.run_for(MINUTE);
    assert_eq!(
        content(&sim, "team"),
        vec!["ServiceAccount/team/default".to_string()],
        "a new namespace of the same name starts empty but for the default ServiceAccount made for it"
    );
}

#[test]
fn a_namespace_deleted_while_the_controller_manager_is_down_stays_terminating_until_it_returns() {
    // The namespace controller runs in kube-controller-manager: with both replicas down nothing empties the
    // namespace, which stays Terminating (its content untouched) until a replica is back, wins the lease,
    // lists and syncs it.
    let mut sim = team();
    sim.crash_host(CONTROLLER_MANAGER);
    sim.crash_host(CONTROLLER_MANAGER_2);
    let out = kubectl(&mut sim, "delete ns team");
    assert_eq!(out.stdout, "namespace \"team\" deleted\n");
    sim.run_for(5 * MINUTE);
    let n = namespace(&sim, "team").expect("still there");
    assert_eq!(&*n.status.phase, "Terminating");
    assert!(n.status.conditions.is_empty(), "no controller reported anything: {:?}", n.status.conditions);
    assert_eq!(running(&sim, "team"), 3, "its pods still run");
    assert!(sim.store().objects(Kind::Deployment).any(|o| &*o.meta().namespace == "team"));
    sim.restart_host(CONTROLLER_MANAGER);
    let gone = run_until(&mut sim, 3 * MINUTE, |s| namespace(s, "team").is_none());
    assert!(gone.is_some(), "the restarted controller manager finishes the deletion");
    assert_eq!(content(&sim, "team"), Vec::<String>::new());
}

#[test]
fn the_immortal_namespaces_refuse_deletion() {
    // NamespaceLifecycle admission: `namespaces "default" is forbidden: this namespace may not be deleted`
    // (403) for default, kube-system and kube-public; kubeloop refuses kube-node-lease the same way, as nothing
    // in it recreates it (upstream's API server does, within a minute).
    let mut sim = team();
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let out = kubectl(&mut sim, &format!("delete namespace {ns}"));
        assert_eq!(
            out.stderr,
            format!(
                "Error from server (Forbidden): namespaces \"{ns}\" is forbidden: this namespace may not be deleted\n"
            )
        );
        assert_eq!((out.stdout.as_str(), out.code), ("", 1));
        let n = namespace(&sim, ns).expect("still there");
        assert!(!n.metadata.is_terminating());
        assert_eq!(&*n.status.phase, "Active");
    }
    sim.run_for(MINUTE);
    assert_eq!(sim.nodes_ready(), 3, "node Leases in kube-node-lease still renew");
}

#[test]
fn a_foreign_finalizer_keeps_the_namespace_terminating_until_it_is_removed() {
    // deleteAllContentForGroupVersionResource: items left with finalizers are a normal condition
    // (NamespaceFinalizersRemaining "Some content in the namespace has finalizers remaining: F in N resource
    // instances", requeue after 15 s); the namespace is finalized only once they are gone.
    let mut sim = team();
    let key = ObjKey::new("team", "web");
    sim.as_user(|api| {
        api.patch(Kind::Deployment, &key, Subresource::Main, |o| {
            o.meta_mut().finalizers.push("example.com/keep".into());
        })
    })
    .expect("add a finalizer");
    kubectl(&mut sim, "delete ns team");
    sim.run_for(MINUTE);
    assert_eq!(
        condition(&sim, "team", "NamespaceFinalizersRemaining"),
        Some((
            "True".into(),
            "SomeFinalizersRemain".into(),
            "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances".into()
        ))
    );
    assert_eq!(
        condition(&sim, "team", "NamespaceContentRemaining").map(|c| c.2),
        Some("Some resources are remaining: deployments.apps has 1 resource instances".into())
    );
    sim.run_for(5 * MINUTE);
    assert!(namespace(&sim, "team").is_some_and(|n| &*n.status.phase == "Terminating"), "held by the finalizer");
    assert_eq!(content(&sim, "team"), ["Deployment/team/web"], "everything else is gone");
    sim.as_user(|api| api.patch(Kind::Deployment, &key, Subresource::Main, |o| o.meta_mut().finalizers.clear()))
        .expect("remove the finalizer");
    let gone = run_until(&mut sim, MINUTE, |s| namespace(s, "team").is_none());
    let took = gone.expect("finalized once the finalizer is gone");
    assert!(took <= 16 * SECOND, "the next sync, at most finalizerEstimateSeconds/2+1 s later: {took}");
    assert_eq!(content(&sim, "team"), Vec::<String>::new());
}

#[test]
fn describe_shows_a_terminating_namespace_with_its_conditions() {
    // kubectl's describeNamespace: Status, then the Conditions table (Type, Status, LastTransitionTime in
    // RFC1123Z, Reason, Message) when there are any.
    let mut sim = team();
    kubectl(&mut sim, "delete namespace team");
    sim.run_for(10 * SECOND);
    common::check(&mut sim, "describe-namespace-terminating", "describe namespace team");
    common::check(&mut sim, "get-namespaces-terminating", "get namespaces");
}
