//! The objects of the kinds kubeloop stores without simulating them ([`crate::api::StoredKind`]), read and written
//! through the kind's schema alone: its rows of `data/explain.tsv` say which fields it has and of what type, so a
//! new stored kind needs no reader or writer of its own. A field the schema does not have is a strict decoding
//! error, as for every kind; a value of the wrong type is serde's error at its line; a field whose type has fields
//! of its own is read through them, item by item for a list; an `IntOrString` as a number or a text, a map of
//! quantities each in its canonical form (`SetDefaults_ResourceList`); anything else (a type kubeloop has no rows
//! for) is kept as it was written. A field left out gets the API server's default where the schema names one
//! (explain.tsv's `default=`; `{}`: a struct Go always writes, with its own fields' defaults). A kind with a status
//! subresource keeps none of a manifest's status (its strategy's PrepareForCreate and PrepareForUpdate).

use serde_json::{Map, Value};

use super::objects::{int_or_string, meta, quantity};
use super::schema::{defaults, field_type, schema_fields, value_type};
use crate::api::{IntOrString, Kind, Stored};
use crate::decode::{self, Cx, JsonError, Result, Shape};
use crate::yamltree::Node;

/// Reads an object of stored kind `kind`.
pub(crate) fn read<'n>(cx: &mut Cx<'n>, n: &'n Node, kind: Kind) -> Result<Stored> {
    let mut out = Stored { kind, metadata: Default::default(), fields: Map::new() };
    let expected = format!("struct {}", kind.name());
    let shape = Shape { expected: &expected, names: &schema_fields(kind.name()), required: &[], strict: false };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "metadata" => out.metadata = meta(cx, v)?,
            "apiVersion" | "kind" => {}
            _ if cx.is_null(v)? => {}
            _ => {
                let value = field(cx, v, kind.name(), key)?;
                if key != "status" || !kind.has_status_subresource() {
                    out.fields.insert(key.to_string(), value);
                }
            }
        }
        Ok(())
    })?;
    default(&mut out.fields, kind.name());
    Ok(out)
}

/// A StatefulSet's volumeClaimTemplates item: a PersistentVolumeClaim's metadata and spec, the spec read through
/// the claim's schema as a stored claim's is (its status, which the API server drops, is read and left out).
pub(crate) fn claim_template<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<crate::api::statefulset::ClaimTemplate> {
    let mut out = crate::api::statefulset::ClaimTemplate::default();
    let kind = Kind::PersistentVolumeClaim.name();
    let shape =
        Shape { expected: "struct PersistentVolumeClaim", names: &schema_fields(kind), required: &[], strict: false };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "metadata" => out.metadata = meta(cx, v)?,
            "apiVersion" | "kind" => {}
            _ if cx.is_null(v)? => {}
            "spec" => {
                if let Value::Object(spec) = field(cx, v, kind, key)? {
                    out.spec = spec;
                }
            }
            _ => drop(field(cx, v, kind, key)?),
        }
        Ok(())
    })?;
    Ok(out)
}

/// Gives the fields of schema type `ty` that `out` lacks the API server's defaults.
fn default(out: &mut Map<String, Value>, ty: &str) {
    for (field, text) in defaults(ty) {
        if out.contains_key(field) {
            continue;
        }
        // A text as it is; an integer or a boolean as its value.
        let value = match (value_type(ty, field), text.parse::<i64>()) {
            (Some("integer" | "int32"), Ok(n)) => Value::from(n),
            (Some("boolean"), _) => Value::Bool(text == "true"),
            (Some(object), _) if text == "{}" => {
                let mut fields = Map::new();
                default(&mut fields, object);
                Value::Object(fields)
            }
            _ => Value::String(text.to_string()),
        };
        out.insert(field.to_string(), value);
    }
}

/// Field `key` of schema type `ty`, by its type.
fn field<'n>(cx: &mut Cx<'n>, v: &'n Node, ty: &str, key: &str) -> Result<Value> {
    let value_ty = value_type(ty, key).unwrap_or("");
    if let Some(object) = field_type(ty, key) {
        return match value_ty.starts_with("[]") {
            true => {
                let mut out = Vec::new();
                cx.each(v, &mut |cx, item| {
                    out.push(fields(cx, item, object)?);
                    Ok(())
                })?;
                Ok(Value::Array(out))
            }
            false => fields(cx, v, object),
        };
    }
    // The scalar types are checked as the typed kinds read them; a text is kept as the text it was read as (`3`
    // as "3"), the rest as JSON has it.
    match value_ty {
        "string" => return Ok(Value::String(cx.string(v)?.to_string())),
        "integer" => drop(cx.i64(v)?),
        "int32" => drop(cx.i32(v)?),
        "boolean" => drop(cx.bool(v)?),
        "[]string" => {
            let texts = cx.strings(v)?.iter().map(|s| Value::String(s.to_string())).collect();
            return Ok(Value::Array(texts));
        }
        "IntOrString" => {
            return Ok(match int_or_string(cx, v)? {
                IntOrString::Int(n) => Value::from(n),
                IntOrString::String(s) => Value::String(s.to_string()),
            })
        }
        "map[string]Quantity" => {
            let mut out = Map::new();
            for (key, q) in cx.map(v, quantity)? {
                out.insert(key.to_string(), Value::String(q.canonical()));
            }
            return Ok(Value::Object(out));
        }
        "map[string]string" => {
            let mut out = Map::new();
            for (key, value) in cx.labels(v)? {
                out.insert(key.to_string(), Value::String(value.to_string()));
            }
            return Ok(Value::Object(out));
        }
        _ => {}
    }
    decode::to_json(v).map_err(|e| match e {
        JsonError::Value(e) => e,
        JsonError::Key(m) => cx.error(v, m),
    })
}

/// An object of schema type `ty` (one with rows of its own): each of its fields by its type.
fn fields<'n>(cx: &mut Cx<'n>, n: &'n Node, ty: &str) -> Result<Value> {
    let mut out = Map::new();
    let expected = format!("struct {ty}");
    let shape = Shape { expected: &expected, names: &schema_fields(ty), required: &[], strict: false };
    cx.fields(n, &shape, &mut |cx, key, v| {
        if !cx.is_null(v)? {
            let value = field(cx, v, ty, key)?;
            out.insert(key.to_string(), value);
        }
        Ok(())
    })?;
    default(&mut out, ty);
    Ok(Value::Object(out))
}
