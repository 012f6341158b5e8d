//! The kubectl commands that change the cluster: golden output against the fixture cluster, and the cluster
//! following what they wrote.
mod common;

use common::{assert_answers, check, cluster, kubectl, kubectl_stdin, poll_until_done};
use kubeloop_engine::api::{Kind, Object, PodPhase};
use kubeloop_engine::kubectl::{self, Input, Output};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{MINUTE, SECOND};

fn pods(sim: &Sim) -> Vec<std::rc::Rc<Object>> {
    sim.store().objects(Kind::Pod).cloned().collect()
}

fn running(sim: &Sim) -> usize {
    pods(sim).iter().filter(|o| o.as_pod().is_some_and(|p| p.status.phase == PodPhase::Running)).count()
}

fn first_pod(sim: &Sim) -> String {
    pods(sim).first().map(|p| p.meta().name.to_string()).unwrap_or_default()
}

fn node_of(sim: &Sim, pod: &str) -> String {
    pods(sim)
        .iter()
        .find(|p| &*p.meta().name == pod)
        .and_then(|p| p.as_pod().map(|p| p.spec.node_name.to_string()))
        .unwrap_or_default()
}

/// Polls a follow until done (or `limit` simulated time), collecting its output.
fn follow(sim: &mut Sim, out: &mut Output, limit: u64) -> (String, bool) {
    let Some(f) = out.follow.as_mut() else { return (String::new(), true) };
    let (text, code) = poll_until_done(sim, f.as_mut(), SECOND, limit);
    (text, code.is_some())
}

const BARE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  containers:
  - name: app
    image: busybox:1.36
";

// ---- apply ------------------------------------------------------------------------------------------------

#[test]
fn apply_from_stdin_and_files() {
    let mut sim = cluster();
    let out = kubectl_stdin(&mut sim, "apply -f -", &common::WEB.replace("replicas: 3", "replicas: 4"));
    common::golden("apply-configured", &format!("$ kubectl apply -f -\n{}", out.text()));
    assert_eq!(out.code, 0);
    let out = kubectl_stdin(&mut sim, "apply -f -", BARE);
    common::golden("apply-created", &format!("$ kubectl apply -f -\n{}", out.text()));
    let out = kubectl_stdin(&mut sim, "apply -f - --dry-run=client", &BARE.replace("bare", "dry"));
    common::golden("apply-dry-run", &format!("$ kubectl apply -f - --dry-run=client\n{}", out.text()));
    let bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers: 3\n";
    let before = sim.store().resource_version();
    let out = kubectl_stdin(&mut sim, "apply -f -", bad);
    common::golden("apply-manifest-error", &format!("$ kubectl apply -f -\n{}", out.text()));
    assert_eq!(out.code, 1);
    assert_eq!(sim.store().resource_version(), before, "nothing applied");
    check(&mut sim, "apply-no-file", "apply");
    check(&mut sim, "apply-missing-file", "apply -f web.yaml");
    let files = |name: &str| -> Result<String, String> {
        match name {
            "bare.yaml" => Ok(BARE.replace("bare", "bare2")),
            _ => Err(format!("the path \"{name}\" does not exist")),
        }
    };
    let out = kubectl::run(&mut sim, "apply -f bare.yaml", &Input { stdin: None, read_file: &files });
    assert_eq!(out.stdout, "pod/bare2 created\n");
}

// ---- create -----------------------------------------------------------------------------------------------

#[test]
fn create_makes_deployments_namespaces_and_objects_from_files_or_says_why_not() {
    let mut sim = cluster();
    check(
        &mut sim,
        "create-deployment",
        "create deployment api --image=registry.io/team/api:v2 --replicas=2 --port=8080",
    );
    let d = sim.store().objects(Kind::Deployment).find(|o| &*o.meta().name == "api").cloned();
    let d = d.and_then(|o| o.as_deployment().cloned()).expect("api created");
    assert_eq!(d.spec.template.spec.containers[0].name.as_ref(), "api");
    assert_eq!(d.spec.template.spec.containers[0].ports[0].container_port, 8080);
    assert_eq!(d.metadata.label("app"), Some("api"));
    check(&mut sim, "create-deployment-exists", "create deployment web --image=nginx");
    check(&mut sim, "create-deployment-no-image", "create deployment x");
    check(&mut sim, "create-deployment-no-name", "create deployment --image=nginx");
    check(&mut sim, "create-namespace", "create namespace team-a");
    check(&mut sim, "create-namespace-exists", "create ns team-a");
    let out = kubectl_stdin(&mut sim, "create -f -", &common::WEB);
    common::golden("create-file-exists", &format!("$ kubectl create -f -\n{}", out.text()));
    assert_eq!(out.code, 1);
    let out = kubectl_stdin(&mut sim, "create -f -", BARE);
    assert_eq!(out.stdout, "pod/bare created\n");
    sim.run_for(2 * MINUTE);
    assert_eq!(running(&sim), 3 + 2 + 1);
}

// ---- delete -----------------------------------------------------------------------------------------------

#[test]
fn delete_pod_is_replaced() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    let writes = sim.store().counters(sim.user()).writes();
    let mut out = kubectl(&mut sim, &format!("delete pod {pod}"));
    assert_eq!(out.stdout, format!("pod \"{pod}\" deleted from default namespace\n"));
    assert!(sim.store().counters(sim.user()).writes() > writes);
    let (_, done) = follow(&mut sim, &mut out, 2 * MINUTE);
    assert!(done, "delete waits until the pod is gone");
    assert!(sim.store().peek(Kind::Pod, &kubeloop_engine::api::ObjKey::new("default", &pod)).is_none());
    sim.run_for(MINUTE);
    assert_eq!(running(&sim), 3, "the ReplicaSet replaced it");
}

