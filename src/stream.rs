//! The event stream: reconciles (from the simulation's reconcile log) and Kubernetes Events (from the store's event
//! log), read incrementally with cursors and kept in two bounded buffers, so a burst of reconciles does not push the
//! Events out (and the other way round).

use std::collections::VecDeque;
use std::rc::Rc;

use kubeloop_engine::api::Str;
use kubeloop_engine::controller::{ReconcileRecord, RecordOutcome};
use kubeloop_engine::controllers::controller_of_component;
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::Millis;

use crate::format::fmt_dur;
use crate::view::{EventRow, EventsView, RowSource};

/// Rows kept per buffer.
pub const KEEP: usize = 500;

/// Marks kept for the timeline at most; past it every other one goes, so that they still cover the whole run.
pub const MAX_MARKS: usize = 1_000;
/// The Events the timeline marks, by reason.
const MARKED: [&str; 4] = ["NodeNotReady", "TaintManagerEviction", "LeaderElection", "FailedScheduling"];

#[derive(Default)]
pub struct Stream {
    /// Notable moments for the timeline (time, what), oldest first: the Events [`MARKED`] names, reconciles that
    /// met a conflict (409), and watch events the informers lost (the live run marks them). At most [`MAX_MARKS`].
    marks: Vec<(Millis, Rc<str>)>,
    reconciles: VecDeque<Rc<EventRow>>,
    events: VecDeque<Rc<EventRow>>,
    rec_cursor: u64,
    ev_cursor: u64,
    version: u64,
    view: Rc<EventsView>,
}

fn kind_of_controller(c: &str) -> &'static str {
    match c {
        "deployment" => "deployment",
        "replicaset" => "replicaset",
        "scheduler" => "pod",
        // Both sync a namespace by its name.
        "namespace" | "serviceaccount" => "namespace",
        "endpointslice" => "service",
        "disruption" => "poddisruptionbudget",
        "daemonset" => "daemonset",
        "resourcequota" => "resourcequota",
        "job" | "ttlafterfinished" => "job",
        "cronjob" => "cronjob",
        "statefulset" => "statefulset",
        "persistentvolumebinder" => "persistentvolumeclaim",
        _ => "object",
    }
}

fn reconcile_row(r: &ReconcileRecord) -> EventRow {
    let (reason, detail, warning) = match &r.outcome {
        RecordOutcome::Ok => ("Reconciled", String::new(), false),
        RecordOutcome::Requeue { after } => ("Requeue", format!("requeue after {}", fmt_dur(*after)), false),
        RecordOutcome::Error { message, retry_in } => {
            ("Error", format!("{message}; retry in {}", fmt_dur(*retry_in)), true)
        }
        RecordOutcome::Dropped { message } => ("Dropped", format!("{message}; dropped after max retries"), true),
    };
    let (namespace, name) = match r.key.split_once('/') {
        Some((ns, n)) => (ns, n),
        None => ("", r.key.as_str()),
    };
    let calls = if r.api_calls == 1 { "1 API call".to_string() } else { format!("{} API calls", r.api_calls) };
    let mut message = format!("took {} · {calls}", fmt_dur(r.duration));
    if !detail.is_empty() {
        message = format!("{message} · {detail}");
    }
    EventRow {
        id: format!("r{}", r.seq),
        at: r.start + r.duration,
        source: RowSource::Reconcile(r.controller),
        controller: r.controller.into(),
        reason: reason.into(),
        object: format!("{}/{name}", kind_of_controller(r.controller)),
        namespace: namespace.into(),
        message,
        warning,
        count: 1,
    }
}

/// The controller an Event comes from, for the filter.
fn event_controller(component: &str, involved_kind: &str) -> Str {
    match (controller_of_component(component), involved_kind) {
        (Some(c), _) => c.into(),
        // Events of a Deployment or ReplicaSet written by someone else (kubectl's rollout) go with its controller.
        (None, "Deployment") => "deployment".into(),
        (None, "ReplicaSet") => "replicaset".into(),
        (None, _) => component.into(),
    }
}

