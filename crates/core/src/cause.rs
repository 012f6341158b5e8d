//! Causes: why each write happened, recorded as the write is made, never reconstructed after the fact.
//!
//! Every write the store commits is kept with who wrote it (its client), the verb, and its [`Cause`]: a person's
//! intervention, a controller's reconcile, a kubelet acting on a watch event or a timer, a leader elector's tick, or
//! the API server's own housekeeping. A reconcile is kept with every add its queue merged into the key it took
//! ([`Trigger`]): the watch events as its informer delivered them (by resourceVersion, which names the write that
//! made each), a relist or a resync, or the reconcile that requeued or retried it. A person's interventions and the
//! kubelets they stopped are kept too. Following these links from any write back to a person or a timer is
//! [`crate::sim::Sim::why`].
//!
//! Recording draws nothing and schedules nothing: the history is the same with or without it. Every log is a ring
//! with a fixed capacity ([`WRITES_KEPT`], [`RECONCILES_KEPT`], [`INTERVENTIONS_KEPT`], [`STOPS_KEPT`]): a chain
//! that reaches past the oldest entry kept ends there, saying so.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::api::{Kind, ObjKey, Str};
use crate::time::Millis;
use crate::watch::EventType;

/// Writes kept with their causes (the newest; kubeloop's own bound).
pub const WRITES_KEPT: usize = 65_536;
/// Reconciles kept with their triggers.
pub const RECONCILES_KEPT: usize = 32_768;
/// A person's interventions kept.
pub const INTERVENTIONS_KEPT: usize = 10_000;
/// Kubelets stopped (killed nodes) kept.
pub const STOPS_KEPT: usize = 1_024;
/// Adds kept per queue item; more merged adds are counted.
pub const TRIGGERS_KEPT: usize = 8;

/// Why a write happened ([module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cause {
    /// Nothing the engine knows of (a command still running between steps, a test's direct write).
    #[default]
    Unknown,
    /// A person's intervention: its sequence number ([`CauseLog::intervention`]).
    Intervention(u64),
    /// A controller's reconcile: its id ([`CauseLog::reconcile`]).
    Reconcile(u64),
    /// A reconcile acting on what did not happen: a node whose Lease was last renewed by the write at `rv` (the
    /// node lifecycle controller's monitor pass, after node-monitor-grace-period).
    NotRenewed { reconcile: u64, rv: u64 },
    /// A kubelet acting on a watch event of its pods (the write at `rv`).
    KubeletWatch { node: u32, rv: u64 },
    /// A kubelet's timer: its lease renewal and node status (`tick`) or a pod's next step.
    KubeletTimer { node: u32, what: &'static str },
    /// A control-plane process's leader election (its retry-period tick).
    Election,
    /// The API server's own housekeeping (an Event's TTL).
    Server(&'static str),
}

/// One add to a controller's queue that a reconcile took ([`ReconcileCause::triggers`]). 24 bytes: one is kept per
/// add merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// A notification of the controller's informer: the object as written at `rv` (which names its kind and key in
    /// the writes kept), delivered by the watch, a relist or a resync (`origin`).
    Event { informer: u32, origin: Origin, type_: EventType, rv: u64 },
    /// A relist found `kind`/`key` gone: the informer missed its delete (`rv`: the last version it knew).
    Gone { informer: u32, kind: Kind, key: Box<ObjKey>, rv: u64 },
    /// The reconcile `after` asked for it again after a delay (`RequeueAfter`).
    Requeue { after: u64, delay: Millis },
    /// The reconcile `after` failed: retried after the rate limiter's back-off.
    Retry { after: u64, delay: Millis },
}

/// Where an informer's notification came from (the reflector's [`crate::informer::Origin`], kept as plain data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Watch,
    Relist,
    Resync,
}

/// A write as it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteCause {
    pub rv: u64,
    pub at: Millis,
    /// The store's client id of the writer (`crate::store::ClientId`; `crate::store::SERVER` for the server's own).
    pub client: usize,
    pub verb: EventType,
    pub kind: Kind,
    pub key: ObjKey,
    pub cause: Cause,
}

