//! Manifests: multi-document YAML with real Kubernetes field names, parsed into typed objects. Every problem is
//! reported with its document and line (and column where the parser knows it); fields Kubernetes accepts but
//! kubeloop does not simulate are dropped with a warning naming their path; unknown fields are errors, as with
//! kubectl's strict field validation.

use std::fmt;
use std::rc::Rc;

use crate::admission;
use crate::api::{Kind, Object};
use crate::decode;
use crate::limits::{bound_message, echo, MAX_YAML_DOCUMENTS};
use crate::yamlcheck::{self, Refusal, Subject};
use crate::yamlpos::{nearest_line_of_path, split_documents_at_most, Doc, LineIndex};
use crate::yamltree::{self, Node};

/// The name kubectl gives standard input (`-f -`, the page's editor) in its messages.
pub const STDIN: &str = "STDIN";

/// A manifest problem, located in the text it was read from (a file, or the editor's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The file it was read from, when it is one (`None`: standard input, the editor's text).
    pub file: Option<Rc<str>>,
    /// 1-based index of the document (among the non-empty ones); 0 for a problem of the whole text.
    pub document: usize,
    /// 1-based line in the text.
    pub line: usize,
    pub column: Option<usize>,
    pub message: String,
}

impl ManifestError {
    /// An error whose message (which may repeat user text) is bounded ([`bound_message`]).
    pub fn new(document: usize, line: usize, column: Option<usize>, message: &str) -> ManifestError {
        ManifestError { file: None, document, line, column, message: bound_message(message).into_owned() }
    }

    /// The error of a text read from `source` (a file's name, or [`STDIN`]).
    pub fn in_file(self, source: &Rc<str>) -> ManifestError {
        ManifestError { file: (&**source != STDIN).then(|| source.clone()), ..self }
    }

    /// The same place, another message.
    pub fn with_message(self, message: &str) -> ManifestError {
        ManifestError { message: bound_message(message).into_owned(), ..self }
    }

    /// A text over one of kubeloop's budgets ([`crate::yamlcheck`]), in document `doc` (`None`: the whole text).
    fn refused(doc: Option<&Doc>, r: Refusal) -> ManifestError {
        match doc {
            Some(d) => ManifestError::new(d.index + 1, d.absolute_line(r.line), r.column, &r.message),
            None => ManifestError::new(0, r.line, r.column, &r.message),
        }
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("error: ")?;
        if let Some(file) = &self.file {
            write!(f, "{}, ", echo(file))?;
        }
        if self.document != 0 {
            write!(f, "document {}, ", self.document)?;
        }
        write!(f, "line {}", self.line)?;
        if let Some(c) = self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A field that Kubernetes accepts but kubeloop does not simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub document: usize,
    pub line: usize,
    /// `spec.template.spec.containers[0].livenessProbe`
    pub path: String,
    /// For a kind kubeloop stores without simulating what it is for: what it does with it (the path then names
    /// the kind).
    pub stored_only: Option<&'static str>,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stored_only {
            Some(what) => write!(f, "Warning: {} (line {}): {what}", self.path, self.line),
            None => write!(
                f,
                "Warning: {} (line {}) is accepted but not simulated by kubeloop; it is ignored",
                self.path, self.line
            ),
        }
    }
}

/// One parsed document.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub object: Object,
    /// The document as JSON, as written (for kubectl's last-applied-configuration).
    pub json: serde_json::Value,
    pub document: usize,
    pub first_line: usize,
    pub text: String,
    /// Where the object is in its document: nothing, or `items.N` for an item of a `kind: List`.
    pub prefix: Vec<String>,
    /// Its fields that Kubernetes accepts and kubeloop does not simulate.
    pub warnings: Vec<Warning>,
    /// Where kubectl read it: the file's name, or [`STDIN`].
    pub source: Rc<str>,
}

impl Manifest {
    /// The line of a field path (`["spec", "replicas"]`) in the whole text, or the document's first line.
    pub fn line_of(&self, path: &[&str]) -> usize {
        let mut full: Vec<&str> = self.prefix.iter().map(String::as_str).collect();
        full.extend_from_slice(path);
        self.first_line + nearest_line_of_path(&self.text, &full) - 1
    }

    pub fn error_at(&self, path: &[&str], message: impl Into<String>) -> ManifestError {
        ManifestError::new(self.document, self.line_of(path), None, &message.into()).in_file(&self.source)
    }
}

