//! Label selectors: `metav1.LabelSelector` (the API object), its matching semantics
//! (`labels.Selector`), kubectl's `-l` string syntax, and label key/value validation.

use super::{names, Labels, Str};
use serde::Serialize;
#[cfg(any(test, feature = "oracle"))]
use serde::{Deserialize, Deserializer};
use std::fmt;

/// A label selector as written in manifests (`spec.selector` of a Deployment, ReplicaSet, ...).
///
/// All `match_labels` pairs and all `match_expressions` must hold for a set of labels to match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// `matchLabels`: each key must be present with exactly this value.
    #[serde(default, skip_serializing_if = "Labels::is_empty", deserialize_with = "null_as_default")]
    pub match_labels: Labels,
    /// `matchExpressions`: set-based requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One set-based requirement of a [`LabelSelector`] (`matchExpressions[i]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct LabelSelectorRequirement {
    /// The label key the requirement applies to.
    pub key: Str,
    /// How the key's value is tested.
    pub operator: Operator,
    /// Values for `In`/`NotIn` (must be non-empty); must be empty for `Exists`/`DoesNotExist`.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub values: Vec<Str>,
}

/// A [`LabelSelectorRequirement`] operator, serialized exactly as in the API (`"In"`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub enum Operator {
    /// The key is present and its value is one of `values`.
    In,
    /// The key is absent, or its value is none of `values`.
    NotIn,
    /// The key is present (any value).
    Exists,
    /// The key is absent.
    DoesNotExist,
}

impl Operator {
    /// The API spelling: `"In"`, `"NotIn"`, `"Exists"` or `"DoesNotExist"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::In => "In",
            Operator::NotIn => "NotIn",
            Operator::Exists => "Exists",
            Operator::DoesNotExist => "DoesNotExist",
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Accepts an explicit `null` (as the API server does) in place of an empty list or map.
#[cfg(any(test, feature = "oracle"))]
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

impl LabelSelectorRequirement {
    /// Whether `labels` satisfy this requirement.
    pub fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.operator {
            Operator::In => value.is_some_and(|v| self.values.contains(v)),
            Operator::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }
}

impl LabelSelector {
    /// A selector requiring exactly these labels (`matchLabels` only).
    pub fn from_labels(labels: Labels) -> LabelSelector {
        LabelSelector { match_labels: labels, match_expressions: Vec::new() }
    }

    /// Whether `labels` satisfy every `matchLabels` pair and every `matchExpressions` entry.
    ///
    /// An empty selector matches everything (as `metav1.LabelSelectorAsSelector` does). Note that
    /// apps/v1 workloads forbid an empty `spec.selector` at validation time; rejecting it is the
    /// caller's job (see [`LabelSelector::is_empty`]).
    pub fn matches(&self, labels: &Labels) -> bool {
        labels.contains_all(&self.match_labels) && self.match_expressions.iter().all(|r| r.matches(labels))
    }

    /// True when there are neither `matchLabels` nor `matchExpressions` (matches everything).
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// The `matchLabels` pairs, in key order (useful to pick an index to look candidates up in).
    pub fn label_key_values(&self) -> impl Iterator<Item = (&Str, &Str)> {
        self.match_labels.iter()
    }

    /// Validates as the API server does (`ValidateLabelSelector`), with field paths relative to
    /// the selector, e.g. ``matchExpressions[0].values: Required value: must be specified when
    /// `operator` is 'In' or 'NotIn'``. Several errors are joined as `[a, b]`.
    ///
    /// An empty selector is valid here.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_at("")
    }

    /// Like [`LabelSelector::validate`], with field paths prefixed by `path`
    /// (e.g. `"spec.selector"` gives `spec.selector.matchLabels: ...`).
    pub fn validate_at(&self, path: &str) -> Result<(), String> {
        aggregate(self.problems(path).into_iter().map(|(p, what)| format!("{p}: {what}")).collect())
    }

