//! Informer (reflector + indexer + handlers) semantics, after client-go tools/cache. Each test names the upstream
//! behaviour it reproduces (paths under staging/src/k8s.io/client-go).

use super::*;
use crate::api::{s, Container, LabelSelectorRequirement, Labels, ObjectMeta, Operator, OwnerReference, Pod, PodSpec};
use crate::store::{DeleteOptions, StoreConfig, Subresource};

const FAR: Millis = 1 << 40;

fn setup() -> (Store, ClientId, Informer) {
    setup_with(StoreConfig::default(), true)
}

fn setup_with(config: StoreConfig, label_index: bool) -> (Store, ClientId, Informer) {
    let mut st = Store::new(config, 1);
    let c = st.register_client("controller-manager");
    (st, c, Informer::new(Kind::Pod, WatchFilter::All, c, label_index, Rng::new(7)))
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (s(k), s(v))).collect()
}

fn owner(uid: &str, controller: bool) -> OwnerReference {
    OwnerReference {
        api_version: s("apps/v1"),
        kind: s("ReplicaSet"),
        name: s(uid),
        uid: s(uid),
        controller: controller.then_some(true),
        block_owner_deletion: None,
    }
}

fn pod_in(ns: &str, name: &str, lbls: &[(&str, &str)], owners: Vec<OwnerReference>) -> Object {
    let metadata = ObjectMeta { labels: labels(lbls), owner_references: owners, ..ObjectMeta::named(ns, name) };
    let containers = vec![Container { name: s("app"), image: s("nginx:1.25"), ..Default::default() }];
    Object::Pod(Pod {
        metadata,
        spec: std::rc::Rc::new(PodSpec { containers: containers.into(), ..Default::default() }),
        ..Default::default()
    })
}

fn pod(name: &str) -> Object {
    pod_in("default", name, &[], Vec::new())
}

fn key(name: &str) -> ObjKey {
    ObjKey::new("default", name)
}

fn create(st: &mut Store, c: ClientId, obj: Object) -> Rc<Object> {
    st.create(c, obj, 0).expect("create")
}

/// Re-reads `name` and writes it back changed by `f`.
fn modify(st: &mut Store, c: ClientId, name: &str, f: impl FnOnce(&mut Object)) -> Rc<Object> {
    let mut o = (**st.peek(Kind::Pod, &key(name)).expect("exists")).clone();
    f(&mut o);
    st.update(c, o, Subresource::Main, 0).expect("update")
}

fn delete_now(st: &mut Store, c: ClientId, name: &str) {
    let zero = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    st.delete(c, Kind::Pod, &key(name), &zero, 0).expect("delete");
}

/// Delivers every buffered watch event to the informer (the simulation's drain at a time far after they are due).
fn deliver(st: &mut Store, inf: &mut Informer) -> Vec<InformerEvent> {
    let Some(id) = inf.watcher() else { return Vec::new() };
    let (evs, _) = st.drain_watch(id, FAR);
    inf.on_watch_events(evs)
}

/// `add a`, `update a`, `delete a`, `delete? a` (DeletedFinalStateUnknown).
fn summary(evs: &[InformerEvent]) -> Vec<String> {
    evs.iter()
        .map(|e| {
            let what = match e {
                InformerEvent::Add(_) => "add",
                InformerEvent::Update(..) => "update",
                InformerEvent::Delete(_, false) => "delete",
                InformerEvent::Delete(_, true) => "delete?",
            };
            format!("{what} {}", e.object().meta().name)
        })
        .collect()
}

fn names<'a>(objs: impl IntoIterator<Item = &'a Rc<Object>>) -> Vec<String> {
    objs.into_iter().map(|o| o.meta().name.to_string()).collect()
}

fn synced(names_: &[&str]) -> (Store, ClientId, Informer) {
    let (mut st, c, mut inf) = setup();
    for n in names_ {
        create(&mut st, c, pod(n));
    }
    inf.list_and_watch(&mut st).expect("list and watch");
    (st, c, inf)
}

