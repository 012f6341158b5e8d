//! `kubectl get`'s template forms and sorting: `-o jsonpath=` (cli-runtime's `JSONPathPrintFlags` and
//! `JSONPathPrinter`), `-o custom-columns=` (kubectl's `CustomColumnsPrinter`) and `--sort-by` (`SortingPrinter`,
//! `RuntimeSort`, `TableSorter`), all walking the JSON `-o json` prints with [`crate::kubectl::jsonpath`].

use std::cmp::Ordering;
use std::rc::Rc;

use serde_json::Value;

use super::super::args::Args;
use super::super::jsonpath::{self, go_quote, go_syntax, go_v_string, relaxed, Item, JsonPath};
use super::super::{Budget, Input, Output};
use super::Format;
use crate::api::{Object, Quantity};
use crate::manifest::ObjectText;

/// Every `-o` value kubectl get knows (`PrintFlags.AllowedFormats`), for its error.
const ALLOWED: &str = "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml";
const JSONPATH_FORMATS: &[&str] = &["jsonpath", "jsonpath-file", "jsonpath-as-json"];
const GO_TEMPLATE_FORMATS: &[&str] = &["go-template", "go-template-file", "template", "templatefile"];
const COLUMNS_FORMATS: &[&str] = &["custom-columns", "custom-columns-file"];

/// A `-o jsonpath` printer.
#[derive(Debug)]
pub(super) struct Template {
    path: JsonPath,
    text: String,
    as_json: bool,
    allow_missing: bool,
}

/// A `-o custom-columns` printer: each column's header and its (relaxed) JSONPath.
#[derive(Debug)]
pub(super) struct Columns {
    columns: Vec<(String, String)>,
    pub(super) no_headers: bool,
}

/// The format and its value for one family of template formats (`jsonpath=T`, or `-o jsonpath --template=T`),
/// as `ToPrinter` finds them.
fn template_of<'a>(output: &'a str, template: &'a str, formats: &[&'static str]) -> Option<(&'static str, &'a str)> {
    let f = |o: &str| formats.iter().copied().find(|f| *f == o);
    if template.is_empty() {
        for format in formats {
            if let Some(v) = output.strip_prefix(format).and_then(|r| r.strip_prefix('=')) {
                return Some((format, v));
            }
        }
        f(output).map(|f| (f, ""))
    } else {
        f(output).map(|f| (f, template))
    }
}

/// `-o` (and `--template`) read as get's `PrintFlags.ToPrinter` reads them; the error is kubectl's.
pub(super) fn get_format(args: &Args, input: &Input) -> Result<Format, Output> {
    let template = args.value("template").unwrap_or("");
    let output = match args.value("output").unwrap_or("") {
        "" if !template.is_empty() => "go-template",
        o => o,
    };
    if let Some((format, value)) = template_of(output, template, JSONPATH_FORMATS) {
        if value.is_empty() {
            return Err(Output::error("template format specified but no template given"));
        }
        let text = if format == "jsonpath-file" {
            (input.read_file)(value).map_err(|e| Output::error(format!("error reading --template {value}, {e}")))?
        } else {
            value.to_string()
        };
        let path = jsonpath::parse(&text).map_err(|e| Output::error(format!("error parsing jsonpath {text}, {e}")))?;
        let allow_missing = args.value("allow-missing-template-keys") != Some("false");
        let as_json = format == "jsonpath-as-json";
        return Ok(Format::JsonPath(Rc::new(Template { path, text, as_json, allow_missing })));
    }
    if let Some((format, _)) = template_of(output, template, GO_TEMPLATE_FORMATS) {
        return Err(Output::error(format!(
            "-o {format} is not simulated by kubeloop: Go templates need Go's text/template; use -o jsonpath=TEMPLATE or -o custom-columns=SPEC"
        )));
    }
    match output {
        "" => return Ok(Format::Table),
        "wide" => return Ok(Format::Wide),
        "json" => return Ok(Format::Json),
        "yaml" => return Ok(Format::Yaml),
        "name" => return Ok(Format::Name),
        _ => {}
    }
    if let Some((format, value)) = template_of(output, template, COLUMNS_FORMATS) {
        if value.is_empty() {
            return Err(Output::error("custom-columns format specified but no custom columns given"));
        }
        let columns = if format == "custom-columns-file" {
            let text = (input.read_file)(value)
                .map_err(|e| Output::error(format!("error reading template {value}, {e}\n").trim_end()))?;
            Columns::from_file(&text)
        } else {
            Columns::from_spec(value, args.bool("no-headers"))
        };
        return columns.map(|c| Format::Columns(Rc::new(c))).map_err(Output::error);
    }
    Err(Output::error(format!(
        "unable to match a printer suitable for the output format \"{output}\", allowed formats are: {ALLOWED}"
    )))
}

