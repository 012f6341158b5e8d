//! User numbers at their extremes (issue 9, item 4): huge, negative and malformed quantities, grace periods,
//! tolerationSeconds, maxSurge/maxUnavailable, deadlines and kubectl's numeric flags. Each test names the
//! upstream rule it follows; none may panic (debug builds check overflow), and no number may wrap.
mod common;

use common::{events, pods};

use common::kubectl;
use kubeloop_engine::api::{IntOrString, Kind, ObjKey, Object, PodPhase, Quantity};
use kubeloop_engine::kubectl as kctl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};
use proptest::prelude::*;

fn sim(seed: u64, nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

/// A Pod `p` whose one container (or two, with `second`) requests `cpu` and `memory` (YAML scalars, as written).
fn pod(cpu: &str, memory: &str, second: bool) -> String {
    let mut y = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: busybox\n    resources:\n      requests:\n        cpu: {cpu}\n        memory: {memory}\n"
    );
    if second {
        y.push_str(&format!(
            "  - name: b\n    image: busybox\n    resources:\n      requests:\n        cpu: {cpu}\n        memory: {memory}\n"
        ));
    }
    y
}

fn deployment(replicas: &str, strategy: &str, extra: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {replicas}
{extra}  strategy:
{strategy}  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
"
    )
}

fn rolling(surge: &str, unavailable: &str) -> String {
    format!("    rollingUpdate:\n      maxSurge: {surge}\n      maxUnavailable: {unavailable}\n")
}

fn apply_err(sim: &mut Sim, yaml: &str) -> String {
    match kctl::apply(sim, yaml) {
        Ok(r) => panic!("apply should fail, got {r}"),
        Err(e) => e.to_string(),
    }
}

const UNSCHEDULABLE_CPU: &str = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";

fn assert_pending_for(sim: &Sim, want: &str) {
    let ps = pods(sim);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].status.phase, PodPhase::Pending, "{:?}", ps[0].status);
    assert!(ps[0].spec.node_name.is_empty(), "bound to {}", ps[0].spec.node_name);
    assert_eq!(events(sim, "FailedScheduling").first().map(String::as_str), Some(want));
}

// ---- quantities: accepted as the API accepts them, and never fitting a node by wrapping ----------------------

/// NodeResourcesFit: a request larger than the node's allocatable does not fit, however large. Upstream's
/// ParseQuantity accepts decimal quantities of any size (only BinarySI ones are capped, at 2^63-1).
#[test]
fn a_huge_cpu_request_stays_pending_with_insufficient_cpu() {
    for cpu in ["\"9223372036854775807\"", "99999999999999999999", "\"1e308\"", "1E18", "\"9Ei\""] {
        let mut sim = sim(1, 3);
        kctl::apply(&mut sim, &pod(cpu, "64Mi", false)).unwrap_or_else(|e| panic!("cpu {cpu}: {e}"));
        sim.run_for(30 * SECOND);
        assert_pending_for(&sim, UNSCHEDULABLE_CPU);
    }
}

/// Two containers whose requests each fit an int64 of millicores but whose sum does not: the pod's request
/// saturates instead of wrapping to a negative number that would fit anywhere.
#[test]
fn requests_summing_past_int64_do_not_wrap_into_fitting() {
    let mut sim = sim(2, 3);
    kctl::apply(&mut sim, &pod("\"9223372036854775807m\"", "64Mi", true)).expect("apply");
    sim.run_for(30 * SECOND);
    assert_pending_for(&sim, UNSCHEDULABLE_CPU);
    let mut sim = self::sim(2, 3);
    kctl::apply(&mut sim, &pod("100m", "\"8Ei\"", true)).expect("apply");
    sim.run_for(30 * SECOND);
    let want = "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    assert_pending_for(&sim, want);
}

