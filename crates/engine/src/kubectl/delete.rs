//! `kubectl delete`, and the resource selection the mutating commands share (what cli-runtime's resource builder
//! does for them: `TYPE NAME...`, `TYPE/NAME...`, `TYPE -l SELECTOR`, `TYPE --all`, one GET per named object
//! or one LIST per type, errors collected and printed after the objects that were found).

use std::rc::Rc;

use super::args::{switch, value, Args, Flag};
use super::dry_run::{self, DryRun};
use super::resource::{targets, Targets};
use super::{api_error_line, namespace, Command, Follow, FollowPoll, Input, Output};
use crate::api::selector::parse_selector;
use crate::api::{Kind, ObjKey, Object, Str};
use crate::manifest::{self, Entry};
use crate::sim::Sim;
use crate::store::{ApiError, DeleteOptions, Propagation};
use crate::time::{Millis, SECOND};

pub const COMMAND: Command = Command {
    name: "delete",
    summary: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
    usage: "kubectl delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)]) [options]",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    value("filename", Some('f')),
    value("selector", Some('l')),
    switch("all", None),
    value("cascade", None),
    value("grace-period", None),
    switch("now", None),
    switch("force", None),
    switch("ignore-not-found", None),
    value("wait", None),
    value("output", Some('o')),
    dry_run::FLAG,
];

// ---- the selection shared by delete, scale, set, label, annotate, cordon -----------------------------------

/// One object a command names: its kind and key, and the object when it was read (GET or LIST).
#[derive(Clone, Debug)]
pub(super) struct Item {
    pub kind: Kind,
    pub key: ObjKey,
    pub obj: Option<Rc<Object>>,
}

/// What the arguments selected: the objects, the error lines for the ones that could not be read (printed after
/// the others' output, as kubectl's ContinueOnError visitor does), and whether one object was named explicitly
/// (`IntoSingleItemImplied`).
#[derive(Debug, Default)]
pub(super) struct Selection {
    pub items: Vec<Item>,
    pub errors: Vec<String>,
    pub single: bool,
    /// Objects were asked for by selector or `--all` (not by name).
    pub by_selector: bool,
}

impl Selection {
    /// The collected errors as an Output (stderr lines, exit code 1 if any).
    pub fn error_output(&self) -> Output {
        let mut out = Output::default();
        for e in &self.errors {
            out.stderr.push_str(e);
            out.stderr.push('\n');
            out.code = 1;
        }
        out
    }
}

/// kubectl's message when no resource is named.
pub(super) const NO_RESOURCES: &str = "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'";

/// A server error as kubectl's CheckErr prints it: `Error from server (NotFound): ...`, and for 422
/// `The Pod "x" is invalid: ...`.
pub(super) fn server_error_line(e: &ApiError) -> String {
    match e {
        ApiError::Invalid(invalid) => crate::limits::bound_message(&invalid.kubectl_message()).into_owned(),
        e => api_error_line(e),
    }
}

/// Resolves `words` (`TYPE NAME...`, `TYPE/NAME...`, `TYPE` with `-l`/`--all`) through the API. `fetch`: GET
/// every named object (kubectl's builder does unless the command asks it not to, as `delete` does). The error
/// is the whole Output to return.
pub(super) fn select(sim: &mut Sim, args: &Args, words: &[String], fetch: bool) -> Result<Selection, Output> {
    if words.is_empty() {
        return Err(Output::error(NO_RESOURCES));
    }
    let ns = namespace(args);
    let selector_text = args.value("selector");
    let all = args.bool("all");
    if all && selector_text.is_some() {
        return Err(Output::error("cannot set --all and --selector at the same time"));
    }
    let selector = match selector_text {
        Some(s) => match parse_selector(s) {
            Ok(sel) => Some(sel),
            Err(e) => return Err(Output::error(format!("unable to parse requirement: {e}"))),
        },
        None => None,
    };
    let mut out = Selection::default();
    let named: Vec<(Kind, String)> = match targets(words).map_err(Output::error)? {
        Targets::ByName(pairs) => {
            if selector.is_some() || all {
                return Err(Output::error(
                    "selectors and the all flag cannot be used when passing resource/name arguments",
                ));
            }
            pairs
        }
        Targets::ByType { kinds, names } => {
            if kinds.is_empty() {
                return Err(Output::error(NO_RESOURCES));
            }
            if !names.is_empty() {
                if selector.is_some() || all {
                    return Err(Output::error("name cannot be provided when a selector is specified"));
                }
                out.single = kinds.len() == 1 && names.len() == 1;
                kinds.iter().flat_map(|k| names.iter().map(move |n| (*k, n.clone()))).collect()
            } else if selector.is_some() || all {
                out.by_selector = true;
                for kind in kinds {
                    let scope = kind.namespaced().then_some(ns.as_str());
                    let (objs, _) = sim.as_user(|api| api.list(kind, scope, selector.as_ref()));
                    for o in objs {
                        out.items.push(Item { kind, key: o.key(), obj: Some(o) });
                    }
                }
                return Ok(out);
            } else {
                return Err(Output::error("resource(s) were provided, but no name was specified"));
            }
        }
    };
    if named.len() == 1 {
        out.single = true;
    }
    for (kind, name) in named {
        let key = if kind.namespaced() { ObjKey::new(&ns, &name) } else { ObjKey::cluster(&name) };
        if fetch {
            match sim.as_user(|api| api.get(kind, &key)) {
                Ok(o) => out.items.push(Item { kind, key, obj: Some(o) }),
                Err(e) => out.errors.push(server_error_line(&e)),
            }
        } else {
            out.items.push(Item { kind, key, obj: None });
        }
    }
    Ok(out)
}

