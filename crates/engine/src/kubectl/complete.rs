//! Tab completion for the console: the candidates for the last word of a line, as cobra's `__complete` would
//! offer them. Command names, subcommands (`rollout status`, `top pods`, `set image`...), resource types
//! (plural names, else singular and short names), object names of the typed type (one counted LIST under the
//! user's client, in the namespace of `-n`), flags of the command, and values of `-n` and `-o`.

use super::args::{split_words, Flag, GLOBAL};
use super::resource::{kind_of, resources};
use super::COMMANDS;
use crate::api::Kind;
use crate::sim::Sim;

/// Completions of the last word of `line` (an empty word when the line ends in a space): whole words that may
/// replace it, sorted, without duplicates. A line with an unterminated quote has none.
pub fn complete(sim: &mut Sim, line: &str) -> Vec<String> {
    let Ok(mut words) = split_words(line) else { return Vec::new() };
    if words.is_empty() || line.ends_with(char::is_whitespace) {
        words.push(String::new());
    }
    let mut out = candidates(sim, &words);
    crate::sort::sort(&mut out);
    out.dedup();
    out
}

/// `words` ends with the word being completed (possibly empty).
fn candidates(sim: &mut Sim, words: &[String]) -> Vec<String> {
    let (cur, before) = match words.split_last() {
        Some((c, b)) => (c.as_str(), b),
        None => return Vec::new(),
    };
    if before.is_empty() {
        // The first word: `kubectl` itself, or a command (the leading `kubectl` is optional).
        let mut out = commands(cur);
        for alias in ["kubectl"] {
            if alias.starts_with(cur) {
                out.push(alias.to_string());
            }
        }
        return out;
    }
    let before: &[String] = match before[0].as_str() {
        "kubectl" | "k" => &before[1..],
        _ => before,
    };
    // Global flags may come before the command: `kubectl -n kube-system get po`.
    let mut i = 0;
    while i < before.len() && before[i].starts_with('-') {
        i += if takes_value(&before[i], GLOBAL) { 2 } else { 1 };
    }
    if i > before.len() {
        // `kubectl -n <TAB>`: the value of a global flag.
        return flag_values(sim, &before[before.len() - 1], GLOBAL, cur, &namespace_of(before));
    }
    let Some(cmd_name) = before.get(i) else {
        return if cur.starts_with('-') { flags(cur, GLOBAL, &[]) } else { commands(cur) };
    };
    let cmd_flags: &[Flag] = COMMANDS.iter().find(|c| c.name == cmd_name).map_or(&[], |c| c.flags);
    let ns = namespace_of(before);
    let all_ns = before.iter().any(|w| w == "-A" || w == "--all-namespaces");
    if let Some(prev) = before.last() {
        if prev.starts_with('-') && takes_value(prev, cmd_flags) {
            return flag_values(sim, prev, cmd_flags, cur, &ns);
        }
    }
    if cur.starts_with('-') {
        return flags(cur, cmd_flags, &ns_names(sim, cur));
    }
    // Positional words after the command, flags and their values skipped.
    let mut pos: Vec<&str> = Vec::new();
    let mut j = i + 1;
    while j < before.len() {
        let w = before[j].as_str();
        if w.starts_with('-') && w.len() > 1 {
            j += if takes_value(w, cmd_flags) { 2 } else { 1 };
            continue;
        }
        pos.push(w);
        j += 1;
    }
    let scope = if all_ns { None } else { Some(ns.as_str()) };
    positional(sim, cmd_name, &pos, cur, scope)
}

/// Command names starting with `prefix`.
fn commands(prefix: &str) -> Vec<String> {
    COMMANDS.iter().map(|c| c.name).chain(["help"]).filter(|n| n.starts_with(prefix)).map(String::from).collect()
}

/// Whether `word` is a flag whose value is the next word (`-n`, `--namespace`; not `--namespace=x` nor `-nx`).
fn takes_value(word: &str, flags: &[Flag]) -> bool {
    let all = || flags.iter().chain(GLOBAL);
    if let Some(long) = word.strip_prefix("--") {
        return !long.contains('=') && all().any(|f| f.long == long && f.value_in_next_word());
    }
    let body = &word[1.min(word.len())..];
    // A shorthand group takes the next word when its last letter is a value flag and nothing follows it.
    let mut chars = body.chars();
    let Some(last) = chars.next_back() else { return false };
    let value_flag = |c: char| all().any(|f| f.short == Some(c) && f.value_in_next_word());
    value_flag(last) && !chars.any(value_flag)
}

