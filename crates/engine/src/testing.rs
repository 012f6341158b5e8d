//! Test helpers shared by the crate's unit tests: seeded edits of YAML texts, for the differential tests of the
//! table-driven decoders against serde_yaml.

/// Values a mutation writes in place of a field's value: every kind of YAML scalar, tag and collection.
pub(crate) const VALUES: &[&str] = &[
    "~",
    "null",
    "",
    "\"\"",
    "''",
    "\"3\"",
    "'x'",
    "3",
    "-3",
    "+3",
    "0",
    "-0",
    "0x1F",
    "-0x10",
    "0o17",
    "0b101",
    "010",
    "+010",
    "3000000000",
    "-3000000000",
    "99999999999999999999",
    "-99999999999999999999",
    "999999999999999999999999999999999999999999",
    "1.5",
    "-2.0",
    "1e3",
    "1e300",
    "1e-7",
    ".inf",
    "-.inf",
    ".nan",
    "+.inf",
    "true",
    "False",
    "yes",
    "[a, b]",
    "[]",
    "{}",
    "{a: b}",
    "[1, {x: y}]",
    "!!str 3",
    "!!int 3",
    "!!int \"3\"",
    "!!int x",
    "!!bool yes",
    "!!bool true",
    "!!float 1",
    "!!float x",
    "!!null ~",
    "!!null x",
    "!!str",
    "!foo bar",
    "!foo {a: 1}",
    "!foo [1]",
    "! x",
    "\"2026-01-01T00:00:00Z\"",
    "2026-01-01T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "250m",
    "\"25%\"",
    "25%",
    "128Mi",
    "1Gi",
    "lots",
    "-1",
    "In",
    "Exists",
    "Gt",
    "in",
    "Running",
    "Pending",
    "abc",
    "\" a b \"",
    "\"line\\nbreak\"",
    "[[[]]]",
    "{a: [b, {c: ~}]}",
    "é",
    "\"\\u00e9\"",
    "0.5",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775808",
    "18446744073709551615",
    "'12'",
    "\"abc\"",
    "1_000",
    "0x",
    "-",
    "*",
    "&a x",
    "|",
    ">",
    "{a: 1, a: 2}",
    "[a: b]",
    "\"\\t\"",
];

/// Keys a mutation adds: unknown, real but unsimulated, a duplicate, not text, or oddly written.
pub(crate) const KEYS: &[&str] = &[
    "foo",
    "livenessProbe",
    "affinity",
    "hostNetwork",
    "managedFields",
    "selfLink",
    "status",
    "name",
    "type",
    "1",
    "true",
    "~",
    "\"quoted\"",
    "'name'",
    "[a]",
    "{a: b}",
    "!!str name",
    "!x name",
    "? k",
    "podCIDRs",
    "claims",
    "volumes",
    "replicas",
    "image",
    "metadata",
    "spec",
    "kind",
    "apiVersion",
    "rollingUpdate",
    "values",
    "key",
];

/// One seeded edit of `base`: a value replaced, a key added, a line removed or repeated, or an indent changed.
pub(crate) fn mutate(base: &str, rng: &mut crate::rng::Rng, more_keys: &[&str]) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for _ in 0..=rng.range(0, 2) {
        let i = rng.range(0, lines.len() as u64 - 1) as usize;
        let line = lines[i].clone();
        let indent = line.len() - line.trim_start_matches([' ', '-']).len();
        let pick =
            |rng: &mut crate::rng::Rng, from: &[&str]| from[rng.range(0, from.len() as u64 - 1) as usize].to_string();
        match rng.range(0, 7) {
            0..=2 => {
                if let Some(colon) = line.find(": ").or_else(|| line.ends_with(':').then(|| line.len() - 1)) {
                    lines[i] = format!("{}: {}", &line[..colon], pick(rng, VALUES));
                }
            }
            3 | 4 => {
                let key = if !more_keys.is_empty() && rng.chance(0.5) { pick(rng, more_keys) } else { pick(rng, KEYS) };
                let value = pick(rng, VALUES);
                lines.insert(i + 1, format!("{}{key}: {value}", " ".repeat(indent)));
            }
            5 => {
                lines.remove(i);
            }
            6 => lines.insert(i, line),
            _ => {
                let shift = rng.range(0, 3) as usize;
                lines[i] = format!("{}{}", " ".repeat(shift), line);
            }
        }
        if lines.is_empty() {
            break;
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The repository's YAML examples: scenarios, lessons, manifests and the wasm check's scenarios.
pub(crate) fn example_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for dir in ["examples", "examples/lessons", "examples/manifests", "crates/wasm-check/scenarios"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "yaml") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}
