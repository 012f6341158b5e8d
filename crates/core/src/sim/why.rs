//! "Why?": the chain of causes of a write, followed back through what the engine recorded as it ran
//! ([`crate::cause`]): write <- reconcile of controller C for key K (with every add merged into that queue item) <-
//! watch event at resourceVersion R as its informer saw it <- the write that made R <- ... <- a person's
//! intervention or a timer. A relist that repaired a lost watch event shows as the relist; a chain that reaches
//! past what the logs keep ends there, saying so.

use super::*;
use crate::cause::{Origin as By, ReconcileCause, Trigger};
use crate::store::SERVER;
use crate::time::human_duration;
use crate::watch::EventType;

/// Steps a chain has at most (kubeloop's own bound; a chain that long ends with a note).
pub const MAX_CHAIN: usize = 64;

/// What one step of a chain is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// A write to the store.
    Write,
    /// A controller's reconcile of one key.
    Reconcile,
    /// A key put back in a queue: requeued after a delay, or retried after a failure.
    Queue,
    /// A watch event as an informer (or a kubelet) received it.
    Watch,
    /// A person's intervention.
    Intervention,
    /// A timer: a periodic pass, a kubelet's own timers, leader election, the server's housekeeping.
    Timer,
    /// An informer's periodic resync.
    Resync,
    /// An informer's relist (it found what its watch did not deliver).
    Relist,
}

impl StepKind {
    /// As the page's hooks and the runner's output name it.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Write => "write",
            StepKind::Reconcile => "reconcile",
            StepKind::Queue => "queue",
            StepKind::Watch => "watch",
            StepKind::Intervention => "intervention",
            StepKind::Timer => "timer",
            StepKind::Resync => "resync",
            StepKind::Relist => "relist",
        }
    }
}

/// One step of a chain of causes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CauseStep {
    pub kind: StepKind,
    /// When it happened (simulated ms).
    pub at: Millis,
    pub text: String,
    /// The object a write step wrote.
    pub object: Option<(Kind, ObjKey)>,
}

impl CauseStep {
    fn new(kind: StepKind, at: Millis, text: String) -> Self {
        CauseStep { kind, at, text, object: None }
    }
}

/// A write's chain of causes, the write first, back to where it starts ([`Sim::why`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    pub steps: Vec<CauseStep>,
    /// Why the chain stops before a person or a timer, if it does (older causes no longer kept, a write made
    /// outside any recorded cause).
    pub ends: Option<String>,
}

/// Where following a chain goes next.
enum Next {
    Write(u64),
    Reconcile(u64),
    Done,
}

impl Sim {
    /// A person's intervention starts: the writes until [`Sim::end_intervention`] are its (`text`: as the run shows
    /// it, `kill node node-2`).
    pub fn begin_intervention(&mut self, text: String) -> u64 {
        let seq = self.store.causes.intervention(self.now, text);
        self.store.causes.current = Cause::Intervention(seq);
        seq
    }

    /// Intervention `seq` goes on (a command it left running looks at the cluster again).
    pub fn resume_intervention(&mut self, seq: u64) {
        self.store.causes.current = Cause::Intervention(seq);
    }

    /// The intervention is done: later writes are the components'.
    pub fn end_intervention(&mut self) {
        self.store.causes.current = Cause::Unknown;
    }

    /// Keeps every version of `kind`/`key` from now on (at most [`crate::cause::TRACE_MAX`]): its history, read
    /// with [`crate::cause::CauseLog::trace`]. Keeping them changes nothing in the run.
    pub fn trace(&mut self, kind: Kind, key: ObjKey) {
        let t = crate::cause::Trace { kind, key, versions: Vec::new(), more: 0 };
        self.store.causes.trace = Some(t);
    }

    /// A copy of the cluster for a checkpoint: everything the run goes on from, without what is only kept for
    /// observers (the causes and the reconcile log, which the live run keeps): a checkpoint's bytes are the
    /// cluster's, not its history's. Run on, the copy makes the same history as the cluster it copies.
    pub fn checkpoint(&self) -> Sim {
        let mut copy = self.clone();
        copy.store.causes.forget();
        copy.log.records = Default::default();
        copy
    }

