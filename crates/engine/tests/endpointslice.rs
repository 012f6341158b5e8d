//! The EndpointSlice controller (pkg/controller/endpointslice): a Service's slices follow its pods: ready pods are
//! ready endpoints, a pod that turns not ready stays with `ready: false`, a terminating pod is `terminating`,
//! slices hold at most 100 endpoints, a Service without endpoints keeps one placeholder slice, and its slices go
//! with it.

mod common;

use kubeloop_engine::api::{EndpointSlice, Kind, ObjKey};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{MINUTE, SECOND};

const SVC: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";

fn sim_with(replicas: i32, nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, &common::web(replicas).cpu("10m").yaml()).expect("apply web");
    kubectl::apply(&mut sim, SVC).expect("apply service");
    sim.run_for(2 * MINUTE);
    sim
}

fn slices(sim: &Sim) -> Vec<EndpointSlice> {
    sim.store()
        .objects(Kind::EndpointSlice)
        .filter_map(|o| o.as_endpointslice())
        .filter(|e| e.metadata.label("kubernetes.io/service-name") == Some("web"))
        .cloned()
        .collect()
}

fn ready_endpoints(sim: &Sim) -> usize {
    slices(sim).iter().flat_map(|s| s.endpoints().iter()).filter(|e| e.conditions.ready == Some(true)).count()
}

#[test]
fn ready_pods_are_ready_endpoints_owned_by_the_service() {
    let sim = sim_with(3, 3);
    let s = slices(&sim);
    assert_eq!(s.len(), 1, "one slice");
    let slice = &s[0];
    assert_eq!(&*slice.address_type, "IPv4");
    assert_eq!(slice.ports().len(), 1);
    assert_eq!(slice.ports()[0].port, Some(80), "targetPort defaults to the port");
    assert_eq!(ready_endpoints(&sim), 3);
    assert!(slice.metadata.name.starts_with("web-"), "generateName: {}", slice.metadata.name);
    assert_eq!(slice.metadata.label("endpointslice.kubernetes.io/managed-by"), Some("endpointslice-controller.k8s.io"));
    let owner = &slice.metadata.owner_references[0];
    assert_eq!((&*owner.kind, owner.controller), ("Service", Some(true)));
    for e in slice.endpoints() {
        let pod = e.target_ref.as_ref().expect("targetRef");
        assert_eq!(&*pod.kind, "Pod");
        assert!(!e.node_name.is_empty());
        assert_eq!(e.conditions.serving, Some(true));
        assert_eq!(e.conditions.terminating, Some(false));
    }
}

#[test]
fn a_terminating_pod_stays_as_terminating_until_it_is_gone() {
    let mut sim = sim_with(3, 3);
    let name = sim.store().objects(Kind::Pod).next().map(|o| o.meta().name.to_string()).expect("a pod");
    sim.delete(Kind::Pod, &ObjKey::new("default", &name), &DeleteOptions::default()).expect("delete");
    sim.run_for(SECOND / 2);
    let terminating: Vec<_> = slices(&sim)
        .iter()
        .flat_map(|s| s.endpoints().to_vec())
        .filter(|e| e.target_ref.as_ref().is_some_and(|r| *r.name == *name))
        .collect();
    assert_eq!(terminating.len(), 1, "still listed while it terminates");
    assert_eq!(terminating[0].conditions.terminating, Some(true));
    assert_eq!(terminating[0].conditions.ready, Some(false), "ready is serving and not terminating");
    sim.run_for(MINUTE);
    assert_eq!(ready_endpoints(&sim), 3, "the replacement is an endpoint and the old pod is gone");
    let all: usize = slices(&sim).iter().map(|s| s.endpoints().len()).sum();
    assert_eq!(all, 3);
}

#[test]
fn a_hundred_endpoints_per_slice() {
    let sim = sim_with(150, 3);
    let s = slices(&sim);
    let mut sizes: Vec<usize> = s.iter().map(|x| x.endpoints().len()).collect();
    sizes.sort_unstable();
    assert_eq!(sizes.iter().sum::<usize>(), 150, "{sizes:?}");
    assert!(sizes.iter().all(|n| *n <= 100), "{sizes:?}");
    assert_eq!(s.len(), 2, "{sizes:?}");
}

