//! kubectl, backed by the simulated API: every command is API calls under the `kubectl` client (`sim.user`),
//! counted by the store and delivered to watchers like any other client's. The parser, the calls and the
//! output formatting live here; the page's console and the `kubeloop` runner only pass lines in and print what
//! comes out.
//!
//! One file per command family: `get` (and the row printers `-w` reuses), `describe`, `apply`, `create`,
//! `delete`, `scale`, `set`, `label` (label, annotate), `node` (cordon, uncordon, drain, taint), `rollout`, `top`,
//! `explain`, `info` (api-resources, version); `jsonpath` is client-go's JSONPath, which get's `-o jsonpath`,
//! `-o custom-columns` and `--sort-by` walk. `args` parses words and flags like pflag, `dry_run` reads
//! `--dry-run` for every command that may write, `resource` resolves resource names like discovery, `table` lays out columns like kubectl's tabwriter, `complete` offers tab
//! completions.

mod apply;
pub mod args;
mod complete;
mod create;
mod delete;
mod describe;
mod dry_run;
mod explain;
pub use explain::{docs_loaded, load_docs, DOCS_FILE};
mod get;
mod info;
mod jsonpath;
mod label;
mod node;
pub mod resource;
mod rollout;
mod scale;
mod set;
pub mod table;
mod top;

use std::fmt;

pub use apply::{
    apply, apply_each, apply_output, from_json, three_way, ApplyAction, ApplyReport, ApplyResult, Applying,
    LAST_APPLIED,
};
pub use complete::complete;

use crate::sim::Sim;
use crate::store::ApiError;
use args::{Args, Flag};

/// What a command may read besides the cluster.
pub struct Input<'a> {
    /// `-f -`: standard input (the page: the editor's text).
    pub stdin: Option<&'a str>,
    /// `-f NAME`: reads a file (the page: its named examples; the runner: the file system). The error is
    /// printed as is.
    pub read_file: &'a dyn Fn(&str) -> Result<String, String>,
}

impl Input<'_> {
    /// No standard input and no files.
    pub fn none() -> Input<'static> {
        fn no_file(name: &str) -> Result<String, String> {
            Err(format!("the path \"{name}\" does not exist"))
        }
        Input { stdin: None, read_file: &no_file }
    }
}

/// A command that keeps printing after it returns (`get -w`, `events -w`, `rollout status`, `delete` waiting for
/// the objects to go, `drain` waiting for evictions): polled as simulated time passes, on its own grid of times
/// from its own start (`scenario::FollowGrid`), stopped by the user (Ctrl+C) or when it says it is done.
pub trait Follow {
    /// Output produced since the last poll, and whether the command has finished.
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll;
    /// Ctrl+C: release what the command holds (its watch).
    fn stop(&mut self, sim: &mut Sim);
    /// Whether a poll may write (`drain` evicts as it goes); the others only read. Such a command is not stopped
    /// by the next line typed in the page's console (as in a terminal of its own), and the runner bounds the two
    /// kinds apart, so that commands that only read never decide what one that writes does.
    fn writes(&self) -> bool {
        false
    }
    /// What the command printed already and has not handed out yet, without looking at the cluster: a page shows
    /// it at once, while polls keep the runner's times (a poll may write: drain evicts when it looks).
    fn pending(&mut self) -> FollowPoll {
        FollowPoll::default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FollowPoll {
    /// `Warning: ...` lines, which kubectl prints (on stderr) before what follows them.
    pub warnings: String,
    pub stdout: String,
    pub stderr: String,
    pub done: bool,
    /// The exit code when done.
    pub code: i32,
}

/// What a command printed, its exit code, and, for commands that keep running, how to follow them.
#[derive(Default)]
pub struct Output {
    /// `Warning: ...` lines (and klog's warnings): kubectl prints them on stderr, before its stdout.
    pub warnings: String,
    pub stdout: String,
    pub stderr: String,
    /// 0 on success, 1 on failure (kubectl's codes).
    pub code: i32,
    pub follow: Option<Box<dyn Follow>>,
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output")
            .field("warnings", &self.warnings)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .field("code", &self.code)
            .field("follow", &self.follow.is_some())
            .finish()
    }
}

impl Output {
    /// Success with this text on stdout.
    pub fn ok(stdout: impl Into<String>) -> Output {
        Output { stdout: stdout.into(), ..Default::default() }
    }