// ---- reflector -----------------------------------------------------------------------------------------------

#[test]
fn list_and_watch_fills_the_cache_delivers_adds_and_is_synced() {
    // tools/cache/reflector.go ListAndWatch: LIST, Replace the store (DeltaFIFO -> OnAdd for new keys), then WATCH
    // from the list's resourceVersion; HasSynced once the first list is processed.
    let (mut st, c, mut inf) = setup();
    for n in ["c", "a", "b"] {
        create(&mut st, c, pod(n));
    }
    assert!(!inf.has_synced);
    let evs = inf.list_and_watch(&mut st).expect("list and watch");
    assert_eq!(summary(&evs), ["add a", "add b", "add c"]);
    assert_eq!(inf.cache.len(), 3);
    assert!(inf.has_synced);
    assert_eq!(inf.last_rv, st.resource_version());
    assert!(matches!(inf.state, ReflectorState::Watching(_)));
    assert_eq!((inf.stats.lists, inf.stats.relists, inf.stats.watches), (1, 0, 1));
    let api = st.counters(c);
    assert_eq!((api.list_calls, api.list_items, api.watches_opened), (1, 3, 1));
    assert_eq!(inf.drift(&st), 0);
}

#[test]
fn watch_events_update_the_cache_and_last_resource_version() {
    // reflector.go watchHandler: ADDED -> store.Add, MODIFIED -> store.Update, DELETED -> store.Delete, and
    // setLastSyncResourceVersion to each event's resourceVersion.
    let (mut st, c, mut inf) = synced(&["a", "b"]);
    create(&mut st, c, pod("n"));
    let a = modify(&mut st, c, "a", |o| o.meta_mut().labels = labels(&[("v", "2")]));
    delete_now(&mut st, c, "b");
    let evs = deliver(&mut st, &mut inf);
    assert_eq!(summary(&evs), ["add n", "update a", "delete b"]);
    if let InformerEvent::Update(old, new) = &evs[1] {
        assert!(old.meta().resource_version < new.meta().resource_version);
        assert!(!evs[1].is_resync());
    }
    assert_eq!(names(inf.cache.list()), ["a", "n"]);
    assert_eq!(inf.cache.get(&key("a")).map(|o| o.meta().resource_version), Some(a.meta().resource_version));
    assert_eq!(inf.last_rv, st.resource_version());
    assert_eq!(inf.stats.events_received, 3);
    assert_eq!(inf.drift(&st), 0);
}

#[test]
fn rewatch_after_a_disconnect_resumes_from_the_last_resource_version_without_a_list() {
    // reflector.go: a watch that ends without an error is re-opened from LastSyncResourceVersion; the events
    // missed meanwhile come from the watch cache's history, no relist.
    let (mut st, c, mut inf) = synced(&["a"]);
    create(&mut st, c, pod("b"));
    deliver(&mut st, &mut inf);
    create(&mut st, c, pod("missed"));
    let lists = st.counters(c).list_calls;
    inf.rewatch(&mut st).expect("rewatch");
    assert_eq!(st.open_watchers(), 1, "the old watch was closed");
    let evs = deliver(&mut st, &mut inf);
    assert_eq!(summary(&evs), ["add missed"]);
    assert_eq!(st.counters(c).list_calls, lists);
    assert_eq!((inf.stats.watches, inf.stats.relists, inf.stats.gone), (2, 0, 0));
    assert_eq!(inf.drift(&st), 0);
}

