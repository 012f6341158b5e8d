//! The envelope, enforced where every client meets it: the API store refuses creates beyond its cap of each kind
//! (a controller's surge, a kubelet, a person), apply counts what every workload declares (whoever owns it), and
//! apply is all or nothing, a document naming an object already named earlier in the set included.

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Object, PodPhase};
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig, MAX_PODS};
use kubeloop_engine::store::Subresource;
use kubeloop_engine::time::{MINUTE, SECOND};

fn cluster_with_pod_cap(cap: usize) -> Sim {
    let mut config = SimConfig { seed: 3, ..Default::default() };
    config.store.caps[Kind::Pod.index()] = cap;
    let mut sim = Sim::new(config);
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

fn rs_owned_by(kind: &str, replicas: u64) -> String {
    format!(
        "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: stray
  ownerReferences:
  - apiVersion: example.com/v1
    kind: {kind}
    name: owner
    uid: 00000000-0000-4000-8000-000000000001
    controller: true
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: stray
  template:
    metadata:
      labels:
        app: stray
    spec:
      containers:
      - name: c
        image: nginx:1.27
"
    )
}

fn web(replicas: i32) -> String {
    common::web(replicas).yaml()
}

fn pod_count(sim: &Sim) -> usize {
    sim.store().count_of(Kind::Pod)
}

/// Regression (issue 9): a ReplicaSet whose controller is of a kind kubeloop does not serve was neither counted
/// by apply (only orphans were) nor collected, so its pods were unbounded.
#[test]
fn apply_counts_a_replicaset_whose_controller_kubeloop_does_not_serve() {
    let mut sim = cluster_with_pod_cap(MAX_PODS);
    let err = kubectl::apply(&mut sim, &rs_owned_by("Foo", 200_000)).expect_err("over the envelope");
    assert!(err.message.contains("kubeloop simulates at most 150000"), "{err}");
    assert_eq!(sim.store().count_of(Kind::ReplicaSet), 0, "nothing written");
    // A Deployment controller that does not exist (a made-up uid) does not hide the replicas either.
    let err = kubectl::apply(&mut sim, &rs_owned_by("Deployment", 200_000)).expect_err("over the envelope");
    assert!(err.message.contains("would declare 200000 pods"), "{err}");
}

/// Whatever a client does, the store holds at most its cap of pods: a ReplicaSet scaled through the API with no
/// kubectl check in the way gets its creates refused, with FailedCreate events saying why.
#[test]
fn the_store_refuses_pods_beyond_its_cap_for_every_client() {
    let mut sim = cluster_with_pod_cap(30);
    kubectl::apply(&mut sim, &rs_owned_by("Foo", 5)).expect("apply");
    sim.run_for(30 * SECOND);
    assert_eq!(pod_count(&sim), 5);
    let key = ObjKey::new("default", "stray");
    sim.as_user(|api| {
        api.patch(Kind::ReplicaSet, &key, Subresource::Main, |o| {
            if let Object::ReplicaSet(r) = o {
                r.spec.replicas = Some(500);
            }
        })
    })
    .expect("patch");
    for _ in 0..20 {
        sim.run_for(15 * SECOND);
        assert!(pod_count(&sim) <= 30, "{} pods", pod_count(&sim));
    }
    assert_eq!(pod_count(&sim), 30);
    // The ReplicaSet's ReplicaFailure condition says why (replica_set_utils.go calculateStatus). Its
    // FailedCreate events may not: the SuccessfulCreate ones spent the recorder's spam budget for the ReplicaSet
    // (client-go's EventSourceObjectSpamFilter: 25, then one per 5 minutes).
    let rs = sim.store().peek(Kind::ReplicaSet, &key).and_then(|o| o.as_replicaset().cloned()).expect("rs");
    let failure = rs.status.conditions.iter().find(|c| &*c.type_ == "ReplicaFailure").expect("ReplicaFailure");
    assert_eq!(&*failure.reason, "FailedCreate");
    assert!(failure.message.contains("kubeloop simulates at most 30 pods"), "{failure:?}");
    let about_rs = sim
        .store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.involved_object.name == "stray")
        .count();
    assert!(about_rs <= 27, "the spam filter bounds the events about one object: {about_rs}");
    // A person's create is refused the same way.
    let bare =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: one-more\nspec:\n  containers:\n  - name: c\n    image: x\n";
    let out = kubectl::run(&mut sim, "create -f -", &Input { stdin: Some(bare), ..Input::none() });
    assert_eq!(out.code, 1);
    assert!(out.text().contains("kubeloop simulates at most 30 pods"), "{}", out.text());
}

