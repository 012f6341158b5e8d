//! The OpenAPI schema's field names, type by type, for the fields a manifest may carry that kubeloop does not model:
//! such a field is a warning naming its path (Kubernetes accepts it), an unknown one an error (kubectl's strict
//! field validation); `kubectl explain` walks the same tables. They are `data/explain.tsv`'s first columns, written
//! into the build by build.rs: a field's name is written once, with its type and documentation.

use crate::api::Kind;

/// Whether Kubernetes itself accepts `path` (a field kubeloop does not model): then it is a warning, not an
/// error. The type at each step is followed through the object's schema.
pub(super) fn known_field(kind: Kind, path: &[&str]) -> bool {
    let Some((field, parents)) = path.split_last() else { return false };
    let Some(mut ty) = schema_type(kind) else { return false };
    for seg in parents {
        if seg.chars().all(|c| c.is_ascii_digit()) {
            continue; // a list item keeps the element type
        }
        if *seg == "status" {
            return true;
        }
        match field_type(ty, seg) {
            Some(t) => ty = t,
            None => return false,
        }
    }
    schema_fields(ty).contains(field)
}

// The tables, written by build.rs from data/explain.tsv (the fields' one table: names, types, documentation).
include!(concat!(env!("OUT_DIR"), "/schema_tables.rs"));

/// A schema type's fields, one `name type` line each.
fn row(ty: &str) -> Option<&'static str> {
    SCHEMA.iter().find(|(t, _)| *t == ty).map(|(_, fields)| *fields)
}

/// A schema type's fields: (name, type of its value as kubectl prints it).
fn fields(ty: &str) -> impl Iterator<Item = (&'static str, &'static str)> {
    row(ty).unwrap_or("").lines().filter_map(|line| line.split_once(' '))
}

/// The schema type name of a kind's object (`Deployment`), for the field tables below (also `kubectl explain`):
/// its name, when explain.tsv lists its fields.
pub fn schema_type(kind: Kind) -> Option<&'static str> {
    row(kind.name()).map(|_| kind.name())
}

/// The schema type of field `seg` of type `ty`, for fields whose own fields are known (`status` excepted: any
/// field under a status is accepted).
pub fn field_type(ty: &str, seg: &str) -> Option<&'static str> {
    let element = value_type(ty, seg)?.trim_start_matches("[]");
    row(element).map(|_| element)
}

/// The type of field `seg` of schema type `ty` as kubectl prints it (`string`, `[]Container`, `map[string]string`).
pub fn value_type(ty: &str, seg: &str) -> Option<&'static str> {
    fields(ty).find(|(name, _)| *name == seg).map(|(_, value)| value)
}

/// The fields of schema type `ty` the API server gives a value when they are left out, with that value's text
/// (only the kinds kubeloop stores without simulating read this: the simulated ones default in admission).
pub(super) fn defaults(ty: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    DEFAULTS.iter().filter(move |(t, _, _)| *t == ty).map(|(_, f, v)| (*f, *v))
}

/// The fields Kubernetes accepts in schema type `ty`, in upstream's order (kubeloop simulates some of them; see
/// [`super::objects`]).
pub fn schema_fields(ty: &str) -> Vec<&'static str> {
    fields(ty).map(|(name, _)| name).collect()
}
