//! The memo's plans against the whole one: for random histories of pods coming, going, moving address, port set,
//! node and readiness (a few at a time, or many), a sync that looks only at the changes writes exactly what a sync
//! that looks at every endpoint writes, and the memo stays whole.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::super::{grouped, plan, Plan, Ports};
use super::{Change, Memo};
use crate::api::{s, Endpoint, EndpointConditions, ObjKey, Object, ObjectReference, Service, Str};
use crate::rng::Rng;

/// One pod of the model: `None` when it is no endpoint.
#[derive(Clone, PartialEq)]
struct PodState {
    ip: u64,
    ready: bool,
    node: u64,
    /// Which of the two port sets it resolves.
    https: bool,
}

fn ports(https: bool) -> Ports {
    let mut p = vec![(s(""), s("TCP"), 8080)];
    if https {
        p.push((s("https"), s("TCP"), 8443));
    }
    p
}

fn pod_key(i: usize) -> ObjKey {
    ObjKey::new("default", &format!("web-{i:03}"))
}

fn want(i: usize, st: &PodState) -> (Ports, Endpoint) {
    let key = pod_key(i);
    let e = Endpoint {
        addresses: vec![s(&format!("10.{}.{}.{}", st.ip >> 16, (st.ip >> 8) & 255, st.ip & 255))],
        conditions: EndpointConditions { ready: Some(st.ready), serving: Some(st.ready), terminating: Some(false) },
        node_name: s(&format!("node-{}", st.node)),
        zone: s(""),
        target_ref: Some(ObjectReference {
            kind: s("Pod"),
            namespace: key.namespace.clone(),
            name: key.name.clone(),
            uid: s(&format!("uid-{i}")),
            api_version: s(""),
        }),
    };
    (ports(st.https), e)
}

/// Every endpoint, by port set, in pod order (what a whole sync computes).
fn desired(pods: &BTreeMap<usize, PodState>) -> BTreeMap<Ports, Vec<Endpoint>> {
    let mut out: BTreeMap<Ports, Vec<Endpoint>> = BTreeMap::new();
    for (i, st) in pods {
        let (p, e) = want(*i, st);
        out.entry(p).or_default().push(e);
    }
    out
}

fn service() -> Service {
    let mut svc = Service::default();
    svc.metadata.name = s("web");
    svc.metadata.namespace = s("default");
    svc.metadata.uid = s("svc-uid");
    svc.metadata.resource_version = 7;
    svc.spec.cluster_ip = s("10.96.0.10");
    svc
}

/// A plan as text, to compare two.
fn summary(p: &Plan) -> String {
    let mut out = String::new();
    for e in &p.create {
        out += &format!("create {:?} {:?} {:?}\n", e.ports, e.endpoints, e.metadata.labels);
    }
    for e in &p.update {
        out += &format!("update {} {:?} {:?}\n", e.metadata.name, e.endpoints, e.metadata.labels);
    }
    for e in &p.delete {
        out += &format!("delete {}\n", e.metadata.name);
    }
    out
}

/// The store's side of the model: the slices, written as a plan says (new names drawn at random, so that their
/// order is any).
struct Slices {
    by_name: BTreeMap<Str, Rc<Object>>,
    rv: u64,
}

impl Slices {
    /// The slices in name order, as the controller reads them.
    fn cached(&self) -> Vec<Rc<Object>> {
        self.by_name.values().cloned().collect()
    }

    fn apply(&mut self, p: Plan, rng: &mut Rng) -> (Vec<Rc<Object>>, Vec<Str>) {
        let (mut written, mut deleted) = (Vec::new(), Vec::new());
        for mut e in p.create.into_iter().chain(p.update) {
            if e.metadata.name.is_empty() {
                e.metadata.name = s(&format!("web-{}", rng.name_suffix(5)));
            }
            self.rv += 1;
            e.metadata.resource_version = self.rv;
            let o = Rc::new(Object::EndpointSlice(e));
            self.by_name.insert(o.meta().name.clone(), o.clone());
            written.push(o);
        }
        for e in p.delete {
            self.by_name.remove(&e.metadata.name);
            deleted.push(e.metadata.name.clone());
        }
        (written, deleted)
    }
}

