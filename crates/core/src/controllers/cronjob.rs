//! The cronjob controller (pkg/controller/cronjob, `syncCronJob`): at each time of a CronJob's schedule it makes a
//! Job from the CronJob's template, named for the minute it was scheduled for; it keeps `status.active` (the Jobs
//! running), `lastScheduleTime` and `lastSuccessfulTime`; `concurrencyPolicy` decides what happens when a Job is
//! still running at the next time (Allow: another; Forbid: none; Replace: the running ones deleted first);
//! `startingDeadlineSeconds` skips a time missed by more than it; the history limits delete the oldest finished
//! Jobs. Then it looks again at the next schedule time. The schedule's arithmetic is [`crate::cron`]'s.

use std::rc::Rc;

use crate::api::cronjob::SCHEDULED_TIMESTAMP_ANNOTATION;
use crate::api::types::ObjectReference;
use crate::api::{s, CronJob, Job, Kind, ObjKey, Object, OwnerReference, Time};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::cron::{self, Schedule, TimeZone};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{DeleteOptions, Propagation};
use crate::time::{Millis, EPOCH_UNIX_SECONDS, SECOND};

/// `--concurrent-cron-job-syncs`.
pub const WORKERS: usize = 5;

#[derive(Clone, Default)]
pub struct CronJobController {
    workers: usize,
}

impl CronJobController {
    pub fn new(workers: usize) -> Self {
        CronJobController { workers }
    }
}

/// The CronJob that controls a Job, by its controller reference.
fn owner_key(job: &Object) -> Option<ObjKey> {
    let r = crate::api::controller_of(job.meta())?;
    (&*r.kind == "CronJob").then(|| ObjKey { namespace: job.meta().namespace.clone(), name: r.name.clone() })
}

/// `getJobName`: the CronJob's name and the scheduled time in minutes since the Unix epoch.
pub fn job_name(cronjob: &str, scheduled: Millis) -> String {
    let unix = EPOCH_UNIX_SECONDS.saturating_add((scheduled / SECOND) as i64);
    format!("{cronjob}-{}", unix / 60)
}

impl Reconciler for CronJobController {
    fn name(&self) -> &'static str {
        "cronjob"
    }

    fn component(&self) -> &'static str {
        "cronjob-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::CronJob, Kind::Job]
    }

    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match obj.kind() {
            Kind::CronJob => out.push((obj.key(), 0)),
            // A Job of a CronJob changed: its CronJob looks again (a finished Job leaves `status.active`).
            _ => {
                if let Some(key) = owner_key(obj) {
                    out.push((key, 0));
                }
            }
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(cj) = cx.caches.of(Kind::CronJob).get(key).and_then(|o| o.as_cronjob()).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        let jobs: Vec<Rc<Object>> = cx.caches.of(Kind::Job).by_owner(&cj.metadata.uid).cloned().collect();
        let mut next = cj.clone();
        track_jobs(&mut next, &jobs, cx);
        let (requeue, result) =
            if cj.metadata.is_terminating() { (None, Ok(())) } else { schedule(&mut next, &jobs, cx) };
        let cleaned = clean_history(&next, &jobs, cx);
        if next.status != cj.status {
            write_status(&next, cx)?;
        }
        result?;
        cleaned?;
        Ok(match requeue {
            Some(after) => ReconcileAction::RequeueAfter(after),
            None => ReconcileAction::Done,
        })
    }
}

fn reference(job: &Job) -> ObjectReference {
    ObjectReference {
        kind: s("Job"),
        namespace: job.metadata.namespace.clone(),
        name: job.metadata.name.clone(),
        uid: job.metadata.uid.clone(),
        api_version: s("batch/v1"),
    }
}

/// The first part of `syncCronJob`: Jobs that finished leave `status.active` (a Complete one moves
/// `lastSuccessfulTime`, with the `SawCompletedJob` event), running ones it does not list join it, and listed
/// ones that are gone leave it.
fn track_jobs(cj: &mut CronJob, jobs: &[Rc<Object>], cx: &mut Ctx<'_, '_>) {
    let obj = Object::CronJob(cj.clone());
    for job in jobs.iter().filter_map(|o| o.as_job()) {
        let listed = cj.status.active.iter().any(|r| r.uid == job.metadata.uid);
        match job.finished() {
            None if !listed && !job.metadata.is_terminating() => cj.status.active.push(reference(job)),
            None => {}
            Some(c) => {
                if listed {
                    let msg = format!("Saw completed job: {}, condition: {}", job.metadata.name, c.type_);
                    cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "SawCompletedJob", &msg);
                    cj.status.active.retain(|r| r.uid != job.metadata.uid);
                }
                if &*c.type_ == "Complete" {
                    let done = job.status.completion_time.or(c.last_transition_time);
                    if done > cj.status.last_successful_time {
                        cj.status.last_successful_time = done;
                    }
                }
            }
        }
    }
    // Listed Jobs no longer there (upstream asks the API server for each; the cache is kept by a watch).
    let cache = cx.caches.of(Kind::Job);
    cj.status.active.retain(|r| {
        let key = ObjKey { namespace: r.namespace.clone(), name: r.name.clone() };
        cache.get(&key).is_some_and(|o| o.meta().uid == r.uid)
    });
}

