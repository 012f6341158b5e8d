//! `kubectl explain RESOURCE[.field.path] [--recursive]` in kubectl's plaintext layout (pkg/explain/v2
//! templates), over exactly the fields kubeloop's manifests accept: the field names and their nesting come from
//! the manifest module's tables ([`manifest::schema_fields`], [`manifest::field_type`]), which build.rs writes from
//! `data/explain.tsv`, the file whose types and descriptions (upstream's, cut to their first sentences) explain
//! prints, so the two cannot drift. Each field says whether
//! kubeloop simulates it or only accepts it, found out by applying a probe manifest through the same parser
//! `kubectl apply` uses.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::args::{switch, value, Args, Flag};
use super::resource;
use super::{Command, Input, Output};
use crate::api::Kind;
use crate::manifest;
use crate::sim::Sim;

pub const COMMAND: Command = Command {
    name: "explain",
    summary: "Get documentation for a resource",
    usage: "kubectl explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [options]",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] =
    &[switch("recursive", Some('R')), value("max-depth", None), value("api-version", None), value("output", Some('o'))];

/// One field's documentation: its type as kubectl shows it, whether the API requires it, its enum values
/// (`|`-separated) and upstream's description (first sentences).
#[derive(Clone, Copy)]
struct FieldDoc {
    ty: &'static str,
    required: bool,
    enums: &'static str,
    desc: &'static str,
}

/// The documentation `data/explain.tsv` holds: each field's by its type, and each kind's.
#[derive(Default)]
struct Docs {
    fields: Vec<(&'static str, &'static str, FieldDoc)>,
    kinds: Vec<(&'static str, &'static str)>,
    /// `-h`'s line of each command's flags: (command, or `*` for the global flags; flag; line).
    flags: Vec<(&'static str, &'static str, &'static str)>,
}

/// The name of the documentation's file in the playground's site.
pub const DOCS_FILE: &str = "explain.tsv";

/// The documentation, once read. Native builds read the copy compiled into them on first use; the playground's
/// wasm carries none and is given the file's text by [`load_docs`].
static DOCS: std::sync::OnceLock<Docs> = std::sync::OnceLock::new();

/// Reads the text of `data/explain.tsv` into the documentation explain prints, once per process: later calls
/// change nothing. `Err`: the line that is not of the file's form (nothing is kept then).
pub fn load_docs(text: String) -> Result<(), String> {
    if DOCS.get().is_some() {
        return Ok(());
    }
    let docs = parse_docs(Box::leak(text.into_boxed_str()))?;
    let _ = DOCS.set(docs);
    Ok(())
}

/// Whether explain has its documentation ([`load_docs`]).
pub fn docs_loaded() -> bool {
    docs().is_some()
}

/// The `-h` line of flag `long` of command `command` (a global flag's when the command has none of its own);
/// `None` before the documentation is loaded.
pub fn flag_help(command: &str, long: &str) -> Option<&'static str> {
    let flags = &docs()?.flags;
    let line = |c: &str| flags.iter().find(|(fc, fl, _)| *fc == c && *fl == long).map(|(_, _, l)| *l);
    line(command).or_else(|| line("*"))
}

fn docs() -> Option<&'static Docs> {
    #[cfg(not(target_arch = "wasm32"))]
    if DOCS.get().is_none() {
        // Read in place: the compiled-in text is already static (no copy to leak, as `load_docs` makes).
        if let Ok(docs) = parse_docs(include_str!("../../data/explain.tsv")) {
            let _ = DOCS.set(docs);
        }
    }
    DOCS.get()
}

fn parse_docs(text: &'static str) -> Result<Docs, String> {
    let mut docs = Docs::default();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&'static str> = line.split('\t').collect();
        let [ty, field, kubectl_ty, flags, desc] = cols[..] else {
            return Err(format!("{DOCS_FILE}: line {}: {} columns, not 5", i + 1, cols.len()));
        };
        let desc = leak_breaks(desc);
        if ty == "kind" {
            docs.kinds.push((field, desc));
            continue;
        }
        if ty == "flag" {
            docs.flags.push((field, kubectl_ty, desc));
            continue;
        }
        let mut doc = FieldDoc { ty: kubectl_ty, required: false, enums: "", desc };
        for flag in flags.split(',').filter(|f| *f != "-") {
            match flag.strip_prefix("enum=") {
                Some(values) => doc.enums = values,
                None if flag == "required" => doc.required = true,
                // The schema type whose fields the value has, and the value the API server gives a stored kind's
                // field left out (build.rs's schema tables read them).
                None if flag.starts_with("as=") || flag.starts_with("default=") || flag == "format=int32" => {}
                None => return Err(format!("{DOCS_FILE}: line {}: unknown flag {flag:?}", i + 1)),
            }
        }
        docs.fields.push((ty, field, doc));
    }
    Ok(docs)
}

