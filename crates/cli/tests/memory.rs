//! What the engine holds, in bytes, by structure (`kubeloop bench --memory`), measured with the runner's counting
//! allocator (which counts only the thread that measures, so tests can run side by side).

#[path = "../src/peak.rs"]
mod peak;

use kubeloop_engine::bench::{ColdStart, CAP};
use kubeloop_engine::footprint::Bytes;

#[global_allocator]
static ALLOCATOR: peak::Counting = peak::Counting;

/// The bytes a measure holds itself (its parts' names and their vector).
fn own(bytes: &Bytes) -> usize {
    bytes.parts.capacity() * std::mem::size_of::<(String, isize)>()
        + bytes.parts.iter().map(|(n, _)| n.capacity()).sum::<usize>()
}

/// Bytes per pod each structure may hold after a cold start of 10 nodes and 300 pods (a few percent above what it
/// holds): each cut of issue 29's lean object model lowered its line. Bytes are requested sizes, deterministic for
/// a toolchain (the allocator's rounding is not in them).
const BUDGET: [(&str, isize); 5] = [
    // Each key of the three correlator caches shares one copy of its involved object's reference, stored once
    // for the map and the queue of uses; an aggregate record's messages are a short vector (7,776 before).
    ("recorders (Event correlators)", 2_600),
    // The pods of a ReplicaSet share one defaulted spec until bound, and their containers and tolerations after
    // (2,024 and 1,920 before: a deep copy on create, another on binding); a spec's hostname and subdomain (a
    // StatefulSet's pods' identity) are 32 B more (224 measured: boxing them needs serde's flatten, which the JSON
    // writer's oracle cannot follow).
    ("objects: Pod: spec", 230),
    ("watch cache history: Pod: spec", 10),
    // Issue 31's causes: each write with its client, verb and cause, each reconcile with the adds merged into it
    // (24 bytes an add), in rings of a fixed capacity (2,132 measured).
    ("causes (kept for \"why?\")", 2_300),
    ("total", 22_000),
];

#[test]
fn the_parts_sum_to_every_byte_the_simulation_held_and_stay_in_their_budget() {
    const PODS: usize = 300;
    let shape = ColdStart { nodes: 10, pods: PODS, per_deployment: 100, services: false, seed: 1, addons: false };
    let ((bytes, freed, before), peak) = peak::measure(|| {
        let mut sim = shape.build().expect("cluster");
        assert!(shape.converge(&mut sim, CAP).is_some());
        let before = peak::live();
        let bytes = Bytes::of(sim, &peak::live);
        let freed = before - peak::live() + own(&bytes) as i64;
        (bytes, freed, before)
    });
    assert!(peak >= before as u64 && before > 0);
    assert_eq!(bytes.total(), freed as isize, "{:#?}", bytes.parts);
    let pods = bytes.get("objects: Pod") + bytes.get("objects: Pod: spec");
    assert!(pods > 0 && bytes.get("watch cache history: Pod") > 0, "{:#?}", bytes.parts);
    for (name, per_pod) in BUDGET {
        let held = if name == "total" { bytes.total() } else { bytes.get(name) };
        let held_per_pod = held / PODS as isize;
        assert!(held_per_pod <= per_pod, "{name}: {held_per_pod} B per pod, over its {per_pod}: {:#?}", bytes.parts);
    }
}
