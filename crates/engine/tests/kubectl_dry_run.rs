//! `--dry-run` writes nothing: every kubectl command that accepts it, in both modes, leaves the run exactly as
//! the same run without the command (same history hash, random stream, timers and resourceVersion, also after
//! the controllers had time to react), and prints what kubectl 1.34 prints: ` (dry run)` after what a client
//! dry run would have done (kubectl sends no write), ` (server dry run)` after what the API server answered to a
//! `dryRun=All` request (admitted and validated, persisted nowhere). Commands that do not accept the flag refuse
//! it with kubectl's error.
mod common;

use common::{cluster, kubectl, kubectl_stdin};
use kubeloop_engine::api::Kind;
use kubeloop_engine::kubectl::{self as kc, Input, Output};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{MINUTE, SECOND};

const TEAM: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n";
const POD: &str =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: dry\nspec:\n  containers:\n  - name: app\n    image: busybox:1.36\n";

/// The golden cluster, then node-3 cordoned, web's second revision (nginx:1.28) rolled out and a namespace `team`
/// applied: every dry run below has something to act on (a revision to roll back to, a node to uncordon, an
/// object whose apply changes nothing).
fn fixture() -> Sim {
    let mut sim = cluster();
    for line in ["cordon node-3", "set image deployment/web nginx=nginx:1.28"] {
        assert_eq!(kubectl(&mut sim, line).code, 0, "{line}");
    }
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", TEAM).code, 0);
    sim.run_for(2 * MINUTE);
    sim
}

/// What a dry run must leave as it was: the history, the simulation's random stream, its timers, and the
/// resourceVersion.
fn future(sim: &Sim) -> (u64, u64, usize, u64) {
    (sim.history_hash(), sim.rng_peek(), sim.pending_timers(), sim.store().resource_version())
}

/// The pods on a node, in the store's order (kubectl drain's list order).
fn pods_on(sim: &Sim, node: &str) -> Vec<String> {
    sim.store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| &*p.spec.node_name == node)
        .map(|p| p.metadata.name.to_string())
        .collect()
}

/// What a command printed (warnings, stdout, stderr, then what it printed while it kept running), its exit code,
/// and whether it was still running after a minute (then stopped, as Ctrl+C stops it).
struct Ran {
    text: String,
    code: i32,
    still_running: bool,
}

/// Runs `line` on a fixture, follows it for a minute if it keeps running, then lets the cluster run a minute more;
/// the same on a twin fixture without the command. Asserts that the twins' futures are equal.
fn dry_run(line: &str, stdin: Option<&str>) -> Ran {
    let (mut a, mut b) = (fixture(), fixture());
    assert_eq!(future(&a), future(&b), "the fixture is deterministic");
    let mut out: Output = kc::run(&mut a, line, &Input { stdin, ..Input::none() });
    let mut ran = Ran { text: out.text(), code: out.code, still_running: false };
    for _ in 0..60 {
        a.run_for(SECOND);
        b.run_for(SECOND);
        let Some(f) = out.follow.as_mut() else { break };
        let p = f.poll(&mut a);
        ran.text.push_str(&format!("{}{}{}", p.warnings, p.stdout, p.stderr));
        if p.done {
            ran.code = p.code;
            out.follow = None;
        }
    }
    if let Some(mut f) = out.follow.take() {
        f.stop(&mut a);
        ran.still_running = true;
    }
    a.run_for(MINUTE);
    b.run_for(MINUTE);
    assert_eq!(future(&a), future(&b), "{line} changed the run:\n{}", ran.text);
    ran
}

/// One write command that accepts `--dry-run`, and what kubectl 1.34 prints in each mode (an `Error from server`
/// exits 1). `{evicting}` stands for drain's `evicting pod default/NAME` line of each pod on node-1, with the
/// mode's suffix.
struct Case {
    line: &'static str,
    /// What `-f -` reads; none: the golden cluster's web Deployment (`common::WEB`, at nginx:1.27).
    stdin: Option<&'static str>,
    client: &'static str,
    server: &'static str,
}

const UNDO_TEMPLATE: &str = "deployment.apps/web Pod Template:
  Labels:\tapp=web