/// The long name of the flag `word` names (`-n` -> `namespace`).
fn long_name<'a>(word: &'a str, flags: &[Flag]) -> Option<&'a str> {
    let all = || flags.iter().chain(GLOBAL);
    if let Some(long) = word.strip_prefix("--") {
        return all().find(|f| f.long == long).map(|f| f.long);
    }
    let c = word.chars().last()?;
    all().find(|f| f.short == Some(c)).map(|f| f.long)
}

/// The namespace the words select (`-n x`, `-nx`, `--namespace x`, `--namespace=x`), else `default`.
fn namespace_of(words: &[String]) -> String {
    let mut ns = String::from("default");
    let mut it = words.iter().peekable();
    while let Some(w) = it.next() {
        if w == "-n" || w == "--namespace" {
            if let Some(v) = it.peek() {
                ns = v.to_string();
            }
        } else if let Some(v) = w.strip_prefix("--namespace=") {
            ns = v.to_string();
        } else if let Some(v) = w.strip_prefix("-n").filter(|v| !v.is_empty() && !w.starts_with("--")) {
            ns = v.trim_start_matches('=').to_string();
        }
    }
    ns
}

/// `--long` forms of the command's and the global flags starting with `cur`; `--namespace=x` completes the
/// namespace (given as `extra`, already prefixed).
fn flags(cur: &str, cmd_flags: &[Flag], extra: &[String]) -> Vec<String> {
    if cur.contains('=') {
        return extra.to_vec();
    }
    if !(cur == "-" || cur.starts_with("--")) {
        return Vec::new();
    }
    cmd_flags.iter().chain(GLOBAL).map(|f| format!("--{}", f.long)).filter(|f| f.starts_with(cur)).collect()
}

/// `--namespace=pre` -> `--namespace=NS` for namespaces starting with `pre`.
fn ns_names(sim: &mut Sim, cur: &str) -> Vec<String> {
    let Some(pre) = cur.strip_prefix("--namespace=") else { return Vec::new() };
    names(sim, Kind::Namespace, None, pre).into_iter().map(|n| format!("--namespace={n}")).collect()
}