#[test]
fn delete_handles_names_selectors_grace_force_and_cascade_as_kubectl_does() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    let out = check(&mut sim, "delete-pod", &format!("delete pod {pod} --wait=false"));
    assert!(out.follow.is_none());
    check(&mut sim, "delete-not-found", "delete pod nope");
    check(&mut sim, "delete-mixed", &format!("delete pods nope {pod} --wait=false"));
    check(&mut sim, "delete-no-name", "delete pods");
    check(&mut sim, "delete-nothing", "delete");
    check(&mut sim, "delete-selector-none", "delete pods -l app=nothing");
    check(&mut sim, "delete-bad-cascade", "delete deploy web --cascade=sideways");
    check(&mut sim, "delete-now-and-grace", "delete pod x --now --grace-period=3");
    check(&mut sim, "delete-force-grace", "delete pod x --force --grace-period=5");
    let pod2 = pods(&sim).iter().map(|p| p.meta().name.to_string()).find(|n| *n != pod).unwrap_or_default();
    let out = kubectl(&mut sim, &format!("delete pod/{pod2} --force --grace-period=0"));
    common::golden(
        "delete-force",
        &format!("$ kubectl delete pod/POD --force --grace-period=0\n{}", out.text().replace(&pod2, "POD")),
    );
    assert!(sim.store().peek(Kind::Pod, &kubeloop_engine::api::ObjKey::new("default", &pod2)).is_none());
    check(&mut sim, "delete-cascade-legacy", "delete deploy web --cascade=false --wait=false");
    let web = sim.store().objects(Kind::Deployment).find(|o| &*o.meta().name == "web").cloned();
    assert!(web.is_some_and(|w| w.meta().finalizers.iter().any(|f| &**f == "orphan")), "orphan asked of the GC");
}

#[test]
fn delete_by_selector_and_all() {
    let mut sim = cluster();
    let mut out = check(&mut sim, "delete-selector", "delete pods -l app=web");
    let (_, done) = follow(&mut sim, &mut out, 2 * MINUTE);
    assert!(done);
    let mut sim = cluster();
    kubectl_stdin(&mut sim, "apply -f -", BARE);
    check(&mut sim, "delete-all-deploy", "delete deploy --all --wait=false");
}

// ---- scale ------------------------------------------------------------------------------------------------

#[test]
fn scale_sets_replicas_checks_preconditions_and_refuses_bad_requests() {
    let mut sim = cluster();
    check(&mut sim, "scale-deploy", "scale deploy web --replicas=5");
    sim.run_for(2 * MINUTE);
    assert_eq!(running(&sim), 5);
    check(&mut sim, "scale-slash", "scale deployment.apps/web --replicas=4");
    check(&mut sim, "scale-precondition", "scale deploy web --current-replicas=2 --replicas=3");
    check(&mut sim, "scale-precondition-ok", "scale deploy web --current-replicas=4 --replicas=3");
    check(&mut sim, "scale-no-replicas", "scale deploy web");
    check(&mut sim, "scale-negative", "scale deploy web --replicas=-1");
    check(&mut sim, "scale-not-found", "scale deploy nope --replicas=1");
    let pod = first_pod(&sim);
    check(&mut sim, "scale-pod", &format!("scale pod {pod} --replicas=2"));
    check(&mut sim, "scale-selector", "scale deploy -l app=web --replicas=2");
    check(&mut sim, "scale-cap", "scale deploy web --replicas=1000000");
}

// ---- set image ----------------------------------------------------------------------------------------------

#[test]
fn set_image_rolls_out() {
    let mut sim = cluster();
    let rs_before = sim.store().count_of(Kind::ReplicaSet);
    check(&mut sim, "set-image", "set image deployment/web nginx=nginx:1.28");
    sim.run_for(3 * MINUTE);
    assert_eq!(sim.store().count_of(Kind::ReplicaSet), rs_before + 1, "a new ReplicaSet");
    check(&mut sim, "set-image-unchanged", "set image deploy web nginx=nginx:1.28");
    check(&mut sim, "set-image-unknown-container", "set image deploy/web app=nginx:1.29");
    check(&mut sim, "set-image-star", "set image deploy/web '*=nginx:1.29'");
    check(&mut sim, "set-image-no-pairs", "set image deploy/web");
    let pod = first_pod(&sim);
    let out = kubectl(&mut sim, &format!("set image pod/{pod} nginx=nginx:1.30"));
    assert_eq!(out.stdout, format!("pod/{pod} image updated\n"), "{out:?}");
    check(&mut sim, "set-image-node", "set image node/node-1 a=b");
}

// ---- label, annotate -------------------------------------------------------------------------------------------

#[test]
fn label_and_annotate_add_overwrite_remove_and_list_keys_as_kubectl_does() {
    let mut sim = cluster();
    let pod = first_pod(&sim);
    let key = kubeloop_engine::api::ObjKey::new("default", &pod);
    let rv = sim.store().peek(Kind::Pod, &key).map(|o| o.meta().resource_version);
    let out = kubectl(&mut sim, &format!("label pod {pod} tier=frontend"));
    assert_eq!(out.stdout, format!("pod/{pod} labeled\n"));
    let after = sim.store().peek(Kind::Pod, &key).cloned().expect("pod");
    assert_eq!(after.meta().label("tier"), Some("frontend"));
    assert_ne!(Some(after.meta().resource_version), rv);
    check(&mut sim, "label-deploy", "label deploy web team=blue");
    check(&mut sim, "label-exists", "label deploy web app=other");
    check(&mut sim, "label-overwrite", "label deploy web app=other --overwrite");
    check(&mut sim, "label-same", "label deploy web team=blue");
    check(&mut sim, "label-remove", "label deploy web team-");
    check(&mut sim, "label-remove-missing", "label deploy web team-");
    check(&mut sim, "label-list", "label deploy web --list");
    check(&mut sim, "label-list-many", "label deploy --all --list");
    check(&mut sim, "label-bad-value", "label deploy web 'x=-bad'");
    check(&mut sim, "label-bad-spec", "label deploy web a=b=c");
    check(&mut sim, "label-invalid-key", "label deploy web 'a/b/c=x'");
    check(&mut sim, "label-no-update", "label deploy web");
    check(&mut sim, "label-no-resource", "label");
    check(&mut sim, "label-order", "label app=x deploy web");
    check(&mut sim, "annotate-deploy", "annotate deploy web owner=ops");
    check(&mut sim, "annotate-exists", "annotate deploy web owner=dev");
    check(&mut sim, "annotate-overwrite", "annotate deploy web owner=dev --overwrite");
    check(&mut sim, "annotate-remove", "annotate deploy web owner-");
    check(&mut sim, "annotate-selector", "annotate pods -l app=web note=hi");
    check(&mut sim, "annotate-bad", "annotate deploy web =x");
}