    /// The problems `ValidateLabelSelector` finds, each as its field path (under `path`) and what is wrong
    /// (`Required value: ...`, `Invalid value: "x": ...`), in upstream's order.
    pub fn problems(&self, path: &str) -> Vec<(String, String)> {
        let mut errs = label_problems(&self.match_labels, &child(path, "matchLabels"));
        for (i, r) in self.match_expressions.iter().enumerate() {
            let rpath = format!("{}[{i}]", child(path, "matchExpressions"));
            let values_path = child(&rpath, "values");
            let problem = match r.operator {
                Operator::In | Operator::NotIn if r.values.is_empty() => Some(VALUES_REQUIRED),
                Operator::Exists | Operator::DoesNotExist if !r.values.is_empty() => Some(VALUES_FORBIDDEN),
                _ => None,
            };
            if let Some(problem) = problem {
                errs.push((values_path.clone(), problem.to_string()));
            }
            for msg in names::qualified_name(&r.key) {
                errs.push((child(&rpath, "key"), invalid_value(&r.key, &msg)));
            }
            for (j, v) in r.values.iter().enumerate() {
                for msg in names::label_value(v) {
                    errs.push((format!("{values_path}[{j}]"), invalid_value(v, &msg)));
                }
            }
        }
        errs
    }
}

const VALUES_REQUIRED: &str = "Required value: must be specified when `operator` is 'In' or 'NotIn'";
const VALUES_FORBIDDEN: &str = "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'";

/// `path.name`, or `name` when `path` is empty.
fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// A `field.Invalid` body: `Invalid value: "x": detail` (the value quoted as Go quotes it, its length bounded).
fn invalid_value(value: &str, detail: &str) -> String {
    format!("Invalid value: {}: {detail}", super::go_quote(&crate::limits::echo(value)))
}

/// A `field.Invalid` error message.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {:?}: {detail}", crate::limits::echo(value))
}

/// Joins errors like apimachinery's `utilerrors.Aggregate` (deduplicated, `[a, b]` when several).
fn aggregate(errs: Vec<String>) -> Result<(), String> {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => Ok(()),
        1 => Err(seen.pop().unwrap_or_default()),
        _ => Err(format!("[{}]", seen.join(", "))),
    }
}

impl fmt::Display for LabelSelector {
    /// kubectl's rendering (as in `Selector:` lines): requirements sorted by key, `matchLabels`
    /// as `k=v`, expressions as `k in (a,b)`, `k notin (a)`, `k`, `!k`. An empty selector renders
    /// as the empty string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<(&str, String)> =
            self.match_labels.iter().map(|(k, v)| (&**k, format!("{k}={v}"))).collect();
        for r in &self.match_expressions {
            let mut values: Vec<&str> = r.values.iter().map(|v| &**v).collect();
            crate::sort::sort(&mut values);
            let s = match r.operator {
                Operator::In => format!("{} in ({})", r.key, values.join(",")),
                Operator::NotIn => format!("{} notin ({})", r.key, values.join(",")),
                Operator::Exists => r.key.to_string(),
                Operator::DoesNotExist => format!("!{}", r.key),
            };
            parts.push((&r.key, s));
        }
        crate::sort::sort_by(&mut parts, |a, b| a.0.cmp(b.0));
        for (i, (_, s)) in parts.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(s)?;
        }
        Ok(())
    }
}

impl LabelSelector {
    /// `metav1.FormatLabelSelector`: the rendering above, `<none>` for an empty selector (which selects
    /// everything).
    pub fn format(&self) -> String {
        let text = self.to_string();
        if text.is_empty() {
            "<none>".into()
        } else {
            text
        }
    }
}

