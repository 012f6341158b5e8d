//! Nodes and Namespaces (`ValidateNode`, `ValidateNamespace`): a node's taints and resources, a namespace's
//! finalizers.

use super::{invalid_each, meta, nonnegative_quantity, q, FieldError};
use crate::api::names;
use crate::api::{Namespace, Node};

/// `ValidateNode`: taints (upstream names them `metadata.taints`, after the path it was given), then capacity and
/// allocatable quantities.
pub(super) fn validate_node(n: &Node, errs: &mut Vec<FieldError>) {
    const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (i, t) in n.spec.taints.iter().enumerate() {
        let at = format!("metadata.taints[{i}]");
        let start = errs.len();
        invalid_each(&format!("{at}.key"), &t.key, names::qualified_name(&t.key), errs);
        let msgs = names::label_value(&t.value);
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(format!("{at}.value"), q(&t.value), &msgs.join(";")));
        }
        if t.effect.is_empty() {
            errs.push(FieldError::required(format!("{at}.effect")));
        } else if !EFFECTS.contains(&&*t.effect) {
            errs.push(FieldError::not_supported(format!("{at}.effect"), q(&t.effect), &EFFECTS));
        }
        if seen.contains(&(&*t.key, &*t.effect)) {
            // Go's %#v of the taint; a time added is a pointer there, shown by kubeloop as `{...}`.
            let added = if t.time_added.is_some() { "{...}" } else { "(*v1.Time)(nil)" };
            errs.push(FieldError::new(
                &at,
                format!(
                    "Duplicate value: core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{added}}}: taints must be unique by key and effect pair",
                    q(&t.key),
                    q(&t.value),
                    q(&t.effect)
                ),
            ));
        } else {
            seen.push((&t.key, &t.effect));
        }
        for e in &mut errs[start..] {
            e.at = Some(e.path.replacen("metadata.taints", "spec.taints", 1));
        }
    }
    // ValidateNodeResources
    for (field, list) in [("capacity", &n.status.capacity), ("allocatable", &n.status.allocatable)] {
        for (res, quantity) in list {
            nonnegative_quantity(&format!("status.{field}.{res}"), quantity, errs);
        }
    }
}

/// `ValidateNamespace`: each of `spec.finalizers` a qualified name, and a standard one when it has no `/`.
pub(super) fn validate_namespace(n: &Namespace, errs: &mut Vec<FieldError>) {
    const PATH: &str = "spec.finalizers";
    for f in &n.spec.finalizers {
        invalid_each(PATH, f, names::qualified_name(f), errs);
        meta::kube_finalizer_name(f, PATH, errs);
    }
}
