//! The job controller (pkg/controller/job): a Job's pods run to completion. It keeps `parallelism` pods active
//! (never more than the completions left; for an Indexed Job, one pod per pending index), counts the pods that
//! finish through the `batch.kubernetes.io/job-tracking` finalizer and `status.uncountedTerminatedPods`, replaces
//! failed pods after a back-off (10 s doubling to 6 min, from the last failure), and ends the Job: Complete once
//! enough pods succeeded (SuccessCriteriaMet first), Failed past `backoffLimit`, `activeDeadlineSeconds` or a pod
//! failure policy's FailJob rule (FailureTarget first, and Failed once no pod is terminating). Suspending deletes
//! the active pods.

use std::rc::Rc;

use super::expectations::Expectations;
use super::resolve_controller_ref;
use crate::api::job::{format_indexes, parse_indexes, COMPLETION_INDEX_ANNOTATION, TRACKING_FINALIZER};
use crate::api::{controller_of, s, Job, JobCondition, Kind, ObjKey, Object, OwnerReference, Pod, PodPhase, Str, Time};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{DeleteOptions, Subresource};
use crate::time::{Millis, MINUTE, SECOND};
use crate::vecmap::VecMap;

/// `--concurrent-job-syncs`.
pub const WORKERS: usize = 5;
/// `MaxPodCreateDeletePerSync`.
pub const MAX_POD_CREATE_DELETE_PER_SYNC: usize = 500;
/// `MaxUncountedPods`: finished pods taken into `uncountedTerminatedPods` per sync.
pub const MAX_UNCOUNTED_PODS: usize = 500;
/// `DefaultJobPodFailureBackOff` and `MaxJobPodFailureBackOff`.
pub const POD_FAILURE_BACKOFF: Millis = 10 * SECOND;
pub const MAX_POD_FAILURE_BACKOFF: Millis = 6 * MINUTE;

/// The back-off record of a Job (`backoffRecord`): failures since the last success, and when the last was.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct BackoffRecord {
    failures: u32,
    last_failure: Millis,
}

impl BackoffRecord {
    /// `getRemainingTime`: 10 s * 2^(failures-1), at most 6 min, counted from the last failure.
    fn remaining(&self, now: Millis) -> Millis {
        if self.failures == 0 {
            return 0;
        }
        let shift = (self.failures - 1).min(16);
        let backoff = POD_FAILURE_BACKOFF.saturating_mul(1 << shift).min(MAX_POD_FAILURE_BACKOFF);
        let elapsed = now.saturating_sub(self.last_failure);
        backoff.saturating_sub(elapsed)
    }
}

#[derive(Clone, Default)]
pub struct JobController {
    pub(crate) expectations: Expectations,
    workers: usize,
    /// `podBackoffStore`, per Job.
    backoff: VecMap<ObjKey, BackoffRecord>,
    /// `finalizerExpectations`: the pods (by UID) whose finalizer removal the Job's informer has not seen yet.
    removing: VecMap<ObjKey, Vec<Str>>,
}

impl JobController {
    pub fn new(workers: usize) -> Self {
        JobController { workers, ..Default::default() }
    }
}

fn job_key(job: &Job) -> ObjKey {
    ObjKey { namespace: job.metadata.namespace.clone(), name: job.metadata.name.clone() }
}

fn has_finalizer(pod: &Pod) -> bool {
    pod.metadata.finalizers.iter().any(|f| &**f == TRACKING_FINALIZER)
}

/// `getCompletionIndex`: the pod's completion index annotation, when it is a number from 0.
fn completion_index(pod: &Pod) -> Option<i32> {
    pod.metadata.annotation(COMPLETION_INDEX_ANNOTATION)?.parse().ok().filter(|i| *i >= 0)
}

/// `isPodFailed`: Failed, or (unless only failed pods are replaced) deleted before it succeeded.
fn is_failed(pod: &Pod, job: &Job) -> bool {
    pod.status.phase == PodPhase::Failed
        || (!job.only_replace_failed()
            && pod.metadata.deletion_timestamp.is_some()
            && pod.status.phase != PodPhase::Succeeded)
}

/// `CountTerminatingPods`: being deleted, not finished.
fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some() && !pod.status.phase.is_terminal()
}