#[test]
fn no_endpoints_keep_a_placeholder_and_the_slices_go_with_the_service() {
    let mut sim = sim_with(2, 1);
    common::kubectl(&mut sim, "scale deploy web --replicas=0");
    sim.run_for(MINUTE);
    let s = slices(&sim);
    assert_eq!(s.len(), 1, "one placeholder");
    assert!(s[0].endpoints.is_none() && s[0].ports.is_none(), "{:?}", s[0]);
    common::kubectl(&mut sim, "delete svc web");
    sim.run_for(MINUTE);
    assert!(slices(&sim).is_empty(), "garbage collected with their owner");
}

/// `endpointSliceTracker`: a sync whose slice cache has not caught up with the controller's own writes waits (and
/// is retried) rather than writing duplicates: a Service applied with its pods ends with one slice, whatever the
/// watch latencies of the seed.
#[test]
fn a_stale_slice_cache_writes_no_duplicates() {
    for seed in 1..=20 {
        let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
        for _ in 0..3 {
            sim.add_node(NodeConfig::default()).expect("node");
        }
        let text = format!("{}---\n{SVC}", common::web(4).yaml());
        kubectl::apply(&mut sim, &text).expect("apply");
        sim.run_for(MINUTE);
        let s = slices(&sim);
        assert_eq!(s.len(), 1, "seed {seed}: {:?}", s.iter().map(|x| x.endpoints().len()).collect::<Vec<_>>());
        assert_eq!(ready_endpoints(&sim), 4, "seed {seed}");
    }
}

/// A Service without a selector and an EndpointSlice written by hand (an external database, say): the slice is
/// applied as a person's own, the controller leaves it alone, and describe lists its endpoints.
#[test]
fn a_hand_written_slice_backs_a_service_without_selector() {
    let mut sim = sim_with(1, 1);
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  ports:\n  - {name: pg, port: 5432}\n---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: db-1\n  labels: {kubernetes.io/service-name: db}\naddressType: IPv4\nendpoints:\n- addresses: [192.168.10.5]\n  conditions: {ready: true}\nports:\n- {name: pg, port: 5432}\n";
    let report = kubectl::apply(&mut sim, text).expect("apply");
    assert!(
        report.results.iter().any(|r| r.to_string() == "endpointslice.discovery.k8s.io/db-1 created"),
        "{report:?}"
    );
    sim.run_for(MINUTE);
    let mine: Vec<EndpointSlice> = sim
        .store()
        .objects(Kind::EndpointSlice)
        .filter_map(|o| o.as_endpointslice())
        .filter(|e| e.metadata.label("kubernetes.io/service-name") == Some("db"))
        .cloned()
        .collect();
    assert_eq!(mine.len(), 1, "the controller made none of its own for a Service without selector");
    assert_eq!(mine[0].ports()[0].protocol.as_ref(), "TCP", "SetDefaults_EndpointPort");
    let out = common::kubectl(&mut sim, "describe svc db");
    assert!(out.stdout.contains("Endpoints:                192.168.10.5:5432\n"), "{}", out.stdout);
    // Validation, and the address type never changes.
    let bad = text.replace("192.168.10.5", "192.168.10.500");
    let e = kubectl::apply(&mut sim, &bad).expect_err("not an IPv4 address");
    assert!(
        e.message
            .contains("endpoints[0].addresses[0]: Invalid value: \"192.168.10.500\": must be a valid IPv4 address"),
        "{e}"
    );
    let v6 = text.replace("addressType: IPv4", "addressType: IPv6").replace("192.168.10.5", "fd00::5");
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &v6);
    assert!(out.stderr.contains("addressType: Invalid value: \"IPv6\": field is immutable"), "{out:?}");
}