    /// What the engine recorded of its writes' causes.
    pub fn causes(&self) -> &crate::cause::CauseLog {
        &self.store.causes
    }

    /// Why `kind`/`key` is as it is at `at`: the chain of causes of its newest write at or before `at`. `None` when
    /// no write of it is kept.
    pub fn why(&self, kind: Kind, key: &ObjKey, at: Millis) -> Option<Chain> {
        let w = self.store.causes.last_write(kind, key, at)?;
        Some(self.chain(w.rv))
    }

    /// The chain of causes of the write at `rv`.
    pub fn chain(&self, rv: u64) -> Chain {
        let mut chain = Chain::default();
        let mut next = Next::Write(rv);
        while chain.steps.len() < MAX_CHAIN {
            next = match next {
                Next::Write(rv) => self.step_write(rv, &mut chain),
                Next::Reconcile(id) => self.step_reconcile(id, &mut chain),
                Next::Done => return chain,
            };
        }
        chain.ends.get_or_insert_with(|| format!("the chain goes on past {MAX_CHAIN} steps (kubeloop's own bound)"));
        chain
    }

    /// The name of the client a write was made under (`the API server` for its own).
    pub fn client_name(&self, id: ClientId) -> String {
        match self.store.clients().get(id) {
            Some(c) => c.name.to_string(),
            None if id == SERVER => "the API server".into(),
            None => format!("client {id}"),
        }
    }

    fn step_write(&self, rv: u64, chain: &mut Chain) -> Next {
        let causes = &self.store.causes;
        let Some(w) = causes.write(rv) else {
            chain.ends = Some(format!("the write at resourceVersion {rv} is older than the causes kept"));
            return Next::Done;
        };
        let verb = w.verb_said();
        let text = format!("{} {verb} {} {} (resourceVersion {rv})", self.client_name(w.client), w.kind.name(), w.key);
        chain.steps.push(CauseStep { kind: StepKind::Write, at: w.at, text, object: Some((w.kind, w.key.clone())) });
        match w.cause {
            Cause::Intervention(seq) => {
                self.push_intervention(seq, w.at, chain);
                Next::Done
            }
            Cause::Reconcile(id) => Next::Reconcile(id),
            Cause::NotRenewed { reconcile, rv } => self.not_renewed(reconcile, rv, chain),
            Cause::KubeletWatch { node, rv: seen } => {
                let name = self.kubelets.get(node as usize).map_or("?", |k| &k.name);
                let text = format!("the kubelet of {name} received the pod's version at resourceVersion {seen}");
                chain.steps.push(CauseStep::new(StepKind::Watch, w.at, text));
                if seen == rv {
                    return Next::Done;
                }
                Next::Write(seen)
            }
            Cause::KubeletTimer { node, what } => {
                let name = self.kubelets.get(node as usize).map_or("?", |k| &k.name);
                let text = format!("a timer of the kubelet of {name}: {what}");
                chain.steps.push(CauseStep::new(StepKind::Timer, w.at, text));
                Next::Done
            }
            Cause::Election => {
                let text = format!("{}'s leader election (its retry period)", self.client_name(w.client));
                chain.steps.push(CauseStep::new(StepKind::Timer, w.at, text));
                Next::Done
            }
            Cause::Server(what) => {
                let text = format!("the API server: {what}");
                chain.steps.push(CauseStep::new(StepKind::Timer, w.at, text));
                Next::Done
            }
            Cause::Unknown => {
                chain.ends = Some("this write was made outside any recorded cause".into());
                Next::Done
            }
        }
    }

