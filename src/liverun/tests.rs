//! The page's live run, tested natively: commands, frames, lessons, and reads that never change a run.

use std::cell::Cell;

use super::*;
use kubeloop_engine::api::{Kind, PodPhase};
use kubeloop_engine::controller::TriggerMode;
use kubeloop_engine::intervention::{FaultAction, ModeAction};
use kubeloop_engine::sim::DEFAULT_POLL_PERIOD;

fn watch_drop(percent: u32) -> Cmd {
    Cmd::fault(FaultAction { drop_watch_events: Some(f64::from(percent) / 100.0), ..FaultAction::default() })
}

fn resync(secs: u64) -> Cmd {
    Cmd::mode(ModeAction { resync_period: Some(secs * 1000), ..ModeAction::default() })
}

fn polling() -> Cmd {
    Cmd::mode(ModeAction {
        observe: Some(ObserveMode::Polling { period: DEFAULT_POLL_PERIOD }),
        ..ModeAction::default()
    })
}
use crate::console::CONSOLE_SCROLLBACK;
use crate::view::RowSource;
use crate::view::{Chunk, ClusterView, ConsoleView, Detail, VersionView};

/// kube-system's add-on pods on the page's starting cluster of three nodes.
const ADDONS: usize = kubeloop_engine::addons::pods(3);

/// A wall clock that moves 1 µs per reading, so budgets are never hit in tests.
fn clock() -> Box<dyn Fn() -> f64> {
    let t = Rc::new(Cell::new(0.0));
    Box::new(move || {
        t.set(t.get() + 0.001);
        t.get()
    })
}

/// A wall clock that moves `step` ms per reading (budgets are reached).
fn clock_of(step: f64) -> Box<dyn Fn() -> f64> {
    let t = Rc::new(Cell::new(0.0));
    Box::new(move || {
        t.set(t.get() + step);
        t.get()
    })
}

fn run_secs(e: &mut LiveRun, secs: u32) {
    for _ in 0..secs * 10 {
        e.frame(100.0);
    }
}

fn dom(s: &Snapshot) -> (Rc<Vec<Rc<crate::view::NodeView>>>, Rc<Vec<crate::view::PodView>>) {
    match &s.cluster {
        ClusterView::Dom { nodes, unscheduled } => (nodes.clone(), unscheduled.clone()),
        ClusterView::Compact(_) => panic!("small clusters are drawn with elements"),
    }
}

#[test]
fn seeds_parse_or_explain() {
    assert_eq!(parse_seed(None), Ok(None));
    assert_eq!(parse_seed(Some("42")), Ok(Some(42)));
    let err = parse_seed(Some("abc")).unwrap_err();
    assert!(err.contains("\"abc\" is not a seed") && err.contains("default seed 1"), "{err}");
    assert!(parse_seed(Some("-3")).is_err());
    assert!(parse_seed(Some("")).is_err());
}

#[test]
fn the_page_opens_on_three_running_web_pods() {
    let mut e = LiveRun::boot(7, None, clock());
    assert!(e.apply.ok, "{}", e.apply.text);
    assert_eq!(e.apply.text.trim(), "deployment.apps/web created");
    run_secs(&mut e, 10);
    let s = e.snapshot();
    assert!(s.time.now >= 9_900, "{}", s.time.now);
    // web's 3: kube-system's add-ons run, left out of the view and the counts.
    assert_eq!(s.summary.hidden, ADDONS);
    assert_eq!(e.sim().pod_counts().0, 3 + ADDONS);
    assert_eq!(s.summary.running, 3);
    assert_eq!(s.summary.nodes_ready, 3);
    let (nodes, unscheduled) = dom(&s);
    assert_eq!(nodes.len(), 3);
    assert!(unscheduled.is_empty());
    assert_eq!(nodes.iter().map(|n| n.pods.len()).sum::<usize>(), 3);
    assert!(nodes.iter().all(|n| n.alive && n.ready.attr() == "true"));
    let names: Vec<&str> = s.controllers.iter().map(|c| c.status.name).collect();
    assert_eq!(
        names,
        [
            "deployment",
            "replicaset",
            "nodelifecycle",
            "tainteviction",
            "garbagecollector",
            "namespace",
            "serviceaccount",
            "endpointslice",
            "disruption",
            "daemonset",
            "resourcequota",
            "statefulset",
            "persistentvolumebinder",
            "job",
            "ttlafterfinished",
            "cronjob",
            "scheduler"
        ],
        "one row per controller, the leader's (two controller manager replicas)"
    );
    assert!(s.controllers[0].host.contains("cp-1"), "{}", s.controllers[0].host);
    assert!(s.informers.iter().any(|i| i.owner.contains("cp-2") && i.state == "standby"), "{:?}", s.informers);
    let standby_rows = s.informers.iter().filter(|i| i.owner.contains("cp-2")).count();
    assert_eq!(standby_rows, 1, "the standby replica is one compact row");
    assert!(s.controllers.iter().all(|c| !c.history.is_empty()));
    assert!(s.informers.iter().any(|i| i.name == "kubelet pods (3 nodes)"));
    let mut keys: Vec<String> = s.informers.iter().map(|i| format!("{}/{}", i.owner, i.name)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), s.informers.len(), "informer rows have unique keys");
    assert_eq!(s.drift, e.sim().drift());
    let reasons: Vec<&str> = s.events.rows.iter().map(|r| &*r.reason).collect();
    for r in ["ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Started", "Reconciled"] {
        assert!(reasons.contains(&r), "{r} missing from {reasons:?}");
    }
    assert!(s.events.rows.windows(2).all(|w| w[0].at >= w[1].at), "newest first");
    assert!(s.events.rows.iter().any(|r| r.source == RowSource::Reconcile("scheduler")));
}

#[test]
fn unchanged_nodes_are_the_same_rc() {
    let mut e = LiveRun::boot(3, None, clock());
    run_secs(&mut e, 10);
    let a = dom(&e.snapshot()).0;
    let b = dom(&e.snapshot()).0;
    for (x, y) in a.iter().zip(b.iter()) {
        assert!(Rc::ptr_eq(x, y));
    }
    e.exec(Cmd::kill_node("node-1"));
    let c = dom(&e.snapshot()).0;
    assert!(!Rc::ptr_eq(&a[0], &c[0]) && !c[0].alive);
    assert!(Rc::ptr_eq(&a[1], &c[1]));
}

/// A node's and a pod's details list their Events from the store's index by involved object: the same Events as a
/// look at every Event of the store finds, oldest first.
#[test]
fn details_list_the_events_about_their_object() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 10);
    e.exec(Cmd::kill_node("node-2"));
    run_secs(&mut e, 60);
    let all = |e: &LiveRun, kind: &str, name: &str| -> Vec<String> {
        let mut v: Vec<(Millis, u64, String)> = e
            .sim()
            .store()
            .objects(Kind::Event)
            .filter_map(|o| o.as_event())
            .filter(|ev| &*ev.body.involved_object.kind == kind && &*ev.body.involved_object.name == name)
            .map(|ev| {
                (ev.body.last_timestamp.map_or(0, |t| t.0), ev.metadata.resource_version, ev.body.reason.to_string())
            })
            .collect();
        v.sort();
        v.into_iter().map(|(_, _, r)| r).collect()
    };
    e.exec(Cmd::Select(Selection::Node("node-2".into())));
    let Some(Detail::Node(d)) = e.snapshot().detail.as_deref().cloned() else { panic!("node detail") };
    let shown: Vec<String> = d.events.iter().map(|ev| ev.reason.to_string()).collect();
    assert!(!shown.is_empty(), "a dead node's Events");
    assert_eq!(shown, all(&e, "Node", "node-2"));
    let (nodes, _) = dom(&e.snapshot());
    let pod =
        nodes.iter().flat_map(|n| n.pods.iter()).find(|p| &*p.key.namespace == "default").cloned().expect("a pod");
    e.exec(Cmd::Select(Selection::Pod(pod.key.clone())));
    let Some(Detail::Pod(d)) = e.snapshot().detail.as_deref().cloned() else { panic!("pod detail") };
    let shown: Vec<String> = d.events.iter().map(|ev| ev.reason.to_string()).collect();
    assert!(shown.contains(&"Scheduled".to_string()), "{shown:?}");
    assert_eq!(shown, all(&e, "Pod", &pod.key.name));
}

#[test]
fn deleting_a_pod_shows_terminating_then_a_replacement() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 10);
    let (nodes, _) = dom(&e.snapshot());
    let victim =
        nodes.iter().flat_map(|n| n.pods.iter()).find(|p| &*p.key.namespace == "default").cloned().expect("a pod");
    e.exec(Cmd::Select(Selection::Pod(victim.key.clone())));
    e.exec(Cmd::delete_pod(&victim.key));
    let s = e.snapshot();
    let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
    assert!(d.terminating && d.exists);
    assert_eq!(d.owners.len(), 2, "{:?}", d.owners);
    assert_eq!(&*d.owners[1].0, "Deployment");
    assert!(d.events.iter().any(|ev| &*ev.reason == "Scheduled"));
    run_secs(&mut e, 40);
    let s = e.snapshot();
    assert_eq!(s.summary.running, 3);
    assert!(dom(&s).0.iter().flat_map(|n| n.pods.iter()).all(|p| p.key != victim.key));
    let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
    assert!(!d.exists);
}

#[test]
fn every_example_applies_and_errors_name_their_line() {
    for ex in crate::examples::EXAMPLES {
        let mut e = LiveRun::boot(1, None, clock());
        run_secs(&mut e, 5);
        let yaml = ex.text().expect("native builds carry the examples");
        e.exec(Cmd::apply(yaml.to_string()));
        if ex.id == "typo" {
            assert!(!e.apply.ok);
            let line = yaml.lines().position(|l| l.contains("contianers:")).map(|i| i + 1);
            assert!(e.apply.text.contains(&format!("line {}", line.unwrap_or(0))), "{}", e.apply.text);
            assert_eq!(e.apply.error_line, line);
            continue;
        }
        assert!(e.apply.ok, "{}: {}", ex.id, e.apply.text);
        run_secs(&mut e, 30);
        let s = e.snapshot();
        match ex.id {
            "too-big" => {
                assert_eq!(dom(&s).1.len(), 2, "two unschedulable pods");
                assert!(s.events.rows.iter().any(|r| &*r.reason == "FailedScheduling"));
            }
            "node-selector" => {
                let (nodes, _) = dom(&s);
                let n2 = nodes.iter().find(|n| &*n.name == "node-2").expect("node-2");
                assert!(n2.labels.contains(&"disktype=ssd".to_string()), "{:?}", n2.labels);
                assert!(n2.pods.iter().any(|p| &*p.key.name == "cache"));
            }
            "taints" => {
                let (nodes, unscheduled) = dom(&s);
                let gpu = nodes.iter().find(|n| &*n.name == "gpu-1").expect("gpu-1");
                assert_eq!(gpu.taints, vec!["dedicated=gpu:NoSchedule".to_string()]);
                let apps: Vec<&str> =
                    gpu.pods.iter().filter(|p| &*p.key.namespace == "default").map(|p| &*p.app).collect();
                assert_eq!(apps, ["tolerant", "tolerant"], "the daemon pods tolerate every taint, the others");
                assert_eq!(unscheduled.iter().filter(|p| &*p.app == "plain").count(), 2);
            }
            "scale" => assert_eq!(s.summary.running, 10),
            "shop" => {
                // Three shop pods next to the page's three web pods, behind a Service with three ready endpoints.
                assert_eq!(s.summary.running, 6);
                let svc = s.services.iter().find(|v| &*v.key.name == "shop").expect("service/shop");
                assert_eq!(svc.ready, 3);
            }
            _ => assert_eq!(s.summary.running, 3),
        }
    }
}

#[test]
fn knobs_and_node_actions() {
    let mut e = LiveRun::boot(2, None, clock());
    run_secs(&mut e, 5);
    e.exec(resync(30));
    e.exec(watch_drop(100));
    e.exec(Cmd::add_node());
    e.exec(Cmd::cordon("node-2", true));
    let s = e.snapshot();
    assert_eq!(s.resync_ms, 30_000);
    assert_eq!(s.drop_pct, 100);
    let cp = e.sim().control_plane_informers();
    assert!(!cp.is_empty());
    for (id, inf) in e.sim().informers().iter().enumerate() {
        let want = if cp.contains(&id) { 1.0 } else { 0.0 };
        assert_eq!(inf.drop_fraction(), want, "the drop fault is the control plane's (informer {id})");
    }
    let (nodes, _) = dom(&s);
    assert_eq!(nodes.len(), 4);
    assert!(nodes[1].unschedulable);
    e.exec(Cmd::kill_node("nope"));
    assert!(e.snapshot().notice.is_some_and(|n| n.contains("not found")));
}

#[test]
fn step_advances_while_paused() {
    let mut e = LiveRun::boot(4, None, clock());
    e.exec(Cmd::SetPlaying(false));
    e.frame(100.0);
    let t0 = e.sim().now();
    e.exec(Cmd::Step);
    assert!(e.sim().now() >= t0 + 100);
    let t1 = e.sim().now();
    e.frame(100.0);
    assert_eq!(e.sim().now(), t1, "paused");
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    e.exec(Cmd::SetPlaying(true));
    e.frame(100.0);
    assert!(e.sim().now() >= t1 + 10_000);
}

fn console_text(e: &mut LiveRun) -> String {
    e.snapshot().console.last.map(|l| l.text()).unwrap_or_default()
}

#[test]
fn console_runs_lines_keeps_scrollback_and_clears() {
    let mut e = LiveRun::boot(1, None, clock());
    e.exec(Cmd::Kubectl { line: "kubectl gte pods".into(), stdin: None });
    let s = e.snapshot();
    let last = s.console.last.clone().expect("an entry");
    assert_eq!(last.line, "kubectl gte pods");
    assert_eq!(last.code, Some(1));
    assert!(matches!(&last.chunks[..], [Chunk::Stderr(t)] if t.contains("Did you mean this?\n\tget")), "{last:?}");
    e.exec(Cmd::Kubectl { line: "help".into(), stdin: None });
    assert!(console_text(&mut e).contains("Commands:"));
    let s = e.snapshot();
    assert_eq!(s.console.earlier.len(), 1);
    assert_eq!(s.console.earlier[0].line, "kubectl gte pods");
    e.exec(Cmd::KubectlClear);
    let s = e.snapshot();
    assert!(s.console.last.is_none() && s.console.earlier.is_empty());
    for i in 0..CONSOLE_SCROLLBACK + 5 {
        e.exec(Cmd::Kubectl { line: format!("logs x{i}"), stdin: None });
    }
    assert_eq!(e.snapshot().console.earlier.len(), CONSOLE_SCROLLBACK);
    assert!(console_text(&mut e).contains("not simulated"));
    e.exec(Cmd::Kubectl { line: "  clear ".into(), stdin: None });
    assert_eq!(e.snapshot().console, ConsoleView::default());
}