/// What a pod failure policy says of a failed pod (`matchPodFailurePolicy`): the FailJob message, whether the
/// failure counts, and the action of the rule that matched.
pub(crate) fn match_policy(job: &Job, pod: &Pod) -> (Option<String>, bool, Option<Str>) {
    let Some(policy) = &job.spec.pod_failure_policy else { return (None, true, None) };
    for (index, rule) in policy.rules.iter().enumerate() {
        let matched = if let Some(req) = &rule.on_exit_codes {
            pod.status.container_statuses.iter().find_map(|c| {
                let t = c.state.terminated.as_ref()?;
                let named = req.container_name.as_ref().is_none_or(|n| *n == c.name);
                let listed = req.values.contains(&t.exit_code);
                let hit = named && t.exit_code != 0 && (listed == (&*req.operator == "In"));
                hit.then(|| {
                    format!(
                        "Container {} for pod {}/{} failed with exit code {} matching {} rule at index {index}",
                        c.name, pod.metadata.namespace, pod.metadata.name, t.exit_code, rule.action
                    )
                })
            })
        } else {
            pod.status.conditions.iter().find_map(|c| {
                let hit = rule.on_pod_conditions.iter().any(|p| p.type_ == c.type_ && p.status == c.status);
                hit.then(|| {
                    format!(
                        "Pod {}/{} has condition {} matching {} rule at index {index}",
                        pod.metadata.namespace, pod.metadata.name, c.type_, rule.action
                    )
                })
            })
        };
        let Some(message) = matched else { continue };
        match &*rule.action {
            "Ignore" => return (None, false, Some(rule.action.clone())),
            "Count" => return (None, true, Some(rule.action.clone())),
            "FailJob" => return (Some(message), true, Some(rule.action.clone())),
            _ => continue,
        }
    }
    (None, true, None)
}

/// A condition as `newCondition` makes it (probe and transition time now).
fn condition(type_: &str, status: &str, reason: &str, message: &str, now: Millis) -> JobCondition {
    JobCondition {
        type_: s(type_),
        status: s(status),
        last_probe_time: Some(Time(now)),
        last_transition_time: Some(Time(now)),
        reason: s(reason),
        message: s(message),
    }
}

/// `ensureJobConditionStatus`: the condition set (replaced when its status, reason or message differ; a False one
/// never added); whether anything changed.
fn ensure_condition(conds: &mut Vec<JobCondition>, new: JobCondition) -> bool {
    match conds.iter_mut().find(|c| c.type_ == new.type_) {
        Some(c) if c.status != new.status || c.reason != new.reason || c.message != new.message => {
            *c = new;
            true
        }
        Some(_) => false,
        None if &*new.status != "False" => {
            conds.push(new);
            true
        }
        None => false,
    }
}

/// One sync's view of a Job (`syncJobCtx`).
struct SyncCtx {
    job: Job,
    pods: Vec<Rc<Object>>,
    active: Vec<Rc<Object>>,
    ready: i32,
    terminating: i32,
    succeeded: i32,
    failed: i32,
    /// Indexed Jobs: the indexes counted so far, and the ones this sync found.
    succeeded_indexes: Vec<i32>,
    finished: Option<JobCondition>,
    new_backoff: BackoffRecord,
    expected_removals: Vec<Str>,
}

impl SyncCtx {
    fn pods(&self) -> impl Iterator<Item = &Pod> + '_ {
        self.pods.iter().filter_map(|o| o.as_pod())
    }

    fn uncounted(&self, uid: &Str, succeeded: bool) -> bool {
        let u = self.job.status.uncounted_terminated_pods.as_ref();
        u.is_some_and(|u| if succeeded { &u.succeeded } else { &u.failed }.contains(uid))
    }

    /// `getValidPodsWithFilter`: pods with the finalizer, not yet uncounted nor being released, with a valid
    /// index for an Indexed Job.
    fn new_finished(&self, succeeded: bool) -> Vec<&Pod> {
        let completions = self.job.spec.completions.unwrap_or(0);
        self.pods()
            .filter(|p| has_finalizer(p) && !self.uncounted(&p.metadata.uid, succeeded))
            .filter(|p| !self.expected_removals.contains(&p.metadata.uid))
            .filter(|p| !self.job.is_indexed() || completion_index(p).is_some_and(|i| i < completions))
            .filter(|p| if succeeded { p.status.phase == PodPhase::Succeeded } else { is_failed(p, &self.job) })
            .collect()
    }
}

/// When a pod finished (its containers' last finish), else `now`.
fn finish_time(pod: &Pod, now: Millis) -> Millis {
    let times = pod.status.container_statuses.iter().filter_map(|c| c.state.terminated.as_ref()?.finished_at);
    times.map(|t| t.0).max().unwrap_or(now)
}

/// `newBackoffRecord`: a success resets the failures; each new failure adds one, the latest its time.
fn next_backoff(old: BackoffRecord, succeeded: &[Pod], failed: &[Pod], now: Millis) -> BackoffRecord {
    let last_success = succeeded.iter().map(|p| finish_time(p, now)).max();
    let mut rec = if last_success.is_some() { BackoffRecord::default() } else { old };
    for p in failed {
        let t = finish_time(p, now);
        if last_success.is_some_and(|s| t < s) {
            continue;
        }
        rec.failures = rec.failures.saturating_add(1);
        rec.last_failure = rec.last_failure.max(t);
    }
    rec
}