#[test]
fn rewatch_from_a_compacted_resource_version_fails_with_gone_and_a_relist_repairs() {
    // reflector.go: a 410 "too old resource version" (isExpiredError) ends the watch and forces a full relist.
    let config = StoreConfig { watch_history_min: 2, watch_history_max: 3, ..Default::default() };
    let (mut st, c, mut inf) = setup_with(config, true);
    create(&mut st, c, pod("a"));
    inf.list_and_watch(&mut st).expect("list and watch");
    for i in 0..5 {
        create(&mut st, c, pod(&format!("p{i}")));
    }
    let err = inf.rewatch(&mut st).expect_err("history is gone");
    assert_eq!(err.code(), 410);
    assert!(err.to_string().starts_with("too old resource version"), "{err}");
    assert_eq!(inf.stats.gone, 1);
    assert_eq!(inf.state, ReflectorState::Listing);
    assert_eq!(inf.watcher(), None);
    let evs = inf.list_and_watch(&mut st).expect("relist");
    assert_eq!(summary(&evs), ["update a", "add p0", "add p1", "add p2", "add p3", "add p4"]);
    assert_eq!((inf.stats.lists, inf.stats.relists), (2, 1));
    assert_eq!(inf.drift(&st), 0);
}

#[test]
fn next_backoff_starts_at_800ms_doubles_and_caps_at_30s_with_jitter() {
    // reflector.go NewReflectorWithOptions: backoff manager NewExponentialBackoffManager(800ms, 30s, 2m, 2.0,
    // 1.0): each wait is base * (1 + jitter), jitter up to +100%.
    let (_, _, mut inf) = setup();
    for base in [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000] {
        let wait = inf.next_backoff();
        assert!((base..=2 * base).contains(&wait), "{wait} for base {base}");
    }
    assert_eq!(inf.backoff, RELIST_BACKOFF_MAX);
}

#[test]
fn a_successful_list_resets_the_backoff() {
    // The backoff manager restarts at its initial value once a ListAndWatch succeeds.
    let (mut st, _, mut inf) = setup();
    for _ in 0..4 {
        inf.next_backoff();
    }
    assert!(inf.backoff > RELIST_BACKOFF_INITIAL);
    inf.list_and_watch(&mut st).expect("list and watch");
    assert_eq!(inf.backoff, RELIST_BACKOFF_INITIAL);
}

#[test]
fn stop_clears_the_cache_and_closes_the_watch() {
    // A dead process loses its informer memory: the next start lists from scratch and is not synced before.
    let (mut st, _, mut inf) = synced(&["a", "b"]);
    assert_eq!(st.open_watchers(), 1);
    inf.stop(&mut st);
    assert!(inf.cache.is_empty());
    assert_eq!(inf.cache.by_namespace("default").count(), 0);
    assert!(!inf.has_synced);
    assert_eq!((inf.state, inf.last_rv, inf.epoch), (ReflectorState::Stopped, 0, 1));
    assert_eq!(st.open_watchers(), 0);
    assert_eq!(inf.drift(&st), 0, "a stopped informer is not stale");
}

// ---- indexes -------------------------------------------------------------------------------------------------

#[test]
fn by_owner_indexes_only_the_controller_owner_reference_uid() {
    // controller_utils / metav1.GetControllerOf: the owner that counts is the reference with controller=true.
    let (mut st, c, mut inf) = setup();
    create(&mut st, c, pod_in("default", "mine", &[], vec![owner("rs-1", true)]));
    create(&mut st, c, pod_in("default", "not-controller", &[], vec![owner("rs-1", false)]));
    create(&mut st, c, pod_in("default", "other", &[], vec![owner("rs-1", false), owner("rs-2", true)]));
    create(&mut st, c, pod("orphan"));
    inf.list_and_watch(&mut st).expect("list and watch");
    assert_eq!(names(inf.cache.by_owner("rs-1")), ["mine"]);
    assert_eq!(names(inf.cache.by_owner("rs-2")), ["other"]);
    assert_eq!(inf.cache.by_owner("rs-3").count(), 0);
}

