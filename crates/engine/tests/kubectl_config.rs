//! ConfigMaps, Secrets and ServiceAccounts: applied (also as a `kind: List`), validated with upstream's messages,
//! stored and served by kubectl with upstream's columns and describers. Golden outputs.
mod common;

use common::{check, cluster, golden, kubectl, kubectl_stdin};
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::Output;
use kubeloop_engine::time::SECOND;

/// The objects the tests apply, one of each stored kind: a ServiceAccount, a ConfigMap and a Secret, in one text.
static APP: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| [SERVICE_ACCOUNT, CONFIG_MAP, SECRET].join("---\n"));

const SERVICE_ACCOUNT: &str = "\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
imagePullSecrets:
- name: registry
";

const CONFIG_MAP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  labels: {app: web}
data:
  LOG_LEVEL: info
  app.properties: |
    color=blue
    size=3
binaryData:
  logo.png: iVBORw0KGgo=
";

const SECRET: &str = "\
apiVersion: v1
kind: Secret
metadata:
  name: web-secret
stringData:
  password: hunter2
data:
  token: c2VjcmV0
";

/// `kubectl apply -f -` of `text`, checked against the golden file `name` (which shows the text it was given).
fn apply(sim: &mut kubeloop_engine::sim::Sim, name: &str, text: &str) -> Output {
    let out = kubectl_stdin(sim, "apply -f -", text);
    golden(name, &format!("$ kubectl apply -f - <<EOF\n{text}EOF\n{}", out.text()));
    out
}

fn applied() -> kubeloop_engine::sim::Sim {
    let mut sim = cluster();
    let out = kubectl_stdin(&mut sim, "apply -f -", &APP);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    sim
}

#[test]
fn applies_with_one_note_per_stored_kind() {
    let mut sim = cluster();
    let out = apply(&mut sim, "config-apply", &APP);
    assert_eq!(out.code, 0);
}

#[test]
fn served_with_upstreams_columns_and_describers() {
    let mut sim = applied();
    for (name, line) in [
        ("config-get", "get configmaps,secrets,serviceaccounts"),
        ("config-get-short", "get cm,sa -o wide --show-labels"),
        ("config-describe-configmap", "describe cm web-config"),
        ("config-describe-secret", "describe secret web-secret"),
        ("config-describe-serviceaccount", "describe sa web"),
        ("config-secret-yaml", "get secret web-secret -o yaml"),
        ("config-explain-configmap", "explain configmap"),
        ("config-delete", "delete cm web-config"),
    ] {
        check(&mut sim, name, line);
    }
    assert!(sim.store().peek(Kind::ConfigMap, &ObjKey::new("default", "web-config")).is_none());
}

#[test]
fn string_data_is_merged_into_data_and_never_stored() {
    let sim = applied();
    let s = sim.store().peek(Kind::Secret, &ObjKey::new("default", "web-secret")).expect("secret");
    let s = s.as_secret().expect("a Secret");
    assert!(s.string_data.is_empty());
    assert_eq!(s.data.get("password").map(|v| v.to_string()), Some("aHVudGVyMg==".into()));
    assert_eq!(&*s.type_, "Opaque", "SetDefaults_Secret");
}

#[test]
fn refused_with_upstreams_messages_at_their_lines() {
    let mut sim = cluster();
    let bad_key = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ok: x\n  no/slash: y\n";
    apply(&mut sim, "config-invalid-key", bad_key);
    let both = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: x\nbinaryData:\n  a: eA==\n";
    apply(&mut sim, "config-duplicate-key", both);
    let b64 = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: not*base64\n";
    apply(&mut sim, "config-bad-base64", b64);
    let tls = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: kubernetes.io/tls\ndata:\n  tls.crt: eA==\n";
    apply(&mut sim, "config-tls-missing-key", tls);
    for kind in [Kind::ConfigMap, Kind::Secret] {
        assert_eq!(sim.store().objects(kind).count(), 0, "nothing of a refused apply is stored");
    }
}