/// A description with its written `\n`s as line breaks (kept as it is when it has none).
fn leak_breaks(desc: &'static str) -> &'static str {
    if desc.contains("\\n") {
        Box::leak(desc.replace("\\n", "\n").into_boxed_str())
    } else {
        desc
    }
}

/// The documentation of field `field` of schema type `ty`.
fn field_doc(ty: &str, field: &str) -> Option<FieldDoc> {
    docs()?.fields.iter().find(|(t, f, _)| *t == ty && *f == field).map(|(_, _, d)| *d)
}

/// The description of a kind (the top of `kubectl explain KIND`).
fn kind_doc(kind: Kind) -> &'static str {
    let docs = docs().map_or(&[][..], |d| &d.kinds[..]);
    docs.iter().find(|(k, _)| *k == kind.name()).map_or("", |(_, d)| d)
}

const NOT_SIMULATED: &str = "kubeloop: accepted, not simulated (kubectl apply drops it with a warning).";
const SIMULATED: &str = "kubeloop: simulated.";
const STORED: &str = "kubeloop: stored and served by kubectl, not simulated further (kubectl apply says so).";
const STATUS: &str =
    "kubeloop: written by the simulated controllers and kubelet; ignored when applied. See it with `kubectl get -o yaml`.";

fn run(_: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    if args.positional.is_empty() {
        return Err(Output::error("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n"));
    }
    if args.positional.len() > 1 {
        return Err(Output::error("We accept only this format: explain RESOURCE\n"));
    }
    if !docs_loaded() {
        return Err(Output::error(format!(
            "kubeloop: explain's documentation ({DOCS_FILE}) is not loaded yet: the playground fetches it from its site the first time explain runs"
        )));
    }
    let max_depth = match args.int("max-depth") {
        Ok(d) => d.unwrap_or(0),
        Err(e) => return Err(Output::error(e)),
    };
    let recursive = args.bool("recursive");
    if max_depth > 0 && !recursive {
        return Err(Output::error("--max-depth requires --recursive"));
    }
    if max_depth < 0 {
        return Err(Output::error("--max-depth must be non-negative"));
    }
    if let Some(o) = args.value("output").filter(|o| *o != "plaintext") {
        return Err(Output::error(format!("unsupported output format: {o}; kubeloop prints plaintext")));
    }
    let arg = &args.positional[0];
    let mut segs = arg.split('.');
    let resource_name = segs.next().unwrap_or_default();
    let path: Vec<&str> = segs.collect();
    let kind = resource::kind_of(resource_name).map_err(Output::error)?;
    if let Some(v) = args.value("api-version") {
        if v != kind.api_version() {
            return Err(Output::error(format!("couldn't find resource for \"{}, Kind={}\"", v, kind.name())));
        }
    }
    let Some(root) = manifest::schema_type(kind) else {
        return Err(Output::error(format!(
            "kubeloop explains the kinds its manifests accept (Namespace, Node, Pod, ConfigMap, Secret, ServiceAccount, Service, Deployment, ReplicaSet), not {}",
            kind.name()
        )));
    };
    explain(kind, root, &path, recursive, max_depth as usize)
}

/// One step of a resolved path: the field, the type that holds it, its documentation.
struct Step<'a> {
    field: &'a str,
    parent: &'static str,
    doc: FieldDoc,
}

