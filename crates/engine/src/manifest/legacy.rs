//! The decoder kubeloop had before its own (serde_yaml's typed deserializer through serde_ignored, with
//! `#[derive(Deserialize)]` on the API types), kept only in tests as the oracle the table-driven decoder is
//! compared with ([`super::tests`]). One deliberate difference is applied to it: serde_ignored names a key below
//! an optional struct with a `?` step (`spec.strategy.rollingUpdate.?.foo`), which kubectl does not; that step
//! is dropped here as the new decoder never writes it.

use serde::de::DeserializeOwned;

use super::*;
use crate::api::{
    ConfigMap, Deployment, Namespace, Node as ApiNode, Pod, PodDisruptionBudget, ReplicaSet, Secret, Service,
    ServiceAccount,
};

fn yaml_error(doc: &Doc, e: &serde_yaml::Error) -> ManifestError {
    let location = e.location().map(|l| (l.line(), l.column()));
    located(doc, location, &e.to_string())
}

pub(super) fn parse_document(doc: &Doc, warnings: &mut Vec<Warning>) -> Result<Manifest, ManifestError> {
    let document = doc.index + 1;
    let at_line = |line: usize, message: String| ManifestError::new(document, line, None, &message);
    let value: serde_yaml::Value = value::from_str(doc.text).map_err(|e| unparsed(STDIN, yaml_error(doc, &e)))?;
    let serde_yaml::Value::Mapping(map) = &value else {
        return Err(at_line(
            doc.first_line,
            "a manifest must be a YAML mapping with apiVersion, kind and metadata".into(),
        ));
    };
    let field = |k: &str| map.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let (api_version, kind_name) = (field("apiVersion"), field("kind"));
    if let Err(e) = type_named(api_version.as_deref(), kind_name.as_deref()) {
        return Err(at_line(doc.first_line, unvalidated(STDIN, &e)));
    }
    let index = std::cell::OnceCell::new();
    let line_of =
        |path: &[&str]| doc.absolute_line(index.get_or_init(|| LineIndex::new(doc.text)).nearest_line_of_path(path));
    let unmapped = |no_match| unmapped(STDIN, &serde_json::to_value(&value).unwrap_or_default(), false, no_match);
    let kind = applicable_kind(doc, doc.first_line, api_version, kind_name, &line_of, &unmapped)?;
    let mut ignored: Vec<String> = Vec::new();
    let object = match kind {
        Kind::Namespace => Object::Namespace(typed::<Namespace>(doc, &mut ignored)?),
        Kind::Node => Object::Node(typed::<ApiNode>(doc, &mut ignored)?),
        Kind::Pod => Object::Pod(typed::<Pod>(doc, &mut ignored)?),
        Kind::ReplicaSet => Object::ReplicaSet(typed::<ReplicaSet>(doc, &mut ignored)?),
        Kind::Deployment => Object::Deployment(typed::<Deployment>(doc, &mut ignored)?),
        Kind::ConfigMap => Object::ConfigMap(typed::<ConfigMap>(doc, &mut ignored)?),
        Kind::Secret => Object::Secret(typed::<Secret>(doc, &mut ignored)?),
        Kind::ServiceAccount => Object::ServiceAccount(typed::<ServiceAccount>(doc, &mut ignored)?),
        Kind::Service => Object::Service(typed::<Service>(doc, &mut ignored)?),
        Kind::PodDisruptionBudget => Object::PodDisruptionBudget(typed::<PodDisruptionBudget>(doc, &mut ignored)?),
        Kind::EndpointSlice => Object::EndpointSlice(typed::<crate::api::EndpointSlice>(doc, &mut ignored)?),
        // A kind kubeloop only stores has no typed struct for serde's derive: `compare` skips it.
        _ => return Err(at_line(doc.first_line, format!("no typed struct for {}", kind.name()))),
    };
    // serde_ignored's `?` step below an optional struct is dropped (see the module's note).
    let unread = ignored.iter().map(|p| p.split('.').filter(|s| *s != "?").collect::<Vec<_>>().join(".")).collect();
    unread_fields(doc, kind, unread, &line_of, warnings)?;
    let json = serde_json::to_value(&value).map_err(|e| unparsed(STDIN, at_line(doc.first_line, e.to_string())))?;
    let m = Manifest {
        object,
        json,
        document,
        first_line: doc.first_line,
        text: doc.text.to_string(),
        prefix: Vec::new(),
        warnings: Vec::new(),
        source: STDIN.into(),
    };
    Ok(m)
}

fn typed<T: DeserializeOwned>(doc: &Doc, ignored: &mut Vec<String>) -> Result<T, ManifestError> {
    let de = serde_yaml::Deserializer::from_str(doc.text);
    serde_ignored::deserialize(de, |p| ignored.push(p.to_string())).map_err(|e| yaml_error(doc, &e))
}