/// The schedule, and the time zone it is computed in (a zone kubeloop cannot load: UTC, as the schedule's text
/// then carries none).
fn parsed(cj: &CronJob) -> Result<(Schedule, TimeZone), String> {
    let text = cron::format_schedule(&cj.spec.schedule, cj.spec.time_zone.as_deref());
    let schedule = Schedule::parse(&text)?;
    let zone = cj.spec.time_zone.as_deref().and_then(|z| TimeZone::named(z).ok()).unwrap_or_else(TimeZone::utc);
    Ok((schedule, zone))
}

/// The rest of `syncCronJob`: the most recent schedule time due, and a Job for it when none is made yet and the
/// policies allow; when to look again.
fn schedule(cj: &mut CronJob, jobs: &[Rc<Object>], cx: &mut Ctx<'_, '_>) -> (Option<Millis>, Result<(), String>) {
    let obj = Object::CronJob(cj.clone());
    let warn = |cx: &mut Ctx<'_, '_>, reason: &str, msg: &str| {
        cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, reason, msg);
    };
    if let Some(tz) = cj.spec.time_zone.as_deref().filter(|z| TimeZone::named(z).is_err()) {
        warn(cx, "UnknownTimeZone", &format!("invalid timeZone: {:?}: unknown time zone {tz}", tz));
        return (None, Ok(()));
    }
    if cj.is_suspended() {
        return (None, Ok(()));
    }
    let (sched, zone) = match parsed(cj) {
        Ok(p) => p,
        Err(e) => {
            warn(cx, "UnparseableSchedule", &format!("unparseable schedule: {:?} : {e}", &*cj.spec.schedule));
            return (None, Ok(()));
        }
    };
    let utc = TimeZone::utc();
    let earliest = cj.status.last_schedule_time.or(cj.metadata.creation_timestamp).map_or(0, |t| t.0);
    let again = |cx: &Ctx<'_, '_>| cron::next_schedule_time_duration(&sched, &utc, earliest, cx.now);
    let recent =
        match cron::most_recent_schedule_time(&sched, &utc, earliest, cx.now, cj.spec.starting_deadline_seconds) {
            Ok(r) => r,
            Err(e) => {
                warn(cx, "InvalidSchedule", &format!("invalid schedule: {} : {e}", cj.spec.schedule));
                return (None, Ok(()));
            }
        };
    if recent.too_many_missed() {
        warn(
            cx,
            "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        );
    }
    let Some(scheduled) = recent.most_recent else { return (again(cx), Ok(())) };
    let late = cj
        .spec
        .starting_deadline_seconds
        .is_some_and(|d| scheduled.saturating_add(crate::time::seconds(d.max(0))) < cx.now);
    if late {
        let at = zone.rfc3339(scheduled);
        cx.recorder.event(
            &mut cx.api,
            &obj,
            EventKind::Warning,
            "MissSchedule",
            &format!("Missed scheduled time to start a job: {at}"),
        );
        return (again(cx), Ok(()));
    }
    let name = job_name(&cj.metadata.name, scheduled);
    if cj.status.active.iter().any(|r| *r.name == *name) || cj.status.last_schedule_time == Some(Time(scheduled)) {
        return (again(cx), Ok(()));
    }
    if !cj.status.active.is_empty() {
        match cj.concurrency_policy() {
            "Forbid" => {
                let msg = "Not starting job because prior execution is running and concurrency policy is Forbid";
                cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "JobAlreadyActive", msg);
                return (again(cx), Ok(()));
            }
            "Replace" => {
                if let Err(e) = replace_active(cj, jobs, &obj, cx) {
                    return (None, Err(e));
                }
            }
            _ => {}
        }
    }
    let result = create_job(cj, scheduled, &zone, &obj, cx);
    (again(cx), result)
}