// ---------------------------------------------------------------------------------------------
// kubectl `-l` syntax (apimachinery labels.Parse)
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Ident,
    In,
    NotIn,
    Equals,
    DoubleEquals,
    NotEquals,
    Not,
    Gt,
    Lt,
    OpenPar,
    ClosePar,
    Comma,
    End,
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn symbol(s: &str) -> Option<Tok> {
    Some(match s {
        "=" => Tok::Equals,
        "==" => Tok::DoubleEquals,
        "!=" => Tok::NotEquals,
        "!" => Tok::Not,
        ">" => Tok::Gt,
        "<" => Tok::Lt,
        "(" => Tok::OpenPar,
        ")" => Tok::ClosePar,
        "," => Tok::Comma,
        _ => return None,
    })
}

/// Splits a selector string into tokens, always ending with [`Tok::End`].
fn lex(s: &str) -> Vec<(Tok, &str)> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches(is_ws);
        let Some(c) = rest.chars().next() else {
            out.push((Tok::End, ""));
            return out;
        };
        if is_special(c) {
            // Longest run of symbol characters that is still a token (all single symbols are).
            let mut best = (symbol(&rest[..1]).unwrap_or(Tok::End), 1);
            if rest.len() >= 2 && rest.is_char_boundary(2) {
                if let Some(t) = symbol(&rest[..2]) {
                    best = (t, 2);
                }
            }
            out.push((best.0, &rest[..best.1]));
            rest = &rest[best.1..];
        } else {
            let end = rest.find(|c: char| is_ws(c) || is_special(c)).unwrap_or(rest.len());
            let word = &rest[..end];
            let tok = match word {
                "in" => Tok::In,
                "notin" => Tok::NotIn,
                _ => Tok::Ident,
            };
            out.push((tok, word));
            rest = &rest[end..];
        }
    }
}

struct Parser<'a> {
    toks: Vec<(Tok, &'a str)>,
    pos: usize,
}

/// A parsed requirement before conversion to a [`LabelSelector`]: key, operator, values.
type Req<'a> = (&'a str, ReqOp, Vec<&'a str>);

