//! `kubectl get`'s template forms against the fixture cluster: `-o jsonpath=` (client-go's JSONPath),
//! `-o custom-columns=`, `--sort-by`, their errors; golden outputs.
mod common;

use common::{check, cluster, kubectl};
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::time::MINUTE;

#[test]
fn jsonpath_as_tutorials_use_it() {
    let mut sim = cluster();
    check(&mut sim, "jsonpath-names", "get pods -o jsonpath='{.items[*].metadata.name}'");
    check(&mut sim, "jsonpath-first-image", "get pods -o jsonpath='{.items[0].spec.containers[*].image}'");
    check(
        &mut sim,
        "jsonpath-range",
        r#"get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\t"}{.spec.nodeName}{"\n"}{end}'"#,
    );
    check(
        &mut sim,
        "jsonpath-filter",
        r#"get pods -o jsonpath='{.items[?(@.status.phase=="Running")].metadata.name}'"#,
    );
    check(
        &mut sim,
        "jsonpath-filter-number",
        "get pods -o jsonpath='{.items[?(@.status.containerStatuses[0].restartCount>=0)].status.podIP}'",
    );
    check(
        &mut sim,
        "jsonpath-slices",
        "get nodes -o jsonpath='{.items[1:3].metadata.name} {.items[-1:].metadata.name}'",
    );
    check(&mut sim, "jsonpath-recursive", "get deploy web -o jsonpath='{..image}'");
    check(&mut sim, "jsonpath-union", "get deploy web -o jsonpath=\"{.metadata['name','namespace']} {\\$.kind}\"");
    check(&mut sim, "jsonpath-map", "get deploy web -o jsonpath='{.spec.selector}{\"\\n\"}'");
    check(&mut sim, "jsonpath-missing-key", "get deploy web -o jsonpath='{.nope}x{.spec.replicas}'");
    check(
        &mut sim,
        "jsonpath-all-namespaces-selector",
        r#"get pods -A -l app=web -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}'"#,
    );
    check(
        &mut sim,
        "jsonpath-node-addresses",
        "get nodes -o jsonpath='{.items[*].status.addresses[?(@.type==\"InternalIP\")].address}'",
    );
    check(
        &mut sim,
        "jsonpath-as-json",
        "get deploy web -o jsonpath-as-json='{.spec.template.spec.containers[*].name}'",
    );
    check(&mut sim, "jsonpath-template-flag", "get ns -o jsonpath --template='{.items[*].metadata.name}'");
    check(&mut sim, "jsonpath-empty-list", "get pods -n kube-system -o jsonpath='{.items[*].metadata.name}'");
    assert_eq!(kubectl(&mut sim, "cordon node-2").code, 0);
    check(
        &mut sim,
        "jsonpath-filter-exists",
        "get nodes -o jsonpath='{.items[?(@.spec.unschedulable)].metadata.name}'",
    );
}

#[test]
fn jsonpath_errors_are_kubectls() {
    let mut sim = cluster();
    let out = check(&mut sim, "jsonpath-error-unterminated", "get pods -o jsonpath='{.items['");
    assert_eq!(out.code, 1);
    check(&mut sim, "jsonpath-error-filter", "get pods -o 'jsonpath={.items[?(@.a==1)'");
    check(&mut sim, "jsonpath-error-action", "get pods -o jsonpath='{.items'");
    check(&mut sim, "jsonpath-error-no-template", "get pods -o jsonpath=");
    let out = check(
        &mut sim,
        "jsonpath-error-missing-strict",
        "get ns default -o jsonpath='{.foo}' --allow-missing-template-keys=false",
    );
    assert_eq!(out.code, 1);
    let out = check(&mut sim, "jsonpath-error-index", "get ns default -o jsonpath='{.spec.finalizers[3]}'");
    assert_eq!(out.code, 1);
    check(&mut sim, "go-template-refused", "get pods -o go-template='{{.metadata.name}}'");
    check(&mut sim, "output-unknown", "get pods -o xml");
    check(&mut sim, "show-labels-with-jsonpath", "get pods --show-labels -o jsonpath='{.kind}'");
}

#[test]
fn custom_columns() {
    let mut sim = cluster();
    check(
        &mut sim,
        "columns-pods",
        "get pods -o custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image,NODE:.spec.nodeName",
    );
    check(
        &mut sim,
        "columns-no-headers",
        "get pods -o custom-columns=NAME:metadata.name,PHASE:{.status.phase} --no-headers",
    );
    check(
        &mut sim,
        "columns-missing-and-maps",
        "get deploy,rs -o custom-columns=KIND:.kind,NAME:.metadata.name,LABELS:.metadata.labels,MISSING:.spec.nope",
    );
    check(&mut sim, "columns-all-namespaces", "get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,READY:.status.containerStatuses[*].ready");
    check(&mut sim, "columns-single", "get node node-1 -o custom-columns=NAME:.metadata.name,CPU:.status.capacity.cpu,MEMORY:.status.allocatable.memory");
    check(&mut sim, "columns-empty", "get pods -n kube-system -o custom-columns=NAME:.metadata.name");
    check(&mut sim, "columns-error-spec", "get pods -o custom-columns=NAME");
    check(&mut sim, "columns-error-path", "get pods -o custom-columns=NAME:.metadata.name,X:.items[");
    check(&mut sim, "columns-error-empty", "get pods -o custom-columns=");
    let file = |name: &str| -> Result<String, String> {
        match name {
            "cols.txt" => Ok("NAME          NODE\n.metadata.name   .spec.nodeName\n".into()),
            _ => Err(format!("open {name}: no such file or directory")),
        }
    };
    let input = Input { stdin: None, read_file: &file };
    let out = kubectl::run(&mut sim, "get pods -o custom-columns-file=cols.txt --no-headers", &input);
    common::golden(
        "columns-file",
        &format!("$ kubectl get pods -o custom-columns-file=cols.txt --no-headers\n{}", out.text()),
    );
    let out = kubectl::run(&mut sim, "get pods -o custom-columns-file=nope.txt", &input);
    assert_eq!(out.stderr, "error: error reading template nope.txt, open nope.txt: no such file or directory\n");
}

