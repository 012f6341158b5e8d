//! Structure-aware generators: from a fuzzer's bytes, texts shaped like what kubeloop reads — manifests (driven by
//! the engine's own schema tables), kubectl command lines (driven by its command and flag tables), scenarios,
//! quantities, selectors and durations — with the values that break programs: numeric extremes, anchors and
//! aliases, deep nesting, duplicates, multibyte and control text, huge names.

use kubeloop_engine::api::Kind;
use kubeloop_engine::kubectl::COMMANDS;
use kubeloop_engine::manifest::{field_type, schema_fields};

use crate::bytes::Bytes;

/// Numbers at the edges of every integer type the API uses, and text that looks like a number to someone.
pub const NUMBERS: &[&str] = &[
    "0",
    "1",
    "3",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
    "1e400",
    "-1e400",
    "1e18",
    "1.5",
    "0.5",
    ".5",
    "1_000",
    "0x10",
    "0o17",
    "+5",
    "007",
    ".nan",
    ".inf",
    "-.inf",
    "3.4028236e38",
    "1e-400",
];

/// Quantities: suffixes, exponents, precision and overflow.
pub const QUANTITIES: &[&str] = &[
    "250m",
    "1",
    "0.5",
    "128Mi",
    "1e3",
    "1Ei",
    "8Ei",
    "9Ei",
    "999999999Ei",
    "1E",
    "1k",
    "1K",
    "1.5Gi",
    "-1",
    "0",
    "1n",
    "1u",
    "1m",
    "m",
    "Mi",
    "+1",
    ".",
    "1e",
    "1e+",
    "1e-9",
    "1e19",
    "1e308",
    "1e-308",
    "0.000000001",
    "1.0000000000000000001",
    "9223372036854775807m",
    "9223372036854775808",
    "99999999999999999999",
    "12345678901234567890123456789012345678901234567890",
    "1Pi",
    "1.5e3m",
    "0x10",
    "1 Gi",
    "１",
];

/// Percentages for maxSurge / maxUnavailable.
pub const PERCENTS: &[&str] =
    &["0%", "25%", "50%", "100%", "101%", "-1%", "2147483648%", "99999999999999999999%", "1.5%", "%", "%%", "1e3%"];

/// Durations, in both grammars (kubeloop's scenario durations and Go's `time.ParseDuration`).
pub const DURATIONS: &[&str] = &[
    "0",
    "1s",
    "500ms",
    "1m",
    "1h30m",
    "1d",
    "1.5h",
    "2562047h47m16.854s",
    "2562047h47m16.855s",
    "2562047h47m16.854775807s",
    "2562047h47m16.854775808s",
    "9999999999h",
    "-1s",
    "1e3",
    "+5",
    "0.0001s",
    "1ns",
    "1us",
    "1µs",
    "1y",
    "1.",
    "h",
    ".5m",
    "1h1h1h",
    "00000000000000000000001s",
    "1e400",
    "NaN",
    "inf",
    "720h",
    "720h0m0.001s",
    "30d",
    "1w",
    "5",
    "0.0000000000000000000001s",
];

/// Text that breaks names, YAML or terminals.
pub const TEXTS: &[&str] = &[
    "",
    "a",
    "web",
    "node-1",
    "default",
    "kube-system",
    "A",
    "-a",
    "a-",
    "a.b",
    "a/b",
    "a..b",
    "é",
    "名前",
    "🚀",
    "x\u{301}",
    "\u{202e}rtl",
    "a b",
    "*x",
    "&x",
    "<<",
    "~",
    "null",
    "true",
    "yes",
    "'",
    "\"",
    "\\",
    "\t",
    "#c",
    ": ",
    "- ",
    "{",
    "[",
    "%",
    "@",
    "`",
    "\u{0}",
    "\u{feff}",
    "\r",
    "\u{1b}[31m",
    "kubernetes.io/x",
    "app",
    "nginx:1.27",
];

const BOOLS: &[&str] = &["true", "false", "yes", "on", "True", "1", "null", "\"true\""];

const KINDS: &[&str] = &[
    "Namespace",
    "Node",
    "Pod",
    "ReplicaSet",
    "Deployment",
    "Service",
    "ConfigMap",
    "DaemonSet",
    "Job",
    "CronJob",
    "Lease",
    "Event",
    "List",
    "",
    "deployment",
    "PriorityClass",
    "Ingress",
    "IngressClass",
    "NetworkPolicy",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "ResourceQuota",
    "LimitRange",
    "PersistentVolume",
    "StatefulSet",
    "PersistentVolumeClaim",
    "StorageClass",
];