fn explain(kind: Kind, root: &'static str, path: &[&str], recursive: bool, max_depth: usize) -> Result<Output, Output> {
    let r = resource::resource(kind);
    let mut out = String::new();
    if !r.group.is_empty() {
        let _ = writeln!(out, "GROUP:      {}", r.group);
    }
    let _ = writeln!(out, "KIND:       {}", kind.name());
    let _ = writeln!(out, "VERSION:    {}\n", r.version);
    // Follow the path through the manifest tables.
    let mut ty: Option<&'static str> = Some(root);
    let mut steps: Vec<Step> = Vec::new();
    for (i, field) in path.iter().enumerate() {
        let parent = match ty {
            Some(t) if manifest::schema_fields(t).contains(field) => t,
            _ => {
                if steps.last().is_some_and(|s| s.field == "status") {
                    return Err(Output::error(format!(
                        "kubeloop does not explain the fields of status ({}): status is written by the simulated controllers and kubelet and ignored when applied; see it with `kubectl get -o yaml`",
                        path[..=i].join(".")
                    )));
                }
                return Err(Output::error(format!("field \"{field}\" does not exist")));
            }
        };
        let Some(doc) = field_doc(parent, field) else {
            return Err(Output::error(format!("field \"{field}\" does not exist")));
        };
        ty = if *field == "status" { None } else { manifest::field_type(parent, field) };
        steps.push(Step { field, parent, doc });
    }
    let description = match steps.last() {
        None => kind_doc(kind).to_string(),
        Some(last) => {
            let _ = writeln!(out, "FIELD: {} <{}>", last.field, last.doc.ty);
            if !last.doc.enums.is_empty() {
                out.push_str("ENUM:");
                for e in last.doc.enums.split('|') {
                    let _ = write!(out, "\n    {e}");
                }
            }
            out.push_str("\n\n");
            format!("{}\n{}", last.doc.desc, note(kind, &steps))
        }
    };
    out.push_str("DESCRIPTION:\n");
    out.push_str(&indent(&wrap(&format!("{description}\n"), 76), 4));
    out.push('\n');
    if let Some(t) = ty {
        let prefix: Vec<&str> = steps.iter().map(|s| s.field).collect();
        let list = field_list(kind, &steps, t, &prefix, 1, recursive, max_depth);
        if !list.is_empty() {
            out.push_str("FIELDS:\n");
            out.push_str(&list);
        }
    }
    out.push('\n');
    Ok(Output::ok(out))
}

/// Whether kubeloop simulates the field at the end of `steps` (said in its description).
fn note(kind: Kind, steps: &[Step]) -> &'static str {
    if manifest::stored_only(kind).is_some() {
        return STORED;
    }
    if steps.is_empty() {
        return SIMULATED;
    }
    if steps.iter().any(|s| s.field == "status") {
        return STATUS;
    }
    if simulated(kind, steps) {
        SIMULATED
    } else {
        NOT_SIMULATED
    }
}