impl Reconciler for JobController {
    fn name(&self) -> &'static str {
        "job"
    }

    fn component(&self) -> &'static str {
        "job-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::Job, Kind::Pod]
    }

    fn retained(&self) -> usize {
        self.expectations.len() + self.backoff.len() + self.removing.len()
    }

    fn reset(&mut self) {
        self.expectations.clear();
        self.backoff.clear();
        self.removing.clear();
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.kind(), ev) {
            (Kind::Job, InformerEvent::Delete(..)) => {
                let key = obj.key();
                self.forget(&key);
                // Its pods' finalizers are released by the sync that finds it gone.
                out.push((key, 0));
            }
            (Kind::Job, _) => out.push((obj.key(), 0)),
            (Kind::Pod, InformerEvent::Add(pod)) => self.pod_changed(None, pod, caches, out),
            (Kind::Pod, InformerEvent::Update(old, new))
                if old.meta().resource_version != new.meta().resource_version =>
            {
                self.pod_changed(Some(old), new, caches, out);
            }
            (Kind::Pod, InformerEvent::Delete(pod, _)) => {
                let Some(owner) = job_owner(pod) else { return };
                let key = ObjKey { namespace: pod.meta().namespace.clone(), name: owner.name.clone() };
                self.expectations.deletion_observed(&key, &pod.key());
                self.removal_observed(&key, &pod.meta().uid);
                out.push((key, 0));
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(job) = cx.caches.of(Kind::Job).get(key).and_then(|o| o.as_job()).cloned() else {
            self.forget(key);
            return release_orphans(key, cx).map(|_| ReconcileAction::Done);
        };
        if job.finished().is_some() {
            self.backoff.remove(key);
            return Ok(ReconcileAction::Done);
        }
        self.sync(job, cx)
    }
}

/// The controller reference of a pod when it names a Job.
fn job_owner(pod: &Object) -> Option<&OwnerReference> {
    controller_of(pod.meta()).filter(|r| &*r.kind == "Job")
}

impl JobController {
    fn forget(&mut self, key: &ObjKey) {
        self.expectations.delete(key);
        self.backoff.remove(key);
        self.removing.remove(key);
    }

    fn removal_observed(&mut self, key: &ObjKey, uid: &Str) {
        self.removing.retain(|k, uids| {
            if k == key {
                uids.retain(|u| u != uid);
            }
            !uids.is_empty()
        });
    }

    /// `addPod` / `updatePod`: the owning Job's expectations, and the Job queued; a pod whose Job is gone queues
    /// that Job's key, whose sync releases the pod's finalizer.
    fn pod_changed(&mut self, old: Option<&Rc<Object>>, pod: &Rc<Object>, caches: Caches<'_>, out: &mut Enqueue) {
        let Some(owner) = job_owner(pod) else { return };
        let key = ObjKey { namespace: pod.meta().namespace.clone(), name: owner.name.clone() };
        if resolve_controller_ref(pod, Kind::Job, caches.of(Kind::Job)).is_none() {
            if pod.as_pod().is_some_and(has_finalizer) {
                out.push((key, 0));
            }
            return;
        }
        let was_terminating = old.is_some_and(|o| o.meta().is_terminating());
        match old {
            None if pod.meta().is_terminating() => self.expectations.deletion_observed(&key, &pod.key()),
            None => self.expectations.creation_observed(&key),
            Some(_) if pod.meta().is_terminating() && !was_terminating => {
                self.expectations.deletion_observed(&key, &pod.key())
            }
            Some(_) => {}
        }
        if !pod.as_pod().is_some_and(has_finalizer) {
            self.removal_observed(&key, &pod.meta().uid);
        }
        out.push((key, 0));
    }

    /// `syncJob`.
    fn sync(&mut self, mut job: Job, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let key = job_key(&job);
        job.status.uncounted_terminated_pods.get_or_insert_with(Default::default);
        let satisfied = self.expectations.satisfied(&key, cx.now);
        let mut c = self.context(job, cx);
        let mut requeue: Option<Millis> = None;
        c.finished = finished_condition(&c, cx.now);
        if c.finished.is_none() {
            requeue = deadline_left(&c.job, cx.now);
        }
        if c.job.is_indexed() {
            c.succeeded = i32::try_from(c.succeeded_indexes.len()).unwrap_or(i32::MAX);
        }
        let mut suspend_changed = false;
        let mut error = None;
        let mut active = c.active.len() as i32;
        if c.finished.is_some() {
            let (job, pods) = (c.job.clone(), c.active.clone());
            let (deleted, err) = self.delete_pods(&job, &pods, false, &mut c, cx);
            if deleted != active || !satisfied {
                c.finished = None;
            }
            active -= deleted;
            error = err;
        } else {
            let mut managed = false;
            if satisfied && c.job.metadata.deletion_timestamp.is_none() {
                let (now_active, after, err) = self.manage(&mut c, cx);
                active = now_active;
                error = err;
                managed = true;
                requeue = min_some(requeue, after);
            }
            // Without completions, any success completes it (once nothing runs); else the completions do.
            let enough = match c.job.spec.completions {
                None => c.succeeded > 0,
                Some(n) => c.succeeded >= n,
            };
            if enough && active == 0 {
                let msg = "Reached expected number of succeeded pods";
                c.finished = Some(condition("SuccessCriteriaMet", "True", "CompletionsReached", msg, cx.now));
            } else if managed {
                suspend_changed = suspend_condition(&mut c.job, cx);
            }
        }
        let ready = c.ready;
        let needs_update = suspend_changed
            || active != c.job.status.active
            || c.job.status.ready != Some(ready)
            || c.job.status.terminating != Some(c.terminating);
        c.job.status.active = active;
        c.job.status.ready = Some(ready);
        c.job.status.terminating = Some(c.terminating);
        self.track_and_remove_finalizers(&mut c, needs_update, cx)?;
        if let Some(e) = error {
            return Err(e);
        }
        Ok(requeue.map_or(ReconcileAction::Done, ReconcileAction::RequeueAfter))
    }

