//! `kubeloop`: runs kubeloop scenarios headless, runs one kubectl command against a scenario's cluster, and
//! benchmarks the engine.
//!
//! Exit codes: 0 success; 2 usage errors, unreadable or invalid scenario files (a run over its work budget
//! included), and output errors; 3 a run that stopped at its work budget;
//! `kubeloop kubectl` otherwise exits with kubectl's code (1 when the command failed).

mod diff;
mod files;
mod kubectl;
mod link;
mod peak;
mod scrub;
mod soak;
mod why;

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use kubeloop_engine::bench::{work_text, ColdStart, CAP};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::scenario::{self, RunOptions, Scenario};
use kubeloop_engine::sim::{Sim, TimingProfile, MAX_NODES, MAX_PODS};
use kubeloop_engine::soak::Workload;
use kubeloop_engine::time::{human_duration, parse_duration, Millis};

const VERSION: &str = env!("CARGO_PKG_VERSION");

// Counts the bytes `bench` holds (peak.rs): the work section's `peakBytes`, and `--memory`'s bytes by structure.
#[global_allocator]
static ALLOCATOR: peak::Counting = peak::Counting;

const USAGE: &str = "\
kubeloop: a deterministic simulation of a Kubernetes control plane

Usage:
  kubeloop run FILE|LINK [--seed N] [--until DURATION] [--timing real|fast-demo] [--max-events N] [--json] [--quiet]
  kubeloop link FILE [--page URL] [--seed N] [--until DURATION] [--timing real|fast-demo]
  kubeloop kubectl [--scenario FILE] [--at DURATION] [--seed N] [--for DURATION] [--] ARGS...
  kubeloop why FILE|LINK KIND/NAME [--namespace NS] [--at DURATION] [--rv N] [--seed N] [--timing PROFILE]
  kubeloop history FILE|LINK KIND/NAME [--rv N | --from RV --to RV] [--namespace NS] [--at DURATION] [--seed N]
  kubeloop diff A B [--until DURATION] [--seed-a N] [--seed-b N] [--json]
  kubeloop bench [--nodes N] [--pods N] [--per-deployment N] [--services] [--no-addons] [--churn N] [--seed N] [--memory]
                 [--steady DURATION [--workload W]] [--scrub K]
  kubeloop soak [--nodes N] [--pods N] [--services] [--no-addons] [--for DURATION] [--workload idle|churn|faulted] [--sample DURATION]
                [--seed N]
  kubeloop help | --help
  kubeloop --version