#[test]
fn by_node_and_by_namespace_index_pods() {
    // tools/cache/index.go MetaNamespaceIndexFunc, and the scheduler's / kubelet's pods-by-nodeName lookups.
    let (mut st, c, mut inf) = setup();
    for (ns, name, node) in
        [("default", "a", "n1"), ("kube-system", "b", "n1"), ("default", "c", "n2"), ("default", "d", "")]
    {
        let p = create(&mut st, c, pod_in(ns, name, &[], Vec::new()));
        if !node.is_empty() {
            st.bind(c, &p.key(), &p.meta().uid, node, 0).expect("bind");
        }
    }
    inf.list_and_watch(&mut st).expect("list and watch");
    assert_eq!(names(inf.cache.by_node("n1")), ["a", "b"]);
    assert_eq!(names(inf.cache.by_node("n2")), ["c"]);
    assert_eq!(inf.cache.by_node("").count(), 0, "unbound pods are in no node bucket");
    assert_eq!(names(inf.cache.by_namespace("default")), ["a", "c", "d"]);
    assert_eq!(names(inf.cache.by_namespace("kube-system")), ["b"]);
}

#[test]
fn select_finds_label_matches_in_the_namespace_with_or_without_the_label_index() {
    // tools/cache/listers.go ListAllByNamespace: objects of the namespace whose labels match the selector
    // (matchLabels and matchExpressions); an index only narrows the candidates.
    for label_index in [true, false] {
        let (mut st, c, mut inf) = setup_with(StoreConfig::default(), label_index);
        create(&mut st, c, pod_in("default", "a", &[("app", "web"), ("tier", "fe")], Vec::new()));
        create(&mut st, c, pod_in("default", "b", &[("app", "web"), ("tier", "be")], Vec::new()));
        create(&mut st, c, pod_in("default", "c", &[("app", "db")], Vec::new()));
        create(&mut st, c, pod_in("kube-system", "d", &[("app", "web")], Vec::new()));
        inf.list_and_watch(&mut st).expect("list and watch");
        let web = LabelSelector::from_labels(labels(&[("app", "web")]));
        assert_eq!(names(inf.cache.select("default", &web)), ["a", "b"], "label_index={label_index}");
        assert_eq!(names(inf.cache.select("kube-system", &web)), ["d"]);
        let not_be = LabelSelector {
            match_labels: labels(&[("app", "web")]),
            match_expressions: vec![LabelSelectorRequirement {
                key: s("tier"),
                operator: Operator::NotIn,
                values: vec![s("be")],
            }],
        };
        assert_eq!(names(inf.cache.select("default", &not_be)), ["a"]);
        let in_set = LabelSelector {
            match_expressions: vec![LabelSelectorRequirement {
                key: s("app"),
                operator: Operator::In,
                values: vec![s("db"), s("web")],
            }],
            ..Default::default()
        };
        assert_eq!(names(inf.cache.select("default", &in_set)), ["a", "b", "c"]);
        let nothing = LabelSelector::from_labels(labels(&[("app", "none")]));
        assert!(inf.cache.select("default", &nothing).is_empty());
    }
}

#[test]
fn index_entries_move_when_labels_owner_or_node_change_and_vanish_on_delete() {
    // tools/cache/thread_safe_store.go updateIndices: on update the old index values are removed and the new ones
    // added; on delete every index entry goes.
    let (mut st, c, mut inf) = setup();
    let p = create(&mut st, c, pod_in("default", "p", &[("app", "a")], vec![owner("rs-1", true)]));
    inf.list_and_watch(&mut st).expect("list and watch");
    let sel = |v: &str| LabelSelector::from_labels(labels(&[("app", v)]));
    modify(&mut st, c, "p", |o| {
        o.meta_mut().labels = labels(&[("app", "b")]);
        o.meta_mut().owner_references = vec![owner("rs-2", true)];
    });
    st.bind(c, &key("p"), &p.meta().uid, "n1", 0).expect("bind");
    deliver(&mut st, &mut inf);
    assert!(inf.cache.select("default", &sel("a")).is_empty());
    assert_eq!(names(inf.cache.select("default", &sel("b"))), ["p"]);
    assert_eq!(inf.cache.by_owner("rs-1").count(), 0);
    assert_eq!(names(inf.cache.by_owner("rs-2")), ["p"]);
    assert_eq!(names(inf.cache.by_node("n1")), ["p"]);
    delete_now(&mut st, c, "p");
    deliver(&mut st, &mut inf);
    assert!(inf.cache.select("default", &sel("b")).is_empty());
    assert_eq!(inf.cache.by_owner("rs-2").count(), 0);
    assert_eq!(inf.cache.by_node("n1").count(), 0);
    assert_eq!(inf.cache.by_namespace("default").count(), 0);
    assert!(inf.cache.by_label.is_empty() && inf.cache.by_owner.is_empty() && inf.cache.by_node.is_empty());
}

