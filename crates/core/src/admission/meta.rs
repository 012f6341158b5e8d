//! `ValidateObjectMeta` (apimachinery's `api/validation/objectmeta.go`, and core's finalizer names): the name by
//! the kind's rule, `generateName`, labels, annotations (keys, and 256 KiB in all), owner references, finalizers.

use super::{invalid_each, q, FieldError};
use crate::api::names::{self, NameRule};
use crate::api::{go_quote, Kind, Labels, ObjectMeta, OwnerReference, Str};

/// `TotalAnnotationSizeLimitB`: the annotations of one object, keys and values, in bytes.
pub const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

/// How the names of a kind are checked (each kind's `Validate...Name`).
pub(crate) fn name_rule(kind: Kind) -> NameRule {
    match kind {
        Kind::Namespace => NameRule::DnsLabel,
        Kind::Service => NameRule::Dns1035Label,
        // ValidatePodDisruptionBudget does not check the name; only the REST path's rule applies.
        Kind::PodDisruptionBudget => NameRule::PathSegment,
        _ => NameRule::DnsSubdomain,
    }
}

pub(super) fn validate_object_meta(kind: Kind, m: &ObjectMeta, errs: &mut Vec<FieldError>) {
    let rule = name_rule(kind);
    if !m.generate_name.is_empty() {
        invalid_each("metadata.generateName", &m.generate_name, rule.check(&m.generate_name, true), errs);
    }
    if m.name.is_empty() {
        errs.push(FieldError::required_because("metadata.name", "name or generateName is required"));
    } else {
        invalid_each("metadata.name", &m.name, rule.check(&m.name, false), errs);
    }
    labels(&m.labels, "metadata.labels", errs);
    annotations(&m.annotations, "metadata.annotations", errs);
    owner_references(&m.owner_references, errs);
    finalizers(&m.finalizers, errs);
    // Core's ValidateObjectMeta adds the legacy finalizer names' rule (a budget's, apimachinery's alone, does not).
    if kind != Kind::PodDisruptionBudget {
        for (i, f) in m.finalizers.iter().enumerate() {
            kube_finalizer_name(f, &format!("metadata.finalizers[{i}]"), errs);
        }
    }
}

/// `ValidateLabels`: keys as qualified names, values as label values.
pub(super) fn labels(labels: &Labels, path: &str, errs: &mut Vec<FieldError>) {
    for (p, what) in crate::api::selector::label_problems(labels, path) {
        errs.push(FieldError::new(p, what));
    }
}

/// `ValidateAnnotations`: every key a qualified name (case aside), and all of them at most
/// [`ANNOTATIONS_MAX_BYTES`].
pub(super) fn annotations(annotations: &Labels, path: &str, errs: &mut Vec<FieldError>) {
    for (k, _) in annotations {
        invalid_each(path, k, names::qualified_name(&k.to_ascii_lowercase()), errs);
    }
    if annotations_size(annotations) > ANNOTATIONS_MAX_BYTES {
        errs.push(FieldError::too_long(path, ANNOTATIONS_MAX_BYTES));
    }
}

/// `ValidateAnnotationsSize`'s measure: the bytes of every key and value.
pub fn annotations_size(annotations: &Labels) -> usize {
    annotations.iter().fold(0usize, |n, (k, v)| n.saturating_add(k.len()).saturating_add(v.len()))
}

/// `ValidateOwnerReferences`: an API version with a version, a kind, a name and a uid each; one controller.
fn owner_references(refs: &[OwnerReference], errs: &mut Vec<FieldError>) {
    const PATH: &str = "metadata.ownerReferences";
    let mut controller: Option<String> = None;
    for r in refs {
        // schema.FromAPIVersionAndKind: `v1` and `group/v1` have a version; `group/` and `a/b/c` do not.
        let version = match r.api_version.split('/').collect::<Vec<_>>().as_slice() {
            [v] | [_, v] => !v.is_empty(),
            _ => false,
        };
        if !version {
            errs.push(FieldError::invalid(
                format!("{PATH}.apiVersion"),
                q(&r.api_version),
                "version must not be empty",
            ));
        }
        for (field, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
            if value.is_empty() {
                errs.push(FieldError::invalid(format!("{PATH}.{field}"), q(value), "must not be empty"));
            }
        }
        if r.controller == Some(true) {
            let this = format!("{}/{}", r.kind, r.name);
            match &controller {
                Some(first) => errs.push(FieldError::invalid(
                    PATH,
                    // Upstream prints the list with Go's %#v, pointers as addresses; kubeloop names it.
                    "[]v1.OwnerReference{...}",
                    &format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {} and {}",
                        crate::limits::echo(first),
                        crate::limits::echo(&this)
                    ),
                )),
                None => controller = Some(this),
            }
        }
    }
}

/// `ValidateFinalizers`: each a qualified name, and not both `orphan` and `foregroundDeletion`.
fn finalizers(finalizers: &[Str], errs: &mut Vec<FieldError>) {
    const PATH: &str = "metadata.finalizers";
    for f in finalizers {
        invalid_each(PATH, f, names::qualified_name(f), errs);
    }
    let has = |name: &str| finalizers.iter().any(|f| &**f == name);
    if has("orphan") && has("foregroundDeletion") {
        let list: Vec<String> = finalizers.iter().map(|f| go_quote(&crate::limits::echo(f))).collect();
        errs.push(FieldError::invalid(
            PATH,
            format!("[]string{{{}}}", list.join(", ")),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
}

/// `validateKubeFinalizerName`: a finalizer without a `/` must be one of the standard ones.
pub(super) fn kube_finalizer_name(name: &str, path: &str, errs: &mut Vec<FieldError>) {
    if !name.contains('/') && !matches!(name, "kubernetes" | "orphan" | "foregroundDeletion") {
        errs.push(FieldError::invalid(
            path,
            q(name),
            "name is neither a standard finalizer name nor is it fully qualified",
        ));
    }
}