// ---- cordon, uncordon, taint ---------------------------------------------------------------------------------------

#[test]
fn cordon_keeps_new_pods_off() {
    let mut sim = cluster();
    check(&mut sim, "cordon", "cordon node-1");
    check(&mut sim, "cordon-again", "cordon node-1");
    check(&mut sim, "cordon-missing", "cordon node-9");
    check(&mut sim, "cordon-usage", "cordon");
    kubectl(&mut sim, "scale deploy web --replicas=9");
    sim.run_for(2 * MINUTE);
    let on_1 = pods(&sim).iter().filter(|p| node_of(&sim, &p.meta().name) == "node-1").count();
    let before = cluster();
    let on_1_before = pods(&before).iter().filter(|p| node_of(&before, &p.meta().name) == "node-1").count();
    assert_eq!(on_1, on_1_before, "nothing new on the cordoned node");
    assert_eq!(running(&sim), 9);
    check(&mut sim, "uncordon", "uncordon node-1");
    check(&mut sim, "uncordon-again", "uncordon node-1");
}

#[test]
fn taint_keeps_new_pods_off() {
    let mut sim = cluster();
    check(&mut sim, "taint", "taint nodes node-2 dedicated=gpu:NoSchedule");
    check(&mut sim, "taint-exists", "taint nodes node-2 dedicated=db:NoSchedule");
    check(&mut sim, "taint-overwrite", "taint nodes node-2 dedicated=db:NoSchedule --overwrite");
    check(&mut sim, "taint-bad-effect", "taint nodes node-2 dedicated=gpu:Sometimes");
    check(&mut sim, "taint-no-effect", "taint nodes node-2 dedicated=gpu");
    check(&mut sim, "taint-duplicate", "taint nodes node-2 a=1:NoSchedule a=2:NoSchedule");
    check(&mut sim, "taint-pods", "taint pods x a=1:NoSchedule");
    check(&mut sim, "taint-no-name", "taint nodes a=1:NoSchedule");
    check(&mut sim, "taint-both", "taint nodes node-2 a=1:NoSchedule a-");
    check(&mut sim, "taint-missing-remove", "taint nodes node-2 nope-");
    check(&mut sim, "taint-all", "taint nodes --all maintenance:PreferNoSchedule");
    kubectl(&mut sim, "taint nodes node-3 dedicated=gpu:NoSchedule");
    // A taint reaches the scheduler through its Node watch (2-12 ms); pods created within that window could
    // still be bound to the node, as upstream's could. Let it arrive first.
    sim.run_for(SECOND);
    let before: Vec<String> = pods(&sim).iter().map(|p| p.meta().name.to_string()).collect();
    kubectl(&mut sim, "scale deploy web --replicas=8");
    sim.run_for(2 * MINUTE);
    for p in pods(&sim) {
        if !before.contains(&p.meta().name.to_string()) {
            assert_eq!(node_of(&sim, &p.meta().name), "node-1", "new pods only on the untainted node");
        }
    }
    check(&mut sim, "untaint", "taint nodes node-2 dedicated:NoSchedule-");
    check(&mut sim, "untaint-key", "taint nodes node-3 dedicated-");
}

// ---- drain ------------------------------------------------------------------------------------------------------

#[test]
fn drain_evicts_and_the_deployment_recovers() {
    let mut sim = cluster();
    let node = node_of(&sim, &first_pod(&sim));
    // Cordoned first and given a second: `drain` cordons and evicts at once, and a replacement created before the
    // scheduler's Node watch delivers the cordon (2-12 ms) could still land on the node, as upstream's could.
    kubectl(&mut sim, &format!("cordon {node}"));
    sim.run_for(SECOND);
    let writes = sim.store().counters(sim.user()).writes();
    let mut out = kubectl(&mut sim, &format!("drain {node} --ignore-daemonsets"));
    let on_node: Vec<String> = pods(&sim)
        .iter()
        .filter(|p| node_of(&sim, &p.meta().name) == node)
        .map(|p| p.meta().name.to_string())
        .collect();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, format!("node/{node} already cordoned\n"));
    assert!(out.follow.is_some());
    let (text, done) = follow(&mut sim, &mut out, 2 * MINUTE);
    assert!(done, "{text}");
    // The evictions were issued with the command; their lines come with the first poll, after the cordon line.
    for p in &on_node {
        assert!(text.contains(&format!("evicting pod default/{p}\n")), "{text}");
    }
    for p in &on_node {
        assert!(text.contains(&format!("pod/{p} evicted\n")), "{text}");
    }
    assert!(text.ends_with(&format!("node/{node} drained\n")), "{text}");
    assert!(sim.store().counters(sim.user()).writes() > writes);
    sim.run_for(2 * MINUTE);
    assert!(sim.store().pods_on_node(&node).next().is_none(), "the node is empty");
    assert_eq!(running(&sim), 3);
}

#[test]
fn drain_refuses_bare_pods_without_force_and_otherwise_evicts_or_deletes() {
    let mut sim = cluster();
    // A bare pod on node-1: drain refuses without --force.
    let pinned = BARE.replace("spec:\n", "spec:\n  nodeName: node-1\n");
    kubectl_stdin(&mut sim, "apply -f -", &pinned);
    sim.run_for(MINUTE);
    check(&mut sim, "drain-unmanaged", "drain node-1");
    // A person types the next command a moment later: the scheduler has seen the cordon by then (at once, a
    // replacement could still land on node-1, as its informer may not have caught up).
    sim.run_for(SECOND);
    let mut out = check(&mut sim, "drain-force", "drain node-1 --force --grace-period=5");
    let (text, done) = follow(&mut sim, &mut out, 2 * MINUTE);
    assert!(done);
    common::golden("drain-force-follow", &text);
    check(&mut sim, "drain-empty", "drain node-1");
    check(&mut sim, "drain-missing", "drain node-9");
    check(&mut sim, "drain-usage", "drain");
    check(&mut sim, "drain-bad-timeout", "drain node-2 --timeout=soon");
    let mut out = check(&mut sim, "drain-delete", "drain node-2 --disable-eviction --timeout=1m");
    let (text, done) = follow(&mut sim, &mut out, 2 * MINUTE);
    assert!(done);
    common::golden("drain-delete-follow", &text);
}

