//! Objects of the kinds kubeloop stores and serves without simulating them (their registry row has a
//! [`super::kinds::StoredKind`]): the metadata the API server keeps for every object, and the kind's other fields
//! as the manifest wrote them, checked against the kind's schema when it was read. Nothing in the control plane
//! reads those fields; kubectl prints them through the kind's row.

use serde_json::{Map, Value};

use super::{Kind, ObjectMeta};

#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub kind: Kind,
    pub metadata: ObjectMeta,
    /// Every field but `apiVersion`, `kind` and `metadata`, by its JSON name.
    pub fields: Map<String, Value>,
}

impl Stored {
    /// The value at a dotted path of field names below the object (`value`, `spec.rules`); `None` where a step is
    /// missing. (The metadata is not among the fields: see [`Stored::metadata`].)
    pub fn field(&self, path: &str) -> Option<&Value> {
        let mut steps = path.split('.');
        let mut v = self.fields.get(steps.next()?)?;
        for step in steps {
            v = v.get(step)?;
        }
        Some(v)
    }
}
