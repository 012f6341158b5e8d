//! `kubectl get` (tables, `-o wide|yaml|json|name`, `-w`) and the newer `kubectl events`. Every read is an API
//! call under the user's client: LIST for a type, GET for a name, a WATCH for `-w`.

mod fields;
mod output;
pub(crate) mod printers;

use crate::manifest::ObjectText;
use std::rc::Rc;

use serde_json::Value;

use super::args::{switch, value, Args, Flag};
use super::resource::{kind_of, targets, Targets};
use super::table::Table;
use super::{api_error_line, namespace, Budget, Command, Follow, FollowPoll, Input, Output};
use crate::api::selector::parse_selector;
use crate::api::{Kind, LabelSelector, ObjKey, Object};
use crate::sim::Sim;
use crate::watch::{EventType, WatcherId};
use output::{Columns, Template};
use printers::RowOptions;

const GET_FLAGS: &[Flag] = &[
    switch("all-namespaces", Some('A')),
    switch("allow-missing-template-keys", None),
    switch("ignore-not-found", None),
    switch("no-headers", None),
    value("field-selector", None),
    value("output", Some('o')),
    value("selector", Some('l')),
    switch("show-labels", None),
    value("sort-by", None),
    value("template", None),
    switch("watch", Some('w')),
    switch("watch-only", None),
];

pub const COMMAND: Command = Command {
    name: "get",
    summary: "Display one or many resources",
    usage: "kubectl get [(-o|--output=)json|yaml|name|wide|custom-columns=...|custom-columns-file=...|jsonpath=...|jsonpath-file=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]",
    flags: GET_FLAGS,
    run: run_get,
};

const EVENTS_FLAGS: &[Flag] = &[
    switch("all-namespaces", Some('A')),
    value("for", None),
    switch("no-headers", None),
    value("output", Some('o')),
    value("types", None),
    switch("watch", Some('w')),
];

pub const EVENTS: Command = Command {
    name: "events",
    summary: "List events",
    usage:
        "kubectl events [(-o|--output=)json|yaml|name] [--for TYPE/NAME] [--watch] [--types=Normal,Warning] [options]",
    flags: EVENTS_FLAGS,
    run: run_events,
};

/// An `-o` value kubeloop prints.
#[derive(Clone, Debug)]
enum Format {
    Table,
    Wide,
    Yaml,
    Json,
    Name,
    /// `-o jsonpath=`, `jsonpath-file=`, `jsonpath-as-json=` (or `--template`).
    JsonPath(Rc<Template>),
    /// `-o custom-columns=`, `custom-columns-file=`.
    Columns(Rc<Columns>),
}

fn format_of(args: &Args, allowed: &[&str]) -> Result<Format, Output> {
    let f = match args.value("output") {
        None | Some("") => Format::Table,
        Some(v) if allowed.contains(&v) => match v {
            "wide" => Format::Wide,
            "yaml" => Format::Yaml,
            "json" => Format::Json,
            _ => Format::Name,
        },
        Some(v) => {
            return Err(Output::error(format!(
                "unable to match a printer suitable for the output format \"{v}\", allowed formats are: {}",
                allowed.join(",")
            )))
        }
    };
    Ok(f)
}

/// `-l`, parsed. The error is kubectl's output.
fn selector_of(args: &Args) -> Result<Option<LabelSelector>, Output> {
    match args.value("selector") {
        None => Ok(None),
        Some(s) => parse_selector(s).map(Some).map_err(Output::error),
    }
}

/// The objects of one requested type, in the order they came back.
struct Group {
    kind: Kind,
    objects: Vec<Rc<Object>>,
}

/// JSON as kubectl prints it (four-space indent, newline at the end).
pub(crate) fn json_text(v: &Value) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if v.serialize(&mut ser).is_err() {
        return String::new();
    }
    let mut s = String::from_utf8(buf).unwrap_or_default();
    s.push('\n');
    s
}

/// The JSON of each object while `budget` lasts (measured as compact JSON, a little under its printed size).
pub(crate) fn budgeted_json<'a>(objects: impl IntoIterator<Item = &'a Rc<Object>>, budget: &mut Budget) -> Vec<Value> {
    let mut out = Vec::new();
    for o in objects {
        if budget.full() {
            budget.skip();
            continue;
        }
        let v = o.to_json();
        let size = serde_json::to_vec(&v).map_or(0, |b| b.len());
        if budget.take(size + size / 2) {
            out.push(v);
        }
    }
    out
}