// ---- nothing panics ------------------------------------------------------------------------------------------

#[test]
fn odd_inputs_get_kubectls_answers_and_a_refusal_writes_nothing() {
    let mut sim = cluster();
    let commands =
        ["apply", "create", "delete", "scale", "set", "label", "annotate", "cordon", "uncordon", "drain", "taint"];
    let tails = [
        "",
        "-f",
        "-f -",
        "-f nope",
        "pods",
        "pod/",
        "/x",
        "deploy/web/x",
        "deploy web --replicas=x",
        "deploy web --replicas=99999999999999",
        "deploy web --current-replicas=-5 --replicas=1",
        "deploy web -l '!!!'",
        "deploy web --all",
        "deploy -l app=web --all",
        "deployment image",
        "image",
        "image deploy/web",
        "image deploy/web =x",
        "image deploy/web *=a x=b",
        "namespace",
        "namespace a b",
        "ns 'Bad Name'",
        "deployment Bad_Name --image=x.y_z",
        "deployment ok --image=nginx --replicas=-3",
        "deployment big --image=nginx --replicas=9999999",
        "deployment p --image=nginx --port=99999999999",
        "node-1 :NoSchedule",
        "nodes node-1 =:",
        "nodes node-1 a=b=c:NoSchedule",
        "nodes node-1 a:b:c",
        "nodes node-1 -",
        "nodes node-1 --all a:NoSchedule",
        "node-1 --timeout=-1s",
        "node-1 --timeout=1e400h",
        "node-1 --grace-period=-7",
        "node-1 -l x=y",
        "deploy web a= b- c",
        "deploy web ''=''",
        "deploy web --list --overwrite",
        "pod x --cascade=",
        "pod x --grace-period=0",
        "pod x --wait=maybe",
        "pod x -o yaml",
        "pods --all -n nowhere",
        "all --all --wait=false",
        "nodes --all --wait=false",
        "'' ''",
        "ü ü=ü",
        "deploy web 🙂=🙂",
    ];
    // What succeeds: `set` alone prints its help; deleting every pod of a namespace that has none, or everything
    // once `web` is gone, finds nothing; deleting every node deletes them.
    let succeeds =
        ["set ", "delete pods --all -n nowhere", "delete all --all --wait=false", "delete nodes --all --wait=false"];
    for c in commands {
        for t in tails {
            let line = format!("{c} {t}");
            let before = sim.history_hash();
            let out = kubectl_stdin(&mut sim, &line, "kind: [");
            let ok = succeeds.contains(&line.as_str());
            assert_answers(&line, &out, ok);
            // A refused command writes nothing, but a delete of several names deletes those it found (kubectl
            // goes on past a NotFound, then reports it), and says so.
            let deleted_some = line.starts_with("delete ") && out.stdout.contains("\" deleted");
            if !ok && !deleted_some {
                assert_eq!(sim.history_hash(), before, "`{line}` is refused and writes nothing");
            }
            if let Some(mut f) = out.follow {
                for _ in 0..3 {
                    sim.run_for(SECOND);
                    let _ = f.poll(&mut sim);
                }
                f.stop(&mut sim);
            }
        }
    }
}

/// `kubectl apply` of several documents applies them one by one, as kubectl's `Run` does: a kind kubeloop does not
/// serve, an unknown field or a server-side refusal fails its own object only (every failure reported at the end,
/// each with its line, exit status 1); YAML that does not parse stops the reading there, the documents before it
/// applied and those after it not.
#[test]
fn apply_goes_on_past_a_failed_document_as_kubectl_does() {
    let mut sim = cluster();
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n");
    let widget = |name: &str| format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\n");
    let text = [
        cm("one"),
        widget("w1"),
        common::WEB.replace("replicas: 3", "replicas: 4"),
        widget("w2"),
        cm("two").replace("\ndata:", "\ndta:"),
        cm("three").replace("name: three", "name: three\n  namespace: nowhere"),
        cm("four"),
    ]
    .join("---\n");
    let out = kubectl_stdin(&mut sim, "apply -f -", &text);
    common::golden("apply-each-document", &format!("$ kubectl apply -f - <<EOF\n{text}EOF\n{}", out.text()));
    assert_eq!(out.code, 1);
    let names = |sim: &Sim| -> Vec<String> {
        sim.store().objects(Kind::ConfigMap).map(|o| o.meta().name.to_string()).collect()
    };
    assert_eq!(names(&sim), ["four", "one"], "the ConfigMaps that could be applied are");
    let web = sim.store().objects(Kind::Deployment).find_map(|o| o.as_deployment().and_then(|d| d.spec.replicas));
    assert_eq!(web, Some(4), "the Deployment is configured");

    // A YAML error in the third document: the first two are applied, the fourth is not read.
    let mut sim = cluster();
    let text = [cm("a"), cm("b"), "kind: [\n".to_string(), cm("c")].join("---\n");
    let out = kubectl_stdin(&mut sim, "apply -f -", &text);
    common::golden("apply-yaml-error-stops", &format!("$ kubectl apply -f - <<EOF\n{text}EOF\n{}", out.text()));
    assert_eq!((out.code, names(&sim)), (1, vec!["a".to_string(), "b".to_string()]));
    let report = kubectl::apply_each(&mut cluster(), &text);
    assert_eq!(report.stopped, Some(3), "{report}");
    assert!(report.summary().starts_with("2 created, 1 failed (reading stopped at document 3"), "{}", report.summary());
}