    /// The Job's pods and their counts, the start time set, the back-off record this sync would leave.
    fn context(&self, mut job: Job, cx: &mut Ctx<'_, '_>) -> SyncCtx {
        let key = job_key(&job);
        let pods: Vec<Rc<Object>> = cx
            .caches
            .of(Kind::Pod)
            .by_owner(&job.metadata.uid)
            .filter(|o| controller_of(o.meta()).is_some_and(|r| r.uid == job.metadata.uid))
            .cloned()
            .collect();
        let active: Vec<Rc<Object>> = pods.iter().filter(|o| o.as_pod().is_some_and(Pod::is_active)).cloned().collect();
        let ready = active.iter().filter(|o| o.as_pod().is_some_and(Pod::is_ready)).count() as i32;
        let terminating = pods.iter().filter(|o| o.as_pod().is_some_and(is_terminating)).count() as i32;
        if job.status.start_time.is_none() && !job.is_suspended() {
            job.status.start_time = Some(Time(cx.now));
        }
        let completions = job.spec.completions.unwrap_or(0);
        let succeeded_indexes = parse_indexes(&job.status.completed_indexes, completions);
        let mut c = SyncCtx {
            job,
            pods,
            active,
            ready,
            terminating,
            succeeded: 0,
            failed: 0,
            succeeded_indexes,
            finished: None,
            new_backoff: BackoffRecord::default(),
            expected_removals: self.removing.get(&key).cloned().unwrap_or_default(),
        };
        let new_succeeded: Vec<Pod> = c.new_finished(true).into_iter().cloned().collect();
        let new_failed: Vec<Pod> = c.new_finished(false).into_iter().cloned().collect();
        let counted_failed = new_failed.iter().filter(|p| match_policy(&c.job, p).1).count();
        let u = c.job.status.uncounted_terminated_pods.clone().unwrap_or_default();
        let (ns, nf) = (new_succeeded.len() + u.succeeded.len(), counted_failed + u.failed.len());
        let old = self.backoff.get(&key).copied().unwrap_or_default();
        c.new_backoff = next_backoff(old, &new_succeeded, &new_failed, cx.now);
        if c.job.is_indexed() {
            for p in new_succeeded.iter().filter_map(completion_index) {
                c.succeeded_indexes.push(p);
            }
            c.succeeded_indexes.sort_unstable();
            c.succeeded_indexes.dedup();
        }
        c.succeeded = c.job.status.succeeded.saturating_add(ns as i32);
        c.failed = c.job.status.failed.saturating_add(nf as i32);
        c
    }
}

fn min_some(a: Option<Millis>, b: Option<Millis>) -> Option<Millis> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The condition that ends the Job, if one does: a FailureTarget already set (then Failed), a FailJob rule,
/// the back-off limit, the active deadline.
fn finished_condition(c: &SyncCtx, now: Millis) -> Option<JobCondition> {
    let job = &c.job;
    if job.has_condition("SuccessCriteriaMet") {
        let m = job.condition("SuccessCriteriaMet")?;
        return Some(condition("SuccessCriteriaMet", "True", &m.reason, &m.message, now));
    }
    if let Some(t) = job.condition("FailureTarget").filter(|t| &*t.status == "True") {
        return Some(condition("FailureTarget", "True", &t.reason, &t.message, now));
    }
    let fail_job = c.pods().filter(|p| is_failed(p, job)).find_map(|p| match_policy(job, p).0);
    if let Some(msg) = fail_job {
        return Some(condition("FailureTarget", "True", "PodFailurePolicy", &msg, now));
    }
    if c.failed > job.backoff_limit() || past_backoff_limit_on_failure(c) {
        let msg = "Job has reached the specified backoff limit";
        return Some(condition("FailureTarget", "True", "BackoffLimitExceeded", msg, now));
    }
    if deadline_left(job, now) == Some(0) {
        let msg = "Job was active longer than specified deadline";
        return Some(condition("FailureTarget", "True", "DeadlineExceeded", msg, now));
    }
    None
}