    /// The reconcile `id`'s step, if it is kept.
    fn push_reconcile(&self, id: u64, chain: &mut Chain) -> Option<&ReconcileCause> {
        let Some(r) = self.store.causes.reconcile_of(id) else {
            chain.ends = Some("the reconcile that made it is older than the causes kept".into());
            return None;
        };
        let adds = r.triggers.len() + r.more as usize;
        let merged = if adds > 1 { format!(" ({adds} adds merged into this queue item)") } else { String::new() };
        let text = format!("{} ({}) reconciled {}{merged}", r.controller, r.host, r.key);
        chain.steps.push(CauseStep::new(StepKind::Reconcile, r.at, text));
        Some(r)
    }

    /// A write of the node lifecycle controller's monitor pass about a node whose Lease was last renewed by the
    /// write at `rv`: the chain goes on to why the renewals stopped (the kubelet stopped, and who stopped it).
    fn not_renewed(&self, reconcile: u64, rv: u64, chain: &mut Chain) -> Next {
        let Some(r) = self.push_reconcile(reconcile, chain) else { return Next::Done };
        let at = r.at;
        let causes = &self.store.causes;
        let Some(lease) = causes.write(rv).filter(|w| w.kind == Kind::Lease) else {
            let text = "a timer: the monitor pass found the node's Lease not renewed (its renewals are older than the causes kept)";
            chain.steps.push(CauseStep::new(StepKind::Timer, at, text.into()));
            return Next::Done;
        };
        let node = lease.key.name.clone();
        let text = format!(
            "a timer: the monitor pass found the Lease of {node} not renewed for node-monitor-grace-period (last renewed at {}, resourceVersion {rv})",
            human_duration(lease.at)
        );
        chain.steps.push(CauseStep::new(StepKind::Timer, at, text));
        // Renewals written after it that the pass did not see: its informer lost their watch events (the missing
        // link). The kubelet ran all along.
        let missed: Vec<&crate::cause::WriteCause> =
            causes.writes_of(Kind::Lease, &lease.key).filter(|w| w.rv > rv && w.at < at).collect();
        if let Some(first) = missed.first() {
            let text = format!(
                "the missing link: {}'s Lease informer never received {} renewal(s) written since (the first at {}, resourceVersion {}): its watch lost them, and the kubelet of {node} ran all along",
                r.host,
                missed.len(),
                human_duration(first.at),
                first.rv
            );
            chain.steps.push(CauseStep::new(StepKind::Watch, first.at, text));
            return Next::Done;
        }
        let Some(stop) = causes.stop_of(&node, at).filter(|s| s.at >= lease.at) else { return Next::Done };
        let text =
            format!("the kubelet of {node} stopped at {}: nothing renewed its Lease since", human_duration(stop.at));
        chain.steps.push(CauseStep::new(StepKind::Timer, stop.at, text));
        if let Cause::Intervention(seq) = stop.cause {
            self.push_intervention(seq, stop.at, chain);
        }
        Next::Done
    }

    /// The person's intervention `seq` (made at `at`), as a chain's last step.
    fn push_intervention(&self, seq: u64, at: Millis, chain: &mut Chain) {
        let text = match self.store.causes.intervention_of(seq) {
            Some(i) => format!("you: {} at {}", i.text, human_duration(i.at)),
            None => "you: an intervention older than those kept".into(),
        };
        chain.steps.push(CauseStep::new(StepKind::Intervention, at, text));
    }