\tpod-template-hash=8569554667
  Containers:
   nginx:
    Image:\tnginx:1.27
    Port:\t<none>
    Host Port:\t<none>
    Requests:
      cpu:\t100m
      memory:\t64Mi
    Environment:\t<none>
    Mounts:\t<none>
  Volumes:\t<none>
  Node-Selectors:\t<none>
  Tolerations:\t<none>
 (dry run)
";

/// Every write command kubeloop runs that accepts `--dry-run` in kubectl 1.34 (`cmdutil.AddDryRunFlag`): apply,
/// create (-f, deployment, namespace), delete, scale, set image, label, annotate, cordon, uncordon, drain,
/// taint, rollout undo.
const CASES: &[Case] = &[
    Case {
        line: "apply -f -",
        stdin: None,
        client: "deployment.apps/web configured (dry run)\n",
        server: "deployment.apps/web configured (server dry run)\n",
    },
    Case {
        // kubectl's client dry run computes no patch, so it cannot tell; the server's answer can.
        line: "apply -f -",
        stdin: Some(TEAM),
        client: "namespace/team configured (dry run)\n",
        server: "namespace/team unchanged (server dry run)\n",
    },
    Case {
        line: "apply -f -",
        stdin: Some(POD),
        client: "pod/dry created (dry run)\n",
        server: "pod/dry created (server dry run)\n",
    },
    Case {
        line: "create -f -",
        stdin: Some(POD),
        client: "pod/dry created (dry run)\n",
        server: "pod/dry created (server dry run)\n",
    },
    Case {
        line: "create deployment dry --image=nginx",
        stdin: None,
        client: "deployment.apps/dry created (dry run)\n",
        server: "deployment.apps/dry created (server dry run)\n",
    },
    Case {
        line: "create namespace dry",
        stdin: None,
        client: "namespace/dry created (dry run)\n",
        server: "namespace/dry created (server dry run)\n",
    },
    Case {
        // The client sends nothing and cannot know; the server refuses as it would refuse the create.
        line: "create namespace default",
        stdin: None,
        client: "namespace/default created (dry run)\n",
        server: "Error from server (AlreadyExists): namespaces \"default\" already exists\n",
    },
    Case {
        line: "delete deployment web",
        stdin: None,
        client: "deployment.apps \"web\" deleted from default namespace (dry run)\n",
        server: "deployment.apps \"web\" deleted from default namespace (server dry run)\n",
    },
    Case {
        line: "delete namespace team",
        stdin: None,
        client: "namespace \"team\" deleted (dry run)\n",
        server: "namespace \"team\" deleted (server dry run)\n",
    },
    Case {
        // delete reads nothing before it deletes: only the server knows the pod is not there.
        line: "delete pod nosuch",
        stdin: None,
        client: "pod \"nosuch\" deleted from default namespace (dry run)\n",
        server: "Error from server (NotFound): pods \"nosuch\" not found\n",
    },
    Case {
        line: "scale deployment web --replicas=5",
        stdin: None,
        client: "deployment.apps/web scaled (dry run)\n",
        server: "deployment.apps/web scaled (server dry run)\n",
    },
    Case {
        line: "set image deployment/web nginx=nginx:1.29",
        stdin: None,
        client: "deployment.apps/web image updated (dry run)\n",
        server: "deployment.apps/web image updated (server dry run)\n",
    },
    Case {
        line: "label deployment web tier=frontend",
        stdin: None,
        client: "deployment.apps/web labeled (dry run)\n",
        server: "deployment.apps/web labeled (server dry run)\n",
    },
    Case {
        // Only the path that sends the patch says which labels were not there.
        line: "label deployment web nosuch-",
        stdin: None,
        client: "deployment.apps/web not labeled (dry run)\n",
        server: "label \"nosuch\" not found.\ndeployment.apps/web not labeled (server dry run)\n",
    },
    Case {
        line: "annotate deployment web team=blue",
        stdin: None,
        client: "deployment.apps/web annotated (dry run)\n",
        server: "deployment.apps/web annotated (server dry run)\n",
    },
    Case {
        line: "cordon node-1",
        stdin: None,
        client: "node/node-1 cordoned (dry run)\n",
        server: "node/node-1 cordoned (server dry run)\n",
    },
    Case {
        line: "cordon node-3",
        stdin: None,
        client: "node/node-3 already cordoned (dry run)\n",
        server: "node/node-3 already cordoned (server dry run)\n",
    },
    Case {
        line: "uncordon node-3",
        stdin: None,
        client: "node/node-3 uncordoned (dry run)\n",
        server: "node/node-3 uncordoned (server dry run)\n",
    },
    Case {
        line: "uncordon node-1",
        stdin: None,
        client: "node/node-1 already uncordoned (dry run)\n",
        server: "node/node-1 already uncordoned (server dry run)\n",
    },
    Case {
        line: "drain node-1",
        stdin: None,
        client: "node/node-1 cordoned (dry run)\n{evicting}node/node-1 drained (dry run)\n",
        server: "node/node-1 cordoned (server dry run)\n{evicting}node/node-1 drained (server dry run)\n",
    },
    Case {
        line: "taint nodes node-1 dedicated=gpu:NoSchedule",
        stdin: None,
        client: "node/node-1 tainted (dry run)\n",
        server: "node/node-1 tainted (server dry run)\n",
    },
    Case {
        // A client dry run prints the template it would roll back to (`printTemplate`) as the operation.
        line: "rollout undo deployment/web",
        stdin: None,
        client: UNDO_TEMPLATE,
        server: "deployment.apps/web rolled back (server dry run)\n",
    },
];