/// What `-f NAME` reads in these tests: the named texts, any other name missing as kubectl says it.
fn reading<'a>(files: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Result<String, String> + 'a {
    move |name: &str| {
        let text = files.iter().find(|(n, _)| *n == name).map(|(_, t)| t.to_string());
        text.ok_or_else(|| format!("the path \"{name}\" does not exist"))
    }
}

/// `kubectl LINE` with files to read (`-f NAME`) and standard input (`-f -`).
fn kubectl_files(sim: &mut Sim, line: &str, files: &[(&str, &str)], stdin: Option<&str>) -> Output {
    kubectl::run(sim, line, &Input { stdin, read_file: &reading(files) })
}

/// kubeloop's own line under a mapping error: what it serves.
const SERVES: &str = "kubeloop: it serves Namespace, Node, Pod, ConfigMap, Secret, ServiceAccount, Service, \
ResourceQuota, LimitRange, PersistentVolume and PersistentVolumeClaim (v1), ReplicaSet, Deployment, DaemonSet and \
StatefulSet (apps/v1), EndpointSlice (discovery.k8s.io/v1), PodDisruptionBudget (policy/v1), PriorityClass \
(scheduling.k8s.io/v1), Ingress, IngressClass and NetworkPolicy (networking.k8s.io/v1), Role, RoleBinding, \
ClusterRole and ClusterRoleBinding (rbac.authorization.k8s.io/v1), Job and CronJob (batch/v1), StorageClass \
(storage.k8s.io/v1)";

/// A kind kubeloop does not serve is kubectl's mapping error (cli-runtime's `mapper.infoForData`: the object's name
/// and namespace as written, its stream, the REST mapper's message, `ensure CRDs are installed first`), after
/// kubeloop's document and line, with kubeloop's own line saying what it serves; the stream is the file's name,
/// `STDIN` for `-f -`.
#[test]
fn a_kind_kubeloop_does_not_serve_is_kubectls_mapping_error() {
    let mut sim = cluster();
    let widget = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
    let out = kubectl_stdin(&mut sim, "apply -f -", widget);
    assert_eq!((out.stdout.as_str(), out.code), ("namespace/a created\n", 1));
    assert_eq!(
        out.stderr,
        format!("error: document 2, line 7: resource mapping not found for name: \"w\" namespace: \"\" from \"STDIN\": no matches for kind \"Widget\" in version \"example.com/v1\"\nensure CRDs are installed first\n{SERVES}\n")
    );
    let in_team = "apiVersion: apps/v2\nkind: Deployment\nmetadata:\n  name: web\n  namespace: team\n";
    for verb in ["apply", "create"] {
        let out = kubectl_files(&mut sim, &format!("{verb} -f web.yaml"), &[("web.yaml", in_team)], None);
        assert_eq!(
            out.stderr,
            "error: web.yaml, document 1, line 2: resource mapping not found for name: \"web\" namespace: \"team\" from \"web.yaml\": no matches for kind \"Deployment\" in version \"apps/v2\"\nensure CRDs are installed first\nkubeloop: it serves Deployment as apps/v1\n",
            "{verb}"
        );
        assert_eq!((out.stdout.as_str(), out.code), ("", 1), "{verb}");
    }
}

/// Several `-f` are read as kubectl reads them, each file a stream of its own (cli-runtime's `EagerVisitorList`
/// of `FileVisitor`s, with `ContinueOnError`): YAML that does not parse stops its own file only, lines are counted
/// within each file, and the errors name the file (kubeloop's location, and kubectl's own message where it names
/// it). apply, create and delete alike.
#[test]
fn several_files_are_read_each_as_its_own_stream() {
    let ns = |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n");
    let a = format!("{}---\nkind: [\n---\n{}", ns("one"), ns("lost"));
    let b = format!("{}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", ns("two"));
    let c = ns("three");
    let files = [("a.yaml", a.as_str()), ("b.yaml", b.as_str()), ("c.yaml", c.as_str())];
    let unread = format!(
        "error: a.yaml, document 2, line 7, column 1: error parsing a.yaml: did not find expected node content\nerror: b.yaml, document 2, line 7: resource mapping not found for name: \"w\" namespace: \"\" from \"b.yaml\": no matches for kind \"Widget\" in version \"example.com/v1\"\nensure CRDs are installed first\n{SERVES}\n"
    );
    let namespaces = |sim: &Sim| -> Vec<String> {
        let all = sim.store().objects(Kind::Namespace).map(|o| o.meta().name.to_string());
        all.filter(|n| !n.starts_with("kube-") && n != "default").collect()
    };
    for verb in ["apply", "create"] {
        let mut sim = cluster();
        let out = kubectl_files(&mut sim, &format!("{verb} -f a.yaml -f b.yaml -f c.yaml"), &files, None);
        assert_eq!(out.stdout, "namespace/one created\nnamespace/two created\nnamespace/three created\n", "{verb}");
        assert_eq!((out.stderr.as_str(), out.code), (unread.as_str(), 1), "{verb}");
        assert_eq!(namespaces(&sim), ["one", "three", "two"], "{verb}");
        if verb == "create" {
            continue;
        }
        let out = kubectl_files(&mut sim, "delete -f a.yaml -f b.yaml -f c.yaml", &files, None);
        assert_eq!(out.stdout, "namespace \"one\" deleted\nnamespace \"two\" deleted\nnamespace \"three\" deleted\n");
        assert_eq!((out.stderr.as_str(), out.code), (unread.as_str(), 1));
        assert!(out.follow.is_none(), "kubectl returns its errors at once, without waiting");
    }
    // A file that is not there is the command's only error: nothing is read.
    let mut sim = cluster();
    let out = kubectl_files(&mut sim, "apply -f c.yaml -f d.yaml", &files, None);
    assert_eq!((out.text().as_str(), out.code), ("error: the path \"d.yaml\" does not exist\n", 1));
    assert!(namespaces(&sim).is_empty());
}