const API_VERSIONS: &[&str] =
    &["v1", "apps/v1", "batch/v1", "coordination.k8s.io/v1", "apps/v1beta1", "", "x/y/z", "v2", "events.k8s.io/v1"];

/// A text for a name or label: from the pools, built from the fuzzer's bytes, or long.
pub fn text(b: &mut Bytes) -> String {
    match b.below(8) {
        0..=3 => b.pick(TEXTS).to_string(),
        4 => name(b),
        5 => b.pick(TEXTS).repeat(1 + b.below(300)),
        6 => format!("{}{}", name(b), b.pick(TEXTS)),
        _ => (0..b.count(12)).map(|_| char::from(b'a' + b.byte() % 26)).collect(),
    }
}

/// A plausible Kubernetes name (sometimes too long, sometimes with a prefix).
pub fn name(b: &mut Bytes) -> String {
    let base = b.pick(&["web", "api", "db", "node-1", "node-2", "default", "kube-system", "x", "web-abc12"]);
    match b.below(6) {
        0 => format!("{base}-{}", b.below(1000)),
        1 => "a".repeat(63 + b.below(3)),
        2 => "a".repeat(253 + b.below(3)),
        3 => format!("example.com/{base}"),
        _ => base.to_string(),
    }
}

fn number(b: &mut Bytes) -> String {
    match b.below(4) {
        0 => (b.u64() as i64).to_string(),
        1 => b.below(20).to_string(),
        _ => b.pick(NUMBERS).to_string(),
    }
}

/// A quantity: from the pool, or a number and a suffix of the fuzzer's choosing.
pub fn quantity(b: &mut Bytes) -> String {
    match b.below(3) {
        0 => {
            let n = b.pick(&["1", "0", "1.5", "-2", "99999999999999999999", "0.001", ".1", "1e9"]);
            let s = b.pick(&[
                "", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-3", "n", "u",
            ]);
            format!("{n}{s}")
        }
        _ => b.pick(QUANTITIES).to_string(),
    }
}

/// A duration in either grammar.
pub fn duration(b: &mut Bytes) -> String {
    match b.below(3) {
        0 => (0..1 + b.count(4))
            .map(|_| {
                let n = b.pick(&["1", "0", "1.5", "2562047", "9223372036", "0.001", "99999999999999999999", ""]);
                let u = b.pick(&["h", "m", "s", "ms", "us", "µs", "ns", "d", "", "x"]);
                format!("{n}{u}")
            })
            .collect(),
        _ => b.pick(DURATIONS).to_string(),
    }
}

/// A label selector in kubectl's `-l` syntax, mostly well formed.
pub fn selector(b: &mut Bytes) -> String {
    let mut out = String::new();
    for i in 0..1 + b.count(4) {
        if i > 0 {
            out.push_str(b.pick(&[",", ", ", ",,", " "]));
        }
        let key = match b.below(4) {
            0 => text(b),
            1 => format!("{}/{}", name(b), name(b)),
            _ => b.pick(&["app", "tier", "env", "example.com/x", "a", "k8s.io/n"]).to_string(),
        };
        match b.below(10) {
            0 => out.push_str(&format!("{key}={}", label_value(b))),
            1 => out.push_str(&format!("{key}=={}", label_value(b))),
            2 => out.push_str(&format!("{key}!={}", label_value(b))),
            3 | 4 => {
                let op = b.pick(&["in", "notin", "IN", "in", "notin"]);
                let values: Vec<String> = (0..b.count(4)).map(|_| label_value(b)).collect();
                let (open, close) = b.pick(&[("(", ")"), ("(", ""), ("", ")"), ("((", "))")]);
                out.push_str(&format!("{key} {op} {open}{}{close}", values.join(",")));
            }
            5 => out.push_str(&key),
            6 => out.push_str(&format!("!{key}")),
            7 => out.push_str(&format!("{key}{}{}", b.pick(&[">", "<", "=!", "!", "in"]), label_value(b))),
            _ => out.push_str(&format!("{key}={}", label_value(b))),
        }
    }
    out
}

fn label_value(b: &mut Bytes) -> String {
    match b.below(4) {
        0 => text(b),
        _ => b.pick(&["web", "a", "", "v1", "x-y", "a.b_c", "-bad"]).to_string(),
    }
}

/// A YAML tree, rendered later in block or flow style.
enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