/// `pastBackoffLimitOnFailure`: with restartPolicy OnFailure, the restarts of the running and pending pods'
/// containers reach the back-off limit.
fn past_backoff_limit_on_failure(c: &SyncCtx) -> bool {
    if &*c.job.spec.template.spec.restart_policy != "OnFailure" {
        return false;
    }
    let live = c.pods().filter(|p| matches!(p.status.phase, PodPhase::Running | PodPhase::Pending));
    let restarts: i64 = live.flat_map(|p| p.status.container_statuses.iter()).map(|s| i64::from(s.restart_count)).sum();
    let limit = i64::from(c.job.backoff_limit());
    if limit == 0 {
        restarts > 0
    } else {
        restarts >= limit
    }
}

/// How long until the active deadline (0: passed); `None` without one, unstarted or suspended.
fn deadline_left(job: &Job, now: Millis) -> Option<Millis> {
    let secs = job.spec.active_deadline_seconds?;
    let start = job.status.start_time?;
    if job.is_suspended() {
        return None;
    }
    let allowed = crate::time::seconds(secs);
    Some(allowed.saturating_sub(now.saturating_sub(start.0)))
}

/// The Suspended condition and its event when it changes; resuming restarts the active deadline's clock.
fn suspend_condition(job: &mut Job, cx: &mut Ctx<'_, '_>) -> bool {
    let (cond, reason, message) = if job.is_suspended() {
        (condition("Suspended", "True", "JobSuspended", "Job suspended", cx.now), "Suspended", "Job suspended")
    } else {
        (condition("Suspended", "False", "JobResumed", "Job resumed", cx.now), "Resumed", "Job resumed")
    };
    let changed = ensure_condition(&mut job.status.conditions, cond);
    if changed {
        let obj = Object::Job(job.clone());
        cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, reason, message);
        if !job.is_suspended() {
            job.status.start_time = Some(Time(cx.now));
        }
    }
    changed
}

/// `activePodsForRemoval`'s order (`controller.ActivePods`): unscheduled, pending, not ready first, then the
/// newest; by name last.
fn removal_order(pods: &mut [Rc<Object>]) {
    let rank = |o: &Rc<Object>| {
        let p = o.as_pod();
        let scheduled = p.is_some_and(|p| !p.spec.node_name.is_empty());
        let running = p.is_some_and(|p| p.status.phase == PodPhase::Running);
        let ready = p.is_some_and(Pod::is_ready);
        let age = o.meta().creation_timestamp.map_or(0, |t| t.0 / SECOND);
        (scheduled, running, ready, std::cmp::Reverse(age))
    };
    crate::sort::sort_by(pods, |a, b| rank(a).cmp(&rank(b)).then_with(|| a.meta().name.cmp(&b.meta().name)));
}

impl JobController {
    /// `manageJob`: delete what is too many (suspended: every active pod), else create what is missing once the
    /// back-off allows; the active pods after it, when to look again, and an error.
    fn manage(&mut self, c: &mut SyncCtx, cx: &mut Ctx<'_, '_>) -> (i32, Option<Millis>, Option<String>) {
        let job = c.job.clone();
        let active = c.active.len() as i32;
        let mut pods = c.active.clone();
        if job.is_suspended() {
            let (deleted, err) = self.delete_pods(&job, &pods, true, c, cx);
            return (active - deleted, None, err);
        }
        let parallelism = job.parallelism();
        let want = match job.spec.completions {
            None if c.succeeded > 0 => active,
            None => parallelism,
            Some(n) => (n - c.succeeded).clamp(0, parallelism),
        };
        let mut remove = Vec::new();
        if job.is_indexed() {
            remove = duplicate_index_pods(&job, &mut pods);
        }
        let need = (active - want).max(0) as usize;
        if remove.len() < need {
            removal_order(&mut pods);
            remove.extend(pods.iter().take(need - remove.len()).cloned());
        }
        remove.truncate(MAX_POD_CREATE_DELETE_PER_SYNC);
        if !remove.is_empty() {
            let (deleted, err) = self.delete_pods(&job, &remove, true, c, cx);
            return (active - deleted, None, err);
        }
        let terminating = if job.only_replace_failed() { c.terminating } else { 0 };
        let diff = want - terminating - active;
        if diff <= 0 {
            return (active, None, None);
        }
        let left = c.new_backoff.remaining(cx.now);
        if left > 0 {
            return (active, Some(left), None);
        }
        let diff = (diff as usize).min(MAX_POD_CREATE_DELETE_PER_SYNC);
        let indexes: Vec<Option<i32>> =
            if job.is_indexed() { pending_indexes(c, diff).into_iter().map(Some).collect() } else { vec![None; diff] };
        let (created, err) = self.create_pods(&job, &indexes, cx);
        (active + created, None, err)
    }