#[test]
fn every_dry_run_writes_nothing_and_prints_what_kubectl_prints() {
    let on_node_1 = pods_on(&fixture(), "node-1");
    assert!(!on_node_1.is_empty(), "drain has pods to evict");
    for case in CASES {
        for (mode, suffix, want) in
            [("client", " (dry run)", case.client), ("server", " (server dry run)", case.server)]
        {
            let line = format!("{} --dry-run={mode}", case.line);
            let evicting: String = on_node_1.iter().map(|p| format!("evicting pod default/{p}{suffix}\n")).collect();
            let want = want.replace("{evicting}", &evicting);
            let ran = dry_run(&line, Some(case.stdin.unwrap_or(&common::WEB)));
            assert_eq!(ran.text, want, "{line}");
            assert_eq!(ran.code, i32::from(want.starts_with("Error from server")), "{line}");
            assert!(!ran.still_running, "{line}");
        }
    }
}

#[test]
fn commands_without_dry_run_refuse_it_with_kubectls_error() {
    // rollout's subcommands other than undo (kubectl 1.34 gives only `rollout undo` the flag) and the reads.
    for (line, cmd) in [
        ("rollout restart deployment/web", "rollout restart"),
        ("rollout pause deployment/web", "rollout pause"),
        ("rollout resume deployment/web", "rollout resume"),
        ("rollout status deployment/web", "rollout status"),
        ("rollout history deployment/web", "rollout history"),
        ("get pods", "get"),
        ("describe deployment web", "describe"),
        ("events", "events"),
        ("top nodes", "top"),
        ("explain pods", "explain"),
    ] {
        for flag in ["--dry-run=client", "--dry-run=server", "--dry-run"] {
            let line = format!("{line} {flag}");
            let ran = dry_run(&line, None);
            assert_eq!(ran.text, format!("error: unknown flag: --dry-run\nSee 'kubectl {cmd} --help' for usage.\n"));
            assert_eq!(ran.code, 1, "{line}");
        }
    }
}