#[test]
fn a_list_applies_its_items_with_their_lines() {
    let mut sim = cluster();
    let list = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: one
- apiVersion: v1
  kind: ServiceAccount
  metadata:
    name: two
";
    apply(&mut sim, "config-list-apply", list);
    assert!(sim.store().peek(Kind::ServiceAccount, &ObjKey::new("default", "two")).is_some());
    let bad = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ok\n- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata:\n    name: web\n";
    apply(&mut sim, "config-list-unknown-kind", bad);
    // A listed object comes back as a List: applying what `get -o yaml` prints gives the same objects.
    let yaml = kubectl(&mut sim, "get cm,sa -o yaml").stdout;
    let out = kubectl_stdin(&mut sim, "apply -f -", &yaml);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

const SERVICES: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web-np
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 443
    targetPort: https
---
apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  clusterIP: None
  selector: {app: db}
  ports:
  - port: 5432
---
apiVersion: v1
kind: Service
metadata:
  name: search
spec:
  type: ExternalName
  externalName: search.example.com
";

#[test]
fn services_get_their_addresses_and_upstreams_defaults() {
    let mut sim = cluster();
    apply(&mut sim, "service-apply", SERVICES);
    // The EndpointSlice controller has a moment to see them.
    sim.run_for(2 * SECOND);
    check(&mut sim, "service-get", "get services -o wide");
    check(&mut sim, "service-endpointslices", "get endpointslices");
    let slice = sim
        .store()
        .objects(Kind::EndpointSlice)
        .find(|o| o.meta().label("kubernetes.io/service-name") == Some("web"))
        .map(|o| o.meta().name.to_string())
        .expect("web's slice");
    check(&mut sim, "service-endpointslice-yaml", &format!("get endpointslice {slice} -o yaml"));
    check(&mut sim, "service-describe", "describe svc web web-np");
    check(&mut sim, "service-yaml", "get svc web -o yaml");
    let svc = |name: &str| {
        sim.store()
            .peek(Kind::Service, &ObjKey::new("default", name))
            .and_then(|o| o.as_service().cloned())
            .expect(name)
    };
    let web = svc("web");
    let ip = kubeloop_engine::api::service::parse_ipv4(&web.spec.cluster_ip).expect("an address");
    let range = kubeloop_engine::api::service::ServiceRange::DEFAULT;
    let upper = range.first() + range.static_band();
    assert!(ip >= upper && ip <= range.last(), "from the range's dynamic part: {}", web.spec.cluster_ip);
    assert_eq!(web.spec.ports[0].protocol.as_ref(), "TCP");
    let np = svc("web-np");
    assert!((30000..=32767).contains(&np.spec.ports[0].node_port), "{:?}", np.spec.ports);
    assert_eq!(svc("db").spec.cluster_ip.as_ref(), "None", "headless");
    assert!(svc("search").spec.cluster_ip.is_empty(), "an ExternalName Service has no address");
}

#[test]
fn services_are_refused_with_upstreams_messages() {
    let mut sim = cluster();
    let head = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n";
    apply(&mut sim, "service-no-ports", &format!("{head}  selector: {{app: web}}\n"));
    apply(&mut sim, "service-bad-port", &format!("{head}  ports:\n  - port: 70000\n"));
    apply(&mut sim, "service-unnamed-ports", &format!("{head}  ports:\n  - port: 80\n  - port: 443\n"));
    apply(&mut sim, "service-bad-type", &format!("{head}  type: Ingress\n  ports:\n  - port: 80\n"));
    apply(&mut sim, "service-ip-out-of-range", &format!("{head}  clusterIP: 10.0.0.1\n  ports:\n  - port: 80\n"));
    apply(&mut sim, "service-node-port-on-cluster-ip", &format!("{head}  ports:\n  - port: 80\n    nodePort: 30080\n"));
    let first = format!("{head}  clusterIP: 10.96.0.10\n  ports:\n  - port: 53\n");
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", &first).code, 0);
    let taken = first.replace("name: s", "name: t");
    apply(&mut sim, "service-ip-taken", &taken);
}

/// Update validation: an immutable ConfigMap or Secret keeps its data, a Secret its type, a Service its cluster IP
/// (a re-apply that does not name it keeps it).
#[test]
fn updates_keep_what_upstream_makes_immutable() {
    let mut sim = common::cluster();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\nimmutable: true\ndata:\n  a: \"1\"\n";
    assert_eq!(common::kubectl_stdin(&mut sim, "apply -f -", cm).code, 0);
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &cm.replace("a: \"1\"", "a: \"2\""));
    assert!(
        out.stderr
            .contains("ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"),
        "{out:?}"
    );
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  k: v\n";
    assert_eq!(common::kubectl_stdin(&mut sim, "apply -f -", secret).code, 0);
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &format!("{secret}type: example.com/other\n"));
    assert!(
        out.stderr.contains("Secret \"s\" is invalid: type: Invalid value: \"example.com/other\": field is immutable"),
        "{out:?}"
    );
    let svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n";
    assert_eq!(common::kubectl_stdin(&mut sim, "apply -f -", svc).code, 0);
    let ip = |sim: &kubeloop_engine::sim::Sim| {
        sim.store()
            .objects(kubeloop_engine::api::Kind::Service)
            .filter_map(|o| o.as_service())
            .find(|s| &*s.metadata.name == "web")
            .map(|s| s.spec.cluster_ip.to_string())
            .expect("service")
    };
    let first = ip(&sim);
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &svc.replace("port: 80", "port: 8080"));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(ip(&sim), first, "a re-apply keeps the allocated address");
    let out =
        common::kubectl_stdin(&mut sim, "apply -f -", &svc.replace("  ports:", "  clusterIP: 10.96.0.77\n  ports:"));
    assert!(
        out.stderr.contains("spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.77\"}: may not change once set"),
        "{out:?}"
    );
}