/// Table rows of `objects` while `budget` lasts (a row costs its cells and the padding between them).
pub(crate) fn budgeted_rows<'a, T: 'a>(
    objects: impl IntoIterator<Item = &'a T>,
    budget: &mut Budget,
    row: impl Fn(&T) -> Vec<String>,
) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for o in objects {
        if budget.full() {
            budget.skip();
            continue;
        }
        let r = row(o);
        if budget.take(r.iter().map(|c| c.len() + 3).sum()) {
            out.push(r);
        }
    }
    out
}

/// `kind: List` of `items`, as kubectl wraps several objects for `-o yaml|json`.
fn list_value(items: Vec<Value>) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("apiVersion".into(), "v1".into());
    m.insert("items".into(), Value::Array(items));
    m.insert("kind".into(), "List".into());
    let mut meta = serde_json::Map::new();
    meta.insert("resourceVersion".into(), "".into());
    m.insert("metadata".into(), Value::Object(meta));
    Value::Object(m)
}

/// YAML as kubectl prints it (go-yaml): a string that would read as another type (`"1"`, `"True"`, a timestamp)
/// is double-quoted, an empty one is `""`; other strings that cannot be plain stay single-quoted.
pub(crate) fn yaml_text(v: &Value) -> String {
    let s = crate::yamlwrite::json_to_string(v);
    s.lines().map(|l| format!("{}\n", go_quote(l))).collect()
}

fn go_quote(line: &str) -> String {
    let (head, val) = match line.find(": ") {
        Some(i) => line.split_at(i + 2),
        None => match line.trim_start().strip_prefix("- ") {
            Some(rest) => line.split_at(line.len() - rest.len()),
            None => return line.to_string(),
        },
    };
    let content = match val.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        Some(q) => q.replace("''", "'"),
        None if is_timestamp(val) => val.to_string(),
        None => return line.to_string(),
    };
    if content.is_empty() || is_timestamp(&content) || resolves_to_non_string(&content) {
        let escaped = content.replace('\\', "\\\\").replace('"', "\\\"");
        format!("{head}\"{escaped}\"")
    } else {
        line.to_string()
    }
}

fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// What YAML 1.1 would read as a bool, null or number.
fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", ".inf", ".Inf", ".INF", "-.inf", ".nan",
        ".NaN", ".NAN",
    ];
    WORDS.contains(&s) || s.parse::<f64>().is_ok() || s.parse::<i64>().is_ok()
}