/// A rolling update at the cap: the surge pods count too. The rollout still completes (maxUnavailable makes room)
/// and the cap is never exceeded. Refused creates are errors, which the ReplicaSet controller retries through
/// its rate limiter (5 ms doubling to 1000 s, as upstream's `AddRateLimited`), and at a full cap nothing else
/// may enqueue the new ReplicaSet: depending on the seed's timing the rollout can wait out a long backoff, so the
/// run is given two hours.
#[test]
fn a_rollout_at_the_cap_surges_within_it_and_completes() {
    let mut sim = cluster_with_pod_cap(12);
    kubectl::apply(&mut sim, &web(12)).expect("apply");
    sim.run_for(MINUTE);
    assert!(sim.deployments_fulfilled());
    let out = kubectl::run(&mut sim, "set image deployment/web nginx=nginx:1.28", &Input::none());
    assert_eq!(out.code, 0, "{}", out.text());
    // Creates refused at the cap are errors, retried with the controllers' rate limiter (5 ms doubling up to
    // 1000 s, as upstream's are with quota errors): the rollout completes, but may wait out a backoff.
    let updated = |sim: &Sim| {
        sim.store()
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .filter(|p| p.status.phase == PodPhase::Running && &*p.spec.containers[0].image == "nginx:1.28")
            .count()
    };
    let mut most = 0;
    for _ in 0..2 * 3600 {
        sim.run_for(SECOND);
        most = most.max(pod_count(&sim));
        if updated(&sim) == 12 && sim.deployments_converged() {
            break;
        }
    }
    assert!(most <= 12, "at most the cap: {most}");
    assert_eq!(updated(&sim), 12, "the rollout completed");
    assert!(sim.deployments_converged());
}

/// Regression (issue 9): apply wrote the first of two documents naming the same object, then failed on the second
/// (AlreadyExists). kubectl applies them in order: created, then configured; kubeloop plans the whole set that way
/// before writing anything.
#[test]
fn apply_of_an_object_named_twice_creates_then_configures_it() {
    let mut sim = cluster_with_pod_cap(MAX_PODS);
    let text = format!("{}---\n{}", web(2), web(4));
    let report = kubectl::apply(&mut sim, &text).expect("apply");
    assert_eq!(report.to_string(), "deployment.apps/web created\ndeployment.apps/web configured\n");
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).expect("web");
    assert_eq!(d.as_deployment().and_then(|d| d.spec.replicas), Some(4));
    // The same document twice: created, then unchanged.
    let mut sim = cluster_with_pod_cap(MAX_PODS);
    let report = kubectl::apply(&mut sim, &format!("{}---\n{}", web(2), web(2))).expect("apply");
    assert_eq!(report.to_string(), "deployment.apps/web created\ndeployment.apps/web unchanged\n");
}

/// Object by object, as kubectl applies them: a later document that cannot be applied (an immutable field changed
/// against an earlier document of the same set, or a bad document after a duplicate) fails alone, and the earlier
/// ones are written.
#[test]
fn a_bad_document_after_a_duplicate_fails_alone() {
    let mut sim = cluster_with_pod_cap(MAX_PODS);
    let changed_selector = web(2)
        .replace("app: web\n  template", "app: other\n  template")
        .replace("labels:\n        app: web", "labels:\n        app: other");
    let report = kubectl::apply_each(&mut sim, &format!("{}---\n{}", web(2), changed_selector));
    let [err] = report.errors.as_slice() else { panic!("one error: {report}") };
    assert!(err.message.contains("field is immutable"), "{err}");
    assert_eq!(err.document, 2);
    assert_eq!(report.to_string().lines().next(), Some("deployment.apps/web created"));
    let mut sim = cluster_with_pod_cap(MAX_PODS);
    let bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n";
    let report = kubectl::apply_each(&mut sim, &format!("{}---\n{}---\n{bad}", web(2), web(3)));
    let [err] = report.errors.as_slice() else { panic!("one error: {report}") };
    assert_eq!(err.document, 3, "{err}");
    let results: Vec<String> = report.results.iter().map(ToString::to_string).collect();
    assert_eq!(results, ["deployment.apps/web created", "deployment.apps/web configured"]);
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).expect("web");
    assert_eq!(d.as_deployment().and_then(|d| d.spec.replicas), Some(3));
    assert_eq!(sim.store().count_of(Kind::Pod), 0, "the bad pod is not written");
}