/// Applies a probe manifest that sets the field (and what its parents require) through `manifest::parse`: a
/// field kubeloop does not simulate comes back as a warning naming its path.
fn simulated(kind: Kind, steps: &[Step]) -> bool {
    if matches!(steps, [s] if s.field == "apiVersion" || s.field == "kind") {
        return true;
    }
    let mut doc = json!({ "apiVersion": kind.api_version(), "kind": kind.name(), "metadata": { "name": "probe" } });
    let mut pretty = Vec::new();
    {
        let mut cur = &mut doc;
        for (i, s) in steps.iter().enumerate() {
            let Some(obj) = cur.as_object_mut() else { return true };
            fill_required(obj, s.parent);
            pretty.push(s.field.to_string());
            if i + 1 == steps.len() {
                obj.insert(s.field.to_string(), sample(s.doc.ty));
                break;
            }
            let list = s.doc.ty.starts_with("[]");
            let slot = obj.entry(s.field.to_string()).or_insert_with(|| json!({}));
            if list {
                *slot = json!([{}]);
                pretty.push("0".to_string());
                cur = &mut slot[0];
            } else {
                if !slot.is_object() {
                    *slot = json!({});
                }
                cur = slot;
            }
        }
    }
    let text = crate::yamlwrite::json_to_string(&doc);
    let segments: Vec<&str> = pretty.iter().map(String::as_str).collect();
    let want = manifest::pretty_path(&segments);
    // A warning for the field, or for the field that holds it (a pod's `hostPath`, dropped with its own fields).
    let dropped = |w: &manifest::Warning| {
        want.strip_prefix(w.path.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    };
    match manifest::parse(&text) {
        Err(_) => true,
        Ok((_, warnings)) => !warnings.iter().any(dropped),
    }
}

/// Sets the required fields of an object of schema type `ty` to sample values.
fn fill_required(obj: &mut Map<String, Value>, ty: &str) {
    for field in manifest::schema_fields(ty) {
        if let Some(d) = field_doc(ty, field).filter(|d| d.required) {
            obj.entry(field.to_string()).or_insert_with(|| sample(d.ty));
        }
    }
}

fn sample(ty: &str) -> Value {
    match ty {
        "string" => json!("x"),
        "integer" | "IntOrString" => json!(1),
        "boolean" => json!(true),
        t if t.starts_with("[]") => json!([]),
        _ => json!({}),
    }
}

/// The `FIELDS:` list of type `ty` at indentation `level` (kubectl's fieldList / fieldDetail templates).
#[allow(clippy::too_many_arguments)]
fn field_list(
    kind: Kind,
    steps: &[Step],
    ty: &'static str,
    prefix: &[&str],
    level: usize,
    recursive: bool,
    max_depth: usize,
) -> String {
    let mut fields: Vec<&str> = manifest::schema_fields(ty).to_vec();
    crate::sort::sort(&mut fields);
    let pad = " ".repeat(level * 2);
    let mut out = String::new();
    for field in fields {
        let Some(doc) = field_doc(ty, field) else { continue };
        let _ = write!(out, "{pad}{field}\t<{}>", doc.ty);
        if doc.required {
            out.push_str(" -required-");
        }
        if !doc.enums.is_empty() {
            let shown: Vec<&str> = doc.enums.split('|').take(4).collect();
            let _ = write!(out, "\n{pad}enum: {}", shown.join(", "));
            if doc.enums.split('|').count() > 4 {
                out.push_str(", ....");
            }
        }
        out.push('\n');
        let child = (field != "status").then(|| manifest::field_type(ty, field)).flatten();
        let mut path: Vec<Step> = steps.iter().map(|s| Step { field: s.field, parent: s.parent, doc: s.doc }).collect();
        path.push(Step { field, parent: ty, doc });
        if recursive {
            if let Some(c) = child {
                if max_depth == 0 || level < max_depth {
                    let mut p = prefix.to_vec();
                    p.push(field);
                    out.push_str(&field_list(kind, &path, c, &p, level + 1, recursive, max_depth));
                }
            }
        } else {
            let text = format!("{}\n{}", doc.desc, note(kind, &path));
            out.push_str(&indent(&wrap(&text, 78 - level * 2), level * 2 + 2));
            out.push_str("\n\n");
        }
    }
    out
}

/// sprig's `wrap`: words wrapped at `width` columns, each line of the text on its own.
fn wrap(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut cur = String::new();
        for word in line.split(' ') {
            if !cur.is_empty() && cur.len() + 1 + word.len() > width {
                out.push(std::mem::take(&mut cur));
            } else if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out.join("\n")
}

/// sprig's `indent`: `n` spaces before every line (also the empty line after a final newline).
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field the manifests accept is documented here: the two tables cannot drift apart.
    #[test]
    fn every_accepted_field_is_documented() {
        let mut todo: Vec<&str> = manifest::applicable().filter_map(manifest::schema_type).collect();
        let mut seen = Vec::new();
        while let Some(ty) = todo.pop() {
            if seen.contains(&ty) {
                continue;
            }
            seen.push(ty);
            for field in manifest::schema_fields(ty) {
                assert!(field_doc(ty, field).is_some(), "{ty}.{field} has no documentation in explain.rs");
                if field != "status" {
                    if let Some(t) = manifest::field_type(ty, field) {
                        todo.push(t);
                    }
                }
            }
        }
        assert!(seen.len() > 10, "{seen:?}");
    }

    /// Every line of data/explain.tsv documents a field the manifests accept, or a kind they hold, once.
    #[test]
    fn every_documented_field_is_accepted() {
        let docs = docs().expect("the native build carries the documentation");
        for (i, (ty, field, _)) in docs.fields.iter().enumerate() {
            assert!(manifest::schema_fields(ty).contains(field), "{ty}.{field} is documented and not accepted");
            let again = docs.fields[..i].iter().any(|(t, f, _)| t == ty && f == field);
            assert!(!again, "{ty}.{field} is documented twice");
        }
        for (kind, _) in &docs.kinds {
            let held = manifest::applicable().any(|k| k.name() == *kind && manifest::schema_type(k).is_some());
            assert!(held, "kind {kind} is documented and not held by a manifest");
        }
        let explained = manifest::applicable().filter(|k| manifest::schema_type(*k).is_some()).count();
        assert_eq!(docs.kinds.len(), explained);
    }

    #[test]
    fn a_line_not_of_the_form_is_refused_with_its_number() {
        let e = parse_docs("# comment\nPod\tspec\tPodSpec\t-\tSpec.\nPod\tstatus\tPodStatus\n").err();
        assert_eq!(e.as_deref(), Some("explain.tsv: line 3: 3 columns, not 5"));
        let e = parse_docs("Pod\tspec\tPodSpec\toptional\tSpec.").err();
        assert_eq!(e.as_deref(), Some("explain.tsv: line 1: unknown flag \"optional\""));
        let d = parse_docs("Taint\teffect\tstring\trequired,enum=A|B\tOne.\\nTwo.").expect("read");
        let (_, _, doc) = d.fields[0];
        assert!(doc.required);
        assert_eq!((doc.enums, doc.desc), ("A|B", "One.\nTwo."));
    }

    #[test]
    fn wrap_and_indent_like_sprig() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(indent("a\nb\n", 2), "  a\n  b\n  ");
    }
}
