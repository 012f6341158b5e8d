//! The command line: shell-style words, then cobra/pflag-style flags (`-n ns`, `-nns`, `--namespace ns`,
//! `--namespace=ns`, `-oyaml`, `-o=wide`, bool flags with or without `=true|false`, `--` ends the flags).

/// Splits a line into words the way a POSIX shell would for a simple command: whitespace separates words,
/// single quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash escapes the next
/// character. Variables, globs and pipes are not interpreted.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quoted string: missing '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err("unterminated quoted string: missing \"".into()),
                        },
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quoted string: missing \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// One flag a command accepts. Its `-h` line is documentation, loaded with explain's ([`super::explain::flag_help`]).
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    pub long: &'static str,
    pub short: Option<char>,
    /// Takes a value (`--replicas=3`); otherwise a bool flag.
    pub takes_value: bool,
    /// pflag's `NoOptDefVal`: the value of the flag given alone (`--dry-run`); its value is then only ever given
    /// with `=` (`--dry-run=server`), never as the next word.
    pub no_opt: Option<&'static str>,
}

impl Flag {
    /// Whether a value given apart from the flag is the next word (`-n ns`, `--replicas 3`).
    pub fn value_in_next_word(&self) -> bool {
        self.takes_value && self.no_opt.is_none()
    }
}

/// A flag that takes a value.
pub const fn value(long: &'static str, short: Option<char>) -> Flag {
    Flag { long, short, takes_value: true, no_opt: None }
}

/// A flag that takes a value, and means `no_opt` when given alone (pflag's `NoOptDefVal`).
pub const fn optional(long: &'static str, no_opt: &'static str) -> Flag {
    Flag { long, short: None, takes_value: true, no_opt: Some(no_opt) }
}

/// A bool flag.
pub const fn switch(long: &'static str, short: Option<char>) -> Flag {
    Flag { long, short, takes_value: false, no_opt: None }
}

/// Flags every command accepts (kubectl's global flags that mean something here).
pub const GLOBAL: &[Flag] = &[value("namespace", Some('n')), switch("help", Some('h'))];

/// The parsed command line of one command: positional words and flag values (the last one wins, as in pflag;
/// every value is kept for flags that may repeat).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    pub positional: Vec<String>,
    /// Each flag given, in the order first given, with its values (a command has a few: a list, not a map).
    flags: Vec<(&'static str, Vec<String>)>,
}

impl Args {
    /// The values of flag `long` as given so far, to add to.
    fn values_mut(&mut self, long: &'static str) -> &mut Vec<String> {
        let i = match self.flags.iter().position(|(l, _)| *l == long) {
            Some(i) => i,
            None => {
                self.flags.push((long, Vec::new()));
                self.flags.len() - 1
            }
        };
        &mut self.flags[i].1
    }

    /// The values of flag `long`, if it was given.
    fn given(&self, long: &str) -> Option<&Vec<String>> {
        self.flags.iter().find(|(l, _)| *l == long).map(|(_, v)| v)
    }

    /// Parses `words` (after the command name) against `flags` plus [`GLOBAL`]. Errors are kubectl's messages
    /// without the `error: ` prefix.
    pub fn parse(words: &[String], flags: &[Flag]) -> Result<Args, String> {
        let find_long = |name: &str| flags.iter().chain(GLOBAL).find(|f| f.long == name).copied();
        let find_short = |c: char| flags.iter().chain(GLOBAL).find(|f| f.short == Some(c)).copied();
        let mut out = Args::default();
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            i += 1;
            if w == "--" {
                out.positional.extend(words[i..].iter().cloned());
                break;
            }
            if let Some(body) = w.strip_prefix("--") {
                let (name, inline) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (body, None),
                };
                let Some(flag) = find_long(name) else { return Err(format!("unknown flag: --{name}")) };
                let v = if flag.takes_value {
                    match (inline, flag.no_opt) {
                        (Some(v), _) => v,
                        (None, Some(v)) => v.to_string(),
                        (None, None) if i < words.len() => {
                            i += 1;
                            words[i - 1].clone()
                        }
                        (None, None) => return Err(format!("flag needs an argument: --{name}")),
                    }
                } else {
                    bool_value(name, inline.as_deref())?
                };
                out.values_mut(flag.long).push(v);
                continue;
            }
            if w.len() > 1 && w.starts_with('-') && !w[1..].starts_with(|c: char| c.is_ascii_digit()) {
                // A group of shorthands: `-A`, `-oyaml`, `-o=wide`, `-nkube-system`, `-Aw`.
                let body = &w[1..];
                for (pos, c) in body.char_indices() {
                    let Some(flag) = find_short(c) else {
                        return Err(format!("unknown shorthand flag: '{c}' in {w}"));
                    };
                    if flag.takes_value {
                        let rest = &body[pos + c.len_utf8()..];
                        let v = if let Some(v) = rest.strip_prefix('=') {
                            v.to_string()
                        } else if !rest.is_empty() {
                            rest.to_string()
                        } else if i < words.len() {
                            i += 1;
                            words[i - 1].clone()
                        } else {
                            return Err(format!("flag needs an argument: '{c}' in -{c}"));
                        };
                        out.values_mut(flag.long).push(v);
                        break;
                    }
                    let rest = &body[pos + c.len_utf8()..];
                    if let Some(v) = rest.strip_prefix('=') {
                        out.values_mut(flag.long).push(bool_value(flag.long, Some(v))?);
                        break;
                    }
                    out.values_mut(flag.long).push("true".into());
                }
                continue;
            }
            out.positional.push(w.clone());
        }
        Ok(out)
    }

    /// The flag's last value, if given.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.given(long).and_then(|v| v.last()).map(String::as_str)
    }

    /// Every value given for a flag (`-f a -f b`).
    pub fn values(&self, long: &str) -> &[String] {
        self.given(long).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether a flag was given at all.
    pub fn has(&self, long: &str) -> bool {
        self.given(long).is_some()
    }

    /// A bool flag: given without a value or with `=true`.
    pub fn bool(&self, long: &str) -> bool {
        self.value(long) == Some("true")
    }

    /// A flag's value as an integer: kubectl's message when it is not one.
    pub fn int(&self, long: &str) -> Result<Option<i64>, String> {
        match self.value(long) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|e: std::num::ParseIntError| {
                // strconv.ParseInt's two errors: a number past int64 is out of range, anything else bad syntax.
                let why = match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => "value out of range",
                    _ => "invalid syntax",
                };
                let v = crate::limits::echo(v);
                format!("invalid argument \"{v}\" for \"--{long}\" flag: strconv.ParseInt: parsing \"{v}\": {why}")
            }),
        }
    }
}