fn run_get(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    let format = output::get_format(args, input)?;
    if args.bool("show-labels") {
        if let Some(o) = args.value("output").filter(|o| !o.is_empty() && *o != "wide") {
            return Err(Output::error(format!("--show-labels option cannot be used with {o} printer")));
        }
    }
    let sort_by = args.value("sort-by").filter(|s| !s.is_empty());
    let mut warnings = String::new();
    if sort_by.is_some() {
        if args.bool("watch") {
            warnings.push_str("warning: --watch requested, --sort-by will be ignored for watch events received\n");
        } else if args.bool("watch-only") {
            warnings.push_str("warning: --watch-only requested, --sort-by will be ignored\n");
        }
    }
    let selector = selector_of(args)?;
    let field_selector = match args.value("field-selector").filter(|f| !f.is_empty()) {
        Some(f) => Some(fields::FieldSelector::parse(f).map_err(|e| Output {
            stderr: format!("Error from server (BadRequest): {e}\n"),
            code: 1,
            ..Default::default()
        })?),
        None => None,
    };
    let targets = targets(&args.positional).map_err(Output::error)?;
    if matches!(&targets, Targets::ByType { kinds, .. } if kinds.is_empty()) {
        return Ok(Output {
            stderr: "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n\
                     error: Required resource not specified.\n\
                     Use \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\n\
                     See 'kubectl get -h' for help and examples\n"
                .into(),
            code: 1,
            ..Default::default()
        });
    }
    let named = match &targets {
        Targets::ByType { names, .. } => !names.is_empty(),
        Targets::ByName(_) => true,
    };
    if named && (selector.is_some() || field_selector.is_some()) {
        return Err(Output::error(match targets {
            Targets::ByName(_) => "selectors and the all flag cannot be used when passing resource/name arguments",
            Targets::ByType { .. } => "name cannot be provided when a selector is specified",
        }));
    }
    let all_ns = args.bool("all-namespaces");
    let ns = namespace(args);
    let watch = args.bool("watch") || args.bool("watch-only");
    let kinds: Vec<Kind> = match &targets {
        Targets::ByType { kinds, .. } => kinds.clone(),
        Targets::ByName(pairs) => {
            let mut ks: Vec<Kind> = Vec::new();
            for (k, _) in pairs {
                if !ks.contains(k) {
                    ks.push(*k);
                }
            }
            ks
        }
    };
    if watch && kinds.len() > 1 {
        return Err(Output::error(format!(
            "watch is only supported on individual resources and resource collections, but {} resources were found",
            kinds.len()
        )));
    }
    let ignore_not_found = args.bool("ignore-not-found");
    let key = |kind: Kind, name: &str| {
        if kind.namespaced() {
            ObjKey::new(&ns, name)
        } else {
            ObjKey::cluster(name)
        }
    };

    // The API calls.
    let mut groups: Vec<Group> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut list_rv = 0;
    let mut single_item = false;
    {
        let mut push = |kind: Kind, obj: Option<Rc<Object>>| match groups.last_mut() {
            Some(g) if g.kind == kind => g.objects.extend(obj),
            _ => groups.push(Group { kind, objects: obj.into_iter().collect() }),
        };
        let mut fetch = |kind: Kind, name: &str, push: &mut dyn FnMut(Kind, Option<Rc<Object>>)| {
            let k = key(kind, name);
            match sim.as_user(|api| api.get(kind, &k)) {
                Ok(o) => push(kind, Some(o)),
                Err(e) => {
                    push(kind, None);
                    if !(ignore_not_found && e.is_not_found()) {
                        errors.push(api_error_line(&e));
                    }
                }
            }
        };
        match &targets {
            Targets::ByType { kinds, names } if names.is_empty() => {
                for &kind in kinds {
                    if let Some(f) = &field_selector {
                        if let Some(key) = f.unsupported(kind) {
                            let label = args.value("selector").unwrap_or("");
                            return Ok(Output {
                                stderr: format!("{}\n", fields::unsupported_error(kind, label, f, key)),
                                code: 1,
                                ..Default::default()
                            });
                        }
                    }
                    let scope = if all_ns || !kind.namespaced() { None } else { Some(ns.as_str()) };
                    let (mut objs, rv) = sim.as_user(|api| api.list(kind, scope, selector.as_ref()));
                    if let Some(f) = &field_selector {
                        objs.retain(|o| f.matches(o));
                    }
                    list_rv = rv;
                    groups.push(Group { kind, objects: objs });
                }
            }
            Targets::ByType { kinds, names } => {
                single_item = kinds.len() == 1 && names.len() == 1;
                for &kind in kinds {
                    for n in names {
                        fetch(kind, n, &mut push);
                    }
                }
            }
            Targets::ByName(pairs) => {
                single_item = pairs.len() == 1;
                for (kind, n) in pairs {
                    fetch(*kind, n, &mut push);
                }
            }
        }
    }
    let generic = !matches!(format, Format::Table | Format::Wide);
    if let Some(field) = sort_by.filter(|_| !args.bool("watch-only")) {
        // Tables are sorted type by type (each LIST's Table, as the server returns it); the other forms sort the
        // one List they print. Objects named one by one are each a Table of their own: not reordered.
        if !generic && !named {
            for g in &mut groups {
                output::sort_objects(&mut g.objects, field, true)?;
            }
        } else if generic && !watch && !(single_item && groups.iter().map(|g| g.objects.len()).sum::<usize>() == 1) {
            let mut objs: Vec<Rc<Object>> = groups.iter().flat_map(|g| g.objects.iter().cloned()).collect();
            output::sort_objects(&mut objs, field, false)?;
            let kind = groups.first().map_or(Kind::Pod, |g| g.kind);
            groups = vec![Group { kind, objects: objs }];
        }
    }
    let mut stderr: String = errors.iter().map(|e| format!("{e}\n")).collect();
    let mut code = i32::from(!errors.is_empty());
    let opts = RowOptions {
        wide: matches!(format, Format::Wide),
        namespace: all_ns,
        with_kind: kinds.len() > 1,
        show_labels: args.bool("show-labels"),
    };
    let no_headers = args.bool("no-headers");
    let now = sim.now();
    let all: Vec<&Rc<Object>> = groups.iter().flat_map(|g| g.objects.iter()).collect();

    let mut stdout = String::new();
    let mut print_failed = false;
    let mut first_table = Table::new();
    let mut budget = Budget::new();
    if !args.bool("watch-only") {
        match &format {
            Format::JsonPath(t) => {
                if !(all.is_empty() && named) {
                    let text = if watch || (single_item && all.len() == 1) {
                        // `get -w` prints the objects one by one, as its watch does.
                        all.iter().map(|o| t.print(&o.to_json(), &mut budget)).collect()
                    } else {
                        let list = list_value(budgeted_json(all.iter().copied(), &mut budget));
                        let mut own = Budget::new();
                        let text = t.print(&list, &mut own);
                        stderr.push_str(&own.note());
                        text
                    };
                    match text {
                        Ok(text) => stdout = text,
                        Err(e) if watch => {
                            stderr.push_str(&format!("error: unable to output the provided object: {e}\n"));
                            print_failed = true;
                        }
                        Err(e) => {
                            stderr.push_str(&format!("error: {e}\n"));
                            print_failed = true;
                        }
                    }
                }
            }
            Format::Columns(c) => {
                let (rows, err) = c.rows(&all, !c.no_headers, &mut budget);
                stdout = first_table.render(&rows);
                if let Some(e) = err {
                    let e = if watch { format!("unable to output the provided object: {e}") } else { e };
                    stderr.push_str(&format!("error: {e}\n"));
                    print_failed = true;
                }
            }
            Format::Name => {
                for o in &all {
                    let line = format!("{}/{}\n", o.kind().resource_ref(), o.meta().name);
                    if budget.take(line.len()) {
                        stdout.push_str(&line);
                    }
                }
            }
            Format::Yaml | Format::Json => {
                if all.is_empty() && named {
                    // Only errors: nothing to print.
                } else {
                    let v = if single_item && all.len() == 1 {
                        all[0].to_json()
                    } else {
                        list_value(budgeted_json(all.iter().copied(), &mut budget))
                    };
                    stdout = if matches!(format, Format::Yaml) { yaml_text(&v) } else { json_text(&v) };
                }
            }
            Format::Table | Format::Wide => {
                for g in &groups {
                    if g.objects.is_empty() {
                        continue;
                    }
                    if !stdout.is_empty() && !no_headers {
                        stdout.push('\n');
                    }
                    let mut rows = Vec::new();
                    if !no_headers {
                        rows.push(printers::header(g.kind, opts));
                    }
                    rows.extend(budgeted_rows(&g.objects, &mut budget, |o| printers::row(o, now, opts)));
                    let mut t = Table::new();
                    stdout.push_str(&t.render(&rows));
                    first_table = t;
                }
            }
        }
        let printed_generic = matches!(format, Format::JsonPath(_) | Format::Columns(_));
        if stdout.is_empty() && errors.is_empty() && !ignore_not_found && !watch && !printed_generic {
            let namespaced = !all_ns && kinds.iter().all(|k| k.namespaced());
            if namespaced {
                stderr.push_str(&format!("No resources found in {ns} namespace.\n"));
            } else {
                stderr.push_str("No resources found\n");
            }
        }
    }
    stderr.push_str(&budget.note());
    if print_failed {
        code = 1;
    }
    let mut out = Output { warnings, stdout, stderr, code, ..Default::default() };
    if watch && !print_failed {
        let kind = kinds[0];
        let names: Vec<String> = match &targets {
            Targets::ByType { names, .. } => names.clone(),
            Targets::ByName(pairs) => pairs.iter().map(|(_, n)| n.clone()).collect(),
        };
        let from = if named { all.iter().map(|o| o.meta().resource_version).max().unwrap_or(list_rv) } else { list_rv };
        let from = if named && from == 0 { sim.store().resource_version() } else { from };
        match sim.user_watch(kind, from) {
            Ok(id) => {
                let no_headers = match &format {
                    Format::Columns(c) => c.no_headers,
                    _ => no_headers,
                };
                let header_done = no_headers || !out.stdout.is_empty();
                out.follow = Some(Box::new(GetWatch {
                    id: Some(id),
                    kind,
                    namespace: if all_ns || !kind.namespaced() { None } else { Some(ns) },
                    selector,
                    field_selector,
                    names,
                    opts,
                    format,
                    table: first_table,
                    header_done,
                    printed: !out.stdout.is_empty(),
                }));
            }
            Err(e) => out.push(Output::api_error(&e)),
        }
    }
    Ok(out)
}