/// `kubectl describe service` reads the slices as upstream's `formatEndpointSlices`: `<none>` only without a slice,
/// nothing when none is ready, an unset `ready` counted as ready, `[v6]:port`, three shown then `+ N more...` counted
/// as upstream counts (a fourth endpoint met, ready or not, makes the list "more"), and a Service without ports (an
/// ExternalName one) prints no `Endpoints:` line.
#[test]
fn describe_service_reads_the_slices_as_kubectl_does() {
    let mut sim = sim_with(1, 1);
    let slice = |name: &str, svc: &str, ty: &str, ports: &str, endpoints: &[(&str, &str)]| {
        let eps: String =
            endpoints.iter().map(|(a, c)| format!("- addresses: [\"{a}\"]\n  conditions: {c}\n")).collect();
        format!("---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/service-name: {svc}}}\naddressType: {ty}\nports: {ports}\nendpoints:\n{eps}")
    };
    let svc = |name: &str, ports: &str| {
        format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  clusterIP: None\n  ports: {ports}\n")
    };
    let pg = "[{name: pg, port: 5432}]";
    let text = [
        svc("lonely", pg),
        svc("down", pg),
        slice("down-1", "down", "IPv4", pg, &[("10.1.0.1", "{ready: false}")]),
        svc("some", pg),
        slice("some-1", "some", "IPv4", pg, &[("10.1.0.1", "{}"), ("10.1.0.2", "{ready: false}")]),
        svc("v6", pg),
        slice("v6-1", "v6", "IPv6", pg, &[("fd00::5", "{ready: true}")]),
        svc("four", pg),
        slice(
            "four-1",
            "four",
            "IPv4",
            pg,
            &[("10.1.0.1", "{}"), ("10.1.0.2", "{}"), ("10.1.0.3", "{}"), ("10.1.0.4", "{ready: false}")],
        ),
        svc("five", pg),
        slice(
            "five-1",
            "five",
            "IPv4",
            pg,
            &[("10.1.0.1", "{}"), ("10.1.0.2", "{}"), ("10.1.0.3", "{}"), ("10.1.0.4", "{}"), ("10.1.0.5", "{}")],
        ),
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: portless\nspec:\n  type: ExternalName\n  externalName: db.example.com\n".to_string(),
        slice("portless-1", "portless", "IPv4", "[]", &[("10.1.0.7", "{}")]),
    ]
    .concat();
    kubectl::apply(&mut sim, &text).unwrap_or_else(|e| panic!("{e}"));
    sim.run_for(SECOND);
    let endpoints = |sim: &mut Sim, name: &str| -> Vec<String> {
        let out = common::kubectl(sim, &format!("describe svc {name}"));
        out.stdout.lines().filter_map(|l| l.strip_prefix("Endpoints:")).map(|l| l.trim().to_string()).collect()
    };
    for (name, want) in [
        ("lonely", vec!["<none>"]),
        ("down", vec![""]),
        ("some", vec!["10.1.0.1:5432"]),
        ("v6", vec!["[fd00::5]:5432"]),
        ("four", vec!["10.1.0.1:5432,10.1.0.2:5432,10.1.0.3:5432 + 0 more..."]),
        ("five", vec!["10.1.0.1:5432,10.1.0.2:5432,10.1.0.3:5432 + 2 more..."]),
        ("portless", vec![]),
    ] {
        assert_eq!(endpoints(&mut sim, name), want, "svc/{name}");
    }
}

/// staging/src/k8s.io/endpointslice/utils.go podToEndpoint: with `publishNotReadyAddresses` every endpoint is
/// ready, a pod that is not ready (serving false) and a terminating one alike.
#[test]
fn publish_not_ready_addresses_makes_every_endpoint_ready() {
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    for _ in 0..2 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    // Ready only after 5 minutes: for the test's length, never.
    let web = common::web(2).yaml().replace(
        "        image: nginx:1.27\n",
        "        image: nginx:1.27\n        readinessProbe:\n          tcpSocket: {port: 80}\n          initialDelaySeconds: 300\n",
    );
    kubectl::apply(&mut sim, &web).expect("apply web");
    kubectl::apply(&mut sim, &SVC.replace("spec:\n", "spec:\n  publishNotReadyAddresses: true\n")).expect("svc");
    sim.run_for(MINUTE);
    let endpoints: Vec<_> = slices(&sim).iter().flat_map(|s| s.endpoints().to_vec()).collect();
    assert_eq!(endpoints.len(), 2, "{endpoints:?}");
    for e in &endpoints {
        assert_eq!((e.conditions.ready, e.conditions.serving), (Some(true), Some(false)), "{e:?}");
    }
    let name = sim.store().objects(Kind::Pod).next().map(|o| o.meta().name.to_string()).expect("a pod");
    sim.delete(Kind::Pod, &ObjKey::new("default", &name), &DeleteOptions::default()).expect("delete");
    // The endpoint as it terminates: looked at every 10 ms until it is gone.
    let mut seen = Vec::new();
    for _ in 0..100 {
        sim.run_for(SECOND / 100);
        let all = slices(&sim).into_iter().flat_map(|s| s.endpoints().to_vec());
        seen.extend(all.filter(|e| {
            e.target_ref.as_ref().is_some_and(|r| *r.name == *name) && e.conditions.terminating == Some(true)
        }));
    }
    assert!(!seen.is_empty(), "listed while it terminates");
    assert!(seen.iter().all(|e| e.conditions.ready == Some(true)), "{seen:?}");
}

