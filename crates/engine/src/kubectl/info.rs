//! `kubectl api-resources` (from the discovery facts in [`super::resource::RESOURCES`]) and `kubectl version`.

use serde::Serialize;

use super::args::{switch, value, Args, Flag};
use super::resource::{Resource, RESOURCES};
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
    value("output", Some('o'), "Output format. One of: (json, yaml, name, wide)."),
    switch(
        "no-headers",
        None,
        "When using the default or custom-column output format, don't print headers (default print headers).",
    ),
    value("api-group", None, "Limit to resources in the specified API group."),
    switch(
        "namespaced",
        None,
        "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.",
    ),
    value("verbs", None, "Limit to resources that support the specified verbs."),
    value("categories", None, "Limit to resources that belong to the specified categories."),
    value(
        "sort-by",
        None,
        "If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'.",
    ),
    switch("cached", None, "Use the cached list of resources if available."),
];

const VERSION_FLAGS: &[Flag] = &[
    switch("client", None, "If true, shows client version only (no server required)."),
    value("output", Some('o'), "One of 'yaml' or 'json'."),
];

/// `metav1.APIResourceList` as `-o json|yaml` prints it (fields in the API's order).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResourceList {
    kind: &'static str,
    api_version: &'static str,
    group_version: &'static str,
    resources: Vec<ApiResource>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResource {
    name: &'static str,
    singular_name: &'static str,
    namespaced: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    verbs: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    short_names: &'static [&'static str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    categories: &'static [&'static str],
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
    let mut rs: Vec<&Resource> = RESOURCES
        .iter()
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
            let resources: Vec<ApiResource> = rs
                .iter()
                .map(|r| ApiResource {
                    name: r.kind.plural(),
                    singular_name: r.singular,
                    namespaced: r.kind.namespaced(),
                    group: r.group,
                    version: r.version,
                    kind: r.kind.name(),
                    verbs: r.verbs,
                    short_names: r.short_names,
                    categories: categories(r),
                })
                .collect();
            let doc = ApiResourceList { kind: "APIResourceList", api_version: "v1", group_version: "", resources };
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

fn render<T: Serialize>(doc: &T, output: &str) -> String {
    if output == "json" {
        format!("{}\n", serde_json::to_string_pretty(doc).unwrap_or_default())
    } else {
        serde_yaml::to_string(doc).unwrap_or_default()
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

/// `version.Info`, fields in apimachinery's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info {
    major: String,
    minor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    emulation_major: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    emulation_minor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_compatibility_major: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_compatibility_minor: Option<String>,
    git_version: String,
    git_commit: &'static str,
    git_tree_state: &'static str,
    build_date: &'static str,
    go_version: &'static str,
    compiler: &'static str,
    platform: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionDoc {
    client_version: Info,
    kustomize_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_version: Option<Info>,
}

fn version_info(git_version: &str, server: bool) -> Info {
    let core = git_version.trim_start_matches('v');
    let mut parts = core.split(['.', '-']);
    let major = parts.next().unwrap_or("1").to_string();
    let minor = parts.next().unwrap_or("0").to_string();
    let min_compat = minor.parse::<u32>().map(|m| m.saturating_sub(1).to_string()).unwrap_or_default();
    Info {
        emulation_major: server.then(|| major.clone()),
        emulation_minor: server.then(|| minor.clone()),
        min_compatibility_major: server.then(|| major.clone()),
        min_compatibility_minor: server.then_some(min_compat),
        major,
        minor,
        git_version: git_version.to_string(),
        git_commit: "kubeloop",
        git_tree_state: "clean",
        build_date: "2026-01-01T00:00:00Z",
        go_version: "none: kubeloop is written in Rust",
        compiler: "rustc",
        platform: "kubeloop/simulated",
    }
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
            let doc = VersionDoc {
                client_version: version_info(CLIENT_VERSION, false),
                kustomize_version: KUSTOMIZE_VERSION,
                server_version: (!client).then(|| version_info(&server, true)),
            };
            // kubectl prints the marshalled document with Println: YAML ends with a blank line.
            let text = render(&doc, output);
            Ok(Output::ok(if output == "yaml" { format!("{text}\n") } else { text }))
        }
    }
}