/// An object's text forms, as kubectl prints them (`-o json`, `-o yaml`, the last-applied configuration).
pub trait ObjectText {
    /// The object as JSON with `apiVersion` and `kind` first, as `kubectl get -o json` prints it.
    fn to_json(&self) -> serde_json::Value;
    /// The object as YAML, as `kubectl get -o yaml` prints it.
    fn to_yaml(&self) -> String;
}

impl ObjectText for Object {
    fn to_json(&self) -> serde_json::Value {
        json::object(self)
    }

    fn to_yaml(&self) -> String {
        crate::yamlwrite::json_to_string(&self.to_json())
    }
}

/// Kinds a manifest may hold, in the registry's order ([`crate::api::KindInfo::applicable`]).
pub fn applicable() -> impl Iterator<Item = Kind> {
    Kind::ALL.into_iter().filter(|k| k.info().applicable)
}

/// Parses every document. Fails on the first problem (of the whole text, or of any document); nothing is returned
/// then. (`kubectl apply` goes on past a document that fails: see [`read`].)
///
/// The text is held to kubeloop's YAML budgets first ([`check_budgets`]), before any of it is read into a tree: an
/// over-budget text is refused at the place it crosses the budget, whatever follows.
pub fn parse(text: &str) -> Result<(Vec<Manifest>, Vec<Warning>), ManifestError> {
    let read = read(text, STDIN)?;
    let objects = read.objects.into_iter().map(Entry::into_result).collect::<Result<Vec<_>, _>>()?;
    let warnings = warnings(&objects);
    Ok((objects, warnings))
}

/// Reads every document of one stream as kubectl's resource builder does with `ContinueOnError` (cli-runtime's
/// `StreamVisitor`, one for each `-f`; `source` is the file's name, or [`STDIN`], as kubectl names it in its
/// messages): each object on its own, in the text's order. An object that cannot be built (a kind kubeloop
/// does not serve, an unknown field, a value of the wrong type, no name) fails alone; a problem that stops
/// kubectl's stream (YAML it cannot parse, a document that is not a mapping or has no `apiVersion` or `kind`)
/// fails its document and ends the reading there: the documents after it are not read. `Err`: the whole text is
/// refused (kubeloop's YAML budgets, [`check_budgets`]).
pub fn read(text: &str, source: &str) -> Result<Read, ManifestError> {
    let mut reading = Reading::new(text.into(), source)?;
    while !reading.step(usize::MAX)? {}
    Ok(reading.finish())
}

/// What reading a manifest text gave ([`read`]).
#[derive(Clone, Debug, Default)]
pub struct Read {
    /// Each object, or why it fails, in the text's order.
    pub objects: Vec<Entry>,
    /// The document at which reading stopped (its problem is the last of `objects`), when it stopped early.
    pub stopped: Option<usize>,
}

impl Read {
    /// Every `-f` of a command, each read as its own stream ([`read`]), in order: a text refused whole (kubeloop's
    /// YAML budgets) or a stream that stops fails alone, as kubectl's `EagerVisitorList` visits each file.
    pub fn files(texts: Vec<(String, String)>) -> Read {
        let mut all = Read::default();
        for (text, source) in texts {
            let read =
                read(&text, &source).unwrap_or_else(|e| Read { objects: vec![Entry::Unbuilt(e)], stopped: None });
            all.stopped = all.stopped.or(read.stopped);
            all.objects.extend(read.objects);
        }
        all
    }
}

/// One object of a manifest text, as kubectl meets it.
#[derive(Clone, Debug)]
pub enum Entry {
    /// Read: to be sent.
    Object(Box<Manifest>),
    /// kubectl cannot build it (a kind the server does not serve; a document that stops the stream): kubectl
    /// reports it before the errors of the apply itself.
    Unbuilt(ManifestError),
    /// The API server refuses it when it is sent (strict decoding: an unknown field or a value of the wrong type;
    /// no name): one of the apply's errors, in order. With it, what kubectl itself reads of it (its kind and
    /// metadata), when they read.
    Refused(ManifestError, Option<Box<Manifest>>),
}

impl Entry {
    /// The object, or its error.
    pub fn into_result(self) -> Result<Manifest, ManifestError> {
        match self {
            Entry::Object(m) => Ok(*m),
            Entry::Unbuilt(e) | Entry::Refused(e, _) => Err(e),
        }
    }

    /// What kubectl itself reads of the object (a command that sends none of it, a client dry run or a delete,
    /// needs no more: its kind and metadata), or its error.
    pub fn into_read(self) -> Result<Manifest, ManifestError> {
        match self {
            Entry::Refused(_, Some(m)) => Ok(*m),
            entry => entry.into_result(),
        }
    }

