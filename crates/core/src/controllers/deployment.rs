//! The Deployment controller (pkg/controller/deployment): one ReplicaSet per pod template (named by the
//! `pod-template-hash`), rolled out with RollingUpdate (maxSurge / maxUnavailable) or Recreate, scaled
//! proportionally, old ReplicaSets pruned to `revisionHistoryLimit`, and status with the Available and
//! Progressing conditions (NewReplicaSetCreated for every new ReplicaSet, ReplicaSetCreateError when one is
//! refused, ProgressDeadlineExceeded after `progressDeadlineSeconds`, DeploymentPaused / DeploymentResumed on
//! pause and resume) and ReplicaFailure (from its ReplicaSets').

use std::rc::Rc;

use super::resolve_controller_ref;
use crate::api::{
    s, Deployment, DeploymentCondition, DeploymentStatus, Kind, LabelSelector, ObjKey, Object, OwnerReference,
    PodTemplateSpec, ReplicaSet, Time,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::DeleteOptions;
use crate::time::{seconds, Millis, SECOND};

pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";
pub const REVISION: &str = "deployment.kubernetes.io/revision";
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// `maxRetries`: a key that keeps failing is dropped after this many requeues.
pub const MAX_RETRIES: u32 = 15;

#[derive(Clone)]
pub struct DeploymentController {
    workers: usize,
}

impl DeploymentController {
    pub(crate) fn new(workers: usize) -> Self {
        DeploymentController { workers }
    }
}

use super::templatehash::compute_hash;

fn without_hash(t: &PodTemplateSpec) -> PodTemplateSpec {
    let mut t = t.clone();
    t.metadata.labels.remove(POD_TEMPLATE_HASH);
    t
}

/// `EqualIgnoreHash`.
pub fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    without_hash(a) == without_hash(b)
}

fn revision(rs: &ReplicaSet) -> i64 {
    rs.metadata.annotation(REVISION).and_then(|r| r.parse().ok()).unwrap_or(0)
}

fn key_of(meta: &crate::api::ObjectMeta) -> ObjKey {
    ObjKey { namespace: meta.namespace.clone(), name: meta.name.clone() }
}

fn created(rs: &ReplicaSet) -> (Millis, Rc<str>) {
    (rs.metadata.creation_timestamp.map(|t| t.0).unwrap_or(0), rs.metadata.name.clone())
}

/// `ResolveFenceposts`: maxSurge rounded up, maxUnavailable rounded down; both 0 makes maxUnavailable 1.
pub fn resolve_fenceposts(d: &Deployment) -> (i32, i32) {
    let desired = d.replicas();
    let ru = d.spec.strategy.rolling_update.clone().unwrap_or_default();
    let surge = ru.max_surge.as_ref().and_then(|v| v.scaled_value(desired, true).ok()).unwrap_or(0).max(0);
    let unavailable = ru.max_unavailable.as_ref().and_then(|v| v.scaled_value(desired, false).ok()).unwrap_or(0).max(0);
    if surge == 0 && unavailable == 0 {
        return (0, 1);
    }
    (surge, unavailable)
}

fn is_rolling(d: &Deployment) -> bool {
    &*d.spec.strategy.type_ != "Recreate"
}

fn max_surge(d: &Deployment) -> i32 {
    if is_rolling(d) {
        resolve_fenceposts(d).0
    } else {
        0
    }
}

/// `MaxUnavailable`: capped at replicas.
fn max_unavailable(d: &Deployment) -> i32 {
    if !is_rolling(d) || d.replicas() == 0 {
        return 0;
    }
    resolve_fenceposts(d).1.min(d.replicas())
}

/// Replica counts summed over ReplicaSets, saturated (each is an `i32` a user can set to its maximum).
fn sum(rss: &[ReplicaSet], f: impl Fn(&ReplicaSet) -> i32) -> i32 {
    rss.iter().map(f).fold(0i32, i32::saturating_add)
}

/// `MaxReplicas`: replicas + maxSurge, saturated (upstream adds int32s, which a huge maxSurge wraps negative
/// and the Deployment then never scales up).
fn max_total(d: &Deployment) -> i32 {
    d.replicas().saturating_add(max_surge(d))
}

fn spec_replicas(rs: &ReplicaSet) -> i32 {
    rs.spec.replicas.unwrap_or(0)
}

/// One sync's working state: the deployment and its replica sets as last written.
struct Sync<'c, 'a, 'b> {
    cx: &'c mut Ctx<'a, 'b>,
    d: Deployment,
    d_obj: Object,
}

