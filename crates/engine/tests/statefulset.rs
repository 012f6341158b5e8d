//! The statefulset controller (pkg/controller/statefulset) with claims from volumeClaimTemplates, bound by the
//! persistent volume binder to volumes kubeloop's own provisioner makes: the documentation's `web` example comes up
//! in order, scales down from the highest ordinal, keeps or deletes its claims by the retention policy, runs in
//! parallel, updates down to its partition, halts on a pod that never gets ready; budgets read its scale; the API
//! server's defaults and validation; kubectl's tables.

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Pod, Stored};
use kubeloop_engine::behaviour::BehaviourPatch;
use kubeloop_engine::intervention::{AppAction, AppTarget, Intervene, Intervention};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

/// Three nodes and kube-system's add-ons (among them kind's default StorageClass `standard`).
fn cluster() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 34, ..Default::default() });
    for i in 1..=3 {
        sim.add_node(NodeConfig { name: format!("node-{i}"), ..Default::default() }).expect("node");
    }
    kubeloop_engine::addons::install(&mut sim).expect("add-ons");
    sim
}

const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: nginx\n  labels:\n    app: nginx\nspec:\n  ports:\n  - port: 80\n    name: web\n  clusterIP: None\n  selector:\n    app: nginx\n";

/// The documentation's `web` StatefulSet (concepts/workloads/controllers/statefulset), with `extra` in its spec.
fn web(extra: &str, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: nginx\n  serviceName: \"nginx\"\n  replicas: 3\n{extra}  minReadySeconds: 0\n  template:\n    metadata:\n      labels:\n        app: nginx\n    spec:\n      terminationGracePeriodSeconds: 10\n      containers:\n      - name: nginx\n        image: {image}\n        ports:\n        - containerPort: 80\n          name: web\n        readinessProbe:\n          httpGet: {{path: /, port: 80}}\n          periodSeconds: 2\n        volumeMounts:\n        - name: www\n          mountPath: /usr/share/nginx/html\n  volumeClaimTemplates:\n  - metadata:\n      name: www\n    spec:\n      accessModes: [ \"ReadWriteOnce\" ]\n      resources:\n        requests:\n          storage: 1Gi\n"
    )
}

fn apply(sim: &mut Sim, text: &str) {
    kubectl::apply(sim, text).expect("apply");
}

fn pod(sim: &Sim, name: &str) -> Option<Pod> {
    sim.store().peek(Kind::Pod, &ObjKey::new("default", name)).and_then(|o| o.as_pod().cloned())
}

/// The set's pods (not terminating), by name.
fn live(sim: &Sim) -> Vec<String> {
    let mut v: Vec<String> = common::pods(sim)
        .iter()
        .filter(|p| &*p.metadata.namespace == "default" && !p.metadata.is_terminating())
        .map(|p| p.metadata.name.to_string())
        .collect();
    v.sort();
    v
}

fn ready(sim: &Sim) -> Vec<String> {
    let mut v: Vec<String> = common::pods(sim)
        .iter()
        .filter(|p| &*p.metadata.namespace == "default" && p.is_ready() && !p.metadata.is_terminating())
        .map(|p| p.metadata.name.to_string())
        .collect();
    v.sort();
    v
}

fn stored(sim: &Sim, kind: Kind) -> Vec<Stored> {
    sim.store().objects(kind).filter_map(|o| o.as_stored().cloned()).collect()
}

fn text<'a>(o: &'a Stored, path: &str) -> &'a str {
    o.field(path).and_then(|v| v.as_str()).unwrap_or_default()
}

fn claims(sim: &Sim) -> Vec<String> {
    stored(sim, Kind::PersistentVolumeClaim).iter().map(|c| c.metadata.name.to_string()).collect()
}

fn created(p: &Pod) -> Millis {
    p.metadata.creation_timestamp.map_or(0, |t| t.0)
}

fn ready_since(p: &Pod) -> Millis {
    p.condition("Ready").and_then(|c| c.last_transition_time).map_or(Millis::MAX, |t| t.0)
}

