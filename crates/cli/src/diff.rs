//! `kubeloop diff A B [--until DURATION] [--seed-a N] [--seed-b N] [--json]`: two runs (scenario files or links)
//! side by side: the first write where they diverge, and their end states object by object. Exits 0 when they made
//! the same writes and ended alike, 1 when they differ (as diff(1) does).

use std::fmt::Write as _;

use kubeloop_engine::scenario::{ObjectChange, RunDiff, RunOptions, Scenario};
use kubeloop_engine::time::{human_duration, parse_duration};

use crate::{files, link, output, parse_args, Fail};

/// A scenario file or a link, read.
struct Side {
    name: String,
    scenario: Scenario,
    linked: bool,
}

fn side(arg: &str) -> Result<Side, Fail> {
    let (text, name, linked) = match link::open(arg) {
        Some(opened) => (opened.map_err(|e| Fail(format!("diff: {e}")))?.text, "a link".to_string(), true),
        None => (files::read_scenario(arg).map_err(|e| Fail(format!("{arg}: {e}")))?, arg.to_string(), false),
    };
    let scenario = Scenario::parse(&text).map_err(|e| Fail(format!("{name}: {e}")))?;
    Ok(Side { name, scenario, linked })
}

/// Runs the subcommand; 0 when the runs are alike, 1 when they differ.
pub fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(args, &["until", "seed-a", "seed-b"], &["json"], "diff")?;
    let (fa, fb) = match a.positional.as_slice() {
        [x, y] => (x, y),
        [] | [_] => return Err(Fail("diff: two scenario files (or links) are required: kubeloop diff A B".into())),
        [_, _, extra, ..] => return Err(Fail(format!("diff: unexpected argument {extra:?}"))),
    };
    let until =
        a.value("until").map(|v| parse_duration(v).map_err(|e| Fail(format!("diff: --until: {e}")))).transpose()?;
    let (sa, sb) = (side(fa)?, side(fb)?);
    let (ra, rb) = (
        files::Reader::new(files::Scope::Inside(files::dir_of(fa))),
        files::Reader::new(files::Scope::Inside(files::dir_of(fb))),
    );
    let (read_a, read_b) = (|name: &str| ra.read(name), |name: &str| rb.read(name));
    let (seed_a, seed_b) = (a.number("seed-a", "diff")?, a.number("seed-b", "diff")?);
    // A link holds the scenario alone: its `-f PATH` reads nothing.
    let oa = RunOptions { seed: seed_a, read_file: (!sa.linked).then_some(&read_a as _), ..RunOptions::default() };
    let ob = RunOptions { seed: seed_b, read_file: (!sb.linked).then_some(&read_b as _), ..RunOptions::default() };
    let d = sa.scenario.diff(&sb.scenario, oa, ob, until).map_err(|e| Fail(format!("diff: {e}")))?;
    let code = u8::from(d.first_divergence.is_some() || !d.objects.is_empty());
    if a.flag("json") {
        let mut json = serde_json::to_string_pretty(&d)?;
        json.push('\n');
        return output(&json).map(|_| code);
    }
    output(&render(&sa.name, &sb.name, &d)).map(|_| code)
}

/// The diff as text.
fn render(a: &str, b: &str, d: &RunDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "A: {a}\nB: {b}\nboth run to {}", human_duration(d.until_ms));
    let same = if d.history_hash_a == d.history_hash_b { "the same" } else { "different" };
    let _ = writeln!(out, "history hash: A {}, B {} ({same})", d.history_hash_a, d.history_hash_b);
    match &d.first_divergence {
        None => {
            let _ = writeln!(out, "first divergence: none (the runs made the same writes)");
        }
        Some(v) => {
            let _ = writeln!(out, "first divergence at {}:", human_duration(v.at_ms));
            let none = "(no write)".to_string();
            let _ = writeln!(out, "  A: {}\n  B: {}", v.a.as_ref().unwrap_or(&none), v.b.as_ref().unwrap_or(&none));
        }
    }
    let n = d.objects.len() + d.more_objects;
    let _ = writeln!(out, "end states: {n} object(s) differ (Events left out)");
    for o in &d.objects {
        let name = if o.namespace.is_empty() { o.name.clone() } else { format!("{}/{}", o.namespace, o.name) };
        match &o.change {
            ObjectChange::OnlyInA => {
                let _ = writeln!(out, "  {} {name}: only in A", o.kind);
            }
            ObjectChange::OnlyInB => {
                let _ = writeln!(out, "  {} {name}: only in B", o.kind);
            }
            ObjectChange::Differs { lines, more } => {
                let _ = writeln!(out, "  {} {name}: differs", o.kind);
                for l in lines {
                    let _ = writeln!(out, "      {l}");
                }
                if *more > 0 {
                    let _ = writeln!(out, "      ({more} more changed lines)");
                }
            }
        }
    }
    if d.more_objects > 0 {
        let _ = writeln!(out, "  ... {} more object(s)", d.more_objects);
    }
    out
}