/// The operator of a parsed requirement.
enum ReqOp {
    Equals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl<'a> Parser<'a> {
    /// The next token; `in`/`notin` count as identifiers unless `operator` context is asked for.
    fn peek(&self, operator: bool) -> (Tok, &'a str) {
        let (t, lit) = self.toks.get(self.pos).copied().unwrap_or((Tok::End, ""));
        match t {
            Tok::In | Tok::NotIn if !operator => (Tok::Ident, lit),
            _ => (t, lit),
        }
    }

    fn next(&mut self, operator: bool) -> (Tok, &'a str) {
        let t = self.peek(operator);
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn parse(&mut self) -> Result<Vec<Req<'a>>, String> {
        let mut reqs = Vec::new();
        loop {
            let (t, lit) = self.peek(false);
            match t {
                Tok::Ident | Tok::Not => {
                    let r = self.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?;
                    reqs.push(r);
                    match self.next(false) {
                        (Tok::End, _) => return Ok(reqs),
                        (Tok::Comma, _) => {
                            let (t2, l2) = self.peek(false);
                            if t2 != Tok::Ident && t2 != Tok::Not {
                                return Err(format!(
                                    "found '{}', expected: identifier after ','",
                                    crate::limits::echo(l2)
                                ));
                            }
                        }
                        (_, l) => {
                            return Err(format!("found '{}', expected: ',' or 'end of string'", crate::limits::echo(l)))
                        }
                    }
                }
                Tok::End => return Ok(reqs),
                _ => {
                    return Err(format!(
                        "found '{}', expected: !, identifier, or 'end of string'",
                        crate::limits::echo(lit)
                    ))
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Req<'a>, String> {
        let (mut t, mut key) = self.next(false);
        let negated = t == Tok::Not;
        if negated {
            (t, key) = self.next(false);
        }
        if t != Tok::Ident {
            return Err(format!("found '{}', expected: identifier", crate::limits::echo(key)));
        }
        let key_errs = names::qualified_name(key);
        if !key_errs.is_empty() {
            return Err(invalid("key", key, &key_errs.join("; ")));
        }
        if negated {
            return Ok((key, ReqOp::DoesNotExist, Vec::new()));
        }
        if matches!(self.peek(false).0, Tok::End | Tok::Comma) {
            return Ok((key, ReqOp::Exists, Vec::new()));
        }
        let (op, values) = match self.next(true) {
            (Tok::In, _) => (ReqOp::In, self.set_values()?),
            (Tok::NotIn, _) => (ReqOp::NotIn, self.set_values()?),
            (Tok::Equals | Tok::DoubleEquals, _) => (ReqOp::Equals, self.exact_value()?),
            (Tok::NotEquals, _) => (ReqOp::NotEquals, self.exact_value()?),
            (Tok::Gt, _) => return Err("\"gt\" isn't supported in label selectors".to_string()),
            (Tok::Lt, _) => return Err("\"lt\" isn't supported in label selectors".to_string()),
            (_, lit) => {
                return Err(format!("found '{}', expected: in, notin, =, ==, !=, gt, lt", crate::limits::echo(lit)))
            }
        };
        let mut errs = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let msgs = names::label_value(v);
            if !msgs.is_empty() {
                errs.push(invalid(&format!("values[{i}][{key}]"), v, &msgs.join("; ")));
            }
        }
        aggregate(errs)?;
        Ok((key, op, values))
    }

    /// `(a,b,c)`; empty entries stand for the empty value. Returns sorted, deduplicated values.
    fn set_values(&mut self) -> Result<Vec<&'a str>, String> {
        let (t, lit) = self.next(false);
        if t != Tok::OpenPar {
            return Err(format!("found '{}' expected: '('", crate::limits::echo(lit)));
        }
        let mut values = Vec::new();
        match self.peek(false) {
            (Tok::ClosePar, _) => {
                self.next(false);
                values.push("");
            }
            (Tok::Ident | Tok::Comma, _) => {
                let mut expect_value = true;
                loop {
                    match self.next(false) {
                        (Tok::Ident, v) if expect_value => {
                            values.push(v);
                            expect_value = false;
                        }
                        (Tok::Comma, _) => {
                            if expect_value {
                                values.push("");
                            }
                            expect_value = true;
                        }
                        (Tok::ClosePar, _) => {
                            if expect_value {
                                values.push("");
                            }
                            break;
                        }
                        (_, l) if expect_value => {
                            return Err(format!("found '{}', expected: ',', or identifier", crate::limits::echo(l)))
                        }
                        (_, l) => return Err(format!("found '{}', expected: ',' or ')'", crate::limits::echo(l))),
                    }
                }
            }
            (_, l) => return Err(format!("found '{}', expected: ',', ')' or identifier", crate::limits::echo(l))),
        }
        crate::sort::sort(&mut values);
        values.dedup();
        Ok(values)
    }

    /// The single value after `=`, `==` or `!=` (empty when omitted).
    fn exact_value(&mut self) -> Result<Vec<&'a str>, String> {
        match self.peek(false) {
            (Tok::End | Tok::Comma, _) => Ok(vec![""]),
            (Tok::Ident, v) => {
                self.next(false);
                Ok(vec![v])
            }
            (_, l) => Err(format!("found '{}', expected: identifier", crate::limits::echo(l))),
        }
    }
}

/// Parses kubectl's `-l` selector syntax into a [`LabelSelector`].
///
/// Supports `a=b`, `a==b` (both become `matchLabels`), `a!=b` (`NotIn (b)`), `a in (x,y)`,
/// `a notin (x)`, `a` (`Exists`), `!a` (`DoesNotExist`), separated by commas; whitespace is
/// ignored. The empty string gives the empty selector. Keys and values are validated like label
/// keys and values. `a>1`/`a<1` are rejected (not expressible in a `LabelSelector`). A repeated
/// equality on a key (`a=b,a=c`) keeps its meaning via an extra `In` expression.
pub fn parse_selector(s: &str) -> Result<LabelSelector, String> {
    let mut parser = Parser { toks: lex(s), pos: 0 };
    let mut reqs = parser.parse().map_err(|e| crate::limits::bound_message(&e).into_owned())?;
    crate::sort::sort_by(&mut reqs, |a, b| a.0.cmp(b.0));
    let mut sel = LabelSelector::default();
    for (key, op, values) in reqs {
        let key = Str::from(key);
        let mut values: Vec<Str> = values.into_iter().map(Str::from).collect();
        let operator = match op {
            ReqOp::Equals => {
                let value = values.pop().unwrap_or_else(|| Str::from(""));
                if !sel.match_labels.contains_key(&key) {
                    sel.match_labels.insert(key, value);
                    continue;
                }
                values = vec![value];
                Operator::In
            }
            ReqOp::NotEquals | ReqOp::NotIn => Operator::NotIn,
            ReqOp::In => Operator::In,
            ReqOp::Exists => Operator::Exists,
            ReqOp::DoesNotExist => Operator::DoesNotExist,
        };
        sel.match_expressions.push(LabelSelectorRequirement { key, operator, values });
    }
    Ok(sel)
}

// ---------------------------------------------------------------------------------------------
// Label key/value validation (apimachinery util/validation)
// ---------------------------------------------------------------------------------------------

/// The problems `ValidateLabels` finds in `labels` at `path` (keys as qualified names, values as label values).
pub fn label_problems(labels: &Labels, path: &str) -> Vec<(String, String)> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for msg in names::qualified_name(k) {
            errs.push((path.to_string(), invalid_value(k, &msg)));
        }
        for msg in names::label_value(v) {
            errs.push((path.to_string(), invalid_value(v, &msg)));
        }
    }
    errs
}

