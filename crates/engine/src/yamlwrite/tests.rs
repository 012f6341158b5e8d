//! The writer against serde_yaml, its oracle: the same text (or the same error) byte for byte.

use super::*;
use proptest::prelude::*;
use serde_yaml::value::{Tag, TaggedValue};

fn oracle(v: &Value) -> Result<String, String> {
    serde_yaml::to_string(v).map_err(|e| e.to_string())
}

fn same(v: &Value) {
    assert_eq!(to_string(v), oracle(v), "{v:?}");
}

/// Texts that reach every scalar style and every escape: indicators at the start, inside and at the end, spaces and
/// breaks at both ends, control, non-ASCII and non-printable characters, words that read as other types.
const TEXTS: &[&str] = &[
    "",
    "a",
    "web",
    "nginx:1.25",
    "a b",
    " a",
    "a ",
    "-",
    "- a",
    "-a",
    "--- a",
    "---",
    "...",
    "? a",
    "?a",
    ": a",
    ":a",
    "a:",
    "a: b",
    "a:b",
    "a #b",
    "a#b",
    "#a",
    "a,b",
    "[a]",
    "{a}",
    "&a",
    "*a",
    "!a",
    "|",
    ">",
    "'a'",
    "\"a\"",
    "%a",
    "@a",
    "`a",
    "a'b",
    "a\"b",
    "a\\b",
    "true",
    "True",
    "yes",
    "null",
    "~",
    "1",
    "-1",
    "+1",
    "0x1F",
    "0o17",
    "010",
    "-010",
    "1.5",
    "1e3",
    ".inf",
    "-.inf",
    ".nan",
    "1_000",
    "2026-01-01T00:00:00Z",
    "25%",
    "250m",
    "a\nb",
    "a\n",
    "a\n\n",
    "\n",
    "\n\n",
    "\na",
    " a\nb",
    "a \nb",
    "a\n b",
    "a\n\nb\n",
    "a\tb",
    "\t",
    "a\rb",
    "a\r\nb",
    "a\u{85}b",
    "a\u{2028}b",
    "a\u{2029}",
    "\u{2028}",
    "é",
    "日本",
    "a\u{0}b",
    "\u{7}\u{8}\u{b}\u{c}\u{1b}\u{7f}",
    "\u{80}\u{9f}\u{a0}",
    "\u{feff}a",
    "\u{fffe}",
    "\u{1f600}",
    "\u{10ffff}",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(TEXTS).prop_map(str::to_string),
        2 => proptest::collection::vec(
            proptest::sample::select(&[
                "a", "b", "1", "0", " ", "  ", "\n", "-", ":", "#", "'", "\"", "\\", "?", ",", "[", "}", "!", "&",
                "|", ".", "\t", "\r", "é", "\u{2028}", "\u{85}", "\u{0}", "\u{feff}", "x: y", "- ", "---",
            ][..]),
            0..8,
        )
        .prop_map(|parts| parts.concat()),
        1 => "[ -~]{0,150}",
    ]
}

fn tag() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(&["x", "!", "!x", "foo", "a b", "é", "%", "tag:yaml.org,2002:str", "a/b?c"][..])
            .prop_map(str::to_string),
        "[a-z!%<> ]{1,5}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(|n| Value::Number(n.into())),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        prop_oneof![any::<f64>(), Just(f64::NAN), Just(f64::INFINITY), Just(-f64::INFINITY), Just(0.5), Just(1e20)]
            .prop_map(|n| Value::Number(n.into())),
        text().prop_map(Value::String),
    ]
}

