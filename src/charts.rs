//! The loop diagram's charts: one sample per simulated second of the shown controller's work queue (client-go's
//! `workqueue_depth`, and `workqueue_adds_total` / `workqueue_retries_total` as per-second increments) and of the
//! watch events its informers received and lost, over the last [`HISTORY`] seconds (the window follows the clock).

use std::collections::VecDeque;

use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::Millis;

use crate::liverun::HISTORY;
use crate::view::ChartView;

/// The samples of one controller.
#[derive(Default)]
pub struct LoopHistory {
    controller: String,
    /// depth, adds, retries, watch events received, dropped.
    series: [VecDeque<u32>; 5],
    /// The counters at the last sample (adds, retries, received, dropped), to take increments from.
    last: Option<[u64; 4]>,
    end: Millis,
}

impl LoopHistory {
    /// Forgets every sample (a new run, or another controller shown).
    pub fn clear(&mut self) {
        *self = LoopHistory::default();
    }

    /// Samples controller `name` at simulated time `t`.
    pub fn sample(&mut self, sim: &Sim, name: &str, t: Millis) {
        if self.controller != name {
            self.clear();
            self.controller = name.to_string();
        }
        let Some((c, w)) = crate::snapshot::controller_watching(sim, name) else { return };
        let m = c.queue.metrics(t);
        let now = [m.adds_total, m.retries_total, w.received, w.dropped];
        let delta = |i: usize| self.last.map_or(0, |l: [u64; 4]| now[i].saturating_sub(l[i]));
        let values = [m.depth, delta(0), delta(1), delta(2), delta(3)];
        for (s, v) in self.series.iter_mut().zip(values) {
            if s.len() >= HISTORY {
                s.pop_front();
            }
            s.push_back(v.min(u64::from(u32::MAX)) as u32);
        }
        self.last = Some(now);
        self.end = t;
    }

    /// The charts to draw.
    pub fn charts(&self) -> Vec<ChartView> {
        let s = |i: usize| self.series[i].iter().copied().collect::<Vec<u32>>();
        let chart = |metric, title, series| ChartView { metric, title, series, end: self.end };
        vec![
            chart("workqueue_depth", "queue depth", vec![("depth", s(0))]),
            chart("workqueue_adds", "adds / s", vec![("adds", s(1))]),
            chart("workqueue_retries", "retries / s", vec![("retries", s(2))]),
            chart("watch_events", "watch events / s", vec![("delivered", s(3)), ("dropped", s(4))]),
        ]
    }
}