#[test]
fn apply_minus_f_reads_examples_by_name() {
    assert_eq!(example_file("web").as_deref(), Ok(crate::examples::WEB));
    assert_eq!(example_file("web.yaml").as_deref(), Ok(crate::examples::WEB));
    assert_eq!(example_file("./examples/web.yaml").as_deref(), Ok(crate::examples::WEB));
    assert!(example_file("too-big.yml").is_ok());
    assert!(example_file("web: 3-replica Deployment").is_ok(), "the title in the menu");
    assert_eq!(example_file("x.yaml"), Err("the path \"x.yaml\" does not exist".into()));
}

/// Prints one line per poll, done after `n` polls.
struct Ticker {
    left: u32,
    stopped: Rc<Cell<bool>>,
}

impl kubectl::Follow for Ticker {
    fn poll(&mut self, _: &mut Sim) -> kubectl::FollowPoll {
        self.left = self.left.saturating_sub(1);
        kubectl::FollowPoll { stdout: format!("tick {}\n", self.left), done: self.left == 0, ..Default::default() }
    }
    fn stop(&mut self, _: &mut Sim) {
        self.stopped.set(true);
    }
}

fn start_ticker(e: &mut LiveRun, left: u32) -> Rc<Cell<bool>> {
    let stopped = Rc::new(Cell::new(false));
    let ticker = Box::new(Ticker { left, stopped: stopped.clone() });
    e.console.adopt(e.player.sim_mut(), "get pods -w", "", ticker, None, None);
    stopped
}

/// A command that keeps printing is looked at every 100 ms of simulated time (the runner's grid), not per frame.
#[test]
fn follows_print_as_time_passes_until_done_interrupted_or_replaced() {
    let mut e = LiveRun::boot(1, None, clock());
    start_ticker(&mut e, 3);
    for _ in 0..5 {
        e.frame(16.0);
    }
    let last = e.snapshot().console.last.expect("entry");
    assert_eq!(last.text().matches("tick").count(), 0, "80 ms: not looked at yet: {}", last.text());
    for _ in 0..15 {
        e.frame(16.0);
    }
    let last = e.snapshot().console.last.expect("entry");
    assert!(last.text().ends_with("tick 2\ntick 1\ntick 0\n"), "{}", last.text());
    assert_eq!(last.code, Some(0));
    assert!(!e.console.running());

    let stopped = start_ticker(&mut e, 100);
    for _ in 0..7 {
        e.frame(16.0);
    }
    assert!(e.console.running());
    assert!(e.snapshot().console.last.expect("entry").text().contains("tick 99"), "looked at once");
    e.exec(Cmd::KubectlClear);
    assert!(e.console.running(), "Ctrl+L keeps the command running");
    e.exec(Cmd::KubectlInterrupt);
    assert!(stopped.get() && !e.console.running());
    let last = e.snapshot().console.last.expect("entry");
    assert!(last.text().ends_with("^C\n"), "{}", last.text());
    assert!(!last.text().contains("tick 99"), "cleared before");
    assert_eq!(last.code, Some(130));

    let stopped = start_ticker(&mut e, 100);
    e.exec(Cmd::Kubectl { line: "help".into(), stdin: None });
    assert!(stopped.get(), "the next command stops the running one");
    let s = e.snapshot();
    assert!(s.console.earlier.last().is_some_and(|p| p.text().ends_with("^C\n")));
}

#[test]
fn large_clusters_switch_to_the_compact_view() {
    let mut e = LiveRun::boot(9, None, clock());
    for _ in 0..200 {
        e.exec(Cmd::add_node());
    }
    let s = e.snapshot();
    let ClusterView::Compact(c) = &s.cluster else { panic!("compact") };
    assert_eq!(c.nodes.len(), 203);
    assert_eq!(s.summary.nodes, 203);
}

/// The canvas's counts are the store's pods by node (read from the tallies the store keeps, never by visiting the
/// pods): the same as counting them one by one, while they are created, scheduled, running and evicted.
#[test]
fn the_compact_view_counts_each_node_s_pods() {
    let mut e = LiveRun::boot(3, None, clock());
    e.exec(Cmd::NewCluster { nodes: 210, pods: 900, addons: true });
    let recount = |e: &LiveRun, c: &crate::view::CompactCluster| {
        let mut bound = 0;
        for n in &c.nodes {
            let (mut running, mut pending, mut terminating, mut other) = (0, 0, 0, 0);
            // kube-system's add-on pods are left out of the view (not shown by default).
            for p in e.sim().store().pods_on_node(&n.name).filter_map(|o| o.as_pod()) {
                bound += 1;
                if kubeloop_engine::addons::is_addon_pod(p) {
                    continue;
                }
                match p.status.phase {
                    _ if p.metadata.is_terminating() => terminating += 1,
                    PodPhase::Running => running += 1,
                    PodPhase::Pending => pending += 1,
                    _ => other += 1,
                }
            }
            assert_eq!(
                (n.running, n.pending, n.terminating, n.other),
                (running, pending, terminating, other),
                "{}",
                n.name
            );
        }
        let unbound =
            e.sim().store().objects(Kind::Pod).filter_map(|o| o.as_pod()).filter(|p| p.spec.node_name.is_empty());
        let unbound_addons = unbound.filter(|p| kubeloop_engine::addons::is_addon_pod(p)).count();
        assert_eq!(c.unscheduled, e.sim().store().count_of(Kind::Pod) - bound - unbound_addons);
    };
    let mut seen = (false, false, false);
    for step in 0..40 {
        if step == 20 {
            e.exec(Cmd::kill_node("node-7"));
            e.exec(Cmd::Kubectl { line: "kubectl delete deployment app-0 --wait=false".into(), stdin: None });
        }
        e.frame(500.0);
        let s = e.snapshot();
        let ClusterView::Compact(c) = &s.cluster else { panic!("compact") };
        recount(&e, c);
        seen.0 |= c.unscheduled > 0;
        seen.1 |= c.nodes.iter().any(|n| n.pending > 0 && n.running > 0);
        seen.2 |= c.nodes.iter().any(|n| n.terminating > 0);
    }
    assert_eq!(seen, (true, true, true), "unscheduled, pending and running, terminating pods were all counted");
}

/// The cost of the page's work at Kubernetes' envelope (5,000 nodes, 150,000 pods). Run by hand:
/// `cargo test --release -p kubeloop-web -- --ignored --nocapture scale`
#[test]
#[ignore]
fn scale_snapshot_cost() {
    use std::time::Instant;
    let nodes: usize = std::env::var("KL_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000);
    let pods: usize = std::env::var("KL_PODS").ok().and_then(|v| v.parse().ok()).unwrap_or(150_000) - 3;
    let mut e = LiveRun::boot(1, None, clock());
    let t = Instant::now();
    for _ in 3..nodes {
        e.exec(Cmd::add_node());
    }
    let per = 10_000;
    let mut text = String::new();
    for i in 0..pods.div_ceil(per) {
        let replicas = (pods - i * per).min(per);
        text.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: app\n        image: app:{i}\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi\n"
        ));
    }
    e.exec(Cmd::apply(text));
    assert!(e.apply.ok, "{}", e.apply.text);
    eprintln!("build: {:?}", t.elapsed());
    let t = Instant::now();
    let mut secs = 0;
    let mut worst = (std::time::Duration::ZERO, 0);
    let mut snap_worst = std::time::Duration::ZERO;
    while e.sim().pod_counts().0 < pods + 3 && secs < 900 {
        let until = e.sim().now() + 10 * SECOND;
        let mut n = 0;
        while e.sim().next_event_at().is_some_and(|at| at <= until) {
            let s = Instant::now();
            e.player.sim_mut().step();
            n += 1;
            if s.elapsed() > worst.0 {
                worst = (s.elapsed(), e.sim().now());
            }
            if n % 2000 == 0 {
                let s = Instant::now();
                let _ = e.snapshot();
                snap_worst = snap_worst.max(s.elapsed());
            }
        }
        e.player.sim_mut().run_until(until);
        secs += 10;
        eprintln!(
            "  t={secs}s running {} after {:?}; worst step {:?} at {}, worst snapshot {:?}",
            e.sim().pod_counts().0,
            t.elapsed(),
            worst.0,
            worst.1,
            snap_worst
        );
    }
    eprintln!("converge: {secs} simulated s in {:?}; running {}", t.elapsed(), e.sim().pod_counts().0);
    for _ in 0..3 {
        let t = Instant::now();
        let s = e.snapshot();
        eprintln!("snapshot: {:?} (drift {}, events {})", t.elapsed(), s.drift, s.events.rows.len());
    }
    let t = Instant::now();
    let c = build_cluster(e.player.sim(), &mut e.cache, &Default::default());
    eprintln!("  cluster: {:?} compact={}", t.elapsed(), matches!(c, crate::view::ClusterView::Compact(_)));
    let t = Instant::now();
    let _ = crate::snapshot::build_informers(e.sim());
    eprintln!("  informers+drift: {:?}", t.elapsed());
    let t = Instant::now();
    let _ = build_summary(e.sim(), &Default::default());
    eprintln!("  summary: {:?}", t.elapsed());
    let t = Instant::now();
    e.stream.ingest(e.player.sim());
    eprintln!("  stream: {:?}", t.elapsed());
    let t = Instant::now();
    for _ in 0..10 {
        e.frame(16.0);
    }
    eprintln!("10 frames at 1x: {:?}", t.elapsed());
    for (what, sel) in [
        ("a node", Selection::Node("node-1".into())),
        ("nothing", Selection::None),
        ("a node again", Selection::Node("node-2".into())),
    ] {
        let t = Instant::now();
        e.exec(Cmd::Select(sel));
        let _ = e.snapshot();
        eprintln!("  select {what} and snapshot: {:?}", t.elapsed());
    }
    let key = e.sim().store().objects(Kind::Pod).map(|o| o.key()).nth(pods / 2).expect("a pod");
    for w in [Weights::default(), Weights([0, 1, 3, 2])] {
        let t = Instant::now();
        let v = crate::snapshot::schedule_view(e.sim(), &key, w.into(), false).expect("explained");
        let what_if = v.what_if.as_ref().map(|w| (w.moved.len(), w.looked, w.of));
        eprintln!("  explain {:?}: {:?} (what-if moved/looked/of {what_if:?})", w.0, t.elapsed());
    }
}

fn live_web(e: &LiveRun) -> usize {
    e.sim()
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| p.metadata.label("app") == Some("web"))
        .filter(|p| !p.metadata.is_terminating() && p.status.phase == PodPhase::Running)
        .count()
}

#[test]
fn loop_knobs_reach_the_simulation_and_the_view() {
    let mut e = LiveRun::boot(2, None, clock());
    run_secs(&mut e, 5);
    e.exec(Cmd::mode(ModeAction { trigger: Some((None, TriggerMode::Edge)), ..ModeAction::default() }));
    e.exec(Cmd::mode(ModeAction { relist_period: Some(0), ..ModeAction::default() }));
    e.exec(Cmd::fault(FaultAction { conflicts: Some(0.3), ..FaultAction::default() }));
    e.exec(Cmd::fault(FaultAction { api_latency: Some(25), ..FaultAction::default() }));
    e.exec(Cmd::fault(FaultAction { reject_pod_creates: Some(true), ..FaultAction::default() }));
    let s = e.snapshot();
    assert!(s.loop_cfg.edge && s.loop_cfg.edge_capable == ["replicaset"], "{:?}", s.loop_cfg);
    assert_eq!(s.loop_cfg.relist_ms, 0);
    assert_eq!((s.loop_cfg.conflict_pct, s.loop_cfg.latency_ms, s.loop_cfg.reject_creates), (30, 25, true));
    e.exec(polling());
    assert_eq!(e.snapshot().loop_cfg.polling, Some(DEFAULT_POLL_PERIOD));
    e.exec(Cmd::fault(FaultAction { disconnect_watches: true, ..FaultAction::default() }));
    e.exec(Cmd::fault(FaultAction { force_relist: true, ..FaultAction::default() }));
    run_secs(&mut e, 5);
}

#[test]
fn api_reads_per_minute_are_measured_per_observe_mode() {
    let mut e = LiveRun::boot(3, None, clock());
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    run_secs(&mut e, 1);
    let informer = e.snapshot().loop_cfg.reads.informer.expect("informer rate after 100 s");
    e.exec(polling());
    run_secs(&mut e, 1);
    let r = e.snapshot().loop_cfg.reads;
    assert!(r.polling_now);
    let polling = r.polling.expect("polling rate");
    assert_eq!(r.informer, Some(informer), "the other mode keeps its last figure");
    assert!(polling.per_min > informer.per_min, "{polling:?} vs {informer:?}");
}

