//! `--field-selector`: the fields the API server lets a LIST or WATCH select on (each registry's
//! `GetAttrs`/`ToSelectableFields`: every kind's `metadata.name` and `metadata.namespace`, and a few of its own),
//! terms of `key=value`, `key==value` or `key!=value` joined by `,` (`fields.ParseSelector`).

use crate::api::{Kind, Object};

/// A parsed field selector: each term's key, whether it asks for equality, and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldSelector {
    pub(crate) text: String,
    terms: Vec<(String, bool, String)>,
}

impl FieldSelector {
    /// `fields.ParseSelector`; the error as the API server words it.
    pub(crate) fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (key, eq, value) = if let Some((k, v)) = part.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = part.split_once("==") {
                (k, true, v)
            } else if let Some((k, v)) = part.split_once('=') {
                (k, true, v)
            } else {
                return Err(format!("invalid selector: '{text}'; can't understand '{part}'"));
            };
            terms.push((key.trim().to_string(), eq, value.trim().to_string()));
        }
        Ok(FieldSelector { text: text.to_string(), terms })
    }

    /// The first key the kind cannot be selected by, if any.
    pub(crate) fn unsupported(&self, kind: Kind) -> Option<&str> {
        self.terms.iter().map(|(k, _, _)| k.as_str()).find(|k| !supported(kind, k))
    }

    /// Whether every term holds for the object.
    pub(crate) fn matches(&self, obj: &Object) -> bool {
        self.terms.iter().all(|(k, eq, v)| (field(obj, k).as_deref() == Some(v.as_str())) == *eq)
    }
}

/// The fields a kind's registry lets a selector name (the ones kubeloop's objects hold).
fn supported(kind: Kind, key: &str) -> bool {
    if matches!(key, "metadata.name" | "metadata.namespace") {
        return true;
    }
    let own: &[&str] = match kind {
        Kind::Pod => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ],
        Kind::Node => &["spec.unschedulable"],
        Kind::Namespace => &["status.phase"],
        Kind::Secret => &["type"],
        Kind::ReplicaSet => &["status.replicas"],
        Kind::Event => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        _ => &[],
    };
    own.contains(&key)
}

/// A field's value as the registry's field set holds it (a boolean or number as Go's `strconv` writes it).
fn field(obj: &Object, key: &str) -> Option<String> {
    let m = obj.meta();
    let text = |s: &str| Some(s.to_string());
    match (obj, key) {
        (_, "metadata.name") => text(&m.name),
        (_, "metadata.namespace") => text(&m.namespace),
        (Object::Pod(p), k) => match k {
            "spec.nodeName" => text(&p.spec.node_name),
            "spec.restartPolicy" => text(&p.spec.restart_policy),
            "spec.schedulerName" => text(&p.spec.scheduler_name),
            "spec.hostNetwork" => text("false"),
            "status.phase" => text(p.status.phase.as_str()),
            "status.podIP" | "status.podIPs" => text(&p.status.pod_ip),
            _ => text(""),
        },
        (Object::Node(n), "spec.unschedulable") => text(if n.spec.unschedulable { "true" } else { "false" }),
        (Object::Namespace(n), "status.phase") => text(&n.status.phase),
        (Object::Secret(s), "type") => text(&s.type_),
        (Object::ReplicaSet(r), "status.replicas") => Some(r.status.replicas.to_string()),
        (Object::Event(e), k) => {
            let (o, b) = (&e.body.involved_object, &e.body);
            match k {
                "involvedObject.kind" => text(&o.kind),
                "involvedObject.namespace" => text(&o.namespace),
                "involvedObject.name" => text(&o.name),
                "involvedObject.uid" => text(&o.uid),
                "involvedObject.apiVersion" => text(&o.api_version),
                "reason" => text(&b.reason),
                "source" | "reportingComponent" => text(&b.source.component),
                "type" => text(&b.type_),
                _ => text(""),
            }
        }
        _ => None,
    }
}

/// The API server's refusal of a selector naming a field the kind cannot be selected by.
pub(crate) fn unsupported_error(kind: Kind, label: &str, fields: &FieldSelector, key: &str) -> String {
    let gv = kind.api_version();
    let gv = if gv.contains('/') { gv.to_string() } else { format!("/{gv}") };
    format!(
        "Error from server (BadRequest): Unable to find \"{gv}, Resource={}\" that match label selector \"{label}\", field selector \"{}\": field label not supported: {key}",
        kind.plural(),
        fields.text
    )
}