#[test]
fn sort_by() {
    let mut sim = cluster();
    // Two pods started a minute after the first three; a Deployment of 10 replicas beside web's 3.
    assert_eq!(kubectl(&mut sim, "scale deploy web --replicas=5").code, 0);
    assert_eq!(kubectl(&mut sim, "create deployment api --image=nginx:1.28 --replicas=10").code, 0);
    sim.run_for(MINUTE);
    check(&mut sim, "sort-by-replicas", "get deploy --sort-by=.spec.replicas");
    check(&mut sim, "sort-by-name", "get pods -l app=web --sort-by=.metadata.name");
    check(&mut sim, "sort-by-start-time", "get pods -l app=web --sort-by=.status.startTime -o wide");
    check(
        &mut sim,
        "sort-by-node",
        "get pods -l app=web --sort-by='{.spec.nodeName}' -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,STARTED:.status.startTime",
    );
    check(&mut sim, "sort-by-restarts", "get pods --sort-by=.status.containerStatuses[0].restartCount");
    check(&mut sim, "sort-by-capacity", "get nodes --sort-by=.status.capacity.cpu -o name");
    check(&mut sim, "sort-by-jsonpath", "get pods --sort-by=.status.startTime -o jsonpath='{range .items[*]}{.status.startTime} {.metadata.name}{\"\\n\"}{end}'");
    let out = check(&mut sim, "sort-by-not-found", "get pods --sort-by=.status.nope");
    assert_eq!(out.code, 1);
    check(&mut sim, "sort-by-not-found-json", "get pods --sort-by=.status.nope -o json");
    check(&mut sim, "sort-by-invalid", "get pods --sort-by='{.metadata.name'");
    check(&mut sim, "sort-by-unsortable", "get pods --sort-by=.metadata.labels");
}

#[test]
fn restarts_sort_numerically() {
    // A pod restarted many times sorts after one restarted fewer: numbers, not text.
    let mut sim = cluster();
    let out = kubectl(&mut sim, "get pods --sort-by=.status.containerStatuses[0].restartCount -o jsonpath='{.items[*].status.containerStatuses[0].restartCount}'");
    let counts: Vec<i64> = out.stdout.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{}", out.stdout);
}

#[test]
fn watch_prints_each_object_with_the_template() {
    let mut sim = cluster();
    let mut out = kubectl(&mut sim, "get pods -w -o jsonpath='{.metadata.name}{\"\\n\"}' --sort-by=.metadata.name");
    assert_eq!(out.code, 0, "{}", out.text());
    assert!(out.warnings.starts_with("warning: --watch requested, --sort-by will be ignored"), "{}", out.warnings);
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.stdout);
    assert_eq!(kubectl(&mut sim, "scale deploy web --replicas=4").code, 0);
    let mut follow = out.follow.take().expect("a watch");
    let (text, _) = common::poll_until_done(&mut sim, follow.as_mut(), MINUTE / 6, MINUTE);
    assert!(!text.is_empty());
    let mut out = kubectl(&mut sim, "get pods -w -o custom-columns=NAME:.metadata.name,PHASE:.status.phase");
    assert!(out.stdout.starts_with("NAME"), "{}", out.stdout);
    assert_eq!(kubectl(&mut sim, "scale deploy web --replicas=2").code, 0);
    let mut follow = out.follow.take().expect("a watch");
    let (text, _) = common::poll_until_done(&mut sim, follow.as_mut(), MINUTE / 6, MINUTE);
    assert!(!text.contains("NAME"), "{text}");
}

#[test]
fn field_selectors_select_on_the_fields_each_kind_offers() {
    let mut sim = cluster();
    let out = check(&mut sim, "get-field-selector-node", "get pods --field-selector spec.nodeName=node-1 -o wide");
    assert_eq!(out.code, 0);
    let all = kubectl(&mut sim, "get pods -o wide").stdout;
    let on_node = all.lines().filter(|l| l.contains(" node-1 ")).count();
    assert_eq!(out.stdout.lines().count() - 1, on_node, "{}", out.stdout);
    let out = check(&mut sim, "get-field-selector-phase", "get pods -A --field-selector status.phase!=Running");
    assert_eq!(out.code, 0);
    let out = check(&mut sim, "get-field-selector-events", "get events --field-selector type=Normal,reason=Scheduled");
    assert!(out.stdout.lines().skip(1).all(|l| l.contains("Scheduled")), "{}", out.stdout);
    let out = check(&mut sim, "get-field-selector-unsupported", "get deploy --field-selector status.replicas=3");
    assert_eq!(out.code, 1);
    let out = check(&mut sim, "get-field-selector-invalid", "get pods --field-selector phase");
    assert_eq!(out.code, 1);
}