/// How one generated text breaks YAML: the renderer spreads these through it.
#[derive(Default)]
struct Style {
    anchors: bool,
    flow: bool,
    tabs: bool,
}

/// A leaf value for field `key` (the schema tables name the fields, this guesses their types).
fn leaf(b: &mut Bytes, key: &str, depth: usize) -> Node {
    let s = |v: String| Node::Scalar(v);
    if b.chance(4) {
        // The wrong shape for the field.
        return match b.below(4) {
            0 => Node::List(vec![s(text(b))]),
            1 => Node::Map(vec![(text(b), s(text(b)))]),
            2 => s(number(b)),
            _ => s(b.pick(BOOLS).to_string()),
        };
    }
    match key {
        "replicas"
        | "minReadySeconds"
        | "revisionHistoryLimit"
        | "progressDeadlineSeconds"
        | "priority"
        | "terminationGracePeriodSeconds"
        | "activeDeadlineSeconds"
        | "deletionGracePeriodSeconds"
        | "tolerationSeconds"
        | "containerPort"
        | "hostPort"
        | "generation" => s(number(b)),
        "maxSurge" | "maxUnavailable" => s(if b.chance(50) { b.pick(PERCENTS).to_string() } else { number(b) }),
        "paused" | "unschedulable" | "controller" | "blockOwnerDeletion" | "hostNetwork" | "stdin" | "tty" => {
            s(b.pick(BOOLS).to_string())
        }
        "requests"
        | "limits"
        | "overhead"
        | "hard"
        | "capacity"
        | "max"
        | "min"
        | "default"
        | "defaultRequest"
        | "maxLimitRequestRatio" => Node::Map(
            (0..b.count(4))
                .map(|_| {
                    let r = b.pick(&[
                        "cpu",
                        "memory",
                        "pods",
                        "ephemeral-storage",
                        "nvidia.com/gpu",
                        "hugepages-2Mi",
                        "x",
                        "storage",
                        "requests.cpu",
                        "limits.memory",
                        "count/pods",
                    ]);
                    (r.to_string(), s(quantity(b)))
                })
                .collect(),
        ),
        "labels" | "annotations" | "matchLabels" | "nodeSelector" => {
            Node::Map((0..b.count(5)).map(|_| (text(b), s(label_value(b)))).collect())
        }
        "command" | "args" | "finalizers" | "values" | "podCIDRs" => {
            Node::List((0..b.count(4)).map(|_| s(text(b))).collect())
        }
        // The stored kinds' lists of texts (RBAC rules, access modes, hosts, CIDRs), from a pool of their values.
        "verbs" | "apiGroups" | "resources" | "resourceNames" | "nonResourceURLs" | "accessModes" | "policyTypes"
        | "hosts" | "except" | "mountOptions" | "scopes" => Node::List(
            (0..b.count(4))
                .map(|_| match b.chance(4) {
                    true => s(text(b)),
                    false => s(b
                        .pick(&[
                            "get",
                            "list",
                            "*",
                            "",
                            "apps",
                            "pods",
                            "ReadWriteOnce",
                            "ReadWriteOncePod",
                            "Ingress",
                            "Egress",
                            "foo.example.com",
                            "10.0.0.0/24",
                            "/healthz",
                            "BestEffort",
                        ])
                        .to_string()),
                })
                .collect(),
        ),
        "pathType" => s(b.pick(&["Prefix", "Exact", "ImplementationSpecific", "", "prefix"]).to_string()),
        "persistentVolumeReclaimPolicy" => s(b.pick(&["Retain", "Delete", "Recycle", ""]).to_string()),
        "volumeMode" => s(b.pick(&["Filesystem", "Block", "filesystem"]).to_string()),
        "protocol" => s(b.pick(&["TCP", "UDP", "SCTP", "tcp"]).to_string()),
        "cidr" | "host" | "path" => s(b.pick(&["10.0.0.0/24", "::/0", "*.foo.com", "/mnt/data", "/", ""]).to_string()),
        "number" | "endPort" => s(number(b)),
        "port" => s(if b.chance(50) { b.pick(&["http", "80", "", "-1"]).to_string() } else { number(b) }),
        "operator" => s(b.pick(&["In", "NotIn", "Exists", "DoesNotExist", "Equal", "Gt", "in", ""]).to_string()),
        "effect" => s(b.pick(&["NoSchedule", "PreferNoSchedule", "NoExecute", "", "noschedule"]).to_string()),
        "type" => s(b.pick(&["RollingUpdate", "Recreate", "OnDelete", "", "Container", "Pod", "User"]).to_string()),
        "restartPolicy" => s(b.pick(&["Always", "OnFailure", "Never", "Sometimes"]).to_string()),
        "image" => s(b.pick(&["nginx:1.27", "nginx", "", "a@sha256:00", "registry:5000/x/y:z", "UPPER"]).to_string()),
        "creationTimestamp" | "deletionTimestamp" | "timeAdded" => s(b
            .pick(&["2024-01-01T00:00:00Z", "0000-00-00T00:00:00Z", "9999-12-31T23:59:59Z", "yesterday", "null"])
            .to_string()),
        "name" | "generateName" | "namespace" | "nodeName" | "key" | "value" | "uid" | "resourceVersion" => s(text(b)),
        "apiVersion" => s(b.pick(API_VERSIONS).to_string()),
        "kind" => s(b.pick(KINDS).to_string()),
        _ if depth < 3 && b.chance(10) => Node::Map(vec![(text(b), s(text(b)))]),
        _ => s(text(b)),
    }
}