/// staging/src/k8s.io/endpointslice/utils.go setEndpointSliceLabels: a slice carries its Service's labels but the
/// reserved ones, plus `service.kubernetes.io/headless` when the Service has no cluster IP; a change of the
/// Service's labels reaches its slices.
#[test]
fn slices_carry_the_service_labels_and_the_headless_label() {
    let mut sim = sim_with(2, 2);
    let headless = SVC
        .replace("name: web\n", "name: web-headless\n  labels: {tier: front, service.kubernetes.io/headless: x}\n")
        .replace("spec:\n", "spec:\n  clusterIP: None\n");
    kubectl::apply(&mut sim, &headless).expect("headless");
    sim.run_for(10 * SECOND);
    let of = |sim: &Sim, svc: &str| -> Vec<EndpointSlice> {
        let s = sim.store().objects(Kind::EndpointSlice).filter_map(|o| o.as_endpointslice());
        s.filter(|e| e.metadata.label("kubernetes.io/service-name") == Some(svc)).cloned().collect()
    };
    let h = of(&sim, "web-headless");
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0].metadata.label("service.kubernetes.io/headless"), Some(""));
    assert_eq!(h[0].metadata.label("tier"), Some("front"));
    let w = of(&sim, "web");
    assert_eq!(w[0].metadata.label("service.kubernetes.io/headless"), None);
    common::kubectl(&mut sim, "label svc web-headless tier=back --overwrite");
    sim.run_for(10 * SECOND);
    let h = of(&sim, "web-headless");
    assert_eq!(h[0].metadata.label("tier"), Some("back"), "{:?}", h[0].metadata.labels);
    assert_eq!(h[0].metadata.label("service.kubernetes.io/headless"), Some(""));
}

/// pkg/registry/discovery/endpointslice/strategy.go: an EndpointSlice has a generation, 1 when created and one
/// more whenever anything but its metadata changes, or its labels do.
#[test]
fn a_slice_has_a_generation_that_follows_its_endpoints() {
    let mut sim = sim_with(2, 2);
    // A Service over pods that are all ready already: its slice is written once, generation 1.
    kubectl::apply(&mut sim, &SVC.replace("name: web\n", "name: web2\n")).expect("web2");
    sim.run_for(5 * SECOND);
    let slice = sim
        .store()
        .objects(Kind::EndpointSlice)
        .find(|o| o.meta().label("kubernetes.io/service-name") == Some("web2"))
        .map(|o| o.meta().name.to_string())
        .expect("web2's slice");
    let key = ObjKey::new("default", &slice);
    let generation = |sim: &Sim| sim.store().peek(Kind::EndpointSlice, &key).map(|o| o.meta().generation);
    assert_eq!(generation(&sim), Some(1));
    common::kubectl(&mut sim, "scale deploy web --replicas=3");
    sim.run_for(MINUTE);
    let after_scale = generation(&sim).expect("the slice");
    assert!(after_scale > 1, "the new endpoint changed it: {after_scale}");
    common::kubectl(&mut sim, "label svc web2 tier=front");
    sim.run_for(10 * SECOND);
    assert_eq!(generation(&sim), Some(after_scale + 1), "a label change");
    common::kubectl(&mut sim, &format!("annotate endpointslice {slice} note=x"));
    assert_eq!(generation(&sim), Some(after_scale + 1), "an annotation is metadata");
}