/// `kubectl describe node` and `kubectl top` sum what pods request; a huge request saturates the sum.
#[test]
fn describe_and_top_survive_huge_requests() {
    let mut sim = sim(3, 1);
    let mut y = pod("\"9223372036854775807m\"", "\"8Ei\"", true);
    y = y.replace("spec:\n", "spec:\n  nodeName: node-1\n");
    kctl::apply(&mut sim, &y).expect("apply");
    sim.run_for(MINUTE);
    for line in ["describe node node-1", "describe pod p", "top node", "top pod", "get pod p -o wide"] {
        let out = kubectl(&mut sim, line);
        assert!(!out.text().contains("-9223372036854775"), "{line}: {}", out.text());
    }
}

/// ValidateResourceQuantityValue / ValidateNonnegativeQuantity: a negative quantity parses (ParseQuantity
/// accepts a sign) and is rejected by validation, on its field.
#[test]
fn negative_quantities_are_rejected_by_validation_on_their_field() {
    let mut sim = sim(4, 1);
    let err = apply_err(&mut sim, &pod("\"-1\"", "64Mi", false));
    assert!(
        err.contains(r#"Pod "p" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0"#),
        "{err}"
    );
}

/// ParseQuantity's messages for text that is not a quantity (the regular expression, the suffix).
#[test]
fn malformed_quantities_get_the_api_servers_messages() {
    let mut sim = sim(5, 1);
    let err = apply_err(&mut sim, &pod("lots", "64Mi", false));
    assert!(
        err.contains("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        "{err}"
    );
    let err = apply_err(&mut sim, &pod("1K", "64Mi", false));
    assert!(err.contains("unable to parse quantity's suffix"), "{err}");
}

// ---- grace periods -------------------------------------------------------------------------------------------

fn running_pod(sim: &mut Sim, grace: &str) -> String {
    let y = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: g\nspec:\n  terminationGracePeriodSeconds: {grace}\n  containers:\n  - name: a\n    image: busybox\n"
    );
    kctl::apply(sim, &y).unwrap_or_else(|e| panic!("grace {grace}: {e}"));
    sim.run_for(MINUTE);
    let p = pods(sim);
    assert_eq!(p[0].status.phase, PodPhase::Running);
    p[0].metadata.name.to_string()
}

/// A huge grace period is honoured: the pod is marked for deletion (deletionTimestamp far in the future,
/// saturated, never before now) and its containers stop, so it goes. Before, `now + grace * 1000` overflowed
/// and `unwrap_or(i64::MAX)` made the delete a no-op.
#[test]
fn a_huge_grace_period_deletion_is_honoured() {
    for (spec_grace, opt_grace) in [("9223372036854775807", None), ("30", Some(i64::MAX)), ("30", Some(i64::MAX - 1))] {
        let mut sim = sim(6, 1);
        let name = running_pod(&mut sim, spec_grace);
        let key = ObjKey::new("default", &name);
        let opts = DeleteOptions { grace_period_seconds: opt_grace, ..Default::default() };
        let before = sim.now();
        let o = sim.delete(Kind::Pod, &key, &opts).expect("delete");
        let m = o.meta();
        assert!(m.is_terminating(), "{spec_grace}/{opt_grace:?}: marked for deletion");
        assert!(m.deletion_timestamp.is_some_and(|t| t.0 >= before));
        assert_eq!(m.deletion_grace_period_seconds, Some(opt_grace.unwrap_or(i64::MAX)));
        sim.run_for(2 * MINUTE);
        assert!(sim.store().peek(Kind::Pod, &key).is_none(), "{spec_grace}/{opt_grace:?}: the pod is gone");
    }
}

/// kubectl's `--grace-period` is an int flag: an int64 is accepted and the pod is deleted; past int64 the flag
/// parser's message.
#[test]
fn kubectl_delete_grace_period_extremes() {
    let mut sim = sim(7, 1);
    let name = running_pod(&mut sim, "30");
    let out = kubectl(&mut sim, &format!("delete pod {name} --grace-period=9223372036854775807 --wait=false"));
    assert_eq!(out.stdout, format!("pod \"{name}\" deleted from default namespace\n"), "{}", out.text());
    sim.run_for(2 * MINUTE);
    assert!(pods(&sim).is_empty(), "deleted");
    let out = kubectl(&mut sim, "delete pod x --grace-period=9223372036854775808");
    assert_eq!(
        out.stderr,
        "error: invalid argument \"9223372036854775808\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"9223372036854775808\": value out of range\n"
    );
}

/// A negative terminationGracePeriodSeconds is no validation error upstream: the API server warns and treats it as
/// 1 (kubernetes/kubernetes#115606, `pkg/api/pod/warnings.go`), so the pod is created with 1.
#[test]
fn a_negative_termination_grace_period_is_treated_as_one() {
    let mut sim = sim(8, 1);
    let y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: g\nspec:\n  terminationGracePeriodSeconds: -1\n  containers:\n  - name: a\n    image: busybox\n";
    let report = kctl::apply(&mut sim, y).expect("a negative grace period is accepted");
    assert_eq!(report.results.len(), 1);
    let p = sim.store().peek(Kind::Pod, &ObjKey::new("default", "g")).expect("created");
    assert_eq!(p.as_pod().and_then(|p| p.spec.termination_grace_period_seconds), Some(1));
}

// ---- tolerationSeconds ---------------------------------------------------------------------------------------

/// ValidateTolerations: tolerationSeconds only with the NoExecute effect.
#[test]
fn toleration_seconds_need_no_execute() {
    let mut sim = sim(9, 1);
    let y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\nspec:\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoSchedule\n    tolerationSeconds: 5\n  containers:\n  - name: a\n    image: busybox\n";
    let err = apply_err(&mut sim, y);
    assert!(
        err.contains("spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"),
        "{err}"
    );
}

/// A NoExecute taint tolerated for i64::MAX seconds: the eviction is due far in the future (saturated), so the
/// pod stays; a negative tolerationSeconds evicts at once (upstream treats <= 0 as zero).
#[test]
fn huge_and_negative_toleration_seconds() {
    for (secs, evicted) in [("9223372036854775807", false), ("-9223372036854775808", true)] {
        let mut sim = sim(10, 1);
        let y = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\nspec:\n  nodeName: node-1\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: {secs}\n  containers:\n  - name: a\n    image: busybox\n"
        );
        kctl::apply(&mut sim, &y).expect("apply");
        sim.run_for(30 * SECOND);
        let out = kubectl(&mut sim, "taint node node-1 k=v:NoExecute");
        assert_eq!(out.code, 0, "{}", out.text());
        sim.run_for(2 * MINUTE);
        let gone = sim.store().peek(Kind::Pod, &ObjKey::new("default", "t")).is_none_or(|o| o.meta().is_terminating());
        assert_eq!(gone, evicted, "tolerationSeconds {secs}");
    }
}