/// Fields of schema type `ty`, chosen by the fuzzer's bytes (known ones mostly, an unknown one sometimes).
fn object(b: &mut Bytes, ty: &str, depth: usize) -> Node {
    let fields = schema_fields(ty);
    let mut entries = Vec::new();
    let n = if fields.is_empty() { b.count(2) } else { b.count(fields.len().min(8)) };
    for _ in 0..n {
        let key = if fields.is_empty() || b.chance(5) { text(b) } else { b.pick(&fields).to_string() };
        entries.push((key.clone(), field(b, ty, &key, depth + 1)));
    }
    if b.chance(3) {
        // A duplicate key.
        if let Some((k, _)) = entries.first() {
            let k = k.clone();
            entries.push((k.clone(), field(b, ty, &k, depth + 1)));
        }
    }
    Node::Map(entries)
}

fn field(b: &mut Bytes, ty: &str, key: &str, depth: usize) -> Node {
    if depth > 12 {
        return leaf(b, key, depth);
    }
    match field_type(ty, key) {
        Some(
            t @ ("Container"
            | "Toleration"
            | "ContainerPort"
            | "Taint"
            | "LabelSelectorRequirement"
            | "OwnerReference"
            | "IngressRule"
            | "HTTPIngressPath"
            | "IngressTLS"
            | "NetworkPolicyIngressRule"
            | "NetworkPolicyEgressRule"
            | "NetworkPolicyPeer"
            | "NetworkPolicyPort"
            | "PolicyRule"
            | "Subject"
            | "LimitRangeItem"
            | "NodeSelectorTerm"
            | "NodeSelectorRequirement"),
        ) => Node::List((0..b.count(3)).map(|_| object(b, t, depth)).collect()),
        Some(t) => object(b, t, depth),
        None => leaf(b, key, depth),
    }
}

/// One object: a kind the engine serves mostly, with its schema; sometimes another.
fn document(b: &mut Bytes) -> Node {
    let kind = b.pick(KINDS);
    // A kind kubeloop only stores: read through its schema alone.
    let stored = Kind::ALL.into_iter().find(|k| k.name() == kind && k.info().stored.is_some());
    let api = match kind {
        "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet" if !b.chance(10) => "apps/v1",
        "Job" | "CronJob" if !b.chance(10) => "batch/v1",
        _ if stored.is_some() && !b.chance(10) => stored.map_or("v1", Kind::api_version),
        _ if b.chance(80) => "v1",
        _ => b.pick(API_VERSIONS),
    };
    let ty = match kind {
        "Namespace" | "Node" | "Pod" | "ReplicaSet" | "Deployment" | "DaemonSet" | "Job" | "StatefulSet" => kind,
        _ => "",
    };
    let mut entries = vec![
        ("apiVersion".to_string(), Node::Scalar(api.to_string())),
        ("kind".to_string(), Node::Scalar(kind.to_string())),
        ("metadata".to_string(), object(b, "ObjectMeta", 1)),
    ];
    if b.chance(30) {
        entries.swap(0, 2);
    }
    if let Node::Map(m) = &mut entries[2].1 {
        if !b.chance(10) {
            m.insert(0, ("name".to_string(), Node::Scalar(name(b))));
        }
    }
    if stored.is_some() {
        if let Node::Map(fields) = object(b, kind, 1) {
            let top = ["apiVersion", "kind", "metadata"];
            entries.extend(fields.into_iter().filter(|(k, _)| !top.contains(&k.as_str())));
        }
    } else if !ty.is_empty() || b.chance(30) {
        let spec_ty = field_type(if ty.is_empty() { "Deployment" } else { ty }, "spec").unwrap_or("");
        entries.push(("spec".to_string(), object(b, spec_ty, 1)));
    }
    if b.chance(10) {
        entries.push(("status".to_string(), object(b, "", 1)));
    }
    Node::Map(entries)
}