/// What each Service's slices should hold, computed from scratch from the store: per Service name, each endpoint as
/// `(address, port set, ready, serving, terminating, node, pod)`, sorted.
fn expected_endpoints(sim: &Sim) -> std::collections::BTreeMap<String, Vec<String>> {
    use kubeloop_engine::api::{IntOrString, LabelSelector};
    let mut out = std::collections::BTreeMap::new();
    for svc in sim.store().objects(Kind::Service).filter_map(|o| o.as_service()) {
        if svc.spec.selector.is_empty() {
            continue;
        }
        let selector = LabelSelector::from_labels(svc.spec.selector.clone());
        let mut eps = Vec::new();
        for pod in common::pods(sim) {
            let selected = pod.metadata.namespace == svc.metadata.namespace && selector.matches(&pod.metadata.labels);
            if !selected || pod.status.pod_ip.is_empty() {
                continue;
            }
            // The number of the pod's first container port called `name`.
            let named_port = |name: &str| {
                let mut all = pod.spec.containers.iter().flat_map(|c| c.ports.iter());
                all.find(|cp| *cp.name == *name).map(|cp| cp.container_port)
            };
            let ports: Vec<String> = svc
                .spec
                .ports
                .iter()
                .filter_map(|p| match &p.target_port {
                    None => Some(p.port),
                    Some(IntOrString::Int(n)) => Some(*n),
                    Some(IntOrString::String(name)) => named_port(name),
                })
                .map(|n| n.to_string())
                .collect();
            let serving = pod.is_ready();
            let terminating = pod.metadata.deletion_timestamp.is_some();
            let ready = svc.spec.publish_not_ready_addresses == Some(true) || (serving && !terminating);
            eps.push(format!(
                "{} [{}] ready={ready} serving={serving} terminating={terminating} {} {}",
                pod.status.pod_ip,
                ports.join(","),
                pod.spec.node_name,
                pod.metadata.name
            ));
        }
        eps.sort();
        out.insert(svc.metadata.name.to_string(), eps);
    }
    out
}

/// What the Services' slices hold, in the form of [`expected_endpoints`].
fn held_endpoints(sim: &Sim) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for svc in sim.store().objects(Kind::Service).filter_map(|o| o.as_service()) {
        if !svc.spec.selector.is_empty() {
            out.insert(svc.metadata.name.to_string(), Vec::new());
        }
    }
    for slice in sim.store().objects(Kind::EndpointSlice).filter_map(|o| o.as_endpointslice()) {
        let Some(eps) = slice.metadata.label("kubernetes.io/service-name").and_then(|n| out.get_mut(n)) else {
            continue;
        };
        let ports: Vec<String> = slice.ports().iter().map(|p| p.port.unwrap_or(0).to_string()).collect();
        for e in slice.endpoints() {
            let c = &e.conditions;
            eps.push(format!(
                "{} [{}] ready={} serving={} terminating={} {} {}",
                e.addresses.join(","),
                ports.join(","),
                c.ready == Some(true),
                c.serving == Some(true),
                c.terminating == Some(true),
                e.node_name,
                e.target_ref.as_ref().map_or("", |r| &*r.name)
            ));
        }
    }
    for eps in out.values_mut() {
        eps.sort();
    }
    out
}

/// Under churn and faults (lost watch events, conflicts, a crashed controller manager, dead nodes, relabelled pods
/// and Services, a zone change, slices deleted by hand, changed ports), once things settle every Service's slices
/// hold exactly the endpoints its pods make now, each once, computed here from scratch: what the controller's
/// memo of each Service's slices (which most syncs use) leaves is what recomputing everything would.
#[test]
fn slices_follow_their_pods_through_churn_and_faults() {
    let text = include_str!("endpointslice-under-faults.yaml");
    let sc = kubeloop_engine::Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mut run = sc.start(Default::default()).unwrap_or_else(|e| panic!("{e}"));
    // Quiet moments: before the faults, after the Service's ports changed, after every node came back.
    for at in [170 * SECOND, 15 * MINUTE + 55 * SECOND, 30 * MINUTE] {
        run.run_to(at);
        let (expected, held) = (expected_endpoints(run.sim()), held_endpoints(run.sim()));
        assert!(expected.values().map(Vec::len).sum::<usize>() > 20, "at {at} ms: the Services select pods");
        assert_eq!(held, expected, "at {at} ms");
    }
    let own = &run.sim().controller("endpointslice").expect("the controller").work().own;
    let (part, whole) = (own.get("partSyncs"), own.get("wholeSyncs"));
    assert!(part > 10 * whole, "most syncs read only what changed: {part} partial, {whole} whole");
}