    fn step_reconcile(&self, id: u64, chain: &mut Chain) -> Next {
        let Some(r) = self.push_reconcile(id, chain) else { return Next::Done };
        let Some(t) = main_trigger(r) else {
            chain.ends = Some("the reconcile's queue item kept no add".into());
            return Next::Done;
        };
        match t {
            Trigger::Event { informer, origin, type_, rv } => {
                let (step, how) = match origin {
                    By::Watch => (StepKind::Watch, "its watch delivered"),
                    By::Relist => (StepKind::Relist, "a relist found"),
                    By::Resync => (StepKind::Resync, "a resync handed it again:"),
                };
                let Some(w) = self.store.causes.write(*rv) else {
                    chain.ends = Some(format!("the write at resourceVersion {rv} is older than the causes kept"));
                    return Next::Done;
                };
                // A watch event is delivered a moment after its write; a relist or a resync when the reconcile ran.
                let at = if *origin == By::Watch { w.at } else { r.at };
                let (kind, key) = (w.kind.name(), &w.key);
                let text = format!(
                    "{}'s {kind} informer: {how} {} {kind} {key} at resourceVersion {rv}",
                    self.informer_host(*informer),
                    type_.as_str()
                );
                chain.steps.push(CauseStep::new(step, at, text));
                match origin {
                    By::Resync => Next::Done,
                    _ => Next::Write(*rv),
                }
            }
            Trigger::Gone { informer, kind, key, rv } => {
                // The relist names the last version it knew: the write it never got is the delete after it (the
                // missing link).
                let causes = &self.store.causes;
                let missed = causes.writes_of(*kind, key).find(|w| w.rv > *rv && w.verb == EventType::Deleted);
                let kind = kind.name();
                let what = match missed {
                    Some(w) => {
                        format!("{kind} {key} gone: its watch never delivered the delete at resourceVersion {}", w.rv)
                    }
                    None => format!("{kind} {key} gone (its delete is older than the causes kept)"),
                };
                let text = format!("{}'s {kind} informer: a relist found {what}", self.informer_host(*informer));
                chain.steps.push(CauseStep::new(StepKind::Relist, r.at, text));
                missed.map_or(Next::Done, |w| Next::Write(w.rv))
            }
            Trigger::Requeue { after, delay } | Trigger::Retry { after, delay } => {
                let retry = matches!(t, Trigger::Retry { .. });
                let before = self.store.causes.reconcile_of(*after);
                if !retry && before.is_some_and(|b| b.key == r.key && is_periodic(b)) {
                    return self.periodic(r, *delay, chain);
                }
                let text = if retry {
                    format!("retried after a back-off of {} (the reconcile before failed)", human_duration(*delay))
                } else {
                    format!("requeued after {} by the reconcile before", human_duration(*delay))
                };
                chain.steps.push(CauseStep::new(StepKind::Queue, r.at.saturating_sub(*delay), text));
                Next::Reconcile(*after)
            }
        }
    }

    /// A key a controller requeues for ever (the node lifecycle controller's monitor pass): a timer.
    fn periodic(&self, r: &ReconcileCause, delay: Millis, chain: &mut Chain) -> Next {
        let text = format!("a timer: {} passes over {} every {}", r.controller, r.key, human_duration(delay));
        chain.steps.push(CauseStep::new(StepKind::Timer, r.at, text));
        Next::Done
    }

    /// The process or kubelet an informer belongs to.
    fn informer_host(&self, informer: u32) -> String {
        match self.informer_owner.get(informer as usize) {
            Some(Owner::Host(HostId(h))) => self.hosts.get(*h).map_or("?".into(), |h| h.name.to_string()),
            Some(Owner::Kubelet(n)) => self.kubelets.get(*n).map_or("?".into(), |k| format!("kubelet {}", k.name)),
            None => "?".into(),
        }
    }
}

/// The add that started a reconcile's chain: a watch event first (what changed), then a relist's or a resync's, then
/// a requeue or retry.
fn main_trigger(r: &ReconcileCause) -> Option<&Trigger> {
    let event = |want: By| r.triggers.iter().find(|t| matches!(t, Trigger::Event { origin, .. } if *origin == want));
    let gone = || r.triggers.iter().find(|t| matches!(t, Trigger::Gone { .. }));
    event(By::Watch)
        .or_else(gone)
        .or_else(|| event(By::Relist))
        .or_else(|| event(By::Resync))
        .or_else(|| r.triggers.first())
}

/// A reconcile only a requeue asked for: a key's periodic pass.
fn is_periodic(r: &ReconcileCause) -> bool {
    !r.triggers.is_empty() && r.triggers.iter().all(|t| matches!(t, Trigger::Requeue { .. }))
}