#[test]
fn control_plane_processes_crash_and_restart() {
    use kubeloop_engine::sim::{CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
    let mut e = LiveRun::boot(1, None, clock());
    run_secs(&mut e, 20);
    let s = e.snapshot();
    let names: Vec<(&str, &str)> = s.control_plane.processes.iter().map(|p| (&*p.name, p.state.as_str())).collect();
    assert_eq!(names, [("cp-1", "leader"), ("cp-2", "standby"), ("kube-scheduler", "leader")]);
    assert_eq!(s.control_plane.lease.as_ref().map(|l| &*l.holder), Some("cp-1"));
    e.exec(Cmd::fault(FaultAction { crash: Some(CONTROLLER_MANAGER), ..FaultAction::default() }));
    e.exec(Cmd::fault(FaultAction { crash: Some(CONTROLLER_MANAGER_2), ..FaultAction::default() }));
    let s = e.snapshot();
    assert!(s.control_plane.processes[..2].iter().all(|p| p.state.as_str() == "crashed"));
    let names: Vec<&str> = s.controllers.iter().map(|c| c.status.name).collect();
    assert_eq!(names.len(), 17, "still one row per controller: {names:?}");
    e.exec(Cmd::fault(FaultAction { restart: Some(CONTROLLER_MANAGER_2), ..FaultAction::default() }));
    run_secs(&mut e, 40);
    assert_eq!(e.sim().controller_manager_leader(), Some(CONTROLLER_MANAGER_2));
    assert_eq!(e.snapshot().control_plane.processes[1].state.as_str(), "leader");
}

#[test]
fn the_timing_profile_rebuilds_with_the_same_seed_and_says_so() {
    let mut e = LiveRun::boot(4, None, clock());
    run_secs(&mut e, 10);
    e.exec(Cmd::SetTiming(TimingProfile::FastDemo));
    let s = e.snapshot();
    assert_eq!(s.timing, TimingProfile::FastDemo);
    assert!(s.time.now < 1_000, "a fresh simulation");
    assert!(s.notice.as_deref().is_some_and(|n| n.contains("seed 4") && n.contains("fast demo")), "{:?}", s.notice);
    assert_eq!(e.sim().config().node_lifecycle.grace_period, 20 * SECOND);
    assert_eq!(s.editor.seq, 1);
}

/// Answers the lesson's waiting question, if one waits, with the choice the lesson holds right.
fn answer_right(e: &mut LiveRun) {
    let right = e
        .lesson
        .as_ref()
        .and_then(|r| e.player.holding().and_then(|i| r.scenario.actions[i].ask.as_ref()).map(|a| a.answer));
    if let Some(a) = right {
        e.exec(Cmd::Predict(Some(a)));
    }
}

/// One frame of a lesson, answering its questions right.
fn lesson_frame(e: &mut LiveRun, dt: f64) {
    e.frame(dt);
    answer_right(e);
}

/// Seconds from a lesson's start past its last step and past the end of each of its expectations.
fn lesson_end(sc: &Scenario) -> u64 {
    let checks = sc.actions.iter().flat_map(|a| a.expect.iter().map(move |x| a.at + x.due() + 2 * SECOND));
    checks.chain([sc.actions.last().map_or(0, |a| a.at) + 60 * SECOND]).max().unwrap_or(0) / SECOND
}

/// Runs a lesson at 100x until `secs` simulated seconds after its start, answering its questions right.
fn play_lesson(e: &mut LiveRun, id: &'static str, profile: Option<TimingProfile>, secs: u64) {
    e.exec(Cmd::StartLesson(id, profile));
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    while e.sim().now() < secs * SECOND {
        lesson_frame(e, 100.0);
    }
}

/// Starting a lesson leaves no earlier notice standing (the page said "Loading the lesson…" until it ran).
#[test]
fn a_started_lesson_clears_what_was_said_before() {
    let mut e = LiveRun::boot(1, None, clock());
    e.exec(Cmd::StartLesson("nope", None));
    assert!(e.snapshot().notice.is_some_and(|n| n.contains("No lesson")));
    e.exec(Cmd::StartLesson("self-healing", None));
    assert_eq!(e.snapshot().notice, None);
}

#[test]
fn every_lesson_runs_its_script() {
    for l in crate::lessons::all() {
        if l.id == "polling-vs-informers" {
            continue; // below, once (1,000 pods)
        }
        let mut e = LiveRun::boot(1, None, clock());
        let sc = l.scenario().expect("carried").expect("lesson");
        let end = lesson_end(sc);
        play_lesson(&mut e, l.id, None, end);
        let s = e.snapshot();
        let v = s.lesson.as_deref().expect("lesson view");
        assert!(v.steps.iter().all(|(_, _, r)| r.is_some()), "{}: {:?}", l.id, v.steps);
        // Every lesson asks first, and each check finds what the lesson holds right (answered so here).
        assert!(v.checks.iter().any(|c| !c.question.is_empty()), "{}: asks", l.id);
        for c in &v.checks {
            let chosen = if c.question.is_empty() { None } else { Some(c.answer) };
            assert_eq!((c.state, c.chosen), ("passed", chosen), "{}: {c:?}", l.id);
        }
        // The page's verdicts are the runner's: the same expectations decided the same way at the same seconds.
        let page = &e.lesson.as_ref().expect("lesson").checks;
        let mut run = sc.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
        run.run_to(end * SECOND);
        assert_eq!(page, run.checks(), "{}", l.id);
        assert!(!v.figures.is_empty(), "{}", l.id);
        assert_eq!(Some(s.editor.text.as_ref()), sc.manifests.as_deref());
        let results: Vec<&str> = v.steps.iter().filter_map(|(_, _, r)| r.as_deref()).collect();
        match l.id {
            "idempotency" => assert!(results.iter().all(|r| r.contains("unchanged")), "{results:?}"),
            "hand-edits" => {
                assert!(results[0].contains("scaled"), "{results:?}");
                let rs = e
                    .sim()
                    .store()
                    .objects(Kind::ReplicaSet)
                    .next()
                    .and_then(|o| o.as_replicaset().map(|r| r.replicas()));
                assert_eq!(rs, Some(3), "put back by the Deployment controller");
            }
            "edge-vs-level" => {
                assert!(results[2].contains("deleted"), "{results:?}");
                assert_eq!(live_web(&e), 3, "healed after level + a 410 relist");
            }
            "control-plane-down" => assert_eq!(live_web(&e), 3),
            "backoff" => {
                let f = v.figures.iter().find(|(k, _)| k.contains("retried")).expect("delays");
                assert!(f.1.starts_with("5 ms, 10 ms, 20 ms"), "{f:?}");
            }
            "conflicts" => {
                assert!(s.loop_cfg.conflicts > 0);
                assert_eq!(live_web(&e), 6);
            }
            "pdb-drain" => {
                // The drain went on in the console (as the runner follows it): refused once or more, then done.
                let console = s.console.earlier.iter().chain(s.console.last.iter());
                let text: String = console.flat_map(|c| c.chunks.iter()).map(|c| c.text().to_string()).collect();
                assert!(text.contains("(will retry after 5s): Cannot evict pod"), "{text}");
                assert!(text.contains("node/node-2 drained"), "{text}");
            }
            "probes" => assert_eq!(s.services.first().map(|v| v.ready), Some(3), "back to three ready"),
            _ => {}
        }
    }
}

#[test]
fn edge_vs_level_stays_short_in_edge_mode_with_no_drift() {
    // Before the 410 nothing re-observes (upstream's informers have no periodic relist): the caches drift.
    let mut e = LiveRun::boot(1, None, clock());
    play_lesson(&mut e, "edge-vs-level", None, 2 * 60 + 50);
    assert_eq!(live_web(&e), 0, "the deletions were never heard");
    assert!(e.sim().drift() > 0, "the caches still hold the deleted pods");
    assert_eq!(e.snapshot().loop_cfg.relist_ms, 0, "no periodic relist: upstream's default");
    let mut e = LiveRun::boot(1, None, clock());
    play_lesson(&mut e, "edge-vs-level", None, 6 * 60 + 30);
    assert_eq!(live_web(&e), 0, "the deletions were never heard");
    assert_eq!(e.sim().drift(), 0, "the 410 relist repaired the caches");
    assert!(e.snapshot().loop_cfg.edge);
}

#[test]
fn self_healing_with_the_fast_demo_replaces_a_dead_nodes_pods() {
    let mut e = LiveRun::boot(1, None, clock());
    play_lesson(&mut e, "self-healing", Some(TimingProfile::FastDemo), 180);
    assert_eq!(e.profile, TimingProfile::FastDemo);
    let s = e.snapshot();
    let v = s.lesson.as_deref().expect("lesson");
    let dead = v.figures.iter().find(|(k, _)| k.contains("kubelet down")).expect("a dead node figure");
    assert!(dead.1.contains("Ready=Unknown") && dead.1.contains("unreachable"), "{dead:?}");
    assert_eq!(live_web(&e), 3);
    let reasons: Vec<&str> = s.events.rows.iter().map(|r| &*r.reason).collect();
    assert!(reasons.contains(&"NodeNotReady") && reasons.contains(&"TaintManagerEviction"), "{reasons:?}");
}

#[test]
#[ignore = "1,000 pods: slow in debug builds; cargo test --release -- --ignored polling"]
fn polling_lesson_shows_both_figures() {
    let mut e = LiveRun::boot(1, None, clock());
    play_lesson(&mut e, "polling-vs-informers", None, 7 * 60 + 20);
    let r = e.snapshot().loop_cfg.reads;
    let (i, p) = (r.informer.expect("informer"), r.polling.expect("polling"));
    eprintln!("informer {i:?} polling {p:?}");
    assert!(p.per_min > 50 * i.per_min);
    let s = e.snapshot();
    let c = &s.lesson.as_deref().expect("lesson").checks[0];
    eprintln!("{c:?}");
    assert_eq!((c.state, c.chosen), ("passed", Some(c.answer)), "{c:?}");
}

/// What the page reads (snapshots every frame, detail panels, Tab completion, read-only kubectl lines) never
/// changes the run: the same seed and the same writes give the same history hash as a page nobody looks at.
#[test]
fn what_the_page_reads_never_changes_the_run() {
    let run = |look: bool| {
        let mut e = LiveRun::boot(21, None, clock());
        for second in 0..90u32 {
            if second == 20 {
                e.exec(Cmd::Kubectl { line: "scale deploy web --replicas=6".into(), stdin: None });
            }
            if second == 40 {
                e.exec(watch_drop(30));
            }
            if second == 60 {
                e.exec(watch_drop(0));
            }
            for _ in 0..10 {
                e.frame(100.0);
                if look {
                    let s = e.snapshot();
                    if let Some(p) =
                        dom(&s).0.iter().flat_map(|n| n.pods.iter()).find(|p| &*p.key.namespace == "default")
                    {
                        e.exec(Cmd::Select(Selection::Pod(p.key.clone())));
                    }
                    let _ = e.snapshot();
                }
            }
            if look && second % 7 == 0 {
                let _ = e.complete_line("kubectl get pods w");
                let _ = e.complete_line("kubectl describe no");
                for line in ["get pods -o wide", "describe deploy web", "events", "top nodes", "get all -A -o yaml"] {
                    e.exec(Cmd::Kubectl { line: line.into(), stdin: None });
                }
                e.exec(Cmd::Kubectl { line: "get pods -w".into(), stdin: None });
            }
            if look && second % 7 == 3 {
                e.exec(Cmd::KubectlInterrupt);
            }
        }
        e.sim().history_hash()
    };
    assert_eq!(run(false), run(true));
}

/// A run made by clicks, console lines and an apply is a value: its export replays natively (the runner's
/// `Scenario::start` and `run_to`) to the same history hash at the same simulated time. Reads are not recorded.
#[test]
fn an_exported_run_replays_to_the_same_history_hash() {
    let mut e = LiveRun::boot(3, None, clock());
    run_secs(&mut e, 7);
    e.exec(Cmd::kill_node("node-2"));
    run_secs(&mut e, 20);
    e.exec(Cmd::Kubectl { line: "kubectl get pods".into(), stdin: None });
    e.exec(Cmd::Kubectl { line: "kubectl scale deployment web --replicas=5".into(), stdin: None });
    run_secs(&mut e, 41);
    e.exec(Cmd::fault(FaultAction { drop_watch_events: Some(0.5), ..FaultAction::default() }));
    run_secs(&mut e, 63);
    e.exec(Cmd::fault(FaultAction { drop_watch_events: Some(0.0), ..FaultAction::default() }));
    let text = crate::examples::WEB.replace("replicas: 3", "replicas: 4");
    e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(text) });
    run_secs(&mut e, 90);
    e.exec(Cmd::revive_node("node-2"));
    run_secs(&mut e, 150);
    let exported = e.export().expect("exportable");
    assert!(!exported.contains("get pods"), "reads are not recorded:\n{exported}");
    let sc = Scenario::parse(&exported).unwrap_or_else(|err| panic!("{err}\n{exported}"));
    assert_eq!(sc.actions.len(), 6, "{exported}");
    let mut run = sc.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
    run.run_to(run.until());
    assert_eq!(run.sim().now(), e.sim().now());
    assert_eq!(
        format!("{:016x}", run.sim().history_hash()),
        format!("{:016x}", e.sim().history_hash()),
        "the replay's history is the page's\n{exported}"
    );
}

/// A dry run writes nothing, so the page does not record it: the export of a run with dry runs typed in the console
/// (client and server, one reading the editor with `-f -`, a drain that keeps going) is the export of the same run
/// without them, and replays to the page's history hash.
#[test]
fn dry_runs_are_not_recorded_and_the_export_still_replays() {
    let run = |dry: bool| {
        let mut e = LiveRun::boot(5, None, clock());
        run_secs(&mut e, 10);
        e.exec(Cmd::Kubectl { line: "kubectl scale deployment web --replicas=4".into(), stdin: None });
        run_secs(&mut e, 20);
        if dry {
            let text = crate::examples::WEB.replace("replicas: 3", "replicas: 7");
            for (line, stdin) in [
                ("kubectl apply -f - --dry-run=client", Some(text.clone())),
                ("kubectl apply -f - --dry-run=server", Some(text)),
                ("kubectl cordon node-1 --dry-run=server", None),
                ("kubectl scale deployment web --replicas=9 --dry-run=client", None),
                ("kubectl drain node-2 --dry-run=server", None),
                ("kubectl delete deployment web --dry-run", None),
            ] {
                e.exec(Cmd::Kubectl { line: line.into(), stdin });
                run_secs(&mut e, 2);
            }
        } else {
            run_secs(&mut e, 12);
        }
        run_secs(&mut e, 30);
        let exported = e.export().expect("exportable");
        (exported, e.sim().history_hash(), e.sim().now())
    };
    let (with, hash, at) = run(true);
    let (without, hash_without, _) = run(false);
    assert!(!with.contains("dry-run"), "dry runs are not recorded:\n{with}");
    assert_eq!(with, without, "the same record as the run without them");
    assert_eq!(hash, hash_without, "the same history as the run without them");
    let sc = Scenario::parse(&with).unwrap_or_else(|err| panic!("{err}\n{with}"));
    let mut replay = sc.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
    replay.run_to(replay.until());
    assert_eq!((replay.sim().now(), replay.sim().history_hash()), (at, hash), "the replay's history is the page's");
}