    /// Creates one pod per entry (its completion index, if any) in slow-start batches (1, 2, 4, ...), guarded by
    /// expectations; how many were made, and the first error.
    fn create_pods(&mut self, job: &Job, indexes: &[Option<i32>], cx: &mut Ctx<'_, '_>) -> (i32, Option<String>) {
        let key = job_key(job);
        let obj = Object::Job(job.clone());
        self.expectations.expect_creations(&key, indexes.len(), cx.now);
        let (mut at, mut batch, mut made, mut error) = (0, 1, 0, None::<String>);
        while at < indexes.len() && error.is_none() {
            let chunk = &indexes[at..(at + batch).min(indexes.len())];
            let results: Vec<_> =
                cx.api.parallel(|api| chunk.iter().map(|i| api.create(Object::Pod(pod_for(job, *i)))).collect());
            for r in results {
                match r {
                    Ok(pod) => {
                        made += 1;
                        let msg = format!("Created pod: {}", pod.meta().name);
                        cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "SuccessfulCreate", &msg);
                    }
                    Err(e) => {
                        self.expectations.creation_observed(&key);
                        let msg = format!("Error creating: {e}");
                        cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "FailedCreate", &msg);
                        error.get_or_insert(e.to_string());
                    }
                }
            }
            at += chunk.len();
            batch *= 2;
        }
        for _ in at..indexes.len() {
            self.expectations.creation_observed(&key);
        }
        (made, error)
    }

    /// Deletes pods (their finalizers kept, or first removed when `release`: `deleteJobPods`); how many went, and
    /// the first error. Each one deleted counts as terminating.
    fn delete_pods(
        &mut self,
        job: &Job,
        pods: &[Rc<Object>],
        release: bool,
        c: &mut SyncCtx,
        cx: &mut Ctx<'_, '_>,
    ) -> (i32, Option<String>) {
        let key = job_key(job);
        let keys: Vec<ObjKey> = pods.iter().map(|p| p.key()).collect();
        if keys.is_empty() {
            return (0, None);
        }
        // Only manageJob's deletes are expected (`deleteJobPods`); a finished Job's are not (`deleteActivePods`).
        if release {
            self.expectations.expect_deletions(&key, &keys, cx.now);
        }
        let obj = Object::Job(job.clone());
        let (mut deleted, mut error) = (0, None::<String>);
        for p in pods {
            let pk = p.key();
            if release && p.as_pod().is_some_and(has_finalizer) {
                if let Err(e) = remove_finalizer(&mut cx.api, &pk) {
                    self.expectations.deletion_observed(&key, &pk);
                    error.get_or_insert(format!("removing completion finalizer: {e}"));
                    continue;
                }
            }
            match cx.api.delete(Kind::Pod, &pk, &DeleteOptions::default()) {
                Ok(_) => {
                    deleted += 1;
                    c.ready -= i32::from(p.as_pod().is_some_and(Pod::is_ready));
                    let msg = format!("Deleted pod: {}", pk.name);
                    cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "SuccessfulDelete", &msg);
                }
                Err(e) => {
                    if release {
                        self.expectations.deletion_observed(&key, &pk);
                    }
                    if !e.is_not_found() {
                        error.get_or_insert(e.to_string());
                        continue;
                    }
                    deleted += 1;
                }
            }
        }
        c.terminating += deleted;
        (deleted, error)
    }
}