    /// The entry of a text read from `source`: its error names the file.
    fn in_file(self, source: &Rc<str>) -> Entry {
        match self {
            Entry::Object(m) => Entry::Object(m),
            Entry::Unbuilt(e) => Entry::Unbuilt(e.in_file(source)),
            Entry::Refused(e, m) => Entry::Refused(e.in_file(source), m),
        }
    }
}

/// A manifest text read a few documents at a time (the page reads a large one across frames): the same
/// objects, failures and warnings as [`read`], in the same order: every document is held to the budgets before
/// any is read into a tree.
pub struct Reading {
    text: Rc<str>,
    /// The name kubectl gives the text: the file's, or [`STDIN`].
    source: Rc<str>,
    /// Each document: its index, first line, and byte range in `text`.
    docs: Vec<(usize, usize, std::ops::Range<usize>)>,
    budget: yamlcheck::Budget,
    checked: usize,
    read: usize,
    out: Read,
}

impl Reading {
    /// The text read from `source` (a file's name, or [`STDIN`]): its size checked and its documents found
    /// (cheap: a scan of its lines).
    pub fn new(text: Rc<str>, source: &str) -> Result<Reading, ManifestError> {
        let source: Rc<str> = source.into();
        let found = documents(&text).map_err(|e| e.in_file(&source))?;
        let base = text.as_ptr() as usize;
        let docs = found
            .iter()
            .map(|d| {
                let start = d.text.as_ptr() as usize - base;
                (d.index, d.first_line, start..start + d.text.len())
            })
            .collect();
        Ok(Reading {
            text,
            source,
            docs,
            budget: yamlcheck::Budget::new(Subject::Manifest),
            checked: 0,
            read: 0,
            out: Read::default(),
        })
    }

    /// Documents in the text, and how far reading is (checked against the budgets, then read): out of twice that.
    pub fn progress(&self) -> (usize, usize) {
        (self.checked + self.read, 2 * self.docs.len())
    }

    /// Checks or reads up to `n` documents; whether reading is done. `Err`: the whole text is refused.
    pub fn step(&mut self, n: usize) -> Result<bool, ManifestError> {
        let mut left = n;
        while left > 0 && self.checked < self.docs.len() {
            let (i, text) = (self.checked, self.text.clone());
            let (index, first_line, range) = self.docs[i].clone();
            let doc = Doc { index, first_line, text: &text[range] };
            let refused = |r| ManifestError::refused(Some(&doc), r).in_file(&self.source);
            self.budget.check(doc.text, MAX_YAML_DOCUMENTS).map_err(refused)?;
            self.checked += 1;
            left -= 1;
        }
        while left > 0 && self.read < self.docs.len() {
            let text = self.text.clone();
            let (index, first_line, range) = self.docs[self.read].clone();
            let doc = Doc { index, first_line, text: &text[range] };
            self.read += 1;
            left -= 1;
            match parse_document(&doc, &self.source) {
                Ok(objects) => self.out.objects.extend(objects.into_iter().map(|e| e.in_file(&self.source))),
                Err(stop) => {
                    self.out.objects.push(Entry::Unbuilt(stop.in_file(&self.source)));
                    self.out.stopped = Some(index + 1);
                    self.read = self.docs.len();
                }
            }
        }
        Ok(self.read == self.docs.len())
    }

    /// What was read.
    pub fn finish(self) -> Read {
        self.out
    }
}

/// The warnings of these objects: their fields kubeloop does not simulate, then, once per kind, what kubeloop does
/// with a kind it only stores.
pub fn warnings(objects: &[Manifest]) -> Vec<Warning> {
    let mut out: Vec<Warning> = objects.iter().flat_map(|m| m.warnings.iter().cloned()).collect();
    let mut kinds = Warnings::default();
    for m in objects {
        kinds.saw(m);
    }
    out.extend(kinds.finish());
    out
}

/// The once-per-kind warnings of the objects seen so far (what kubeloop does with a kind it only stores), in the
/// order of [`APPLICABLE`].
#[derive(Clone, Debug, Default)]
pub struct Warnings {
    stored_only: Vec<Warning>,
}

impl Warnings {
    /// Notes an object: its kind's warning, if it is the first of a kind kubeloop only stores.
    pub fn saw(&mut self, m: &Manifest) {
        let kind = m.object.kind();
        let Some(what) = stored_only(kind) else { return };
        if self.stored_only.iter().any(|w| w.path == kind.name()) {
            return;
        }
        let (document, line) = (m.document, m.line_of(&["kind"]));
        self.stored_only.push(Warning { document, line, path: kind.name().to_string(), stored_only: Some(what) });
    }