/// `-n` reaches the objects read from files, as the resource builder's `DefaultNamespace` and (the flag given)
/// `RequireNamespace` do: an object without a namespace goes to `-n`'s, one in another namespace is refused.
#[test]
fn the_namespace_flag_reaches_the_objects_read_from_files() {
    let mut sim = cluster();
    assert_eq!(kubectl(&mut sim, "create namespace team").code, 0);
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
    let in_team = |sim: &Sim| -> Vec<String> {
        let all = sim.store().objects(Kind::ConfigMap).filter(|o| &*o.meta().namespace == "team");
        all.map(|o| o.meta().name.to_string()).collect()
    };
    assert_eq!(kubectl_stdin(&mut sim, "apply -n team -f -", &cm("a")).stdout, "configmap/a created\n");
    assert_eq!(kubectl_stdin(&mut sim, "create -f - --namespace=team", &cm("b")).stdout, "configmap/b created\n");
    assert_eq!(in_team(&sim), ["a", "b"]);
    let elsewhere = format!("{}  namespace: default\n", cm("c"));
    for line in ["apply -f - -n team", "create -f - -n team", "delete -f - -n team"] {
        let out = kubectl_stdin(&mut sim, line, &elsewhere);
        assert_eq!(
            (out.stderr.as_str(), out.code),
            ("error: document 1, line 5: the namespace from the provided object \"default\" does not match the namespace \"team\". You must pass '--namespace=default' to perform this operation.\n", 1),
            "{line}"
        );
    }
    let out = kubectl_stdin(&mut sim, "delete -f - -n team --wait=false", &cm("a"));
    assert_eq!(out.stdout, "configmap \"a\" deleted from team namespace\n");
    assert_eq!(in_team(&sim), ["b"]);
    assert_eq!(sim.store().objects(Kind::ConfigMap).filter(|o| &*o.meta().name == "c").count(), 0);
}

/// `create -f` creates object by object as kubectl's `RunCreate` visits them: each object the server accepts is
/// created; the server's refusals are reported in order (naming the stream), then what could not be read, exit
/// status 1.
#[test]
fn create_goes_on_past_a_failed_object_as_kubectl_does() {
    let mut sim = cluster();
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
    let text = [
        cm("a"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n".to_string(),
        format!("{}dta:\n  k: v\n", cm("typo")),
        common::WEB.to_string(),
        cm("b").replace("name: b", "name: b\n  namespace: nowhere"),
        cm("c"),
    ]
    .join("---\n");
    let out = kubectl_stdin(&mut sim, "create -f -", &text);
    common::golden("create-each-document", &format!("$ kubectl create -f - <<EOF\n{text}EOF\n{}", out.text()));
    assert_eq!(out.stdout, "configmap/a created\nconfigmap/c created\n");
    assert_eq!(out.code, 1);
    let errors: Vec<&str> = out.stderr.lines().filter(|l| !l.starts_with("Warning")).collect();
    assert_eq!(
        errors,
        [
            "error: document 3, line 15: strict decoding error: unknown field \"dta\"",
            "Error from server (AlreadyExists): error when creating \"STDIN\": deployments.apps \"web\" already exists",
            "Error from server (NotFound): error when creating \"STDIN\": namespaces \"nowhere\" not found",
            "error: document 2, line 7: resource mapping not found for name: \"w\" namespace: \"\" from \"STDIN\": no matches for kind \"Widget\" in version \"example.com/v1\"",
            "ensure CRDs are installed first",
            SERVES,
        ]
    );
    let names: Vec<String> = sim.store().objects(Kind::ConfigMap).map(|o| o.meta().name.to_string()).collect();
    assert_eq!(names, ["a", "c"]);
    // Nothing it could create at all, and nothing wrong: kubectl's own error.
    let out = kubectl_stdin(&mut sim, "create -f -", "---\n");
    assert_eq!((out.text().as_str(), out.code), ("error: no objects passed to create\n", 1));
}

/// `delete -f` deletes object by object: one that is not there is `Error from server (NotFound)` for that object
/// only (naming the stream, as `cmdutil.AddSourceToErr` does), the others deleted, exit status 1 and no wait;
/// `--ignore-not-found` says nothing of it. kubectl reads only an object's kind and metadata to delete it.
#[test]
fn delete_from_files_goes_on_past_a_missing_object() {
    let mut sim = cluster();
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n");
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", &[cm("a"), cm("c")].join("---\n")).code, 0);
    let text = [cm("a"), cm("nosuch"), cm("c").replace("\ndata:", "\ndta:")].join("---\n");
    let out = kubectl_stdin(&mut sim, "delete -f -", &text);
    assert_eq!(
        out.stdout,
        "configmap \"a\" deleted from default namespace\nconfigmap \"c\" deleted from default namespace\n"
    );
    assert_eq!(
        (out.stderr.as_str(), out.code),
        ("Error from server (NotFound): error when deleting \"STDIN\": configmaps \"nosuch\" not found\n", 1)
    );
    assert!(out.follow.is_none(), "kubectl returns its errors at once, without waiting");
    assert_eq!(sim.store().objects(Kind::ConfigMap).count(), 0);
    let out = kubectl_stdin(&mut sim, "delete -f - --ignore-not-found", &cm("a"));
    assert_eq!((out.text().as_str(), out.code), ("", 0), "nothing found, nothing said: the object was visited");
}

/// A Node whose kubelet could not register it (its name is longer than the 63 characters of the hostname label the
/// kubelet adds) is refused before anything is written: no kubelet, no Lease, no Node (a fuzzer's finding: the
/// kubelet used to start, fail to register and renew its Lease, under a refused apply).
#[test]
fn a_node_its_kubelet_could_not_register_is_refused_and_writes_nothing() {
    let mut sim = cluster();
    let (before, kubelets) = (sim.store().resource_version(), sim.kubelets().len());
    let node = format!("apiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n", "a".repeat(64));
    let out = kubectl_stdin(&mut sim, "apply -f -", &node);
    assert_eq!(out.code, 1, "{}", out.text());
    assert!(
        out.stderr.contains("metadata.labels: Invalid value") && out.stderr.contains("no more than 63"),
        "{}",
        out.stderr
    );
    assert_eq!((sim.store().resource_version(), sim.kubelets().len()), (before, kubelets), "nothing written");
    let err = sim.add_node(kubeloop_engine::kubelet::NodeConfig { name: "b".repeat(64), ..Default::default() });
    assert!(err.is_err_and(|e| e.to_string().contains("no more than 63")));
    assert_eq!((sim.store().resource_version(), sim.kubelets().len()), (before, kubelets), "nothing written");
}

/// An apply written a few objects at a time (the page's large apply) does what the whole apply does: the same
/// report, every outcome and error, and the same history (hash) after, including a set that creates its own
/// namespace, names an object twice, configures live objects, or fails late, in the middle (an unknown kind) or
/// stops at a YAML error (the objects before it written all the same).
#[test]
fn an_apply_in_steps_is_the_whole_apply() {
    let many: String = (0..30)
        .map(|i| {
            format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  namespace: team\ndata:\n  k: v{i}\n"
            )
        })
        .collect();
    let ns = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n";
    let twice = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c3\n  namespace: team\ndata:\n  k: again\n";
    let texts = [
        format!("{ns}{many}"),
        format!("{ns}{many}{twice}"),
        format!("{ns}{many}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n  namespace: nowhere\n"),
        many.clone(),
        format!("{ns}{}", common::web(3).yaml()),
        format!("{ns}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n{many}"),
        format!("{ns}{many}---\nkind: [\n{twice}"),
    ];
    for text in &texts {
        let mut whole = cluster();
        let said = kubectl::apply_each(&mut whole, text).to_string();
        // Applied twice over: the second time every object is live (configured or unchanged).
        let again = kubectl::apply_each(&mut whole, text).to_string();
        for n in [1, 3, usize::MAX] {
            let mut stepped = cluster();
            let apply = |sim: &mut Sim| {
                let read = match kubeloop_engine::manifest::read(text, kubeloop_engine::manifest::STDIN) {
                    Ok(read) => read,
                    Err(e) => return kubectl::ApplyReport::refused(e).to_string(),
                };
                let mut job = kubectl::Applying::new(sim, read);
                let mut steps = 0;
                while !job.step(sim, n) {
                    steps += 1;
                    let (done, of) = job.progress();
                    assert!(done <= of && steps < 1000, "progress {done}/{of}");
                }
                job.finish().to_string()
            };
            assert_eq!(apply(&mut stepped), said, "n = {n}, {}", &text[..60]);
            assert_eq!(apply(&mut stepped), again, "n = {n}, again");
            assert_eq!(stepped.history_hash(), whole.history_hash(), "n = {n}");
        }
    }
}