fn image_of(sim: &Sim, name: &str) -> String {
    pod(sim, name).map(|p| p.spec.containers[0].image.to_string()).unwrap_or_default()
}

/// Runs one second at a time until `done` holds (at most `limit`), and says whether it did.
fn until(sim: &mut Sim, limit: Millis, done: impl Fn(&Sim) -> bool) -> bool {
    let end = sim.now() + limit;
    while sim.now() < end {
        if done(sim) {
            return true;
        }
        sim.run_for(SECOND);
    }
    done(sim)
}

#[test]
fn web_comes_up_in_order_each_pod_with_its_bound_claim() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("", "registry.k8s.io/nginx-slim:0.21"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3), "{:?}", live(&sim));
    let pods: Vec<Pod> = ["web-0", "web-1", "web-2"].iter().map(|n| pod(&sim, n).expect("pod")).collect();
    // Each pod is made only once the one before it is Running and Ready.
    for w in pods.windows(2) {
        assert!(
            created(&w[1]) >= ready_since(&w[0]),
            "{} made before {} was ready",
            w[1].metadata.name,
            w[0].metadata.name
        );
    }
    let p = &pods[1];
    assert_eq!(&*p.spec.hostname, "web-1");
    assert_eq!(&*p.spec.subdomain, "nginx");
    assert_eq!(p.metadata.labels.get("statefulset.kubernetes.io/pod-name").map(|v| &**v), Some("web-1"));
    assert_eq!(p.metadata.labels.get("apps.kubernetes.io/pod-index").map(|v| &**v), Some("1"));
    let revision = p.metadata.labels.get("controller-revision-hash").expect("revision").to_string();
    assert!(revision.starts_with("web-"), "{revision}");
    let claim = p.spec.volumes[0].persistent_volume_claim.as_ref().expect("a claim volume");
    assert_eq!(&*claim.claim_name, "www-web-1");
    // Each claim was made before its pod, given the default class, and bound to a volume made for it on the pod's
    // node.
    assert_eq!(claims(&sim), ["www-web-0", "www-web-1", "www-web-2"]);
    for c in stored(&sim, Kind::PersistentVolumeClaim) {
        assert_eq!(text(&c, "spec.storageClassName"), "standard");
        assert_eq!(text(&c, "status.phase"), "Bound", "{}", c.metadata.name);
        assert_eq!(text(&c, "status.capacity.storage"), "1Gi");
        let volume = text(&c, "spec.volumeName");
        assert_eq!(volume, format!("pvc-{}", c.metadata.uid));
        let pv = sim.store().peek(Kind::PersistentVolume, &ObjKey::cluster(volume)).expect("its volume");
        let pv = pv.as_stored().expect("stored");
        assert_eq!(text(pv, "status.phase"), "Bound");
        assert_eq!(text(pv, "spec.claimRef.name"), &*c.metadata.name);
        assert_eq!(text(pv, "spec.persistentVolumeReclaimPolicy"), "Delete");
        let ord = c.metadata.name.rsplit('-').next().unwrap_or_default().to_string();
        let node = pod(&sim, &format!("web-{ord}")).map(|p| p.spec.node_name.to_string()).unwrap_or_default();
        assert_eq!(c.metadata.annotation("volume.kubernetes.io/selected-node"), Some(node.as_str()));
        assert!(created(&pods[0]) >= c.metadata.creation_timestamp.map_or(0, |t| t.0) || ord != "0");
    }
    let sts = sim.store().peek(Kind::StatefulSet, &ObjKey::new("default", "web")).expect("sts");
    let st = &sts.as_statefulset().expect("sts").status;
    assert_eq!((st.replicas, st.ready_replicas, st.current_replicas, st.updated_replicas), (3, 3, 3, 3));
    assert_eq!(&*st.current_revision, revision.as_str());
    assert_eq!(st.current_revision, st.update_revision);
    common::check(&mut sim, "sts-get", "get sts -o wide");
    common::check(&mut sim, "sts-get-pvc", "get pvc");
    common::check(&mut sim, "sts-get-sc", "get sc");
    common::check(&mut sim, "sts-get-pv", "get pv");
    common::check(&mut sim, "sts-describe", "describe sts web");
    common::check(&mut sim, "sts-describe-pvc", "describe pvc www-web-0");
    common::check(&mut sim, "sts-describe-sc", "describe sc standard");
    let out = common::kubectl(&mut sim, "rollout status sts/web");
    assert_eq!(out.stdout, "partitioned roll out complete: 3 new pods have been updated...\n");
    let events = common::kubectl(&mut sim, "get events --field-selector involvedObject.kind=StatefulSet").stdout;
    assert!(events.contains("create Claim www-web-0 Pod web-0 in StatefulSet web success"), "{events}");
    assert!(events.contains("create Pod web-0 in StatefulSet web successful"), "{events}");
}

