//! `kubectl api-resources` (from the discovery facts of the kind registry, [`super::resource::resources`]) and `kubectl version`.

use serde_yaml::Value;

use super::args::{switch, value, Args, Flag};
use super::resource::{resources, Resource};
use super::{table, Command, Input, Output};
use crate::kubelet::KUBELET_VERSION;
use crate::sim::Sim;

pub const API_RESOURCES: Command = Command {
    name: "api-resources",
    summary: "Print the supported API resources on the server",
    usage: "kubectl api-resources [flags] [options]",
    flags: API_RESOURCES_FLAGS,
    run: api_resources,
};

pub const VERSION: Command = Command {
    name: "version",
    summary: "Print the client and server version information",
    usage: "kubectl version [flags] [options]",
    flags: VERSION_FLAGS,
    run: version,
};

const API_RESOURCES_FLAGS: &[Flag] = &[
    value("output", Some('o')),
    switch("no-headers", None),
    value("api-group", None),
    switch("namespaced", None),
    value("verbs", None),
    value("categories", None),
    value("sort-by", None),
    switch("cached", None),
];

const VERSION_FLAGS: &[Flag] = &[switch("client", None), value("output", Some('o'))];

/// A mapping whose fields keep the order given (the API's order, which `-o json` and `-o yaml` print).
fn fields(entries: Vec<(&str, Value)>) -> Value {
    Value::Mapping(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

fn texts(list: &[&str]) -> Value {
    Value::Sequence(list.iter().map(|s| text(s)).collect())
}

/// `metav1.APIResource` as `-o json|yaml` prints it (an empty group, short names or categories left out).
fn api_resource(r: &Resource) -> Value {
    let mut f = vec![
        ("name", text(r.kind.plural())),
        ("singularName", text(r.singular)),
        ("namespaced", Value::Bool(r.kind.namespaced())),
    ];
    if !r.group.is_empty() {
        f.push(("group", text(r.group)));
    }
    f.extend([("version", text(r.version)), ("kind", text(r.kind.name())), ("verbs", texts(r.verbs))]);
    if !r.short_names.is_empty() {
        f.push(("shortNames", texts(r.short_names)));
    }
    let categories = categories(r);
    if !categories.is_empty() {
        f.push(("categories", texts(categories)));
    }
    fields(f)
}

/// The categories a resource belongs to (`kubectl get all`).
fn categories(r: &Resource) -> &'static [&'static str] {
    if super::resource::ALL_CATEGORY.contains(&r.kind) {
        &["all"]
    } else {
        &[]
    }
}

fn group_version(r: &Resource) -> String {
    if r.group.is_empty() {
        r.version.to_string()
    } else {
        format!("{}/{}", r.group, r.version)
    }
}

fn list(words: Option<&str>) -> Vec<String> {
    words.map(|w| w.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect()).unwrap_or_default()
}

fn api_resources(_: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    if !args.positional.is_empty() {
        return Err(Output::error(format!(
            "unexpected arguments: [{}]\nSee 'kubectl api-resources -h' for help and examples",
            args.positional.join(" ")
        )));
    }
    let sort = args.value("sort-by").unwrap_or("");
    if !["", "name", "kind"].contains(&sort) {
        return Err(Output::error("--sort-by accepts only name or kind"));
    }
    let output = args.value("output").unwrap_or("");
    if !["", "wide", "name", "json", "yaml"].contains(&output) {
        return Err(Output::error(format!(
            "unable to match a printer suitable for the output format \"{output}\", allowed formats are: json,name,wide,yaml"
        )));
    }
    let verbs = list(args.value("verbs"));
    let cats = list(args.value("categories"));
    let mut rs: Vec<&Resource> = resources()
        .filter(|r| args.value("api-group").is_none_or(|g| g == r.group))
        .filter(|r| !args.has("namespaced") || args.bool("namespaced") == r.kind.namespaced())
        .filter(|r| verbs.iter().all(|v| r.verbs.contains(&v.as_str())))
        .filter(|r| cats.iter().all(|c| categories(r).contains(&c.as_str())))
        .collect();
    // Stable sort by group (or name, or kind), ties by name: kubectl's sortableResource.
    crate::sort::sort_by(&mut rs, |a, b| {
        let key = |r: &Resource| match sort {
            "name" => r.kind.plural().to_string(),
            "kind" => r.kind.name().to_string(),
            _ => r.group.to_string(),
        };
        key(a).cmp(&key(b)).then_with(|| a.kind.plural().cmp(b.kind.plural()))
    });
    match output {
        "name" => {
            let mut out = String::new();
            for r in &rs {
                out.push_str(r.kind.plural());
                if !r.group.is_empty() {
                    out.push('.');
                    out.push_str(r.group);
                }
                out.push('\n');
            }
            Ok(Output::ok(out))
        }
        "json" | "yaml" => {
            // `metav1.APIResourceList`.
            let doc = fields(vec![
                ("kind", text("APIResourceList")),
                ("apiVersion", text("v1")),
                ("groupVersion", text("")),
                ("resources", Value::Sequence(rs.iter().map(|r| api_resource(r)).collect())),
            ]);
            Ok(Output::ok(render(&doc, output)))
        }
        _ => {
            let wide = output == "wide";
            let mut rows = Vec::new();
            if !args.bool("no-headers") {
                let mut h: Vec<String> =
                    ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"].map(String::from).to_vec();
                if wide {
                    h.extend(["VERBS", "CATEGORIES"].map(String::from));
                }
                rows.push(h);
            }
            for r in &rs {
                let mut row = vec![
                    r.kind.plural().to_string(),
                    r.short_names.join(","),
                    group_version(r),
                    r.kind.namespaced().to_string(),
                    r.kind.name().to_string(),
                ];
                if wide {
                    row.push(r.verbs.join(","));
                    row.push(categories(r).join(","));
                }
                rows.push(row);
            }
            Ok(Output::ok(table::render(&rows)))
        }
    }
}

fn render(doc: &Value, output: &str) -> String {
    if output == "json" {
        format!("{}\n", serde_json::to_string_pretty(doc).unwrap_or_default())
    } else {
        crate::yamlwrite::to_string(doc).unwrap_or_default()
    }
}

/// The kubectl kubeloop plays: the release the simulated kubelets report.
pub const CLIENT_VERSION: &str = KUBELET_VERSION;
/// The kustomize that kubectl release bundles.
pub const KUSTOMIZE_VERSION: &str = "v5.7.1";

/// The API server's version: the kubelets' release, marked as kubeloop's.
pub fn server_version() -> String {
    format!("{KUBELET_VERSION}-kubeloop")
}

/// `version.Info`, fields in apimachinery's order (the server's with its emulated and minimum compatibility
/// versions).
fn version_info(git_version: &str, server: bool) -> Value {
    let core = git_version.trim_start_matches('v');
    let mut parts = core.split(['.', '-']);
    let major = parts.next().unwrap_or("1");
    let minor = parts.next().unwrap_or("0");
    let mut f = vec![("major", text(major)), ("minor", text(minor))];
    if server {
        let min_compat = minor.parse::<u32>().map(|m| m.saturating_sub(1).to_string()).unwrap_or_default();
        f.extend([
            ("emulationMajor", text(major)),
            ("emulationMinor", text(minor)),
            ("minCompatibilityMajor", text(major)),
            ("minCompatibilityMinor", text(&min_compat)),
        ]);
    }
    f.extend([
        ("gitVersion", text(git_version)),
        ("gitCommit", text("kubeloop")),
        ("gitTreeState", text("clean")),
        ("buildDate", text("2026-01-01T00:00:00Z")),
        ("goVersion", text("none: kubeloop is written in Rust")),
        ("compiler", text("rustc")),
        ("platform", text("kubeloop/simulated")),
    ]);
    fields(f)
}

fn version(_: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    if !args.positional.is_empty() {
        return Err(Output::error(format!("extra arguments: [{}]", args.positional.join(" "))));
    }
    let output = args.value("output").unwrap_or("");
    if !["", "json", "yaml"].contains(&output) {
        return Err(Output::error("--output must be 'yaml' or 'json'"));
    }
    let client = args.bool("client");
    let server = server_version();
    match output {
        "" => {
            let mut out = format!("Client Version: {CLIENT_VERSION}\nKustomize Version: {KUSTOMIZE_VERSION}\n");
            if !client {
                out.push_str(&format!("Server Version: {server}\n"));
            }
            Ok(Output::ok(out))
        }
        _ => {
            let mut f = vec![
                ("clientVersion", version_info(CLIENT_VERSION, false)),
                ("kustomizeVersion", text(KUSTOMIZE_VERSION)),
            ];
            if !client {
                f.push(("serverVersion", version_info(&server, true)));
            }
            let doc = fields(f);
            // kubectl prints the marshalled document with Println: YAML ends with a blank line.
            let text = render(&doc, output);
            Ok(Output::ok(if output == "yaml" { format!("{text}\n") } else { text }))
        }
    }
}