/// One random history: `steps` syncs, each after changing up to `most` pods of `size`.
fn history(seed: u64, size: usize, steps: usize, most: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let svc = service();
    let mut pods: BTreeMap<usize, PodState> = BTreeMap::new();
    let mut slices = Slices { by_name: BTreeMap::new(), rv: 100 };
    let mut memo: Option<Memo> = None;
    let (mut part, mut whole) = (0, 0);
    for _ in 0..steps {
        // Change some pods: come, go, or move address, node, readiness or port set.
        let n = rng.range(0, most) as usize;
        let mut dirty: Vec<ObjKey> = Vec::new();
        for _ in 0..n {
            let i = rng.range(0, size as u64 - 1) as usize;
            if rng.chance(0.25) {
                pods.remove(&i);
            } else {
                // Now and then an address another pod has (a whole sync decides which one a slice keeps).
                let taken = pods.values().nth(rng.range(0, pods.len() as u64) as usize).map(|p| p.ip);
                let ip = match taken {
                    Some(ip) if rng.chance(0.003) => ip,
                    _ => rng.range(0, 1 << 24),
                };
                let st = PodState {
                    ip,
                    ready: rng.chance(0.7),
                    node: rng.range(0, 3),
                    https: rng.chance(if size <= 10 { 0.5 } else { 0.3 }),
                };
                let old = pods.get(&i).cloned();
                let st = match old {
                    // Most changes touch one field.
                    Some(o) if rng.chance(0.6) => PodState { ready: !o.ready, ..o },
                    _ => st,
                };
                pods.insert(i, st);
            }
            dirty.push(pod_key(i));
        }
        dirty.sort();
        dirty.dedup();
        let index = |k: &ObjKey| (0..size).find(|&i| pod_key(i) == *k).expect("a pod of the model");
        let changes: Vec<Change> = dirty
            .iter()
            .map(|k| Change { pod: k.clone(), want: pods.get(&index(k)).map(|st| want(index(k), st)) })
            .collect();
        let wanted = desired(&pods);
        let existing = slices.by_name.values().filter_map(|o| o.as_endpointslice()).cloned().collect();
        let full = plan(&svc, wanted.clone(), existing);
        let mut used = None;
        if let Some(m) = memo.as_ref().filter(|m| m.matches(&slices.cached())) {
            if m.endpoints() == 0 || m.total_after(&changes) == 0 {
                // The controller plans these from the changes alone: they must be every endpoint.
                assert_eq!(grouped(&changes), wanted, "seed {seed}: the changes are not every endpoint");
            } else if let Some((p, removed)) = m.plan(&svc, &changes, &slices.cached()) {
                assert_eq!(summary(&p), summary(&full), "seed {seed}: the memo's plan is not the whole one");
                used = Some(removed);
            }
        }
        let (written, deleted) = slices.apply(full, &mut rng);
        memo = match (memo, used) {
            (Some(mut m), Some(removed)) => {
                part += 1;
                m.after(&changes, &removed, &written, &deleted).map(|()| m)
            }
            _ => {
                whole += 1;
                let all = slices.by_name.values().filter_map(|o| o.as_endpointslice());
                Memo::of(svc.metadata.resource_version, 0, all, pods.len())
            }
        };
        if let Some(m) = &memo {
            m.check(&slices.cached());
        }
    }
    (part, whole)
}

#[test]
fn the_memos_plan_is_the_whole_plan() {
    let (mut part, mut whole) = (0, 0);
    for seed in 0..30 {
        // Few changes among many endpoints (several slices), many among few, and port sets that come and go.
        for (size, most) in [(400, 6), (400, 60), (40, 12), (6, 6)] {
            let (p, w) = history(seed, size, 40, most);
            part += p;
            whole += w;
        }
    }
    // Most syncs were the memo's (the rest: the first, and those with two pods at one address).
    assert!(part > 3 * whole, "{part} syncs by the memo, {whole} whole");
}

#[test]
fn a_memo_refuses_slices_it_did_not_write() {
    let svc = service();
    let mut rng = Rng::new(1);
    let mut slices = Slices { by_name: BTreeMap::new(), rv: 1 };
    let pods: BTreeMap<usize, PodState> =
        (0..150).map(|i| (i, PodState { ip: i as u64, ready: true, node: 0, https: false })).collect();
    let (_, _) = slices.apply(plan(&svc, desired(&pods), Vec::new()), &mut rng);
    let all = slices.by_name.values().filter_map(|o| o.as_endpointslice());
    let memo = Memo::of(7, 0, all, pods.len()).expect("a memo");
    assert!(memo.matches(&slices.cached()));
    // Another writer's version of one slice.
    let name = slices.by_name.keys().next().cloned().expect("a slice");
    let mut other = slices.by_name[&name].as_endpointslice().cloned().expect("a slice");
    other.metadata.resource_version += 1000;
    slices.by_name.insert(name.clone(), Rc::new(Object::EndpointSlice(other)));
    assert!(!memo.matches(&slices.cached()));
    // A slice gone.
    slices.by_name.remove(&name);
    assert!(!memo.matches(&slices.cached()));
}

/// A port set that nobody has any more loses its slices after the slices emptied in port sets still wanted, as a
/// whole sync orders them.
#[test]
fn a_port_set_gone_deletes_after_those_still_wanted() {
    let svc = service();
    let mut rng = Rng::new(3);
    let mut slices = Slices { by_name: BTreeMap::new(), rv: 1 };
    // Three pods on the plain port set (one slice), 103 on the other (two slices: 100 and 3).
    let mut pods: BTreeMap<usize, PodState> =
        (0..106).map(|i| (i, PodState { ip: i as u64 + 1, ready: true, node: 0, https: i >= 3 })).collect();
    let _ = slices.apply(plan(&svc, desired(&pods), Vec::new()), &mut rng);
    assert_eq!(slices.by_name.len(), 3);
    let all = slices.by_name.values().filter_map(|o| o.as_endpointslice());
    let memo = Memo::of(7, 0, all, pods.len()).expect("a memo");
    // The plain set's pods go, and the three of the second https slice.
    let gone: Vec<usize> = (0..3).chain(103..106).collect();
    for i in &gone {
        pods.remove(i);
    }
    let changes: Vec<Change> = gone.iter().map(|&i| Change { pod: pod_key(i), want: None }).collect();
    let existing = slices.by_name.values().filter_map(|o| o.as_endpointslice()).cloned().collect();
    let full = plan(&svc, desired(&pods), existing);
    let (part, _) = memo.plan(&svc, &changes, &slices.cached()).expect("a plan");
    assert_eq!(summary(&part), summary(&full));
    let ports: Vec<usize> = part.delete.iter().map(|e| e.ports().len()).collect();
    assert_eq!(ports, [2, 1], "the https set's emptied slice first, then the plain set's");
}