// ---- resync, faults, relist ----------------------------------------------------------------------------------

#[test]
fn resync_redelivers_every_cached_object_as_an_update_in_key_order_without_api_calls() {
    // tools/cache/shared_informer.go resyncCheckPeriod + DeltaFIFO.Resync: Sync deltas from the local store, so
    // OnUpdate(old, new) with old == new; no request reaches the API server.
    let (mut st, c, mut inf) = synced(&["c", "a", "b"]);
    create(&mut st, c, pod("unseen"));
    assert_eq!(inf.drift(&st), 0, "an event on its way is not drift");
    inf.drop_fraction = 1.0;
    deliver(&mut st, &mut inf);
    let api = st.counters(c).clone();
    let evs = inf.resync();
    assert_eq!(summary(&evs), ["update a", "update b", "update c"], "the cache, not the server");
    assert!(evs.iter().all(|e| e.is_resync() && e.old().is_some_and(|o| Rc::ptr_eq(o, e.object()))));
    assert_eq!(st.counters(c), &api);
    assert_eq!(inf.stats.resyncs, 1);
    assert_eq!(inf.drift(&st), 1, "resync does not repair staleness");
}

#[test]
fn dropped_watch_events_leave_the_cache_stale_until_a_relist_repairs_it() {
    // Sieve-style "missed events" fault. Resync cannot repair a stale cache; a relist does: DeltaFIFO.Replace
    // delivers updates for listed objects and DeletedFinalStateUnknown for keys that vanished.
    let (mut st, c, mut inf) = synced(&["a", "b", "c"]);
    inf.drop_fraction = 1.0;
    create(&mut st, c, pod("d"));
    modify(&mut st, c, "a", |o| o.meta_mut().labels = labels(&[("v", "2")]));
    delete_now(&mut st, c, "c");
    assert!(deliver(&mut st, &mut inf).is_empty());
    assert_eq!((inf.stats.events_received, inf.stats.events_dropped), (3, 3));
    assert_eq!(names(inf.cache.list()), ["a", "b", "c"]);
    assert_eq!(inf.drift(&st), 3, "a stale, c extra, d missing");

    // Measured a part at a time, whatever the part's size, the parts add up to the whole, each visiting at most
    // its budget, the store's objects then the cache's.
    for budget in 1..=8 {
        let (mut drift, mut parts, mut at) = (0, 0, crate::informer::DriftCursor::Start);
        loop {
            let part = inf.drift_part(&st, &at, budget);
            assert!(part.visited <= budget, "{part:?}");
            (drift, parts) = (drift + part.drift, parts + 1);
            match part.next {
                Some(next) => at = next,
                None => break,
            }
        }
        assert_eq!(drift, 3, "budget {budget}");
        assert_eq!(parts, 6usize.div_ceil(budget), "a, b, d in the store, a, b, c in the cache: budget {budget}");
    }
    let whole = inf.drift_part(&st, &crate::informer::DriftCursor::Start, usize::MAX);
    assert_eq!((whole.drift, whole.visited, whole.next), (3, 6, None));

    inf.drop_fraction = 0.0;
    let evs = inf.list_and_watch(&mut st).expect("relist");
    assert_eq!(summary(&evs), ["update a", "update b", "add d", "delete? c"]);
    if let InformerEvent::Update(old, new) = &evs[0] {
        assert!(old.meta().resource_version < new.meta().resource_version, "a changed");
    }
    assert!(evs[1].is_resync(), "b did not change");
    assert_eq!(names(inf.cache.list()), ["a", "b", "d"]);
    assert_eq!(inf.drift(&st), 0);
    assert_eq!(inf.stats.relists, 1);
}