    /// kubectl's `error: ...` on stderr, exit code 1.
    pub fn error(msg: impl fmt::Display) -> Output {
        Output { stderr: format!("error: {msg}\n"), code: 1, ..Default::default() }
    }

    /// An API error as kubectl prints it: `Error from server (NotFound): pods "x" not found`.
    pub fn api_error(e: &ApiError) -> Output {
        Output { stderr: format!("{}\n", api_error_line(e)), code: 1, ..Default::default() }
    }

    /// Warnings, stdout, then stderr, as a terminal shows them when both go to it.
    pub fn text(&self) -> String {
        format!("{}{}{}", self.warnings, self.stdout, self.stderr)
    }

    /// Adds a `Warning: ...` line.
    pub fn warn(&mut self, msg: impl fmt::Display) {
        self.warnings.push_str(&format!("Warning: {msg}\n"));
    }

    /// Appends another part of a multi-object command's output; the exit code is 1 if either part failed.
    /// Error lines on stderr, each failing the command.
    pub fn fail_with(&mut self, errors: impl IntoIterator<Item = String>) {
        for e in errors {
            self.stderr.push_str(&e);
            self.stderr.push('\n');
            self.code = 1;
        }
    }

    pub fn push(&mut self, other: Output) {
        self.warnings.push_str(&other.warnings);
        self.stdout.push_str(&other.stdout);
        self.stderr.push_str(&other.stderr);
        self.code = self.code.max(other.code);
        if other.follow.is_some() {
            self.follow = other.follow;
        }
    }
}

/// kubeloop's bound on what one command prints ([`crate::limits::OUTPUT_MAX_BYTES`]): objects are printed while
/// it lasts, so a large output is never built whole.
pub(crate) struct Budget {
    left: usize,
    shown: usize,
    left_out: usize,
}

impl Budget {
    pub(crate) fn new() -> Budget {
        Budget { left: crate::limits::OUTPUT_MAX_BYTES, shown: 0, left_out: 0 }
    }

    /// Whether the bound is reached: every further object is left out (counted with [`Budget::skip`]).
    pub(crate) fn full(&self) -> bool {
        self.left_out > 0
    }

    /// Counts an object left out without measuring it.
    pub(crate) fn skip(&mut self) {
        self.left_out += 1;
    }

    /// Whether one more object of `bytes` may be printed; counts it as shown or left out.
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        if self.left_out == 0 && bytes <= self.left {
            self.left -= bytes;
            self.shown += 1;
            true
        } else {
            self.left_out += 1;
            false
        }
    }

    /// The note for stderr when objects were left out (empty otherwise).
    pub(crate) fn note(&self) -> String {
        if self.left_out == 0 {
            return String::new();
        }
        format!(
            "kubeloop: output stopped at {} MiB (kubeloop's bound): {} shown, {} more not printed; narrow it with a name, -l or -n\n",
            crate::limits::OUTPUT_MAX_BYTES >> 20,
            self.shown,
            self.left_out
        )
    }
}

/// `Error from server (Reason): message`.
pub fn api_error_line(e: &ApiError) -> String {
    format!("Error from server ({}): {e}", e.reason())
}

/// One kubectl command.
pub struct Command {
    pub name: &'static str,
    /// The line in `kubectl --help`.
    pub summary: &'static str,
    /// The `Usage:` line of `kubectl CMD --help`.
    pub usage: &'static str,
    pub flags: &'static [Flag],
    /// Runs the command: `Err` is an early exit (an error, as a rule) that `?` propagates; either is what
    /// kubectl prints, with its exit code.
    pub run: fn(&mut Sim, &Args, &Input) -> Result<Output, Output>,
}