/// `kubectl delete`'s `--cascade`: the propagation, and the deprecation warning for the boolean forms.
fn cascade(v: Option<&str>) -> Result<(Propagation, Option<String>), String> {
    let Some(v) = v else { return Ok((Propagation::Background, None)) };
    let warn = |to: &str| {
        Some(format!("warning: --cascade={v} is deprecated (boolean value) and can be replaced with --cascade={to}.\n"))
    };
    match v {
        "background" => Ok((Propagation::Background, None)),
        "foreground" => Ok((Propagation::Foreground, None)),
        "orphan" => Ok((Propagation::Orphan, None)),
        "true" | "1" | "t" | "T" | "TRUE" | "True" => Ok((Propagation::Background, warn("background"))),
        "false" | "0" | "f" | "F" | "FALSE" | "False" => Ok((Propagation::Orphan, warn("orphan"))),
        _ => Err(format!("invalid cascade value ({v}). Must be \"background\", \"foreground\", or \"orphan\"")),
    }
}

fn run(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    match dry_run::warned(args, delete(sim, args, input)) {
        Ok(out) | Err(out) => Ok(out),
    }
}

fn delete(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    let mut out = Output::default();
    let (propagation, warning) = cascade(args.value("cascade")).map_err(Output::error)?;
    if let Some(w) = warning {
        out.stderr.push_str(&w);
    }
    // kubectl's flag defaults to -1, "ignored if negative": typing -1 is the same as leaving it out, any other
    // value counts as given (for `--now`). Here an unset grace period is `None`, not a number.
    let typed = args.int("grace-period").map_err(Output::error)?;
    let mut grace = typed.filter(|g| *g >= 0);
    let force = args.bool("force");
    if args.bool("now") {
        if typed.is_some_and(|g| g != -1) {
            return Err(Output::error("--now and --grace-period cannot be specified together"));
        }
        grace = Some(1);
    }
    if grace == Some(0) && !force {
        // kubectl turns --grace-period=0 into 1 unless --force is given.
        grace = Some(1);
    }
    if force && grace.is_none() {
        grace = Some(0);
    }
    if grace == Some(0) && force {
        out.warn("Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.");
    } else if grace.is_some_and(|g| g > 0) && force {
        return Err(Output::error("--force and --grace-period greater than 0 cannot be specified together"));
    }
    let output = args.value("output").unwrap_or("");
    if !output.is_empty() && output != "name" {
        return Err(Output::error(format!("unexpected -o output mode: {output}. We only support '-o name'")));
    }
    let dry = DryRun::of(args)?;
    let wait = match args.value("wait") {
        None => true,
        Some(v) => match v {
            "true" | "1" | "t" | "T" | "TRUE" | "True" => true,
            "false" | "0" | "f" | "F" | "FALSE" | "False" => false,
            _ => {
                return Err(Output::error(format!(
                    "invalid argument \"{v}\" for \"--wait\" flag: strconv.ParseBool: parsing \"{v}\": invalid syntax"
                )))
            }
        },
    };
    // What kubectl visits, in order (an object, or the error that stands for it), and the errors of reading,
    // which its visitor reports last.
    let (steps, unread, by_selector) = if args.has("filename") {
        if !args.positional.is_empty() {
            return Err(Output::error(
                "when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well",
            ));
        }
        let (steps, unread) = from_files(args, input)?;
        (steps, unread, false)
    } else {
        let sel = select(sim, args, &args.positional, false)?;
        let items = sel.items.into_iter().map(|i| Ok((i, Rc::from(""))));
        (sel.errors.into_iter().map(Err).chain(items).collect(), Vec::new(), sel.by_selector)
    };
    let ignore_not_found = match args.value("ignore-not-found") {
        Some(v) => v == "true",
        None => by_selector,
    };
    let opts = DeleteOptions { grace_period_seconds: grace, propagation: Some(propagation), preconditions_uid: None };
    let mut gone: Vec<(Kind, ObjKey, Str)> = Vec::new();
    let mut errs = Vec::new();
    // Objects visited (kubectl counts each before it deletes it).
    let mut found = 0;
    for step in &steps {
        let (item, source) = match step {
            Ok(step) => step,
            Err(e) => {
                errs.push(e.clone());
                continue;
            }
        };
        found += 1;
        let print = |out: &mut Output| {
            let ref_ = item.kind.resource_ref();
            if output == "name" {
                out.stdout.push_str(&format!("{ref_}/{}\n", item.key.name));
            } else {
                let verb = if grace == Some(0) { "force deleted" } else { "deleted" };
                let suffix = dry.suffix();
                // kubectl 1.34 (staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go PrintObj): a namespaced
                // object's message names its namespace, before the dry-run note.
                let from = if item.kind.namespaced() {
                    format!(" from {} namespace", item.key.namespace)
                } else {
                    String::new()
                };
                out.stdout.push_str(&format!("{ref_} \"{}\" {verb}{from}{suffix}\n", item.key.name));
            }
        };
        if !dry.sends() {
            print(&mut out);
            continue;
        }
        match dry.send(sim, |api| api.delete(item.kind, &item.key, &opts)) {
            Ok(obj) => {
                print(&mut out);
                // A dry run deletes nothing: kubectl does not wait for it.
                if dry == DryRun::None {
                    gone.push((item.kind, item.key.clone(), obj.meta().uid.clone()));
                }
            }
            Err(e) if e.is_not_found() && ignore_not_found => {}
            // cmdutil.AddSourceToErr: an object read from a file or standard input names it.
            Err(e) if !source.is_empty() => {
                errs.push(format!("Error from server ({}): error when deleting {source:?}: {e}", e.reason()))
            }
            Err(e) => errs.push(server_error_line(&e)),
        }
    }
    errs.extend(unread);
    if !errs.is_empty() {
        // kubectl returns the errors at once: it neither says nothing was found nor waits for what it deleted.
        out.fail_with(errs);
        return Ok(out);
    }
    if found == 0 {
        out.stdout.push_str("No resources found\n");
    }
    if wait && !gone.is_empty() {
        out.follow = Some(Box::new(WaitGone::new(sim, gone)));
    }
    Ok(out)
}