#[test]
fn delete_of_an_unknown_key_is_not_delivered() {
    // tools/cache/delta_fifo.go Delete: if the key is neither in knownObjects (the indexer) nor queued, the
    // delete is dropped ("Presumably, this was deleted when a relist happened").
    let (mut st, c, mut inf) = synced(&[]);
    inf.drop_fraction = 1.0;
    create(&mut st, c, pod("ghost"));
    deliver(&mut st, &mut inf);
    inf.drop_fraction = 0.0;
    delete_now(&mut st, c, "ghost");
    let evs = deliver(&mut st, &mut inf);
    assert!(evs.is_empty(), "{:?}", summary(&evs));
}

/// The last watch events an informer received are kept for observers (bounded), dropped ones marked as such; an
/// informer not asked to keep them keeps none.
#[test]
fn recent_watch_events_are_kept_bounded_and_marked_when_dropped() {
    let (mut st, c, mut inf) = setup();
    let mut plain = Informer::new(Kind::Pod, WatchFilter::All, c, true, Rng::new(8));
    inf.keep_recent();
    inf.list_and_watch(&mut st).expect("list");
    plain.list_and_watch(&mut st).expect("list");
    for i in 0..10 {
        create(&mut st, c, pod(&format!("p{i}")));
    }
    deliver(&mut st, &mut inf);
    deliver(&mut st, &mut plain);
    let names: Vec<String> = inf.recent().map(|r| r.name.to_string()).collect();
    assert_eq!(names, (2..10).map(|i| format!("p{i}")).collect::<Vec<_>>(), "the last {RECENT_EVENTS}");
    assert!(inf.recent().all(|r| r.type_ == EventType::Added && !r.dropped));
    assert_eq!(plain.recent().count(), 0);
    inf.set_drop_fraction(1.0);
    delete_now(&mut st, c, "p9");
    deliver(&mut st, &mut inf);
    let last = inf.recent().last().expect("an event").clone();
    assert_eq!((last.type_, &*last.name, last.dropped), (EventType::Deleted, "p9", true));
    assert_eq!(inf.recent().count(), RECENT_EVENTS);
}

/// `pod_in` with a Ready condition turned True at `ready_since` (none: not ready).
fn pod_ready(name: &str, lbls: &[(&str, &str)], owner_uid: &str, ready_since: Option<Millis>) -> Rc<Object> {
    let mut o = pod_in("default", name, lbls, vec![owner(owner_uid, true)]);
    if let (Object::Pod(p), Some(t)) = (&mut o, ready_since) {
        p.status.conditions.push(crate::api::PodCondition {
            type_: s("Ready"),
            status: s("True"),
            last_transition_time: Some(crate::api::Time(t)),
            ..Default::default()
        });
    }
    Rc::new(o)
}

/// The groups of `uid` as `(labels, pods, active, ready)`.
fn groups(cache: &Cache, uid: &str) -> Vec<(Vec<String>, usize, usize, usize)> {
    let text = |l: &Labels| l.iter().map(|(k, v)| format!("{k}={v}")).collect();
    cache.pod_groups(uid).iter().map(|g| (text(&g.labels), g.pods, g.active, g.ready)).collect()
}

