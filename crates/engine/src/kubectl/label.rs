//! `kubectl label` and `kubectl annotate`: a GET (or LIST) of each object, then a merge PATCH of its labels or
//! annotations. Label keys and values are checked by the API server (422 Invalid); values also by kubectl first.

use super::args::{switch, value, Args, Flag};
use super::delete::{select, server_error_line};
use super::dry_run::{self, DryRun};
use super::{Command, Input, Output};
use crate::api::{s, Labels, Object};
use crate::sim::Sim;
use crate::store::Subresource;

pub const LABEL: Command = Command {
    name: "label",
    summary: "Update the labels on a resource",
    usage:
        "kubectl label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
    flags: FLAGS,
    run: run_label,
};

pub const ANNOTATE: Command = Command {
    name: "annotate",
    summary: "Update the annotations on a resource",
    usage: "kubectl annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
    flags: FLAGS,
    run: run_annotate,
};

const FLAGS: &[Flag] = &[
    switch("overwrite", None),
    switch("list", None),
    switch("all", None),
    value("selector", Some('l')),
    dry_run::FLAG,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum What {
    Labels,
    Annotations,
}

fn run_label(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let dry = DryRun::of(args)?;
    dry_run::warned(args, run(sim, args, What::Labels, dry))
}

fn run_annotate(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let dry = DryRun::of(args)?;
    dry_run::warned(args, run(sim, args, What::Annotations, dry))
}

/// kubectl's GetResourcesAndPairs: resources first, then `k=v` / `k-` pairs.
pub(super) fn resources_and_pairs(words: &[String], pair_type: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let mut resources = Vec::new();
    let mut pairs = Vec::new();
    for w in words {
        let is_pair = (w.contains('=') && !w.starts_with('=')) || (w.ends_with('-') && w != "-");
        match (pairs.is_empty(), is_pair) {
            (_, true) => pairs.push(w.clone()),
            (true, false) => resources.push(w.clone()),
            (false, false) => return Err(format!("all resources must be specified before {pair_type} changes: {w}")),
        }
    }
    Ok((resources, pairs))
}

/// A label value as `validation.IsValidLabelValue` checks it: the error messages, joined by kubectl with `;`.
pub(super) fn label_value_errors(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    let ok_chars = v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let well_formed = v.is_empty() || (ok_chars && ends(v.chars().next()) && ends(v.chars().last()));
    if !well_formed {
        errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    errs
}

/// The new pairs (in argument order, last wins) and the keys to remove.
type Changes = (Vec<(String, String)>, Vec<String>);

fn parse_labels(specs: &[String]) -> Result<Changes, String> {
    let mut set: Vec<(String, String)> = Vec::new();
    let mut remove = Vec::new();
    for spec in specs {
        if spec.contains('=') {
            let parts: Vec<&str> = spec.split('=').collect();
            if parts.len() != 2 {
                return Err(format!("invalid label spec: {spec}"));
            }
            let errs = label_value_errors(parts[1]);
            if !errs.is_empty() {
                return Err(format!("invalid label value: {spec:?}: {}", errs.join(";")));
            }
            set.retain(|(k, _)| k != parts[0]);
            set.push((parts[0].to_string(), parts[1].to_string()));
        } else if let Some(k) = spec.strip_suffix('-') {
            remove.push(k.to_string());
        } else {
            return Err(format!("unknown label spec: {spec}"));
        }
    }
    if remove.iter().any(|r| set.iter().any(|(k, _)| k == r)) {
        return Err("can not both modify and remove a label in the same command".into());
    }
    Ok((set, remove))
}

fn parse_annotations(specs: &[String]) -> Result<Changes, String> {
    let mut set: Vec<(String, String)> = Vec::new();
    let mut remove = Vec::new();
    let mut invalid = Vec::new();
    for spec in specs {
        if spec.contains('=') && !spec.starts_with('=') {
            let (k, v) = spec.split_once('=').unwrap_or((spec, ""));
            set.retain(|(key, _)| key != k);
            set.push((k.to_string(), v.to_string()));
        } else if spec.ends_with('-') && spec != "-" {
            remove.push(spec[..spec.len() - 1].to_string());
        } else {
            invalid.push(spec.as_str());
        }
    }
    if !invalid.is_empty() {
        return Err(format!("invalid annotation format: {}", invalid.join(", ")));
    }
    let both: Vec<&str> = remove.iter().filter(|r| set.iter().any(|(k, _)| k == *r)).map(String::as_str).collect();
    if !both.is_empty() {
        return Err(format!(
            "can not both modify and remove the following annotation(s) in the same command: {}",
            both.join(", ")
        ));
    }
    Ok((set, remove))
}

fn run(sim: &mut Sim, args: &Args, what: What, dry: DryRun) -> Result<Output, Output> {
    let noun = if what == What::Labels { "label" } else { "annotation" };
    let (resources, pairs) = resources_and_pairs(&args.positional, noun).map_err(Output::error)?;
    let parsed = if what == What::Labels { parse_labels(&pairs) } else { parse_annotations(&pairs) };
    let (set, remove) = parsed.map_err(Output::error)?;
    let list = args.bool("list");
    if args.bool("all") && args.has("selector") {
        return Err(Output::error("cannot set --all and --selector at the same time"));
    }
    if resources.is_empty() {
        return Err(Output::error("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
    }
    if set.is_empty() && remove.is_empty() && !list {
        return Err(Output::error(format!("at least one {noun} update is required")));
    }
    let overwrite = args.bool("overwrite");
    let sel = select(sim, args, &resources, true)?;
    let mut out = Output::default();
    let mut errors: Vec<String> = Vec::new();
    for item in &sel.items {
        let Some(obj) = &item.obj else { continue };
        let current = match what {
            What::Labels => &obj.meta().labels,
            What::Annotations => &obj.meta().annotations,
        };
        if list {
            let header = match what {
                What::Labels => "labels",
                What::Annotations => "annotations",
            };
            let indent = if sel.single { "" } else { " " };
            if !sel.single {
                let group = item.kind.api_version().rsplit_once('/').map_or("", |(g, _)| g);
                out.stdout.push_str(&format!("Listing {header} for {}.{group}/{}:\n", item.kind.name(), item.key.name));
            }
            for (k, v) in current {
                out.stdout.push_str(&format!("{indent}{k}={v}\n"));
            }
            continue;
        }
        // --overwrite is false: a key with another value is an error (for this object; kubectl goes on).
        if !overwrite {
            let clashes: Vec<(&str, &str)> = set
                .iter()
                .filter_map(|(k, v)| current.get(k.as_str()).filter(|c| ***c != **v).map(|c| (k.as_str(), &**c)))
                .collect();
            if !clashes.is_empty() {
                match what {
                    What::Labels => {
                        for (k, c) in clashes {
                            errors.push(format!("error: '{k}' already has a value ({c}), and --overwrite is false"));
                        }
                    }
                    What::Annotations => {
                        let list: Vec<String> =
                            clashes.iter().map(|(k, c)| format!("'{k}' already has a value ({c})")).collect();
                        errors.push(format!(
                            "error: --overwrite is false but found the following declared annotation(s): {}",
                            list.join("; ")
                        ));
                    }
                }
                continue;
            }
        }
        if what == What::Labels && dry.sends() {
            for k in &remove {
                if !current.contains_key(k.as_str()) {
                    out.stdout.push_str(&format!("label {k:?} not found.\n"));
                }
            }
        }
        let mut next: Labels = current.clone();
        for (k, v) in &set {
            next.insert(s(k), s(v));
        }
        for k in &remove {
            next.remove(k.as_str());
        }
        let size = |l: &Labels| serde_json::to_string(l).map(|j| j.len()).unwrap_or(0);
        let verb = match what {
            What::Annotations => "annotated",
            What::Labels if next == *current => "not labeled",
            What::Labels if !overwrite && size(&next) < size(current) => "unlabeled",
            What::Labels => "labeled",
        };
        let name = format!("{}/{}", item.kind.resource_ref(), item.key.name);
        if !dry.sends() {
            out.stdout.push_str(&format!("{name} {verb} (dry run)\n"));
            continue;
        }
        let res = dry.send(sim, |api| {
            api.patch(item.kind, &item.key, Subresource::Main, |o: &mut Object| match what {
                What::Labels => o.meta_mut().labels = next,
                What::Annotations => o.meta_mut().annotations = next,
            })
        });
        match res {
            Ok(_) => out.stdout.push_str(&format!("{name} {verb}{}\n", dry.suffix())),
            Err(e) => errors.push(server_error_line(&e)),
        }
    }
    errors.extend(sel.errors.iter().cloned());
    out.fail_with(errors);
    Ok(out)
}