/// Values of the flag `flag` (the previous word).
fn flag_values(sim: &mut Sim, flag: &str, cmd_flags: &[Flag], cur: &str, _ns: &str) -> Vec<String> {
    match long_name(flag, cmd_flags) {
        Some("namespace") => names(sim, Kind::Namespace, None, cur),
        Some("output") => {
            // get's template forms (`custom-columns=...`, `jsonpath=...`) only for the commands that print them.
            let templates: &[&str] = if cmd_flags.iter().any(|f| f.long == "sort-by") {
                &["custom-columns=", "custom-columns-file=", "jsonpath=", "jsonpath-as-json=", "jsonpath-file="]
            } else {
                &[]
            };
            ["json", "name", "wide", "yaml"]
                .iter()
                .chain(templates)
                .filter(|v| v.starts_with(cur))
                .map(|v| v.to_string())
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Candidates for a positional word, by command.
fn positional(sim: &mut Sim, cmd: &str, pos: &[&str], cur: &str, ns: Option<&str>) -> Vec<String> {
    const WORKLOADS: &[Kind] = &[Kind::Deployment, Kind::ReplicaSet, Kind::Pod];
    let words = |list: &[&str]| list.iter().filter(|w| w.starts_with(cur)).map(|w| w.to_string()).collect();
    match cmd {
        "get" | "describe" | "delete" | "label" | "annotate" => typed_names(sim, pos, cur, ns, None, cmd == "get"),
        "scale" => {
            typed_names(sim, pos, cur, ns, Some(&[Kind::Deployment, Kind::ReplicaSet, Kind::StatefulSet]), false)
        }
        "explain" if pos.is_empty() => types(cur, None, false),
        "rollout" if pos.is_empty() => words(&["history", "restart", "status", "undo"]),
        "rollout" => typed_names(sim, &pos[1..], cur, ns, Some(&[Kind::Deployment]), false),
        "top" if pos.is_empty() => words(&["nodes", "pods"]),
        "top" => match kind_of(pos[0]) {
            Ok(k @ (Kind::Pod | Kind::Node)) if pos.len() == 1 => names(sim, k, ns, cur),
            _ => Vec::new(),
        },
        "set" if pos.is_empty() => words(&["image"]),
        "set" if pos.len() == 1 || (pos.len() == 2 && !pos[1].contains('/')) => {
            typed_names(sim, &pos[1..], cur, ns, Some(WORKLOADS), false)
        }
        "cordon" | "uncordon" | "drain" => {
            names(sim, Kind::Node, None, cur).into_iter().filter(|n| !pos.contains(&n.as_str())).collect()
        }
        "taint" => typed_names(sim, pos, cur, ns, Some(&[Kind::Node]), false),
        "create" if pos.is_empty() => words(&["deployment", "namespace"]),
        "help" if pos.is_empty() => commands(cur),
        _ => Vec::new(),
    }
}

/// `TYPE NAME...` and `TYPE/NAME...` arguments: `pos` are the words already typed.
fn typed_names(
    sim: &mut Sim,
    pos: &[&str],
    cur: &str,
    ns: Option<&str>,
    allowed: Option<&[Kind]>,
    all: bool,
) -> Vec<String> {
    let ok = |k: Kind| allowed.is_none_or(|a| a.contains(&k));
    if let Some((t, pre)) = cur.split_once('/') {
        if pos.first().is_some_and(|p| !p.contains('/')) {
            return Vec::new();
        }
        return match kind_of(t) {
            Ok(k) if ok(k) => names(sim, k, ns, pre).into_iter().map(|n| format!("{t}/{n}")).collect(),
            _ => Vec::new(),
        };
    }
    let Some(first) = pos.first() else { return types(cur, allowed, all) };
    if first.contains('/') || first.contains(',') {
        return Vec::new();
    }
    match kind_of(first) {
        Ok(k) if ok(k) => names(sim, k, ns, cur).into_iter().filter(|n| !pos[1..].contains(&n.as_str())).collect(),
        _ => Vec::new(),
    }
}

/// Resource types starting with `prefix`: plural names (as kubectl's completion offers them), else singular
/// and short names (`rs`, `deploy`).
fn types(prefix: &str, allowed: Option<&[Kind]>, all: bool) -> Vec<String> {
    let prefix_lc = prefix.to_ascii_lowercase();
    let rs = resources().filter(|r| allowed.is_none_or(|a| a.contains(&r.kind)));
    let mut out: Vec<String> =
        rs.clone().map(|r| r.kind.plural()).filter(|p| p.starts_with(&prefix_lc)).map(String::from).collect();
    if all && "all".starts_with(&prefix_lc) {
        out.push("all".into());
    }
    if out.is_empty() {
        out = rs
            .flat_map(|r| r.short_names.iter().copied().chain([r.singular]))
            .filter(|n| n.starts_with(&prefix_lc))
            .map(String::from)
            .collect();
    }
    out
}

/// Names of `kind`'s objects starting with `prefix`: one LIST under the user's client, counted like any other.
fn names(sim: &mut Sim, kind: Kind, ns: Option<&str>, prefix: &str) -> Vec<String> {
    let ns = if kind.namespaced() { ns } else { None };
    let (objs, _) = sim.as_user(|api| api.list(kind, ns, None));
    objs.iter().map(|o| o.meta().name.to_string()).filter(|n| n.starts_with(prefix)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubectl;
    use crate::sim::SimConfig;

    fn c(sim: &mut Sim, line: &str) -> Vec<String> {
        complete(sim, line)
    }

    fn empty() -> Sim {
        Sim::new(SimConfig::default())
    }

    /// Two nodes, the web Deployment's pods bound, and a second namespace.
    fn cluster() -> Sim {
        let mut sim = empty();
        for _ in 0..2 {
            let t = sim.config().node_template.clone();
            sim.add_node(t).expect("node");
        }
        let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: nginx\n";
        kubectl::apply(&mut sim, web).expect("apply");
        kubectl::apply(&mut sim, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n").expect("ns");
        sim.run_until(30_000);
        sim
    }

    #[test]
    fn completion_offers_the_commands_and_subcommands_that_match_the_typed_prefix() {
        let mut sim = empty();
        assert_eq!(c(&mut sim, "kubectl ge"), ["get"]);
        assert_eq!(c(&mut sim, "ge"), ["get"]);
        assert_eq!(c(&mut sim, "kub"), ["kubectl"]);
        assert_eq!(c(&mut sim, "kubectl de"), ["delete", "describe"]);
        assert_eq!(c(&mut sim, "kubectl c"), ["cordon", "create"]);
        assert!(c(&mut sim, "kubectl ").len() >= COMMANDS.len());
        assert_eq!(c(&mut sim, "kubectl -n team-a ge"), ["get"]);
        assert_eq!(c(&mut sim, "kubectl rollout "), ["history", "restart", "status", "undo"]);
        assert_eq!(c(&mut sim, "kubectl rollout st"), ["status"]);
        assert_eq!(c(&mut sim, "kubectl top "), ["nodes", "pods"]);
        assert_eq!(c(&mut sim, "kubectl set i"), ["image"]);
        assert_eq!(c(&mut sim, "kubectl help sc"), ["scale"]);
        assert_eq!(c(&mut sim, "kubectl nope "), Vec::<String>::new());
        assert_eq!(c(&mut sim, "kubectl get 'po"), Vec::<String>::new(), "unterminated quote");
    }

    #[test]
    fn completion_offers_the_resource_types_a_command_accepts_by_prefix() {
        let mut sim = empty();
        assert_eq!(c(&mut sim, "kubectl get po"), ["poddisruptionbudgets", "pods"]);
        assert_eq!(c(&mut sim, "kubectl get pd"), ["pdb"], "no plural: the short name");
        assert_eq!(c(&mut sim, "kubectl get n"), ["namespaces", "networkpolicies", "nodes"]);
        assert_eq!(c(&mut sim, "kubectl get de"), ["deployments"]);
        assert_eq!(c(&mut sim, "kubectl get rs"), ["rs"], "no plural: the short name");
        assert_eq!(c(&mut sim, "kubectl get a"), ["all"]);
        assert_eq!(c(&mut sim, "kubectl describe a"), Vec::<String>::new());
        assert_eq!(c(&mut sim, "kubectl scale "), ["deployments", "replicasets", "statefulsets"]);
        assert_eq!(c(&mut sim, "kubectl rollout status "), ["deployments"]);
        assert_eq!(c(&mut sim, "kubectl explain re"), ["replicasets", "resourcequotas"]);
        assert_eq!(
            c(&mut sim, "kubectl get -n default p"),
            ["persistentvolumeclaims", "persistentvolumes", "poddisruptionbudgets", "pods", "priorityclasses"],
            "flag values are skipped"
        );
    }

    #[test]
    fn flags_and_their_values() {
        let mut sim = cluster();
        assert_eq!(c(&mut sim, "kubectl get pods --namesp"), ["--namespace"]);
        assert!(c(&mut sim, "kubectl get pods -").contains(&"--help".to_string()));
        assert_eq!(
            c(&mut sim, "kubectl get pods -n "),
            ["default", "kube-node-lease", "kube-public", "kube-system", "team-a"]
        );
        assert_eq!(c(&mut sim, "kubectl -n t"), ["team-a"]);
        assert_eq!(c(&mut sim, "kubectl get pods --namespace=t"), ["--namespace=team-a"]);
        assert_eq!(c(&mut sim, "kubectl get pods -x"), Vec::<String>::new());
    }

    #[test]
    fn object_names_through_a_counted_list() {
        let mut sim = cluster();
        let reads = sim.api_reads();
        let pods = c(&mut sim, "kubectl get pods ");
        assert_eq!(pods.len(), 2, "{pods:?}");
        assert!(pods.iter().all(|p| p.starts_with("web-")), "{pods:?}");
        assert!(sim.api_reads() > reads, "the LIST is counted");
        assert_eq!(c(&mut sim, &format!("kubectl delete pod {} ", pods[0])), [pods[1].clone()], "typed names drop out");
        assert_eq!(c(&mut sim, "kubectl get deploy w"), ["web"]);
        assert_eq!(c(&mut sim, "kubectl scale deploy/w"), ["deploy/web"]);
        assert_eq!(c(&mut sim, "kubectl rollout status deployment/"), ["deployment/web"]);
        assert_eq!(c(&mut sim, "k set image deploy/w"), ["deploy/web"]);
        assert_eq!(c(&mut sim, "kubectl get pods -n team-a "), Vec::<String>::new(), "another namespace");
        assert_eq!(c(&mut sim, "kubectl get pods -A ").len(), 2);
        assert_eq!(c(&mut sim, "kubectl get nodes -n team-a "), ["node-1", "node-2"], "nodes have no namespace");
        assert_eq!(c(&mut sim, "kubectl cordon "), ["node-1", "node-2"]);
        assert_eq!(c(&mut sim, "kubectl drain node-1 "), ["node-2"]);
        assert_eq!(c(&mut sim, "kubectl top nodes node-"), ["node-1", "node-2"]);
        assert_eq!(c(&mut sim, "kubectl taint nodes node-2"), ["node-2"]);
        assert_eq!(c(&mut sim, "kubectl get ns t"), ["team-a"]);
        assert_eq!(c(&mut sim, "kubectl get svc "), Vec::<String>::new());
    }
}