// ---- Deployments -----------------------------------------------------------------------------------------------

fn deploy_status(sim: &Sim) -> (i32, i32) {
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    d.map(|d| (d.status.replicas, d.status.available_replicas)).unwrap_or_default()
}

/// ResolveFenceposts with a huge maxSurge: the rolling math clamps (replicas + maxSurge saturates, the new
/// ReplicaSet grows to at most replicas), so the Deployment reaches its replicas instead of wrapping to 0.
#[test]
fn a_huge_max_surge_still_reaches_the_replicas() {
    for surge in ["2147483647", "\"2147483647%\"", "\"99999999999999999999%\""] {
        let mut sim = sim(11, 3);
        kctl::apply(&mut sim, &deployment("3", &rolling(surge, "0"), "")).unwrap_or_else(|e| panic!("{surge}: {e}"));
        sim.run_for(MINUTE);
        assert_eq!(deploy_status(&sim), (3, 3), "maxSurge {surge}");
        assert_eq!(pods(&sim).len(), 3);
        // A rollout keeps pods <= replicas + maxSurge (saturated) and ends with the replicas.
        let out = kubectl(&mut sim, "set image deployment/web nginx=nginx:1.28");
        assert_eq!(out.code, 0, "{}", out.text());
        sim.run_for(2 * MINUTE);
        assert_eq!(deploy_status(&sim), (3, 3), "maxSurge {surge} after a rollout");
    }
}

