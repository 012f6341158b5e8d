//! The page's API-read meter: reads per simulated minute, measured per observe mode (informer or polling), so the
//! polling-vs-informers lesson can show both figures. It reads the store's counter; it changes nothing.

use std::collections::VecDeque;

use kubeloop_engine::time::{Millis, SECOND};

use crate::view::{Rate, ReadsView};

/// Simulated seconds ignored after the observe mode changes (the switch itself LISTs everything).
pub const READS_SETTLE: Millis = 10 * SECOND;
/// The window API reads per minute are measured over.
pub const READS_WINDOW: Millis = 60 * SECOND;

/// API reads per simulated minute, measured per observe mode: samples of the store's read counter once per
/// simulated second since the mode last changed; the other mode keeps its last measured figure.
#[derive(Default)]
pub struct ReadMeter {
    polling: bool,
    since: Millis,
    samples: VecDeque<(Millis, u64)>,
    informer: Option<Rate>,
    polling_rate: Option<Rate>,
}

impl ReadMeter {
    pub fn sample(&mut self, t: Millis, polling: bool, reads: u64) {
        if polling != self.polling {
            self.polling = polling;
            self.since = t;
            self.samples.clear();
        }
        if t < self.since + READS_SETTLE {
            return;
        }
        self.samples.push_back((t, reads));
        while self.samples.front().is_some_and(|(t0, _)| t - *t0 > READS_WINDOW) {
            self.samples.pop_front();
        }
        if let (Some(&(t0, r0)), Some(&(t1, r1))) = (self.samples.front(), self.samples.back()) {
            if t1 >= t0 + 10 * SECOND {
                let rate = Rate { per_min: r1.saturating_sub(r0).saturating_mul(60_000) / (t1 - t0), over_ms: t1 - t0 };
                if polling {
                    self.polling_rate = Some(rate);
                } else {
                    self.informer = Some(rate);
                }
            }
        }
    }

    pub fn view(&self) -> ReadsView {
        ReadsView { polling_now: self.polling, informer: self.informer, polling: self.polling_rate }
    }
}