#[test]
fn dry_run_values_read_as_kubectl_reads_them() {
    // cmdutil.GetDryRunStrategy: a bare --dry-run (pflag's NoOptDefVal, which never takes the next word) and a
    // true boolean are client dry runs, with klog's deprecation warning; anything else unknown is an error.
    let ran = dry_run("cordon --dry-run node-1", None);
    assert_eq!(
        ran.text,
        "--dry-run is deprecated and can be replaced with --dry-run=client.\nnode/node-1 cordoned (dry run)\n"
    );
    let ran = dry_run("drain node-1 --dry-run=unchanged", None);
    assert!(ran.text.starts_with("--dry-run is deprecated"), "{}", ran.text);
    for v in ["true", "1", "T"] {
        let ran = dry_run(&format!("scale deployment web --replicas=1 --dry-run={v}"), None);
        assert_eq!(
            ran.text,
            format!("--dry-run={v} is deprecated (boolean value) and can be replaced with --dry-run=client.\ndeployment.apps/web scaled (dry run)\n")
        );
    }
    for line in
        ["scale deployment web --replicas=1 --dry-run=maybe", "apply -f - --dry-run=", "cordon node-1 --dry-run=Server"]
    {
        let ran = dry_run(line, Some(&common::WEB));
        let v = line.rsplit_once('=').map_or("", |(_, v)| v);
        assert_eq!(
            ran.text,
            format!("error: Invalid dry-run value ({v}). Must be \"none\", \"server\", or \"client\".\n")
        );
        assert_eq!(ran.code, 1);
    }
    // A false boolean is no dry run at all: it writes (and warns).
    let mut sim = fixture();
    let out = kubectl(&mut sim, "cordon node-1 --dry-run=false");
    assert_eq!(
        out.text(),
        "--dry-run=false is deprecated (boolean value) and can be replaced with --dry-run=none.\nnode/node-1 cordoned\n"
    );
    let node = sim.store().peek(Kind::Node, &kubeloop_engine::api::ObjKey::cluster("node-1")).cloned();
    assert!(node.and_then(|n| n.as_node().map(|n| n.spec.unschedulable)).unwrap_or(false));
}

#[test]
fn a_server_dry_run_of_an_invalid_object_fails_with_the_servers_error() {
    // The server admits and validates a dry run as it would the write: the same refusal, nothing written.
    let bad = POD.replace("name: dry", "name: Dry_Pod");
    let ran = dry_run("create -f - --dry-run=server", Some(&bad));
    assert_eq!(ran.code, 1);
    assert!(ran.text.contains("Pod \"Dry_Pod\" is invalid: metadata.name: Invalid value: \"Dry_Pod\""), "{}", ran.text);
    // A client dry run sends nothing: nothing is validated.
    assert_eq!(dry_run("create -f - --dry-run=client", Some(&bad)).text, "pod/Dry_Pod created (dry run)\n");
    let ran = dry_run("label deployment web bad/key/x=y --dry-run=server", None);
    assert_eq!(ran.code, 1);
    assert!(ran.text.contains("\"web\" is invalid: metadata.labels: Invalid value: \"bad/key/x\""), "{}", ran.text);
}

#[test]
fn a_server_dry_run_is_a_request_the_api_server_serves() {
    // Counted by the store as the PATCH it is (kubectl's client dry run sends only its GET); the counters are not
    // part of the history hash, so the twins of `dry_run` stay equal either way.
    let writes = |mode: &str| {
        let mut sim = fixture();
        let before = sim.store().counters(sim.user()).writes();
        kubectl(&mut sim, &format!("cordon node-1 --dry-run={mode}"));
        sim.store().counters(sim.user()).writes() - before
    };
    assert_eq!((writes("client"), writes("server")), (0, 1));
}

#[test]
fn a_server_dry_run_drain_meets_what_a_drain_meets() {
    // An eviction the disruption budget refuses is refused in a dry run too, and retried every 5 s (upstream's
    // evictPods loop); nothing is ever evicted.
    let budget = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 3\n  selector:\n    matchLabels:\n      app: web\n";
    let (mut a, mut b) = (fixture(), fixture());
    for sim in [&mut a, &mut b] {
        assert_eq!(kubectl_stdin(sim, "apply -f -", budget).code, 0);
        sim.run_for(MINUTE);
    }
    let mut out = kubectl(&mut a, "drain node-1 --dry-run=server");
    let mut text = out.text();
    for _ in 0..30 {
        a.run_for(SECOND);
        b.run_for(SECOND);
        if let Some(f) = out.follow.as_mut() {
            let p = f.poll(&mut a);
            text.push_str(&format!("{}{}{}", p.warnings, p.stdout, p.stderr));
            assert!(!p.done, "{text}");
        }
    }
    let Some(mut f) = out.follow.take() else { panic!("the drain waits for the budget:\n{text}") };
    f.stop(&mut a);
    let first = pods_on(&a, "node-1").first().cloned().unwrap_or_default();
    assert!(
        text.starts_with(&format!(
            "node/node-1 cordoned (server dry run)\nevicting pod default/{first} (server dry run)\n"
        )),
        "{text}"
    );
    let refused = format!("error when evicting pods/\"{first}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n");
    assert!(text.matches(&refused).count() >= 5, "{text}");
    assert!(!text.contains("evicted") && !text.contains("drained"), "{text}");
    a.run_for(MINUTE);
    b.run_for(MINUTE);
    assert_eq!(future(&a), future(&b));

    // With --disable-eviction, a server dry run deletes nothing, and drain waits for pods that never go, as
    // upstream's deletePods does (until --timeout, or Ctrl+C).
    let ran = dry_run("drain node-1 --disable-eviction --dry-run=server", None);
    assert!(ran.still_running);
    assert_eq!(ran.text, "node/node-1 cordoned (server dry run)\n");
}