impl Template {
    /// What the template prints for `data`, or kubectl's error (without `error: `). The text is charged to
    /// `budget` and left out when it does not fit; a text cut at the bound counts as left out.
    pub(super) fn print(&self, data: &Value, budget: &mut Budget) -> Result<String, String> {
        if budget.full() {
            budget.skip();
            return Ok(String::new());
        }
        match self.path.execute(data, self.allow_missing, self.as_json) {
            Ok((text, true)) => {
                budget.take(usize::MAX);
                Ok(text)
            }
            Ok((text, false)) => Ok(if budget.take(text.len()) { text } else { String::new() }),
            Err(e) => Err(format!(
                "error executing jsonpath {}: Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n",
                go_quote(&self.text),
                self.text,
                go_syntax(data)
            )),
        }
    }
}

impl Columns {
    /// `NewCustomColumnsPrinterFromSpec`: `HEADER:PATH,...`.
    fn from_spec(spec: &str, no_headers: bool) -> Result<Columns, String> {
        let mut columns = Vec::new();
        for part in spec.split(',') {
            let Some((header, path)) = part.split_once(':') else {
                return Err(format!("unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"));
            };
            columns.push((header.to_string(), relaxed(path)?));
        }
        Ok(Columns { columns, no_headers })
    }

    /// `NewCustomColumnsPrinterFromTemplate`: a line of headers, a line of paths, split on white space (always
    /// with headers: upstream's printer from a file ignores `--no-headers`).
    fn from_file(text: &str) -> Result<Columns, String> {
        let mut lines = text.lines();
        let headers: Vec<&str> = lines
            .next()
            .ok_or("invalid template, missing header line. Expected format is one line of space separated headers, one line of space separated column specs.")?
            .split_whitespace()
            .collect();
        let specs: Vec<&str> = lines
            .next()
            .ok_or("invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.")?
            .split_whitespace()
            .collect();
        if headers.len() != specs.len() {
            return Err(format!(
                "number of headers ({}) and field specifications ({}) don't match",
                headers.len(),
                specs.len()
            ));
        }
        let mut columns = Vec::new();
        for (h, s) in headers.into_iter().zip(specs) {
            columns.push((h.to_string(), relaxed(s)?));
        }
        Ok(Columns { columns, no_headers: false })
    }

    /// The header (when `header`) and a row per object while `budget` lasts; an error stops the rows (the
    /// header is printed before the columns are parsed, as upstream's).
    pub(super) fn rows(
        &self,
        objects: &[&Rc<Object>],
        header: bool,
        budget: &mut Budget,
    ) -> (Vec<Vec<String>>, Option<String>) {
        let mut rows = Vec::new();
        if header {
            rows.push(self.columns.iter().map(|(h, _)| h.clone()).collect());
        }
        let mut paths = Vec::new();
        for (_, spec) in &self.columns {
            match jsonpath::parse(spec) {
                Ok(p) => paths.push(p),
                Err(e) => return (rows, Some(e)),
            }
        }
        for o in objects {
            if budget.full() {
                budget.skip();
                continue;
            }
            let v = o.to_json();
            let mut row = Vec::new();
            for p in &paths {
                let values = match p.find(&v, true) {
                    Ok(values) => values,
                    Err(e) => return (rows, Some(e)),
                };
                let mut cells: Vec<String> = Vec::new();
                if values.first().is_none_or(|g| g.is_empty()) {
                    cells.push("<none>".into());
                }
                for item in values.iter().flatten() {
                    cells.push(go_v_string(item).replace('\u{1b}', "^[").replace('\r', "\\r"));
                }
                row.push(cells.join(","));
            }
            if budget.take(row.iter().map(|c| c.len() + 3).sum()) {
                rows.push(row);
            }
        }
        (rows, None)
    }
}