Commands:
  run     Run a scenario file (cluster, manifests, timed actions) and print the timeline and a summary; the
          verdict of each `expect:` of its actions (what a lesson says the control loop does) is in both.
            --seed N          seed of the run (overrides the scenario's `seed:`; default 1)
            --until DURATION  simulated run length, e.g. 90s, 10m, 1h30m (overrides `until:`; default 5m)
            --timing PROFILE  node failure timings (overrides `timing:`): real (upstream's 50 s grace period and
                              300 s tolerations, the default) or fast-demo (kubeloop's own: 20 s and 30 s)
            --max-events N    the run's work budget in simulation events (default 10000000, about a minute;
                              0: none). A scenario whose nodes' Lease renewals alone exceed it is refused
                              before it starts (exit 2); a run that reaches it stops there, prints what it did
                              and exits 3. `kubeloop soak` is the command for large clusters over days.
            --json            print only the summary, as JSON
            --quiet           omit the timeline
          The scenario is a regular file of at most 4 MiB. kubectl `-f PATH` in its actions reads only inside the
          scenario's folder: a relative path that stays there (no absolute paths, no `..` or symbolic link out of
          it), naming a regular file (not a FIFO or a device) or a directory (its .yaml, .yml and .json files); at
          most 4 MiB a file, 64 MiB in a run.
          LINK is a link to a run, as the page's Share makes (https://.../#run=...&hash=..., or only the part
          from the #; quote it for the shell): the run it holds is run, no files are read, and when the run ends at
          another history hash than the link says, a line on stderr says so and the exit status is 1.
  link    Print a link that opens, in the page, the run `kubeloop run FILE` makes, replayed to its end (its `until:`,
          or 5m) and paused there. The link holds the whole scenario (compressed, after the #: the page's host
          never sees it) and the run's history hash; a scenario whose actions read files cannot be a link.
            --page URL        the page's address, put before the # (default: none, only the part from the #)
            --seed N, --until DURATION, --timing PROFILE   as for run, written into the linked scenario
  kubectl Build a cluster, run it to a simulated time, run one kubectl command there and print its output.
            --scenario FILE   the scenario whose cluster it is (default: 3 nodes of 4 CPU, 16Gi, 110 pods, nothing
                              applied)
            --at DURATION     when to run the command (default: the scenario's end, `until:` or 5m; without
                              --scenario 1m); the scenario's actions until then have run
            --seed N          seed of the run (overrides the scenario's `seed:`; default 1)
            --for DURATION    how long to follow a command that keeps printing (get -w, rollout status, drain)
                              in simulated time (default 5m)
            ARGS              kubectl's arguments (after `--` if they start with one of the options above);
                              -f PATH reads a regular file (or a directory's .yaml, .yml and .json files)
                              relative to the current directory, -f - reads standard input; at most 4 MiB.
                              Exits with kubectl's code; `kubeloop kubectl --help` lists the commands.
  why     Run a scenario (or a link's run) to --at (default its end) and answer \"why?\" of an object: every write
          of it the engine kept (resourceVersion, time, verb, client), then the chain of causes of one of them,
          recorded as the run went: write <- reconcile of a controller for a key (with the adds merged into that
          queue item) <- the watch event its informer received <- the write that made it <- ... <- your
          intervention or a timer. A lost watch event shows as the relist that repaired it.
            --rv N            the write to explain (default: its creation, else its first write kept)
            --namespace NS    the object's namespace (default: default)
            --at DURATION, --seed N, --timing PROFILE   as for run (--at: where the run stops)
  history Run a scenario (or a link's run) to --at (default its end), keeping every version of one object as the
          store wrote it: list them (resourceVersion, time, verb, client), print one as `kubectl get -o yaml`
          does (--rv N), or the diff between two (--from RV --to RV). Exit 1 when there is no such version.
            --namespace NS, --at DURATION, --seed N, --timing PROFILE   as for why
  diff    Run two scenarios (files or links: a run and a fork of it with one thing changed) side by side and compare
          them: the first write where they diverge (time, verb, object, writer) and their end states object by
          object (Events left out; each changed object's YAML lines). Exit 0 when they are alike, 1 when they
          differ.
            --until DURATION  where both stop (default: the later of their ends)
            --seed-a N, --seed-b N   each run's seed (overrides its `seed:`)
            --json            the comparison as JSON
  bench   Cold start: add the nodes, apply Deployments for the pods, run until every pod is Running and every
          Deployment converged (at most 30 simulated minutes); print simulated, wall and CPU time, events/s, API
          writes and peak memory, and the engine's work: deterministic counts of what it did (objects each
          controller read from its caches, nodes the scheduler filtered and scored, the kubelets' notifications and
          pod steps, API requests and watch events, peak live bytes), the figures the work budget holds
          (docs/performance.md).
            --nodes N         nodes (default 1000)
            --pods N          pods (default 30000)
            --per-deployment N  pods per Deployment (default 100; the last one takes the rest)
            --services        a Service in front of each Deployment (port 80 to 8080), so that the EndpointSlice
                              controller follows every pod (default none)
            --no-addons       without kube-system's add-ons (kube-proxy, kindnet and CoreDNS, which every
                              cluster has by default: 2 pods a node and 2 more)
            --churn N         after converging, N rounds of churn 30 simulated seconds apart (a Deployment
                              scaled, three pods deleted, a rollout), then run until settled (default 0)
            --seed N          seed (default 1)
            --memory          then the bytes the engine holds, by structure (each figure what dropping that
                              structure frees, as the simulation is taken apart at the end; a version shared by
                              several counts with the last), in total and per pod, and the most bytes ever live
            --steady DURATION then the steady state: run the converged cluster on for DURATION of simulated time
                              (e.g. 1h; up to 30 days; default none) and print its own times, speed and events/s
            --workload W      the steady state's workload, as soak's: idle (default) | churn | faulted
            --scrub K         then what the page's timeline costs: a new run of the same cluster for at least
                              100,000 events, a checkpoint offered every 100 simulated ms as the page offers one
                              every frame, then K scrubs (1 to 1000) spread evenly over it, each from the
                              checkpoints alone; prints the checkpoints, the scrubs' median and worst wall ms, the
                              events they re-ran and the bytes the checkpoints held
  soak    Run a cluster for a long simulated time under a workload and print, every sample, the engine's footprint
          (entries held by each structure) and the process's resident memory; then judge whether they stayed
          flat after the warm-up (exit 1 when a structure grew).
            --nodes N         nodes (default 50)
            --pods N          pods, over ten Deployments (default 20 per node)
            --services        a Service in front of each Deployment (default none)
            --no-addons       without kube-system's add-ons (default: with them, as every cluster)
            --for DURATION    simulated time (default 24h; up to 30 days, e.g. 720h)
            --workload W      idle | churn (scaling, deletions, rollouts) | faulted (churn and a fault every 20
                              minutes: dropped events, cut watches, 410s, conflicts, crashes, dead kubelets);
                              default faulted
            --sample DURATION how often to sample (default a 48th of the run)
            --seed N          seed (default 1)

Exit status: 0 on success, 2 on a usage error or a bad scenario file (one over the work budget included), 3 when a
run stopped at its work budget, 1 when a linked run ended at another history hash than its link says or an `expect:`
of the scenario did not hold; `kubectl`: kubectl's exit code (1 when the command failed); `soak`: 1 when memory
did not stay flat.
";

/// A failure that ends the program with exit code 2 and `error: ...` on stderr.
struct Fail(String);

impl<T: std::fmt::Display> From<T> for Fail {
    fn from(e: T) -> Self {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(msg)) => {
            let _ = writeln!(std::io::stderr(), "error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Runs a command; returns the exit code.
fn dispatch(args: &[String]) -> Result<u8, Fail> {
    let Some(cmd) = args.first() else {
        return Err(Fail(format!("no command given\n\n{USAGE}")));
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "run" => run(rest),
        "kubectl" => kubectl::run(rest),
        "link" => link::run(rest),
        "why" => why::run(rest),
        "history" => why::run_history(rest),
        "diff" => diff::run(rest),
        "bench" => bench(rest).map(|_| 0),
        "soak" => soak::run(rest),
        "help" | "--help" | "-h" => output(USAGE).map(|_| 0),
        "version" | "--version" | "-V" => output(&format!("kubeloop {VERSION}\n")).map(|_| 0),
        other => Err(Fail(format!("unknown command {other:?} (try `kubeloop help`)"))),
    }
}

/// Writes to stdout. A closed pipe (`kubeloop run ... | head`) is not an error.
fn output(text: &str) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail(format!("writing output: {e}"))),
    }
}

/// Command-line options: flags and `--name value` / `--name=value` pairs, and positional arguments.
pub(crate) struct Args {
    positional: Vec<String>,
    values: Vec<(String, String)>,
    flags: Vec<String>,
}

fn parse_args(args: &[String], takes_value: &[&str], flags: &[&str], cmd: &str) -> Result<Args, Fail> {
    let mut out = Args { positional: Vec::new(), values: Vec::new(), flags: Vec::new() };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--help" || a == "-h" {
            return Err(Fail(format!("{cmd}: see `kubeloop help`\n\n{USAGE}")));
        }
        if let Some(opt) = a.strip_prefix("--") {
            let (name, inline) = match opt.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (opt, None),
            };
            if takes_value.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        let v = args.get(i).ok_or_else(|| Fail(format!("{cmd}: --{name} needs a value")))?;
                        i += 1;
                        v.clone()
                    }
                };
                if out.values.iter().any(|(n, _)| n == name) {
                    return Err(Fail(format!("{cmd}: --{name} given twice")));
                }
                out.values.push((name.to_string(), value));
            } else if flags.contains(&name) && inline.is_none() {
                out.flags.push(name.to_string());
            } else {
                return Err(Fail(format!("{cmd}: unknown option {a:?} (try `kubeloop help`)")));
            }
        } else if a.starts_with('-') && a.len() > 1 {
            return Err(Fail(format!("{cmd}: unknown option {a:?} (try `kubeloop help`)")));
        } else {
            out.positional.push(a.clone());
        }
    }
    Ok(out)
}