    /// The warnings.
    pub fn finish(self) -> Vec<Warning> {
        let of = |k: &Kind| self.stored_only.iter().find(|w| w.path == k.name()).cloned();
        applicable().filter_map(|k| of(&k)).collect()
    }
}

/// What kubeloop does with a kind it stores and serves without simulating what it is for (`None`: simulated).
pub fn stored_only(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::ConfigMap | Kind::Secret => Some(
            "kubeloop stores and serves it (kubectl get, describe, delete), and a container that names it (env, \
             envFrom, volumes) waits for it and its keys as upstream's kubelet does, but no simulated process reads \
             its values",
        ),
        Kind::Service => Some(
            "kubeloop allocates its cluster IP and node ports, and its EndpointSlice controller keeps the pods it \
             selects as endpoints, but no traffic is routed",
        ),
        Kind::EndpointSlice => Some(
            "kubeloop stores and serves a slice written by hand (describe svc lists its ready endpoints, the \
             EndpointSlice controller leaves it alone), but no traffic is routed",
        ),
        Kind::ServiceAccount => Some(
            "kubeloop stores and serves it (kubectl get, describe, delete); its API server has no authentication, so \
             nothing uses it",
        ),
        Kind::ResourceQuota => Some(
            "kubeloop's API server refuses creates that would exceed it (ResourceQuota admission) and its resource \
             quota controller keeps its status; pods' requests, limits and counts, and object counts, are counted",
        ),
        Kind::LimitRange => Some(
            "kubeloop's API server applies its Container defaults, minimums and maximums to new pods (LimitRanger); \
             Pod and PersistentVolumeClaim items and maxLimitRequestRatio are not enforced",
        ),
        Kind::PersistentVolumeClaim => Some(
            "kubeloop's persistent volume binder binds it to a matching volume, or has kubeloop's own provisioner (a \
             stand-in for its class's provisioner, which does not run) make a PersistentVolume of the size it \
             requests; no data is stored, and a pod's container does not wait for its volume to be mounted",
        ),
        Kind::StorageClass => Some(
            "kubeloop's own provisioner makes volumes for its claims whatever its provisioner names (no external \
             provisioner runs), with its reclaimPolicy and volumeBindingMode; parameters and mountOptions are not \
             read",
        ),
        Kind::PersistentVolume => Some(
            "kubeloop's persistent volume binder binds it to a claim that fits and deletes it once its claim is gone \
             under the Delete reclaim policy; no data is stored",
        ),
        k if k.info().stored.is_some() => {
            Some("kubeloop stores and serves it (kubectl get, describe, delete, explain), but nothing acts on it")
        }
        _ => None,
    }
}

/// Holds a manifest text to kubeloop's YAML budgets (the YAML checks): its size, at most
/// [`MAX_YAML_DOCUMENTS`] documents, the nesting of each, no anchors or aliases. [`parse`] does this first.
pub fn check_budgets(text: &str) -> Result<(), ManifestError> {
    budgeted_documents(text).map(|_| ())
}

/// The text's documents, its size and their number held to the budgets.
fn documents(text: &str) -> Result<Vec<Doc<'_>>, ManifestError> {
    yamlcheck::check_size(text, Subject::Manifest).map_err(|r| ManifestError::refused(None, r))?;
    let docs = split_documents_at_most(text, MAX_YAML_DOCUMENTS + 1);
    if let Some(over) = docs.get(MAX_YAML_DOCUMENTS) {
        let message = format!(
            "more than {MAX_YAML_DOCUMENTS} documents: kubeloop's budget for one manifest text (split it, or apply \
             it in parts)"
        );
        return Err(ManifestError::new(over.index + 1, over.first_line, None, &message));
    }
    Ok(docs)
}

fn budgeted_documents(text: &str) -> Result<Vec<Doc<'_>>, ManifestError> {
    let docs = documents(text)?;
    let mut budget = yamlcheck::Budget::new(Subject::Manifest);
    for doc in &docs {
        budget.check(doc.text, MAX_YAML_DOCUMENTS).map_err(|r| ManifestError::refused(Some(doc), r))?;
    }
    Ok(docs)
}

/// A problem libyaml or the typed reading found, located in the whole text.
fn located(doc: &Doc, location: Option<(usize, usize)>, message: &str) -> ManifestError {
    let (line, column) = match location {
        Some((line, column)) => (doc.absolute_line(line), Some(column)),
        None => (doc.first_line, None),
    };
    // Messages end with " at line L column C" (as serde_yaml's did); the location is reported separately.
    let message = match message.find(" at line ") {
        Some(i) => &message[..i],
        None => message,
    };
    ManifestError::new(doc.index + 1, line, column, message)
}

