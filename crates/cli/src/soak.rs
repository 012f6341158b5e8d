//! `kubeloop soak`: a cluster run for a long simulated time under a workload, sampled as it goes: the engine's
//! footprint by structure and the process's memory, printed as a curve, then a verdict on whether memory stayed
//! flat (exit 1 when a structure grew).

use std::fmt::Write as _;
use std::time::Instant;

use kubeloop_engine::soak::{verdict, Sample, Soak, SoakConfig, Workload};
use kubeloop_engine::time::{parse_duration, Millis, HOUR};

use super::{output, parse_args, Fail};

/// Resident memory now and at its peak (VmRSS, VmHWM) in KiB, where /proc has them.
fn rss_kib() -> (Option<u64>, Option<u64>) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return (None, None) };
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn hours(ms: Millis) -> String {
    format!("{:.1}h", ms as f64 / HOUR as f64)
}

pub fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(
        args,
        &["nodes", "pods", "for", "sample", "seed", "workload"],
        &["json", "services", "no-addons"],
        "soak",
    )?;
    if let Some(extra) = a.positional.first() {
        return Err(Fail(format!("soak: unexpected argument {extra:?}")));
    }
    let nodes = a.number("nodes", "soak")?.unwrap_or(50) as usize;
    let pods = a.number("pods", "soak")?.unwrap_or(nodes as u64 * 20) as usize;
    let seed = a.number("seed", "soak")?.unwrap_or(1);
    let duration = parse_duration(a.value("for").unwrap_or("24h")).map_err(|e| Fail(format!("soak: --for: {e}")))?;
    let sample_every = match a.value("sample") {
        Some(v) => parse_duration(v).map_err(|e| Fail(format!("soak: --sample: {e}")))?,
        None => (duration / 48).max(kubeloop_engine::time::MINUTE),
    };
    let workload = Workload::parse(a.value("workload").unwrap_or("faulted")).map_err(|e| Fail(format!("soak: {e}")))?;
    let services = a.flag("services");
    let addons = !a.flag("no-addons");
    let config = SoakConfig { seed, nodes, pods, duration, sample_every, workload, services, addons };
    let wall = Instant::now();
    let mut soak = Soak::new(config).map_err(|e| Fail(format!("soak: {e}")))?;
    let json = a.flag("json");
    let mut rss: Vec<(Option<u64>, Option<u64>)> = Vec::new();
    if !json {
        output(&format!(
            "soak: {nodes} nodes, {pods} pods{}, workload {}, {} simulated, seed {seed}\n{:>7} {:>9} {:>10} {:>9} {:>8} {:>7} {:>7} {:>8} {:>7} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8}\n",
            if services { ", a Service a Deployment" } else { "" },
            workload.as_str(),
            hours(duration),
            "TIME", "RSS-MiB", "ENTRIES", "OBJECTS", "HISTORY", "WATCHES", "BUFFER", "CACHED", "TIMERS", "CONTROL", "KUBELET", "IMAGES", "AGGR", "EVLOG", "WALL-S"
        ))?;
    }
    let mut failed_output = None;
    let samples = soak.run(|s: &Sample| {
        let (now, peak) = rss_kib();
        rss.push((now, peak));
        if json {
            return;
        }
        let f = &s.footprint;
        let line = format!(
            "{:>7} {:>9} {:>10} {:>9} {:>8} {:>7} {:>7} {:>8} {:>7} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8.1}\n",
            hours(s.at),
            now.map_or("-".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
            f.total(),
            f.objects,
            f.history,
            f.open_watches,
            f.buffered_events,
            f.cached_objects,
            f.timers,
            f.controller_entries,
            f.kubelet_entries,
            f.images,
            f.recorder_entries,
            f.event_log,
            wall.elapsed().as_secs_f64()
        );
        if let Err(e) = output(&line) {
            failed_output.get_or_insert(e);
        }
    });
    if let Some(e) = failed_output {
        return Err(e);
    }
    let judged = verdict(&samples, 0.1);
    // The process's memory is judged the same way: the last quarter's peak against the second quarter's.
    let q = rss.len() / 4;
    let rss_flat = match (rss.get(2 * q.max(1) - 1).and_then(|r| r.0), rss.last().and_then(|r| r.1)) {
        (Some(mid), Some(peak)) if q > 0 => {
            let mid_max = rss[q..2 * q].iter().filter_map(|r| r.0).max().unwrap_or(mid);
            let last_max = rss[rss.len() - q..].iter().filter_map(|r| r.0).max().unwrap_or(peak);
            Some((mid_max, last_max))
        }
        _ => None,
    };
    let mut text = String::new();
    if json {
        let _ = writeln!(text, "{}", serde_json::to_string(&samples).unwrap_or_default());
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let sim = &soak.sim;
    let _ = writeln!(
        text,
        "simulated {} in {wall_s:.1} s wall ({:.0}x), {} events, history {:016x}",
        hours(sim.now()),
        sim.now() as f64 / 1000.0 / wall_s.max(1e-9),
        sim.events_processed(),
        sim.history_hash()
    );
    if let Some((mid, last)) = rss_flat {
        let _ = writeln!(
            text,
            "RSS: {:.1} MiB at most in the second quarter, {:.1} MiB at most in the last; peak {:.1} MiB",
            mid as f64 / 1024.0,
            last as f64 / 1024.0,
            rss.last().and_then(|r| r.1).unwrap_or(0) as f64 / 1024.0
        );
    }
    let code = match &judged {
        Ok(()) => {
            let _ = writeln!(text, "flat: no structure grew after the warm-up");
            0
        }
        Err(e) => {
            let _ = writeln!(text, "NOT FLAT: {e}");
            1
        }
    };
    output(&text)?;
    Ok(code)
}
