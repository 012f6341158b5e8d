//! ConfigMaps, Secrets and ServiceAccounts: applied (also as a `kind: List`), validated with upstream's messages,
//! stored and served by kubectl with upstream's columns and describers. Golden outputs.
mod common;

use common::{check, cluster, golden, kubectl, kubectl_stdin};
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::Output;

const APP: &str = "\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
imagePullSecrets:
- name: registry
---
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
---
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
    let out = kubectl_stdin(&mut sim, "apply -f -", APP);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    sim
}

#[test]
fn applies_with_one_note_per_stored_kind() {
    let mut sim = cluster();
    let out = apply(&mut sim, "config-apply", APP);
    assert_eq!(out.code, 0);
}

#[test]
fn served_with_upstreams_columns_and_describers() {
    let mut sim = applied();
    check(&mut sim, "config-get", "get configmaps,secrets,serviceaccounts");
    check(&mut sim, "config-get-short", "get cm,sa -o wide --show-labels");
    check(&mut sim, "config-describe-configmap", "describe cm web-config");
    check(&mut sim, "config-describe-secret", "describe secret web-secret");
    check(&mut sim, "config-describe-serviceaccount", "describe sa web");
    check(&mut sim, "config-secret-yaml", "get secret web-secret -o yaml");
    check(&mut sim, "config-explain-configmap", "explain configmap");
    check(&mut sim, "config-delete", "delete cm web-config");
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
    let bad = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ok\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n";
    apply(&mut sim, "config-list-unknown-kind", bad);
    // A listed object comes back as a List: applying what `get -o yaml` prints gives the same objects.
    let yaml = kubectl(&mut sim, "get cm,sa -o yaml").stdout;
    let out = kubectl_stdin(&mut sim, "apply -f -", &yaml);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}