#[test]
fn scaling_down_goes_from_the_highest_ordinal_one_at_a_time_and_keeps_the_claims() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("", "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    let out = common::kubectl(&mut sim, "scale sts web --replicas=1");
    assert_eq!(out.stdout, "statefulset.apps/web scaled\n", "{}", out.text());
    // web-2 goes first; web-1 only once web-2 is gone.
    let mut seen: Vec<Vec<String>> = Vec::new();
    let end = sim.now() + 2 * MINUTE;
    while sim.now() < end {
        let now: Vec<String> = common::pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
        let mut now = now;
        now.sort();
        if seen.last() != Some(&now) {
            seen.push(now);
        }
        sim.run_for(SECOND);
    }
    let web: Vec<Vec<String>> =
        seen.into_iter().map(|v| v.into_iter().filter(|n| n.starts_with("web-")).collect()).collect::<Vec<_>>();
    let mut distinct = web.clone();
    distinct.dedup();
    assert_eq!(distinct, [vec!["web-0", "web-1", "web-2"], vec!["web-0", "web-1"], vec!["web-0"]]);
    assert_eq!(claims(&sim), ["www-web-0", "www-web-1", "www-web-2"], "Retain keeps them");
    // Scaled up again, web-1 gets its old claim back.
    let volume = |sim: &Sim| {
        let c = sim.store().peek(Kind::PersistentVolumeClaim, &ObjKey::new("default", "www-web-1")).expect("claim");
        text(c.as_stored().expect("stored"), "spec.volumeName").to_string()
    };
    let before = volume(&sim);
    common::kubectl(&mut sim, "scale sts web --replicas=2");
    assert!(until(&mut sim, 2 * MINUTE, |s| ready(s).len() == 2));
    assert_eq!(volume(&sim), before);
}

