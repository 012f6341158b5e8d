//! The syntax of names, keys and values, as apimachinery's `util/validation` checks it: each check returns the
//! messages upstream gives for a value (none when it is valid), to be placed in a field error by the caller
//! ([`crate::admission`], label selectors). The wording, double spaces included, is upstream's.

/// `MaxLenError`: `must be no more than 63 characters`.
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `RegexError`: the rule, its examples and the regex (`... (e.g. 'my-name',  or '123-abc', regex used for
/// validation is '...')`).
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

/// `InclusiveRangeError`: `must be between 1 and 65535, inclusive`.
pub fn inclusive_range_error(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_KEY_FMT: &str = "[-._a-zA-Z0-9]+";
const CONFIG_KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn dns_label_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => edge(f) && edge(l) && b.iter().all(|c| edge(c) || *c == b'-'),
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
pub fn dns_subdomain_shape(s: &str) -> bool {
    s.split('.').all(dns_label_shape)
}

/// `IsDNS1123Label`: at most 63 characters of `[a-z0-9-]`, alphanumeric at both ends.
pub fn dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !dns_label_shape(v) {
        if dns_subdomain_shape(v) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, &["my-name", "123-abc"]));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`: at most 253 characters, dot-separated labels.
pub fn dns1123_subdomain(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !dns_subdomain_shape(v) {
        errs.push(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// `IsDNS1035Label`: a DNS-1123 label that starts with a letter.
pub fn dns1035_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !(dns_label_shape(v) && v.as_bytes()[0].is_ascii_lowercase()) {
        errs.push(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errs
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `IsQualifiedName` (a label key): an optional DNS subdomain prefix and `/`, then a name of at most 63
/// characters.
pub fn qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for msg in dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {msg}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `IsValidLabelValue`: empty, or at most 63 characters shaped like a qualified name's name part.
pub fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !qualified_name_part(value) {
        errs.push(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, &["MyValue", "my_value", "12345"]));
    }
    errs
}

/// `IsConfigMapKey`: a key of a ConfigMap or a Secret.
pub fn config_map_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253));
    }
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        errs.push(regex_error(CONFIG_KEY_MSG, CONFIG_KEY_FMT, &["key.name", "KEY_NAME", "key-name"]));
    }
    match value {
        "." => errs.push("must not be '.'".to_string()),
        ".." => errs.push("must not be '..'".to_string()),
        v if v.starts_with("..") => errs.push("must not start with '..'".to_string()),
        _ => {}
    }
    errs
}

/// `IsValidPortNum`: 1 to 65535.
pub fn port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range_error(1, 65535)]
    }
}

/// `IsValidPortName`: at most 15 characters of `[-a-z0-9]`, with a letter, no `--`, no hyphen at either end.
pub fn port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(max_len_error(15));
    }
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_string());
    }
    if !port.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_string());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".to_string());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_string());
    }
    errs
}

/// `IsRelaxedEnvVarName` (RelaxedEnvironmentVariableValidation, on by default in 1.34): printable ASCII but `=`.
pub fn env_var_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.is_empty() {
        errs.push("environment variable name must be non-empty".to_string());
    }
    if value.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
        errs.push(
            "a valid environment variable name must consist only of printable ASCII characters other than '='"
                .to_string(),
        );
    }
    errs
}

/// `path.IsValidPathSegmentName`: the names every object's REST path must allow (no `.`, `..`, `/` or `%`).
pub fn path_segment_name(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"].iter().filter(|c| name.contains(*c)).map(|c| format!("may not contain '{c}'")).collect()
}

/// How a kind's names are checked (`ValidateNameFunc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: most kinds.
    DnsSubdomain,
    /// `NameIsDNSLabel`: namespaces.
    DnsLabel,
    /// `NameIsDNS1035Label`: Services.
    Dns1035Label,
    /// Only the REST path's rule (`ValidatePathSegmentName`): kinds whose validation checks no more (budgets).
    PathSegment,
}

impl NameRule {
    /// The messages for `name`; `prefix`: it is a `generateName` (a trailing `-` is allowed).
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        // maskTrailingDash
        let masked;
        let name = if prefix && name.len() > 1 && name.ends_with('-') {
            masked = format!("{}a", &name[..name.len() - 2]);
            masked.as_str()
        } else {
            name
        };
        match self {
            NameRule::DnsSubdomain => dns1123_subdomain(name),
            NameRule::DnsLabel => dns1123_label(name),
            NameRule::Dns1035Label => dns1035_label(name),
            NameRule::PathSegment => path_segment_name(name),
        }
    }
}

/// The name the API server gives an object created with only a `generateName` (`names.SimpleNameGenerator`, run
/// before validation): the prefix, cut to 58 bytes so that the name stays within 63, then the random suffix.
pub fn generated_name(prefix: &str, suffix: &str) -> String {
    const MAX_PREFIX: usize = 63 - 5;
    let mut cut = prefix.len().min(MAX_PREFIX);
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &prefix[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_upstream_messages() {
        assert!(dns1123_label("web-1").is_empty());
        assert_eq!(dns1123_label("a.b"), ["must not contain dots"]);
        assert_eq!(
            dns1123_label("Web"),
            ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert_eq!(dns1123_label(&"a".repeat(64)), ["must be no more than 63 characters"]);
        assert!(dns1035_label("web").is_empty());
        assert_eq!(
            dns1035_label("1web"),
            ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert_eq!(dns1123_subdomain(&format!("{}.", "a".repeat(253))).len(), 2);
        assert_eq!(NameRule::DnsSubdomain.check("web-", true), Vec::<String>::new());
        assert_eq!(NameRule::DnsSubdomain.check("web-", false).len(), 1);
        assert_eq!(NameRule::PathSegment.check("a/b%c", false), ["may not contain '/'", "may not contain '%'"]);
        assert_eq!(NameRule::PathSegment.check("..", false), ["may not be '..'"]);
        assert!(NameRule::PathSegment.check("My_Budget", false).is_empty());
    }

    #[test]
    fn keys_ports_and_env_names() {
        assert_eq!(config_map_key("..a"), ["must not start with '..'"]);
        assert_eq!(config_map_key("a/b").len(), 1);
        assert_eq!(config_map_key(&"a".repeat(254)), ["must be no more than 253 characters"]);
        assert!(port_name("http").is_empty());
        assert_eq!(
            port_name("-8080"),
            ["must contain at least one letter (a-z)", "must not begin or end with a hyphen"]
        );
        assert_eq!(port_name("a--b"), ["must not contain consecutive hyphens"]);
        assert_eq!(port_num(0), ["must be between 1 and 65535, inclusive"]);
        assert!(env_var_name("MY VAR.1").is_empty());
        assert_eq!(
            env_var_name("A=B"),
            ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
        );
        assert_eq!(env_var_name("").len(), 1);
    }
}
