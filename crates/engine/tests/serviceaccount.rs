//! The service account controller (pkg/controller/serviceaccount): every active namespace has a ServiceAccount
//! named `default`, made again when it is deleted, never made in a namespace being deleted.

mod common;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{MINUTE, SECOND};

fn default_sa(sim: &Sim, namespace: &str) -> Option<String> {
    sim.store().peek(Kind::ServiceAccount, &ObjKey::new(namespace, "default")).map(|o| o.meta().uid.to_string())
}

#[test]
fn every_namespace_gets_a_default_service_account() {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    sim.run_for(SECOND);
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert!(default_sa(&sim, ns).is_some(), "{ns} has its default ServiceAccount");
    }
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n").expect("apply");
    sim.run_for(SECOND);
    assert!(default_sa(&sim, "team").is_some(), "a new namespace gets one at once");
}

#[test]
fn a_deleted_default_service_account_comes_back() {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    sim.run_for(SECOND);
    let before = default_sa(&sim, "default").expect("default/default");
    let out = common::kubectl(&mut sim, "delete serviceaccount default");
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(SECOND);
    let after = default_sa(&sim, "default").expect("made again");
    assert_ne!(before, after, "a new object, not the old one");
    // Another account's deletion is none of its business.
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n").expect("apply");
    sim.run_for(SECOND);
    common::kubectl(&mut sim, "delete sa web");
    sim.run_for(SECOND);
    assert!(sim.store().peek(Kind::ServiceAccount, &ObjKey::new("default", "web")).is_none());
}

#[test]
fn a_namespace_being_deleted_gets_none_and_loses_its_own() {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n").expect("apply");
    sim.run_for(SECOND);
    assert!(default_sa(&sim, "team").is_some());
    let out = common::kubectl(&mut sim, "delete namespace team --wait=false");
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(MINUTE);
    assert!(default_sa(&sim, "team").is_none(), "the namespace controller deleted it and nothing made it again");
    assert!(sim.store().peek(Kind::Namespace, &ObjKey::cluster("team")).is_none(), "the namespace is gone");
}