fn scalar_text(b: &mut Bytes, v: &str) -> String {
    match b.below(12) {
        0 => format!("'{}'", v.replace('\'', "''")),
        1 => format!("{v:?}"),
        _ => {
            // Plain when YAML would read it back as this text; quoted otherwise.
            let plain_ok = !v.is_empty()
                && !v.contains([':', '#', '\n', '\r', '\t', '\0', '"', '\'', '{', '}', '[', ']', ',', '\\'])
                && !v.starts_with(['-', '*', '&', '!', '|', '>', '%', '@', '`', '?', ' ', '~'])
                && !v.ends_with(' ');
            if plain_ok || b.chance(5) {
                v.to_string()
            } else {
                format!("{v:?}")
            }
        }
    }
}

fn render(b: &mut Bytes, node: &Node, indent: usize, style: &Style, anchors: &mut usize, out: &mut String) {
    let pad = if style.tabs && b.chance(2) { "\t".repeat(indent / 2) } else { " ".repeat(indent) };
    match node {
        Node::Scalar(v) => {
            if style.anchors && b.chance(10) {
                if *anchors > 0 && b.chance(50) {
                    out.push_str(&format!(" *a{}\n", b.below(*anchors)));
                    return;
                }
                out.push_str(&format!(" &a{}", *anchors));
                *anchors += 1;
            }
            out.push(' ');
            out.push_str(&scalar_text(b, v));
            out.push('\n');
        }
        Node::Map(entries) if entries.is_empty() => out.push_str(" {}\n"),
        Node::List(items) if items.is_empty() => out.push_str(" []\n"),
        _ if style.flow && b.chance(15) => {
            out.push(' ');
            flow(b, node, out);
            out.push('\n');
        }
        Node::Map(entries) => {
            out.push('\n');
            for (k, v) in entries {
                out.push_str(&pad);
                out.push_str(&scalar_text(b, k));
                out.push(':');
                render(b, v, indent + 2, style, anchors, out);
            }
        }
        Node::List(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&pad);
                out.push('-');
                render(b, item, indent + 2, style, anchors, out);
            }
        }
    }
}

fn flow(b: &mut Bytes, node: &Node, out: &mut String) {
    match node {
        Node::Scalar(v) => out.push_str(&scalar_text(b, v)),
        Node::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&scalar_text(b, k));
                out.push_str(": ");
                flow(b, v, out);
            }
            out.push('}');
        }
        Node::List(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(b, v, out);
            }
            out.push(']');
        }
    }
}

/// A manifest text: one or more documents, with the hostile shapes the renderer chooses.
pub fn manifest(b: &mut Bytes) -> String {
    let style = Style { anchors: b.chance(10), flow: b.chance(30), tabs: b.chance(3) };
    let mut out = String::new();
    if b.chance(5) {
        out.push_str(b.pick(&["%YAML 1.2\n---\n", "%TAG ! tag:x:\n---\n", "%YAML 1.1\n%YAML 1.1\n---\n"]));
    }
    let mut anchors = 0;
    for i in 0..1 + b.count(3) {
        if i > 0 || b.chance(20) {
            out.push_str(b.pick(&["---\n", "---\n", "--- \n", "...\n---\n", "---\n# c\n"]));
        }
        let doc = document(b);
        let mut text = String::new();
        render(b, &doc, 0, &style, &mut anchors, &mut text);
        out.push_str(text.strip_prefix('\n').unwrap_or(&text));
        if b.chance(5) {
            out.push_str(&hostile_tail(b));
        }
    }
    if b.chance(5) {
        // Many copies of the text: duplicates, and size.
        let copies = 1 + b.below(50);
        out = format!("{out}---\n").repeat(copies);
    }
    out
}