/// Every command kubeloop runs, in `kubectl --help` order.
pub const COMMANDS: &[Command] = &[
    create::COMMAND,
    set::COMMAND,
    explain::COMMAND,
    get::COMMAND,
    delete::COMMAND,
    rollout::COMMAND,
    scale::COMMAND,
    top::COMMAND,
    node::CORDON,
    node::UNCORDON,
    node::DRAIN,
    node::TAINT,
    describe::COMMAND,
    get::EVENTS,
    apply::COMMAND,
    label::LABEL,
    label::ANNOTATE,
    info::API_RESOURCES,
    info::VERSION,
];

/// Real kubectl commands kubeloop does not simulate, and why.
const NOT_SIMULATED: &[(&str, &str)] = &[
    ("logs", "containers in kubeloop run no processes, so there are no logs"),
    ("exec", "containers in kubeloop run no processes"),
    ("attach", "containers in kubeloop run no processes"),
    ("cp", "containers in kubeloop have no file systems"),
    ("port-forward", "kubeloop simulates no network"),
    ("proxy", "kubeloop simulates no network"),
    ("expose", "write the Service in the editor (or a file) and apply it"),
    ("run", "use `kubectl create deployment NAME --image=IMAGE`, or apply a Pod from the editor"),
    ("edit", "edit the YAML in the editor and apply it, or use `kubectl set image` / `kubectl scale`"),
    ("patch", "edit the YAML in the editor and apply it, or use `kubectl set image`, `scale`, `label`"),
    ("replace", "use `kubectl apply -f -` with the editor's text"),
    ("autoscale", "kubeloop does not simulate HorizontalPodAutoscalers"),
    ("debug", "containers in kubeloop run no processes"),
    ("auth", "kubeloop's API server has no authorization"),
    ("certificate", "kubeloop's API server has no certificates"),
    ("cluster-info", "kubeloop's control plane runs inside this page"),
    ("config", "there is one cluster and one context: this one"),
    ("wait", "watch the cluster, or use `kubectl rollout status`"),
    ("diff", "apply from the editor shows what changed"),
    ("kustomize", "kubeloop has no file system to build from"),
    ("api-versions", "use `kubectl api-resources`"),
    ("plugin", "kubeloop has no plugins"),
    ("completion", "the console completes with Tab"),
];