impl Args {
    fn value(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
    fn number(&self, name: &str, cmd: &str) -> Result<Option<u64>, Fail> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => v
                .parse::<u64>()
                .map(Some)
                .map_err(|_| Fail(format!("{cmd}: --{name} must be a whole number, not {v:?}"))),
        }
    }
}

fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(args, &["seed", "until", "timing", "max-events"], &["json", "quiet"], "run")?;
    let file = match a.positional.as_slice() {
        [f] => f,
        [] => return Err(Fail(format!("run: a scenario file is required\n\n{USAGE}"))),
        [_, extra, ..] => return Err(Fail(format!("run: unexpected argument {extra:?} (one file at a time)"))),
    };
    let seed = a.number("seed", "run")?;
    let until = match a.value("until") {
        None => None,
        Some(v) => Some(parse_duration(v).map_err(|e| Fail(format!("run: --until: {e}")))?),
    };
    if until.is_some_and(|u| u > scenario::MAX_UNTIL) {
        return Err(Fail(format!(
            "run: --until: a run lasts at most {}",
            kubeloop_engine::time::human_duration(scenario::MAX_UNTIL)
        )));
    }
    let (text, file, linked) = match link::open(file) {
        Some(opened) => {
            let o = opened.map_err(|e| Fail(format!("run: {e}")))?;
            (o.text, "the link", Some(o.hash))
        }
        None => (files::read_scenario(file).map_err(|e| Fail(format!("{file}: {e}")))?, file.as_str(), None),
    };
    let sc = Scenario::parse(&text).map_err(|e| Fail(format!("{file}: {e}")))?;
    let reader = files::Reader::new(files::Scope::Inside(files::dir_of(file)));
    let from_file = |name: &str| reader.read(name);
    // A link holds the scenario alone: its `-f PATH` reads nothing (the runner's default: no files).
    let read_file: Option<scenario::ReadFile> = if linked.is_some() { None } else { Some(&from_file) };
    let max_events = a.number("max-events", "run")?;
    let timing = match a.value("timing") {
        None => None,
        Some(v) => Some(
            TimingProfile::parse(v)
                .ok_or_else(|| Fail(format!("run: --timing: {v:?} is not a timing profile: real or fast-demo")))?,
        ),
    };
    let overridden = seed.is_some() || until.is_some() || timing.is_some();
    let opts = RunOptions { seed, until, read_file, max_events, timing };
    let outcome = sc.run(opts).map_err(|e| Fail(format!("{file}: {e}")))?;
    // A run stopped at its work budget printed what it did; its exit code says it did not finish.
    let mut code = if outcome.summary.stopped_at_budget_ms.is_some() { 3 } else { 0 };
    // An `expect:` of the scenario that did not hold fails the run, as a test would.
    if code == 0 && outcome.summary.expectations.iter().any(|e| e.verdict == "failed") {
        code = 1;
    }
    if let Some(h) = linked.flatten().filter(|_| !overridden && code == 0) {
        let want = format!("{h:016x}");
        if outcome.summary.history_hash != want {
            let _ = writeln!(
                std::io::stderr(),
                "kubeloop: the link says the run ends at history hash {want}; here it ends at {} (another kubeloop version?)",
                outcome.summary.history_hash
            );
            code = 1;
        }
    }
    if a.flag("json") {
        let mut json = serde_json::to_string_pretty(&outcome.summary)?;
        json.push('\n');
        return output(&json).map(|_| code);
    }
    let mut text = String::new();
    if !a.flag("quiet") {
        text.push_str(&scenario::render_timeline(&outcome.timeline));
        text.push('\n');
    }
    text.push_str(&scenario::render_summary(&outcome.summary));
    output(&text).map(|_| code)
}