/// Huge replicas with percent maxSurge/maxUnavailable. kubectl apply refuses a Deployment that would declare
/// more pods than the scalability envelope, on its `replicas:` line, and writes nothing. Written past kubectl (by
/// another API client, as the store allows up to its pod cap), the rolling math does not overflow: ResolveFenceposts
/// gives the whole int32 (surge rounded up, unavailable down), the new ReplicaSet is scaled to the replicas,
/// `unavailableReplicas` is replicas minus available, and with 100 % unavailable allowed the Deployment is
/// Available, as upstream computes it.
#[test]
fn huge_replicas_resolve_percentages_without_overflow() {
    let mut sim = sim(12, 1);
    let yaml = deployment("2147483647", &rolling("\"100%\"", "\"100%\""), "");
    let before = sim.history_hash();
    let err = apply_err(&mut sim, &yaml);
    assert_eq!(
        err,
        "error: document 1, line 6: refused: the cluster would declare 2147483647 pods; kubeloop simulates at most 150000 (Kubernetes' scalability envelope)"
    );
    assert_eq!(sim.history_hash(), before, "a refused apply writes nothing");
    assert_eq!(deploy_status(&sim), (0, 0), "no Deployment");

    let object = |yaml: &str| {
        let (mut manifests, _) = kubeloop_engine::manifest::parse(yaml).expect("parses");
        manifests.remove(0).object
    };
    let fenceposts = |yaml: &str| {
        let d = object(yaml).as_deployment().cloned().expect("a Deployment");
        kubeloop_engine::controllers::deployment::resolve_fenceposts(&d)
    };
    assert_eq!(fenceposts(&yaml), (i32::MAX, i32::MAX));
    let half = deployment("2147483647", &rolling("\"50%\"", "\"50%\""), "");
    assert_eq!(fenceposts(&half), (1_073_741_824, 1_073_741_823), "ceil and floor of 2147483647 / 2");

    sim.as_user(|api| api.create(object(&yaml))).expect("the store takes the Deployment");
    sim.run_for(SECOND / 10);
    let rs: Vec<_> = sim.store().objects(Kind::ReplicaSet).filter_map(|o| o.as_replicaset().cloned()).collect();
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0].spec.replicas, Some(i32::MAX), "the new ReplicaSet is scaled to the replicas");
    assert_eq!(
        events(&sim, "ScalingReplicaSet"),
        [format!("Scaled up replica set {} from 0 to 2147483647", rs[0].metadata.name)]
    );
    let created = pods(&sim).len();
    assert!(created > 0 && created <= kubeloop_engine::sim::MAX_PODS, "{created} pods");
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
    let d = d.expect("the Deployment");
    assert_eq!(d.status.unavailable_replicas, i32::MAX - d.status.available_replicas);
    let available = d.status.conditions.iter().find(|c| &*c.type_ == "Available").expect("Available");
    assert_eq!((&*available.status, &*available.reason), ("True", "MinimumReplicasAvailable"));
}