/// Values as a scenario's reader may build them: any scalar, sequences, mappings with any key, and tags (never a
/// tag directly on a tagged value: a YAML node has one tag).
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        let untagged = prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Sequence),
            proptest::collection::vec(
                (prop_oneof![3 => text().prop_map(Value::String), 1 => inner.clone()], inner.clone()),
                0..4
            )
            .prop_map(|pairs| Value::Mapping(pairs.into_iter().collect::<Mapping>())),
        ];
        prop_oneof![
            4 => untagged.clone(),
            1 => (tag(), prop_oneof![scalar(), untagged])
                .prop_map(|(t, v)| Value::Tagged(Box::new(TaggedValue { tag: Tag::new(t), value: v }))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn writes_any_value_as_serde_yaml_does(v in value()) {
        prop_assert_eq!(to_string(&v), oracle(&v), "{:?}", v);
    }

    #[test]
    fn writes_any_text_as_serde_yaml_does(s in text()) {
        // Alone, as a mapping's key and value, and as a sequence's item.
        let key = Value::Mapping([(Value::String(s.clone()), Value::String(s.clone()))].into_iter().collect());
        for v in [Value::String(s.clone()), key.clone(), Value::Sequence(vec![Value::String(s.clone()), key])] {
            prop_assert_eq!(to_string(&v), oracle(&v), "{:?}", v);
        }
    }
}

#[test]
fn writes_every_listed_text_in_every_place() {
    for s in TEXTS {
        let v = Value::String(s.to_string());
        let key = Value::Mapping([(v.clone(), Value::Null)].into_iter().collect());
        let nested = Value::Mapping(
            [(Value::String("a".into()), Value::Sequence(vec![v.clone(), key.clone()])), (v.clone(), v.clone())]
                .into_iter()
                .collect(),
        );
        for v in [v, key, nested] {
            same(&v);
        }
    }
}

#[test]
fn writes_long_keys_and_collections_as_keys() {
    let long = "k".repeat(129);
    for k in [
        Value::String("k".repeat(128)),
        Value::String(long),
        Value::Sequence(vec![]),
        Value::Mapping(Mapping::new()),
        Value::Sequence(vec![Value::Null]),
        Value::Mapping([(Value::Null, Value::Null)].into_iter().collect()),
    ] {
        same(&Value::Mapping([(k.clone(), Value::Bool(true)), (Value::Null, k)].into_iter().collect()));
    }
}

#[test]
fn a_one_entry_mapping_with_a_tagged_key_fails_as_serde_yaml_does() {
    let tagged = Value::Tagged(Box::new(TaggedValue { tag: Tag::new("k"), value: Value::String("x".into()) }));
    let one = Value::Mapping([(tagged.clone(), Value::Null)].into_iter().collect());
    for v in [
        one.clone(),
        Value::Sequence(vec![one.clone()]),
        Value::Mapping([(Value::String("a".into()), one.clone())].into_iter().collect()),
        Value::Mapping([(Value::String("a".into()), one), (Value::Null, Value::Null)].into_iter().collect()),
    ] {
        assert!(oracle(&v).is_err(), "{v:?}");
        same(&v);
    }
}

/// The example files and seeded edits of them, read by serde_yaml (with their tags and odd keys), written both ways.
#[test]
fn writes_the_examples_and_edits_of_them_as_serde_yaml_does() {
    let mut rng = crate::rng::Rng::new(28);
    let mut compared = 0;
    for path in crate::testing::example_files() {
        let base = std::fs::read_to_string(&path).expect("example");
        for i in 0..60 {
            let text = if i == 0 { base.clone() } else { crate::testing::mutate(&base, &mut rng, &[]) };
            for doc in serde_yaml::Deserializer::from_str(&text) {
                let Ok(v) = <Value as serde::Deserialize>::deserialize(doc) else { break };
                same(&v);
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "{compared}");
}

/// Every object of every example manifest, as `kubectl get -o yaml` writes it.
#[test]
fn writes_objects_json_as_serde_yaml_does() {
    use crate::manifest::ObjectText;
    let mut objects = 0;
    for path in crate::testing::example_files() {
        let text = std::fs::read_to_string(&path).expect("example");
        let Ok((manifests, _)) = crate::manifest::parse(&text) else { continue };
        for m in manifests {
            let json = m.object.to_json();
            assert_eq!(json_to_string(&json), serde_yaml::to_string(&json).expect("yaml"), "{}", path.display());
            objects += 1;
        }
    }
    assert!(objects > 5, "{objects}");
}

/// Every object every example scenario leaves in the store (statuses, events, leases), as `kubectl get -o yaml`
/// writes it.
#[test]
fn writes_the_objects_of_example_runs_as_serde_yaml_does() {
    use crate::manifest::ObjectText;
    let mut objects = 0;
    for path in crate::testing::example_files() {
        let text = std::fs::read_to_string(&path).expect("example");
        let Ok(scenario) = crate::Scenario::parse(&text) else { continue };
        let Ok(mut run) = scenario.start(crate::RunOptions::default()) else { continue };
        let until = run.until();
        run.run_to(until);
        for kind in crate::api::Kind::ALL {
            for o in run.sim().store().objects(kind) {
                let json = o.to_json();
                assert_eq!(json_to_string(&json), serde_yaml::to_string(&json).expect("yaml"), "{}", path.display());
                objects += 1;
            }
        }
    }
    assert!(objects > 1000, "{objects}");
}