/// Replace: each running Job deleted (in the background) before the new one is made.
fn replace_active(cj: &mut CronJob, jobs: &[Rc<Object>], obj: &Object, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    let active: Vec<ObjectReference> = std::mem::take(&mut cj.status.active);
    for r in &active {
        let key = ObjKey { namespace: r.namespace.clone(), name: r.name.clone() };
        if !jobs.iter().any(|j| j.meta().uid == r.uid) {
            continue;
        }
        let opts = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
        match cx.api.delete(Kind::Job, &key, &opts) {
            Ok(_) => {
                let msg = format!("Deleted job {}", r.name);
                cx.recorder.event(&mut cx.api, obj, EventKind::Normal, "SuccessfulDelete", &msg);
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => {
                cj.status.active = active.clone();
                let msg = format!("Error deleting job {}: {e}", r.name);
                cx.recorder.event(&mut cx.api, obj, EventKind::Warning, "FailedDelete", &msg);
                return Err(e.to_string());
            }
        }
    }
    Ok(())
}

/// `getJobFromTemplate2`: the template's labels, annotations and spec, the scheduled time's annotation (RFC 3339
/// in the CronJob's zone), the name of that minute and the CronJob as controller.
pub fn job_for(cj: &CronJob, scheduled: Millis, zone: &TimeZone) -> Job {
    let t = &cj.spec.job_template;
    let mut job = Job::default();
    job.metadata.name = s(&job_name(&cj.metadata.name, scheduled));
    job.metadata.namespace = cj.metadata.namespace.clone();
    job.metadata.labels = t.metadata.labels.clone();
    job.metadata.annotations = t.metadata.annotations.clone();
    job.metadata.annotations.insert(s(SCHEDULED_TIMESTAMP_ANNOTATION), s(&zone.rfc3339(scheduled)));
    job.metadata.owner_references.push(OwnerReference::controller(Kind::CronJob, &cj.metadata));
    job.spec = t.spec.clone();
    job
}

fn create_job(
    cj: &mut CronJob,
    scheduled: Millis,
    zone: &TimeZone,
    obj: &Object,
    cx: &mut Ctx<'_, '_>,
) -> Result<(), String> {
    let job = job_for(cj, scheduled, zone);
    let name = job.metadata.name.clone();
    match cx.api.create(Object::Job(job)) {
        Ok(created) => {
            cx.recorder.event(&mut cx.api, obj, EventKind::Normal, "SuccessfulCreate", &format!("Created job {name}"));
            if let Some(j) = created.as_job() {
                cj.status.active.push(reference(j));
            }
        }
        // Made already (a sync that did not see it yet): nothing more to do for this time.
        Err(e) if e.is_already_exists() => {}
        Err(e) => {
            let msg = format!("Error creating job: {e}");
            cx.recorder.event(&mut cx.api, obj, EventKind::Warning, "FailedCreate", &msg);
            return Err(e.to_string());
        }
    }
    cj.status.last_schedule_time = Some(Time(scheduled));
    Ok(())
}

/// `cleanupFinishedJobs`: beyond `successfulJobsHistoryLimit` Complete and `failedJobsHistoryLimit` Failed Jobs,
/// the oldest (by start time) deleted in the background, each with `SuccessfulDelete`.
fn clean_history(cj: &CronJob, jobs: &[Rc<Object>], cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    let (keep_done, keep_failed) = cj.history_limits();
    let obj = Object::CronJob(cj.clone());
    for (kind, keep) in [("Complete", keep_done), ("Failed", keep_failed)] {
        let mut done: Vec<&Job> = jobs
            .iter()
            .filter_map(|o| o.as_job())
            .filter(|j| !j.metadata.is_terminating() && j.finished().is_some_and(|c| &*c.type_ == kind))
            .collect();
        let keep = usize::try_from(keep.max(0)).unwrap_or(0);
        if done.len() <= keep {
            continue;
        }
        crate::sort::sort_by(&mut done, |a, b| {
            let start = |j: &Job| j.status.start_time.map_or(0, |t| t.0);
            start(a).cmp(&start(b)).then_with(|| a.metadata.name.cmp(&b.metadata.name))
        });
        let extra = done.len() - keep;
        for job in done.into_iter().take(extra) {
            let key = ObjKey { namespace: job.metadata.namespace.clone(), name: job.metadata.name.clone() };
            let opts = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
            match cx.api.delete(Kind::Job, &key, &opts) {
                Ok(_) => {
                    let msg = format!("Deleted job {}", job.metadata.name);
                    cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "SuccessfulDelete", &msg);
                }
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e.to_string()),
            }
        }
    }
    Ok(())
}

/// `updateStatus`: on a conflict, the latest version gets the status.
fn write_status(cj: &CronJob, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    match cx.api.update_status(Object::CronJob(cj.clone())) {
        Ok(_) => Ok(()),
        Err(e) if e.is_conflict() => {
            let key = ObjKey { namespace: cj.metadata.namespace.clone(), name: cj.metadata.name.clone() };
            let fresh = cx.api.get(Kind::CronJob, &key).map_err(|e| e.to_string())?;
            let mut next = fresh.as_cronjob().cloned().ok_or("not a cronjob")?;
            next.status = cj.status.clone();
            cx.api.update_status(Object::CronJob(next)).map(|_| ()).map_err(|e| e.to_string())
        }
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_named_for_its_minute_since_the_unix_epoch() {
        // Simulated time 0 is 2026-01-01T00:00:00Z: 1,767,225,600 s, 29,453,760 minutes.
        assert_eq!(job_name("hello", 0), "hello-29453760");
        assert_eq!(job_name("hello", 60 * SECOND), "hello-29453761");
    }
}