/// One object of every kind kubeloop applies, Services of every type among them (their cluster IPs and node ports
/// are the server's to allocate).
const EVERY_KIND: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: team
---
apiVersion: v1
kind: Node
metadata:
  name: extra
  labels:
    disktype: ssd
---
apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: team
spec:
  containers:
  - name: app
    image: busybox:1.36
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: rs
spec:
  replicas: 1
  selector:
    matchLabels: {app: rs}
  template:
    metadata:
      labels: {app: rs}
    spec:
      containers:
      - name: app
        image: nginx:1.27
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: nginx:1.27
        ports:
        - containerPort: 8080
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
---
apiVersion: v1
kind: Secret
metadata:
  name: token
stringData:
  token: s3cret
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: api-nodeport
spec:
  type: NodePort
  selector: {app: api}
  ports:
  - name: http
    port: 80
    targetPort: 8080
  - name: metrics
    port: 9090
---
apiVersion: v1
kind: Service
metadata:
  name: api-lb
spec:
  type: LoadBalancer
  selector: {app: api}
  ports:
  - port: 443
    targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: api-headless
spec:
  clusterIP: None
  selector: {app: api}
  ports:
  - port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: external-db
spec:
  type: ExternalName
  externalName: db.example.com
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: api
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: api}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: by-hand
  labels:
    kubernetes.io/service-name: by-hand
addressType: IPv4
endpoints:
- addresses: [10.1.2.3]
ports:
- port: 80
";

/// The manifest texts of the examples and lessons (their `manifests:`, every `apply:` action and every file a
/// `kubectl apply -f` action reads), each with the scenario whose cluster it is applied to.
fn example_texts() -> Vec<(String, kubeloop_engine::scenario::Scenario, String)> {
    use kubeloop_engine::intervention::Intervention;
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out = Vec::new();
    for dir in [root.clone(), root.join("lessons")] {
        let mut files: Vec<_> = std::fs::read_dir(&dir).expect("examples/").flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
            let text = std::fs::read_to_string(&path).expect("read");
            let sc = kubeloop_engine::scenario::Scenario::parse(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let mut texts: Vec<String> = sc.manifests.iter().cloned().collect();
            for a in &sc.actions {
                match &a.what {
                    Intervention::Apply(t) => texts.push(t.clone()),
                    Intervention::Kubectl(line) if line.starts_with("apply -f ") => {
                        let file = dir.join(line.trim_start_matches("apply -f ").trim());
                        texts.push(std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}")));
                    }
                    _ => {}
                }
            }
            for t in texts {
                out.push((name.clone(), sc.clone(), t));
            }
        }
    }
    out
}