/// Peak resident memory (VmHWM) in KiB, where /proc has it.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time the process has used so far, in seconds, where `/proc` has it (the runner is one thread: its
/// schedstat is the process's). On a shared machine it moves much less than wall time with what else runs.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// The most churn rounds `bench` runs (each is 30 simulated seconds and a rollout).
const MAX_CHURN: u64 = 1000;
/// `bench --scrub K`: scrubs measured at most.
const MAX_SCRUBS: u64 = 1000;

fn bench(args: &[String]) -> Result<(), Fail> {
    let a = parse_args(
        args,
        &["nodes", "pods", "per-deployment", "churn", "seed", "steady", "workload", "scrub"],
        &["memory", "services", "no-addons"],
        "bench",
    )?;
    if let Some(extra) = a.positional.first() {
        return Err(Fail(format!("bench: unexpected argument {extra:?}")));
    }
    let nodes = a.number("nodes", "bench")?.unwrap_or(1000);
    let pods = a.number("pods", "bench")?.unwrap_or(30_000);
    let seed = a.number("seed", "bench")?.unwrap_or(1);
    let per = a.number("per-deployment", "bench")?.unwrap_or(100).max(1);
    let churn = a.number("churn", "bench")?.unwrap_or(0);
    if churn > MAX_CHURN {
        return Err(Fail(format!("bench: --churn must be at most {MAX_CHURN}")));
    }
    if nodes == 0 || nodes > MAX_NODES as u64 {
        return Err(Fail(format!("bench: --nodes must be between 1 and {MAX_NODES}")));
    }
    if pods > MAX_PODS as u64 {
        return Err(Fail(format!("bench: --pods must be at most {MAX_PODS}")));
    }
    // Each node takes 110 pods (maxPods); the requests (10m CPU, 16Mi) fit that many on the default node.
    let template = NodeConfig::default();
    if pods > nodes * template.pods as u64 {
        return Err(Fail(format!("bench: {pods} pods do not fit on {nodes} nodes of {} pods each", template.pods)));
    }
    let steady = steady_option(&a)?;
    let shape = ColdStart {
        nodes: nodes as usize,
        pods: pods as usize,
        per_deployment: per as usize,
        services: a.flag("services"),
        seed,
        addons: !a.flag("no-addons"),
    };
    let wall = Instant::now();
    let (run, peak_bytes) = peak::measure(|| -> Result<_, String> {
        let mut sim = shape.build()?;
        let mut converged_at = shape.converge(&mut sim, CAP);
        if churn > 0 && converged_at.is_some() {
            converged_at = shape.churn(&mut sim, churn as usize, CAP);
        }
        Ok((sim, converged_at))
    });
    let (mut sim, converged_at) = run?;
    let wall_s = wall.elapsed().as_secs_f64();
    let events = sim.events_processed();
    let api = sim.store().total_counters();
    let mut text = String::new();
    let _ = writeln!(text, "nodes:              {nodes}");
    let _ = writeln!(text, "pods:               {pods} in {} Deployment(s)", shape.deployments());
    if shape.services {
        let _ = writeln!(text, "services:           {}, one a Deployment", shape.deployments());
    }
    if churn > 0 {
        let _ = writeln!(text, "churn:              {churn} round(s)");
    }
    match converged_at {
        Some(t) => {
            let _ = writeln!(text, "converged:          {:.1} simulated seconds", t as f64 / 1000.0);
        }
        None => {
            let (running, pending, terminating) = sim.pod_counts();
            let _ = writeln!(
                text,
                "converged:          no, after {:.0} simulated seconds ({running} Running, {pending} Pending, {terminating} terminating)",
                sim.now() as f64 / 1000.0
            );
        }
    }
    let _ = writeln!(text, "wall time:          {wall_s:.2} s");
    if let Some(cpu) = cpu_seconds() {
        let _ = writeln!(text, "cpu time:           {cpu:.2} s");
    }
    let _ = writeln!(text, "speed:              {:.1}x real time", sim.now() as f64 / 1000.0 / wall_s.max(1e-9));
    let _ = writeln!(text, "events processed:   {events}");
    let _ = writeln!(text, "events/s:           {:.0}", events as f64 / wall_s.max(1e-9));
    let _ = writeln!(
        text,
        "api writes:         {} (creates {}, updates {}, deletes {})",
        api.writes(),
        api.creates,
        api.updates,
        api.deletes
    );
    let _ = writeln!(text, "api reads:          {}", api.reads());
    let _ = writeln!(text, "history hash:       {:016x}", sim.history_hash());
    if let Some(kib) = peak_rss_kib() {
        let _ = writeln!(text, "peak RSS:           {:.1} MiB", kib as f64 / 1024.0);
    }
    text.push_str(&work_text(&sim.work(), &[("peakBytes".to_string(), peak_bytes)]));
    output(&text)?;
    if let Some((duration, workload)) = steady {
        output(&steady_phase(&shape, &mut sim, converged_at.is_some(), duration, workload))?;
    }
    if let Some(k) = a.number("scrub", "bench")? {
        let k = usize::try_from(k.clamp(1, MAX_SCRUBS)).unwrap_or(1);
        output(&scrub::scrub_phase(&shape, k).map_err(Fail)?)?;
    }
    if a.flag("memory") {
        let mut text = String::new();
        memory_lines(&mut text, sim, pods as usize, peak_bytes);
        return output(&text);
    }
    // The process ends here: the OS takes back the Sim's memory at once, where dropping it object by object took
    // 8-11% of a large run's wall time. kubeloop's own shortcut: nothing is printed or written after this.
    std::mem::forget(sim);
    Ok(())
}