/// `get -w`: one row per change of the watched objects, aligned with the table printed first.
struct GetWatch {
    id: Option<WatcherId>,
    kind: Kind,
    namespace: Option<String>,
    selector: Option<LabelSelector>,
    field_selector: Option<fields::FieldSelector>,
    names: Vec<String>,
    opts: RowOptions,
    format: Format,
    table: Table,
    header_done: bool,
    printed: bool,
}

impl GetWatch {
    fn wants(&self, obj: &Object) -> bool {
        let m = obj.meta();
        self.namespace.as_deref().is_none_or(|ns| &*m.namespace == ns)
            && self.selector.as_ref().is_none_or(|s| s.matches(&m.labels))
            && self.field_selector.as_ref().is_none_or(|f| f.matches(obj))
            && (self.names.is_empty() || self.names.iter().any(|n| *n == *m.name))
    }
}

impl Follow for GetWatch {
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll {
        let Some(id) = self.id else { return FollowPoll { done: true, ..Default::default() } };
        let events = sim.drain_user_watch(id);
        let now = sim.now();
        let mut out = String::new();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut budget = Budget::new();
        for ev in events {
            if ev.type_ == EventType::Bookmark || ev.object.kind() != self.kind || !self.wants(&ev.object) {
                continue;
            }
            if budget.full() {
                budget.skip();
                continue;
            }
            match &self.format {
                Format::JsonPath(t) => match t.print(&ev.object.to_json(), &mut budget) {
                    Ok(text) => out.push_str(&text),
                    Err(e) => {
                        self.stop(sim);
                        let stderr = format!("error: {e}\n");
                        return FollowPoll { stdout: out, stderr, done: true, code: 1, ..Default::default() };
                    }
                },
                Format::Columns(c) => {
                    let (r, err) = c.rows(&[&ev.object], !self.header_done, &mut budget);
                    self.header_done = true;
                    rows.extend(r);
                    if let Some(e) = err {
                        out.push_str(&self.table.render(&rows));
                        self.stop(sim);
                        let stderr = format!("error: {e}\n");
                        return FollowPoll { stdout: out, stderr, done: true, code: 1, ..Default::default() };
                    }
                }
                Format::Table | Format::Wide => {
                    if !self.header_done {
                        rows.push(printers::header(self.kind, self.opts));
                        self.header_done = true;
                    }
                    let row = printers::row(&ev.object, now, self.opts);
                    if budget.take(row.iter().map(|c| c.len() + 3).sum()) {
                        rows.push(row);
                    }
                }
                Format::Name => {
                    let line = format!("{}/{}\n", ev.object.kind().resource_ref(), ev.object.meta().name);
                    if budget.take(line.len()) {
                        out.push_str(&line);
                    }
                }
                Format::Yaml => {
                    let text = yaml_text(&ev.object.to_json());
                    if budget.take(text.len() + 4) {
                        if self.printed {
                            out.push_str("---\n");
                        }
                        out.push_str(&text);
                        self.printed = true;
                    }
                }
                Format::Json => {
                    let text = json_text(&ev.object.to_json());
                    if budget.take(text.len()) {
                        out.push_str(&text);
                    }
                }
            }
        }
        if !rows.is_empty() {
            out.push_str(&self.table.render(&rows));
        }
        FollowPoll { stdout: out, stderr: budget.note(), ..Default::default() }
    }