/// Applying what is already applied changes nothing, as with a real API server: every example's and lesson's
/// manifests and one object of every kind (Services of every type: their allocated cluster IPs and node ports are
/// kept), applied, left to the controllers for a minute, then applied again: every object `unchanged`, nothing
/// written (no resourceVersion moves), the node ports as allocated.
#[test]
fn an_identical_reapply_is_unchanged_for_every_example_and_every_kind() {
    let mut cases = example_texts();
    let fixture = kubeloop_engine::scenario::Scenario::parse("cluster:\n  nodes: 3\n").expect("cluster");
    cases.push(("every kind".into(), fixture, EVERY_KIND.to_string()));
    assert!(cases.len() >= 10, "examples found: {}", cases.len());
    for (name, sc, text) in cases {
        let (mut sim, _) = sc.cluster(1, None).expect("cluster");
        let first = kubectl::apply(&mut sim, &text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        sim.run_for(MINUTE);
        let ports = |sim: &mut Sim| kubectl(sim, "get svc -A").stdout;
        let (rv, before) = (sim.store().resource_version(), ports(&mut sim));
        let again = kubectl_stdin(&mut sim, "apply -f -", &text);
        assert_eq!(again.code, 0, "{name}: {}", again.text());
        let lines: Vec<&str> = again.stdout.lines().collect();
        assert_eq!(lines.len(), first.results.len(), "{name}: {}", again.text());
        for l in &lines {
            assert!(l.ends_with(" unchanged"), "{name}: {l}\n{}", again.text());
        }
        assert_eq!(sim.store().resource_version(), rv, "{name}: an identical re-apply wrote\n{}", again.text());
        assert_eq!(ports(&mut sim), before, "{name}: the Services' addresses and ports");
        // The same text twice in one apply: created once, then unchanged (a Service's allocations are kept).
        let (mut sim, _) = sc.cluster(1, None).expect("cluster");
        let twice = kubectl_stdin(&mut sim, "apply -f -", &format!("{text}\n---\n{text}"));
        assert_eq!(twice.code, 0, "{name} twice: {}", twice.text());
        let n = first.results.len();
        let lines: Vec<&str> = twice.stdout.lines().collect();
        assert!(lines[..n].iter().all(|l| l.ends_with(" created")), "{name} twice: {}", twice.text());
        assert!(lines[n..].iter().all(|l| l.ends_with(" unchanged")), "{name} twice: {}", twice.text());
    }
}

fn last_applied(sim: &Sim, kind: Kind, name: &str) -> String {
    let o = sim.store().peek(kind, &kubeloop_engine::api::ObjKey::new("default", name)).cloned().expect(name);
    o.meta().annotation(kubectl::LAST_APPLIED).expect("the annotation").to_string()
}

/// staging/src/k8s.io/kubectl/pkg/util/apply.go GetModifiedConfiguration: the annotation is the object as
/// `json.NewEncoder(...).Encode` writes it (sorted keys; `<`, `>`, `&` escaped; a number as Go prints a float64;
/// a newline at the end), with its own annotations map, which is `{}` when the manifest has none.
#[test]
fn the_last_applied_configuration_is_kubectls_json() {
    let mut sim = cluster();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: page\ndata:\n  body: \"<b>hi</b> & more\"\n";
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", cm).code, 0);
    assert_eq!(
        last_applied(&sim, Kind::ConfigMap, "page"),
        "{\"apiVersion\":\"v1\",\"data\":{\"body\":\"\\u003cb\\u003ehi\\u003c/b\\u003e \\u0026 more\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"page\",\"namespace\":\"default\"}}\n"
    );
    let noted = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noted\n  annotations:\n    note: x\n    kubectl.kubernetes.io/last-applied-configuration: stale\ndata:\n  n: \"1\"\n";
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", noted).code, 0);
    assert_eq!(
        last_applied(&sim, Kind::ConfigMap, "noted"),
        "{\"apiVersion\":\"v1\",\"data\":{\"n\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{\"note\":\"x\"},\"name\":\"noted\",\"namespace\":\"default\"}}\n"
    );
    // Numbers as a float64 prints in Go: 1.0 is 1, 1e21 is 1e+21, 0.0000001 is 1e-7.
    let floats = common::web(1).image("nginx:1.27").yaml().replace("name: web", "name: floats").replace("app: web", "app: floats")
        + "        resources:\n          requests:\n            cpu: 0.0000001\n            memory: 1e21\n          limits:\n            cpu: 1.0\n";
    let out = kubectl_stdin(&mut sim, "apply -f -", &floats);
    let text = last_applied(&sim, Kind::Deployment, "floats");
    assert!(
        text.contains("\"limits\":{\"cpu\":1},\"requests\":{\"cpu\":1e-7,\"memory\":1e+21}"),
        "{text}\n{}",
        out.text()
    );
}

/// `generateName`: `kubectl create -f` sends it and the API server names the object (names.SimpleNameGenerator:
/// five characters of `bcdfghjklmnpqrstvwxz2456789`, from the run's seeded generator); `kubectl apply` refuses it
/// (apply.go: `from PREFIX: cannot use generate name with apply`), `delete -f` has no name to delete.
#[test]
fn create_sends_generate_name_and_apply_refuses_it() {
    let mut sim = cluster();
    let job = BARE.replace("  name: bare\n", "  generateName: job-\n");
    let mut made = Vec::new();
    for _ in 0..2 {
        let out = kubectl_stdin(&mut sim, "create -f -", &job);
        assert_eq!(out.code, 0, "{}", out.text());
        let name =
            out.stdout.strip_prefix("pod/").and_then(|s| s.strip_suffix(" created\n")).expect("pod/NAME created");
        let suffix = name.strip_prefix("job-").expect("the prefix");
        assert!(suffix.len() == 5 && suffix.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{name}");
        assert!(sim.store().peek(Kind::Pod, &kubeloop_engine::api::ObjKey::new("default", name)).is_some(), "{name}");
        made.push(name.to_string());
    }
    assert_ne!(made[0], made[1]);
    // No name to print before the server gives one (printers.NamePrinter).
    let out = kubectl_stdin(&mut sim, "create -f - --dry-run=client", &job);
    assert!(out.code == 0 && out.stdout.starts_with("pod/<unknown> created"), "{}", out.text());
    let before = sim.store().count_of(Kind::Pod);
    let out = kubectl_stdin(&mut sim, "apply -f -", &job);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("from job-: cannot use generate name with apply"), "{}", out.text());
    let out = kubectl_stdin(&mut sim, "delete -f -", &job);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("resource name may not be empty"), "{}", out.text());
    assert_eq!(sim.store().count_of(Kind::Pod), before, "neither wrote");
    let nameless = BARE.replace("  name: bare\n", "  labels: {a: b}\n");
    let out = kubectl_stdin(&mut sim, "create -f -", &nameless);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("metadata.name: Required value: name or generateName is required"), "{}", out.text());
}
