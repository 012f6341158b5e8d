//! The TTL-after-finished controller (pkg/controller/ttlafterfinished): a finished Job (Complete or Failed) with
//! `ttlSecondsAfterFinished` is deleted that long after its finish (the last transition of that condition), in the
//! foreground: the garbage collector deletes its pods first.

use crate::api::{Job, Kind, ObjKey};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::{DeleteOptions, Propagation};
use crate::time::Millis;

/// `--concurrent-ttl-after-finished-syncs`.
pub const WORKERS: usize = 5;

#[derive(Clone, Default)]
pub struct TtlAfterFinishedController {
    workers: usize,
}

impl TtlAfterFinishedController {
    pub fn new(workers: usize) -> Self {
        TtlAfterFinishedController { workers }
    }
}

/// `needsCleanup`: a TTL, and finished.
fn needs_cleanup(job: &Job) -> bool {
    job.spec.ttl_seconds_after_finished.is_some() && job.finished().is_some()
}

/// `timeLeft`: how long until the Job expires (0: it has).
fn time_left(job: &Job, now: Millis) -> Option<Millis> {
    let ttl = job.spec.ttl_seconds_after_finished?;
    let finished = job.finished()?.last_transition_time?.0;
    let expires = finished.saturating_add(crate::time::seconds(ttl.into()));
    Some(expires.saturating_sub(now))
}

impl Reconciler for TtlAfterFinishedController {
    fn name(&self) -> &'static str {
        "ttlafterfinished"
    }

    fn component(&self) -> &'static str {
        "ttl-after-finished-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::Job]
    }

    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let (InformerEvent::Add(obj) | InformerEvent::Update(_, obj)) = ev else { return };
        let Some(job) = obj.as_job() else { return };
        if job.metadata.deletion_timestamp.is_none() && needs_cleanup(job) {
            out.push((obj.key(), 0));
        }
    }

    /// `processJob`: not yet expired, look again when it is; expired, check a fresh copy from the API server and
    /// delete it (foreground, preconditioned on its UID).
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(job) = cx.caches.of(Kind::Job).get(key).and_then(|o| o.as_job()) else {
            return Ok(ReconcileAction::Done);
        };
        if job.metadata.deletion_timestamp.is_some() || !needs_cleanup(job) {
            return Ok(ReconcileAction::Done);
        }
        match time_left(job, cx.now) {
            Some(0) => {}
            Some(left) => return Ok(ReconcileAction::RequeueAfter(left)),
            None => return Ok(ReconcileAction::Done),
        }
        let fresh = match cx.api.get(Kind::Job, key) {
            Ok(o) => o,
            Err(e) if e.is_not_found() => return Ok(ReconcileAction::Done),
            Err(e) => return Err(e.to_string()),
        };
        let Some(fresh) = fresh.as_job() else { return Ok(ReconcileAction::Done) };
        if fresh.metadata.deletion_timestamp.is_some() || !needs_cleanup(fresh) {
            return Ok(ReconcileAction::Done);
        }
        if let Some(left) = time_left(fresh, cx.now).filter(|l| *l > 0) {
            return Ok(ReconcileAction::RequeueAfter(left));
        }
        let opts = DeleteOptions {
            propagation: Some(Propagation::Foreground),
            preconditions_uid: Some(fresh.metadata.uid.clone()),
            ..Default::default()
        };
        match cx.api.delete(Kind::Job, key, &opts) {
            Ok(_) => Ok(ReconcileAction::Done),
            Err(e) if e.is_not_found() => Ok(ReconcileAction::Done),
            Err(e) => Err(e.to_string()),
        }
    }
}