/// Removes the tracking finalizer from a pod (a 404 is success: the pod is gone).
fn remove_finalizer(api: &mut crate::client::Api<'_>, pod: &ObjKey) -> Result<(), String> {
    let r = api.patch(Kind::Pod, pod, Subresource::Main, |o| {
        o.meta_mut().finalizers.retain(|f| &**f != TRACKING_FINALIZER);
    });
    match r {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// `appendDuplicatedIndexPodsForRemoval`: active pods without a valid index, or repeating one (the first kept);
/// `pods` is left with the rest.
fn duplicate_index_pods(job: &Job, pods: &mut Vec<Rc<Object>>) -> Vec<Rc<Object>> {
    let completions = job.spec.completions.unwrap_or(0);
    let mut seen: Vec<i32> = Vec::new();
    let (mut rm, mut keep) = (Vec::new(), Vec::new());
    for o in pods.drain(..) {
        match o.as_pod().and_then(completion_index).filter(|i| *i < completions) {
            Some(i) if !seen.contains(&i) => {
                seen.push(i);
                keep.push(o);
            }
            _ => rm.push(o),
        }
    }
    *pods = keep;
    rm
}

/// `firstPendingIndexes`: the lowest indexes neither succeeded nor held by an active pod, at most `n`.
fn pending_indexes(c: &SyncCtx, n: usize) -> Vec<i32> {
    let completions = c.job.spec.completions.unwrap_or(0);
    let held: Vec<i32> = c.active.iter().filter_map(|o| o.as_pod().and_then(completion_index)).collect();
    (0..completions).filter(|i| !held.contains(i) && c.succeeded_indexes.binary_search(i).is_err()).take(n).collect()
}

/// The pod the Job makes (`CreatePodsWithGenerateName`): its template with the tracking finalizer, the controller
/// reference, and for an index the completion index annotation and label and the `<job>-<index>-` generate name.
pub(crate) fn pod_for(job: &Job, index: Option<i32>) -> Pod {
    let t = &job.spec.template;
    let mut pod = Pod::default();
    let name = &job.metadata.name;
    pod.metadata.generate_name = match index {
        Some(i) => s(&format!("{name}-{i}-")),
        None => s(&format!("{name}-")),
    };
    pod.metadata.namespace = job.metadata.namespace.clone();
    pod.metadata.labels = t.metadata.labels.clone();
    pod.metadata.annotations = t.metadata.annotations.clone();
    pod.metadata.finalizers = t.metadata.finalizers.clone();
    if let Some(i) = index {
        pod.metadata.annotations.insert(s(COMPLETION_INDEX_ANNOTATION), s(&i.to_string()));
        pod.metadata.labels.insert(s(COMPLETION_INDEX_ANNOTATION), s(&i.to_string()));
    }
    if !pod.metadata.finalizers.iter().any(|f| &**f == TRACKING_FINALIZER) {
        pod.metadata.finalizers.push(s(TRACKING_FINALIZER));
    }
    pod.metadata.owner_references.push(OwnerReference::controller(Kind::Job, &job.metadata));
    pod.spec = t.spec.clone();
    pod
}

impl JobController {
    /// `trackJobStatusAndRemoveFinalizers`: finished pods into `uncountedTerminatedPods` (written first), their
    /// finalizers removed, then counted; the interim condition (SuccessCriteriaMet, FailureTarget) written before
    /// the finalizers go, the final one (Complete, Failed) once nothing is uncounted or terminating.
    fn track_and_remove_finalizers(
        &mut self,
        c: &mut SyncCtx,
        mut needs_flush: bool,
        cx: &mut Ctx<'_, '_>,
    ) -> Result<(), String> {
        let key = job_key(&c.job);
        let mut with_finalizer: Vec<Str> = c
            .pods()
            .filter(|p| has_finalizer(p) && !c.expected_removals.contains(&p.metadata.uid))
            .map(|p| p.metadata.uid.clone())
            .collect();
        needs_flush |= clean_uncounted(&mut c.job, &with_finalizer);
        let (to_release, mut flush, reached_max) = self.pods_to_release(c);
        needs_flush |= flush;
        if c.job.is_indexed() {
            let text = s(&format_indexes(&c.succeeded_indexes));
            needs_flush |= text != c.job.status.completed_indexes;
            c.job.status.succeeded = i32::try_from(c.succeeded_indexes.len()).unwrap_or(i32::MAX);
            c.job.status.completed_indexes = text;
        }
        if let Some(f) = c.finished.clone() {
            let interim = matches!(&*f.type_, "FailureTarget" | "SuccessCriteriaMet");
            if interim && !c.job.has_condition(&f.type_) {
                c.job.status.conditions.push(f.clone());
                needs_flush = true;
            }
            let last = if &*f.type_ == "FailureTarget" { "Failed" } else { "Complete" };
            c.finished = Some(condition(last, "True", &f.reason, &f.message, cx.now));
        }
        if needs_flush {
            c.job = write_status(&c.job, cx)?;
            self.backoff.insert(key.clone(), c.new_backoff);
        }
        flush = false;
        let mut first_error = None;
        if !to_release.is_empty() {
            self.removing.or_default(key.clone()).extend(to_release.iter().map(|(_, uid)| uid.clone()));
        }
        for (pk, uid) in &to_release {
            match remove_finalizer(&mut cx.api, pk) {
                Ok(()) => with_finalizer.retain(|u| u != uid),
                Err(e) => {
                    self.removal_observed(&key, uid);
                    first_error.get_or_insert(format!("removing tracking finalizer: {e}"));
                }
            }
        }
        flush |= clean_uncounted(&mut c.job, &with_finalizer);
        let finished = !reached_max && enact_finished(c, cx.now);
        if flush || finished {
            c.job = write_status(&c.job, cx)?;
            if finished {
                record_finished(&c.job, cx);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// The pods whose finalizer can go this sync (finished, or every one once the Job ends or is deleted), those
    /// not yet counted added to `uncountedTerminatedPods`; whether that changed, and whether the cap was reached.
    fn pods_to_release(&self, c: &mut SyncCtx) -> (Vec<(ObjKey, Str)>, bool, bool) {
        let (mut out, mut flush) = (Vec::new(), false);
        let completions = c.job.spec.completions.unwrap_or(0);
        let job_done = c.job.metadata.deletion_timestamp.is_some() || c.finished.is_some();
        let failing = c.finished.as_ref().is_some_and(|f| &*f.type_ != "SuccessCriteriaMet");
        let pods: Vec<Pod> =
            c.pods().filter(|p| has_finalizer(p) && !c.expected_removals.contains(&p.metadata.uid)).cloned().collect();
        let mut new_indexes = 0;
        for p in &pods {
            let failed = is_failed(p, &c.job);
            if !(job_done || failed || p.status.phase == PodPhase::Succeeded) {
                continue;
            }
            out.push((
                ObjKey { namespace: p.metadata.namespace.clone(), name: p.metadata.name.clone() },
                p.metadata.uid.clone(),
            ));
            let uid = &p.metadata.uid;
            let index_ok = !c.job.is_indexed() || completion_index(p).is_some_and(|i| i < completions);
            let (indexed, counts) = (c.job.is_indexed(), match_policy(&c.job, p).1);
            let u = c.job.status.uncounted_terminated_pods.get_or_insert_with(Default::default);
            if p.status.phase == PodPhase::Succeeded && !u.failed.contains(uid) {
                if indexed {
                    new_indexes += usize::from(index_ok);
                } else if !u.succeeded.contains(uid) {
                    u.succeeded.push(uid.clone());
                    flush = true;
                }
            } else if (failed || failing) && !u.failed.contains(uid) && index_ok && counts {
                u.failed.push(uid.clone());
                flush = true;
            }
            if new_indexes + u.succeeded.len() + u.failed.len() >= MAX_UNCOUNTED_PODS {
                return (out, flush, true);
            }
        }
        (out, flush, false)
    }
}

/// `cleanUncountedPodsWithoutFinalizers`: the uncounted pods whose finalizer is gone are counted.
fn clean_uncounted(job: &mut Job, with_finalizer: &[Str]) -> bool {
    let Some(u) = job.status.uncounted_terminated_pods.as_mut() else { return false };
    let (s0, f0) = (u.succeeded.len(), u.failed.len());
    u.succeeded.retain(|uid| with_finalizer.contains(uid));
    u.failed.retain(|uid| with_finalizer.contains(uid));
    let (ds, df) = (s0 - u.succeeded.len(), f0 - u.failed.len());
    if ds == 0 && df == 0 {
        return false;
    }
    job.status.succeeded = job.status.succeeded.saturating_add(ds as i32);
    job.status.failed = job.status.failed.saturating_add(df as i32);
    true
}

/// `enactJobFinished`: once nothing is uncounted or terminating, the final condition (and a Complete Job's
/// completion time).
fn enact_finished(c: &mut SyncCtx, now: Millis) -> bool {
    let Some(f) = c.finished.clone() else { return false };
    let u = c.job.status.uncounted_terminated_pods.as_ref();
    if u.is_some_and(|u| !u.succeeded.is_empty() || !u.failed.is_empty()) || c.terminating > 0 {
        return false;
    }
    ensure_condition(&mut c.job.status.conditions, condition(&f.type_, "True", &f.reason, &f.message, now));
    if &*f.type_ == "Complete" {
        c.job.status.completion_time = Some(Time(now));
    }
    true
}

/// `recordJobFinished`'s events.
fn record_finished(job: &Job, cx: &mut Ctx<'_, '_>) {
    let obj = Object::Job(job.clone());
    let Some(f) = job.finished().cloned() else { return };
    if &*f.type_ == "Complete" {
        if job.spec.completions.is_some_and(|n| job.status.succeeded > n) {
            let msg = "Too many succeeded pods running after completion count reached";
            cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "TooManySucceededPods", msg);
        }
        cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "Completed", "Job completed");
    } else {
        cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, &f.reason, &f.message);
    }
}

/// `updateJobStatus` (a conflict fails the sync, which is retried).
fn write_status(job: &Job, cx: &mut Ctx<'_, '_>) -> Result<Job, String> {
    let written = cx.api.update_status(Object::Job(job.clone())).map_err(|e| e.to_string())?;
    written.as_job().cloned().ok_or_else(|| "not a job".to_string())
}

/// A Job gone: its pods (those whose controller reference names it) lose the tracking finalizer, so they can
/// go (`syncOrphanPod`).
fn release_orphans(key: &ObjKey, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    let orphans: Vec<ObjKey> = cx
        .caches
        .of(Kind::Pod)
        .by_namespace(&key.namespace)
        .filter(|o| job_owner(o).is_some_and(|r| r.name == key.name))
        .filter(|o| o.as_pod().is_some_and(has_finalizer))
        .map(|o| o.key())
        .collect();
    let mut first = None;
    for pk in orphans.iter().take(MAX_POD_CREATE_DELETE_PER_SYNC) {
        if let Err(e) = remove_finalizer(&mut cx.api, pk) {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}