/// A lesson played in the page is recorded as its cluster and the steps it ran, and replays the same.
#[test]
fn an_exported_lesson_replays_to_the_same_history_hash() {
    for id in ["self-healing", "pdb-drain"] {
        let mut e = LiveRun::boot(1, None, clock());
        e.exec(Cmd::StartLesson(id, None));
        let end =
            crate::lessons::find(id).and_then(|l| l.scenario()?.ok()).and_then(|s| s.actions.last().map(|a| a.at));
        let end = end.expect("steps") / SECOND + 20;
        while e.sim().now() < end * SECOND {
            lesson_frame(&mut e, 100.0);
        }
        let exported = e.export().expect("exportable");
        let sc = Scenario::parse(&exported).unwrap_or_else(|err| panic!("{id}: {err}\n{exported}"));
        let mut run = sc.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
        run.run_to(run.until());
        assert_eq!(run.sim().history_hash(), e.sim().history_hash(), "{id}\n{exported}");
    }
}

/// Opening a scenario file replays it as `kubeloop run` does, to its `until:`, paused; exporting it again gives a
/// file that replays to the same hash.
#[test]
fn an_imported_scenario_replays_as_the_runner_does_and_pauses() {
    let text = include_str!("../../examples/node-failure.yaml");
    let mut e = LiveRun::boot(9, None, clock());
    run_secs(&mut e, 3);
    e.exec(Cmd::Import(text.to_string()));
    assert!(!e.playing, "paused at the end");
    let sc = Scenario::parse(text).expect("example");
    let mut run = sc.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
    run.run_to(run.until());
    assert_eq!(e.sim().now(), run.sim().now());
    assert_eq!(e.sim().history_hash(), run.sim().history_hash());
    assert_eq!(e.seed, sc.seed.unwrap_or(1));
    let again = e.export().expect("export");
    let sc2 = Scenario::parse(&again).expect("re-export");
    let mut run2 = sc2.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
    run2.run_to(run2.until());
    assert_eq!(run2.sim().history_hash(), e.sim().history_hash(), "{again}");
    // Continuing live and exporting still replays.
    e.exec(Cmd::SetPlaying(true));
    let end = u32::try_from(e.sim().now() / SECOND).expect("seconds") + 30;
    run_secs(&mut e, end);
    e.exec(Cmd::add_node());
    run_secs(&mut e, end + 20);
    let live = e.export().expect("export");
    let sc3 = Scenario::parse(&live).expect("live export");
    let mut run3 = sc3.start(kubeloop_engine::scenario::RunOptions::default()).expect("start");
    run3.run_to(run3.until());
    assert_eq!(run3.sim().history_hash(), e.sim().history_hash(), "{live}");
    // A file that does not read changes nothing and says why.
    let before = e.sim().history_hash();
    e.exec(Cmd::Import("seed: [".into()));
    assert_eq!(e.sim().history_hash(), before);
    assert!(e.snapshot().notice.is_some_and(|n| n.contains("does not read")));
}

/// Replaying the run: from its starting cluster, the same interventions at their times as the clock gets there;
/// the same seed gives the same history, another seed the same interventions on another history.
#[test]
fn a_replay_with_the_same_seed_is_the_same_run() {
    let mut e = LiveRun::boot(4, None, clock());
    run_secs(&mut e, 10);
    e.exec(Cmd::kill_node("node-1"));
    run_secs(&mut e, 30);
    e.exec(Cmd::Kubectl { line: "kubectl scale deployment web --replicas=6".into(), stdin: None });
    run_secs(&mut e, 80);
    let (t, hash) = (e.sim().now(), e.sim().history_hash());
    let exported = e.export().expect("export");
    e.exec(Cmd::Replay(None));
    assert_eq!(e.sim().now(), 0);
    while e.sim().now() < t {
        e.frame(100.0);
    }
    assert_eq!(e.sim().now(), t);
    assert_eq!(e.sim().history_hash(), hash, "the same seed, the same interventions: the same history");
    assert_eq!(e.export().expect("export"), exported);
    e.exec(Cmd::Replay(Some(99)));
    while e.sim().now() < t {
        e.frame(100.0);
    }
    assert_ne!(e.sim().history_hash(), hash, "another seed");
    let other = e.export().expect("export");
    assert!(other.contains("seed: 99"), "{other}");
    assert_eq!(
        other.lines().filter(|l| l.trim_start().starts_with("- {at:")).collect::<Vec<_>>(),
        exported.lines().filter(|l| l.trim_start().starts_with("- {at:")).collect::<Vec<_>>(),
        "the same interventions at the same times"
    );
}

/// The runner's replay of a scenario text to its `until:`: the simulated time and history hash it ends at.
fn runner_end(text: &str) -> (Millis, u64) {
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let opts = kubeloop_engine::scenario::RunOptions { read_file: Some(&example_file), ..Default::default() };
    let mut run = sc.start(opts).expect("start");
    run.run_to(run.until());
    (run.sim().now(), run.sim().history_hash())
}

/// Runs `secs` simulated seconds on, then checks that the run's export replays in the runner to the same time and
/// history hash. Returns the export.
fn replays_alike_after(e: &mut LiveRun, secs: u32) -> String {
    run_secs(e, secs);
    let exported = e.export().expect("export");
    assert_eq!(runner_end(&exported), (e.sim().now(), e.sim().history_hash()));
    exported
}

/// Share asks the page to compress the export (the run at this moment, with its hash); the link it makes is shown;
/// a run that cannot be exported has no link and says why.
#[test]
fn share_hands_the_page_the_export_and_shows_the_link() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 12);
    e.exec(Cmd::kill_node("node-3"));
    run_secs(&mut e, 40);
    e.exec(Cmd::Share);
    let (text, hash) = e.take_share_request().expect("a request");
    assert!(e.take_share_request().is_none(), "once");
    assert_eq!(hash, e.sim().history_hash());
    assert_eq!(text, e.export().expect("export"));
    assert_eq!(runner_end(&text), (e.sim().now(), hash));
    let view = e.snapshot().share.expect("shown");
    assert_eq!((view.at, view.hash, view.state.clone()), (e.sim().now(), hash, ShareState::Making));
    e.exec(Cmd::Shared(Ok("http://x/#run=AA&hash=00".into())));
    e.exec(Cmd::Copied(false));
    let made = e.snapshot().share.expect("shown").state.clone();
    assert_eq!(made, ShareState::Made { url: "http://x/#run=AA&hash=00".into(), copied: Some(false) });
    e.exec(Cmd::CloseShare);
    assert!(e.snapshot().share.is_none());
    // Too large for a link: the reason is shown.
    e.exec(Cmd::Share);
    assert!(e.take_share_request().is_some());
    e.exec(Cmd::Shared(Err("the run is too large for a link".into())));
    assert!(matches!(&e.snapshot().share.expect("shown").state, ShareState::Failed(w) if w.contains("too large")));
    // A run that cannot be exported exactly.
    e.exec(Cmd::Kubectl { line: "kubectl create -f -".into(), stdin: Some(crate::examples::WEB.into()) });
    e.exec(Cmd::Share);
    assert!(e.take_share_request().is_none());
    assert!(matches!(&e.snapshot().share.expect("shown").state, ShareState::Failed(w) if w.contains("-f -")));
}

/// A link to a run opens it replayed to its end and paused, at the hash the link says; a hash that differs is
/// said; a link that does not open leaves the page as it was and says why.
#[test]
fn a_shared_run_opens_at_its_hash_and_pauses() {
    let mut a = LiveRun::boot(6, None, clock());
    run_secs(&mut a, 9);
    a.exec(Cmd::kill_node("node-1"));
    a.exec(Cmd::Kubectl { line: "kubectl scale deployment web --replicas=7".into(), stdin: None });
    run_secs(&mut a, 70);
    a.exec(Cmd::Share);
    let (text, hash) = a.take_share_request().expect("request");

    let mut b = LiveRun::boot(1, None, clock());
    run_secs(&mut b, 2);
    b.exec(Cmd::Open(Ok(Link::Run { run: text.clone(), hash: Some(hash) })));
    assert!(!b.playing);
    assert_eq!((b.sim().now(), b.sim().history_hash(), b.seed), (a.sim().now(), hash, 6));
    let said = b.snapshot().notice.expect("said").to_string();
    assert!(said.contains("at the history hash the link says"), "{said}");
    // It goes on live from there as the original does.
    a.exec(Cmd::SetPlaying(true));
    b.exec(Cmd::SetPlaying(true));
    run_secs(&mut a, 90);
    run_secs(&mut b, 90);
    assert_eq!(a.sim().history_hash(), b.sim().history_hash());

    let mut c = LiveRun::boot(1, None, clock());
    c.exec(Cmd::Open(Ok(Link::Run { run: text, hash: Some(hash ^ 1) })));
    let said = c.snapshot().notice.expect("said").to_string();
    assert!(said.contains(&format!("ends at history hash {:016x}", hash ^ 1)), "{said}");

    let before = c.sim().history_hash();
    c.exec(Cmd::Open(Err("the link's run= is empty".into())));
    assert_eq!(c.sim().history_hash(), before);
    let said = c.snapshot().notice.expect("said").to_string();
    assert!(said.starts_with("The link does not open: the link's run= is empty."), "{said}");
    c.exec(Cmd::Open(Ok(Link::Run { run: "until: [".into(), hash: None })));
    assert_eq!(c.sim().history_hash(), before);
    assert!(c.snapshot().notice.is_some_and(|n| n.contains("does not read")));
}

/// Every lesson, every scenario of examples/ and every example of the menu opens from its link, paused: a
/// scenario where `kubeloop run` ends it, a lesson at its start, an example applied to the starting cluster.
#[test]
fn every_lesson_and_example_opens_from_its_link() {
    for name in crate::examples::SCENARIOS {
        let text = crate::examples::scenario(name).expect("carried by native builds");
        let mut e = LiveRun::boot(1, None, clock());
        e.exec(Cmd::Open(Ok(Link::Scenario(name.into()))));
        assert!(!e.playing, "{name}");
        assert_eq!((e.sim().now(), e.sim().history_hash()), runner_end(&text), "{name}");
        let said = e.snapshot().notice.expect("said").to_string();
        assert!(said.starts_with(&format!("Opened examples/{name}.yaml")), "{said}");
    }
    for id in crate::lessons::ids() {
        let mut e = LiveRun::boot(1, None, clock());
        e.exec(Cmd::Open(Ok(Link::Lesson(id.into()))));
        assert!(!e.playing, "{id}");
        let snap = e.snapshot();
        assert_eq!(snap.lesson.as_ref().map(|l| l.id), Some(id));
        assert!(snap.notice.is_some_and(|n| n.starts_with("Opened the lesson")), "{id}");
        // Play runs its script.
        e.exec(Cmd::SetPlaying(true));
        run_secs(&mut e, 1);
        assert!(e.sim().now() > 0);
    }
    for ex in crate::examples::EXAMPLES {
        let mut e = LiveRun::boot(1, None, clock());
        e.exec(Cmd::Open(Ok(Link::Example(ex.id.into()))));
        assert!(!e.playing, "{}", ex.id);
        let snap = e.snapshot();
        assert_eq!(snap.editor.text, ex.text().expect("carried"), "{}", ex.id);
        assert_eq!(snap.apply.ok, ex.id != "typo", "{}: {}", ex.id, snap.apply.text);
        assert!(snap.notice.is_some_and(|n| n.starts_with("Opened the example")), "{}", ex.id);
    }
    for (what, said) in [
        (Ok(Link::Lesson("nope".into())), "there is no lesson \"nope\" (lessons: self-healing, "),
        (Ok(Link::Scenario("nope".into())), "there is no example scenario \"nope\" (scenarios: node-failure, "),
        (Ok(Link::Example("nope".into())), "there is no example \"nope\" (examples: web, "),
    ] {
        let mut e = LiveRun::boot(1, None, clock());
        let before = e.sim().history_hash();
        e.exec(Cmd::Open(what));
        assert_eq!(e.sim().history_hash(), before);
        let notice = e.snapshot().notice.expect("said").to_string();
        assert!(notice.contains(said), "{notice}");
    }
}

/// A command that keeps printing and writes as it goes (`drain`, evicting again every 5 s while a budget refuses)
/// writes at the same simulated times in the page as in the runner, whatever the frames' wall times: the page looks
/// at it on the runner's grid (at each intervention and every 100 ms after), not once a frame.
#[test]
fn a_drain_writes_at_the_runners_times_whatever_the_frames() {
    for (id, dts) in [("pdb-drain", [16.7, 16.7, 33.4, 7.9]), ("pdb-drain", [250.0, 3.0, 41.0, 16.0])] {
        let mut e = LiveRun::boot(2, None, clock());
        e.exec(Cmd::StartLesson(id, None));
        e.exec(Cmd::SetSpeed(Speed::X(10)));
        let mut i = 0;
        while e.sim().now() < 200 * SECOND {
            lesson_frame(&mut e, dts[i % dts.len()]);
            i += 1;
        }
        let exported = e.export().expect("exportable");
        let (at, hash) = runner_end(&exported);
        assert_eq!(at, e.sim().now());
        assert_eq!(format!("{hash:016x}"), format!("{:016x}", e.sim().history_hash()), "{dts:?}\n{exported}");
    }
}

/// Frames of uneven wall times at 10x, the last one landing on simulated time `t` (ms) exactly.
fn frames_until(e: &mut LiveRun, t: Millis) {
    let dts: [f64; 6] = [16.7, 16.7, 33.4, 7.9, 41.0, 3.0];
    let mut i = 0;
    while e.sim().now() < t {
        let left = (t - e.sim().now()) as f64 / 10.0;
        e.frame(dts[i % dts.len()].min(left));
        i += 1;
    }
}

