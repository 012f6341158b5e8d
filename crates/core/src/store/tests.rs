//! Store (API server + etcd) and watch semantics. Each test names the upstream behaviour it reproduces
//! (kubernetes/kubernetes paths; apiserver = staging/src/k8s.io/apiserver).

use super::*;
use crate::api::PodPhase;
use crate::api::{
    Container, Deployment, DeploymentSpec, Event, EventBody, LabelSelectorRequirement, Labels, ObjectMeta, Operator,
    Pod, PodSpec, PodTemplateSpec,
};

const FAR: Millis = 1 << 40;

fn setup() -> (Store, ClientId) {
    setup_with(StoreConfig::default())
}

fn setup_with(config: StoreConfig) -> (Store, ClientId) {
    let mut st = Store::new(config, 1);
    let c = st.register_client("test");
    (st, c)
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (s(k), s(v))).collect()
}

fn spec(image: &str) -> PodSpec {
    PodSpec {
        containers: vec![Container { name: s("app"), image: s(image), ..Default::default() }].into(),
        ..Default::default()
    }
}

fn pod_in(ns: &str, name: &str, lbls: &[(&str, &str)]) -> Object {
    let metadata = ObjectMeta { labels: labels(lbls), ..ObjectMeta::named(ns, name) };
    Object::Pod(Pod { metadata, spec: Rc::new(spec("nginx:1.25")), ..Default::default() })
}

fn pod(name: &str) -> Object {
    pod_in("default", name, &[])
}

fn deployment(name: &str) -> Object {
    let sel = labels(&[("app", name)]);
    let template = PodTemplateSpec {
        metadata: ObjectMeta { labels: sel.clone(), ..Default::default() },
        spec: Rc::new(spec("nginx:1.25")),
    };
    let spec =
        DeploymentSpec { selector: LabelSelector::from_labels(sel), template: template.into(), ..Default::default() };
    Object::Deployment(Deployment { metadata: ObjectMeta::named("default", name), spec, ..Default::default() })
}

fn key(name: &str) -> ObjKey {
    ObjKey::new("default", name)
}

fn create(st: &mut Store, c: ClientId, obj: Object, now: Millis) -> Rc<Object> {
    st.create(c, obj, now).expect("create")
}

/// A copy of `obj` changed by `f`, ready to send back as an update.
fn edit(obj: &Rc<Object>, f: impl FnOnce(&mut Object)) -> Object {
    let mut o = (**obj).clone();
    f(&mut o);
    o
}

fn dep(o: &mut Object) -> &mut Deployment {
    o.as_deployment_mut().expect("a deployment")
}

fn podm(o: &mut Object) -> &mut Pod {
    o.as_pod_mut().expect("a pod")
}

fn names(items: &[Rc<Object>]) -> Vec<String> {
    items.iter().map(|o| o.key().to_string()).collect()
}

fn watch_now(st: &mut Store, c: ClientId, kind: Kind, filter: WatchFilter) -> WatcherId {
    let rv = st.resource_version();
    st.watch(c, kind, rv, filter).expect("watch")
}

/// Every event of the watcher, delivered at a time far after they are due: (type, name, resourceVersion).
fn drain(st: &mut Store, id: WatcherId) -> Vec<(EventType, String, u64)> {
    st.drain_watch(id, FAR).0.iter().map(|e| (e.type_, e.object.meta().name.to_string(), e.rv)).collect()
}

fn bound_pod(st: &mut Store, c: ClientId, name: &str, node: &str) -> Rc<Object> {
    let p = create(st, c, pod(name), 0);
    st.bind(c, &key(name), &p.meta().uid, node, 0).expect("bind")
}

// ---- create --------------------------------------------------------------------------------------------------

#[test]
fn create_assigns_uid_resource_version_generation_and_creation_timestamp() {
    // apiserver registry/rest/create.go BeforeCreate + FillObjectMetaSystemFields: uid, creationTimestamp; the
    // storage assigns resourceVersion; generation starts at 1.
    let (mut st, c) = setup();
    let before = st.resource_version();
    let p = create(&mut st, c, pod("web"), 5_000);
    let m = p.meta();
    assert_eq!(m.uid.len(), 36, "a UUID: {}", m.uid);
    assert_eq!(m.resource_version, st.resource_version());
    assert!(m.resource_version > before);
    assert_eq!(m.generation, 1);
    assert_eq!(m.creation_timestamp, Some(Time(5_000)));
    assert_eq!(m.deletion_timestamp, None);
    assert_eq!(st.counters(c).creates, 1);
    let other = create(&mut st, c, pod("web2"), 5_000);
    assert_ne!(other.meta().uid, m.uid, "uids are unique");
}

#[test]
fn resource_version_is_global_and_strictly_increasing_across_kinds() {
    // etcd's revision is one counter for all keys: resourceVersion is global, not per kind.
    let (mut st, c) = setup();
    let mut last = st.resource_version();
    let objs = [pod("a"), deployment("web"), pod("b"), deployment("api")];
    for o in objs {
        let rv = create(&mut st, c, o, 0).meta().resource_version;
        assert!(rv > last, "{rv} after {last}");
        last = rv;
    }
    let got = st.get(c, Kind::Pod, &key("a")).expect("get");
    let upd = st.update(c, edit(&got, |o| podm(o).metadata.labels = labels(&[("x", "1")])), Subresource::Main, 0);
    assert!(upd.expect("update").meta().resource_version > last);
    assert_eq!(st.resource_version(), last + 1);
}

