//! The informers' drift as the page shows it. Drift compares every cached object with the store: on a small
//! cluster it is measured whole at every snapshot; on a large one (a whole measure of 1,000 nodes and 30,000 pods
//! visits some 120,000 objects, a long task) a snapshot measures a part of a bounded number of objects, going round
//! the informer table's rows one after the other, and each row shows the figure of its last complete measure,
//! with the age of the oldest ([`Informer::drift_part`]: each part is exact when it is taken).

use kubeloop_engine::informer::{DriftCursor, Informer};
use kubeloop_engine::sim::Sim;

use crate::snapshot::InformerRow;
use crate::view::InformerView;

/// Objects a whole measure visits at most for the page to take it at every snapshot (about 2 ms in the browser).
pub const WHOLE_MAX: usize = 10_000;
/// Objects a snapshot visits at most when measuring a part.
pub const PART_BUDGET: usize = 4_096;

/// The row being measured in parts.
struct Progress {
    /// The row's key ([`InformerRow::key`]).
    row: String,
    /// Which of the row's informers, and where in it.
    member: usize,
    cursor: DriftCursor,
    /// Drift counted so far in this row, and the wall time its measure began.
    drift: usize,
    began: f64,
}

/// Drift measured whole or in parts, snapshot after snapshot. Bounds: one figure per row of the table, one row in
/// progress.
#[derive(Default)]
pub struct DriftMeter {
    /// Each row's last complete figure and the wall time its measure began, by row key (the table has a few dozen
    /// rows: a list, without a hash table's code in the page).
    figures: Vec<(String, (usize, f64))>,
    at: Option<Progress>,
    /// The row to measure after the one in progress (an index into the table, taken modulo its length).
    next_row: usize,
}

/// The informer table with its drift: the rows, their total, and how old the oldest row's figure is (wall ms; 0
/// when every row was measured now).
pub struct Measured {
    pub rows: Vec<InformerView>,
    pub total: usize,
    pub age: f64,
}

fn whole(sim: &Sim, ids: &[usize]) -> usize {
    ids.iter().filter_map(|id| sim.informers().get(*id)).map(|i| i.drift(sim.store())).sum()
}

/// What a whole measure of these informers visits, about: each cached object, and its counterpart in the store.
fn estimate<'a>(informers: impl Iterator<Item = &'a Informer>) -> usize {
    informers.map(|i| i.cache.len().saturating_mul(2)).fold(0, usize::saturating_add)
}

impl DriftMeter {
    /// Row `key`'s last complete figure.
    fn figure(&self, key: &str) -> Option<(usize, f64)> {
        self.figures.iter().find(|(k, _)| k == key).map(|(_, f)| *f)
    }

    fn set(&mut self, key: &str, figure: (usize, f64)) {
        match self.figures.iter_mut().find(|(k, _)| k == key) {
            Some((_, f)) => *f = figure,
            None => self.figures.push((key.to_string(), figure)),
        }
    }

    /// Measures the rows' drift at wall time `now`: whole while a whole measure visits at most `whole_max` objects;
    /// else rows never measured whole, and then parts of the round visiting about `budget` objects (at most one
    /// round of the table).
    pub fn measure(
        &mut self,
        sim: &Sim,
        rows: Vec<InformerRow>,
        now: f64,
        whole_max: usize,
        budget: usize,
    ) -> Measured {
        self.figures.retain(|(k, _)| rows.iter().any(|r| &r.key == k));
        let all = rows.iter().flat_map(|r| r.ids.iter()).filter_map(|id| sim.informers().get(*id));
        if estimate(all) <= whole_max {
            self.at = None;
            for r in &rows {
                self.set(&r.key, (whole(sim, &r.ids), now));
            }
        } else {
            for r in &rows {
                if self.figure(&r.key).is_none() {
                    self.set(&r.key, (whole(sim, &r.ids), now));
                }
            }
            self.parts(sim, &rows, now, budget);
        }
        let mut age: f64 = 0.0;
        let rows: Vec<InformerView> = rows
            .into_iter()
            .map(|r| {
                let (drift, at) = self.figure(&r.key).unwrap_or((0, now));
                age = age.max(now - at);
                InformerView { drift, ..r.view }
            })
            .collect();
        let total = rows.iter().map(|r| r.drift).sum();
        Measured { rows, total, age }
    }

    /// Goes on with the round: parts of the row in progress, then of the next rows, until `budget` objects were
    /// visited or every row was gone through once.
    fn parts(&mut self, sim: &Sim, rows: &[InformerRow], now: f64, budget: usize) {
        if rows.is_empty() {
            self.at = None;
            return;
        }
        let mut left = budget;
        let mut finished = 0;
        while left > 0 && finished <= rows.len() {
            let p = self.at.get_or_insert_with(|| Progress {
                row: rows[self.next_row % rows.len()].key.clone(),
                member: 0,
                cursor: DriftCursor::Start,
                drift: 0,
                began: now,
            });
            let Some(index) = rows.iter().position(|r| r.key == p.row) else {
                // Its row is gone (another replica leads, say): on to the next.
                self.at = None;
                self.next_row += 1;
                finished += 1;
                continue;
            };
            let Some(inf) = rows[index].ids.get(p.member).and_then(|id| sim.informers().get(*id)) else {
                let (row, figure) = (p.row.clone(), (p.drift, p.began));
                self.set(&row, figure);
                self.at = None;
                self.next_row = index + 1;
                finished += 1;
                continue;
            };
            let part = inf.drift_part(sim.store(), &p.cursor, left);
            left = left.saturating_sub(part.visited.max(1));
            p.drift += part.drift;
            match part.next {
                Some(next) => p.cursor = next,
                None => (p.member, p.cursor) = (p.member + 1, DriftCursor::Start),
            }
        }
    }
}
