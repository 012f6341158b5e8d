//! kube-system's add-ons in every new cluster, as kubeadm and kind install them: kube-proxy and kindnet on every
//! node, CoreDNS with the kube-dns Service; `kubectl drain` without `--ignore-daemonsets` fails as it does on such a
//! cluster (`kubernetes/staging/src/k8s.io/kubectl/pkg/drain/filters.go`); `cluster: {addons: false}` starts
//! without them.

mod common;

use kubeloop_engine::addons;
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::scenario::{RunOptions, Scenario};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::SECOND;

fn started(text: &str, secs: u64) -> Sim {
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let (mut sim, _) = sc.cluster(3, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run_for(secs * SECOND);
    sim
}

#[test]
fn a_new_cluster_runs_kube_proxy_and_kindnet_on_every_node_and_coredns_behind_kube_dns() {
    let mut sim = started("cluster:\n  nodes: 3\n", 60);
    let out = common::kubectl(&mut sim, "get pods -A -o custom-columns=NS:.metadata.namespace,OWNER:.metadata.ownerReferences[0].name,NODE:.spec.nodeName,STATUS:.status.phase --sort-by=.spec.nodeName");
    let rows: Vec<&str> = out.stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), addons::pods(3), "{}", out.stdout);
    assert!(rows.iter().all(|r| r.starts_with("kube-system") && r.ends_with("Running")), "{}", out.stdout);
    for node in ["node-1", "node-2", "node-3"] {
        for ds in ["kindnet", "kube-proxy"] {
            let on = rows.iter().filter(|r| r.contains(node) && r.split_whitespace().nth(1) == Some(ds)).count();
            assert_eq!(on, 1, "{ds} on {node}: {}", out.stdout);
        }
    }
    let out = common::kubectl(&mut sim, "get svc kube-dns -n kube-system");
    assert!(out.stdout.contains("10.96.0.10") && out.stdout.contains("53/UDP,53/TCP,9153/TCP"), "{}", out.stdout);
    let slices = common::kubectl(&mut sim, "get endpointslices -n kube-system -o wide");
    assert!(slices.stdout.lines().any(|l| l.starts_with("kube-dns-")), "{}", slices.stdout);
    let out = common::kubectl(&mut sim, "get deploy,ds -n kube-system");
    assert!(out.stdout.contains("deployment.apps/coredns   2/2"), "{}", out.stdout);
    assert!(out.stdout.contains("daemonset.apps/kindnet      3         3         3"), "{}", out.stdout);
    // Their requests take room: kindnet's 100m on every node, and CoreDNS's 100m where it runs.
    let node = common::kubectl(&mut sim, "describe node node-1");
    assert!(node.stdout.contains("kube-system                 kindnet-"), "{}", node.stdout);
    // The objects come from kubeadm's client, not the user's.
    let by_kubeadm = sim.store().clients().iter().find(|c| &*c.name == addons::CLIENT).map(|c| c.counters.creates);
    assert_eq!(
        by_kubeadm,
        Some(10),
        "3 ServiceAccounts, 2 ConfigMaps, 2 DaemonSets, a Deployment, a Service and the default StorageClass"
    );
}

#[test]
fn drain_without_ignore_daemonsets_fails_on_every_node_as_on_a_kubeadm_cluster() {
    let mut sim = started("cluster:\n  nodes: 3\n", 30);
    let out = common::kubectl(&mut sim, "drain node-1");
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("node/node-1 cordoned\n"), "{}", out.stdout);
    let err = out.stderr.lines().next().unwrap_or_default();
    assert!(
        err.starts_with("error: unable to drain node \"node-1\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/kindnet-"),
        "{}",
        out.stderr
    );
    assert!(err.contains(", kube-system/kube-proxy-") && err.ends_with(", continuing command..."), "{err}");
    let node = sim.store().peek(Kind::Node, &ObjKey::cluster("node-1")).and_then(|o| o.as_node().cloned());
    assert!(node.is_some_and(|n| n.spec.unschedulable), "cordoned first, as kubectl does");
}

#[test]
fn addons_false_starts_with_nothing_in_kube_system_and_says_so_when_written() {
    let text = "cluster:\n  nodes: 2\n  addons: false\n";
    let mut sim = started(text, 30);
    assert_eq!(sim.store().count_of(Kind::Pod), 0);
    assert_eq!(sim.store().count_of(Kind::DaemonSet), 0);
    let out = common::kubectl(&mut sim, "drain node-1");
    assert_eq!((out.code, out.stdout.as_str()), (0, "node/node-1 cordoned\nnode/node-1 drained\n"));
    let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert!(!sc.addons);
    let again = Scenario::parse(&sc.to_yaml()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!again.addons, "{}", sc.to_yaml());
    assert!(Scenario::parse("cluster:\n  nodes: 1\n").is_ok_and(|s| s.addons), "on by default");
    let e = Scenario::parse("cluster:\n  nodes: 1\n  addons: maybe\n").err().map(|e| (e.line, e.message));
    assert_eq!(e.as_ref().and_then(|e| e.0), Some(3), "{e:?}");
    // The runner's timeline says so at t=0.
    let out = Scenario::parse("cluster:\n  nodes: 1\nuntil: 1s\n")
        .and_then(|s| s.run(RunOptions::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.timeline.iter().any(|e| e.at == 0 && e.text == addons::NOTE));
}