fn decode_error(doc: &Doc, e: &decode::Error) -> ManifestError {
    located(doc, Some((e.line, e.column)), &e.message)
}

/// The last value of text key `name` of a mapping, when it is text (`kind: Pod`, or a locally tagged `!x Pod`).
fn text_field<'a>(map: &'a Node, name: &str) -> Option<&'a str> {
    let yamltree::Value::Map(entries) = &map.value else { return None };
    let key = |n: &'a Node| match &n.value {
        yamltree::Value::Scalar(s) if yamltree::local_tag(n).is_none() => match yamltree::scalar(n, s) {
            Ok(yamltree::Scalar::Str(s)) => Some(s),
            _ => None,
        },
        _ => None,
    };
    let value = |n: &'a Node| match &n.value {
        yamltree::Value::Scalar(s) if yamltree::local_tag(n).is_some() => match yamltree::below_local_tag(n, s) {
            yamltree::Scalar::Str(s) => Some(s),
            _ => None,
        },
        _ => key(n),
    };
    entries.iter().rev().find(|(k, _)| key(k) == Some(name)).and_then(|(_, v)| value(v))
}

/// One document's objects (one, or a List's items), each built or failed on its own. `Err`: a problem that stops
/// kubectl's stream here (see [`read`]), read from `source`.
fn parse_document(doc: &Doc, source: &Rc<str>) -> Result<Vec<Entry>, ManifestError> {
    let document = doc.index + 1;
    let at_line = |line: usize, message: String| ManifestError::new(document, line, None, &message);
    let unparsed = |e| unparsed(source, e);
    let tree = match yamltree::parse(doc.text) {
        Ok(tree) => tree,
        Err(stopped) => {
            // What was read before the error is read first: a scalar there that its tag does not match is found
            // before the error is reached.
            if let Some(Err(decode::JsonError::Value(v))) = stopped.read.as_ref().map(decode::to_json) {
                return Err(unparsed(decode_error(doc, &v)));
            }
            return Err(unparsed(located(doc, stopped.error.location(), &stopped.error.to_string())));
        }
    };
    // The document's JSON form: a scalar whose standard tag it does not match is an error now, a key JSON cannot
    // have once the object is read (both are YAML kubectl cannot turn into JSON: its stream stops there).
    let (json, key_error) = match tree.as_ref().map(decode::to_json) {
        None => (serde_json::Value::Null, None),
        Some(Ok(json)) => (json, None),
        Some(Err(decode::JsonError::Value(e))) => return Err(unparsed(decode_error(doc, &e))),
        Some(Err(decode::JsonError::Key(e))) => (serde_json::Value::Null, Some(e)),
    };
    let tree = match tree {
        Some(t) if matches!(t.value, yamltree::Value::Map(_)) && yamltree::local_tag(&t).is_none() => t,
        _ => {
            return Err(at_line(
                doc.first_line,
                "a manifest must be a YAML mapping with apiVersion, kind and metadata".into(),
            ))
        }
    };
    // Indexed at the first lookup, once for all of them (a document may have thousands of warnings).
    let index = std::cell::OnceCell::new();
    let lines =
        |path: &[&str]| doc.absolute_line(index.get_or_init(|| LineIndex::new(doc.text)).nearest_line_of_path(path));
    let key_error = key_error.map(|e| unparsed(at_line(doc.first_line, e.to_string())));
    let field = |k: &str| text_field(&tree, k);
    // kubectl's client-side check of a document's type (its stream stops there too).
    if let Err(e) = type_named(field("apiVersion"), field("kind")) {
        return Err(at_line(doc.first_line, unvalidated(source, &e)));
    }
    if field("kind") == Some("List") && field("apiVersion") == Some("v1") {
        if let Some(e) = key_error {
            return Err(e);
        }
        return Ok(list_items(doc, source, &tree, &json, &lines));
    }
    let stops = key_error.is_some();
    match parse_object(doc, source, &tree, json, &[], &lines, key_error) {
        Entry::Unbuilt(e) | Entry::Refused(e, _) if stops => Err(e),
        entry => Ok(vec![entry]),
    }
}

