//! The timeline: what a run printed, in order.

use super::*;

/// What a timeline line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    /// A scenario action (a kubectl command, a node fault).
    Action,
    /// A result line of an action (`deployment.apps/web scaled`).
    Result,
    /// An action that failed, printed as kubectl prints the error.
    Error,
    /// A Kubernetes Event written by a component.
    Event,
    /// A remark of the runner.
    Note,
}

/// A run's timeline, bounded ([`MAX_TIMELINE_ENTRIES`]): the first `head_cap` entries and the last `tail_cap`;
/// how many were left out between them becomes a note there.
pub(super) struct Timeline {
    pub(super) head: Vec<TimelineEntry>,
    pub(super) tail: std::collections::VecDeque<TimelineEntry>,
    pub(super) head_cap: usize,
    pub(super) tail_cap: usize,
    /// Entries left out, and the times of the first and the last of them.
    pub(super) dropped: u64,
    pub(super) dropped_span: Option<(Millis, Millis)>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new(MAX_TIMELINE_ENTRIES / 2, MAX_TIMELINE_ENTRIES - MAX_TIMELINE_ENTRIES / 2)
    }
}

impl Timeline {
    pub(super) fn new(head_cap: usize, tail_cap: usize) -> Self {
        Timeline {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            head_cap,
            tail_cap,
            dropped: 0,
            dropped_span: None,
        }
    }

    pub(super) fn push(&mut self, e: TimelineEntry) {
        if self.head.len() < self.head_cap {
            self.head.push(e);
            return;
        }
        self.tail.push_back(e);
        if self.tail.len() > self.tail_cap {
            if let Some(old) = self.tail.pop_front() {
                self.dropped += 1;
                let (first, _) = self.dropped_span.unwrap_or((old.at, old.at));
                self.dropped_span = Some((first, old.at));
            }
        }
    }

    /// The entries kept so far, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.head.iter().chain(self.tail.iter())
    }

    /// The timeline: the first entries, a note of those left out (if any), the last entries.
    pub(super) fn into_vec(self) -> Vec<TimelineEntry> {
        let mut out = self.head;
        if let Some((first, last)) = self.dropped_span {
            out.push(TimelineEntry {
                at: first,
                kind: EntryKind::Note,
                source: "scenario".into(),
                text: format!(
                    "({} timeline entries from {} to {} not kept: kubeloop keeps the first {} and the last {} of a run)",
                    self.dropped,
                    human_duration(first),
                    human_duration(last),
                    self.head_cap,
                    self.tail_cap
                ),
            });
        }
        out.extend(self.tail);
        out
    }
}

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// Simulated time, milliseconds.
    pub at: Millis,
    pub kind: EntryKind,
    /// Who: `scenario`, `kubectl`, or the component that wrote the Event (`kubelet`, `default-scheduler`...).
    pub source: String,
    pub text: String,
}

impl TimelineEntry {
    pub fn is_error(&self) -> bool {
        self.kind == EntryKind::Error
    }
}

impl fmt::Display for TimelineEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = match self.kind {
            EntryKind::Action => "$ ",
            EntryKind::Result => "  ",
            EntryKind::Error => "! ",
            EntryKind::Event | EntryKind::Note => "",
        };
        if self.text.is_empty() {
            // A blank line of a command's output.
            return write!(f, "[{}]", format_time(self.at));
        }
        write!(f, "[{}] {mark}{}", format_time(self.at), self.text)
    }
}

/// The timeline, one entry a line.
pub fn render_timeline(entries: &[TimelineEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out
}

/// `Normal   ScalingReplicaSet  deployment/web  Scaled up replica set web-5d4f8 from 0 to 3  (kube-controller-manager)`
pub fn render_event(ev: &crate::api::Event) -> String {
    let b = &ev.body;
    let obj = format!("{}/{}", b.involved_object.kind.to_ascii_lowercase(), b.involved_object.name);
    let count = if b.count > 1 { format!(" (x{})", b.count) } else { String::new() };
    let source = if b.source.host.is_empty() {
        b.source.component.to_string()
    } else {
        format!("{}, {}", b.source.component, b.source.host)
    };
    format!("{:<8} {}  {obj}  {}{count}  ({source})", b.type_, b.reason, b.message)
}