/// A drain a person interrupts (Ctrl+C) is recorded with how long it ran (`for:`): the export replays to the page's
/// hash, the page's own replay too, and an opened run with drains still evicting at its end goes on evicting live as
/// the runner's longer replay does. Another command line does not stop a drain: it goes on beside it.
#[test]
fn interrupted_drains_are_part_of_the_run() {
    let pdb = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 3\n  selector:\n    matchLabels:\n      app: web\n";
    let mut e = LiveRun::boot(8, None, clock());
    e.exec(Cmd::SetSpeed(Speed::X(10)));
    frames_until(&mut e, 20_000);
    e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(pdb.into()) });
    frames_until(&mut e, 30_000);
    e.exec(Cmd::Kubectl { line: "kubectl drain node-1 --ignore-daemonsets".into(), stdin: None });
    assert!(e.console.running(), "the budget makes it wait");
    frames_until(&mut e, 47_321);
    e.exec(Cmd::KubectlInterrupt);
    assert!(!e.console.running());
    frames_until(&mut e, 52_000);
    e.exec(Cmd::Kubectl { line: "kubectl drain node-2 --ignore-daemonsets".into(), stdin: None });
    frames_until(&mut e, 71_777);
    e.exec(Cmd::Kubectl { line: "kubectl get pods".into(), stdin: None });
    frames_until(&mut e, 80_000);
    e.exec(Cmd::Kubectl { line: "kubectl drain node-3 --ignore-daemonsets".into(), stdin: None });
    assert_eq!(e.console.running.len(), 2, "drain node-2 goes on beside the lines after it");
    frames_until(&mut e, 90_050);
    let exported = e.export().expect("exportable");
    assert!(exported.contains("drain node-1 --ignore-daemonsets\", for: 17.321s}"), "Ctrl+C: {exported}");
    assert!(exported.contains("kubectl: \"kubectl drain node-2 --ignore-daemonsets\"}"), "not interrupted: {exported}");
    assert!(!exported.contains("get pods"), "{exported}");
    let (at, hash) = runner_end(&exported);
    assert_eq!((at, format!("{hash:016x}")), (e.sim().now(), format!("{:016x}", e.sim().history_hash())), "{exported}");

    // The page's replay: the interruption comes again at its time.
    let t = e.sim().now();
    e.exec(Cmd::Replay(None));
    frames_until(&mut e, t);
    assert_eq!(e.sim().history_hash(), hash, "the replay is the run");
    assert_eq!(e.export().expect("export"), exported);

    // Opened at 90.05 s with drain node-2 and drain node-3 still waiting: they go on in the console, and a longer
    // run replays the same as the runner's; Ctrl+C stops the newest first.
    let mut o = LiveRun::boot(1, None, clock());
    o.exec(Cmd::Import(exported.clone()));
    assert_eq!(o.sim().history_hash(), hash);
    assert_eq!(o.console.running.len(), 2, "both drains go on in the console");
    o.exec(Cmd::SetSpeed(Speed::X(10)));
    o.exec(Cmd::SetPlaying(true));
    frames_until(&mut o, 131_234);
    o.exec(Cmd::KubectlInterrupt);
    frames_until(&mut o, 135_000);
    o.exec(Cmd::KubectlInterrupt);
    assert!(!o.console.running());
    frames_until(&mut o, 140_000);
    let longer = o.export().expect("export");
    assert!(longer.contains("drain node-3 --ignore-daemonsets\", for: 51.234s}"), "{longer}");
    assert!(longer.contains("drain node-2 --ignore-daemonsets\", for: 1m23s}"), "{longer}");
    let (_, h2) = runner_end(&longer);
    assert_eq!(format!("{h2:016x}"), format!("{:016x}", o.sim().history_hash()), "{longer}");
}

/// Reads typed in the console while a drain waits on a disruption budget (some of them commands that keep printing
/// too) leave the run as it was: the drain goes on beside them, evicting at the times of a run without them once a
/// write (a scale, made with the page's own control) lets the budget allow it, and the export (which holds no reads)
/// replays to the page's hash.
#[test]
fn reads_typed_during_a_drain_leave_the_run_alone() {
    let pdb = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 3\n  selector:\n    matchLabels:\n      app: web\n";
    let scale = Intervention::Scale { kind: Kind::Deployment, key: ObjKey::new("default", "web"), replicas: 4 };
    let reads: &[(Millis, &str)] = &[
        (30_000, "kubectl get pods"),
        (31_234, "kubectl describe pdb web"),
        (33_050, "kubectl get pods -w"),
        (33_051, "kubectl top nodes"),
        (36_777, "kubectl rollout status deployment/web"),
        (41_003, "kubectl get pods -o yaml"),
        (47_321, "kubectl events"),
    ];
    let run = |typed: &[(Millis, &str)]| {
        let mut e = LiveRun::boot(8, None, clock());
        e.exec(Cmd::SetSpeed(Speed::X(10)));
        frames_until(&mut e, 20_000);
        e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(pdb.into()) });
        frames_until(&mut e, 30_000);
        e.exec(Cmd::Kubectl { line: "kubectl drain node-1 --ignore-daemonsets".into(), stdin: None });
        for (at, line) in typed {
            if *at > 41_337 && e.sim().now() < 41_337 {
                frames_until(&mut e, 41_337);
                e.exec(Cmd::Intervene(scale.clone()));
            }
            frames_until(&mut e, *at);
            e.exec(Cmd::Kubectl { line: line.to_string(), stdin: None });
        }
        if e.sim().now() < 41_337 {
            frames_until(&mut e, 41_337);
            e.exec(Cmd::Intervene(scale.clone()));
        }
        frames_until(&mut e, 90_000);
        let s = e.snapshot();
        let console: String = s.console.earlier.iter().chain(s.console.last.as_ref()).map(|c| c.text()).collect();
        (e.sim().history_hash(), e.export().expect("exportable"), console)
    };
    let (quiet, quiet_export, quiet_console) = run(&[]);
    assert!(
        quiet_console.contains("(will retry after 5s)") && quiet_console.contains("node/node-1 drained"),
        "the budget refuses until the scale: {quiet_console}"
    );
    let (busy, busy_export, busy_console) = run(reads);
    assert!(busy_console.contains("node/node-1 drained"), "the drain went on beside the reads:\n{busy_console}");
    assert_eq!(format!("{busy:016x}"), format!("{quiet:016x}"), "the reads changed the run:\n{busy_export}");
    assert_eq!(busy_export, quiet_export, "reads are not recorded, nor do they interrupt");
    let (_, replayed) = runner_end(&busy_export);
    assert_eq!(replayed, busy, "the runner replays the export to the page's hash");
}

/// What the page keeps across a reload: nothing for an untouched page; else the run (replayed to the same hash,
/// paused), the console's entries and the editor's text.
#[test]
fn a_session_comes_back_after_a_reload() {
    let mut e = LiveRun::boot(3, None, clock());
    run_secs(&mut e, 5);
    assert!(e.session(crate::examples::WEB.to_string()).is_none(), "nothing to keep");
    assert!(e.session("# mine\n".into()).is_some(), "edited text is kept");
    e.exec(Cmd::kill_node("node-1"));
    e.exec(Cmd::Kubectl { line: "kubectl get nodes".into(), stdin: None });
    run_secs(&mut e, 30);
    e.exec(Cmd::SetPlaying(false));
    let s = e.session("# mine\n".into()).expect("a session");
    assert_eq!(s.console.len(), 1);
    // A page of another seed does not take the run.
    let mut other = LiveRun::boot(4, None, clock());
    other.restore(s.clone());
    assert_eq!(other.sim().now(), 0);
    assert!(other.snapshot().notice.is_some_and(|n| n.contains("not the run (it has seed 3, this page seed 4")));
    let mut r = LiveRun::boot(3, None, clock());
    r.restore(s);
    assert!(!r.playing, "paused as it was");
    assert_eq!((r.sim().now(), r.sim().history_hash()), (e.sim().now(), e.sim().history_hash()));
    let snap = r.snapshot();
    assert_eq!(&*snap.editor.text, "# mine\n");
    assert!(snap.console.last.is_some_and(|l| l.line == "kubectl get nodes" && l.text().contains("node-1")));
    assert!(snap
        .notice
        .is_some_and(|n| n.starts_with("Restored your last session: the run, replayed to 35.0 s, paused as it was")));
}

/// A manifest of `n` ConfigMaps of about 1 KB each.
fn config_maps(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  key: \"{}\"\n",
                "v".repeat(900)
            )
        })
        .collect()
}

/// A large apply is read across frames with the clock held, then performed at the time it was asked for: the run
/// is the runner's (its export replays to the page's hash); Cancel applies nothing and records nothing; an error
/// late in the text is said as the whole-text apply says it, the objects before it applied.
#[test]
fn a_large_apply_is_read_across_frames_at_its_time() {
    let big = config_maps(300);
    assert!(big.len() > SLICED_APPLY_BYTES);
    let mut e = LiveRun::boot(2, None, clock_of(0.5));
    run_secs(&mut e, 4);
    let at = e.sim().now();
    e.exec(Cmd::apply(big.clone()));
    assert!(e.snapshot().apply.applying.is_some(), "reading");
    // A second apply meanwhile (Ctrl+Enter) is refused, not mixed in.
    e.exec(Cmd::apply(big.replace("cm-", "cz-")));
    assert!(e.snapshot().notice.is_some_and(|n| n.starts_with("An apply is still being read")));
    let mut frames = 0;
    let mut stages = Vec::new();
    while let Some(p) = e.snapshot().apply.applying {
        let stage = e.snapshot().apply.summary.split(' ').next().unwrap_or_default().to_string();
        assert_eq!(p.cancellable, stage == "reading", "{stage}");
        assert!(p.done <= p.of);
        if stages.last() != Some(&stage) {
            stages.push(stage);
        }
        e.frame(16.0);
        frames += 1;
        assert_eq!(e.sim().now(), at, "the clock is held");
        assert!(frames < 10_000);
    }
    assert!(frames > 1, "read across frames ({frames})");
    assert!(stages.iter().map(String::as_str).eq(["reading", "applying"]), "{stages:?}");
    let snap = e.snapshot();
    assert!(snap.apply.ok && snap.apply.text.contains("configmap/cm-299 created"), "{}", snap.apply.text);
    replays_alike_after(&mut e, 10);

    // Cancel: nothing applied, nothing recorded, the clock goes on.
    let before = (e.sim().history_hash(), e.export().expect("export"));
    e.exec(Cmd::apply(big.replace("cm-", "other-")));
    e.frame(16.0);
    e.exec(Cmd::CancelApply);
    assert_eq!(e.snapshot().apply.summary, "apply cancelled: nothing was applied");
    assert_eq!((e.sim().history_hash(), e.export().expect("export")), before);
    let t = e.sim().now();
    run_secs(&mut e, 1);
    assert!(e.sim().now() > t);

    // Once read it is the run's: Cancel no longer stops it, and anything that touches the run meanwhile (a command,
    // an export) finds it written whole first, so the record replays.
    e.exec(Cmd::apply(big.replace("cm-", "late-")));
    while !e.snapshot().apply.summary.starts_with("applying") {
        e.frame(16.0);
        assert!(e.snapshot().apply.applying.is_some(), "{}", e.snapshot().apply.summary);
    }
    e.exec(Cmd::CancelApply);
    assert!(e.snapshot().apply.applying.is_some(), "not cancelled while written");
    e.exec(Cmd::Kubectl { line: "scale deployment web --replicas=5".into(), stdin: None });
    let snap = e.snapshot();
    assert!(
        snap.apply.applying.is_none() && snap.apply.text.contains("configmap/late-299 created"),
        "{}",
        snap.apply.text
    );
    let exported = replays_alike_after(&mut e, 5);
    let applied = exported.find("late-0").expect("recorded");
    assert!(applied < exported.find("--replicas=5").expect("recorded"), "the apply is recorded first");

    // An error in the last document: said as the whole-text apply says it, at its line; the objects before it
    // applied, as kubectl applies them.
    let bad = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  nmae: y\n",
        config_maps(200).replace("cm-", "more-")
    );
    let mut whole = LiveRun::boot(2, None, clock());
    let said = apply_outcome(0, &kubeloop_engine::kubectl::apply_each(whole.player.sim_mut(), &bad));
    e.exec(Cmd::apply(bad.clone()));
    while e.snapshot().apply.applying.is_some() {
        e.frame(16.0);
    }
    let snap = e.snapshot();
    assert!(!snap.apply.ok);
    assert_eq!((&snap.apply.summary, &snap.apply.text), (&said.summary, &said.text));
    assert_eq!(snap.apply.summary, "200 created, 1 failed");
    assert_eq!(snap.apply.error_line, Some(bad.lines().count()));
}

/// `kubectl apply -f -` of a large editor text in the console is read and performed across frames as the Apply
/// button's is (the clock held, recorded as the apply), and prints what kubectl prints there; Ctrl+C while it is read
/// cancels it; another command meanwhile finds it finished first.
#[test]
fn a_large_apply_typed_in_the_console_is_read_across_frames() {
    let big = config_maps(300);
    let mut e = LiveRun::boot(3, None, clock_of(0.5));
    run_secs(&mut e, 2);
    let at = e.sim().now();
    e.exec(Cmd::Kubectl { line: "kubectl apply -f -".into(), stdin: Some(big.clone()) });
    assert!(e.snapshot().apply.applying.is_some(), "read across frames");
    assert_eq!(e.snapshot().console.last.expect("entry").code, None, "running");
    let mut frames = 0;
    while e.snapshot().apply.applying.is_some() {
        e.frame(16.0);
        frames += 1;
        assert_eq!(e.sim().now(), at, "the clock is held");
    }
    assert!(frames > 1);
    let last = e.snapshot().console.last.expect("entry");
    assert_eq!(last.code, Some(0));
    assert!(last.text().contains("configmap/cm-0 created") && last.text().contains("configmap/cm-299 created"));
    replays_alike_after(&mut e, 3);

    // Ctrl+C while it is read: nothing applied, nothing recorded.
    let before = (e.sim().history_hash(), e.export().expect("export"));
    e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(big.replace("cm-", "cc-")) });
    e.frame(16.0);
    e.exec(Cmd::KubectlInterrupt);
    let last = e.snapshot().console.last.expect("entry");
    assert_eq!((last.code, last.text().contains("apply cancelled: nothing was applied")), (Some(130), true));
    assert_eq!((e.sim().history_hash(), e.export().expect("export")), before);

    // Another command while it is read: the apply ends first, then the command sees what it wrote.
    e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(big.replace("cm-", "cd-")) });
    e.frame(16.0);
    e.exec(Cmd::Kubectl { line: "get configmap cd-299".into(), stdin: None });
    assert!(e.snapshot().apply.applying.is_none());
    let earlier = e.snapshot().console.earlier.last().cloned().expect("the apply's entry");
    assert!(earlier.text().contains("configmap/cd-299 created"), "{}", earlier.text());
    assert!(console_text(&mut e).contains("cd-299"), "{}", console_text(&mut e));
    replays_alike_after(&mut e, 1);
}