/// ValidateRollingUpdateDeployment and ValidateDeploymentSpec's messages.
#[test]
fn deployment_numbers_are_validated_like_the_api_server() {
    let cases: [(String, &str); 9] = [
        (deployment("3", &rolling("-1", "1"), ""), "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"),
        (deployment("3", &rolling("1", "\"101%\""), ""), "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"101%\"}: must not be greater than 100%"),
        (deployment("3", &rolling("1", "\"99999999999999999999%\""), ""), "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"99999999999999999999%\"}: must not be greater than 100%"),
        (deployment("3", &rolling("\"-5%\"", "1"), ""), "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"-5%\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
        (deployment("3", &rolling("0", "\"0%\""), ""), "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"0%\"}: may not be 0 when `maxSurge` is 0"),
        (deployment("3", "", "  minReadySeconds: -1\n"), "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
        (deployment("3", "", "  revisionHistoryLimit: -1\n"), "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"),
        (deployment("3", "", "  progressDeadlineSeconds: -1\n"), "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"),
        (deployment("3", "", "  minReadySeconds: 600\n  progressDeadlineSeconds: 600\n"), "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"),
    ];
    for (yaml, want) in cases {
        let yaml = yaml.replace("  strategy:\n  selector", "  selector");
        let mut sim = sim(13, 1);
        let err = apply_err(&mut sim, &yaml);
        assert!(err.contains(want), "want {want}\n got {err}");
    }
}

/// IntOrString.UnmarshalJSON: an int must fit an int32 (encoding/json's message), a string is kept.
#[test]
fn an_int_max_surge_past_int32_is_a_decoding_error() {
    let mut sim = sim(15, 1);
    let err = apply_err(&mut sim, &deployment("3", &rolling("99999999999", "1"), ""));
    assert!(err.contains("json: cannot unmarshal number 99999999999 into Go value of type int32"), "{err}");
    let err = apply_err(&mut sim, &deployment("3", &rolling("1.5", "1"), ""));
    assert!(err.contains("json: cannot unmarshal number 1.5 into Go value of type int32"), "{err}");
}

/// A huge progressDeadlineSeconds and minReadySeconds: deadlines saturate instead of overflowing.
#[test]
fn huge_deadlines_and_min_ready_do_not_overflow() {
    let extra =
        "  minReadySeconds: 2147483646\n  progressDeadlineSeconds: 2147483647\n  revisionHistoryLimit: 2147483647\n";
    let mut sim = sim(14, 3);
    kctl::apply(&mut sim, &deployment("3", "", extra).replace("  strategy:\n  selector", "  selector")).expect("apply");
    sim.run_for(2 * MINUTE);
    let (replicas, available) = deploy_status(&sim);
    assert_eq!((replicas, available), (3, 0), "ready but not available for 2^31 s");
}

// ---- kubectl flags ---------------------------------------------------------------------------------------------

/// pflag's int and duration parsing: out of range values get strconv's and time's messages.
#[test]
fn kubectl_numeric_flags_give_kubectls_messages() {
    let mut sim = common::cluster();
    let cases = [
        ("scale deploy web --replicas=9223372036854775808", "error: invalid argument \"9223372036854775808\" for \"--replicas\" flag: strconv.ParseInt: parsing \"9223372036854775808\": value out of range\n"),
        ("scale deploy web --replicas=3 --current-replicas=99999999999999999999", "error: invalid argument \"99999999999999999999\" for \"--current-replicas\" flag: strconv.ParseInt: parsing \"99999999999999999999\": value out of range\n"),
        ("rollout status deploy/web --timeout=99999999999h", "error: invalid argument \"99999999999h\" for \"--timeout\" flag: time: invalid duration \"99999999999h\"\n"),
        ("rollout status deploy/web --timeout=10", "error: invalid argument \"10\" for \"--timeout\" flag: time: missing unit in duration \"10\"\n"),
        ("drain node-1 --timeout=99999999999h", "error: invalid argument \"99999999999h\" for \"--timeout\" flag: time: invalid duration \"99999999999h\"\n"),
    ];
    for (line, want) in cases {
        let out = kubectl(&mut sim, line);
        assert_eq!(out.stderr, want, "{line}");
    }
    // The largest Go duration is accepted, and waits without overflowing the clock.
    let out = kubectl(&mut sim, "rollout status deploy/web --timeout=2562047h47m16.854775807s");
    assert_eq!(out.code, 0, "{}", out.text());
}

// ---- property: extreme numbers never panic, and the rollout invariant holds --------------------------------------

fn extreme_int() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("-1".to_string()),
        Just(i32::MAX.to_string()),
        Just(i32::MIN.to_string()),
        Just(i64::MAX.to_string()),
        Just(i64::MIN.to_string()),
        Just(u64::MAX.to_string()),
        Just("99999999999999999999".to_string()),
        (0i64..20).prop_map(|v| v.to_string()),
    ]
}