/// The objects of a `kind: List` document (what `kubectl get -o yaml` prints for several objects), each read as a
/// document of its own, its lines and paths those of `items[i]`.
fn list_items(
    doc: &Doc,
    source: &Rc<str>,
    tree: &Node,
    json: &serde_json::Value,
    lines: &dyn Fn(&[&str]) -> usize,
) -> Vec<Entry> {
    let document = doc.index + 1;
    let items = match &tree.value {
        yamltree::Value::Map(entries) => entries.iter().rev().find(|(k, _)| text_field_key(k) == Some("items")),
        _ => None,
    };
    let items: &[Node] = match items.map(|(_, v)| &v.value) {
        None => &[],
        Some(yamltree::Value::Seq(items)) => items,
        Some(_) => {
            let e = ManifestError::new(document, lines(&["items"]), None, "a List's items must be a list");
            return vec![Entry::Unbuilt(e)];
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let prefix = ["items".to_string(), i.to_string()];
        if !matches!(item.value, yamltree::Value::Map(_)) {
            let message = "a manifest must be a YAML mapping with apiVersion, kind and metadata";
            out.push(Entry::Unbuilt(ManifestError::new(document, lines(&["items", &prefix[1]]), None, message)));
            continue;
        }
        let item_json = json.get("items").and_then(|v| v.get(i)).cloned().unwrap_or_default();
        out.push(parse_object(doc, source, item, item_json, &prefix, lines, None));
    }
    out
}

/// The text of a mapping key that is plain text.
fn text_field_key(n: &Node) -> Option<&str> {
    match &n.value {
        yamltree::Value::Scalar(s) if yamltree::local_tag(n).is_none() => match yamltree::scalar(n, s) {
            Ok(yamltree::Scalar::Str(s)) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// One object of a document: the document itself, or an item of a List (`prefix` is then its path, `items.N`).
fn parse_object(
    doc: &Doc,
    source: &Rc<str>,
    tree: &Node,
    json: serde_json::Value,
    prefix: &[String],
    lines: &dyn Fn(&[&str]) -> usize,
    key_error: Option<ManifestError>,
) -> Entry {
    let document = doc.index + 1;
    let line_of = |path: &[&str]| {
        let mut full: Vec<&str> = prefix.iter().map(String::as_str).collect();
        full.extend_from_slice(path);
        lines(&full)
    };
    let field = |k: &str| text_field(tree, k).map(str::to_string);
    let (api_version, kind_name) = (field("apiVersion"), field("kind"));
    let first_line = if prefix.is_empty() { doc.first_line } else { line_of(&[]) };
    let unmapped = |no_match| unmapped(source, &json, !prefix.is_empty(), no_match);
    let kind = match applicable_kind(doc, first_line, api_version, kind_name, &line_of, &unmapped) {
        Ok(kind) => kind,
        Err(e) => return Entry::Unbuilt(e),
    };
    let mut warnings = Vec::new();
    let read = (|| {
        let mut cx = decode::Cx::new();
        let object = decode_object(kind, &mut cx, tree).map_err(|e| decode_error(doc, &e))?;
        unread_fields(doc, kind, cx.ignored, &line_of, &mut warnings)?;
        key_error.map_or(Ok(object), Err)
    })();
    let (refused, object) = match read {
        Ok(object) => (None, object),
        Err(e) => match metadata_only(kind, &json) {
            Some(object) => (Some(e), object),
            None => return Entry::Refused(e, None),
        },
    };
    let m = Box::new(Manifest {
        object,
        json,
        document,
        first_line: doc.first_line,
        text: doc.text.to_string(),
        prefix: prefix.to_vec(),
        warnings,
        source: source.clone(),
    });
    match refused {
        None => Entry::Object(m),
        Some(e) => Entry::Refused(e, Some(m)),
    }
}

/// What kubectl itself reads of a document the API server will refuse: an object of its kind with its name,
/// generateName and namespace (`None` when they do not read).
fn metadata_only(kind: Kind, json: &serde_json::Value) -> Option<Object> {
    let (mut meta, mut object) = (serde_json::Map::new(), serde_json::Map::new());
    for k in ["name", "generateName", "namespace"] {
        if let Some(v) = json.get("metadata")?.get(k) {
            meta.insert(k.into(), v.clone());
        }
    }
    object.insert("metadata".into(), meta.into());
    decode_json(kind, &object.into()).ok()
}

/// YAML kubectl cannot turn into JSON: `StreamVisitor`'s error, which names the stream.
fn unparsed(source: &str, e: ManifestError) -> ManifestError {
    let message = format!("error parsing {source}: {}", e.message);
    e.with_message(&message)
}

/// A document without its type (`type_named`'s error): kubectl's client-side validation stops the stream there.
fn unvalidated(source: &str, missing: &str) -> String {
    format!("error validating {source:?}: error validating data: {missing}; if you choose to ignore these errors, turn validation off with --validate=false")
}

/// cli-runtime's mapper's error for a kind it cannot map (`no_match`, the REST mapper's): a document's names the
/// object as written and its stream; a List's item is mapped by `infoForObject`, which says less.
fn unmapped(source: &str, json: &serde_json::Value, item: bool, no_match: String) -> String {
    if item {
        return format!("unable to recognize {no_match}");
    }
    let meta = |k: &str| json.get("metadata").and_then(|m| m.get(k)).and_then(|v| v.as_str()).unwrap_or("");
    let (name, namespace) = (echo(meta("name")), echo(meta("namespace")));
    format!("resource mapping not found for name: {name:?} namespace: {namespace:?} from {source:?}: {no_match}\nensure CRDs are installed first")
}

/// A document's `apiVersion` and `kind`, both required, or what is missing as kubectl's validation says it (Go's
/// aggregate of errors: `kind not set`, `[apiVersion not set, kind not set]`).
fn type_named<'a>(api_version: Option<&'a str>, kind: Option<&'a str>) -> Result<(&'a str, &'a str), String> {
    match (api_version, kind) {
        (Some(a), Some(k)) => Ok((a, k)),
        (a, k) => {
            let mut missing = Vec::new();
            if a.is_none() {
                missing.push("apiVersion not set");
            }
            if k.is_none() {
                missing.push("kind not set");
            }
            let all = missing.join(", ");
            Err(if missing.len() > 1 { format!("[{all}]") } else { all })
        }
    }
}

/// The applicable kind a document's `apiVersion` and `kind` name, or the error kubectl gives (both are required;
/// a kind kubeloop does not serve is an error on the `kind` line: the REST mapper's `no matches for kind`, in the
/// message `unmapped` makes of it, then kubeloop's own line saying what it serves).
fn applicable_kind(
    doc: &Doc,
    first_line: usize,
    api_version: Option<String>,
    kind_name: Option<String>,
    line_of: &dyn Fn(&[&str]) -> usize,
    unmapped: &dyn Fn(String) -> String,
) -> Result<Kind, ManifestError> {
    let at_line = |line: usize, message: String| ManifestError::new(doc.index + 1, line, None, &message);
    let (api_version, kind_name) = type_named(api_version.as_deref(), kind_name.as_deref())
        .map_err(|e| at_line(first_line, format!("error validating data: {e}")))?;
    let kind = Kind::from_type(api_version, kind_name).filter(|k| k.info().applicable);
    kind.ok_or_else(|| {
        let known_elsewhere = applicable().find(|k| k.name() == kind_name);
        let (kind_name, api_version) = (echo(kind_name), echo(api_version));
        let serves = match known_elsewhere {
            Some(k) => format!("{kind_name} as {}", k.api_version()),
            None => serves(),
        };
        let no_match = format!("no matches for kind \"{kind_name}\" in version \"{api_version}\"");
        at_line(line_of(&["kind"]), format!("{}\nkubeloop: it serves {serves}", unmapped(no_match)))
    })
}

/// The kinds a manifest may hold, by apiVersion in the registry's order: `Namespace, Node and Pod (v1),
/// ReplicaSet and Deployment (apps/v1), ...`.
fn serves() -> String {
    let kinds: Vec<Kind> = applicable().collect();
    let mut groups = Vec::new();
    for (i, k) in kinds.iter().enumerate() {
        let version = k.api_version();
        if kinds[..i].iter().any(|e| e.api_version() == version) {
            continue;
        }
        let names: Vec<&str> = kinds[i..].iter().filter(|e| e.api_version() == version).map(|e| e.name()).collect();
        let (last, rest) = names.split_last().unwrap_or((&"", &[]));
        groups.push(match rest {
            [] => format!("{last} ({version})"),
            _ => format!("{} and {last} ({version})", rest.join(", ")),
        });
    }
    groups.join(", ")
}

/// The keys no field table read (`spec.template.spec.containers.0.livenessProbe`), in document order: a field
/// Kubernetes has is a warning, anything else is a strict decoding error (the first one).
fn unread_fields(
    doc: &Doc,
    kind: Kind,
    unread: Vec<String>,
    line_of: &dyn Fn(&[&str]) -> usize,
    warnings: &mut Vec<Warning>,
) -> Result<(), ManifestError> {
    let document = doc.index + 1;
    for path in unread {
        let segments: Vec<&str> = path.split('.').collect();
        if matches!(segments.as_slice(), ["apiVersion"] | ["kind"]) {
            continue;
        }
        let line = line_of(&segments);
        let pretty = pretty_path(&segments);
        if known_field(kind, &segments) {
            warnings.push(Warning { document, line, path: echo(&pretty).into_owned(), stored_only: None });
        } else {
            let message = format!("strict decoding error: unknown field \"{}\"", echo(&pretty));
            return Err(ManifestError::new(document, line, None, &message));
        }
    }
    Ok(())
}

/// The one typed reading of an object of an applicable kind, through its field table ([`objects`]).
fn decode_object<'n>(kind: Kind, cx: &mut decode::Cx<'n>, n: &'n Node) -> Result<Object, decode::Error> {
    Ok(match kind {
        Kind::Namespace => Object::Namespace(objects::namespace(cx, n)?),
        Kind::Node => Object::Node(objects::node(cx, n)?),
        Kind::Pod => Object::Pod(objects::pod(cx, n)?),
        Kind::ReplicaSet => Object::ReplicaSet(objects::replica_set(cx, n)?),
        Kind::Deployment => Object::Deployment(objects::deployment(cx, n)?),
        Kind::DaemonSet => Object::DaemonSet(objects::daemon_set(cx, n)?),
        Kind::StatefulSet => Object::StatefulSet(objects::stateful_set(cx, n)?),
        Kind::Job => Object::Job(objects::job(cx, n)?),
        Kind::CronJob => Object::CronJob(objects::cronjob(cx, n)?),
        Kind::ConfigMap => Object::ConfigMap(objects::config_map(cx, n)?),
        Kind::Secret => Object::Secret(objects::secret(cx, n)?),
        Kind::ServiceAccount => Object::ServiceAccount(objects::service_account(cx, n)?),
        Kind::Service => Object::Service(objects::service(cx, n)?),
        Kind::PodDisruptionBudget => Object::PodDisruptionBudget(objects::pdb(cx, n)?),
        Kind::EndpointSlice => Object::EndpointSlice(objects::endpoint_slice(cx, n)?),
        k if k.info().stored.is_some() => Object::Stored(stored::read(cx, n, k)?),
        other => return Err(cx.error(n, format_args!("kubeloop does not apply {} objects", other.name()))),
    })
}

/// An object of an applicable kind from its JSON form (apply's merged object), through the same typed reading as
/// a manifest. Fields it does not know are dropped, as a manifest's are after their warnings.
pub fn decode_json(kind: Kind, v: &serde_json::Value) -> Result<Object, String> {
    let tree = decode::from_json(v);
    decode_object(kind, &mut decode::Cx::new(), &tree).map_err(|e| e.to_string())
}

/// `spec.template.spec.containers.0.image` -> `spec.template.spec.containers[0].image`
pub fn pretty_path(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        if s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty() {
            out.push_str(&format!("[{s}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(s);
        }
    }
    out
}

/// A document names its object: what `apply` and `delete -f` require (`create` may leave the name to the server:
/// `generateName`). Apply's refusal of a generated name is its own (apply.go).
pub fn named(m: &Manifest, verb: &str) -> Result<(), ManifestError> {
    let meta = m.object.meta();
    if !meta.name.is_empty() {
        return Ok(());
    }
    if verb == "apply" && !meta.generate_name.is_empty() {
        let prefix = crate::limits::echo(&meta.generate_name);
        return Err(
            m.error_at(&["metadata", "generateName"], format!("from {prefix}: cannot use generate name with apply"))
        );
    }
    Err(m.error_at(&["metadata"], "resource name may not be empty"))
}

/// Server-side validation (defaults first, as the API server does), located at the offending field's line, with
/// kubectl's message (`The ConfigMap "x" is invalid: ...`).
pub fn validate(m: &Manifest) -> Result<(), ManifestError> {
    let mut obj = m.object.clone();
    if obj.meta().name.is_empty() && !obj.meta().generate_name.is_empty() {
        // The server names the object before it validates it: the name is then the prefix and five of the
        // generator's characters (any five validate alike).
        let name = crate::api::names::generated_name(&obj.meta().generate_name, "bcdfg");
        obj.meta_mut().name = crate::api::s(&name);
    }
    admission::default_object(&mut obj);
    validate_object(m, &obj)
}

/// Server-side validation of `obj`, an object as `m`'s document will be stored (defaults applied, and what the
/// client adds: apply's last-applied-configuration), located in `m` at the first offending field.
pub fn validate_object(m: &Manifest, obj: &Object) -> Result<(), ManifestError> {
    let errs = admission::validate(obj);
    match errs.first() {
        None => Ok(()),
        Some(first) => {
            let segments = first.segments();
            let path: Vec<&str> = segments.iter().map(String::as_str).collect();
            Err(m.error_at(&path, admission::invalid_message(obj, &errs)))
        }
    }
}

mod json;
#[cfg(test)]
mod legacy;
pub(crate) mod objects;
mod schema;
use schema::known_field;
pub use schema::{field_type, schema_fields, schema_type, value_type};
mod stored;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod value;