/// `kubeloop bench --steady DURATION [--workload W]`: how long and under which workload (default idle) to run the
/// converged cluster on; `None` without `--steady`.
fn steady_option(a: &Args) -> Result<Option<(Millis, Workload)>, Fail> {
    let Some(v) = a.value("steady") else {
        return match a.value("workload") {
            Some(_) => Err(Fail("bench: --workload needs --steady (the steady state it drives)".into())),
            None => Ok(None),
        };
    };
    let duration = parse_duration(v).map_err(|e| Fail(format!("bench: --steady: {e}")))?;
    if duration == 0 {
        return Err(Fail(format!("bench: --steady: {v:?} is no time: give a simulated duration such as 1h")));
    }
    if duration > scenario::MAX_UNTIL {
        return Err(Fail(format!(
            "bench: --steady: at most {}",
            kubeloop_engine::time::human_duration(scenario::MAX_UNTIL)
        )));
    }
    let workload =
        Workload::parse(a.value("workload").unwrap_or("idle")).map_err(|e| Fail(format!("bench: --workload: {e}")))?;
    Ok(Some((duration, workload)))
}

/// Runs the converged cluster on for `duration` under `workload` and prints the steady phase's own figures
/// (simulated/wall, events/s), apart from the cold start's.
fn steady_phase(shape: &ColdStart, sim: &mut Sim, converged: bool, duration: Millis, workload: Workload) -> String {
    let mut text = String::new();
    let label = format!("{} simulated, workload {}", human_duration(duration), workload.as_str());
    if !converged {
        let _ = writeln!(text, "steady:             not run ({label}): the cold start did not converge");
        return text;
    }
    let from = sim.now();
    let events_before = sim.events_processed();
    let writes_before = sim.store().total_counters().writes();
    let cpu_before = cpu_seconds();
    let wall = Instant::now();
    shape.steady(sim, workload, duration);
    let wall_s = wall.elapsed().as_secs_f64().max(1e-9);
    let cpu = cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    let events = sim.events_processed() - events_before;
    let (running, pending, terminating) = sim.pod_counts();
    let _ = writeln!(text, "steady:             {label}, from {:.1} simulated seconds", from as f64 / 1000.0);
    let _ = writeln!(text, "steady wall time:   {wall_s:.2} s");
    if let Some(cpu) = cpu {
        let _ = writeln!(text, "steady cpu time:    {cpu:.2} s");
    }
    let _ = writeln!(text, "steady speed:       {:.1}x real time", (sim.now() - from) as f64 / 1000.0 / wall_s);
    let _ = writeln!(text, "steady events:      {events}");
    let _ = writeln!(text, "steady events/s:    {:.0}", events as f64 / wall_s);
    let _ = writeln!(text, "steady api writes:  {}", sim.store().total_counters().writes() - writes_before);
    let _ = writeln!(text, "steady pods:        {running} Running, {pending} Pending, {terminating} terminating");
    let _ = writeln!(text, "steady history hash: {:016x}", sim.history_hash());
    if let Some(kib) = peak_rss_kib() {
        let _ = writeln!(text, "steady peak RSS:    {:.1} MiB", kib as f64 / 1024.0);
    }
    text
}

/// `bench --memory`: the engine's bytes by structure (taking `sim` apart), largest first, with the total, the
/// bytes per pod and the peak of live bytes over the run (`peak`).
fn memory_lines(text: &mut String, sim: kubeloop_engine::Sim, pods: usize, peak: u64) {
    let (bytes, _) = peak::measure(|| kubeloop_engine::footprint::Bytes::of(sim, &peak::live));
    let per_pod = |b: isize| b as f64 / pods.max(1) as f64;
    let mut parts: Vec<&(String, isize)> = bytes.parts.iter().filter(|(_, b)| *b != 0).collect();
    parts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let _ = writeln!(text, "memory (live bytes the engine held at the end, by structure; per pod):");
    for (name, b) in parts {
        let _ = writeln!(text, "  {name:<64} {b:>12} B {:>9.1} B/pod", per_pod(*b));
    }
    let total = bytes.total();
    let _ = writeln!(text, "  {:<64} {total:>12} B {:>9.1} B/pod", "total", per_pod(total));
    let _ = writeln!(
        text,
        "peak live bytes:    {peak} ({:.1} MiB, {:.1} B/pod)",
        peak as f64 / 1048576.0,
        peak as f64 / pods.max(1) as f64
    );
}