#[test]
fn when_scaled_delete_removes_the_claims_of_the_pods_scaled_away_and_their_volumes() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    let policy = "  persistentVolumeClaimRetentionPolicy:\n    whenScaled: Delete\n";
    apply(&mut sim, &web(policy, "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    assert_eq!(stored(&sim, Kind::PersistentVolume).len(), 3);
    common::kubectl(&mut sim, "scale sts web --replicas=1");
    assert!(until(&mut sim, 3 * MINUTE, |s| claims(s) == ["www-web-0"]), "{:?}", claims(&sim));
    assert!(until(&mut sim, MINUTE, |s| stored(s, Kind::PersistentVolume).len() == 1), "the Delete reclaim policy");
    let yaml = common::kubectl(&mut sim, "get sts web -o yaml").stdout;
    assert!(yaml.contains("whenDeleted: Retain") && yaml.contains("whenScaled: Delete"), "{yaml}");
}

#[test]
fn when_deleted_delete_makes_the_set_own_its_claims() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    let policy = "  persistentVolumeClaimRetentionPolicy:\n    whenDeleted: Delete\n";
    apply(&mut sim, &web(policy, "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    let c = sim.store().peek(Kind::PersistentVolumeClaim, &ObjKey::new("default", "www-web-0")).expect("claim");
    let r = &c.meta().owner_references[0];
    assert_eq!((&*r.kind, &*r.name, r.controller), ("StatefulSet", "web", None));
    common::kubectl(&mut sim, "delete sts web");
    assert!(until(&mut sim, 3 * MINUTE, |s| claims(s).is_empty() && live(s).is_empty()), "{:?}", claims(&sim));
}

#[test]
fn parallel_makes_every_pod_at_once() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("  podManagementPolicy: Parallel\n", "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    let pods: Vec<Pod> = ["web-0", "web-1", "web-2"].iter().map(|n| pod(&sim, n).expect("pod")).collect();
    let first_ready = pods.iter().map(ready_since).min().unwrap_or(0);
    assert!(pods.iter().all(|p| created(p) < first_ready), "all made before any is ready");
}

#[test]
fn a_rolling_update_with_partition_2_updates_only_web_2_from_the_top() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    let partition = "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      partition: 2\n";
    apply(&mut sim, &web(partition, "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    apply(&mut sim, &web(partition, "nginx:2.0"));
    assert!(until(&mut sim, 2 * MINUTE, |s| image_of(s, "web-2") == "nginx:2.0" && ready(s).len() == 3));
    sim.run_for(MINUTE);
    assert_eq!([image_of(&sim, "web-0"), image_of(&sim, "web-1")], ["nginx:1.0", "nginx:1.0"]);
    let out = common::kubectl(&mut sim, "rollout status sts/web");
    assert_eq!(out.stdout, "partitioned roll out complete: 1 new pods have been updated...\n");
    let sts = sim.store().peek(Kind::StatefulSet, &ObjKey::new("default", "web")).expect("sts");
    let st = &sts.as_statefulset().expect("sts").status;
    assert_eq!((st.current_replicas, st.updated_replicas), (2, 1));
    assert_ne!(st.current_revision, st.update_revision);
    let current = st.current_revision.clone();
    // A pod below the partition made again is of the current revision.
    let uid = pod(&sim, "web-0").expect("web-0").metadata.uid.clone();
    common::kubectl(&mut sim, "delete pod web-0 --wait=false");
    assert!(until(&mut sim, 2 * MINUTE, |s| pod(s, "web-0").is_some_and(|p| p.metadata.uid != uid && p.is_ready())));
    assert_eq!(image_of(&sim, "web-0"), "nginx:1.0");
    let p = pod(&sim, "web-0").expect("web-0");
    assert_eq!(p.metadata.labels.get("controller-revision-hash"), Some(&current));
    // The partition lowered to 0: web-1, then web-0.
    apply(&mut sim, &web("", "nginx:2.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| image_of(s, "web-0") == "nginx:2.0" && ready(s).len() == 3));
    sim.run_for(10 * SECOND);
    let sts = sim.store().peek(Kind::StatefulSet, &ObjKey::new("default", "web")).expect("sts");
    let st = &sts.as_statefulset().expect("sts").status;
    assert_eq!(st.current_revision, st.update_revision, "once every pod is updated and ready");
}

#[test]
fn a_pod_that_never_gets_ready_halts_the_ordered_rollout() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("", "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    let patch = BehaviourPatch { readiness_fails: Some(true), ..Default::default() };
    let what = Intervention::App(AppAction {
        target: AppTarget::Image("nginx:broken".into()),
        container: None,
        patch,
        crash: false,
    });
    assert!(sim.intervene(&what, &kubectl::Input::none()).ok());
    apply(&mut sim, &web("", "nginx:broken"));
    sim.run_for(3 * MINUTE);
    assert_eq!(image_of(&sim, "web-2"), "nginx:broken");
    assert_eq!([image_of(&sim, "web-0"), image_of(&sim, "web-1")], ["nginx:1.0", "nginx:1.0"], "halted at web-2");
    assert_eq!(ready(&sim), ["web-0", "web-1"]);
    let out = common::kubectl(&mut sim, "rollout status sts/web --watch=false");
    assert_eq!(out.stdout, "Waiting for 1 pods to be ready...\n");
}

/// A pod deleted by hand comes back with its name (a new uid), its claim still its own.
#[test]
fn a_deleted_pod_is_made_again_with_its_name_and_claim() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("", "nginx:1.0"));
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    let uid = pod(&sim, "web-1").expect("web-1").metadata.uid.clone();
    common::kubectl(&mut sim, "delete pod web-1 --wait=false");
    assert!(until(&mut sim, 2 * MINUTE, |s| pod(s, "web-1").is_some_and(|p| p.metadata.uid != uid && p.is_ready())));
    let p = pod(&sim, "web-1").expect("web-1");
    let claim = p.spec.volumes[0].persistent_volume_claim.as_ref().map(|c| c.claim_name.to_string());
    assert_eq!(claim.as_deref(), Some("www-web-1"));
    assert_eq!(claims(&sim).len(), 3);
}

#[test]
fn a_budget_with_max_unavailable_reads_the_sets_scale() {
    let mut sim = cluster();
    apply(&mut sim, SERVICE);
    apply(&mut sim, &web("", "nginx:1.0"));
    apply(&mut sim, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: nginx}\n");
    assert!(until(&mut sim, 3 * MINUTE, |s| ready(s).len() == 3));
    sim.run_for(10 * SECOND);
    let pdb = sim.store().peek(Kind::PodDisruptionBudget, &ObjKey::new("default", "web")).expect("pdb");
    let st = &pdb.as_pdb().expect("pdb").status;
    assert_eq!((st.expected_pods, st.desired_healthy, st.disruptions_allowed), (3, 2, 1));
}

#[test]
fn a_pod_whose_claim_does_not_exist_stays_pending() {
    let mut sim = cluster();
    let pod_text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lonely\nspec:\n  containers:\n  - name: c\n    image: nginx\n  volumes:\n  - name: data\n    persistentVolumeClaim:\n      claimName: missing\n";
    apply(&mut sim, pod_text);
    sim.run_for(30 * SECOND);
    let p = pod(&sim, "lonely").expect("pod");
    assert!(p.spec.node_name.is_empty());
    let msg = p.condition("PodScheduled").map(|c| c.message.to_string()).unwrap_or_default();
    assert_eq!(msg, "0/3 nodes are available: persistentvolumeclaim \"missing\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
    // The claim made: its pod is placed, and the claim bound on its node.
    apply(&mut sim, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: missing\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 2Gi\n");
    assert!(until(&mut sim, 2 * MINUTE, |s| pod(s, "lonely").is_some_and(|p| p.is_ready())));
    sim.run_for(5 * SECOND);
    let c = sim.store().peek(Kind::PersistentVolumeClaim, &ObjKey::new("default", "missing")).expect("claim");
    assert_eq!(text(c.as_stored().expect("stored"), "status.phase"), "Bound");
    // Deleted, its volume goes too (Delete).
    common::kubectl(&mut sim, "delete pod lonely");
    common::kubectl(&mut sim, "delete pvc missing");
    assert!(until(&mut sim, MINUTE, |s| stored(s, Kind::PersistentVolume).is_empty()));
}

#[test]
fn the_api_server_defaults_and_validates_a_statefulset() {
    let mut sim = cluster();
    apply(&mut sim, &web("", "nginx:1.0"));
    let yaml = common::kubectl(&mut sim, "get sts web -o yaml").stdout;
    for line in [
        "podManagementPolicy: OrderedReady",
        "partition: 0",
        "type: RollingUpdate",
        "revisionHistoryLimit: 10",
        "volumeMode: Filesystem",
    ] {
        assert!(yaml.contains(line), "{line} in {yaml}");
    }
    let bad = web("  podManagementPolicy: Sometimes\n", "nginx:1.0").replace("name: web\nspec", "name: bad\nspec");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &bad);
    assert!(
        out.stderr.ends_with("The StatefulSet \"bad\" is invalid: spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'\n"),
        "{}",
        out.stderr
    );
    let changed = web("", "nginx:1.0").replace("serviceName: \"nginx\"", "serviceName: \"other\"");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &changed);
    assert!(
        out.stderr.contains("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"),
        "{}",
        out.text()
    );
}