impl Sync<'_, '_, '_> {
    fn event(&mut self, kind: EventKind, reason: &str, msg: &str) {
        self.cx.recorder.event(&mut self.cx.api, &self.d_obj, kind, reason, msg);
    }

    /// `scaleReplicaSetAndRecordEvent`: sets replicas and the desired/max annotations.
    fn scale_rs(&mut self, rs: &mut ReplicaSet, new_scale: i32) -> Result<bool, String> {
        let desired = self.d.replicas().to_string();
        let max = max_total(&self.d).to_string();
        let size_changed = spec_replicas(rs) != new_scale;
        let annotations_changed = rs.metadata.annotation(DESIRED_REPLICAS) != Some(desired.as_str())
            || rs.metadata.annotation(MAX_REPLICAS) != Some(max.as_str());
        if !size_changed && !annotations_changed {
            return Ok(false);
        }
        let old = spec_replicas(rs);
        let mut next = rs.clone();
        next.spec.replicas = Some(new_scale);
        next.metadata.annotations.insert(s(DESIRED_REPLICAS), s(&desired));
        next.metadata.annotations.insert(s(MAX_REPLICAS), s(&max));
        let written = self.cx.api.update(Object::ReplicaSet(next)).map_err(|e| e.to_string())?;
        if let Some(w) = written.as_replicaset() {
            *rs = w.clone();
        }
        if size_changed {
            let dir = if old < new_scale { "up" } else { "down" };
            let msg = format!("Scaled {dir} replica set {} from {old} to {new_scale}", rs.metadata.name);
            self.event(EventKind::Normal, "ScalingReplicaSet", &msg);
        }
        Ok(size_changed)
    }

    /// `getAllReplicaSetsAndSyncRevision`: finds (or creates) the new ReplicaSet and keeps revisions in order.
    fn new_and_old(
        &mut self,
        mut rss: Vec<ReplicaSet>,
        create: bool,
    ) -> Result<(Option<ReplicaSet>, Vec<ReplicaSet>), String> {
        crate::sort::sort_by_key(&mut rss, created);
        let new_idx = rss.iter().position(|rs| equal_ignore_hash(&rs.spec.template, &self.d.spec.template));
        let new_rs = new_idx.map(|i| rss.remove(i));
        let old = rss;
        let max_old = old.iter().map(revision).max().unwrap_or(0);
        let new_revision = max_old.saturating_add(1).to_string();
        let (new_rs, made) = match new_rs {
            Some(mut rs) => {
                if revision(&rs) < max_old.saturating_add(1) || rs.metadata.annotation(REVISION).is_none() {
                    let mut next = rs.clone();
                    next.metadata.annotations.insert(s(REVISION), s(&new_revision));
                    let w = self.cx.api.update(Object::ReplicaSet(next)).map_err(|e| e.to_string())?;
                    if let Some(w) = w.as_replicaset() {
                        rs = w.clone();
                    }
                }
                (Some(rs), false)
            }
            None if create => {
                let (rs, made) = self.create_new_rs(&old, &new_revision)?;
                (Some(rs), made)
            }
            None => (None, false),
        };
        // The deployment carries the revision of its newest ReplicaSet.
        if let Some(rs) = &new_rs {
            let rev = rs.metadata.annotation(REVISION).unwrap_or("").to_string();
            if self.d.metadata.annotation(REVISION) != Some(rev.as_str()) && !rev.is_empty() {
                let mut next = self.d.clone();
                next.metadata.annotations.insert(s(REVISION), s(&rev));
                let w = self.cx.api.update(Object::Deployment(next)).map_err(|e| e.to_string())?;
                if let Some(w) = w.as_deployment() {
                    self.d = w.clone();
                    self.d_obj = Object::Deployment(w.clone());
                }
            }
            self.note_new_rs(rs, made)?;
        }
        Ok((new_rs, old))
    }

    /// `getNewReplicaSet`'s Progressing condition: NewReplicaSetCreated for a ReplicaSet this sync created (a
    /// new rollout's deadline counts from then), FoundNewReplicaSet for an existing one when the Deployment has
    /// no Progressing condition yet.
    fn note_new_rs(&mut self, rs: &ReplicaSet, made: bool) -> Result<(), String> {
        if self.d.spec.progress_deadline_seconds.is_none() {
            return Ok(());
        }
        let (reason, msg) = if made {
            ("NewReplicaSetCreated", format!("Created new replica set \"{}\"", rs.metadata.name))
        } else if self.d.condition("Progressing").is_none() {
            ("FoundNewReplicaSet", format!("Found new replica set \"{}\"", rs.metadata.name))
        } else {
            return Ok(());
        };
        let mut st = self.d.status.clone();
        set_condition(&mut st.conditions, "Progressing", "True", reason, &msg, self.cx.now);
        self.write_status(st)
    }

    /// Creates the new ReplicaSet; true when this call created it (false: it existed already, a slow cache).
    fn create_new_rs(&mut self, old: &[ReplicaSet], revision: &str) -> Result<(ReplicaSet, bool), String> {
        let d = &self.d;
        let hash = compute_hash(&d.spec.template, d.status.collision_count);
        let mut template = d.spec.template.clone();
        // One shared string for the label in both (the ReplicaSet compares them for every pod it owns).
        let (key, value) = (s(POD_TEMPLATE_HASH), s(&hash));
        template.metadata.labels.insert(key.clone(), value.clone());
        let mut selector: LabelSelector = d.spec.selector.clone();
        selector.match_labels.insert(key, value);
        let mut rs = ReplicaSet::default();
        rs.metadata.name = s(&format!("{}-{hash}", d.metadata.name));
        rs.metadata.namespace = d.metadata.namespace.clone();
        rs.metadata.labels = template.metadata.labels.clone();
        for (k, v) in &d.metadata.annotations {
            if ![LAST_APPLIED, REVISION, DESIRED_REPLICAS, MAX_REPLICAS, "deployment.kubernetes.io/revision-history"]
                .contains(&&**k)
            {
                rs.metadata.annotations.insert(k.clone(), v.clone());
            }
        }
        rs.metadata.annotations.insert(s(REVISION), s(revision));
        rs.metadata.annotations.insert(s(DESIRED_REPLICAS), s(&d.replicas().to_string()));
        rs.metadata.annotations.insert(s(MAX_REPLICAS), s(&max_total(d).to_string()));
        rs.metadata.owner_references.push(OwnerReference::controller(Kind::Deployment, &d.metadata));
        rs.spec.min_ready_seconds = d.spec.min_ready_seconds;
        rs.spec.selector = selector;
        rs.spec.template = template;
        let all: Vec<ReplicaSet> = old.to_vec();
        let new_replicas = new_rs_new_replicas(d, &all, None);
        rs.spec.replicas = Some(new_replicas);
        match self.cx.api.create(Object::ReplicaSet(rs.clone())) {
            Ok(created) => {
                let created = created.as_replicaset().cloned().ok_or("not a replicaset")?;
                if new_replicas > 0 {
                    let msg = format!("Scaled up replica set {} from 0 to {new_replicas}", created.metadata.name);
                    self.event(EventKind::Normal, "ScalingReplicaSet", &msg);
                }
                Ok((created, true))
            }
            Err(crate::store::ApiError::AlreadyExists { .. }) => {
                // A ReplicaSet of that name exists: ours if its template matches, else a hash collision.
                let existing = self.cx.api.get(Kind::ReplicaSet, &key_of(&rs.metadata)).map_err(|e| e.to_string())?;
                if let Some(ex) = existing.as_replicaset() {
                    let ours = crate::api::controller_of(&ex.metadata).is_some_and(|r| r.uid == self.d.metadata.uid);
                    if ours && equal_ignore_hash(&ex.spec.template, &self.d.spec.template) {
                        return Ok((ex.clone(), false));
                    }
                }
                let mut next = self.d.clone();
                next.status.collision_count = Some(next.status.collision_count.unwrap_or(0).saturating_add(1));
                let _ = self.cx.api.update_status(Object::Deployment(next));
                Err(format!("hash collision for ReplicaSet {:?}: bumped collisionCount", rs.metadata.name))
            }
            // A namespace being deleted refuses every create: nothing to report.
            Err(e) if e.is_namespace_terminating() => Err(e.to_string()),
            Err(e) => {
                let msg = format!("Failed to create new replica set \"{}\": {e}", rs.metadata.name);
                if self.d.spec.progress_deadline_seconds.is_some() {
                    let mut st = self.d.status.clone();
                    set_condition(
                        &mut st.conditions,
                        "Progressing",
                        "False",
                        "ReplicaSetCreateError",
                        &msg,
                        self.cx.now,
                    );
                    // The create's error is the one reported; a failed status write adds nothing to it.
                    let _ = self.write_status(st);
                }
                self.event(EventKind::Warning, "ReplicaSetCreateError", &msg);
                Err(e.to_string())
            }
        }
    }

    fn rollout_rolling(&mut self, rss: Vec<ReplicaSet>) -> ReconcileResult {
        let (new_rs, mut old) = self.new_and_old(rss, true)?;
        let Some(mut new_rs) = new_rs else { return Ok(ReconcileAction::Done) };
        // reconcileNewReplicaSet
        let all: Vec<ReplicaSet> = old.iter().cloned().chain([new_rs.clone()]).collect();
        let target = if spec_replicas(&new_rs) > self.d.replicas() {
            self.d.replicas()
        } else {
            new_rs_new_replicas(&self.d, &all, Some(&new_rs))
        };
        if self.scale_rs(&mut new_rs, target)? {
            return self.sync_rollout_status(&old, Some(&new_rs));
        }
        // reconcileOldReplicaSets
        if self.reconcile_old(&mut old, &new_rs)? {
            return self.sync_rollout_status(&old, Some(&new_rs));
        }
        if deployment_complete(&self.d, &self.calculate_status(&old, Some(&new_rs))) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&old, Some(&new_rs))
    }

    fn reconcile_old(&mut self, old: &mut [ReplicaSet], new_rs: &ReplicaSet) -> Result<bool, String> {
        let old_pods = sum(old, spec_replicas);
        if old_pods == 0 {
            return Ok(false);
        }
        let all_pods = old_pods.saturating_add(spec_replicas(new_rs));
        let min_available = self.d.replicas().saturating_sub(max_unavailable(&self.d));
        let new_unavailable = spec_replicas(new_rs).saturating_sub(new_rs.status.available_replicas);
        let max_scaled_down = all_pods.saturating_sub(min_available).saturating_sub(new_unavailable);
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        // cleanupUnhealthyReplicas: first scale down old pods that are not available anyway.
        crate::sort::sort_by_key(old, created);
        let mut cleaned = 0;
        for rs in old.iter_mut() {
            if cleaned >= max_scaled_down {
                break;
            }
            let unhealthy = spec_replicas(rs).saturating_sub(rs.status.available_replicas);
            if spec_replicas(rs) == 0 || unhealthy <= 0 {
                continue;
            }
            let down = max_scaled_down.saturating_sub(cleaned).min(unhealthy);
            let target = spec_replicas(rs).saturating_sub(down);
            self.scale_rs(rs, target)?;
            cleaned = cleaned.saturating_add(down);
        }
        // scaleDownOldReplicaSetsForRollingUpdate: then available ones, down to minAvailable. Upstream sums
        // status.availableReplicas; a ReplicaSet this controller has just scaled down may not have reported yet
        // (its status still counts pods it is deleting), and acting on that would take availability below
        // minAvailable. A ReplicaSet cannot have more available pods than it is scaled to, so its count is capped
        // at spec.replicas: stricter than upstream, and the rollout invariant then holds whatever the timing.
        let avail = |r: &ReplicaSet| r.status.available_replicas.min(spec_replicas(r));
        let available = sum(old, avail).saturating_add(avail(new_rs));
        let mut scaled = 0;
        if available > min_available {
            let total = available.saturating_sub(min_available);
            for rs in old.iter_mut() {
                if scaled >= total {
                    break;
                }
                if spec_replicas(rs) == 0 {
                    continue;
                }
                let down = spec_replicas(rs).min(total.saturating_sub(scaled));
                let target = spec_replicas(rs).saturating_sub(down);
                self.scale_rs(rs, target)?;
                scaled = scaled.saturating_add(down);
            }
        }
        Ok(cleaned > 0 || scaled > 0)
    }

    fn rollout_recreate(&mut self, rss: Vec<ReplicaSet>, pods_of_old: bool) -> ReconcileResult {
        let (new_rs, mut old) = self.new_and_old(rss, false)?;
        let mut scaled = false;
        for rs in old.iter_mut().filter(|r| spec_replicas(r) > 0) {
            scaled |= self.scale_rs(rs, 0)?;
        }
        if scaled || pods_of_old {
            return self.sync_rollout_status(&old, new_rs.as_ref());
        }
        let (new_rs, old) = match new_rs {
            Some(rs) => (Some(rs), old),
            None => {
                let all: Vec<ReplicaSet> = old;
                self.new_and_old(all, true)?
            }
        };
        let mut new_rs = new_rs;
        if let Some(rs) = new_rs.as_mut() {
            let target = self.d.replicas();
            self.scale_rs(rs, target)?;
        }
        if deployment_complete(&self.d, &self.calculate_status(&old, new_rs.as_ref())) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&old, new_rs.as_ref())
    }

    /// `sync`: scaling (and the paused case): proportional scaling across active ReplicaSets.
    fn sync_scale(&mut self, rss: Vec<ReplicaSet>) -> ReconcileResult {
        let (new_rs, mut old) = self.new_and_old(rss, false)?;
        let mut new_rs = new_rs;
        self.scale(&mut new_rs, &mut old)?;
        if self.d.spec.paused {
            self.cleanup(&old)?;
        }
        let status = self.calculate_status(&old, new_rs.as_ref());
        self.write_status(status)?;
        Ok(ReconcileAction::Done)
    }

    fn scale(&mut self, new_rs: &mut Option<ReplicaSet>, old: &mut [ReplicaSet]) -> Result<(), String> {
        let replicas = self.d.replicas();
        // FindActiveOrLatest: a single active ReplicaSet (or the newest) takes the whole size.
        let active: Vec<usize> = old.iter().enumerate().filter(|(_, r)| spec_replicas(r) > 0).map(|(i, _)| i).collect();
        let new_active = new_rs.as_ref().is_some_and(|r| spec_replicas(r) > 0);
        if active.is_empty() || (active.len() == 1 && !new_active) || (active.is_empty() && new_active) {
            if active.len() == 1 && !new_active {
                let i = active[0];
                self.scale_rs(&mut old[i], replicas)?;
            } else if let Some(rs) = new_rs.as_mut() {
                self.scale_rs(rs, replicas)?;
            } else if let Some(latest) = old.iter_mut().max_by_key(|r| created(r)) {
                self.scale_rs(latest, replicas)?;
            }
            return Ok(());
        }
        // A saturated new ReplicaSet: old ones go to zero.
        if let Some(rs) = new_rs.as_ref() {
            let saturated = spec_replicas(rs) == replicas
                && rs.metadata.annotation(DESIRED_REPLICAS) == Some(replicas.to_string().as_str())
                && rs.status.available_replicas == replicas;
            if saturated {
                for r in old.iter_mut() {
                    if spec_replicas(r) > 0 {
                        self.scale_rs(r, 0)?;
                    }
                }
                return Ok(());
            }
        }
        if !is_rolling(&self.d) {
            return Ok(());
        }
        // Proportional scaling.
        let mut all: Vec<ReplicaSet> = old.iter().filter(|r| spec_replicas(r) > 0).cloned().collect();
        if let Some(rs) = new_rs.as_ref().filter(|r| spec_replicas(r) > 0) {
            all.push(rs.clone());
        }
        let current = sum(&all, spec_replicas);
        let allowed = if replicas > 0 { max_total(&self.d) } else { 0 };
        let to_add = allowed.saturating_sub(current);
        // Nothing to add or remove: every ReplicaSet is still "scaled" to its own size, which brings its
        // desired/max-replicas annotations up to date (otherwise the next sync would see a scaling event again,
        // forever, and the rollout would never resume).
        if to_add > 0 {
            crate::sort::sort_by(&mut all, |a, b| {
                spec_replicas(b).cmp(&spec_replicas(a)).then(created(b).cmp(&created(a)))
            });
        } else {
            crate::sort::sort_by(&mut all, |a, b| {
                spec_replicas(b).cmp(&spec_replicas(a)).then(created(a).cmp(&created(b)))
            });
        }
        let mut added = 0;
        let mut sizes: Vec<i32> = Vec::with_capacity(all.len());
        for rs in &all {
            let p = proportion(rs, &self.d, to_add, added);
            sizes.push(spec_replicas(rs).saturating_add(p));
            added = added.saturating_add(p);
        }
        if let Some(first) = sizes.first_mut().filter(|_| to_add != 0) {
            *first = first.saturating_add(to_add.saturating_sub(added)).max(0);
        }
        for (rs, size) in all.iter().zip(sizes) {
            let target = rs.metadata.name.clone();
            if let Some(r) = new_rs.as_mut().filter(|r| r.metadata.name == target) {
                self.scale_rs(r, size)?;
            } else if let Some(r) = old.iter_mut().find(|r| r.metadata.name == target) {
                self.scale_rs(r, size)?;
            }
        }
        Ok(())
    }

    /// `cleanupDeployment`: delete the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit.
    fn cleanup(&mut self, old: &[ReplicaSet]) -> Result<(), String> {
        let Some(limit) = self.d.spec.revision_history_limit else { return Ok(()) };
        let mut cleanable: Vec<&ReplicaSet> = old
            .iter()
            .filter(|r| spec_replicas(r) == 0 && r.status.replicas == 0 && !r.metadata.is_terminating())
            .collect();
        let diff = cleanable.len() as i64 - limit as i64;
        if diff <= 0 {
            return Ok(());
        }
        crate::sort::sort_by_key(&mut cleanable, |r| (revision(r), created(r)));
        for rs in cleanable.into_iter().take(diff as usize) {
            match self.cx.api.delete(Kind::ReplicaSet, &key_of(&rs.metadata), &DeleteOptions::default()) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(())
    }

    fn calculate_status(&self, old: &[ReplicaSet], new_rs: Option<&ReplicaSet>) -> DeploymentStatus {
        let all: Vec<ReplicaSet> = old.iter().cloned().chain(new_rs.cloned()).collect();
        let available = sum(&all, |r| r.status.available_replicas);
        let total = sum(&all, spec_replicas);
        let mut st = DeploymentStatus {
            observed_generation: self.d.metadata.generation,
            replicas: sum(&all, |r| r.status.replicas),
            updated_replicas: new_rs.map_or(0, |r| r.status.replicas),
            ready_replicas: sum(&all, |r| r.status.ready_replicas),
            available_replicas: available,
            unavailable_replicas: total.saturating_sub(available).max(0),
            conditions: self.d.status.conditions.clone(),
            collision_count: self.d.status.collision_count,
        };
        let now = self.cx.now;
        if available >= self.d.replicas().saturating_sub(max_unavailable(&self.d)) {
            set_condition(
                &mut st.conditions,
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.",
                now,
            );
        } else {
            set_condition(
                &mut st.conditions,
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
                now,
            );
        }
        st
    }

    /// `syncRolloutStatus` (pkg/controller/deployment/progress.go): status plus the Progressing condition and
    /// the ReplicaFailure one; requeue to notice a missed deadline. A timed-out rollout only gets the condition:
    /// upstream records no event for it.
    fn sync_rollout_status(&mut self, old: &[ReplicaSet], new_rs: Option<&ReplicaSet>) -> ReconcileResult {
        let mut st = self.calculate_status(old, new_rs);
        let now = self.cx.now;
        let mut requeue = None;
        let current = self.d.condition("Progressing").cloned();
        if self.d.spec.progress_deadline_seconds.is_none() {
            st.conditions.retain(|c| &*c.type_ != "Progressing");
        }
        // A resync of a finished rollout estimates no progress.
        let complete_before = st.replicas == st.updated_replicas
            && current.as_ref().is_some_and(|c| &*c.reason == "NewReplicaSetAvailable");
        if let (Some(deadline), false) = (self.d.spec.progress_deadline_seconds, complete_before) {
            // The new ReplicaSet's name, or the Deployment's when there is none yet (Recreate's scale-down).
            let subject = match new_rs {
                Some(rs) => format!("ReplicaSet \"{}\"", rs.metadata.name),
                None => format!("Deployment \"{}\"", self.d.metadata.name),
            };
            if deployment_complete(&self.d, &st) {
                let msg = format!("{subject} has successfully progressed.");
                set_condition(&mut st.conditions, "Progressing", "True", "NewReplicaSetAvailable", &msg, now);
            } else if deployment_progressing(&self.d, &st) {
                let msg = format!("{subject} is progressing.");
                // Progress updates the condition even with the same reason (lastUpdateTime), keeping the
                // transition time of a condition that was True.
                let kept = current.as_ref().filter(|c| &*c.status == "True").and_then(|c| c.last_transition_time);
                st.conditions.retain(|c| &*c.type_ != "Progressing");
                set_condition(&mut st.conditions, "Progressing", "True", "ReplicaSetUpdated", &msg, now);
                if let (Some(t), Some(c)) = (kept, st.conditions.last_mut()) {
                    c.last_transition_time = Some(t);
                }
                requeue = Some(seconds(deadline.into()).saturating_add(SECOND));
            } else if let Some(c) = current.filter(|c| &*c.reason != "ProgressDeadlineExceeded") {
                let since = c.last_update_time.map(|t| t.0).unwrap_or(now);
                let ends = since.saturating_add(seconds(deadline.into()));
                if &*c.reason == "NewReplicaSetAvailable" {
                    // DeploymentTimedOut: a finished rollout never times out.
                } else if now > ends {
                    let msg = format!("{subject} has timed out progressing.");
                    set_condition(&mut st.conditions, "Progressing", "False", "ProgressDeadlineExceeded", &msg, now);
                } else {
                    requeue = Some((ends - now).saturating_add(SECOND));
                }
            }
        }
        // getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else an old one's.
        let failure = new_rs
            .into_iter()
            .chain(old.iter())
            .find_map(|rs| rs.status.conditions.iter().find(|c| &*c.type_ == "ReplicaFailure"));
        match failure {
            Some(f) => {
                // ReplicaSetToDeploymentCondition: both times are the ReplicaSet condition's transition time.
                let cond = DeploymentCondition {
                    type_: f.type_.clone(),
                    status: f.status.clone(),
                    last_update_time: f.last_transition_time,
                    last_transition_time: f.last_transition_time,
                    reason: f.reason.clone(),
                    message: f.message.clone(),
                };
                put_condition(&mut st.conditions, cond);
            }
            None => st.conditions.retain(|c| &*c.type_ != "ReplicaFailure"),
        }
        self.write_status(st)?;
        Ok(requeue.map_or(ReconcileAction::Done, ReconcileAction::RequeueAfter))
    }

    /// `checkPausedConditions` (pkg/controller/deployment/sync.go): on pause, Progressing=Unknown
    /// DeploymentPaused; on resume, Progressing=Unknown DeploymentResumed (so the deadline counts from the
    /// resume); a timed-out rollout keeps its condition.
    fn check_paused_conditions(&mut self) -> Result<(), String> {
        if self.d.spec.progress_deadline_seconds.is_none() {
            return Ok(());
        }
        let cond = self.d.condition("Progressing");
        if cond.is_some_and(|c| &*c.reason == "ProgressDeadlineExceeded") {
            return Ok(());
        }
        let paused_cond = cond.is_some_and(|c| &*c.reason == "DeploymentPaused");
        let (reason, msg) = match (self.d.spec.paused, paused_cond) {
            (true, false) => ("DeploymentPaused", "Deployment is paused"),
            (false, true) => ("DeploymentResumed", "Deployment is resumed"),
            _ => return Ok(()),
        };
        let mut st = self.d.status.clone();
        set_condition(&mut st.conditions, "Progressing", "Unknown", reason, msg, self.cx.now);
        self.write_status(st)
    }

    fn write_status(&mut self, st: DeploymentStatus) -> Result<(), String> {
        if self.d.status == st {
            return Ok(());
        }
        let mut next = self.d.clone();
        next.status = st;
        match self.cx.api.update_status(Object::Deployment(next)) {
            Ok(w) => {
                if let Some(w) = w.as_deployment() {
                    self.d = w.clone();
                }
                Ok(())
            }
            Err(e) if e.is_not_found() => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// `NewRSNewReplicas` for RollingUpdate: grow the new ReplicaSet up to replicas + maxSurge in total.
fn new_rs_new_replicas(d: &Deployment, all: &[ReplicaSet], new_rs: Option<&ReplicaSet>) -> i32 {
    if !is_rolling(d) {
        return d.replicas();
    }
    let current_new = new_rs.map_or(0, spec_replicas);
    let current_total = sum(all, spec_replicas);
    let max_total = max_total(d);
    if current_total >= max_total {
        return current_new;
    }
    let up = max_total.saturating_sub(current_total).min(d.replicas().saturating_sub(current_new)).max(0);
    current_new.saturating_add(up)
}

/// `getProportion` / `getReplicaSetFraction`.
fn proportion(rs: &ReplicaSet, d: &Deployment, to_add: i32, added: i32) -> i32 {
    if spec_replicas(rs) == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = if d.replicas() == 0 {
        -spec_replicas(rs)
    } else {
        let deployment_replicas = max_total(d);
        let annotated = rs
            .metadata
            .annotation(MAX_REPLICAS)
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(d.status.replicas)
            .max(1);
        let new_size = (spec_replicas(rs) as f64 * deployment_replicas as f64 / annotated as f64).round() as i32;
        new_size.saturating_sub(spec_replicas(rs))
    };
    let allowed = to_add.saturating_sub(added);
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

/// `DeploymentComplete`.
pub(crate) fn deployment_complete(d: &Deployment, st: &DeploymentStatus) -> bool {
    st.updated_replicas == d.replicas()
        && st.replicas == d.replicas()
        && st.available_replicas == d.replicas()
        && st.observed_generation >= d.metadata.generation
}

/// `DeploymentProgressing`: more updated, ready or available pods, or fewer old ones, than last time.
fn deployment_progressing(d: &Deployment, st: &DeploymentStatus) -> bool {
    let old = &d.status;
    let old_old = old.replicas.saturating_sub(old.updated_replicas);
    let new_old = st.replicas.saturating_sub(st.updated_replicas);
    st.updated_replicas > old.updated_replicas
        || new_old < old_old
        || st.ready_replicas > old.ready_replicas
        || st.available_replicas > old.available_replicas
}

/// `SetDeploymentCondition` with a new condition (`NewDeploymentCondition`: both times now).
fn set_condition(
    conds: &mut Vec<DeploymentCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: Millis,
) {
    let cond = DeploymentCondition {
        type_: s(type_),
        status: s(status),
        last_update_time: Some(Time(now)),
        last_transition_time: Some(Time(now)),
        reason: s(reason),
        message: s(message),
    };
    put_condition(conds, cond);
}

/// `SetDeploymentCondition` (pkg/controller/deployment/util/deployment_util.go): [`Placement::Latest`].
fn put_condition(conds: &mut Vec<DeploymentCondition>, cond: DeploymentCondition) {
    crate::api::set_condition(conds, cond, crate::api::Placement::Latest);
}

fn enqueue_deployment_of(rs: &Object, caches: Caches<'_>, out: &mut Enqueue) {
    if let Some(d) = resolve_controller_ref(rs, Kind::Deployment, caches.of(Kind::Deployment)) {
        out.push((d.key(), 0));
    } else if crate::api::controller_of(rs.meta()).is_none() {
        // An orphan: every deployment whose selector matches may adopt it.
        for d in caches.of(Kind::Deployment).by_namespace(&rs.meta().namespace) {
            if d.as_deployment().is_some_and(|d| d.spec.selector.matches(&rs.meta().labels)) {
                out.push((d.key(), 0));
            }
        }
    }
}

impl Reconciler for DeploymentController {
    fn name(&self) -> &'static str {
        "deployment"
    }

    fn component(&self) -> &'static str {
        "deployment-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
    }

    fn max_retries(&self) -> Option<u32> {
        Some(MAX_RETRIES)
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match obj.kind() {
            Kind::Deployment => out.push((obj.key(), 0)),
            Kind::ReplicaSet => {
                if let InformerEvent::Update(old, new) = ev {
                    if old.meta().resource_version == new.meta().resource_version {
                        return; // resync of an unchanged ReplicaSet
                    }
                    if crate::api::controller_of(old.meta()).map(|r| &r.uid)
                        != crate::api::controller_of(new.meta()).map(|r| &r.uid)
                    {
                        enqueue_deployment_of(old, caches, out);
                    }
                }
                enqueue_deployment_of(obj, caches, out);
            }
            Kind::Pod => {
                // Only Recreate waits for pods to be gone.
                if let InformerEvent::Delete(pod, _) = ev {
                    let rss = caches.of(Kind::ReplicaSet);
                    if let Some(rs) = resolve_controller_ref(pod, Kind::ReplicaSet, rss) {
                        if let Some(d) = resolve_controller_ref(rs, Kind::Deployment, caches.of(Kind::Deployment)) {
                            if d.as_deployment().is_some_and(|d| !is_rolling(d)) {
                                out.push((d.key(), 0));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(d) = cx.caches.of(Kind::Deployment).get(key).and_then(|o| o.as_deployment()).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        if d.spec.selector.is_empty() {
            let msg = "This deployment is selecting all pods. A non-empty selector is required.";
            let obj = Object::Deployment(d);
            cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "SelectingAll", msg);
            return Ok(ReconcileAction::Done);
        }
        // getReplicaSetsForDeployment: owned ones, adopting matching orphans.
        let rs_cache = cx.caches.of(Kind::ReplicaSet);
        let mut rss: Vec<ReplicaSet> = rs_cache
            .by_owner(&d.metadata.uid)
            .filter_map(|o| o.as_replicaset())
            .filter(|rs| d.spec.selector.matches(&rs.metadata.labels))
            .cloned()
            .collect();
        let orphans: Vec<ObjKey> = rs_cache
            .orphans(&d.metadata.namespace)
            .filter(|o| d.spec.selector.matches(&o.meta().labels))
            .map(|o| o.key())
            .collect();
        if !d.metadata.is_terminating() {
            for k in orphans {
                if let Some(rs) = super::adopt(&mut cx.api, Kind::ReplicaSet, &k, Kind::Deployment, &d.metadata) {
                    rss.extend(rs.as_replicaset().cloned());
                }
            }
        }
        let pods_of_old = {
            let pods = cx.caches.of(Kind::Pod);
            // The pod cache counts each ReplicaSet's unfinished pods: none is walked.
            rss.iter()
                .filter(|rs| !equal_ignore_hash(&rs.spec.template, &d.spec.template))
                .any(|rs| pods.pod_groups(&rs.metadata.uid).iter().any(|g| g.unfinished > 0))
        };
        let d_obj = Object::Deployment(d.clone());
        let mut sync = Sync { cx, d, d_obj };
        if sync.d.metadata.is_terminating() {
            let (new_rs, old) = sync.new_and_old(rss, false)?;
            let st = sync.calculate_status(&old, new_rs.as_ref());
            sync.write_status(st)?;
            return Ok(ReconcileAction::Done);
        }
        sync.check_paused_conditions()?;
        if sync.d.spec.paused || is_scaling_event(&sync.d, &rss) {
            return sync.sync_scale(rss);
        }
        if is_rolling(&sync.d) {
            sync.rollout_rolling(rss)
        } else {
            sync.rollout_recreate(rss, pods_of_old)
        }
    }
}

/// `isScalingEvent`: an active ReplicaSet was sized for a different `replicas`.
fn is_scaling_event(d: &Deployment, rss: &[ReplicaSet]) -> bool {
    let want = d.replicas().to_string();
    rss.iter()
        .filter(|r| spec_replicas(r) > 0)
        .any(|r| r.metadata.annotation(DESIRED_REPLICAS).is_some_and(|v| v != want))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Container, IntOrString, RollingUpdateDeployment};

    fn dep(replicas: i32, surge: IntOrString, unavailable: IntOrString) -> Deployment {
        let mut d = Deployment::default();
        d.spec.replicas = Some(replicas);
        d.spec.strategy.type_ = s("RollingUpdate");
        d.spec.strategy.rolling_update =
            Some(RollingUpdateDeployment { max_surge: Some(surge), max_unavailable: Some(unavailable) });
        d
    }

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        let pct = |p: &str| IntOrString::String(s(p));
        assert_eq!(resolve_fenceposts(&dep(10, pct("25%"), pct("25%"))), (3, 2));
        assert_eq!(resolve_fenceposts(&dep(1, pct("25%"), pct("25%"))), (1, 0));
        assert_eq!(resolve_fenceposts(&dep(3, IntOrString::Int(0), IntOrString::Int(0))), (0, 1));
        assert_eq!(max_unavailable(&dep(2, IntOrString::Int(0), IntOrString::Int(5))), 2);
    }

    #[test]
    fn template_hash_is_stable_and_safe_encoded() {
        let mut t = PodTemplateSpec::default();
        Rc::make_mut(&mut t.spec).containers.push(Container {
            name: s("nginx"),
            image: s("nginx:1.27"),
            ..Default::default()
        });
        let h = compute_hash(&t, None);
        assert_eq!(h, compute_hash(&t, None));
        assert!(h.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)));
        assert!(!h.is_empty() && h.len() <= 10);
        assert_ne!(h, compute_hash(&t, Some(1)));
        Rc::make_mut(&mut t.spec).containers[0].image = s("nginx:1.28");
        assert_ne!(h, compute_hash(&t, None));
    }

    #[test]
    fn new_replica_set_grows_within_surge() {
        let d = dep(10, IntOrString::String(s("25%")), IntOrString::String(s("25%")));
        let mut old = ReplicaSet::default();
        old.spec.replicas = Some(10);
        let mut new = ReplicaSet::default();
        new.spec.replicas = Some(0);
        assert_eq!(new_rs_new_replicas(&d, &[old.clone(), new.clone()], Some(&new)), 3);
        new.spec.replicas = Some(3);
        assert_eq!(new_rs_new_replicas(&d, &[old, new.clone()], Some(&new)), 3);
    }
}
