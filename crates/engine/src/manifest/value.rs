//! A document read into a `serde_yaml::Value` as kubectl reads YAML (sigs.k8s.io/yaml over go-yaml): a plain
//! integer too large for 64 bits is a float (`99999999999999999999` is `1e+20`), not an error. serde_yaml hands
//! such integers to `visit_u128`/`visit_i128`, which its own `Value` does not accept; this reads them as `f64`
//! and everything else as `Value` does.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_yaml::value::{Tag, TaggedValue};
use serde_yaml::{Mapping, Number, Value};
use std::fmt;

/// Parses one YAML document.
pub fn from_str(text: &str) -> Result<Value, serde_yaml::Error> {
    serde_yaml::from_str::<YamlValue>(text).map(|v| v.0)
}

struct YamlValue(Value);

impl<'de> Deserialize<'de> for YamlValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor).map(YamlValue)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }
    fn visit_i128<E>(self, i: i128) -> Result<Value, E> {
        Ok(Value::Number(Number::from(i as f64)))
    }
    fn visit_u128<E>(self, u: u128) -> Result<Value, E> {
        Ok(Value::Number(Number::from(u as f64)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Number(f.into()))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        YamlValue::deserialize(d).map(|v| v.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(YamlValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Sequence(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Mapping::new();
        while let Some((YamlValue(k), YamlValue(v))) = map.next_entry()? {
            out.insert(k, v);
        }
        Ok(Value::Mapping(out))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use de::VariantAccess;
        let (tag, variant): (String, _) = data.variant()?;
        let YamlValue(value) = variant.newtype_variant()?;
        Ok(Value::Tagged(Box::new(TaggedValue { tag: Tag::new(tag), value })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_serde_yaml_and_huge_integers_as_floats() {
        let text =
            "a: 1\nb: [x, 2.5, ~, true]\nc: {d: -3}\ne: !t 4\nf: 99999999999999999999\ng: -99999999999999999999\n";
        let v = from_str(text).expect("parses");
        let plain: Value = serde_yaml::from_str(&text.replace("99999999999999999999", "1")).expect("plain");
        assert_eq!(v["a"], plain["a"]);
        assert_eq!(v["b"], plain["b"]);
        assert_eq!(v["c"], plain["c"]);
        assert_eq!(v["e"], plain["e"]);
        assert_eq!(v["f"].as_f64(), Some(1e20));
        assert_eq!(v["g"].as_f64(), Some(-1e20));
        assert!(
            serde_yaml::from_str::<Value>("f: 99999999999999999999\n").is_err(),
            "serde_yaml's own Value refuses it"
        );
    }
}