/// The loop diagram's charts sample the shown controller once a simulated second, within their window: a scale
/// shows as adds; another controller shown starts its own samples.
#[test]
fn the_loop_charts_sample_the_shown_controller_each_second() {
    let mut e = LiveRun::boot(4, None, clock());
    run_secs(&mut e, 5);
    e.exec(Cmd::Kubectl { line: "scale deployment web --replicas=6".into(), stdin: None });
    run_secs(&mut e, 10);
    let charts = e.snapshot().loop_diagram.expect("diagram").charts.clone();
    let metric = |m: &str| charts.iter().find(|c| c.metric == m).expect("chart").series.clone();
    let adds = &metric("workqueue_adds")[0].1;
    assert!((14..=16).contains(&adds.len()), "a sample a simulated second: {}", adds.len());
    assert!(adds.iter().sum::<u32>() > 0, "the scale's adds: {adds:?}");
    assert_eq!(metric("watch_events").len(), 2, "received and dropped");
    run_secs(&mut e, HISTORY as u32 + 10);
    assert_eq!(metric_len(&mut e, "workqueue_depth"), HISTORY, "bounded to the window");
    e.exec(Cmd::ShowLoop("deployment".into()));
    run_secs(&mut e, 3);
    assert!(metric_len(&mut e, "workqueue_depth") <= 4, "the other controller's own samples");
    assert_eq!(e.snapshot().loop_diagram.expect("diagram").status.name, "deployment");
}

fn metric_len(e: &mut LiveRun, m: &str) -> usize {
    let d = e.snapshot().loop_diagram.expect("diagram");
    d.charts.iter().find(|c| c.metric == m).map_or(0, |c| c.series[0].1.len())
}

/// A lesson asks before a step: the clock holds at the step until an answer (or a skip) comes, the step then runs,
/// and the check after it says what the simulation did, whatever was predicted. Without asks, the checks still run.
#[test]
fn a_lesson_asks_first_holds_the_clock_and_checks_after() {
    let mut e = LiveRun::boot(1, None, clock());
    e.exec(Cmd::StartLesson("self-healing", None));
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    while e.lesson.is_some() && e.player.holding().is_none() {
        e.frame(100.0);
    }
    let held = e.sim().now();
    assert_eq!(held, 15 * SECOND, "asked at the step's time");
    let s = e.snapshot();
    let v = s.lesson.as_deref().expect("lesson");
    assert_eq!(v.asking.as_ref().map(|a| a.step), Some(0));
    assert_eq!(v.steps[0].2, None, "the step waits");
    assert!(!s.time.playing);
    // Frames, playing or not, do not move the clock past the question.
    for _ in 0..5 {
        e.frame(100.0);
    }
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    e.frame(100.0);
    assert_eq!(e.sim().now(), held);
    // A wrong prediction: the step runs, the check still says what happened, and that the prediction was not it.
    e.exec(Cmd::Predict(Some(0)));
    for _ in 0..40 {
        e.frame(100.0);
        if e.lesson.is_some() && e.player.holding().is_some() {
            break;
        }
    }
    let s = e.snapshot();
    let v = s.lesson.as_deref().expect("lesson");
    assert!(v.steps[0].2.is_some(), "the step ran");
    let c = &v.checks[0];
    assert_eq!(c.state, "passed", "{c:?}");
    assert_ne!(c.chosen, Some(c.answer));
    let (seen, after) = c.seen.clone().expect("seen");
    assert!(seen.starts_with("pods app=web: 3 running (") && seen.ends_with(", 1 created since the step"), "{seen}");
    assert!(after > 0 && after <= 30 * SECOND, "{after}");
    // The next question waits at its step; asks off lets it run, and its check still comes.
    assert_eq!(v.asking.as_ref().map(|a| a.step), Some(1));
    e.exec(Cmd::LessonAsks(false));
    e.exec(Cmd::SetPlaying(true));
    while e.sim().now() < 45 * SECOND + 10 * 60 * SECOND {
        e.frame(100.0);
    }
    let s = e.snapshot();
    let c = &s.lesson.as_deref().expect("lesson").checks[1];
    assert_eq!((c.state, c.chosen), ("passed", None), "{c:?}");
    assert!(c.seen.as_ref().is_some_and(|(seen, _)| seen.contains("0 on dead nodes, dead: node-")), "{c:?}");
}

/// Reads of the checks never change a run: a lesson played answering every question gives the same history as the
/// same lesson played with asks off.
#[test]
fn asking_first_never_changes_the_run() {
    let mut hashes = Vec::new();
    for asks in [true, false] {
        let mut e = LiveRun::boot(3, None, clock());
        e.exec(Cmd::LessonAsks(asks));
        play_lesson(&mut e, "control-plane-down", None, 150);
        hashes.push((e.sim().now(), e.sim().history_hash()));
    }
    assert_eq!(hashes[0], hashes[1]);
}

/// The cluster's charts sample each simulated second: pods by phase from the store's tally, API requests by verb
/// (per-second increments of the store's counters), by client, and drift.
#[test]
fn the_cluster_charts_follow_the_store() {
    let mut e = LiveRun::boot(4, None, clock());
    run_secs(&mut e, 5);
    e.exec(Cmd::Kubectl { line: "scale deployment web --replicas=6".into(), stdin: None });
    run_secs(&mut e, 20);
    let d = e.snapshot().loop_diagram.expect("diagram");
    let chart = |m: &str| d.cluster_charts.iter().find(|c| c.metric == m).expect("chart").clone();
    let phases = chart("pods_by_phase");
    assert_eq!(phases.series[0].0, "running");
    assert_eq!(phases.series[0].1.last(), Some(&(6 + ADDONS as u32)), "{phases:?}");
    let verbs = chart("apiserver_requests");
    let creates = &verbs.series.iter().find(|(l, _)| *l == "create").expect("create").1;
    assert!(creates.iter().sum::<u32>() >= 3, "the scale-up's pod creates: {creates:?}");
    let by_client = chart("apiserver_requests_by_client");
    let total = |c: &crate::view::ChartView| {
        c.series.iter().map(|(_, v)| v.iter().map(|n| u64::from(*n)).sum::<u64>()).sum::<u64>()
    };
    assert_eq!(total(&verbs), total(&by_client), "the same requests, by verb and by client");
    assert_eq!(chart("drift").series.len(), 1);
}

/// The loop diagram shows the last watch events its controller's informers received (lost ones marked) and, at
/// speeds where single items blur, the last second's rates instead.
#[test]
fn the_loop_shows_watch_events_then_rates_at_speed() {
    let mut e = LiveRun::boot(4, None, clock());
    run_secs(&mut e, 5);
    // The scale's Deployment update is lost by the deployment controller's informer.
    e.exec(Cmd::ShowLoop("deployment".into()));
    e.exec(watch_drop(100));
    e.exec(Cmd::Kubectl { line: "scale deployment web --replicas=5".into(), stdin: None });
    run_secs(&mut e, 5);
    let d = e.snapshot().loop_diagram.expect("diagram");
    assert!(d.rates.is_none(), "1x: items");
    assert!(!d.recent.is_empty() && d.recent.len() <= kubeloop_engine::informer::RECENT_EVENTS);
    assert!(d.recent.windows(2).all(|w| w[0].rv < w[1].rv), "oldest first");
    assert!(d.recent.iter().any(|w| w.dropped && w.name == "deploy/web" && w.type_ == "MODIFIED"), "{:?}", d.recent);
    e.exec(watch_drop(0));
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    e.exec(Cmd::Kubectl { line: "scale deployment web --replicas=9".into(), stdin: None });
    e.frame(100.0);
    let d = e.snapshot().loop_diagram.expect("diagram");
    assert!(d.rates.is_some(), "100x: rates");
}

/// The addresses `kubectl describe service NAME` lists as endpoints, over all its ports (ports and IPv6 brackets
/// dropped), and how many lines it prints.
fn described_endpoints(sim: &mut Sim, key: &ObjKey) -> (std::collections::BTreeSet<String>, usize) {
    let (ns, name) = (&key.namespace, &key.name);
    let out = kubectl::run(sim, &format!("describe service {name} -n {ns}"), &kubectl::Input::none());
    assert_eq!(out.code, 0, "{}", out.text());
    let lines: Vec<&str> = out.stdout.lines().filter_map(|l| l.strip_prefix("Endpoints:")).collect();
    let addresses = lines
        .iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|a| !a.is_empty() && *a != "<none>")
        .map(|a| match a.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => {
                host.trim_start_matches('[').trim_end_matches(']').to_string()
            }
            _ => a.to_string(),
        })
        .collect();
    (addresses, lines.len())
}

/// The page's Service cards and `kubectl describe service` read a Service's endpoints alike (one reading,
/// `ServiceEndpoints`): an endpoint whose `ready` is unset counts as ready in both, one a slice lists only under a
/// port the Service does not have in neither; and a Service the controller keeps agrees too.
#[test]
fn the_service_panel_and_describe_agree_on_ready_endpoints() {
    let db = "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  ports:\n  - {name: pg, port: 5432}\n  - {name: metrics, port: 9100}\n---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: db-a\n  labels: {kubernetes.io/service-name: db}\naddressType: IPv4\nports:\n- {name: pg, port: 5432}\nendpoints:\n- addresses: [10.1.0.1]\n  conditions: {ready: true}\n  targetRef: {kind: Pod, name: db-0}\n- addresses: [10.1.0.2]\n  conditions: {}\n  targetRef: {kind: Pod, name: db-1}\n- addresses: [10.1.0.3]\n  conditions: {ready: false}\n  targetRef: {kind: Pod, name: db-2}\n---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: db-b\n  labels: {kubernetes.io/service-name: db}\naddressType: IPv4\nports:\n- {name: admin, port: 7000}\nendpoints:\n- addresses: [10.1.0.9]\n  conditions: {ready: true}\n  targetRef: {kind: Pod, name: db-9}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80}\n";
    let mut e = LiveRun::boot(3, None, clock());
    e.exec(Cmd::apply(db.into()));
    assert!(e.snapshot().apply.ok, "{}", e.snapshot().apply.text);
    run_secs(&mut e, 20);
    let services = e.snapshot().services;
    for v in services.iter() {
        let (described, _) = described_endpoints(e.player.sim_mut(), &v.key);
        assert_eq!(
            described.len(),
            v.ready,
            "svc/{}: the panel's {} ready, describe lists {described:?}",
            v.key.name,
            v.ready
        );
    }
    let db = services.iter().find(|v| &*v.key.name == "db").expect("svc/db");
    assert_eq!((db.ready, db.not_ready), (2, 1), "{db:?}");
    assert_eq!(db.ready_pods.iter().map(|p| &**p).collect::<Vec<_>>(), ["db-0", "db-1"]);
    assert_eq!(
        described_endpoints(e.player.sim_mut(), &ObjKey::new("default", "db")).1,
        2,
        "one Endpoints line per port"
    );
    let web = services.iter().find(|v| &*v.key.name == "web").expect("svc/web");
    assert_eq!((web.ready, web.not_ready, web.ready_pods.len()), (3, 0, 3), "{web:?}");
}