/// A sort key: the first value the field's path reaches in an object.
enum Key {
    /// Not there, or null: first.
    None,
    Int(i64),
    Float(f64),
    /// A string, and its value when it reads as a quantity (two quantities compare as quantities).
    Str(String, Option<Quantity>),
    /// A text of the template itself (a string kind: compared as text).
    Text(String),
    /// A map, a list or a bool: unsortable (their Go types).
    Bad(&'static str),
}

fn key_of(item: Option<&Item>) -> Key {
    match item {
        None | Some(Item::Json(Value::Null)) => Key::None,
        Some(Item::Json(Value::Number(n))) => match n.as_i64() {
            Some(i) => Key::Int(i),
            None => Key::Float(n.as_f64().unwrap_or(0.0)),
        },
        Some(Item::Json(Value::String(s))) => Key::Str(s.clone(), Quantity::parse(s).ok()),
        Some(Item::Text(s)) => Key::Text(s.to_string()),
        Some(Item::Int(i)) => Key::Int(*i),
        Some(Item::Float(f)) => Key::Float(*f),
        Some(Item::Byte(b)) => Key::Int(i64::from(*b)),
        Some(Item::Json(Value::Bool(_)) | Item::Bool(_)) => Key::Bad("bool"),
        Some(Item::Json(Value::Object(_))) => Key::Bad("map[string]interface {}"),
        Some(Item::Json(Value::Array(_))) => Key::Bad("[]interface {}"),
    }
}

fn compare(a: &Key, b: &Key) -> Ordering {
    match (a, b) {
        (Key::None, Key::None) => Ordering::Equal,
        (Key::None, _) => Ordering::Less,
        (_, Key::None) => Ordering::Greater,
        (Key::Int(x), Key::Int(y)) => x.cmp(y),
        (Key::Float(x), Key::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Key::Str(_, Some(x)), Key::Str(_, Some(y))) => x.cmp(y),
        (Key::Str(x, _), Key::Str(y, _)) | (Key::Text(x), Key::Text(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// `--sort-by`: sorts `objects` by the field, stably (upstream's `sort.Sort` is not stable: objects with equal
/// keys may come in any order there). `table`: the sorting of a Table's rows (`TableSorter`), else of a List's
/// items (`SortObjects`); their errors differ.
pub(super) fn sort_objects(objects: &mut Vec<Rc<Object>>, sort_by: &str, table: bool) -> Result<(), Output> {
    if objects.is_empty() {
        return Ok(());
    }
    let field = match relaxed(sort_by) {
        Ok(f) => f,
        Err(_) if table => sort_by.to_string(),
        Err(e) => return Err(Output::error(e)),
    };
    let path =
        jsonpath::parse(&field).map_err(|e| Output::error(if table { format!("sorting error: {e}") } else { e }))?;
    let mut keys = Vec::with_capacity(objects.len());
    for o in objects.iter() {
        let v = o.to_json();
        let results = path.find(&v, true).map_err(|e| {
            Output::error(if table {
                format!(
                    "Failed to get values for [][]reflect.Value(nil) using {field} (&errors.errorString{{s:{}}})",
                    go_quote(&e)
                )
            } else {
                e
            })
        })?;
        keys.push(key_of(results.first().and_then(|g| g.first())));
    }
    if keys.iter().all(|k| matches!(k, Key::None)) {
        return Err(Output::error(format!(
            "couldn't find any field with path {} in the list of objects",
            go_quote(&field)
        )));
    }
    // Two keys that cannot be compared end kubectl (klog.Exitf, printed here without klog's header).
    let present: Vec<&Key> = keys.iter().filter(|k| !matches!(k, Key::None)).collect();
    if present.len() > 1 {
        let bad = present.iter().find_map(|k| match k {
            Key::Bad(t) => Some(format!("unsortable type: {t}")),
            _ => None,
        });
        let same = |a: &Key, b: &Key| std::mem::discriminant(a) == std::mem::discriminant(b);
        let mixed = present.iter().any(|k| !same(k, present[0]));
        if let Some(err) = bad.or_else(|| mixed.then(|| "unsortable interface: interface".to_string())) {
            let within = if table { "[][][]reflect.Value" } else { "*unstructured.Unstructured" };
            return Err(Output {
                stderr: format!("Field {field} in {within} is an unsortable type: interface, err: {err}\n"),
                code: 1,
                ..Default::default()
            });
        }
    }
    let mut order: Vec<usize> = (0..objects.len()).collect();
    crate::sort::sort_by(&mut order, |&a, &b| compare(&keys[a], &keys[b]));
    let sorted: Vec<Rc<Object>> = order.iter().map(|&i| objects[i].clone()).collect();
    *objects = sorted;
    Ok(())
}
