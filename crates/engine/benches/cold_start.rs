//! Cold start: N nodes and P pods in Deployments of 100, run until converged. `cargo bench -p kubeloop-engine`.
//! Set KUBELOOP_BENCH_LARGE=1 to add the 1,000-node / 30,000-pod case (about 15 s an iteration).
//! `kubeloop bench` prints the same run with simulated time, events and memory.

use criterion::{criterion_group, criterion_main, Criterion};
use kubeloop_engine::bench::{ColdStart, CAP};

fn cold_start(c: &mut Criterion) {
    let mut shapes = vec![(100, 3_000)];
    if std::env::var_os("KUBELOOP_BENCH_LARGE").is_some() {
        shapes.push((1_000, 30_000));
    }
    let mut group = c.benchmark_group("cold_start");
    group.sample_size(10);
    for (nodes, pods) in shapes {
        let shape = ColdStart { nodes, pods, per_deployment: 100, services: false, seed: 1, addons: true };
        group.bench_function(format!("{nodes}_nodes_{pods}_pods"), |b| {
            b.iter(|| {
                let mut sim = shape.build().expect("the benchmark cluster builds");
                let converged = shape.converge(&mut sim, CAP);
                assert!(converged.is_some(), "cold start did not converge");
                converged
            })
        });
    }
    group.finish();
}

criterion_group!(benches, cold_start);
criterion_main!(benches);