/// Apply applies as kubectl applies: a kind kubeloop does not serve fails its own document only, YAML that does not
/// parse stops the reading there (the documents before it applied, those after it not); the outcome leads with the
/// counts, each failure names its line, the warnings apart; and the run so recorded replays to the same history.
#[test]
fn apply_goes_document_by_document_and_leads_with_the_outcome() {
    let mut e = LiveRun::boot(2, None, clock());
    run_secs(&mut e, 2);
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
    let text = [
        cm("one"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n".to_string(),
        crate::examples::WEB.replace("replicas: 3", "replicas: 5"),
        "kind: [\n".to_string(),
        cm("two"),
    ]
    .join("---\n");
    e.exec(Cmd::apply(text.clone()));
    let a = e.snapshot().apply;
    assert!(!a.ok);
    assert_eq!(
        a.summary,
        "1 created, 1 configured, 2 failed (reading stopped at document 4: nothing after it was applied)"
    );
    let widget = text.lines().position(|l| l == "kind: Widget").map(|i| i + 1);
    assert_eq!(a.error_line, widget, "the first failure's line");
    let lines: Vec<&str> = a.text.trim_start().lines().collect();
    assert_eq!(lines[..2], ["configmap/one created", "deployment.apps/web configured"]);
    assert!(lines[2].contains(&format!("line {}", widget.unwrap_or(0))), "{}", a.text);
    assert_eq!(lines[3], "ensure CRDs are installed first", "kubectl's mapping error: {}", a.text);
    assert!(lines[4].starts_with("kubeloop: it serves "), "kubeloop's own line: {}", a.text);
    assert!(lines[5].starts_with("error: document 4, line "), "{}", a.text);
    assert_eq!(a.warnings.len(), 1, "the ConfigMap's note: {:?}", a.warnings);
    let names: Vec<String> = e.sim().store().objects(Kind::ConfigMap).map(|o| o.meta().name.to_string()).collect();
    assert_eq!(names, ["one", "coredns", "kube-proxy"], "the applied one, and kube-system's");
    replays_alike_after(&mut e, 5);
}

/// `kubectl apply -f web.yaml` in the console applies the bundled example, not the editor's text (the page has no
/// files): the console says so, and how to apply the editor.
#[test]
fn apply_of_a_bundled_file_says_it_is_not_the_editor() {
    let mut e = LiveRun::boot(2, None, clock());
    run_secs(&mut e, 2);
    let edited = crate::examples::WEB.replace("replicas: 3", "replicas: 5");
    e.exec(Cmd::Kubectl { line: "kubectl apply -f web.yaml".into(), stdin: Some(edited.clone()) });
    let last = e.snapshot().console.last.expect("the command's entry");
    let note = last.chunks.iter().find_map(|c| match c {
        Chunk::Note(n) => Some(n.clone()),
        _ => None,
    });
    assert_eq!(
        note.as_deref(),
        Some(
            "kubeloop: applied the example web (web: 3-replica Deployment), bundled with the page (it has no files); \
             -f - applies the editor\n"
        )
    );
    e.exec(Cmd::Kubectl { line: "get deploy web -o name".into(), stdin: Some(edited.clone()) });
    let last = e.snapshot().console.last.expect("entry");
    assert!(last.chunks.iter().all(|c| !matches!(c, Chunk::Note(_))), "no note when no file is read");
    e.exec(Cmd::Kubectl { line: "apply -f -".into(), stdin: Some(edited) });
    let last = e.snapshot().console.last.expect("entry");
    assert!(last.chunks.iter().all(|c| !matches!(c, Chunk::Note(_))), "-f - is the editor: no note");
}

/// The size control: a new run of N nodes and P pods in kubeloop's own demo Deployments, the same cluster
/// `kubeloop bench` builds (the same history, event for event, from the same seed), playing; the editor shows the
/// manifests with the comment that labels them as kubeloop's own.
#[test]
fn a_new_run_of_a_given_size_is_kubeloop_bench_s_cluster() {
    let mut e = LiveRun::boot(1, None, clock());
    run_secs(&mut e, 3);
    e.exec(Cmd::SetPlaying(false));
    e.exec(Cmd::NewCluster { nodes: 4, pods: 250, addons: true });
    assert!(e.playing, "a new run plays");
    assert_eq!(e.sim().kubelets().len(), 4);
    assert_eq!(e.sim().store().count_of(Kind::Deployment), 3 + 1, "100 + 100 + 50, and CoreDNS");
    assert_eq!(e.sim().now(), 0);
    let notice = e.snapshot().notice.map(|n| n.to_string()).unwrap_or_default();
    assert!(
        notice.starts_with("A new run (seed 1): 4 nodes and 250 pods in 3 of kubeloop's own demo Deployments")
            && notice.ends_with("makes them), with kube-system's add-ons."),
        "{notice}"
    );
    assert!(
        e.editor.text.starts_with("# kubeloop's own demo Deployments: 250 pods in 3 Deployment(s)"),
        "{}",
        e.editor.text
    );
    let shape = kubeloop_engine::bench::ColdStart {
        nodes: 4,
        pods: 250,
        per_deployment: 100,
        services: false,
        seed: 1,
        addons: true,
    };
    let mut bench = shape.build().expect("bench cluster");
    let at = shape.converge(&mut bench, 10 * 60 * SECOND).expect("the bench converges");
    run_secs(&mut e, (at / SECOND) as u32);
    assert_eq!(e.sim().now(), at);
    let all = 250 + kubeloop_engine::addons::pods(4);
    assert_eq!(e.sim().pod_counts(), (all, 0, 0), "every pod Running");
    assert_eq!(e.sim().history_hash(), bench.history_hash(), "the page's run is the bench's");
    let s = e.snapshot();
    assert_eq!((s.summary.running, s.summary.hidden, s.summary.nodes), (250, all - 250, 4));
    e.exec(Cmd::ShowAddons(true));
    let s = e.snapshot();
    assert_eq!((s.summary.running, s.summary.hidden, s.summary.addons_shown), (all, 0, true));
    let (nodes, _) = dom(&s);
    assert_eq!(nodes.iter().map(|n| n.pods.len()).sum::<usize>(), all, "drawn once shown");
    e.exec(Cmd::ShowAddons(false));
    // Without the add-ons: nothing in kube-system, as `kubeloop bench --no-addons`.
    e.exec(Cmd::NewCluster { nodes: 4, pods: 250, addons: false });
    let notice = e.snapshot().notice.map(|n| n.to_string()).unwrap_or_default();
    assert!(notice.ends_with("--no-addons` makes them), without kube-system's add-ons."), "{notice}");
    assert_eq!(e.sim().store().count_of(Kind::DaemonSet), 0);
    assert_eq!(e.sim().store().count_of(Kind::Deployment), 3);
}

/// A size kubeloop does not simulate, or pods that do not fit, start nothing: the run shown goes on, and the notice
/// says why.
#[test]
fn a_size_that_cannot_be_run_says_why_and_keeps_the_run() {
    let mut e = LiveRun::boot(1, None, clock());
    run_secs(&mut e, 2);
    let (now, hash) = (e.sim().now(), e.sim().history_hash());
    for (nodes, pods, why) in [
        (0, 0, "No new run: a cluster has 1 to 5000 nodes (kubeloop's own bound), not 0."),
        (5001, 10, "No new run: a cluster has 1 to 5000 nodes (kubeloop's own bound), not 5001."),
        (5000, 150_001, "No new run: a cluster has at most 150000 pods (kubeloop's own bound), not 150001."),
        (2, 215, "No new run: 215 pods do not fit on 2 nodes of 110 pods each beside kube-system's add-ons (2 pods a node and CoreDNS's 2)."),
    ] {
        e.exec(Cmd::NewCluster { nodes, pods, addons: true });
        assert_eq!(e.snapshot().notice.as_deref(), Some(why));
        assert_eq!((e.sim().now(), e.sim().history_hash(), e.sim().kubelets().len()), (now, hash, START_NODES));
    }
}

/// `#cluster=NxP` opens a run of that size, paused at its start; a large one is drawn compactly.
#[test]
fn a_cluster_link_opens_that_size_paused() {
    let mut e = LiveRun::boot(1, None, clock());
    e.exec(Cmd::Open(Ok(Link::Cluster { nodes: 201, pods: 300 })));
    assert!(!e.playing, "a link opens paused");
    let s = e.snapshot();
    assert!(s.notice.as_deref().is_some_and(|n| n.ends_with("▶ Play runs it.")), "{:?}", s.notice);
    assert!(matches!(&s.cluster, ClusterView::Compact(c) if c.nodes.len() == 201));
    e.exec(Cmd::Open(Ok(Link::Cluster { nodes: 1, pods: 111 })));
    let notice = e.snapshot().notice.map(|n| n.to_string()).unwrap_or_default();
    assert_eq!(notice, "The link does not open: 111 pods do not fit on 1 nodes of 110 pods each beside kube-system's add-ons (2 pods a node and CoreDNS's 2). The page shows its starting cluster instead.");
    assert_eq!(e.sim().kubelets().len(), 201, "the run shown stays");
}

/// A frame runs events until its wall budget is spent and no further: when each event costs more than the budget
/// allows (a scheduling cycle at a thousand nodes), the clock is read after every event, so a frame overruns its
/// budget by at most one event. Counted with a clock that moves 5 ms per reading: 2 events a frame (they were 16).
#[test]
fn a_frame_stops_at_its_budget_when_events_are_costly() {
    let mut e = LiveRun::boot(1, None, clock_of(5.0));
    e.exec(Cmd::SetSpeed(Speed::X(100)));
    e.frame(0.0);
    for _ in 0..20 {
        let before = e.sim().events_processed();
        e.frame(100.0);
        let ran = e.sim().events_processed() - before;
        assert!((1..=2).contains(&ran), "{ran} events in one frame of an {FRAME_BUDGET_MS} ms budget at 5 ms each");
    }
    // A frame that leaves part of its budget to a snapshot runs fewer: 2 ms at 5 ms an event is one event.
    for _ in 0..5 {
        let before = e.sim().events_processed();
        e.frame_within(100.0, 2.0);
        assert_eq!(e.sim().events_processed() - before, 1, "one event in one frame of a 2 ms budget at 5 ms each");
    }
}

/// Search by name: a node or pod named exactly is selected (its details open, whatever the cluster's size); a part of
/// a name lists the matches (the first 8, all counted); an empty search clears it. A search reads, it never changes
/// the run.
#[test]
fn a_node_or_pod_is_found_by_name() {
    let mut e = LiveRun::boot(1, None, clock());
    e.exec(Cmd::NewCluster { nodes: 250, pods: 300, addons: true });
    run_secs(&mut e, 20);
    let hash = e.sim().history_hash();
    e.exec(Cmd::Find(" node-177 ".into()));
    let s = e.snapshot();
    assert_eq!(s.selection, Selection::Node("node-177".into()));
    assert!(matches!(s.detail.as_deref(), Some(Detail::Node(d)) if &*d.name == "node-177"));
    let pod = e.sim().store().objects(Kind::Pod).map(|o| o.meta().name.to_string()).nth(250).expect("a pod");
    e.exec(Cmd::Find(pod.clone()));
    let s = e.snapshot();
    assert!(matches!(&s.selection, Selection::Pod(k) if *k.name == *pod), "{:?}", s.selection);
    let search = s.search.expect("a search");
    assert!(search.exact && search.total == 1);
    e.exec(Cmd::Find(format!("default/{pod}")));
    assert!(e.snapshot().search.is_some_and(|s| s.exact));
    e.exec(Cmd::Find("app-2-".into()));
    let s = e.snapshot();
    let search = s.search.expect("a search");
    assert!(!search.exact);
    assert_eq!(search.total, 100, "app-2's 100 pods");
    assert_eq!(search.found.len(), crate::view::SEARCH_SHOWN);
    assert!(search.found.iter().all(|f| matches!(f, Selection::Pod(k) if k.name.starts_with("app-2-"))));
    assert!(matches!(&s.selection, Selection::Pod(k) if *k.name == *pod), "a partial match selects nothing new");
    e.exec(Cmd::Find("nothing-is-called-this".into()));
    assert_eq!(e.snapshot().search.map(|s| s.total), Some(0));
    e.exec(Cmd::Find("  ".into()));
    assert_eq!(e.snapshot().search, None);
    assert_eq!(e.sim().history_hash(), hash, "a search only reads");
}

/// Where a whole measure of drift is costly, a snapshot measures a part of it, a bounded number of objects, going
/// round the informer rows: after the informers lose watch events, each snapshot visits at most its budget, the rows
/// keep their last complete figures meanwhile (their age shown), and a round brings every row to what the caches
/// hold (the total is `Sim::drift`'s). It was every row at once, then one row a snapshot, however large.
#[test]
fn costly_drift_is_measured_a_part_at_a_time() {
    let mut e = LiveRun::boot(1, None, clock());
    run_secs(&mut e, 10);
    let first = e.snapshot();
    assert_eq!((first.drift, first.drift_age_ms), (0, 0), "measured whole while that is cheap");
    e.exec(watch_drop(100));
    e.exec(Cmd::Intervene(Intervention::Apply(crate::examples::WEB.replace("replicas: 3", "replicas: 6"))));
    run_secs(&mut e, 10);
    let drift = e.sim().drift();
    assert!(drift > 0, "lost events leave the caches behind");
    // Whole measures only up to 0 objects, parts of 3 objects: the rows are as last measured, 0.
    (e.drift_whole_max, e.drift_budget) = (0, 3);
    // A wall clock that moves 10 ms a reading from here: the figures' age is seen.
    e.clock = clock_of(10.0);
    let visits: usize = e
        .sim()
        .informers()
        .iter()
        .filter(|i| i.state() != kubeloop_engine::informer::ReflectorState::Stopped)
        .map(|i| i.drift_part(e.sim().store(), &kubeloop_engine::informer::DriftCursor::Start, usize::MAX).visited)
        .sum();
    let mut snapshots = 0;
    let mut seen = Vec::new();
    loop {
        let s = e.snapshot();
        snapshots += 1;
        seen.push(s.drift);
        if s.drift == drift {
            break;
        }
        assert!(snapshots <= visits, "a round of parts of 3 objects takes at most {visits} snapshots: {seen:?}");
    }
    assert!(snapshots > 3, "measured in parts, not at once: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "each part adds a row's complete figure: {seen:?}");
    assert!(e.snapshot().drift_age_ms > 0, "the age of the oldest figure is shown");
}

#[test]
fn what_runs_the_second_modules_code_waits_for_it_in_order_and_runs_once_it_arrives() {
    let mut e = LiveRun::boot(2, None, clock());
    crate::deferred::hold(true);
    run_secs(&mut e, 3);
    assert!(e.take_code_request(), "the page loads it once it runs");
    assert!(!e.take_code_request(), "one load at a time");
    e.exec(Cmd::Kubectl { line: "kubectl get nodes".into(), stdin: None });
    let waiting = e.snapshot().console.last.clone().expect("an entry");
    assert_eq!((waiting.line.as_str(), waiting.code), ("kubectl get nodes", None), "shown running");
    e.exec(Cmd::cordon("node-2", true));
    e.exec(Cmd::Intervene(Intervention::KillNode(kubeloop_engine::intervention::NodeRef::Name("node-3".into()))));
    let (nodes, _) = dom(&e.snapshot());
    let pod = nodes
        .iter()
        .flat_map(|n| n.pods.iter())
        .find(|p| &*p.key.namespace == "default")
        .map(|p| p.key.clone())
        .expect("a pod");
    e.exec(Cmd::Select(Selection::Pod(pod.clone())));
    e.exec(Cmd::Why(pod));
    assert!(!nodes[1].unschedulable, "the cordon (a kubectl command) waits");
    assert!(!nodes[2].alive, "a kill needs no kubectl: it is done at once");
    let Some(Detail::Pod(d)) = e.snapshot().detail.as_deref().cloned() else { panic!("pod detail") };
    assert!(d.why.is_none(), "why? (the chain's code) waits too");
    assert!(e.player.record().actions().len() == 1, "only what was done is recorded");
    crate::deferred::hold(false);
    e.exec(Cmd::Deferred(Ok(())));
    let s = e.snapshot();
    let last = s.console.last.clone().expect("an entry");
    assert_eq!(last.line, "kubectl get nodes");
    assert_eq!(last.code, Some(0));
    assert!(last.text().contains("NAME     STATUS"), "{}", last.text());
    assert!(s.console.earlier.iter().all(|e| e.line != "kubectl get nodes"), "the waiting entry became the run");
    assert!(dom(&s).0[1].unschedulable, "the cordon ran once the code arrived");
    let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
    assert!(d.why.as_ref().is_some_and(|c| !c.steps.is_empty()), "and so did why?");
    assert_eq!(e.player.record().actions().len(), 2, "and was recorded when it ran");

    // A load that fails: the waiting line says why, and the next line asks again.
    crate::deferred::hold(true);
    e.exec(Cmd::Kubectl { line: "kubectl get pods".into(), stdin: None });
    e.exec(Cmd::Deferred(Err("HTTP 404".into())));
    let last = e.snapshot().console.last.clone().expect("an entry");
    assert_eq!(last.code, Some(1));
    assert!(last.text().contains("did not load: HTTP 404"), "{}", last.text());
    e.exec(Cmd::Kubectl { line: "kubectl get pods".into(), stdin: None });
    assert!(e.take_code_request(), "asked again");
    crate::deferred::hold(false);
}

/// "Why?" in a pod's detail: a replacement pod's chain, as the engine recorded it, goes back to the node the person
/// killed; a step that wrote a pod or a node selects it.
#[test]
fn a_replacement_pod_s_why_reaches_the_kill_and_its_steps_select_what_they_wrote() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 10);
    let (nodes, _) = dom(&e.snapshot());
    let victim = nodes.iter().find(|n| !n.pods.is_empty()).map(|n| n.name.to_string()).expect("a node with pods");
    let before: Vec<ObjKey> = nodes.iter().flat_map(|n| n.pods.iter().map(|p| p.key.clone())).collect();
    e.exec(Cmd::kill_node(&victim));
    e.player.sim_mut().run_for(7 * 60 * SECOND);
    let (nodes, _) = dom(&e.snapshot());
    let new = nodes.iter().flat_map(|n| n.pods.iter()).find(|p| !before.contains(&p.key)).expect("a replacement");
    let key = new.key.clone();
    e.exec(Cmd::Select(Selection::Pod(key.clone())));
    let Some(Detail::Pod(d)) = e.snapshot().detail.as_deref().cloned() else { panic!("pod detail") };
    assert!(d.why.is_none(), "asked for only");
    e.exec(Cmd::Why(key.clone()));
    let Some(Detail::Pod(d)) = e.snapshot().detail.as_deref().cloned() else { panic!("pod detail") };
    let chain = d.why.expect("the chain");
    assert!(chain.about.starts_with("created at"), "{}", chain.about);
    assert_eq!(
        chain.kept,
        "kubeloop keeps the causes of the last 65,536 writes (its own bound): these reach back to 0.0 s."
    );
    let kinds: Vec<&str> = chain.steps.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.first(), Some(&"write"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"intervention"), "{kinds:?}");
    let last = chain.steps.last().expect("a step");
    assert!(last.text.contains(&format!("kill node {victim}")), "{}", last.text);
    assert_eq!(chain.steps[0].select, Some(Selection::Pod(key.clone())));
    let node = chain.steps.iter().find_map(|s| match &s.select {
        Some(Selection::Node(n)) => Some(n.clone()),
        _ => None,
    });
    assert_eq!(node.as_deref(), Some(victim.as_str()), "a step wrote the dead node");
    e.exec(Cmd::Select(Selection::Node(victim.as_str().into())));
    assert!(matches!(e.snapshot().detail.as_deref(), Some(Detail::Node(_))));
}