    fn stop(&mut self, sim: &mut Sim) {
        if let Some(id) = self.id.take() {
            sim.stop_user_watch(id);
        }
    }
}

fn run_events(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let format = format_of(args, &["json", "name", "yaml"])?;
    let for_obj = match args.value("for") {
        None | Some("") => None,
        Some(v) => {
            let Some((t, n)) = v.split_once('/') else {
                return Err(Output::error("--for must be in resource/name form"));
            };
            if n.contains('/') {
                return Err(Output::error("arguments in resource/name form may not have more than one slash"));
            }
            match kind_of(t) {
                Ok(k) => Some((k, n.to_string())),
                Err(e) => return Err(Output::error(e)),
            }
        }
    };
    let types: Vec<String> =
        args.values("types").iter().flat_map(|v| v.split(',')).filter(|t| !t.is_empty()).map(String::from).collect();
    if types.iter().any(|t| !t.eq_ignore_ascii_case("Normal") && !t.eq_ignore_ascii_case("Warning")) {
        return Err(Output::error("valid --types are Normal or Warning"));
    }
    let all_ns = args.bool("all-namespaces");
    let ns = namespace(args);
    let filter = EventFilter { for_obj, types };
    let scope = if all_ns { None } else { Some(ns.as_str()) };
    let (items, rv) = sim.as_user(|api| api.list(Kind::Event, scope, None));
    let mut events: Vec<&Rc<Object>> = items.iter().filter(|o| filter.wants(o)).collect();
    crate::sort::sort_by_key(&mut events, |o| {
        (o.as_event().map_or(0, printers::event_time), o.meta().resource_version)
    });
    let now = sim.now();
    let no_headers = args.bool("no-headers");
    let mut out = Output::default();
    let mut tab = Table::new();
    let mut budget = Budget::new();
    match format {
        // format_of reads no template.
        Format::JsonPath(_) | Format::Columns(_) => {}
        Format::Name => {
            for o in &events {
                let line = format!("event/{}\n", o.meta().name);
                if budget.take(line.len()) {
                    out.stdout.push_str(&line);
                }
            }
        }
        Format::Yaml | Format::Json => {
            let mut m = serde_json::Map::new();
            m.insert("apiVersion".into(), "v1".into());
            m.insert("items".into(), Value::Array(budgeted_json(events.iter().copied(), &mut budget)));
            m.insert("kind".into(), "EventList".into());
            let mut meta = serde_json::Map::new();
            meta.insert("resourceVersion".into(), rv.to_string().into());
            m.insert("metadata".into(), Value::Object(meta));
            let v = Value::Object(m);
            if !events.is_empty() {
                out.stdout = if matches!(format, Format::Yaml) { yaml_text(&v) } else { json_text(&v) };
            }
        }
        Format::Table | Format::Wide => {
            let mut rows = Vec::new();
            if !events.is_empty() && !no_headers {
                rows.push(printers::events_header(all_ns));
            }
            let evs: Vec<&crate::api::Event> = events.iter().filter_map(|o| o.as_event()).collect();
            rows.extend(budgeted_rows(evs, &mut budget, |e| printers::events_row(e, now, all_ns)));
            if !rows.is_empty() {
                out.stdout = tab.render(&rows);
            }
        }
    }
    out.stderr.push_str(&budget.note());
    if events.is_empty() && !args.bool("watch") {
        out.stderr = if all_ns { "No events found.\n".into() } else { format!("No events found in {ns} namespace.\n") };
    }
    if args.bool("watch") {
        match sim.user_watch(Kind::Event, rv) {
            Ok(id) => {
                out.follow = Some(Box::new(EventsWatch {
                    id: Some(id),
                    namespace: scope.map(String::from),
                    filter,
                    all_ns,
                    table: tab,
                    header_done: no_headers || !events.is_empty(),
                }))
            }
            Err(e) => out.push(Output::api_error(&e)),
        }
    }
    Ok(out)
}