fn bool_value(name: &str, v: Option<&str>) -> Result<String, String> {
    match v {
        None | Some("true" | "1" | "t" | "T" | "TRUE" | "True") => Ok("true".into()),
        Some("false" | "0" | "f" | "F" | "FALSE" | "False") => Ok("false".into()),
        Some(v) => Err(format!(
            "invalid argument \"{v}\" for \"--{name}\" flag: strconv.ParseBool: parsing \"{v}\": invalid syntax"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split_words(s).unwrap_or_default()
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(words("get  pods -l 'app in (a, b)'"), ["get", "pods", "-l", "app in (a, b)"]);
        assert_eq!(words(r#"label po x "a=b c" d\ e"#), ["label", "po", "x", "a=b c", "d e"]);
        assert_eq!(words(r#""say \"hi\"""#), [r#"say "hi""#]);
        assert_eq!(words("''"), [""]);
        assert!(split_words("get 'pods").is_err());
        assert!(words("   ").is_empty());
    }

    const FLAGS: &[Flag] = &[
        value("output", Some('o')),
        switch("all-namespaces", Some('A')),
        switch("watch", Some('w')),
        value("replicas", None),
        value("selector", Some('l')),
        optional("dry-run", "unchanged"),
    ];

    #[test]
    fn flags_parse_like_pflag() {
        let a = Args::parse(&words("pods -n kube-system -oyaml --replicas=3 -Aw x"), FLAGS).unwrap_or_default();
        assert_eq!(a.positional, ["pods", "x"]);
        assert_eq!(a.value("namespace"), Some("kube-system"));
        assert_eq!(a.value("output"), Some("yaml"));
        assert_eq!(a.int("replicas"), Ok(Some(3)));
        assert!(a.bool("all-namespaces") && a.bool("watch"));
        let a = Args::parse(&words("-o=wide --namespace=a -nb --watch=false"), FLAGS).unwrap_or_default();
        assert_eq!(a.value("output"), Some("wide"));
        assert_eq!(a.value("namespace"), Some("b"));
        assert!(!a.bool("watch") && a.has("watch"));
        let a = Args::parse(&words("-- -x --y"), FLAGS).unwrap_or_default();
        assert_eq!(a.positional, ["-x", "--y"]);
        // NoOptDefVal: alone, the flag has its own value and leaves the next word alone.
        let a = Args::parse(&words("--dry-run node-1"), FLAGS).unwrap_or_default();
        assert_eq!(
            (a.value("dry-run"), a.positional.as_slice()),
            (Some("unchanged"), ["node-1".to_string()].as_slice())
        );
        let a = Args::parse(&words("--dry-run=server"), FLAGS).unwrap_or_default();
        assert_eq!(a.value("dry-run"), Some("server"));
    }

    #[test]
    fn bad_flags_get_pflags_messages() {
        let err = |s: &str| Args::parse(&words(s), FLAGS).err().unwrap_or_default();
        assert_eq!(err("--nope"), "unknown flag: --nope");
        assert_eq!(err("-x"), "unknown shorthand flag: 'x' in -x");
        assert_eq!(err("--replicas"), "flag needs an argument: --replicas");
        assert_eq!(err("-o"), "flag needs an argument: 'o' in -o");
        assert_eq!(
            err("--watch=maybe"),
            "invalid argument \"maybe\" for \"--watch\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax"
        );
        let a = Args::parse(&words("--replicas=x"), FLAGS).unwrap_or_default();
        assert!(a.int("replicas").is_err());
        let a = Args::parse(&words("--replicas=-9223372036854775809"), FLAGS).unwrap_or_default();
        assert_eq!(
            a.int("replicas"),
            Err("invalid argument \"-9223372036854775809\" for \"--replicas\" flag: strconv.ParseInt: parsing \"-9223372036854775809\": value out of range".into())
        );
        let a = Args::parse(&words("--replicas=9223372036854775807"), FLAGS).unwrap_or_default();
        assert_eq!(a.int("replicas"), Ok(Some(i64::MAX)));
    }
}