/// Whether `new` is `old` located at the value rather than at the object holding it: serde_yaml placed an error
/// raised after a value was read (a timestamp or a resourceVersion that does not parse) at the enclosing mapping;
/// the field tables place it at the value, one path step further down.
///
fn sharper(old: &ManifestError, new: &ManifestError) -> bool {
    let Some((old_path, tail)) = old.message.split_once(": ") else { return false };
    let Some((new_path, new_tail)) = new.message.split_once(": ") else { return false };
    // And a locally tagged enum value (`operator: !x In`), whose variant serde_yaml read from the tag.
    let raised_after = tail.starts_with("invalid timestamp")
        || tail.starts_with("invalid resourceVersion")
        || tail.starts_with("unknown variant");
    let below = new_path.strip_prefix(old_path).is_some_and(|rest| rest.starts_with('.') && !rest[1..].contains('.'))
        || (old_path == "." && !new_path.contains('.'));
    raised_after && tail == new_tail && below && old.document == new.document && new.line >= old.line
}

fn base64_error(e: &ManifestError) -> bool {
    e.message.contains("illegal base64 data at input byte")
}

/// Both decoders over every document of `text`: the same objects, JSON and warnings, or the same error.
/// Whether an entry is an object of a kind kubeloop only stores.
fn stored(e: &super::Entry) -> bool {
    match e {
        super::Entry::Object(m) | super::Entry::Refused(_, Some(m)) => m.object.as_stored().is_some(),
        _ => false,
    }
}

pub(super) fn compare(text: &str) -> Result<(), String> {
    let Ok(docs) = budgeted_documents(text) else { return Ok(()) };
    for doc in &docs {
        let mut old_warnings = Vec::new();
        let old = parse_document(doc, &mut old_warnings);
        let new = match super::parse_document(doc, &STDIN.into()) {
            // A kind kubeloop only stores (no serde derive to compare with).
            Ok(objects) if objects.iter().any(stored) => continue,
            Ok(mut objects) if objects.len() == 1 => objects.remove(0).into_result(),
            // A `kind: List` (the serde derive reader had none).
            Ok(_) => continue,
            Err(e) => Err(e),
        };
        let same = match (&old, &new) {
            (Ok(a), Ok(b)) => a.object == b.object && a.json == b.json && old_warnings == b.warnings,
            // The serde derive read base64 as text; the tables check it as the API server decodes it, so they may
            // stop at a value before the place serde_yaml stopped (which it may place at the mapping's start), or
            // where it read on.
            (Err(_), Err(b)) if base64_error(b) => true,
            (Err(a), Err(b)) => a == b || sharper(a, b),
            (Ok(_), Err(b)) => base64_error(b),
            _ => false,
        };
        // Apply's merged object is decoded from JSON: the same object as serde_yaml's reading of that JSON.
        if let (true, Ok(m)) = (same, &new) {
            let kind = m.object.kind();
            let (old, new) = (decode_json(kind, &m.json), super::decode_json(kind, &m.json));
            match (old, new) {
                (Ok(a), Ok(b)) if a == b => {}
                (Err(_), Err(_)) => {}
                (Ok(_), Err(b)) if b.contains("illegal base64 data at input byte") => {}
                (a, b) => return Err(format!("decode_json of {}:\n{a:?}\n{b:?}", m.json)),
            }
        }
        if !same {
            let show = |r: &Result<Manifest, ManifestError>, w: &[Warning]| match r {
                Ok(m) => format!("Ok({:?}, json {}, warnings {w:?})", m.object, m.json),
                Err(e) => format!("Err({e:?})"),
            };
            return Err(format!(
                "document {}:\n{}\n--- serde_yaml: {}\n--- tables:     {}",
                doc.index + 1,
                doc.text,
                show(&old, &old_warnings),
                show(&new, new.as_ref().map_or(&[][..], |m| &m.warnings[..]))
            ));
        }
    }
    Ok(())
}

/// Apply's decode of a merged JSON object as it was: the JSON written as YAML and read by serde_yaml.
fn decode_json(kind: Kind, v: &serde_json::Value) -> Result<Object, String> {
    let text = serde_yaml::to_string(v).map_err(|e| e.to_string())?;
    let mut ignored = Vec::new();
    Ok(match kind {
        Kind::Namespace => Object::Namespace(typed_text(&text, &mut ignored)?),
        Kind::Node => Object::Node(typed_text(&text, &mut ignored)?),
        Kind::Pod => Object::Pod(typed_text(&text, &mut ignored)?),
        Kind::ReplicaSet => Object::ReplicaSet(typed_text(&text, &mut ignored)?),
        Kind::Deployment => Object::Deployment(typed_text(&text, &mut ignored)?),
        Kind::ConfigMap => Object::ConfigMap(typed_text(&text, &mut ignored)?),
        Kind::Secret => Object::Secret(typed_text(&text, &mut ignored)?),
        Kind::ServiceAccount => Object::ServiceAccount(typed_text(&text, &mut ignored)?),
        Kind::Service => Object::Service(typed_text(&text, &mut ignored)?),
        Kind::PodDisruptionBudget => Object::PodDisruptionBudget(typed_text(&text, &mut ignored)?),
        Kind::EndpointSlice => Object::EndpointSlice(typed_text(&text, &mut ignored)?),
        other => return Err(format!("kubeloop does not apply {} objects", other.name())),
    })
}

fn typed_text<T: DeserializeOwned>(text: &str, ignored: &mut Vec<String>) -> Result<T, String> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_ignored::deserialize(de, |p| ignored.push(p.to_string())).map_err(|e: serde_yaml::Error| e.to_string())
}