/// Something appended to a document that a parser must survive.
fn hostile_tail(b: &mut Bytes) -> String {
    let n = 1 + b.below(200);
    match b.below(7) {
        0 => format!("x: {}\n", "[".repeat(n)),
        1 => format!("x: {}\n", "{a: ".repeat(n)),
        2 => (0..n).map(|i| format!("{}-\n", " ".repeat(i))).collect(),
        3 => format!("x: &a [{}]\ny: [{}]\n", "1,".repeat(n), "*a,".repeat(n)),
        4 => format!("{}\n", "\u{1F680}".repeat(n)),
        5 => "x: \"\\uD800\"\n".to_string(),
        _ => format!("x: |{}\n  a\n", b.pick(&["-", "+", "9", "0", "99999999999999999999"])),
    }
}

fn shell_quote(b: &mut Bytes, word: &str) -> String {
    match b.below(10) {
        0 => format!("'{word}'"),
        1 => format!("\"{word}\""),
        2 => word.replace(' ', "\\ "),
        3 if b.chance(20) => format!("'{word}"),
        _ => {
            if word.contains([' ', '\'', '"', '\\']) || word.is_empty() {
                format!("'{}'", word.replace('\'', "'\\''"))
            } else {
                word.to_string()
            }
        }
    }
}

const RESOURCES: &[&str] = &[
    "pods",
    "po",
    "pod",
    "deploy",
    "deployments.apps",
    "deployment.v1.apps",
    "rs",
    "replicasets",
    "nodes",
    "no",
    "ns",
    "namespaces",
    "events",
    "ev",
    "leases",
    "all",
    "pods,deploy",
    "svc",
    "deployment/web",
    "pod/x",
    "node/node-1",
    "nosuch",
    "",
    "pods,",
    "Deployment",
];

/// A value for a kubectl flag, by the flag's name.
fn flag_value(b: &mut Bytes, flag: &str) -> String {
    match flag {
        "output" => match b.below(8) {
            0 => format!("jsonpath={}", jsonpath_template(b)),
            1 => format!(
                "custom-columns={}",
                b.pick(&[
                    "NAME:.metadata.name",
                    "A:.x,B:.y",
                    ":",
                    "X",
                    "N:.metadata.name,I:.spec.containers[*].image",
                    "L:{.metadata.labels},E:.items[",
                    "R:..name",
                ])
            ),
            2 => format!(
                "{}={}",
                b.pick(&["jsonpath-as-json", "jsonpath-file", "custom-columns-file", "go-template", "template"]),
                b.pick(&["manifest.yaml", "{.kind}", "nosuch", ""])
            ),
            _ => b
                .pick(&["yaml", "json", "wide", "name", "go-template={{.}}", "jsonpath", "YAML", "", "custom-columns"])
                .to_string(),
        },
        "template" => jsonpath_template(b),
        "allow-missing-template-keys" => b.pick(&["true", "false", "x"]).to_string(),
        "selector" | "field-selector" => selector(b),
        "namespace" => b.pick(&["default", "kube-system", "nosuch", "", "Team-A"]).to_string(),
        "timeout" | "request-timeout" => duration(b),
        "replicas" | "grace-period" | "to-revision" | "revision" | "current-replicas" | "chunk-size" | "tail"
        | "port" | "max-unavailable" | "min-available" => number(b),
        "dry-run" => b.pick(&["client", "server", "none", "true", "x"]).to_string(),
        "cascade" => b.pick(&["background", "foreground", "orphan", "true", "false", "x"]).to_string(),
        "filename" => b.pick(&["-", "manifest.yaml", "/etc/passwd", "../x", "", "dir/"]).to_string(),
        "image" => b.pick(&["nginx:1.28", "", "a b", "UPPER"]).to_string(),
        "sort-by" => match b.below(3) {
            0 => jsonpath_template(b),
            _ => b
                .pick(&[
                    ".metadata.name",
                    "{.metadata.creationTimestamp}",
                    "[",
                    ".status.x",
                    ".metadata.labels",
                    ".status.containerStatuses[0].restartCount",
                    ".spec.replicas",
                    "{.a}{.b}",
                ])
                .to_string(),
        },
        _ => match b.below(3) {
            0 => number(b),
            1 => duration(b),
            _ => text(b),
        },
    }
}