impl WriteCause {
    /// The verb as a sentence says it: `created`, `updated`, `deleted`.
    pub fn verb_said(&self) -> &'static str {
        match self.verb {
            EventType::Added => "created",
            EventType::Deleted => "deleted",
            _ => "updated",
        }
    }
}

/// A reconcile, with every add its queue merged into the key it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReconcileCause {
    pub id: u64,
    pub controller: &'static str,
    pub host: Str,
    pub key: ObjKey,
    pub at: Millis,
    /// The adds merged into the key, oldest first (at most [`TRIGGERS_KEPT`]).
    pub triggers: Box<[Trigger]>,
    /// Adds merged beyond those kept.
    pub more: u32,
}

/// A person's intervention, as the run shows it (`kill node node-2`, `kubectl scale ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterventionCause {
    pub seq: u64,
    pub at: Millis,
    pub text: String,
}

/// A kubelet that stopped (its node was killed), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeletStop {
    pub node: Str,
    pub at: Millis,
    pub cause: Cause,
}

/// Versions of one object a trace keeps at most (kubeloop's own bound; later ones are counted).
pub const TRACE_MAX: usize = 2_000;

/// One version of a traced object: the write that made it, and the object as written (for a delete, as it was last).
#[derive(Clone, Debug)]
pub struct Version {
    pub write: WriteCause,
    pub object: std::rc::Rc<crate::api::Object>,
}

/// Every version of one object, kept as the store commits them ([`crate::sim::Sim::trace`]): its history, without
/// keeping every object's.
#[derive(Clone, Debug)]
pub struct Trace {
    pub kind: Kind,
    pub key: ObjKey,
    pub versions: Vec<Version>,
    /// Versions past [`TRACE_MAX`], not kept.
    pub more: usize,
}

impl Trace {
    pub(crate) fn keep(&mut self, write: &WriteCause, object: &std::rc::Rc<crate::api::Object>) {
        if write.kind != self.kind || write.key != self.key {
            return;
        }
        if self.versions.len() < TRACE_MAX {
            self.versions.push(Version { write: write.clone(), object: object.clone() });
        } else {
            self.more += 1;
        }
    }
}

/// The adds waiting in one controller's queue for the reconcile that takes their key.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    triggers: FxHashMap<ObjKey, (Vec<Trigger>, u32)>,
}

impl Pending {
    /// An add of `key`: kept with the others merged into it.
    pub(crate) fn add(&mut self, key: &ObjKey, t: Trigger) {
        let (list, more) = self.triggers.entry(key.clone()).or_default();
        if list.len() < TRIGGERS_KEPT {
            list.push(t);
        } else {
            *more = more.saturating_add(1);
        }
    }

    /// The adds merged into `key`, taken by the reconcile that takes the key.
    pub(crate) fn take(&mut self, key: &ObjKey) -> (Vec<Trigger>, u32) {
        self.triggers.remove(key).unwrap_or_default()
    }

    /// The queue is lost (the process died).
    pub(crate) fn clear(&mut self) {
        self.triggers.clear();
    }

    /// Keys with adds waiting (bounded by the queue's keys).
    pub(crate) fn len(&self) -> usize {
        self.triggers.len()
    }
}

/// The causes of a run ([module docs](self)).
#[derive(Clone, Debug, Default)]
pub struct CauseLog {
    /// The cause of the writes being made now.
    pub(crate) current: Cause,
    /// The object whose every version is kept, if one is traced.
    pub(crate) trace: Option<Trace>,
    /// The newest writes, by resourceVersion: consecutive, since every commit takes the next one.
    writes: VecDeque<WriteCause>,
    reconciles: VecDeque<ReconcileCause>,
    next_reconcile: u64,
    interventions: VecDeque<InterventionCause>,
    next_intervention: u64,
    stops: VecDeque<KubeletStop>,
}

fn push_bounded<T>(ring: &mut VecDeque<T>, item: T, cap: usize) {
    if ring.len() >= cap {
        ring.pop_front();
    }
    ring.push_back(item);
}