/// `apply --dry-run=client` as kubectl's `applyOneObject` does it: it GETs each object and sends nothing, so each
/// object is judged against the live cluster alone (one named twice is `created` twice, a Deployment in a namespace
/// the same text creates is `created`: kubectl does not look for the namespace), and nothing the server would
/// check is checked (validation, the namespace, strict decoding, kubeloop's bounds). What kubectl itself checks
/// still fails: a kind it cannot map, a generateName. The server's dry run meets what is live, object by object.
#[test]
fn an_apply_client_dry_run_checks_only_what_kubectl_checks() {
    let pod = |name: &str| POD.replace("name: dry", &format!("name: {name}"));
    let text = [
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fresh\n".to_string(),
        common::web(3).namespace("fresh").yaml(),
        pod("twice"),
        pod("twice"),
        pod("Not_Valid"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndta:\n  k: v\n".to_string(),
        common::web(100_000).yaml().replace("name: web", "name: huge"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lost\n  namespace: nowhere\n".to_string(),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n".to_string(),
        POD.replace("name: dry", "generateName: dry-"),
    ]
    .join("---\n");
    let ran = dry_run("apply -f - --dry-run=client", Some(&text));
    let (errors, said): (Vec<&str>, Vec<&str>) =
        ran.text.lines().filter(|l| !l.starts_with("Warning")).partition(|l| !l.ends_with("(dry run)"));
    assert_eq!(
        said,
        [
            "namespace/fresh created (dry run)",
            "deployment.apps/web created (dry run)",
            "pod/twice created (dry run)",
            "pod/twice created (dry run)",
            "pod/Not_Valid created (dry run)",
            "configmap/typo created (dry run)",
            "deployment.apps/huge created (dry run)",
            "configmap/lost created (dry run)",
        ],
        "{}",
        ran.text
    );
    assert_eq!(ran.code, 1);
    assert!(errors[0].starts_with("error: document 9, line "), "{}", ran.text);
    assert!(errors[0].contains("resource mapping not found for name: \"w\""), "{}", ran.text);
    assert!(
        errors.last().is_some_and(|e| e.ends_with("from dry-: cannot use generate name with apply")),
        "{}",
        ran.text
    );

    let ran = dry_run("apply -f - --dry-run=server", Some(&text));
    assert!(ran.text.contains("namespace/fresh created (server dry run)\n"), "{}", ran.text);
    assert!(ran.text.contains("namespaces \"fresh\" not found"), "each object meets what is live:\n{}", ran.text);
    assert!(ran.text.contains("Pod \"Not_Valid\" is invalid"), "{}", ran.text);
}

/// A dry run writes nothing, so a run's record does not keep it (`kubectl::writes`, which the page's record asks):
/// every write command of the table, in both modes (and a bare `--dry-run`, kubectl's `client`); the same lines
/// without it, or with `--dry-run=none`, write.
#[test]
fn a_dry_run_is_not_a_write_to_record() {
    for case in CASES {
        for flag in ["--dry-run=client", "--dry-run=server", "--dry-run", "--dry-run=true"] {
            let line = format!("kubectl {} {flag}", case.line);
            assert!(!kc::writes(&line), "{line}");
        }
        for flag in ["", "--dry-run=none", "--dry-run=false"] {
            let line = format!("kubectl {} {flag}", case.line);
            assert!(kc::writes(&line), "{line}");
        }
    }
    // Global flags before the command are read as kubectl reads them.
    assert!(!kc::writes("kubectl -n team delete pod x --dry-run=server"));
    assert!(kc::writes("kubectl -n team delete pod x"));
}
