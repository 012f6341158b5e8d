//! `kubectl top`, `explain`, `api-resources` and `version` against the fixture cluster.
mod common;

use common::{assert_answers, check, kubectl, FAILS, OK};

#[test]
fn top_reports_requests_as_usage() {
    let mut sim = common::cluster();
    let out = check(&mut sim, "top-pods", "top pods");
    assert_eq!(out.code, 0);
    assert!(out.stdout.lines().skip(1).all(|l| l.contains("100m") && l.contains("64Mi")), "{}", out.stdout);
    assert!(out.stderr.contains("requests, not measured usage"), "{}", out.stderr);
    check(&mut sim, "top-pods-containers", "top pod -A --containers --sum");
    check(&mut sim, "top-pods-selector", "top pod -l app=nope");
    check(&mut sim, "top-pod-not-found", "top pod nope");
    let out = check(&mut sim, "top-nodes", "top nodes");
    // 300m of CPU requested in all, spread over three nodes.
    let total: i64 = out
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1)?.strip_suffix('m')?.parse::<i64>().ok())
        .sum();
    assert_eq!(total, 300, "{}", out.stdout);
    check(&mut sim, "top-bad-sort", "top pods --sort-by=age");
}

#[test]
fn top_shows_unknown_for_a_dead_kubelet() {
    let mut sim = common::cluster();
    let first = sim.kubelets()[0].name.to_string();
    sim.kill_node(&first).expect("kill");
    sim.run_for(5_000);
    let out = check(&mut sim, "top-nodes-dead", "top node");
    assert!(
        out.stdout.lines().last().is_some_and(|l| l.starts_with(&first) && l.contains("<unknown>")),
        "{}",
        out.stdout
    );
    let out = kubectl(&mut sim, &format!("top node {first}"));
    assert_eq!(out.code, 1, "{}", out.text());
}

#[test]
fn explain_covers_the_fields_kubeloop_accepts() {
    let mut sim = common::cluster();
    let out = check(&mut sim, "explain-pods", "explain pods");
    assert!(out.stdout.starts_with("KIND:       Pod\nVERSION:    v1\n\nDESCRIPTION:\n"), "{}", out.stdout);
    let out = check(&mut sim, "explain-deployment-strategy", "explain deployment.spec.strategy");
    assert!(out.stdout.starts_with("GROUP:      apps\nKIND:       Deployment\n"), "{}", out.stdout);
    let out = check(&mut sim, "explain-container-resources", "explain pod.spec.containers.resources");
    assert!(out.stdout.contains("requests\t<map[string]Quantity>"), "{}", out.stdout);
    let out = check(&mut sim, "explain-container-fields", "explain pod.spec.containers");
    // Simulated and accepted-only fields say which they are.
    let block = |name: &str| {
        out.stdout
            .split(&format!("\n  {name}\t"))
            .nth(1)
            .map(|b| b.split("\n\n").next().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    assert!(block("image").contains("kubeloop: simulated."), "{}", block("image"));
    assert!(block("livenessProbe").contains("kubeloop: simulated."), "{}", block("livenessProbe"));
    assert!(block("lifecycle").contains("kubeloop: simulated."), "{}", block("lifecycle"));
    assert!(block("securityContext").contains("kubeloop: accepted, not simulated"), "{}", block("securityContext"));
    check(&mut sim, "explain-strategy-type", "explain deploy.spec.strategy.type");
    check(&mut sim, "explain-deployment-recursive", "explain deployment --recursive");
    let out = check(&mut sim, "explain-unknown-field", "explain pod.spec.bogus");
    assert_eq!(out.stderr, "error: field \"bogus\" does not exist\n");
    check(&mut sim, "explain-status-field", "explain pod.status.phase");
    check(&mut sim, "explain-unknown-resource", "explain statefulsets");
    check(&mut sim, "explain-no-args", "explain");
}

#[test]
fn api_resources_lists_what_kubeloop_serves() {
    let mut sim = common::cluster();
    check(&mut sim, "api-resources", "api-resources");
    check(&mut sim, "api-resources-wide", "api-resources -o wide");
    check(&mut sim, "api-resources-name", "api-resources -o name");
    check(&mut sim, "api-resources-cluster-scoped", "api-resources --namespaced=false");
    check(&mut sim, "api-resources-apps", "api-resources --api-group=apps --no-headers");
    check(&mut sim, "api-resources-json", "api-resources --api-group=apps -o json");
    check(&mut sim, "api-resources-bad-output", "api-resources -o table");
}

#[test]
fn version_matches_the_simulated_kubelets() {
    let mut sim = common::cluster();
    let out = check(&mut sim, "version", "version");
    let node = sim.store().objects(kubeloop_engine::api::Kind::Node).next().and_then(|o| o.as_node().cloned());
    let kubelet = node.and_then(|n| n.status.node_info).map(|i| i.kubelet_version.to_string()).unwrap_or_default();
    assert!(out.stdout.contains(&format!("Server Version: {kubelet}-kubeloop\n")), "{}", out.stdout);
    check(&mut sim, "version-client", "version --client");
    check(&mut sim, "version-json", "version -o json");
    check(&mut sim, "version-yaml", "version --client -o yaml");
    check(&mut sim, "version-bad-output", "version -o wide");
}

#[test]
fn odd_inputs_get_kubectls_answers_and_write_nothing() {
    let mut sim = common::cluster();
    for (line, ok) in [
        ("top", OK),
        ("top x", FAILS),
        ("top pod a b", FAILS),
        ("top pod -l 'a in ('", FAILS),
        ("top node -l x=y", FAILS),
        ("top node nope", FAILS),
        ("top pod --sum --no-headers", OK),
        ("top nodes --sort-by=memory", OK),
        ("top pods --sort-by=cpu -A", OK),
        ("top pod -n empty", OK),
        ("explain", FAILS),
        ("explain .", FAILS),
        ("explain pod.", FAILS),
        ("explain pod..spec", FAILS),
        ("explain deploy.spec.template.spec.containers.ports.protocol", OK),
        ("explain pod --max-depth=-1 -R", FAILS),
        ("explain pod --max-depth=2", FAILS),
        ("explain pod -R --max-depth=x", FAILS),
        ("explain leases", FAILS),
        ("explain pod --api-version=apps/v1", FAILS),
        ("explain pod -o json", FAILS),
        ("explain node.spec.taints.effect", OK),
        ("explain ns.status", OK),
        ("explain pod.metadata.labels.foo", FAILS),
        ("explain pod.spec.affinity.nodeAffinity", OK),
        ("explain pod.spec.affinity.podAffinity.bogus", FAILS),
        ("explain rs.spec.template.metadata.ownerReferences.uid", OK),
        ("api-resources x", FAILS),
        ("api-resources --sort-by=x", FAILS),
        ("api-resources --sort-by=kind -o yaml", OK),
        ("api-resources --verbs=watch,get --categories=all", OK),
        ("api-resources --namespaced=maybe", FAILS),
        ("version extra", FAILS),
        ("version -o", FAILS),
        ("version --client=false -o yaml", OK),
    ] {
        let before = sim.history_hash();
        let out = kubectl(&mut sim, line);
        assert_answers(line, &out, ok);
        assert_eq!(sim.history_hash(), before, "`{line}` reads and writes nothing");
    }
}
