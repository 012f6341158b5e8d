//! The kinds kubeloop stores without simulating them: each is its registry row and its fields' rows of
//! `data/explain.tsv`, nothing more. PriorityClass is the one of them here, end to end through kubectl; the
//! registry's rows are checked against their schemas for every stored kind.

mod common;

use common::{check, cluster, golden, kubectl, kubectl_stdin};
use kubeloop_engine::api::{Kind, KINDS};
use kubeloop_engine::manifest::{schema_type, value_type};

const CLASSES: &str = "\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000000
globalDefault: false
description: \"This priority class should be used for XYZ service pods only.\"
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: batch
  labels:
    tier: batch
value: -5
preemptionPolicy: Never
";

#[test]
fn a_priority_class_is_applied_printed_described_explained_and_deleted_as_upstream_does() {
    let mut sim = cluster();
    let out = kubectl_stdin(&mut sim, "apply -f -", CLASSES);
    golden("stored-apply", &out.text());
    assert_eq!(out.code, 0);
    let again = kubectl_stdin(&mut sim, "apply -f -", CLASSES);
    assert!(again.stdout.contains("priorityclass.scheduling.k8s.io/batch unchanged"), "{}", again.text());
    check(&mut sim, "stored-get", "get pc -o wide --show-labels");
    check(&mut sim, "stored-get-yaml", "get priorityclass batch -o yaml");
    check(&mut sim, "stored-get-json", "get priorityclasses.scheduling.k8s.io high-priority -o json");
    check(&mut sim, "stored-describe", "describe pc batch");
    check(&mut sim, "stored-explain", "explain priorityclass");
    check(&mut sim, "stored-api-resources", "api-resources --api-group=scheduling.k8s.io");
    let out = check(&mut sim, "stored-delete", "delete pc batch");
    assert_eq!(out.code, 0);
    let out = kubectl(&mut sim, "get pc batch");
    assert_eq!(out.code, 1, "{}", out.text());
}

#[test]
fn a_stored_kinds_fields_are_held_to_its_schema_at_their_lines() {
    let mut sim = cluster();
    let head = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: x\n";
    for (name, body) in [
        ("stored-bad-type", "value: high\n"),
        ("stored-out-of-range", "value: 3000000000\n"),
        ("stored-unknown-field", "value: 3\nspec:\n  a: 1\n"),
        ("stored-bad-boolean", "value: 3\nglobalDefault: maybe\n"),
    ] {
        let out = kubectl_stdin(&mut sim, "apply -f -", &format!("{head}{body}"));
        assert_eq!(out.code, 1, "{name}: {}", out.text());
        golden(name, &out.text());
    }
    // Nothing was stored.
    let out = kubectl(&mut sim, "get pc");
    assert_eq!(out.text(), "No resources found\n");
}

#[test]
fn every_stored_kinds_columns_and_describe_lines_name_fields_of_its_schema() {
    for info in KINDS.iter() {
        let Some(stored) = info.stored else { continue };
        let ty = schema_type(info.kind).unwrap_or_else(|| panic!("{}: no rows in explain.tsv", info.name));
        let paths = stored.columns.iter().chain(stored.describe).map(|(_, path)| *path);
        for path in paths.filter(|p| !p.is_empty()) {
            let (first, rest) = path.split_once('.').unwrap_or((path, ""));
            assert!(value_type(ty, first).is_some(), "{}: {path} is not a field of {ty}", info.name);
            if first == "metadata" {
                assert!(["name", "namespace", "labels", "annotations"].contains(&rest), "{}: {path}", info.name);
            }
        }
        assert!(info.applicable, "{}: a stored kind is applied", info.name);
        assert!(Kind::ALL.contains(&info.kind));
    }
}