impl CauseLog {
    /// A write committed now, under the current cause (`object`: as written).
    pub(crate) fn wrote(
        &mut self,
        rv: u64,
        at: Millis,
        client: usize,
        verb: EventType,
        object: &std::rc::Rc<crate::api::Object>,
    ) {
        debug_assert!(self.writes.back().is_none_or(|w| w.rv + 1 == rv), "writes are kept in resourceVersion order");
        let w = WriteCause { rv, at, client, verb, kind: object.kind(), key: object.key(), cause: self.current };
        if let Some(t) = self.trace.as_mut() {
            t.keep(&w, object);
        }
        push_bounded(&mut self.writes, w, WRITES_KEPT);
    }

    /// The traced object's versions so far, if one is traced.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref()
    }

    /// A reconcile starts: its id, which its writes carry.
    pub(crate) fn reconcile(
        &mut self,
        controller: &'static str,
        host: &Str,
        key: &ObjKey,
        at: Millis,
        (triggers, more): (Vec<Trigger>, u32),
    ) -> u64 {
        let id = self.next_reconcile;
        self.next_reconcile += 1;
        let triggers = triggers.into_boxed_slice();
        let r = ReconcileCause { id, controller, host: host.clone(), key: key.clone(), at, triggers, more };
        push_bounded(&mut self.reconciles, r, RECONCILES_KEPT);
        id
    }

    /// A person's intervention starts: its sequence number, which its writes carry.
    pub(crate) fn intervention(&mut self, at: Millis, text: String) -> u64 {
        let seq = self.next_intervention;
        self.next_intervention += 1;
        push_bounded(&mut self.interventions, InterventionCause { seq, at, text }, INTERVENTIONS_KEPT);
        seq
    }

    /// A kubelet stopped, under the current cause.
    pub(crate) fn stopped(&mut self, node: &Str, at: Millis) {
        push_bounded(&mut self.stops, KubeletStop { node: node.clone(), at, cause: self.current }, STOPS_KEPT);
    }

    /// Forgets every cause kept (a checkpoint's copy of the run: the live run keeps them). Those recorded from here
    /// on are kept as before; the counters go on.
    pub(crate) fn forget(&mut self) {
        self.trace = None;
        self.writes = VecDeque::new();
        self.reconciles = VecDeque::new();
        self.interventions = VecDeque::new();
        self.stops = VecDeque::new();
    }

    /// The write at `rv`, if it is still kept.
    pub fn write(&self, rv: u64) -> Option<&WriteCause> {
        let first = self.writes.front()?.rv;
        let w = self.writes.get(usize::try_from(rv.checked_sub(first)?).ok()?)?;
        debug_assert_eq!(w.rv, rv);
        Some(w)
    }

    /// The newest write to `kind`/`key` at or before `at`, if one is still kept.
    pub fn last_write(&self, kind: Kind, key: &ObjKey, at: Millis) -> Option<&WriteCause> {
        self.writes.iter().rev().find(|w| w.at <= at && w.kind == kind && &w.key == key)
    }

    /// Every kept write to `kind`/`key`, oldest first.
    pub fn writes_of<'a>(&'a self, kind: Kind, key: &'a ObjKey) -> impl Iterator<Item = &'a WriteCause> + 'a {
        self.writes.iter().filter(move |w| w.kind == kind && &w.key == key)
    }

    /// The reconcile `id`, if it is still kept.
    pub fn reconcile_of(&self, id: u64) -> Option<&ReconcileCause> {
        let first = self.reconciles.front()?.id;
        self.reconciles.get(usize::try_from(id.checked_sub(first)?).ok()?)
    }

    /// The intervention `seq`, if it is still kept.
    pub fn intervention_of(&self, seq: u64) -> Option<&InterventionCause> {
        let first = self.interventions.front()?.seq;
        self.interventions.get(usize::try_from(seq.checked_sub(first)?).ok()?)
    }

    /// The last time `node`'s kubelet stopped at or before `at`.
    pub fn stop_of(&self, node: &str, at: Millis) -> Option<&KubeletStop> {
        self.stops.iter().rev().find(|s| s.at <= at && &*s.node == node)
    }

    /// The oldest write still kept (chains end there).
    pub fn oldest_write(&self) -> Option<u64> {
        self.writes.front().map(|w| w.rv)
    }

    /// Entries held (each ring is bounded).
    pub fn footprint(&self) -> usize {
        self.writes.len() + self.reconciles.len() + self.interventions.len() + self.stops.len()
    }
}