/// The node lifecycle controller's periodic health pass when it found nothing to do (no API call, requeued for
/// the next period): one every 5 s, it would bury everything else in the stream. A pass that wrote something is
/// shown.
fn is_quiet_housekeeping(r: &ReconcileRecord) -> bool {
    r.controller == "nodelifecycle"
        && r.key == kubeloop_engine::controllers::nodelifecycle::MONITOR_KEY
        && r.api_calls == 0
        && matches!(r.outcome, RecordOutcome::Requeue { .. })
}

impl Stream {
    /// Reads what happened since the last call. Returns whether anything was new.
    pub fn ingest(&mut self, sim: &Sim) -> bool {
        let mut changed = false;
        // Reconciles: records numbered by `seq`, the newest at the back.
        let total = sim.log().total;
        if total > self.rec_cursor {
            let mut fresh: Vec<Rc<EventRow>> = sim
                .log()
                .records
                .iter()
                .rev()
                .take_while(|r| r.seq >= self.rec_cursor)
                .filter(|r| !is_quiet_housekeeping(r))
                .take(KEEP)
                .map(|r| Rc::new(reconcile_row(r)))
                .collect();
            fresh.reverse();
            for r in fresh.iter().filter(|r| r.warning && r.message.contains("the object has been modified")) {
                self.mark(r.at, format!("409 Conflict: {} {}", r.controller, r.object));
            }
            self.reconciles.extend(fresh);
            while self.reconciles.len() > KEEP {
                self.reconciles.pop_front();
            }
            self.rec_cursor = total;
            changed = true;
        }
        // Kubernetes Event writes, numbered from 0.
        let (first, log) = sim.store().event_log();
        let end = first + log.len() as u64;
        if end > self.ev_cursor {
            let from = self.ev_cursor.max(first).max(end.saturating_sub(KEEP as u64));
            for (i, o) in log.iter().enumerate().skip((from - first) as usize) {
                let Some(e) = o.as_event() else { continue };
                let b = &e.body;
                let io = &b.involved_object;
                if MARKED.contains(&&*b.reason) {
                    self.mark(b.last_timestamp.map_or(0, |t| t.0), format!("{} {}/{}", b.reason, io.kind, io.name));
                }
                self.events.push_back(Rc::new(EventRow {
                    id: format!("e{}", first + i as u64),
                    at: b.last_timestamp.map_or(0, |t| t.0),
                    source: RowSource::Event(b.source.component.clone()),
                    controller: event_controller(&b.source.component, &io.kind),
                    reason: b.reason.clone(),
                    object: format!("{}/{}", io.kind.to_ascii_lowercase(), io.name),
                    namespace: io.namespace.clone(),
                    message: b.message.to_string(),
                    warning: &*b.type_ == "Warning",
                    count: b.count,
                }));
            }
            while self.events.len() > KEEP {
                self.events.pop_front();
            }
            self.ev_cursor = end;
            changed = true;
        }
        if changed {
            self.version += 1;
            self.view = Rc::new(EventsView { version: self.version, rows: self.merged() });
        }
        changed
    }

    /// Both buffers merged, newest first (ties: Events after the reconcile that caused them, so they show above).
    fn merged(&self) -> Vec<Rc<EventRow>> {
        let mut out = Vec::with_capacity(self.reconciles.len() + self.events.len());
        let mut a = self.reconciles.iter().rev().peekable();
        let mut b = self.events.iter().rev().peekable();
        loop {
            let take_a = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.at > y.at,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if take_a { a.next() } else { b.next() };
            if let Some(r) = next {
                out.push(r.clone());
            }
        }
        out
    }

    /// A notable moment for the timeline (at most [`MAX_MARKS`] kept: past it every other one goes).
    pub fn mark(&mut self, at: Millis, what: String) {
        if self.marks.len() >= MAX_MARKS {
            let mut i = 0;
            self.marks.retain(|_| {
                i += 1;
                i % 2 == 1
            });
        }
        self.marks.push((at, what.into()));
    }

    /// The timeline's marks, oldest first.
    pub fn marks(&self) -> impl Iterator<Item = &(Millis, Rc<str>)> {
        self.marks.iter()
    }

    pub fn view(&self) -> Rc<EventsView> {
        self.view.clone()
    }
}