fn extreme_quantity() -> impl Strategy<Value = String> {
    prop_oneof![
        extreme_int(),
        Just("1e308".to_string()),
        Just("1E18".to_string()),
        Just("9Ei".to_string()),
        Just("0.0001m".to_string()),
        Just("1e-2147483648".to_string()),
        Just("1e2147483647".to_string()),
        Just(format!("{}Ei", "9".repeat(60))),
        Just("-0.5".to_string()),
        Just("".to_string()),
        (0u64..5000).prop_map(|v| format!("{v}m")),
    ]
}

fn extreme_intstr() -> impl Strategy<Value = String> {
    prop_oneof![
        extreme_int(),
        extreme_int().prop_map(|v| format!("\"{v}%\"")),
        Just("\"25%\"".to_string()),
        Just("\"x\"".to_string()),
    ]
}

fn extreme_duration() -> impl Strategy<Value = String> {
    prop_oneof![
        extreme_int(),
        extreme_int().prop_map(|v| format!("{v}s")),
        extreme_int().prop_map(|v| format!("{v}h")),
        Just("1e308s".to_string()),
        Just("2562047h47m16.854775808s".to_string()),
        Just("-1s".to_string()),
        Just(".5ms".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Quantities at the extremes parse or fail with a message; accessors saturate and order is kept.
    #[test]
    fn extreme_quantities_parse_or_fail_without_panicking_and_keep_their_order(
        a in extreme_quantity(),
        b in extreme_quantity(),
    ) {
        if let (Ok(x), Ok(y)) = (Quantity::parse(&a), Quantity::parse(&b)) {
            let _ = (x.value(), x.milli(), x.to_string());
            if x < y {
                prop_assert!(x.milli() <= y.milli() && x.value() <= y.value());
            }
        }
    }

    /// GetScaledValueFromIntOrPercent at the extremes: an int as is; a percentage of `total` rounded as asked,
    /// exact when it fits an int32 and clamped (never wrapped) when it does not.
    #[test]
    fn intstr_percentages_resolve_without_overflow(
        p in prop_oneof![Just(0u64), Just(1), Just(100), Just(i32::MAX as u64), Just(i64::MAX as u64), Just(u64::MAX), 0u64..1000],
        total in prop_oneof![Just(0i32), Just(1), Just(3), Just(i32::MAX), 0i32..1000],
        up in any::<bool>(),
    ) {
        let v = IntOrString::String(format!("{p}%").as_str().into());
        let got = v.scaled_value(total, up).map_err(TestCaseError::fail)?;
        let pct = i128::from(p.min(i64::MAX as u64));
        let exact = if up { (pct * i128::from(total) + 99) / 100 } else { pct * i128::from(total) / 100 };
        prop_assert_eq!(i128::from(got), exact.min(i128::from(i32::MAX)));
        prop_assert!(got >= 0);
        prop_assert_eq!(IntOrString::Int(total).scaled_value(7, up), Ok(total));
    }

    /// kubectl's duration and int flags at the extremes: kubectl's answer, never a panic. A duration Go reads gets
    /// the server's NotFound for a Deployment that does not exist, one it does not read the flag's error; commands
    /// on objects that do not exist fail; the others succeed or fail with kubectl's error.
    #[test]
    fn kubectl_flags_get_kubectls_answers(d in extreme_duration(), n in extreme_int()) {
        let mut sim = sim(20, 1);
        let status = kubectl(&mut sim, &format!("rollout status deploy/nope --timeout={d}"));
        if kubeloop_engine::time::parse_go_duration(&d).is_ok() {
            prop_assert_eq!(status.stderr, "Error from server (NotFound): deployments.apps \"nope\" not found\n");
        } else {
            let flag = format!("error: invalid argument \"{d}\" for \"--timeout\" flag: ");
            prop_assert!(status.stderr.starts_with(&flag), "{}", status.stderr);
        }
        prop_assert_eq!(status.code, 1);
        for (line, fails) in [
            (format!("drain node-1 --timeout={d} --grace-period={n} --dry-run=client"), false),
            (format!("scale deploy nope --replicas={n} --current-replicas={n}"), true),
            (format!("delete pod nope --grace-period={n}"), true),
            (format!("create deployment d{} --image=x --port={n} --replicas={n}", sim.now()), false),
            (format!("top pod --sort-by=cpu --selector=a={n}"), false),
        ] {
            let out = kubectl(&mut sim, &line);
            common::assert_answers(&line, &out, !fails && out.code == 0);
        }
        if let Err(e) = kubeloop_engine::time::parse_duration(&d) {
            prop_assert!(!e.is_empty());
        }
    }

    /// A Deployment and a Pod with extreme numbers, applied and run: no panic, and while the Deployment rolls
    /// out its pods stay within replicas + maxSurge (saturated).
    #[test]
    fn extreme_manifests_run_and_keep_the_rollout_invariant(
        replicas in prop_oneof![Just("0".to_string()), Just("1".to_string()), Just("3".to_string()), extreme_int()],
        surge in extreme_intstr(),
        unavailable in extreme_intstr(),
        min_ready in extreme_int(),
        deadline in extreme_int(),
        grace in extreme_int(),
        toleration in extreme_int(),
        cpu in extreme_quantity(),
    ) {
        let mut sim = sim(21, 2);
        let extra = format!("  minReadySeconds: {min_ready}\n  progressDeadlineSeconds: {deadline}\n");
        let replicas_small = replicas.parse::<i64>().is_ok_and(|r| (0..=5).contains(&r));
        let yaml = deployment(if replicas_small { &replicas } else { "3" }, &rolling(&surge, &unavailable), &extra);
        let applied = kctl::apply(&mut sim, &yaml).is_ok();
        let p = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  terminationGracePeriodSeconds: {grace}\n  tolerations:\n  - operator: Exists\n    effect: NoExecute\n    tolerationSeconds: {toleration}\n  containers:\n  - name: a\n    image: busybox\n    resources:\n      requests:\n        cpu: \"{cpu}\"\n"
        );
        let _ = kctl::apply(&mut sim, &p);
        sim.run_for(20 * SECOND);
        let _ = kubectl(&mut sim, "set image deployment/web nginx=nginx:1.28");
        let _ = kubectl(&mut sim, "taint node node-1 k=v:NoExecute");
        let _ = sim.delete(Kind::Pod, &ObjKey::new("default", "p"), &DeleteOptions::default());
        let _ = kubectl(&mut sim, "describe node node-1");
        let _ = kubectl(&mut sim, "top pod");
        let limit: Millis = 40 * SECOND;
        let end = sim.now() + limit;
        while sim.now() < end {
            sim.run_for(2 * SECOND);
            if !applied {
                continue;
            }
            let Some(Object::Deployment(d)) = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).map(|o| (**o).clone()) else { continue };
            let surge = kubeloop_engine::controllers::deployment::resolve_fenceposts(&d).0;
            let owned = sim.store().objects(Kind::Pod).filter(|o| o.meta().name.starts_with("web-") && !o.meta().is_terminating()).count();
            let max = i64::from(d.replicas().saturating_add(surge));
            prop_assert!(owned as i64 <= max, "{owned} pods > replicas {} + maxSurge {surge}", d.replicas());
        }
    }
}