/// Validates label keys and values as the API server does for `metadata.labels`.
///
/// Keys: an optional DNS-subdomain prefix (at most 253 characters) and `/`, then a name of 1 to
/// 63 characters from `[A-Za-z0-9-_.]` starting and ending alphanumeric. Values: at most 63
/// characters, empty or of the same shape. Messages read like
/// `metadata.labels: Invalid value: "-x": name part must consist of ...`; several are joined as
/// `[a, b]`.
pub fn validate_labels(labels: &Labels) -> Result<(), String> {
    validate_labels_at(labels, "metadata.labels")
}

/// Like [`validate_labels`], with `path` as the field path in messages
/// (e.g. `"spec.template.metadata.labels"`).
pub fn validate_labels_at(labels: &Labels, path: &str) -> Result<(), String> {
    aggregate(label_problems(labels, path).into_iter().map(|(p, what)| format!("{p}: {what}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (Str::from(*k), Str::from(*v))).collect()
    }

    fn req(key: &str, operator: Operator, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: Str::from(key),
            operator,
            values: values.iter().map(|v| Str::from(*v)).collect(),
        }
    }

    #[test]
    fn a_selector_matches_when_its_labels_and_every_expression_hold() {
        let web = labels(&[("app", "web"), ("tier", "frontend")]);
        let db = labels(&[("app", "db")]);
        let none = Labels::new();

        let sel = LabelSelector::from_labels(labels(&[("app", "web")]));
        assert!(sel.matches(&web));
        assert!(!sel.matches(&db));
        assert!(!sel.matches(&none));

        let empty = LabelSelector::default();
        assert!(empty.is_empty());
        assert!(empty.matches(&web) && empty.matches(&none));

        let mut sel = LabelSelector {
            match_expressions: vec![req("tier", Operator::In, &["frontend", "cache"])],
            ..Default::default()
        };
        assert!(sel.matches(&web) && !sel.matches(&db) && !sel.matches(&none));
        sel.match_expressions = vec![req("tier", Operator::NotIn, &["frontend"])];
        assert!(!sel.matches(&web) && sel.matches(&db) && sel.matches(&none));
        sel.match_expressions = vec![req("tier", Operator::Exists, &[])];
        assert!(sel.matches(&web) && !sel.matches(&db));
        sel.match_expressions = vec![req("tier", Operator::DoesNotExist, &[])];
        assert!(!sel.matches(&web) && sel.matches(&db) && sel.matches(&none));

        // matchLabels AND expressions.
        sel.match_labels = labels(&[("app", "db")]);
        assert!(sel.matches(&db) && !sel.matches(&web) && !sel.matches(&none));
        assert!(!sel.is_empty());
        let kv: Vec<_> = sel.label_key_values().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(kv, [("app", "db")]);
    }

    #[test]
    fn selectors_round_trip_through_yaml_and_json_and_unknown_operators_fail() {
        let yaml = "matchLabels:\n  app: web\nmatchExpressions:\n- key: tier\n  operator: In\n  values:\n  - a\n  - b\n- key: canary\n  operator: DoesNotExist\n";
        let sel: LabelSelector = serde_yaml::from_str(yaml).unwrap();
        assert_eq!(sel.match_labels, labels(&[("app", "web")]));
        assert_eq!(
            sel.match_expressions,
            [req("tier", Operator::In, &["a", "b"]), req("canary", Operator::DoesNotExist, &[])]
        );
        assert_eq!(serde_yaml::to_string(&sel).unwrap(), yaml);

        let sel: LabelSelector = serde_yaml::from_str("matchLabels:\n  app: web\n").unwrap();
        assert_eq!(serde_json::to_string(&sel).unwrap(), r#"{"matchLabels":{"app":"web"}}"#);
        let sel: LabelSelector = serde_json::from_str("{}").unwrap();
        assert!(sel.is_empty());
        assert_eq!(serde_json::to_string(&sel).unwrap(), "{}");
        let sel: LabelSelector = serde_json::from_str(r#"{"matchLabels":null,"matchExpressions":null}"#).unwrap();
        assert!(sel.is_empty());
        let r: LabelSelectorRequirement = serde_yaml::from_str("key: a\noperator: Exists\nvalues: null\n").unwrap();
        assert_eq!(r, req("a", Operator::Exists, &[]));
        assert!(serde_yaml::from_str::<LabelSelectorRequirement>("key: a\noperator: Gt\n").is_err());
        assert!(serde_yaml::from_str::<LabelSelectorRequirement>("key: a\noperator: in\n").is_err());
    }

    #[test]
    fn validate_reports_bad_expression_values_keys_and_labels_as_upstream_does() {
        let mut sel = LabelSelector::default();
        assert_eq!(sel.validate(), Ok(()));
        sel.match_expressions = vec![req("tier", Operator::In, &[])];
        assert_eq!(
            sel.validate().unwrap_err(),
            "matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
        );
        sel.match_expressions = vec![req("tier", Operator::In, &["a"]), req("x", Operator::Exists, &["a"])];
        assert_eq!(
            sel.validate_at("spec.selector").unwrap_err(),
            "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        );
        sel.match_expressions = vec![req("bad key", Operator::NotIn, &["ok", "not ok"])];
        let err = sel.validate().unwrap_err();
        assert!(
            err.starts_with("[matchExpressions[0].key: Invalid value: \"bad key\": name part must consist of"),
            "{err}"
        );
        assert!(
            err.contains(
                ", matchExpressions[0].values[1]: Invalid value: \"not ok\": a valid label must be an empty string"
            ),
            "{err}"
        );
        sel.match_expressions.clear();
        sel.match_labels = labels(&[("app", "-web")]);
        let err = sel.validate_at("spec.selector").unwrap_err();
        assert!(err.starts_with("spec.selector.matchLabels: Invalid value: \"-web\": a valid label"), "{err}");
    }

    #[test]
    fn label_keys_and_values_are_validated_with_upstreams_messages() {
        let ok = labels(&[
            ("app", "web"),
            ("app.kubernetes.io/name", "my_app-1.0"),
            ("example.com/x", ""),
            ("A", "Z"),
            (&"k".repeat(63), &"v".repeat(63)),
        ]);
        assert_eq!(validate_labels(&ok), Ok(()));

        let check = |k: &str, v: &str| validate_labels(&labels(&[(k, v)]));
        assert_eq!(
            check("-app", "x").unwrap_err(),
            "metadata.labels: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
        assert_eq!(
            check("app", "web_").unwrap_err(),
            "metadata.labels: Invalid value: \"web_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        );
        assert_eq!(
            check(&"k".repeat(64), "v").unwrap_err(),
            format!(
                "metadata.labels: Invalid value: \"{}\": name part must be no more than 63 characters",
                "k".repeat(64)
            )
        );
        let err = check("app", &"v".repeat(64)).unwrap_err();
        assert!(err.contains("must be no more than 63 characters"), "{err}");
        let err = check("Example.com/x", "v").unwrap_err();
        assert!(err.contains("prefix part a lowercase RFC 1123 subdomain must consist of"), "{err}");
        assert!(err.contains("'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"), "{err}");
        let err = check("/x", "v").unwrap_err();
        assert!(err.contains("prefix part must be non-empty"), "{err}");
        let err = check("a/", "v").unwrap_err();
        assert!(err.starts_with("[metadata.labels: Invalid value: \"a/\": name part must be non-empty, "), "{err}");
        let err = check("a/b/c", "v").unwrap_err();
        assert!(err.contains("a qualified name must consist of"), "{err}");
        assert!(err.ends_with("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"), "{err}");
        assert!(check("", "v").is_err());
        assert!(check("a..b", "v").is_ok());
        assert!(check("é", "v").is_err());
        assert!(check("a", "é").is_err());
        assert!(check("a", "tab\t").is_err());
        assert!(check(&format!("{}/a", "b".repeat(254)), "v").is_err());
        assert!(check("a.-b/c", "v").is_err());
        let err = validate_labels_at(&labels(&[("a b", "c d")]), "spec.template.metadata.labels").unwrap_err();
        assert!(err.starts_with("[spec.template.metadata.labels: Invalid value: \"a b\""), "{err}");
    }

    fn p(s: &str) -> LabelSelector {
        parse_selector(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn every_selector_syntax_form_parses_into_match_labels_and_expressions() {
        assert!(p("").is_empty());
        assert!(p("  ").is_empty());
        let sel = p("app=web");
        assert_eq!(sel.match_labels, labels(&[("app", "web")]));
        assert!(sel.match_expressions.is_empty());
        assert_eq!(p("app==web"), sel);
        assert_eq!(p(" app = web "), sel);
        assert_eq!(p("app!=web").match_expressions, [req("app", Operator::NotIn, &["web"])]);
        assert_eq!(p("tier in (b, a,a)").match_expressions, [req("tier", Operator::In, &["a", "b"])]);
        assert_eq!(p("tier notin (x)").match_expressions, [req("tier", Operator::NotIn, &["x"])]);
        assert_eq!(p("tier").match_expressions, [req("tier", Operator::Exists, &[])]);
        assert_eq!(p("!tier").match_expressions, [req("tier", Operator::DoesNotExist, &[])]);
        assert_eq!(p("a=").match_labels, labels(&[("a", "")]));
        assert_eq!(p("a in ()").match_expressions, [req("a", Operator::In, &[""])]);
        assert_eq!(p("a in (,x,)").match_expressions, [req("a", Operator::In, &["", "x"])]);
        // `in`/`notin` are ordinary words as keys and values.
        assert_eq!(p("in=notin").match_labels, labels(&[("in", "notin")]));
        assert_eq!(p("in in (in)").match_expressions, [req("in", Operator::In, &["in"])]);

        let sel = p("tier in (a,b),app=web,!canary,env,x!=y,k8s.io/name notin (z)");
        assert_eq!(sel.match_labels, labels(&[("app", "web")]));
        assert_eq!(
            sel.match_expressions,
            [
                req("canary", Operator::DoesNotExist, &[]),
                req("env", Operator::Exists, &[]),
                req("k8s.io/name", Operator::NotIn, &["z"]),
                req("tier", Operator::In, &["a", "b"]),
                req("x", Operator::NotIn, &["y"]),
            ]
        );
        let web = labels(&[("app", "web"), ("tier", "a"), ("env", "prod")]);
        assert!(sel.matches(&web));

        // A repeated equality keeps AND semantics.
        let sel = p("a=b,a=c");
        assert_eq!(sel.match_labels, labels(&[("a", "b")]));
        assert_eq!(sel.match_expressions, [req("a", Operator::In, &["c"])]);
        assert!(!sel.matches(&labels(&[("a", "b")])));
    }

    #[test]
    fn malformed_selectors_fail_with_the_upstream_parsers_messages() {
        let e = |s: &str| parse_selector(s).expect_err(s);
        assert_eq!(e(","), "found ',', expected: !, identifier, or 'end of string'");
        assert_eq!(e("a,"), "found '', expected: identifier after ','");
        assert_eq!(e("a=b c"), "found 'c', expected: ',' or 'end of string'");
        assert_eq!(e("a b"), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
        assert_eq!(e("a in x"), "unable to parse requirement: found 'x' expected: '('");
        assert_eq!(e("a in (x"), "unable to parse requirement: found '', expected: ',' or ')'");
        assert_eq!(e("a in (x y)"), "unable to parse requirement: found 'y', expected: ',' or ')'");
        assert_eq!(e("a in (=)"), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
        assert_eq!(e("a in (x,=)"), "unable to parse requirement: found '=', expected: ',', or identifier");
        assert_eq!(e("a=(x)"), "unable to parse requirement: found '(', expected: identifier");
        assert_eq!(e("!"), "unable to parse requirement: found '', expected: identifier");
        assert_eq!(e("!a=b"), "found '=', expected: ',' or 'end of string'");
        assert_eq!(e("a>1"), "unable to parse requirement: \"gt\" isn't supported in label selectors");
        assert_eq!(e("a<1"), "unable to parse requirement: \"lt\" isn't supported in label selectors");
        let err = e("-a=b");
        assert!(
            err.starts_with("unable to parse requirement: key: Invalid value: \"-a\": name part must consist"),
            "{err}"
        );
        let err = e("a=-b");
        assert!(
            err.starts_with("unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label"),
            "{err}"
        );
        for s in
            ["===", "a===b", "a=b=c", "((", "a in ((x))", "é", "a=é", "\u{0}", "!!a", "a,,b", "a notin", "a in", "=="]
        {
            assert!(parse_selector(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn a_selector_prints_sorted_in_selector_syntax_that_parses_back() {
        assert_eq!(LabelSelector::default().to_string(), "");
        let sel = LabelSelector {
            match_labels: labels(&[("tier", "web"), ("app", "shop")]),
            match_expressions: vec![
                req("env", Operator::In, &["prod", "dev"]),
                req("canary", Operator::DoesNotExist, &[]),
                req("zone", Operator::NotIn, &["b"]),
                req("gpu", Operator::Exists, &[]),
            ],
        };
        let s = sel.to_string();
        assert_eq!(s, "app=shop,!canary,env in (dev,prod),gpu,tier=web,zone notin (b)");
        assert_eq!(p(&s), sel.clone().normalized_for_test());
        for s in ["app=web,tier in (a,b)", "a notin (x),!b,c", "x="] {
            assert_eq!(p(s).to_string(), s);
        }
        assert_eq!(p("a!=b").to_string(), "a notin (b)");
        assert_eq!(p("a==b").to_string(), "a=b");
    }

    impl LabelSelector {
        /// Expressions sorted by key, as `parse_selector` produces them.
        fn normalized_for_test(mut self) -> Self {
            self.match_expressions.sort_by(|a, b| a.key.cmp(&b.key));
            for r in &mut self.match_expressions {
                r.values.sort();
            }
            self
        }
    }
}