/// The pods of each controller are counted by labels and readiness as they come, change and go, and the counts
/// are what walking them gives.
#[test]
fn pod_groups_count_a_controllers_pods_as_they_change() {
    let mut cache = Cache::new(true);
    let web = [("app", "web")];
    cache.upsert(pod_ready("a", &web, "rs-1", None));
    cache.upsert(pod_ready("b", &web, "rs-1", Some(1_000)));
    cache.upsert(pod_ready("c", &web, "rs-2", Some(1_000)));
    let w = || vec!["app=web".to_string()];
    assert_eq!(groups(&cache, "rs-1"), [(w(), 2, 2, 1)]);
    // Ready now; relabelled into a group of its own; then gone.
    cache.upsert(pod_ready("a", &web, "rs-1", Some(5_000)));
    assert_eq!(groups(&cache, "rs-1"), [(w(), 2, 2, 2)]);
    assert_eq!(cache.pod_groups("rs-1")[0].available(0, 0), 2, "no minReadySeconds: every ready pod");
    assert_eq!(cache.pod_groups("rs-1")[0].available(2, 5_000), 1, "ready at 1 s, not yet at 5 s");
    assert_eq!(cache.pod_groups("rs-1")[0].available(2, 7_000), 2);
    assert_eq!(cache.pod_groups("rs-1")[0].available(10, 7_000), 0, "nothing ready that long ago");
    cache.upsert(pod_ready("a", &[("app", "web"), ("extra", "1")], "rs-1", Some(5_000)));
    assert_eq!(groups(&cache, "rs-1"), [(w(), 1, 1, 1), (vec!["app=web".into(), "extra=1".into()], 1, 1, 1)]);
    cache.check_pod_groups().expect("the counts are the pods'");
    cache.remove(&key("a"));
    cache.remove(&key("b"));
    assert!(cache.pod_groups("rs-1").is_empty(), "no pods, no groups");
    assert_eq!(groups(&cache, "rs-2"), [(w(), 1, 1, 1)]);
    // Terminating: still a pod, no longer active.
    let mut gone = (*pod_ready("c", &web, "rs-2", Some(1_000))).clone();
    gone.meta_mut().deletion_timestamp = Some(crate::api::Time(9_000));
    cache.upsert(Rc::new(gone));
    assert_eq!(groups(&cache, "rs-2"), [(w(), 1, 0, 0)]);
    assert_eq!(cache.pod_groups("rs-2")[0].unfinished, 1);
    cache.check_pod_groups().expect("the counts are the pods'");
}

/// Orphans are found by the selector's labels, and Services by the labels a pod carries: only candidates that
/// share a pair are looked at.
#[test]
fn orphans_and_selecting_services_are_looked_up_by_label_pair() {
    let mut cache = Cache::new(true);
    for i in 0..5 {
        cache.upsert(Rc::new(pod_in("default", &format!("other-{i}"), &[("app", "other")], Vec::new())));
    }
    cache.upsert(Rc::new(pod_in("default", "lost", &[("app", "web")], Vec::new())));
    cache.upsert(Rc::new(pod_in("team", "elsewhere", &[("app", "web")], Vec::new())));
    let web = LabelSelector::from_labels(labels(&[("app", "web")]));
    let before = cache.visited();
    assert_eq!(names(cache.select_orphans("default", &web)), ["lost"]);
    assert_eq!(cache.visited() - before, 2, "the two orphans labelled app=web, not the five others");
    let mut services = Cache::new(true);
    let svc = |name: &str, sel: &[(&str, &str)]| {
        let mut s = crate::api::Service { metadata: ObjectMeta::named("default", name), ..Default::default() };
        s.spec.selector = labels(sel);
        Rc::new(Object::Service(s))
    };
    services.upsert(svc("web", &[("app", "web")]));
    services.upsert(svc("web-canary", &[("app", "web"), ("track", "canary")]));
    services.upsert(svc("all", &[]));
    for i in 0..5 {
        services.upsert(svc(&format!("other-{i}"), &[("app", &format!("other-{i}"))]));
    }
    let before = services.visited();
    let found = services.services_selecting("default", &labels(&[("app", "web"), ("track", "canary")]));
    assert_eq!(names(found), ["web", "web-canary"]);
    assert_eq!(services.visited() - before, 2);
    let found = services.services_selecting("default", &labels(&[("app", "web")]));
    assert_eq!(names(found), ["web"], "web-canary wants track=canary too");
    // A changed selector moves the Service.
    services.upsert(svc("web", &[("app", "api")]));
    assert_eq!(names(services.services_selecting("default", &labels(&[("app", "web")]))), Vec::<String>::new());
    assert_eq!(names(services.services_selecting("default", &labels(&[("app", "api")]))), ["web"]);
}
