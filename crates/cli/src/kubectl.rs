//! `kubeloop kubectl [--scenario FILE] [--at DURATION] [--seed N] [--for DURATION] [--] ARGS...`: one kubectl
//! command against a scenario's cluster at a simulated time.

use std::io::Write as _;
use std::path::Path;

use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::scenario::{self, RunOptions, Scenario};
use kubeloop_engine::time::{parse_duration, Millis, MINUTE};

use crate::{files, output, Fail};

/// The cluster without `--scenario`: three default nodes (4 CPU, 16Gi, 110 pods), nothing applied.
pub const DEFAULT_CLUSTER: &str = "cluster:\n  nodes: 3\n";
/// `--at` without `--scenario`.
pub const DEFAULT_AT: Millis = MINUTE;
/// `--for`: how long a command that follows (`get -w`, `rollout status`, `drain`) is followed at most.
pub const DEFAULT_FOR: Millis = 5 * MINUTE;

pub const USAGE: &str = "\
kubeloop kubectl: one kubectl command against a simulated cluster

Usage:
  kubeloop kubectl [--scenario FILE] [--at DURATION] [--seed N] [--for DURATION] [--] ARGS...

Builds the scenario's cluster (without --scenario: 3 nodes of 4 CPU, 16Gi, 110 pods, nothing applied), runs it to
--at (default: the scenario's end, its `until:` or 5m; without --scenario 1m), runs `kubectl ARGS...` and prints
what kubectl prints, exiting with kubectl's exit code. A command that keeps printing (get -w, rollout status, drain)
is followed as simulated time passes, for at most --for (default 5m); the scenario's later actions happen at their
times meanwhile. kubeloop's options come before the kubectl command; `--` ends them. -f PATH reads a regular file
(or a directory's .yaml, .yml and .json files) relative to the current directory, -f - reads standard input, at
most 4 MiB; the scenario's own kubectl actions read only inside the scenario's folder.
";

/// Runs the subcommand; returns kubectl's exit code.
pub fn run(args: &[String]) -> Result<u8, Fail> {
    let mut opts: Vec<(&str, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            i += 1;
            break;
        }
        let Some(opt) = a.strip_prefix("--") else { break };
        let (name, inline) = match opt.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (opt, None),
        };
        let Some(name) = ["scenario", "at", "seed", "for", "max-events"].into_iter().find(|n| *n == name) else {
            break;
        };
        i += 1;
        let value = match inline {
            Some(v) => v,
            None => {
                let v = args.get(i).ok_or_else(|| Fail(format!("kubectl: --{name} needs a value")))?;
                i += 1;
                v.clone()
            }
        };
        if opts.iter().any(|(n, _)| *n == name) {
            return Err(Fail(format!("kubectl: --{name} given twice")));
        }
        opts.push((name, value));
    }
    let kargs = &args[i..];
    let value = |name: &str| opts.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str());
    let duration = |name: &str| -> Result<Option<Millis>, Fail> {
        value(name).map(|v| parse_duration(v).map_err(|e| Fail(format!("kubectl: --{name}: {e}")))).transpose()
    };
    let seed = match value("seed") {
        None => None,
        Some(v) => {
            Some(v.parse::<u64>().map_err(|_| Fail(format!("kubectl: --seed must be a whole number, not {v:?}")))?)
        }
    };
    let max_events = match value("max-events") {
        None => None,
        Some(v) => Some(
            v.parse::<u64>().map_err(|_| Fail(format!("kubectl: --max-events must be a whole number, not {v:?}")))?,
        ),
    };
    let at = duration("at")?;
    let follow_for = duration("for")?.unwrap_or(DEFAULT_FOR);

    // `kubeloop kubectl`, `--help`: kubectl's help, then how kubeloop runs it. Nothing to simulate.
    if kargs.is_empty() || (kargs.len() == 1 && matches!(kargs[0].as_str(), "--help" | "-h" | "help")) {
        return output(&format!("{}\n{USAGE}", kubectl::help())).map(|_| 0);
    }

    let file = value("scenario");
    let sc = match file {
        Some(f) => {
            let text = files::read_scenario(f).map_err(|e| Fail(format!("{f}: {e}")))?;
            Scenario::parse(&text).map_err(|e| Fail(format!("{f}: {e}")))?
        }
        None => Scenario::parse(DEFAULT_CLUSTER).map_err(|e| Fail(format!("the default cluster: {e}")))?,
    };
    let at = match (at, file) {
        (Some(t), _) => t,
        (None, Some(_)) => sc.until.unwrap_or(scenario::DEFAULT_UNTIL),
        (None, None) => DEFAULT_AT,
    };
    let end = at.saturating_add(follow_for);
    if end > scenario::MAX_UNTIL {
        return Err(Fail(format!(
            "kubectl: --at plus --for: a run lasts at most {}",
            kubeloop_engine::time::human_duration(scenario::MAX_UNTIL)
        )));
    }

    let base = file.map_or(Path::new("."), files::dir_of);
    let scenario_reader = files::Reader::new(files::Scope::Inside(base));
    let read_scenario_file = |name: &str| scenario_reader.read(name);
    let opts = RunOptions { seed, until: Some(end), read_file: Some(&read_scenario_file), max_events, timing: None };
    let mut run = sc.start(opts).map_err(|e| Fail(format!("{}: {e}", file.unwrap_or("the default cluster"))))?;
    run.run_to(at);
    if let Some(t) = run.stopped_at_budget() {
        print(
            "",
            &format!(
                "kubeloop: the run reached its work budget at {}, before --at {}; set another with --max-events N (0: none)\n",
                kubeloop_engine::time::human_duration(t),
                kubeloop_engine::time::human_duration(at)
            ),
        )?;
        return Ok(3);
    }

    let stdin = if reads_stdin(kargs) { Some(files::read_stdin().map_err(Fail)?) } else { None };
    let reader = files::Reader::new(files::Scope::From(Path::new(".")));
    let read_file = |name: &str| reader.read(name);
    let input = Input { stdin: stdin.as_deref(), read_file: &read_file };
    let line: Vec<String> = kargs.iter().map(|a| shell_word(a)).collect();
    let out = kubeloop_engine::intervention::kubectl_typed(run.sim_mut(), &line.join(" "), &input);
    print("", &out.warnings)?;
    print(&out.stdout, &out.stderr)?;
    let mut code = out.code;
    if let Some(mut follow) = out.follow {
        let mut grid = scenario::FollowGrid::new(run.now());
        loop {
            if let Some(t) = run.stopped_at_budget() {
                follow.stop(run.sim_mut());
                print(
                    "",
                    &format!(
                        "kubeloop: stopped following at {}: the run reached its work budget (--max-events)\n",
                        kubeloop_engine::time::human_duration(t)
                    ),
                )?;
                code = 3;
                break;
            }
            if run.now() >= end {
                follow.stop(run.sim_mut());
                print(
                    "",
                    &format!(
                        "kubeloop: stopped following at {} after --for {} of simulated time\n",
                        kubeloop_engine::time::human_duration(run.now()),
                        kubeloop_engine::time::human_duration(follow_for)
                    ),
                )?;
                break;
            }
            run.run_to(grid.next().min(end));
            grid.polled(run.now());
            let p = follow.poll(run.sim_mut());
            print("", &p.warnings)?;
            print(&p.stdout, &p.stderr)?;
            if p.done {
                code = p.code;
                break;
            }
        }
    }
    Ok(code.clamp(0, 255) as u8)
}