/// A JSONPath template (client-go's grammar): pieces of real templates, hostile ones (unclosed, deep, huge
/// indices, recursive descent after recursive descent) and random text, in braces or not.
fn jsonpath_template(b: &mut Bytes) -> String {
    const PIECES: &[&str] = &[
        ".items[*]",
        ".metadata.name",
        "range .items[*]",
        "end",
        "[?(@.status.phase==\"Running\")]",
        "[?(@.spec.replicas>=1)]",
        "[?(@.x)]",
        "[1:3]",
        "[-1:]",
        "[::0]",
        "[9223372036854775807]",
        "[-9223372036854775808:]",
        "..name",
        "..*",
        "['a','b']",
        "[a,b,c]",
        "\"\\t\"",
        "'\\x'",
        "$",
        "@",
        ".*",
        "[",
        "[?(",
        "\"",
        "1.5.5",
        "true",
        "nosuch",
    ];
    let mut out = String::new();
    for _ in 0..1 + b.count(6) {
        match b.below(6) {
            0 => out.push_str(&text(b)),
            1 => out.push_str(b.pick(PIECES)),
            _ => {
                out.push('{');
                for _ in 0..1 + b.count(3) {
                    out.push_str(b.pick(PIECES));
                }
                if !b.chance(10) {
                    out.push('}');
                }
            }
        }
    }
    if b.chance(30) {
        out = out.repeat(1 + b.below(2000));
    }
    out
}

/// A kubectl command line: a command from kubeloop's own table (sometimes a word it does not know), positional
/// arguments from the resource, name and `KEY=VALUE` pools, and flags from the command's own flag table.
pub fn kubectl_line(b: &mut Bytes) -> String {
    let mut words: Vec<String> = Vec::new();
    if b.chance(30) {
        words.push("kubectl".into());
    }
    let command = if b.chance(8) { None } else { Some(&COMMANDS[b.below(COMMANDS.len())]) };
    match command {
        Some(c) => words.push(c.name.to_string()),
        None => {
            words.push(b.pick(&["logs", "exec", "proxy", "getx", "", "--help", "-n", "k", "patch", "edit"]).to_string())
        }
    }
    let name = command.map(|c| c.name).unwrap_or("");
    match name {
        "create" => words.push(b.pick(&["deployment", "namespace", "ns", "deploy", "x", "job"]).to_string()),
        "rollout" => words.push(b.pick(&["status", "history", "undo", "restart", "pause", "resume", "x"]).to_string()),
        "set" => words.push(b.pick(&["image", "resources", "x"]).to_string()),
        _ => {}
    }
    for _ in 0..b.count(3) {
        let w = match b.below(7) {
            0 | 1 => b.pick(RESOURCES).to_string(),
            2 => name_word(b),
            3 => format!("{}={}", b.pick(&["app", "nginx", "k", "a/b", ""]), text(b)),
            4 => {
                format!("{}:{}", b.pick(&["k=v", "k", "dedicated=gpu"]), b.pick(&["NoSchedule", "NoExecute", "x", ""]))
            }
            5 => format!("{}-", b.pick(&["app", "k", "dedicated"])),
            _ => text(b),
        };
        words.push(w);
    }
    let flags: Vec<(&str, Option<char>, bool)> =
        command.map(|c| c.flags.iter().map(|f| (f.long, f.short, f.takes_value)).collect()).unwrap_or_default();
    for _ in 0..b.count(4) {
        if flags.is_empty() || b.chance(15) {
            let f =
                b.pick(&["-n", "-A", "--all-namespaces", "-o", "--namespace=", "--x", "-", "--", "-lapp=web", "-h"]);
            words.push(f.to_string());
            if f == "-n" || f == "-o" {
                words.push(flag_value(b, if f == "-n" { "namespace" } else { "output" }));
            }
            continue;
        }
        let (long, short, takes_value) = flags[b.below(flags.len())];
        let spelled = match short {
            Some(s) if b.chance(40) => format!("-{s}"),
            _ => format!("--{long}"),
        };
        if takes_value {
            let v = flag_value(b, long);
            match b.below(3) {
                0 if spelled.starts_with("--") => words.push(format!("{spelled}={v}")),
                1 if b.chance(10) => words.push(spelled),
                _ => {
                    words.push(spelled);
                    words.push(v);
                }
            }
        } else if b.chance(20) {
            words.push(format!("{spelled}={}", b.pick(BOOLS)));
        } else {
            words.push(spelled);
        }
    }
    let mut line: Vec<String> = words.iter().map(|w| shell_quote(b, w)).collect();
    if b.chance(3) {
        line.push(b.pick(&["\\", "'", "\"", "|", "$(x)", "&&", "#"]).to_string());
    }
    line.join(" ")
}

fn quoted_name(b: &mut Bytes) -> String {
    let n = name_word(b);
    scalar_text(b, &n)
}

fn name_word(b: &mut Bytes) -> String {
    match b.below(4) {
        0 => b.pick(&["web", "node-1", "node-2", "node-3", "default", "kube-system"]).to_string(),
        _ => name(b),
    }
}

