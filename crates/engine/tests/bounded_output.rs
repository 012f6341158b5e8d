//! What one kubectl command prints is bounded (kubeloop's OUTPUT_MAX_BYTES): `get -o yaml`, `describe` and
//! `events` over a large cluster stop with a note instead of being built whole, and a follow's poll is bounded the
//! same way.

use kubeloop_engine::api::{s, Kind, ObjectMeta, Pod, PodSpec};
use kubeloop_engine::api::{Container, Object};
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::limits::OUTPUT_MAX_BYTES;
use kubeloop_engine::sim::{Sim, SimConfig};

/// `n` unschedulable pods (no nodes), each carrying an annotation of `size` bytes.
fn cluster_of_big_pods(n: usize, size: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 9, ..Default::default() });
    let note = "x".repeat(size);
    for i in 0..n {
        create_annotated_pod(&mut sim, &format!("big-{i:04}"), &note);
    }
    sim
}

/// Creates pod `name` in the default namespace (one `nginx:1.27` container) with the annotation `note: <note>`.
fn create_annotated_pod(sim: &mut Sim, name: &str, note: &str) {
    let mut metadata = ObjectMeta::named("default", name);
    metadata.annotations.insert(s("note"), s(note));
    let containers = vec![Container { name: s("c"), image: s("nginx:1.27"), ..Default::default() }];
    let pod = Pod {
        metadata,
        spec: std::rc::Rc::new(PodSpec { containers: containers.into(), ..Default::default() }),
        ..Default::default()
    };
    sim.as_user(|api| api.create(Object::Pod(pod))).expect("create");
}

fn run(sim: &mut Sim, line: &str) -> kubectl::Output {
    kubectl::run(sim, line, &Input::none())
}

#[test]
fn get_yaml_json_and_tables_stop_at_the_bound_with_a_note() {
    let mut sim = cluster_of_big_pods(300, 20_000);
    for line in ["get pods -o yaml", "get pods -o json", "describe pods", "get pods --show-labels -o wide"] {
        let out = run(&mut sim, line);
        assert!(out.stdout.len() <= OUTPUT_MAX_BYTES + 64 * 1024, "{line}: {} bytes", out.stdout.len());
        if line.contains("yaml") || line.contains("json") {
            assert!(out.stderr.contains("kubeloop: output stopped at 2 MiB"), "{line}: {}", out.stderr);
            assert!(out.stderr.contains("more not printed"), "{line}: {}", out.stderr);
        }
        assert_eq!(out.code, 0, "{line}");
    }
    // describe cuts long annotations itself: many pods reach the bound.
    let mut many = cluster_of_big_pods(4_000, 10);
    let out = run(&mut many, "describe pods");
    assert!(out.stdout.len() <= OUTPUT_MAX_BYTES + 64 * 1024, "{} bytes", out.stdout.len());
    assert!(out.stderr.contains("more not printed"), "{}", out.stderr);
    let out = run(&mut many, "get pods");
    assert!(out.stderr.is_empty(), "a table of 4,000 pods is within the bound");
    assert_eq!(out.stdout.lines().count(), 4_001);
    // A small output is whole, without a note.
    let out = run(&mut sim, "get pod big-0001 -o yaml");
    assert!(out.stdout.contains("name: big-0001") && out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn a_following_get_is_bounded_per_poll() {
    let mut sim = cluster_of_big_pods(10, 10);
    let mut out = run(&mut sim, "get pods -o yaml -w --watch-only");
    let mut follow = out.follow.take().expect("a follow");
    let note = "y".repeat(40_000);
    for i in 0..200 {
        create_annotated_pod(&mut sim, &format!("more-{i:04}"), &note);
    }
    sim.run_for(1000);
    let p = follow.poll(&mut sim);
    assert!(p.stdout.len() <= OUTPUT_MAX_BYTES + 64 * 1024, "{} bytes", p.stdout.len());
    assert!(p.stderr.contains("more not printed"), "{}", p.stderr);
    follow.stop(&mut sim);
    assert_eq!(sim.store().count_of(Kind::Pod), 210);
}

/// Messages repeat a bounded piece of user text: a megabyte name or command word gives a short error.
#[test]
fn errors_about_huge_names_and_words_are_short() {
    let mut sim = cluster_of_big_pods(1, 10);
    let huge = "a".repeat(1 << 20);
    for line in
        [format!("get pods {huge}"), format!("delete pod {huge}"), huge.clone(), format!("describe pod x{huge}")]
    {
        let out = run(&mut sim, &line);
        assert_eq!(out.code, 1, "{}", &out.stderr[..out.stderr.len().min(200)]);
        assert!(out.stderr.len() < 2_000, "{} bytes of stderr", out.stderr.len());
        assert!(out.stdout.len() < 2_000, "{} bytes of stdout", out.stdout.len());
    }
}