struct EventFilter {
    for_obj: Option<(Kind, String)>,
    types: Vec<String>,
}

impl EventFilter {
    fn wants(&self, o: &Object) -> bool {
        let Some(e) = o.as_event() else { return false };
        let io = &e.body.involved_object;
        self.for_obj.as_ref().is_none_or(|(k, n)| &*io.kind == k.name() && *io.name == **n)
            && (self.types.is_empty() || self.types.iter().any(|t| t.eq_ignore_ascii_case(&e.body.type_)))
    }
}

/// `kubectl events -w`: every new or updated event (never deletions), one row each.
struct EventsWatch {
    id: Option<WatcherId>,
    namespace: Option<String>,
    filter: EventFilter,
    all_ns: bool,
    table: Table,
    header_done: bool,
}

impl Follow for EventsWatch {
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll {
        let Some(id) = self.id else { return FollowPoll { done: true, ..Default::default() } };
        let now = sim.now();
        let mut rows = Vec::new();
        let mut budget = Budget::new();
        for ev in sim.drain_user_watch(id) {
            if matches!(ev.type_, EventType::Deleted | EventType::Bookmark) {
                continue;
            }
            if self.namespace.as_deref().is_some_and(|ns| *ev.object.meta().namespace != *ns)
                || !self.filter.wants(&ev.object)
            {
                continue;
            }
            let Some(e) = ev.object.as_event() else { continue };
            if !self.header_done {
                rows.push(printers::events_header(self.all_ns));
                self.header_done = true;
            }
            rows.extend(budgeted_rows([e], &mut budget, |e| printers::events_row(e, now, self.all_ns)));
        }
        let stdout = if rows.is_empty() { String::new() } else { self.table.render(&rows) };
        FollowPoll { stdout, stderr: budget.note(), ..Default::default() }
    }

    fn stop(&mut self, sim: &mut Sim) {
        if let Some(id) = self.id.take() {
            sim.stop_user_watch(id);
        }
    }
}