fn indent_block(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// A scenario: a cluster, t=0 manifests and timed actions of every kind, with the generators' values.
pub fn scenario(b: &mut Bytes) -> String {
    let mut out = String::new();
    if b.chance(70) {
        out.push_str(&format!("seed: {}\n", number(b)));
    }
    if b.chance(70) {
        out.push_str(&format!("until: {}\n", duration(b)));
    }
    out.push_str("cluster:\n");
    match b.below(5) {
        0 => out.push_str(&format!("  nodes: {}\n", number(b))),
        1 => {
            out.push_str("  nodes:\n");
            for _ in 0..b.count(3) {
                out.push_str(&format!(
                    "  - {{name: {}, cpu: {:?}, memory: {:?}, pods: {}}}\n",
                    quoted_name(b),
                    quantity(b),
                    quantity(b),
                    number(b)
                ));
            }
        }
        _ => out.push_str(&format!("  nodes: {}\n", b.below(4))),
    }
    if b.chance(10) {
        out.push_str(&format!(
            "  nodeTemplate: {{cpu: {:?}, memory: {:?}, pods: {}}}\n",
            quantity(b),
            quantity(b),
            number(b)
        ));
    }
    if b.chance(30) {
        out.push_str(["  addons: false\n", "  addons: true\n", "  addons: maybe\n"][b.below(3)]);
    }
    if b.chance(70) {
        out.push_str("manifests: |\n");
        out.push_str(&indent_block(&manifest(b), "  "));
    }
    let actions = b.count(6);
    if actions > 0 {
        out.push_str("actions:\n");
    }
    for _ in 0..actions {
        let at = if b.chance(80) { format!("{}s", b.below(120)) } else { duration(b) };
        out.push_str(&format!("  - at: {}\n", scalar_text(b, &at)));
        match b.below(10) {
            0 => {
                out.push_str("    apply: |\n");
                out.push_str(&indent_block(&manifest(b), "      "));
            }
            1 | 2 => out.push_str(&format!("    kubectl: {:?}\n", kubectl_line(b))),
            3 => out.push_str(&format!(
                "    scale: {{{}: {}, replicas: {}}}\n",
                b.pick(&["deployment", "replicaset", "pod"]),
                quoted_name(b),
                number(b)
            )),
            4 => out.push_str(&format!(
                "    delete: {{kind: {}, {}: {:?}}}\n",
                {
                    let r = b.pick(RESOURCES);
                    scalar_text(b, r)
                },
                b.pick(&["name", "selector"]),
                selector(b)
            )),
            5 => out.push_str(&format!("    {}: {}\n", b.pick(&["killNode", "reviveNode"]), quoted_name(b))),
            6 => out.push_str(&format!("    addNode: {{cpu: {:?}}}\n", quantity(b))),
            7 => {
                let key = b.pick(&[
                    "dropWatchEvents",
                    "conflicts",
                    "apiLatency",
                    "rejectPodCreates",
                    "disconnectWatches",
                    "forceRelist",
                    "crash",
                    "restart",
                    "informer",
                ]);
                let value = match key {
                    "dropWatchEvents" | "conflicts" => {
                        b.pick(&["0.3", "30%", "100%", "101%", "-1", "1e400", "NaN"]).to_string()
                    }
                    "apiLatency" => duration(b),
                    "crash" | "restart" => b.pick(&["cp-1", "cp-2", "kube-scheduler", "x"]).to_string(),
                    "informer" => b.pick(&["cp-1/pods", "kube-scheduler/nodes", "x/y", "/"]).to_string(),
                    _ => b.pick(BOOLS).to_string(),
                };
                out.push_str(&format!("    fault: {{{key}: {}}}\n", scalar_text(b, &value)));
            }
            8 => {
                let (key, value) = match b.below(5) {
                    0 => ("trigger", b.pick(&["level", "edge", "replicaset=edge", "x=edge", "edge=level"]).to_string()),
                    1 => ("observe", b.pick(&["informer", "polling", "x"]).to_string()),
                    2 => ("pollPeriod", duration(b)),
                    3 => ("relistPeriod", duration(b)),
                    _ => ("resyncPeriod", duration(b)),
                };
                out.push_str(&format!("    mode: {{{key}: {}}}\n", scalar_text(b, &value)));
            }
            _ => {
                let (k, v) = (text(b), text(b));
                let v = scalar_text(b, &v);
                out.push_str(&format!("    {k}: {v}\n"))
            }
        }
    }
    out
}
