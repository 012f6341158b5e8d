//! `kubeloop bench --scrub K`: what scrubbing costs on a cluster of the bench's shape. A run of at least
//! [`SCRUB_RUN_EVENTS`] events (the cold start, then the idle cluster) goes 100 simulated ms at a time, offering a
//! checkpoint after each as the page does after each frame; then it is scrubbed to K moments spread evenly over it,
//! each from the checkpoints alone (no scrub before it to go on from), and the wall time of each is measured. The
//! bytes the checkpoints hold are those dropping them frees (the allocator counts them, [`crate::peak`]).

use std::fmt::Write as _;
use std::time::Instant;

use kubeloop_engine::bench::ColdStart;
use kubeloop_engine::scenario::Rewind;
use kubeloop_engine::time::Millis;

use crate::peak;

/// The run scrubbed is at least this many simulation events long (the measure: a run of 10^5 events).
pub const SCRUB_RUN_EVENTS: u64 = 100_000;
/// Simulated time between two offers of a checkpoint: a page frame's worth at 1x (the page offers one a frame).
const OFFER_EVERY: Millis = 100;

fn no_file(_: &str) -> Result<String, String> {
    Err("no files".into())
}

/// The scrub phase's report: the run, the checkpoints (count, spacing, bytes) and the scrubs' wall times.
pub fn scrub_phase(shape: &ColdStart, scrubs: usize) -> Result<String, String> {
    let (measured, _) = peak::measure(|| -> Result<(String, i64), String> {
        let mut sim = shape.build()?;
        let mut rewind = Rewind::default();
        while sim.events_processed() < SCRUB_RUN_EVENTS {
            sim.run_for(OFFER_EVERY);
            rewind.offer(|| sim.checkpoint(), 0, &sim);
        }
        let start = || shape.build().expect("built once already");
        let end = sim.now();
        let policy = rewind.policy(&sim);
        let mut walls: Vec<f64> = Vec::with_capacity(scrubs);
        let mut rerun: Vec<u64> = Vec::with_capacity(scrubs);
        for i in 0..scrubs {
            // Evenly over the run, and never on a checkpoint's own moment (half a step off the grid).
            let t = (end as u128 * (2 * i as u128 + 1) / (2 * scrubs as u128)) as Millis;
            let started = Instant::now();
            let s = rewind.scrub(t, &[], None, &no_file, &start);
            walls.push(started.elapsed().as_secs_f64() * 1000.0);
            rerun.push(s.rerun);
        }
        walls.sort_by(f64::total_cmp);
        let mut text = String::new();
        let _ = writeln!(text, "scrub:");
        let _ = writeln!(
            text,
            "  run:              {} events, {:.1} simulated seconds",
            sim.events_processed(),
            end as f64 / 1000.0
        );
        let _ = writeln!(
            text,
            "  checkpoints:      {} of at most {}, one every {} events",
            policy.kept, policy.max_kept, policy.spacing
        );
        let median = walls.get(walls.len() / 2).copied().unwrap_or(0.0);
        let worst = walls.last().copied().unwrap_or(0.0);
        let _ = writeln!(text, "  scrubs:           {scrubs} (evenly over the run, each from a checkpoint)");
        let _ = writeln!(text, "  wall ms:          median {median:.1}, worst {worst:.1}");
        let _ = writeln!(text, "  events re-run:    at most {}", rerun.iter().max().copied().unwrap_or(0));
        let before = peak::live();
        drop(rewind);
        let freed = before - peak::live();
        std::mem::forget(sim);
        Ok((text, freed))
    });
    let (mut text, freed) = measured?;
    let _ = writeln!(text, "  checkpoint bytes: {freed} ({:.1} MiB)", freed as f64 / (1 << 20) as f64);
    Ok(text)
}