/// The timeline: scrubbed back before a node was killed, the page shows that moment (its time, the killed node's pods
/// Running on it), made again by the engine to the history the run had then (a replay of the exported run to that
/// moment has the same hash); acting goes back to live.
#[test]
fn scrubbing_shows_the_cluster_as_it_was_and_acting_goes_back_to_live() {
    let mut e = LiveRun::boot(5, None, clock());
    e.exec(Cmd::SetTiming(TimingProfile::FastDemo));
    run_secs(&mut e, 10);
    let (nodes, _) = dom(&e.snapshot());
    let victim = nodes.iter().find(|n| !n.pods.is_empty()).expect("a node with pods").clone();
    e.exec(Cmd::kill_node(&victim.name));
    run_secs(&mut e, 90);
    let live = e.snapshot();
    let gone = dom(&live)
        .0
        .iter()
        .find(|n| n.name == victim.name)
        .is_some_and(|n| n.pods.iter().all(|p| p.terminating || p.daemon));
    assert!(gone, "its pods were evicted by now (its daemon pods stay bound to it)");
    assert_eq!(live.timeline.min, 0);
    assert_eq!(live.timeline.at, None);
    assert!(live.timeline.marks.iter().any(|m| m.person && m.what.contains("kill node")), "{:?}", live.timeline.marks);
    assert!(live.timeline.marks.iter().any(|m| !m.person && m.what.contains("NodeNotReady")));

    e.exec(Cmd::Scrub(5_000));
    let s = e.snapshot();
    assert!(e.is_scrubbed() && !e.playing);
    assert_eq!((s.time.now, s.timeline.at), (5_000, Some(5_000)));
    let then = dom(&s).0.iter().find(|n| n.name == victim.name).cloned().expect("the node then");
    assert!(then.alive && !then.pods.is_empty(), "its pods were on it then");
    assert!(then.pods.iter().all(|p| p.phase == PodPhase::Running && !p.terminating));
    assert!(s.events.rows.iter().all(|r| r.at <= 5_000));

    // The same moment by a replay of the exported run: the same history.
    for t in [5_000, 10_000, 61_234, 99_000] {
        e.exec(Cmd::Scrub(t));
        let scrubbed = e.snapshot().time.history_hash;
        let file = Scenario::parse(&e.export().expect("exportable")).expect("reads back");
        let run = file.run(kubeloop_engine::scenario::RunOptions { until: Some(t), ..Default::default() });
        assert_eq!(format!("{scrubbed:016x}"), run.expect("runs").summary.history_hash, "at {t} ms");
    }
    let now = live.time.now;
    e.exec(Cmd::Scrub(now + 1));
    assert!(!e.is_scrubbed(), "now or later is live");
    e.exec(Cmd::Scrub(7_000));
    e.exec(Cmd::Select(Selection::None));
    assert!(e.is_scrubbed(), "looking stays scrubbed");
    e.exec(Cmd::cordon(&victim.name, true));
    assert!(!e.is_scrubbed() && e.playing, "acting goes back to live, which plays again");
    assert_eq!(e.snapshot().time.now, now);

    // Later, from checkpoints the live run took as it went: the same history as the replay.
    run_secs(&mut e, 900);
    let s = e.snapshot();
    assert!(s.timeline.kept >= 1, "checkpoints taken: {:?}", s.timeline);
    for t in [s.time.now - 1_500, s.time.now / 2 + 333] {
        e.exec(Cmd::Scrub(t));
        let scrubbed = e.snapshot();
        if t > s.time.now / 2 + 333 {
            let rerun = scrubbed.timeline.rerun;
            let from_start = s.time.events_processed - kubeloop_engine::scenario::FIRST_SPACING;
            assert!(rerun <= from_start, "from a checkpoint, not the start: {rerun} {:?}", s.timeline);
        }
        let file = Scenario::parse(&e.export().expect("exportable")).expect("reads back");
        let run = file.run(kubeloop_engine::scenario::RunOptions { until: Some(t), ..Default::default() });
        assert_eq!(format!("{:016x}", scrubbed.time.history_hash), run.expect("runs").summary.history_hash);
    }
}

/// Forked just before a node was killed, the run goes on without the kill: the node stays alive, and the page
/// shows where the fork first diverged from the run it was forked from (the killed node's missed renewal, after
/// the kill) and the objects that differ.
#[test]
fn a_fork_before_a_kill_keeps_the_node_and_shows_the_first_divergence() {
    let mut e = LiveRun::boot(5, None, clock());
    e.fork_look_ms = 0.0;
    e.exec(Cmd::SetTiming(TimingProfile::FastDemo));
    run_secs(&mut e, 10);
    let (nodes, _) = dom(&e.snapshot());
    let victim = nodes.iter().find(|n| !n.pods.is_empty()).expect("a node with pods").name.clone();
    e.exec(Cmd::kill_node(&victim));
    let killed_at = e.player.record().actions().last().expect("the kill").at;
    run_secs(&mut e, 60);
    let actions = e.player.record().actions().len();
    e.exec(Cmd::Scrub(killed_at - 1));
    e.exec(Cmd::Fork);
    assert!(!e.is_scrubbed() && e.playing, "the fork goes on live from there");
    assert_eq!((e.player.now(), e.player.record().actions().len()), (killed_at - 1, actions - 1), "without the kill");
    assert!(e.snapshot().fork.expect("compared").first.is_none(), "equal at the fork");
    run_secs(&mut e, 40);
    let s = e.snapshot();
    let node = dom(&s).0.iter().find(|n| n.name == victim).cloned().expect("the node");
    assert!(node.alive && node.pods.iter().all(|p| !p.terminating), "kept alive: {node:?}");
    let f = s.fork.expect("compared");
    assert_eq!(f.until, s.time.now, "compared at the fork's time");
    let (at, _, b) = f.first.clone().expect("diverged");
    assert!(at >= killed_at, "diverged after the kill: {f:?}");
    assert!(b.is_some_and(|w| w.contains(&*victim)), "the fork's first different write is about the node: {f:?}");
    assert!(f.objects.iter().any(|(name, ..)| name.contains(&*victim)), "{f:?}");
    // The fork's own record replays to its own history.
    let file = Scenario::parse(&e.export().expect("exportable")).expect("reads back");
    let run = file.run(kubeloop_engine::scenario::RunOptions::default()).expect("runs");
    assert_eq!(run.summary.history_hash, format!("{:016x}", s.time.history_hash));
    e.exec(Cmd::Unfork);
    assert!(e.snapshot().fork.is_none());
}

/// Forked live, nothing differs until the person does something the other run did not.
#[test]
fn a_live_fork_diverges_when_the_person_acts() {
    let mut e = LiveRun::boot(5, None, clock());
    e.fork_look_ms = 0.0;
    run_secs(&mut e, 10);
    e.exec(Cmd::Fork);
    run_secs(&mut e, 20);
    let f = e.snapshot().fork.expect("compared");
    assert!(f.first.is_none() && f.objects.is_empty(), "nothing done, nothing differs: {f:?}");
    let (nodes, _) = dom(&e.snapshot());
    e.exec(Cmd::cordon(&nodes[0].name, true));
    let cordoned_at = e.player.now();
    run_secs(&mut e, 5);
    let f = e.snapshot().fork.expect("compared");
    assert_eq!(f.first.as_ref().map(|d| d.0), Some(cordoned_at), "{f:?}");
    assert!(f.objects.iter().any(|(name, change, _)| name.contains(&*nodes[0].name) && *change == "differs"));
}

/// "Why?" of a node the control plane marked NotReady while its kubelet ran: the chain reaches the missing link,
/// the Lease renewals the node lifecycle controller's informer never received.
#[test]
fn a_node_s_why_reaches_the_renewals_its_informer_lost() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 20);
    let lost = FaultAction {
        drop_watch_events: Some(1.0),
        informer: Some((kubeloop_engine::sim::CONTROLLER_MANAGER, Kind::Lease)),
        ..FaultAction::default()
    };
    e.exec(Cmd::fault(lost));
    e.exec(Cmd::Select(Selection::Node("node-2".into())));
    let unknown = |e: &mut LiveRun| matches!(e.snapshot().detail.as_deref(), Some(Detail::Node(d)) if d.ready == crate::view::Ready::Unknown);
    for _ in 0..200 {
        if unknown(&mut e) {
            break;
        }
        run_secs(&mut e, 1);
    }
    assert!(unknown(&mut e), "marked Unknown (NotReady) by the node lifecycle controller");
    e.exec(Cmd::Why(kubeloop_engine::api::ObjKey::cluster("node-2")));
    let s = e.snapshot();
    let Some(Detail::Node(d)) = s.detail.as_deref() else { panic!("node detail") };
    assert!(d.alive, "its kubelet runs");
    let chain = d.why.clone().expect("asked");
    let texts: Vec<String> = chain.steps.iter().map(|c| format!("{} {}", c.kind, c.text)).collect();
    assert!(texts[0].contains("updated Node node-2"), "{texts:#?}");
    assert!(
        texts.iter().any(|t| t.starts_with("watch the missing link") && t.contains("never received")),
        "{texts:#?}"
    );
}

/// An object's history: every write kept, each version made again from the checkpoints as `kubectl get -o yaml`
/// prints it, and the diff of two chosen versions; a deleted pod's too.
#[test]
fn an_object_s_history_lists_its_versions_and_diffs_two() {
    let mut e = LiveRun::boot(5, None, clock());
    run_secs(&mut e, 10);
    e.exec(Cmd::cordon("node-1", true));
    run_secs(&mut e, 10);
    e.exec(Cmd::cordon("node-1", false));
    run_secs(&mut e, 10);
    e.exec(Cmd::Select(Selection::Node("node-1".into())));
    e.exec(Cmd::History(kubeloop_engine::api::ObjKey::cluster("node-1")));
    let s = e.snapshot();
    let Some(Detail::Node(d)) = s.detail.as_deref() else { panic!("node detail") };
    let h = d.history.clone().expect("asked");
    let by_kubectl: Vec<&VersionView> = h.versions.iter().filter(|v| v.client.contains("kubectl")).collect();
    assert_eq!(by_kubectl.len(), 2, "{:#?}", h.versions);
    assert!(h.versions.iter().skip(1).all(|v| v.kept), "every version after the start made again: {:#?}", h.versions);
    let cordoned = by_kubectl[0].rv;
    e.exec(Cmd::HistoryPick { a: None, b: cordoned });
    let s = e.snapshot();
    let Some(Detail::Node(d)) = s.detail.as_deref() else { panic!("node detail") };
    let h = d.history.clone().expect("asked");
    assert_eq!(h.b, Some(cordoned));
    assert!(h.diff.iter().any(|l| l.trim() == "+   unschedulable: true"), "{:#?}", h.diff);
    // "Why?" of that entry: the write, back to the person's cordon.
    e.exec(Cmd::WhyWrite(kubeloop_engine::api::ObjKey::cluster("node-1"), cordoned));
    let s = e.snapshot();
    let Some(Detail::Node(d)) = s.detail.as_deref() else { panic!("node detail") };
    let steps = &d.why.as_ref().expect("asked").steps;
    assert!(steps[0].text.contains(&format!("updated Node node-1 (resourceVersion {cordoned})")), "{steps:#?}");
    assert_eq!(steps.last().map(|s| s.kind), Some("intervention"), "{steps:#?}");

    // A deleted pod's history ends with its deletion.
    let (nodes, _) = dom(&e.snapshot());
    let victim =
        nodes.iter().flat_map(|n| n.pods.iter()).find(|p| &*p.key.namespace == "default").cloned().expect("a pod");
    e.exec(Cmd::Select(Selection::Pod(victim.key.clone())));
    e.exec(Cmd::delete_pod(&victim.key));
    run_secs(&mut e, 30);
    e.exec(Cmd::History(victim.key.clone()));
    let s = e.snapshot();
    let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
    assert!(!d.exists);
    let h = d.history.clone().expect("asked");
    assert_eq!(h.versions.first().map(|v| v.verb), Some("created"));
    assert_eq!(h.versions.last().map(|v| v.verb), Some("deleted"), "{:#?}", h.versions);
}

/// A replay with another seed is a fork at 0: the run of the old seed is kept and compared with the new one, which
/// diverges from its first draws.
#[test]
fn a_replay_with_another_seed_is_compared_with_the_run_of_the_old_one() {
    let mut e = LiveRun::boot(5, None, clock());
    e.fork_look_ms = 0.0;
    run_secs(&mut e, 20);
    e.exec(Cmd::Replay(Some(5)));
    assert!(e.snapshot().fork.is_none(), "the same seed replays the same run: nothing to compare");
    run_secs(&mut e, 20);
    e.exec(Cmd::Replay(Some(6)));
    assert!(e.notice.as_deref().is_some_and(|n| n.contains("compared below with the run of seed 5")), "{:?}", e.notice);
    run_secs(&mut e, 20);
    let f = e.snapshot().fork.expect("compared");
    assert_eq!(f.at, 0);
    assert!(f.first.is_some(), "another seed, another history: {f:?}");
    assert!(!f.objects.is_empty(), "the pods have other names: {f:?}");
}