/// Whether a command line may write (so a recorded run must keep it): every command but the ones that only read
/// (`get`, `describe`, `explain`, `events`, `api-resources`, `version`, `top`, `rollout status|history`, help
/// and lines that do not split or name no command), and but a dry run (`--dry-run=client|server`), which writes
/// nothing.
pub fn writes(line: &str) -> bool {
    let t = line.trim();
    let t = ["kubectl", "k"]
        .iter()
        .find_map(|k| t.strip_prefix(k).filter(|r| r.is_empty() || r.starts_with(char::is_whitespace)))
        .map_or(t, str::trim_start);
    let Ok(words) = args::split_words(t) else { return false };
    let mut i = 0;
    while let Some(w) = words.get(i).map(String::as_str) {
        if w == "-n" || w == "--namespace" {
            i += 2;
        } else if w.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let may_write = match words.get(i).map(String::as_str) {
        None | Some("get" | "describe" | "explain" | "events" | "api-resources" | "version" | "top" | "help") => None,
        Some("rollout") if matches!(words.get(i + 1).map(String::as_str), Some("status" | "history") | None) => None,
        Some(cmd) => COMMANDS.iter().find(|c| c.name == cmd),
    };
    may_write.is_some_and(|c| {
        let dry = Args::parse(&words[i + 1..], c.flags).ok().map(|a| dry_run::DryRun::of(&a));
        !matches!(dry, Some(Ok(dry_run::DryRun::Client | dry_run::DryRun::Server)))
    })
}

/// Runs one command line (with or without the leading `kubectl`). Never panics on any input.
pub fn run(sim: &mut Sim, line: &str, input: &Input) -> Output {
    let words = match command_words(line) {
        Ok(w) => w,
        Err(e) => return e,
    };
    let Some(name) = words.first() else { return Output::ok(help()) };
    if name == "help" || name == "--help" || name == "-h" {
        return match words.get(1).and_then(|n| find(n)) {
            Some(c) => Output::ok(command_help(c)),
            None => Output::ok(help()),
        };
    }
    if name.starts_with('-') {
        return Output::error(format!("unknown flag: {name}\nSee 'kubectl --help' for usage."));
    }
    let Some(cmd) = find(name) else {
        if let Some((_, why)) = NOT_SIMULATED.iter().find(|(n, _)| n == name) {
            return Output::error(format!("\"kubectl {name}\" is not simulated by kubeloop: {why}"));
        }
        return unknown_command(name);
    };
    let parsed = match Args::parse(&words[1..], cmd.flags) {
        Ok(a) => a,
        Err(e) => return Output::error(format!("{e}\nSee 'kubectl {} --help' for usage.", cmd.name)),
    };
    if parsed.bool("help") {
        return Output::ok(command_help(cmd));
    }
    (cmd.run)(sim, &parsed, input).unwrap_or_else(|o| o)
}

/// A line's words from the command's name on (`kubectl` or `k` first, and the global flags before the command,
/// moved after it), or kubectl's error.
fn command_words(line: &str) -> Result<Vec<String>, Output> {
    let words = args::split_words(line).map_err(Output::error)?;
    let words: &[String] = match words.first().map(String::as_str) {
        Some("kubectl" | "k") => &words[1..],
        _ => &words,
    };
    hoist_global_flags(words).map_err(|e| Output::error(format!("{e}\nSee 'kubectl --help' for usage.")))
}

/// Whether the line runs `kubectl explain` or asks for a command's help (its flags' lines are documentation too)
/// while the documentation is not loaded: the playground's wasm fetches [`DOCS_FILE`] from its site and gives it to
/// [`load_docs`] before running it.
pub fn needs_docs(line: &str) -> bool {
    !docs_loaded() && reads_docs(line)
}

/// Whether the line prints documentation: `explain`, or a command's help (`help CMD`, `-h`, `--help`).
fn reads_docs(line: &str) -> bool {
    let Ok(w) = command_words(line) else { return false };
    w.first().is_some_and(|n| n == "explain" || n == "help")
        || w.iter().any(|a| a == "-h" || a == "--help" || a.starts_with("--help="))
}

/// `kubectl -n ns get pods`: global flags before the command move after it. A namespace flag with no value
/// is pflag's error, as the root command gives it.
fn hoist_global_flags(words: &[String]) -> Result<Vec<String>, String> {
    let mut lead = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "-n" || w == "--namespace" {
            let Some(value) = words.get(i + 1) else {
                return Err(if w == "-n" {
                    "flag needs an argument: 'n' in -n".to_string()
                } else {
                    "flag needs an argument: --namespace".to_string()
                });
            };
            lead.push(w.to_string());
            lead.push(value.clone());
            i += 2;
        } else if (w.starts_with("-n") && w.len() > 2) || w.starts_with("--namespace=") {
            lead.push(w.to_string());
            i += 1;
        } else {
            break;
        }
    }
    let mut out: Vec<String> = words[i..].to_vec();
    if !out.is_empty() {
        out.splice(1..1, lead);
    }
    Ok(out)
}

fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// cobra's "unknown command" with its suggestions (Levenshtein distance <= 2, or a prefix).
fn unknown_command(name: &str) -> Output {
    let mut msg = format!("unknown command \"{}\" for \"kubectl\"", crate::limits::echo(name));
    let all = COMMANDS.iter().map(|c| c.name).chain(NOT_SIMULATED.iter().map(|(n, _)| *n));
    // No command name is longer than 32 characters: a longer word suggests nothing (and costs no distance).
    let near = |c: &str| name.len() <= 32 && (levenshtein(name, c) <= 2 || c.starts_with(name));
    let suggestions: Vec<&str> = all.filter(|c| near(c)).collect();
    if !suggestions.is_empty() {
        msg.push_str("\n\nDid you mean this?\n");
        for s in suggestions {
            msg.push('\t');
            msg.push_str(s);
            msg.push('\n');
        }
    }
    let mut out = Output::error(msg);
    out.stderr = out.stderr.trim_end().to_string() + "\n";
    out
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(!ca.eq_ignore_ascii_case(cb));
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `kubectl --help`, listing what kubeloop runs.
pub fn help() -> String {
    let mut out = String::from(
        "kubectl controls the Kubernetes cluster manager (here: kubeloop's simulated control plane).\n\nCommands:\n",
    );
    let width = COMMANDS.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in COMMANDS {
        out.push_str(&format!("  {:width$}   {}\n", c.name, c.summary));
    }
    out.push_str("\nUsage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\n");
    out
}

/// `kubectl CMD --help`: the summary, usage and flags.
pub fn command_help(c: &Command) -> String {
    let mut out = format!("{}\n\nUsage:\n  {}\n\nOptions:\n", c.summary, c.usage);
    for f in c.flags.iter().chain(args::GLOBAL) {
        let short = f.short.map(|s| format!("-{s}, ")).unwrap_or_default();
        let arg = if f.takes_value { "=''" } else { "=false" };
        let help = explain::flag_help(c.name, f.long).unwrap_or("");
        out.push_str(&format!("    {short}--{}{arg}:\n\t{help}\n\n", f.long));
    }
    out
}

/// The namespace a command works in: `-n`, else `default`.
pub fn namespace(args: &Args) -> String {
    args.value("namespace").filter(|n| !n.is_empty()).unwrap_or("default").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimConfig;

    #[test]
    fn every_flag_of_every_command_has_its_help_line_in_the_documentation() {
        for c in COMMANDS {
            for f in c.flags.iter().chain(args::GLOBAL) {
                let line = explain::flag_help(c.name, f.long);
                assert!(line.is_some_and(|l| !l.is_empty()), "kubectl {} --{}: no -h line", c.name, f.long);
            }
        }
        let help = command_help(find("get").unwrap());
        assert!(
            help.contains("    -w, --watch=false:\n\tAfter listing/getting the requested object, watch for changes.\n")
        );
        assert!(help.contains("    -n, --namespace='':\n\tIf present, the namespace scope for this CLI request\n"));
    }

    #[test]
    fn explain_and_help_lines_are_the_ones_that_read_the_documentation() {
        for line in [
            "kubectl explain pods",
            "explain deploy.spec",
            "help get",
            "kubectl get -h",
            "get pods --help",
            "k -n a get --help=true",
        ] {
            assert!(reads_docs(line), "{line}");
        }
        for line in ["kubectl get pods", "kubectl describe pod web", "get pods -o wide", "kubectl 'explain"] {
            assert!(!reads_docs(line), "{line}");
        }
    }

    #[test]
    fn unknown_commands_suggest_like_cobra() {
        let mut sim = Sim::new(SimConfig::default());
        let out = run(&mut sim, "kubectl gte pods", &Input::none());
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.starts_with("error: unknown command \"gte\" for \"kubectl\"\n\nDid you mean this?\n\tget\n"),
            "{}",
            out.stderr
        );
        let out = run(&mut sim, "logs web", &Input::none());
        assert!(out.stderr.contains("not simulated"), "{}", out.stderr);
        let out = run(&mut sim, "get pods --bogus", &Input::none());
        assert_eq!(out.stderr, "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n");
        assert_eq!(run(&mut sim, "get 'pods", &Input::none()).code, 1);
        assert!(run(&mut sim, "", &Input::none()).stdout.contains("Commands:"));
        assert!(run(&mut sim, "kubectl --help", &Input::none()).stdout.contains("Commands:"));
        assert!(run(&mut sim, "get --help", &Input::none()).stdout.contains("Usage:"));
        assert_eq!(
            hoist_global_flags(&["-n".into(), "a".into(), "get".into(), "po".into()]).unwrap(),
            ["get", "-n", "a", "po"]
        );
        // Found by the kubectl fuzzer: a trailing namespace flag with no value indexed past the words.
        for line in ["-n", "kubectl -n", "--namespace", "-n a -n"] {
            let out = run(&mut sim, line, &Input::none());
            assert_eq!(out.code, 1, "{line}");
            assert!(out.stderr.starts_with("error: flag needs an argument: "), "{line}: {}", out.stderr);
        }
        assert!(run(&mut sim, "-n a", &Input::none()).stdout.contains("kubectl controls"));
        assert!(run(&mut sim, "--version", &Input::none()).stderr.starts_with("error: unknown flag: --version"));
    }
}