/// stdout, then stderr, each flushed: a follow prints as it goes.
fn print(stdout: &str, stderr: &str) -> Result<(), Fail> {
    if !stdout.is_empty() {
        output(stdout)?;
    }
    if !stderr.is_empty() {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(stderr.as_bytes()).and_then(|_| err.flush());
    }
    Ok(())
}

/// Whether the command reads standard input: `-f -`, `-f-`, `-f=-`, `--filename -`, `--filename=-`.
fn reads_stdin(args: &[String]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        matches!(a.as_str(), "-f-" | "-f=-" | "--filename=-")
            || (a == "-" && i > 0 && matches!(args[i - 1].as_str(), "-f" | "--filename"))
    })
}

/// A word quoted so that kubectl's word splitter gives it back unchanged.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_survive_the_round_trip() {
        let words = ["get", "pods", "-l", "app in (a, b)", "it's", "", "-o=jsonpath={.items[*]}"];
        let line: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
        assert_eq!(kubectl::args::split_words(&line.join(" ")), Ok(words.iter().map(|w| w.to_string()).collect()));
    }

    #[test]
    fn stdin_only_for_dash_f_dash() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(reads_stdin(&v(&["apply", "-f", "-"])));
        assert!(reads_stdin(&v(&["apply", "--filename=-"])));
        assert!(!reads_stdin(&v(&["apply", "-f", "x.yaml"])));
        assert!(!reads_stdin(&v(&["get", "-"])));
    }
}
