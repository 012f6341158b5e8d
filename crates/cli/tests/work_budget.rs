//! The work budget: the engine's deterministic work on one fixed run, held to `scripts/work-budget.json` as the
//! page's download is held to `scripts/size-budget.json` (docs/performance.md, "The work budget"). Timings are
//! noisy; these counts are not: the same seed gives the same figures on every machine, so each is held exactly. A
//! speed-up lowers the figures it cuts, and the budget with them, in the same commit.
//!
//! The run: `kubeloop bench --nodes 100 --pods 3000 --churn 3` (seed 1), which prints the same figures.

// Counts the run's peak live bytes (the runner's own allocator, shared by path; its `live`, for `bench --memory`,
// is not read here).
#[path = "../src/peak.rs"]
#[allow(dead_code)]
mod peak;

#[global_allocator]
static ALLOCATOR: peak::Counting = peak::Counting;

use kubeloop_engine::bench::{work_text, ColdStart, CAP};
use kubeloop_engine::work::{over_budget, Budget};

/// The budgeted run's shape.
const SHAPE: ColdStart =
    ColdStart { nodes: 100, pods: 3000, per_deployment: 100, services: false, seed: 1, addons: true };
const CHURN: usize = 3;

fn budget() -> Budget {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/work-budget.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_value(json["figures"].clone()).unwrap_or_else(|e| panic!("{path}: figures: {e}"))
}

#[test]
fn the_budgeted_run_stays_within_its_work_budget() {
    let ((sim, converged, settled), peak_bytes) = peak::measure(|| {
        let mut sim = SHAPE.build().expect("the budgeted cluster builds");
        let converged = SHAPE.converge(&mut sim, CAP);
        let settled = SHAPE.churn(&mut sim, CHURN, CAP);
        (sim, converged, settled)
    });
    assert!(converged.is_some() && settled.is_some(), "the budgeted run did not converge: {converged:?}, {settled:?}");
    let work = sim.work();
    let peak = [("peakBytes".to_string(), peak_bytes)];
    println!("{}", work_text(&work, &peak));
    let mut figures = work.figures();
    figures.extend(peak);
    let over = over_budget(&figures, &budget());
    assert!(
        over.is_empty(),
        "the work budget (scripts/work-budget.json) is broken:\n  {}\nA figure that grew is work the engine now does \
         that it did not: find why (docs/performance.md, \"The work budget\"), or raise its budget in a commit that \
         says why.",
        over.join("\n  ")
    );
}