/// `delete -f`: each object read (kubectl reads only its kind and metadata: the server's strict decoding is not
/// asked) with the name of what it was read from, in order, or the error that stands for it (no name: the
/// request cannot be made); then the errors of reading.
type Steps = Vec<Result<(Item, Rc<str>), String>>;

fn from_files(args: &Args, input: &Input) -> Result<(Steps, Vec<String>), Output> {
    let read = super::apply::read_files(args, input)?;
    let (mut steps, mut unread) = (Vec::new(), Vec::new());
    for entry in read.objects {
        if let Entry::Unbuilt(e) = entry {
            unread.push(e.to_string());
            continue;
        }
        let item = entry.into_read().and_then(|m| {
            manifest::named(&m, "delete")?;
            // The namespace is the command's when the document has none (`read_files`).
            let (kind, meta) = (m.object.kind(), m.object.meta());
            let ns = if kind.namespaced() { &*meta.namespace } else { "" };
            Ok((Item { kind, key: ObjKey::new(ns, &meta.name), obj: None }, m.source.clone()))
        });
        steps.push(item.map_err(|e| e.to_string()));
    }
    Ok((steps, unread))
}

/// `--wait=true`: kubectl returns when the deleted objects are gone (finalizers and graceful termination done).
/// Prints nothing; polls with a GET per object still there, once a second of simulated time.
pub(super) struct WaitGone {
    pending: Vec<(Kind, ObjKey, Str)>,
    next_check: Millis,
}

impl WaitGone {
    pub(super) fn new(sim: &Sim, pending: Vec<(Kind, ObjKey, Str)>) -> Self {
        WaitGone { pending, next_check: sim.now() }
    }
}

/// Whether an object is gone: GET says NotFound, or the name now belongs to a new object (another uid).
pub(super) fn is_gone(sim: &mut Sim, kind: Kind, key: &ObjKey, uid: &str) -> bool {
    match sim.as_user(|api| api.get(kind, key)) {
        Ok(o) => &*o.meta().uid != uid,
        Err(e) => e.is_not_found(),
    }
}

impl Follow for WaitGone {
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll {
        if sim.now() >= self.next_check {
            self.next_check = sim.now() + SECOND;
            let pending = std::mem::take(&mut self.pending);
            for (kind, key, uid) in pending {
                if !is_gone(sim, kind, &key, &uid) {
                    self.pending.push((kind, key, uid));
                }
            }
        }
        FollowPoll { done: self.pending.is_empty(), ..Default::default() }
    }

    fn stop(&mut self, _sim: &mut Sim) {
        self.pending.clear();
    }
}