#[test]
fn a_namespace_is_removed_by_its_finalize_not_by_its_delete() {
    // pkg/registry/core/namespace/storage: the first DELETE sets deletionTimestamp and phase Terminating; a DELETE
    // while spec.finalizers is not empty changes nothing; the finalize subresource that empties it removes the
    // namespace (ShouldDeleteNamespaceDuringUpdate), a status update does not.
    let (mut st, c) = setup();
    let mut ns = Namespace::default();
    ns.metadata.name = s("team");
    st.create(c, Object::Namespace(ns), 0).expect("create");
    let key = ObjKey::cluster("team");
    let marked = st.delete(c, Kind::Namespace, &key, &DeleteOptions::default(), 10).expect("delete");
    let n = marked.as_namespace().expect("namespace").clone();
    assert_eq!((&*n.status.phase, n.metadata.deletion_timestamp), ("Terminating", Some(Time(10))));
    assert_eq!(n.spec.finalizers, vec![s(FINALIZER_KUBERNETES)]);
    let again = st.delete(c, Kind::Namespace, &key, &DeleteOptions::default(), 20).expect("delete again");
    assert_eq!(again.meta().resource_version, marked.meta().resource_version, "nothing written");
    let mut status = n.clone();
    status.status.conditions.push(crate::api::NamespaceCondition {
        type_: s("X"),
        status: s("False"),
        ..Default::default()
    });
    st.update(c, Object::Namespace(status), Subresource::Status, 30).expect("status");
    assert!(st.peek(Kind::Namespace, &key).is_some(), "a status update does not remove it");
    let err = st.create(c, pod_in("team", "web", &[]), 40).expect_err("terminating");
    assert_eq!(err.code(), 403);
    let mut fin = n.clone();
    fin.spec.finalizers.clear();
    fin.metadata.resource_version = 0;
    st.update(c, Object::Namespace(fin), Subresource::Finalize, 50).expect("finalize");
    assert!(st.peek(Kind::Namespace, &key).is_none(), "finalized: removed");
    let err = st.delete(c, Kind::Namespace, &ObjKey::cluster("kube-system"), &DeleteOptions::default(), 60);
    assert_eq!(
        err.map(|_| ()).map_err(|e| e.to_string()),
        Err(r#"namespaces "kube-system" is forbidden: this namespace may not be deleted"#.to_string())
    );
}

#[test]
fn create_in_missing_namespace_is_not_found() {
    // apiserver admission plugin NamespaceLifecycle: `namespaces "x" not found` (404).
    let (mut st, c) = setup();
    let err = st.create(c, pod_in("x", "web", &[]), 0).expect_err("missing namespace");
    assert_eq!(err.code(), 404);
    assert_eq!(err.to_string(), r#"namespaces "x" not found"#);
    assert_eq!(st.count_of(Kind::Pod), 0);
    assert_eq!(st.counters(c).errors, 1);
}

#[test]
fn create_of_an_existing_name_is_already_exists() {
    // apiserver storage/errors InterpretCreateError: NewAlreadyExists -> `pods "web" already exists` (409).
    let (mut st, c) = setup();
    create(&mut st, c, pod("web"), 0);
    let err = st.create(c, pod("web"), 0).expect_err("duplicate");
    assert_eq!(err.code(), 409);
    assert_eq!(err.to_string(), r#"pods "web" already exists"#);
    assert!(!err.is_conflict());
}

#[test]
fn generate_name_appends_a_five_character_random_suffix() {
    // apiserver storage/names SimpleNameGenerator: base + 5 chars of utilrand's "bcdfghjklmnpqrstvwxz2456789".
    let (mut st, c) = setup();
    let mut made = Vec::new();
    for _ in 0..2 {
        let mut o = pod("");
        o.meta_mut().generate_name = s("web-");
        let p = create(&mut st, c, o, 0);
        let name = p.meta().name.to_string();
        let suffix = name.strip_prefix("web-").expect("keeps the prefix");
        assert_eq!(suffix.len(), 5, "{name}");
        assert!(suffix.chars().all(|ch| "bcdfghjklmnpqrstvwxz2456789".contains(ch)), "{name}");
        assert_eq!(&*p.meta().generate_name, "web-");
        made.push(name);
    }
    assert_ne!(made[0], made[1]);
}

#[test]
fn a_server_dry_run_is_admitted_and_answered_but_persists_nothing() {
    // apiserver registry/generic/registry/dryrun.go (DryRunnableStorage): a dryRun=All create, update or delete
    // runs defaulting, admission and validation and answers with the object, errors included, and skips the
    // storage write. Here: no resourceVersion, history, watch event or draw from the server's random stream.
    let named = |name: &str| {
        let mut o = pod("");
        o.meta_mut().generate_name = s(name);
        o
    };
    let (mut st, c) = setup();
    create(&mut st, c, pod("a"), 0);
    let watch = st.watch(c, Kind::Pod, st.resource_version(), WatchFilter::All).expect("watch");
    let (rv, hash, writes, live) =
        (st.resource_version(), st.history_hash(), st.total_writes(), st.peek(Kind::Pod, &key("a")).cloned());
    let creates = st.counters(c).creates;
    let mut rng = Rng::new(7);
    let answers = {
        let mut api = crate::client::Api::new(&mut st, c, 5, &mut rng);
        api.dry_run(|api| {
            let made = api.create(named("web-")).map(|o| o.meta().name.to_string());
            let taken = api.create(pod("a")).map(|_| ());
            let invalid = api.create(pod("Not_A_Name")).map(|_| ());
            let relabelled = api.patch(Kind::Pod, &key("a"), Subresource::Main, |o| {
                o.meta_mut().labels.insert(s("tier"), s("web"));
            });
            let deleted = api.delete(Kind::Pod, &key("a"), &DeleteOptions::default()).map(|_| ());
            let missing = api.delete(Kind::Pod, &key("nosuch"), &DeleteOptions::default()).map(|_| ());
            (made, taken, invalid, relabelled, deleted, missing)
        })
    };
    let (made, taken, invalid, relabelled, deleted, missing) = answers;
    assert!(made.as_deref().is_ok_and(|n| n.starts_with("web-") && n.len() == 9), "{made:?}");
    assert!(taken.is_err_and(|e| e.to_string() == "pods \"a\" already exists"));
    assert!(invalid.is_err_and(|e| matches!(e, ApiError::Invalid(_))));
    assert_eq!(relabelled.map(|o| o.meta().labels.get("tier").map(|v| v.to_string())), Ok(Some("web".into())));
    assert_eq!(deleted, Ok(()));
    assert!(missing.is_err_and(|e| e.is_not_found()));
    // Nothing was written, nobody watching heard of it, and the requests were served (counted).
    assert_eq!((st.resource_version(), st.history_hash(), st.total_writes()), (rv, hash, writes));
    assert_eq!(st.peek(Kind::Pod, &key("a")).cloned(), live);
    assert_eq!(st.count_of(Kind::Pod), 1);
    assert!(st.drain_watch(watch, FAR).0.is_empty());
    assert_eq!(st.counters(c).creates, creates + 1, "the one create the server admitted");
    // The server's random stream is where it was: the next generated name is the one a run without the dry run
    // gets (the dry run drew the same name and handed it back).
    let (mut plain, pc) = setup();
    create(&mut plain, pc, pod("a"), 0);
    let next = create(&mut st, c, named("web-"), 10);
    let want = create(&mut plain, pc, named("web-"), 10);
    assert_eq!((&next.meta().name, &next.meta().uid), (&want.meta().name, &want.meta().uid));
    assert_eq!(made.ok().as_deref(), Some(&*want.meta().name));
}

// ---- reads ---------------------------------------------------------------------------------------------------

#[test]
fn get_of_a_missing_object_is_not_found_and_counts_a_get() {
    // apiserver storage/errors InterpretGetError: `pods "x" not found` (404).
    let (mut st, c) = setup();
    let err = st.get(c, Kind::Pod, &key("x")).expect_err("missing");
    assert!(err.is_not_found());
    assert_eq!(err.code(), 404);
    assert_eq!(err.to_string(), r#"pods "x" not found"#);
    assert_eq!(st.counters(c).gets, 1);
    create(&mut st, c, pod("x"), 0);
    assert!(st.get(c, Kind::Pod, &key("x")).is_ok());
    assert_eq!(st.counters(c).gets, 2);
}

#[test]
fn list_returns_items_in_key_order_with_the_current_resource_version() {
    // etcd range reads return keys sorted (/registry/pods/<ns>/<name>): namespace, then name.
    let (mut st, c) = setup();
    for (ns, name) in [("kube-system", "a"), ("default", "c"), ("default", "a"), ("default", "b")] {
        create(&mut st, c, pod_in(ns, name, &[]), 0);
    }
    let (items, rv) = st.list(c, Kind::Pod, None, None, &WatchFilter::All);
    assert_eq!(names(&items), ["default/a", "default/b", "default/c", "kube-system/a"]);
    assert_eq!(rv, st.resource_version());
}

#[test]
fn list_honours_the_namespace() {
    // GET /api/v1/namespaces/{ns}/pods lists one namespace only.
    let (mut st, c) = setup();
    for (ns, name) in [("kube-system", "a"), ("default", "b"), ("kube-public", "c")] {
        create(&mut st, c, pod_in(ns, name, &[]), 0);
    }
    let (items, _) = st.list(c, Kind::Pod, Some("kube-system"), None, &WatchFilter::All);
    assert_eq!(names(&items), ["kube-system/a"]);
}

#[test]
fn list_honours_match_labels_and_match_expressions() {
    // apimachinery labels.Selector: every matchLabels pair and every matchExpressions requirement must hold.
    let (mut st, c) = setup();
    create(&mut st, c, pod_in("default", "a", &[("app", "web"), ("tier", "fe")]), 0);
    create(&mut st, c, pod_in("default", "b", &[("app", "web"), ("tier", "be")]), 0);
    create(&mut st, c, pod_in("default", "c", &[("app", "db")]), 0);
    create(&mut st, c, pod_in("default", "d", &[("app", "web")]), 0);
    let by_labels = LabelSelector::from_labels(labels(&[("app", "web")]));
    let (items, _) = st.list(c, Kind::Pod, None, Some(&by_labels), &WatchFilter::All);
    assert_eq!(names(&items), ["default/a", "default/b", "default/d"]);
    let req = |k: &str, op, vs: &[&str]| LabelSelectorRequirement {
        key: s(k),
        operator: op,
        values: vs.iter().map(|v| s(v)).collect(),
    };
    let exprs = LabelSelector {
        match_labels: labels(&[("app", "web")]),
        match_expressions: vec![req("tier", Operator::NotIn, &["be"])],
    };
    let (items, _) = st.list(c, Kind::Pod, None, Some(&exprs), &WatchFilter::All);
    assert_eq!(names(&items), ["default/a", "default/d"]);
    let exists = LabelSelector { match_expressions: vec![req("tier", Operator::Exists, &[])], ..Default::default() };
    let (items, _) = st.list(c, Kind::Pod, None, Some(&exists), &WatchFilter::All);
    assert_eq!(names(&items), ["default/a", "default/b"]);
    let within =
        LabelSelector { match_expressions: vec![req("app", Operator::In, &["db", "cache"])], ..Default::default() };
    let (items, _) = st.list(c, Kind::Pod, None, Some(&within), &WatchFilter::All);
    assert_eq!(names(&items), ["default/c"]);
}

#[test]
fn list_counts_one_call_per_page_of_500_and_every_item() {
    // client-go tools/pager: the reflector lists in pages of 500 (defaultPageSize), one request per page.
    let (mut st, c) = setup();
    st.list(c, Kind::Pod, None, None, &WatchFilter::All);
    assert_eq!((st.counters(c).list_calls, st.counters(c).list_items), (1, 0), "an empty list is still one call");
    for i in 0..501 {
        create(&mut st, c, pod(&format!("p{i:03}")), 0);
    }
    let (items, _) = st.list(c, Kind::Pod, None, None, &WatchFilter::All);
    assert_eq!(items.len(), 501);
    assert_eq!((st.counters(c).list_calls, st.counters(c).list_items), (1 + 2, 501));
    let one = LabelSelector::from_labels(labels(&[("none", "x")]));
    st.list(c, Kind::Pod, None, Some(&one), &WatchFilter::All);
    assert_eq!(st.counters(c).list_calls, 4);
}

// ---- update --------------------------------------------------------------------------------------------------

#[test]
fn update_with_a_stale_resource_version_is_a_conflict() {
    // apiserver storage/etcd3 GuaranteedUpdate + storage/errors InterpretUpdateError: 409 with
    // OptimisticLockErrorMsg "the object has been modified; please apply your changes to the latest version ...".
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let stale = edit(&d, |o| dep(o).spec.replicas = Some(3));
    let fresh = st.update(c, edit(&d, |o| dep(o).spec.replicas = Some(2)), Subresource::Main, 0);
    assert!(fresh.is_ok());
    let err = st.update(c, stale, Subresource::Main, 0).expect_err("stale");
    assert!(err.is_conflict());
    assert_eq!(err.code(), 409);
    assert_eq!(
        err.to_string(),
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your \
         changes to the latest version and try again"
    );
    assert_eq!(st.counters(c).conflicts, 1);
    let stored = st.peek(Kind::Deployment, &key("web")).expect("stored");
    assert_eq!(stored.as_deployment().map(|d| d.spec.replicas), Some(Some(2)));
}

#[test]
fn racing_writers_first_wins_second_conflicts_and_its_retry_lands() {
    // Optimistic concurrency (api-conventions.md "Concurrency Control and Consistency"; client-go
    // util/retry RetryOnConflict): both read rv N, the first write wins, the second gets 409, re-reads, retries.
    let (mut st, c) = setup();
    let b = st.register_client("writer-b");
    create(&mut st, c, deployment("web"), 0);
    let seen_a = st.get(c, Kind::Deployment, &key("web")).expect("get");
    let seen_b = st.get(b, Kind::Deployment, &key("web")).expect("get");
    assert_eq!(seen_a.meta().resource_version, seen_b.meta().resource_version);
    let set_note = |o: &mut Object| {
        o.meta_mut().annotations.insert(s("note"), s("b"));
    };
    st.update(c, edit(&seen_a, |o| dep(o).spec.replicas = Some(3)), Subresource::Main, 1).expect("first wins");
    let err = st.update(b, edit(&seen_b, set_note), Subresource::Main, 1).expect_err("second loses");
    assert!(err.is_conflict());
    assert_eq!((st.counters(b).conflicts, st.counters(c).conflicts), (1, 0));
    let again = st.get(b, Kind::Deployment, &key("web")).expect("re-read");
    st.update(b, edit(&again, set_note), Subresource::Main, 2).expect("retry lands");
    let end = st.peek(Kind::Deployment, &key("web")).and_then(|o| o.as_deployment()).expect("stored");
    assert_eq!(end.spec.replicas, Some(3));
    assert_eq!(end.metadata.annotation("note"), Some("b"));
}

#[test]
fn update_that_changes_nothing_keeps_the_resource_version_and_writes_no_event() {
    // apiserver storage/etcd3 GuaranteedUpdate: an unchanged object short-circuits (no etcd write, no new
    // resourceVersion, no watch event).
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let w = watch_now(&mut st, c, Kind::Deployment, WatchFilter::All);
    let writes = st.total_writes();
    let out = st.update(c, (*d).clone(), Subresource::Main, 10).expect("update");
    assert_eq!(out.meta().resource_version, d.meta().resource_version);
    let out = st.update(c, (*d).clone(), Subresource::Status, 10).expect("status update");
    assert_eq!(out.meta().resource_version, d.meta().resource_version);
    assert_eq!(st.total_writes(), writes);
    assert_eq!(st.counters(c).updates, 0);
    assert!(drain(&mut st, w).is_empty());
}

#[test]
fn generation_bumps_on_spec_changes_only() {
    // pkg/registry/apps/deployment/strategy.go PrepareForUpdate: Generation++ only when the spec changes; labels,
    // annotations and status leave it.
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let d = st.update(c, edit(&d, |o| o.meta_mut().labels = labels(&[("team", "x")])), Subresource::Main, 0);
    let d = d.expect("labels");
    assert_eq!(d.meta().generation, 1);
    let d = st.update(c, edit(&d, |o| dep(o).status.observed_generation = 1), Subresource::Status, 0);
    let d = d.expect("status");
    assert_eq!(d.meta().generation, 1);
    let d = st.update(c, edit(&d, |o| dep(o).spec.replicas = Some(4)), Subresource::Main, 0).expect("spec");
    assert_eq!(d.meta().generation, 2);
    let d = st.update(
        c,
        edit(&d, |o| Rc::make_mut(&mut dep(o).spec.template.spec).containers[0].image = s("nginx:1.26")),
        Subresource::Main,
        0,
    );
    assert_eq!(d.expect("template").meta().generation, 3);
}

#[test]
fn main_update_cannot_change_status() {
    // pkg/registry/apps/deployment/strategy.go and core/pod/strategy.go PrepareForUpdate: newObj.Status =
    // oldObj.Status on the main resource.
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let d = st.update(
        c,
        edit(&d, |o| {
            let d = dep(o);
            d.spec.replicas = Some(2);
            d.status.replicas = 5;
        }),
        Subresource::Main,
        0,
    );
    let d = d.expect("update");
    let d = d.as_deployment().expect("deployment");
    assert_eq!((d.spec.replicas, d.status.replicas), (Some(2), 0));

    let p = create(&mut st, c, pod("web"), 0);
    let out = st.update(c, edit(&p, |o| podm(o).status.phase = PodPhase::Running), Subresource::Main, 0);
    let out = out.expect("update");
    assert_eq!(out.as_pod().map(|p| p.status.phase), Some(PodPhase::Pending));
    assert_eq!(out.meta().resource_version, p.meta().resource_version, "nothing else changed: no write");
}

#[test]
fn status_update_cannot_change_spec() {
    // deploymentStatusStrategy / podStatusStrategy PrepareForUpdate: newObj.Spec = oldObj.Spec (and metadata
    // except a few fields) on the status subresource.
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let d = st.update(
        c,
        edit(&d, |o| {
            let d = dep(o);
            d.spec.replicas = Some(9);
            d.status.replicas = 2;
        }),
        Subresource::Status,
        0,
    );
    let d = d.expect("status update");
    assert_eq!(d.meta().generation, 1);
    let d = d.as_deployment().expect("deployment");
    assert_eq!((d.spec.replicas, d.status.replicas), (Some(1), 2));

    let p = create(&mut st, c, pod("web"), 0);
    let p = st.update(
        c,
        edit(&p, |o| {
            let p = podm(o);
            Rc::make_mut(&mut p.spec).containers[0].image = s("evil:1");
            p.status.phase = PodPhase::Running;
        }),
        Subresource::Status,
        0,
    );
    let p = p.expect("status update");
    let p = p.as_pod().expect("pod");
    assert_eq!((&*p.spec.containers[0].image, p.status.phase), ("nginx:1.25", PodPhase::Running));
}

#[test]
fn deployment_selector_is_immutable() {
    // pkg/apis/apps/validation ValidateDeploymentUpdate: apps/v1 spec.selector is immutable (422).
    let (mut st, c) = setup();
    let d = create(&mut st, c, deployment("web"), 0);
    let changed = edit(&d, |o| {
        let d = dep(o);
        d.spec.selector = LabelSelector::from_labels(labels(&[("app", "other")]));
        d.spec.template.metadata.labels = labels(&[("app", "other")]);
    });
    let err = st.update(c, changed, Subresource::Main, 0).expect_err("immutable");
    assert_eq!(err.code(), 422);
    let msg = err.to_string();
    assert!(msg.starts_with(r#"Deployment.apps "web" is invalid: spec.selector: Invalid value"#), "{msg}");
    assert!(msg.ends_with("field is immutable"), "{msg}");
}

#[test]
fn pod_spec_updates_other_than_image_are_forbidden() {
    // pkg/apis/core/validation ValidatePodUpdate: only containers[*].image, activeDeadlineSeconds, added
    // tolerations and terminationGracePeriodSeconds may change.
    let (mut st, c) = setup();
    let p = create(&mut st, c, pod("web"), 0);
    let p = st.update(
        c,
        edit(&p, |o| Rc::make_mut(&mut podm(o).spec).containers[0].image = s("nginx:1.26")),
        Subresource::Main,
        0,
    );
    let p = p.expect("image change allowed");
    assert_eq!(p.as_pod().map(|p| &*p.spec.containers[0].image), Some("nginx:1.26"));
    let changes: [fn(&mut Pod); 3] = [
        |p| Rc::make_mut(&mut p.spec).restart_policy = s("Never"),
        |p| Rc::make_mut(&mut p.spec).node_selector = labels(&[("disk", "ssd")]),
        |p| Rc::make_mut(&mut p.spec).node_name = s("n1"),
    ];
    for change in changes {
        let err = st.update(c, edit(&p, |o| change(podm(o))), Subresource::Main, 0).expect_err("forbidden");
        assert_eq!(err.code(), 422);
        assert!(
            err.to_string().starts_with(
                r#"Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"#
            ),
            "{err}"
        );
    }
    assert_eq!(st.peek(Kind::Pod, &key("web")).map(|o| o.meta().resource_version), Some(p.meta().resource_version));
}

// ---- bind ----------------------------------------------------------------------------------------------------

#[test]
fn bind_sets_node_name_and_pod_scheduled_true() {
    // pkg/registry/core/pod/storage/storage.go BindingREST.setPodHostAndAnnotations: spec.nodeName = target and
    // condition PodScheduled=True.
    let (mut st, c) = setup();
    let p = create(&mut st, c, pod("web"), 0);
    let b = st.bind(c, &key("web"), &p.meta().uid, "n1", 700).expect("bind");
    let bp = b.as_pod().expect("pod");
    assert_eq!(&*bp.spec.node_name, "n1");
    let cond = bp.condition("PodScheduled").expect("PodScheduled");
    assert_eq!((&*cond.status, cond.last_transition_time), ("True", Some(Time(700))));
    assert!(b.meta().resource_version > p.meta().resource_version);
    assert_eq!(names(&st.pods_on_node("n1").cloned().collect::<Vec<_>>()), ["default/web"]);
}

#[test]
fn bind_refuses_a_second_bind() {
    // BindingREST.setPodHostAndAnnotations: `pod web is already assigned to node "n1"`; the pod stays put.
    let (mut st, c) = setup();
    let p = bound_pod(&mut st, c, "web", "n1");
    let err = st.bind(c, &key("web"), &p.meta().uid, "n2", 1).expect_err("already bound");
    assert!(err.to_string().contains(r#"pod web is already assigned to node "n1""#), "{err}");
    assert_eq!(st.peek(Kind::Pod, &key("web")).and_then(|o| o.as_pod()).map(|p| &*p.spec.node_name), Some("n1"));
    assert_eq!(st.peek(Kind::Pod, &key("web")).map(|o| o.meta().resource_version), Some(p.meta().resource_version));
    assert_eq!(st.counters(c).conflicts, 1);
}

#[test]
fn bind_of_a_bound_pod_is_a_409_conflict_on_pods_binding() {
    // pkg/registry/core/pod/storage/storage.go BindingREST.assignPod wraps the plain error with
    // errors.NewConflict(api.Resource("pods/binding"), podID, err).
    let (mut st, c) = setup();
    let p = bound_pod(&mut st, c, "web", "n1");
    let err = st.bind(c, &key("web"), &p.meta().uid, "n2", 1).expect_err("already bound");
    assert_eq!(err.code(), 409);
    assert_eq!(
        err.to_string(),
        r#"Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n1""#
    );
}

// ---- delete --------------------------------------------------------------------------------------------------

#[test]
fn delete_of_an_unbound_pod_removes_it_at_once() {
    // pkg/registry/core/pod/strategy.go CheckGracefulDelete: a pod not scheduled to a node gets grace 0.
    let (mut st, c) = setup();
    create(&mut st, c, pod("web"), 0);
    let w = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    let last = st.delete(c, Kind::Pod, &key("web"), &DeleteOptions::default(), 50).expect("delete");
    assert!(st.peek(Kind::Pod, &key("web")).is_none());
    assert_eq!(last.meta().resource_version, st.resource_version());
    let evs = drain(&mut st, w);
    assert_eq!(evs.iter().map(|e| e.0).collect::<Vec<_>>(), [EventType::Deleted]);
    assert_eq!(st.counters(c).deletes, 1);
}

#[test]
fn delete_of_a_bound_pod_is_graceful_then_a_zero_grace_delete_removes_it() {
    // CheckGracefulDelete: default terminationGracePeriodSeconds 30 -> deletionTimestamp = now + 30 s,
    // deletionGracePeriodSeconds 30 (MODIFIED); the kubelet then deletes with grace 0 (DELETED).
    let (mut st, c) = setup();
    bound_pod(&mut st, c, "web", "n1");
    let w = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    let marked = st.delete(c, Kind::Pod, &key("web"), &DeleteOptions::default(), 10_000).expect("delete");
    assert_eq!(marked.meta().deletion_timestamp, Some(Time(40_000)));
    assert_eq!(marked.meta().deletion_grace_period_seconds, Some(30));
    assert!(st.peek(Kind::Pod, &key("web")).is_some());
    let zero = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    st.delete(c, Kind::Pod, &key("web"), &zero, 12_000).expect("force");
    assert!(st.peek(Kind::Pod, &key("web")).is_none());
    let evs = drain(&mut st, w);
    assert_eq!(evs.iter().map(|e| e.0).collect::<Vec<_>>(), [EventType::Modified, EventType::Deleted]);
}

#[test]
fn objects_with_finalizers_are_only_marked_for_deletion() {
    // apiserver registry/generic/registry/store.go Delete: with finalizers, updateForGracefulDeletionAndFinalizers
    // sets deletionTimestamp (now) and deletionGracePeriodSeconds 0; the object stays until they are gone.
    let (mut st, c) = setup();
    let mut d = deployment("web");
    d.meta_mut().finalizers = vec![s("example.com/keep")];
    create(&mut st, c, d, 0);
    let w = watch_now(&mut st, c, Kind::Deployment, WatchFilter::All);
    let marked = st.delete(c, Kind::Deployment, &key("web"), &DeleteOptions::default(), 3_000).expect("delete");
    assert_eq!(marked.meta().deletion_timestamp, Some(Time(3_000)));
    assert_eq!(marked.meta().deletion_grace_period_seconds, Some(0));
    assert!(st.peek(Kind::Deployment, &key("web")).is_some_and(|o| o.meta().is_terminating()));
    assert_eq!(drain(&mut st, w).iter().map(|e| e.0).collect::<Vec<_>>(), [EventType::Modified]);
}

#[test]
fn foreground_and_orphan_propagation_add_their_finalizers() {
    // apiserver registry/generic/registry/store.go deletionFinalizersForGarbageCollection: Foreground adds
    // `foregroundDeletion`, Orphan adds `orphan`; the object is marked, the garbage collector finishes.
    let (mut st, c) = setup();
    for (name, policy, fin) in
        [("fg", Propagation::Foreground, "foregroundDeletion"), ("or", Propagation::Orphan, "orphan")]
    {
        create(&mut st, c, deployment(name), 0);
        let opts = DeleteOptions { propagation: Some(policy), ..Default::default() };
        let marked = st.delete(c, Kind::Deployment, &key(name), &opts, 1_000).expect("delete");
        assert_eq!(marked.meta().finalizers, vec![s(fin)]);
        assert_eq!(marked.meta().deletion_timestamp, Some(Time(1_000)));
        assert!(st.peek(Kind::Deployment, &key(name)).is_some());
    }
    create(&mut st, c, deployment("bg"), 0);
    let opts = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
    st.delete(c, Kind::Deployment, &key("bg"), &opts, 1_000).expect("delete");
    assert!(st.peek(Kind::Deployment, &key("bg")).is_none(), "background deletes at once");
}

#[test]
fn removing_the_last_finalizer_of_a_terminating_object_removes_it() {
    // apiserver registry/generic/registry/store.go Update: ShouldDeleteDuringUpdate (terminating, no finalizers
    // left, grace 0) -> deleteWithoutFinalizers.
    let (mut st, c) = setup();
    let mut d = deployment("web");
    d.meta_mut().finalizers = vec![s("a.example.com/x"), s("b.example.com/y")];
    create(&mut st, c, d, 0);
    st.delete(c, Kind::Deployment, &key("web"), &DeleteOptions::default(), 0).expect("delete");
    let cur = st.get(c, Kind::Deployment, &key("web")).expect("marked");
    let one_left = edit(&cur, |o| {
        o.meta_mut().finalizers.remove(0);
    });
    let cur = st.update(c, one_left, Subresource::Main, 1).expect("update");
    assert!(st.peek(Kind::Deployment, &key("web")).is_some(), "a finalizer is left");
    let w = watch_now(&mut st, c, Kind::Deployment, WatchFilter::All);
    st.update(c, edit(&cur, |o| o.meta_mut().finalizers.clear()), Subresource::Main, 2).expect("update");
    assert!(st.peek(Kind::Deployment, &key("web")).is_none());
    assert_eq!(drain(&mut st, w).last().map(|e| e.0), Some(EventType::Deleted));
}

#[test]
fn removing_the_last_finalizer_produces_a_single_deleted_event() {
    // apiserver registry/generic/registry/store.go Update: when ShouldDeleteDuringUpdate, the update callback
    // returns errEmptiedFinalizers and nothing is written; deleteWithoutFinalizers is the one write: one DELETED.
    let (mut st, c) = setup();
    let mut d = deployment("web");
    d.meta_mut().finalizers = vec![s("example.com/keep")];
    create(&mut st, c, d, 0);
    let cur = st.delete(c, Kind::Deployment, &key("web"), &DeleteOptions::default(), 0).expect("delete");
    let w = watch_now(&mut st, c, Kind::Deployment, WatchFilter::All);
    let before = st.resource_version();
    st.update(c, edit(&cur, |o| o.meta_mut().finalizers.clear()), Subresource::Main, 1).expect("update");
    assert_eq!(drain(&mut st, w).iter().map(|e| e.0).collect::<Vec<_>>(), [EventType::Deleted]);
    assert_eq!(st.resource_version(), before + 1, "one write, one resourceVersion");
}

// ---- events, determinism ---------------------------------------------------------------------------------------

fn event(name: &str, last: Millis) -> Object {
    let body = EventBody { reason: s("Test"), last_timestamp: Some(Time(last)), ..Default::default() };
    Object::Event(Event { metadata: ObjectMeta::named("default", name), body })
}

#[test]
fn event_objects_expire_after_the_ttl() {
    // kube-apiserver --event-ttl (1 h): events are stored with an etcd lease and vanish when it expires.
    let (mut st, c) = setup();
    create(&mut st, c, event("e1", 0), 0);
    create(&mut st, c, pod("tick1"), HOUR - 1);
    assert!(st.peek(Kind::Event, &key("e1")).is_some(), "still within the TTL");
    let w = watch_now(&mut st, c, Kind::Event, WatchFilter::All);
    create(&mut st, c, pod("tick2"), HOUR);
    assert!(st.peek(Kind::Event, &key("e1")).is_none());
    let evs = drain(&mut st, w);
    assert_eq!(evs.iter().map(|e| (e.0, e.1.as_str())).collect::<Vec<_>>(), [(EventType::Deleted, "e1")]);
}

/// Found by a soak: Events that expire together were removed recursively (each removal's commit expired the
/// next), one stack frame each, so enough of them at once overflowed the stack.
#[test]
fn many_events_expiring_at_once_are_removed_without_recursion() {
    let (mut st, c) = setup();
    let n = 30_000;
    for i in 0..n {
        create(&mut st, c, event(&format!("e{i}"), 0), 0);
    }
    assert_eq!(st.count_of(Kind::Event), n);
    // On a test thread's 2 MiB stack, 30,000 nested removals overflowed (and aborted the test binary).
    create(&mut st, c, pod("tick"), HOUR);
    assert_eq!(st.count_of(Kind::Event), 0, "every Event expired");
}

#[test]
fn event_ttl_counts_from_the_last_update() {
    // The event recorder's updates (count++, lastTimestamp) refresh the lease: the TTL restarts.
    let (mut st, c) = setup();
    let e = create(&mut st, c, event("e1", 0), 0);
    let half = HOUR / 2;
    let bumped = edit(&e, |o| {
        if let Some(ev) = o.as_event_mut() {
            ev.body.count = 2;
            ev.body.last_timestamp = Some(Time(half));
        }
    });
    st.update(c, bumped, Subresource::Main, half).expect("update");
    create(&mut st, c, pod("tick1"), HOUR);
    assert!(st.peek(Kind::Event, &key("e1")).is_some(), "refreshed at 30 min");
    create(&mut st, c, pod("tick2"), half + HOUR);
    assert!(st.peek(Kind::Event, &key("e1")).is_none());
}

#[test]
fn history_hash_is_equal_for_equal_histories_and_differs_otherwise() {
    // Determinism check (FoundationDB / TigerBeetle style): same writes at the same times, same hash.
    let run = |name: &str, at: Millis| {
        let (mut st, c) = setup();
        create(&mut st, c, pod("a"), 0);
        create(&mut st, c, pod(name), at);
        st.delete(c, Kind::Pod, &key("a"), &DeleteOptions::default(), at).expect("delete");
        st.history_hash()
    };
    assert_eq!(run("b", 10), run("b", 10));
    assert_ne!(run("b", 10), run("c", 10), "different key");
    assert_ne!(run("b", 10), run("b", 11), "different time");
    assert_ne!(setup().0.history_hash(), run("b", 10));
}

// ---- watch ---------------------------------------------------------------------------------------------------

#[test]
fn watch_from_a_resource_version_gets_exactly_the_later_events_in_order_after_its_latency() {
    // apiserver storage/cacher watch_cache.go getAllEventsSinceLocked: a watch from rv N replays the buffered
    // events with rv > N, then streams new ones, in order.
    let (mut st, c) = setup();
    create(&mut st, c, pod("a"), 0);
    let from = st.resource_version();
    let b = create(&mut st, c, pod("b"), 0).meta().resource_version;
    let id = st.watch(c, Kind::Pod, from, WatchFilter::All).expect("watch");
    let latency = st.watcher(id).expect("open").latency;
    assert!((2..=12).contains(&latency));
    let d = create(&mut st, c, pod("d"), 1_000).meta().resource_version;
    let (early, next) = st.drain_watch(id, latency - 1);
    assert!(early.is_empty(), "the backlog is due at 0 + latency");
    assert_eq!(next, Some(latency));
    let (backlog, next) = st.drain_watch(id, 1_000 + latency - 1);
    assert_eq!(backlog.iter().map(|e| e.rv).collect::<Vec<_>>(), [b]);
    assert_eq!(next, Some(1_000 + latency));
    let (live, next) = st.drain_watch(id, 1_000 + latency);
    assert_eq!(live.iter().map(|e| (e.type_, e.rv, e.at)).collect::<Vec<_>>(), [(EventType::Added, d, 1_000)]);
    assert_eq!(next, None);
}

#[test]
fn every_write_produces_exactly_one_event_per_matching_watcher() {
    // apiserver storage/cacher: each etcd revision is dispatched once to every watcher whose filter matches.
    let (mut st, c) = setup();
    let w1 = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    let w2 = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    let wd = watch_now(&mut st, c, Kind::Deployment, WatchFilter::All);
    let mut rvs = Vec::new();
    let p = create(&mut st, c, pod("web"), 0);
    rvs.push(st.resource_version());
    let p = st.update(c, edit(&p, |o| o.meta_mut().labels = labels(&[("a", "b")])), Subresource::Main, 1);
    rvs.push(st.resource_version());
    let p = p.expect("update");
    st.update(c, edit(&p, |o| podm(o).status.phase = PodPhase::Running), Subresource::Status, 2).expect("status");
    rvs.push(st.resource_version());
    st.update(c, edit(&p, |o| o.meta_mut().labels = labels(&[("a", "b")])), Subresource::Main, 3).expect_err("stale");
    st.bind(c, &key("web"), &p.meta().uid, "n1", 4).expect("bind");
    rvs.push(st.resource_version());
    st.delete(c, Kind::Pod, &key("web"), &DeleteOptions::default(), 5).expect("delete");
    rvs.push(st.resource_version());
    let zero = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    st.delete(c, Kind::Pod, &key("web"), &zero, 6).expect("delete");
    rvs.push(st.resource_version());
    use EventType::*;
    for w in [w1, w2] {
        let evs = drain(&mut st, w);
        assert_eq!(evs.iter().map(|e| e.2).collect::<Vec<_>>(), rvs);
        assert_eq!(
            evs.iter().map(|e| e.0).collect::<Vec<_>>(),
            [Added, Modified, Modified, Modified, Modified, Deleted]
        );
    }
    assert!(drain(&mut st, wd).is_empty(), "another kind's watcher sees nothing");
}

#[test]
fn node_filtered_pod_watch_sees_a_bind_as_added_and_never_other_nodes_pods() {
    // Kubelet watch with fieldSelector spec.nodeName=n1; apiserver cacher watch filtering turns an object that
    // starts matching into ADDED (cacheWatcher.convertToWatchEvent).
    let (mut st, c) = setup();
    let w = watch_now(&mut st, c, Kind::Pod, WatchFilter::NodeName(s("n1")));
    let a = create(&mut st, c, pod("a"), 0);
    assert!(drain(&mut st, w).is_empty(), "an unbound pod is not on n1");
    let a = st.bind(c, &key("a"), &a.meta().uid, "n1", 1).expect("bind");
    bound_pod(&mut st, c, "b", "n2");
    st.update(c, edit(&a, |o| podm(o).status.phase = PodPhase::Running), Subresource::Status, 2).expect("status");
    st.delete(c, Kind::Pod, &key("b"), &DeleteOptions { grace_period_seconds: Some(0), ..Default::default() }, 3)
        .expect("delete b");
    let evs = drain(&mut st, w);
    let seen: Vec<_> = evs.iter().map(|e| (e.0, e.1.as_str())).collect();
    assert_eq!(seen, [(EventType::Added, "a"), (EventType::Modified, "a")]);
    let (listed, _) = st.list(c, Kind::Pod, None, None, &WatchFilter::NodeName(s("n1")));
    assert_eq!(names(&listed), ["default/a"]);
}

fn tiny_history() -> StoreConfig {
    StoreConfig { watch_history_min: 2, watch_history_max: 3, ..Default::default() }
}

#[test]
fn watch_from_a_resource_version_older_than_the_history_is_gone() {
    // apiserver storage/cacher watch_cache.go: resourceVersion < oldest-1 -> NewResourceExpired (410 Gone)
    // "too old resource version: N (M)"; the reflector must relist.
    let (mut st, c) = setup_with(tiny_history());
    let rvs: Vec<u64> = (0..5).map(|i| create(&mut st, c, pod(&format!("p{i}")), 0).meta().resource_version).collect();
    let err = st.watch(c, Kind::Pod, rvs[0], WatchFilter::All).expect_err("compacted");
    assert_eq!(err.code(), 410);
    assert!(err.to_string().starts_with(&format!("too old resource version: {} (", rvs[0])), "{err}");
    assert_eq!(st.counters(c).errors, 1);
    let id = st.watch(c, Kind::Pod, rvs[1], WatchFilter::All).expect("the history still covers rv > rvs[1]");
    assert_eq!(drain(&mut st, id).iter().map(|e| e.2).collect::<Vec<_>>(), rvs[2..]);
}

#[test]
fn gone_message_shows_the_oldest_servable_resource_version_like_upstream() {
    // watch_cache.go getAllEventsSinceLocked: fmt.Sprintf("too old resource version: %d (%d)", rv, oldest-1)
    // where oldest is the resourceVersion of the first buffered event.
    let (mut st, c) = setup_with(tiny_history());
    let rvs: Vec<u64> = (0..5).map(|i| create(&mut st, c, pod(&format!("p{i}")), 0).meta().resource_version).collect();
    let err = st.watch(c, Kind::Pod, rvs[0], WatchFilter::All).expect_err("compacted");
    assert_eq!(err.to_string(), format!("too old resource version: {} ({})", rvs[0], rvs[2] - 1));
}

#[test]
fn stop_watch_stops_delivery() {
    // watch.Interface.Stop: the server closes the stream; undelivered events are lost.
    let (mut st, c) = setup();
    let w = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    let open = st.open_watchers();
    create(&mut st, c, pod("a"), 0);
    st.stop_watch(w);
    assert_eq!(st.open_watchers(), open - 1);
    create(&mut st, c, pod("b"), 1);
    assert!(st.watcher(w).is_none());
    let (evs, next) = st.drain_watch(w, FAR);
    assert!(evs.is_empty());
    assert_eq!(next, None);
    assert_eq!(st.counters(c).watch_events, 0);
}

#[test]
fn watch_events_are_counted_when_delivered() {
    // Watch events served count as API reads of the client that opened the watch, when they are sent.
    let (mut st, c) = setup();
    let other = st.register_client("other");
    let w = watch_now(&mut st, c, Kind::Pod, WatchFilter::All);
    create(&mut st, other, pod("a"), 0);
    create(&mut st, other, pod("b"), 0);
    let (early, _) = st.drain_watch(w, 0);
    assert!(early.is_empty());
    assert_eq!(st.counters(c).watch_events, 0, "buffered, not yet served");
    assert_eq!(drain(&mut st, w).len(), 2);
    assert_eq!(st.counters(c).watch_events, 2);
    assert_eq!(st.counters(c).reads(), 2);
    assert_eq!(st.counters(other).watch_events, 0);
    assert_eq!(st.counters(c).watches_opened, 1);
}

/// The tally of pods by phase the store keeps at every commit equals a count of its pods, through creates, status
/// updates, graceful deletion (terminating whatever the phase) and removal.
#[test]
fn pod_tally_follows_every_write() {
    let (mut st, c) = setup();
    let recount = |st: &Store| PodTally::of(st.objects(Kind::Pod).filter_map(|o| o.as_pod()));
    for n in ["a", "b", "c"] {
        create(&mut st, c, pod(n), 0);
    }
    assert_eq!(st.pod_tally(), PodTally { pending: 3, ..Default::default() });
    let running = |st: &mut Store, name: &str, at: Millis| {
        let uid = st.get(c, Kind::Pod, &key(name)).expect("get").meta().uid.clone();
        let mut p = (*st.bind(c, &key(name), &uid, "node-1", at).expect("bind")).clone();
        if let Object::Pod(p) = &mut p {
            p.status.phase = PodPhase::Running;
        }
        st.update(c, p, Subresource::Status, at).expect("status")
    };
    running(&mut st, "a", 1);
    running(&mut st, "b", 2);
    assert_eq!(st.pod_tally(), recount(&st));
    assert_eq!((st.pod_tally().running, st.pod_tally().pending), (2, 1));
    st.delete(c, Kind::Pod, &key("a"), &DeleteOptions::default(), 3).expect("delete");
    st.delete(c, Kind::Pod, &key("c"), &DeleteOptions::default(), 4).expect("delete");
    assert_eq!(st.pod_tally(), recount(&st));
    let t = st.pod_tally();
    assert_eq!(t.running + t.pending + t.terminating, st.count_of(Kind::Pod));
    // a was bound: its deletion is graceful (terminating); c never was: it is gone at once.
    assert_eq!(t, PodTally { running: 1, terminating: 1, ..Default::default() });
    // The tally of each node's pods equals a count of the pods bound there; unbound pods are on no node.
    let on = |st: &Store, n: &str| PodTally::of(st.pods_on_node(n).filter_map(|o| o.as_pod()));
    assert_eq!(st.pod_tally_on_node("node-1"), on(&st, "node-1"));
    assert_eq!(st.pod_tally_on_node("node-1"), t);
    create(&mut st, c, pod("d"), 5);
    assert_eq!(st.pod_tally_on_node("node-1"), t);
    assert_eq!(st.pod_tally_on_node(""), PodTally::default());
    st.delete(c, Kind::Pod, &key("b"), &DeleteOptions::default(), 6).expect("delete");
    assert_eq!(st.pod_tally_on_node("node-1"), PodTally { terminating: 2, ..Default::default() });
    assert_eq!(st.pod_tally_on_node("node-1"), on(&st, "node-1"));
}

/// names.SimpleNameGenerator: a prefix longer than 58 bytes is cut so that the generated name fits in 63.
#[test]
fn a_long_generate_name_is_cut_to_fit() {
    assert_eq!(crate::api::names::generated_name("web-", "bcdfg"), "web-bcdfg");
    let long = "a".repeat(70);
    let name = crate::api::names::generated_name(&long, "bcdfg");
    assert_eq!((name.len(), &name[58..]), (63, "bcdfg"));
}

// ---- field indexes ---------------------------------------------------------------------------------------------

#[test]
fn each_kind_keeps_the_field_index_its_registry_row_names_and_answers_its_selector_from_it() {
    for kind in Kind::ALL {
        let field = kind.info().field_index;
        for filter in [WatchFilter::NodeName(s("n1")), WatchFilter::InvolvedObject(s("Pod"), s("a"))] {
            let answered = field.is_some_and(|f| Index::answers(f, &filter));
            assert_eq!(Store::indexed(kind, &filter), answered, "{kind} {filter:?}");
        }
    }
    assert_eq!(Kind::Pod.info().field_index, Some(crate::api::FieldIndex::PodNodeName));
    assert_eq!(Kind::Event.info().field_index, Some(crate::api::FieldIndex::EventInvolvedObject));
    let (mut st, c) = setup();
    bound_pod(&mut st, c, "a", "n1");
    bound_pod(&mut st, c, "b", "n2");
    let moved = bound_pod(&mut st, c, "c", "n1");
    create(&mut st, c, pod("unbound"), 0);
    let now = DeleteOptions {
        grace_period_seconds: Some(0),
        preconditions_uid: Some(moved.meta().uid.clone()),
        ..Default::default()
    };
    st.delete(c, Kind::Pod, &key("c"), &now, 0).expect("delete");
    assert!(st.peek(Kind::Pod, &key("c")).is_none(), "deleted at once");
    let on = |st: &Store, n: &str| {
        let filter = WatchFilter::NodeName(s(n));
        let indexed: Vec<String> = st.filtered(Kind::Pod, &filter).map(|o| o.meta().name.to_string()).collect();
        let scanned: Vec<String> =
            st.objects(Kind::Pod).filter(|o| filter.matches(o)).map(|o| o.meta().name.to_string()).collect();
        assert_eq!(indexed, scanned, "the index answers as a scan would on {n}");
        indexed
    };
    assert_eq!(on(&st, "n1"), ["a"], "a deleted pod leaves its node's entry");
    assert_eq!(on(&st, "n2"), ["b"]);
    assert!(on(&st, "n3").is_empty());
    assert_eq!(st.pod_tally_on_node("n1").total(), 1);
    st.check_node_tallies().expect("tallies");
}
