//! What the engine holds, in bytes, by structure (`kubeloop bench --memory`), measured with the runner's counting
//! allocator. One test in this file: the allocator counts every thread's allocations, and tests run side by side.

#[path = "../src/alloc.rs"]
mod alloc;

use kubeloop_engine::bench::{ColdStart, CAP};
use kubeloop_engine::footprint::Bytes;

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting::new();

/// The bytes a measure holds itself (its parts' names and their vector).
fn own(bytes: &Bytes) -> usize {
    bytes.parts.capacity() * std::mem::size_of::<(String, isize)>()
        + bytes.parts.iter().map(|(n, _)| n.capacity()).sum::<usize>()
}

#[test]
fn the_parts_sum_to_every_byte_the_simulation_held() {
    let shape = ColdStart { nodes: 10, pods: 300, per_deployment: 100, seed: 1 };
    let mut sim = shape.build().expect("cluster");
    assert!(shape.converge(&mut sim, CAP).is_some());
    let before = ALLOC.live();
    assert!(ALLOC.peak() >= before);
    let bytes = Bytes::of(sim, &|| ALLOC.live());
    let freed = before - ALLOC.live() + own(&bytes);
    assert_eq!(bytes.total(), freed as isize, "{:#?}", bytes.parts);
    let pods = bytes.get("objects: Pod") + bytes.get("objects: Pod: spec");
    assert!(pods > 0 && bytes.get("watch cache history: Pod") > 0, "{:#?}", bytes.parts);
}
