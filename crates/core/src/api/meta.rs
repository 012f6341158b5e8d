//! `metadata`: ObjectMeta, owner references and timestamps (apimachinery meta/v1).

#[cfg(any(test, feature = "oracle"))]
use serde::{Deserialize, Deserializer};
use serde::{Serialize, Serializer};

use super::{Labels, Str};
#[cfg(any(test, feature = "oracle"))]
use crate::time::parse_rfc3339;
use crate::time::{rfc3339, Millis};

/// A point in simulated time, serialized as an RFC 3339 timestamp like `metav1.Time`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub Millis);

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&rfc3339(self.0))
    }
}

#[cfg(any(test, feature = "oracle"))]
impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_rfc3339(&text).map(Time).ok_or_else(|| {
            serde::de::Error::custom(format!("invalid timestamp {text:?}: expected RFC 3339 like 2026-01-01T00:00:00Z"))
        })
    }
}

pub fn is_empty_str(v: &Str) -> bool {
    v.is_empty()
}
pub(crate) fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}
pub(crate) fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}
pub(crate) fn is_false(v: &bool) -> bool {
    !*v
}

mod resource_version {
    use serde::Serializer;
    #[cfg(any(test, feature = "oracle"))]
    use serde::{Deserialize, Deserializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    #[cfg(any(test, feature = "oracle"))]
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = Option::<String>::deserialize(d)?.unwrap_or_default();
        if text.is_empty() {
            return Ok(0);
        }
        text.parse().map_err(|_| {
            serde::de::Error::custom(format!("invalid resourceVersion {text:?}: not issued by this server"))
        })
    }
}

/// `metadata` of every object.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub generate_name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub namespace: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub uid: Str,
    /// Global and increasing inside the store; clients only compare it for equality.
    #[serde(default, skip_serializing_if = "is_zero_u64", with = "resource_version")]
    pub resource_version: u64,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub annotations: Labels,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<Str>,
}

impl ObjectMeta {
    pub fn named(namespace: &str, name: &str) -> Self {
        ObjectMeta { name: name.into(), namespace: namespace.into(), ..Default::default() }
    }

    pub fn is_terminating(&self) -> bool {
        self.deletion_timestamp.is_some()
    }

    pub fn label(&self, k: &str) -> Option<&str> {
        self.labels.get(k).map(|v| &**v)
    }

    pub fn annotation(&self, k: &str) -> Option<&str> {
        self.annotations.get(k).map(|v| &**v)
    }
}

/// `metadata.ownerReferences[]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    pub api_version: Str,
    pub kind: Str,
    pub name: Str,
    pub uid: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl OwnerReference {
    /// The controller reference an object of `kind` sets on what it creates or adopts (`controller: true`,
    /// `blockOwnerDeletion: true`, as `metav1.NewControllerRef`).
    pub fn controller(kind: super::Kind, owner: &ObjectMeta) -> Self {
        OwnerReference {
            api_version: kind.api_version().into(),
            kind: kind.name().into(),
            name: owner.name.clone(),
            uid: owner.uid.clone(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_serializes_with_kubernetes_names() {
        let mut m = ObjectMeta::named("default", "web");
        m.resource_version = 42;
        m.creation_timestamp = Some(Time(1000));
        let v = serde_json::to_value(&m).unwrap_or_default();
        assert_eq!(v["resourceVersion"], "42");
        assert_eq!(v["creationTimestamp"], "2026-01-01T00:00:01Z");
        assert!(v.get("labels").is_none());
        let back: ObjectMeta = serde_json::from_value(v).unwrap_or_default();
        assert_eq!(back, m);
    }

    #[test]
    fn null_creation_timestamp_is_accepted() {
        let m: ObjectMeta = serde_yaml::from_str("name: x\ncreationTimestamp: null\n").unwrap_or_default();
        assert_eq!(&*m.name, "x");
        assert_eq!(m.creation_timestamp, None);
        assert!(serde_yaml::from_str::<ObjectMeta>("name: x\nresourceVersion: abc\n").is_err());
    }
}
