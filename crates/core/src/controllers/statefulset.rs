//! The statefulset controller (pkg/controller/statefulset): a StatefulSet's pods are `<name>-<ordinal>` for the
//! ordinals `[start, start + replicas)`, each with a stable hostname (its name) and subdomain (the set's
//! serviceName) and its own claims, `<template>-<name>-<ordinal>`, made from the set's volumeClaimTemplates before
//! the pod. With `OrderedReady` (the default) a pod is made only once every pod before it is Running and Ready,
//! and pods past the replicas go from the highest ordinal down, one at a time, each once the others are healthy;
//! `Parallel` makes and deletes them all at once. A failed pod is deleted and made again. A rolling update
//! deletes, from the highest ordinal down to the partition, one pod at a time whose revision is not the update
//! revision, waiting for each to come back Running and Ready; `OnDelete` waits for the user. Then status.
//!
//! Revisions are named `<name>-<hash>` with the hash of the template ([`super::templatehash::compute_hash`]); no
//! ControllerRevision objects are kept (`kubectl rollout history` and `undo` are not served for StatefulSets):
//! a pod made again below the partition gets the current revision's template as the controller last saw it, in
//! memory (upstream's reads it from the current revision's ControllerRevision).

use std::rc::Rc;

use serde_json::{Map, Value};

use super::expectations::Expectations;
use super::resolve_controller_ref;
use crate::api::daemonset::CONTROLLER_REVISION_HASH_LABEL;
use crate::api::statefulset::{POD_INDEX_LABEL, POD_NAME_LABEL};
use crate::api::{
    s, Kind, ObjKey, Object, ObjectMeta, OwnerReference, PersistentVolumeClaimVolumeSource, Pod, PodPhase,
    PodTemplateSpec, Shared, StatefulSet, StatefulSetStatus, Stored, Str, Volume,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::DeleteOptions;
use crate::time::Millis;
use crate::vecmap::VecMap;

/// `--concurrent-statefulset-syncs`.
pub const WORKERS: usize = 5;

#[derive(Clone, Default)]
pub struct StatefulSetController {
    pub(crate) expectations: Expectations,
    workers: usize,
    /// Each set's current revision and its template, as last seen while it was also the update revision (kubeloop's
    /// stand-in for the current revision's ControllerRevision: in memory, so a restarted controller makes pods
    /// below the partition from the update revision until the two are one again). One entry a set.
    current: VecMap<ObjKey, (Str, Shared<PodTemplateSpec>)>,
}

impl StatefulSetController {
    pub fn new(workers: usize) -> Self {
        StatefulSetController { workers, ..Default::default() }
    }
}

/// The ordinal in a pod's name when the pod is the set's (`getParentNameAndOrdinal`: `<set>-<digits>`).
pub fn ordinal_of(set: &str, pod: &str) -> Option<i32> {
    let rest = pod.strip_prefix(set)?.strip_prefix('-')?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

/// `isRunningAndReady`.
fn running_and_ready(p: &Pod) -> bool {
    p.status.phase == PodPhase::Running && p.is_ready()
}

/// `isHealthy`: running, ready and not being deleted.
fn healthy(p: &Pod) -> bool {
    running_and_ready(p) && !p.metadata.is_terminating()
}

/// The revision a pod was made from (its `controller-revision-hash` label).
fn revision_of(p: &Pod) -> &str {
    p.metadata.labels.get(CONTROLLER_REVISION_HASH_LABEL).map_or("", |v| v)
}

/// The claims a pod of `ordinal` has (`getPersistentVolumeClaims`): each template's, named for the ordinal, with
/// the template's labels and the selector's matchLabels, and the owners the retention policy gives a pod in range.
pub fn claims_for(sts: &StatefulSet, ordinal: i32) -> Vec<Stored> {
    let (when_deleted, _) = sts.deletes_claims();
    let mut out = Vec::new();
    for t in &sts.spec.volume_claim_templates {
        let mut meta = ObjectMeta {
            name: s(&sts.claim_name(&t.metadata.name, ordinal)),
            namespace: sts.metadata.namespace.clone(),
            labels: t.metadata.labels.clone(),
            annotations: t.metadata.annotations.clone(),
            ..Default::default()
        };
        for (k, v) in &sts.spec.selector.match_labels {
            meta.labels.insert(k.clone(), v.clone());
        }
        if when_deleted {
            meta.owner_references.push(owner(Kind::StatefulSet, &sts.metadata));
        }
        let mut fields = Map::new();
        fields.insert("spec".into(), Value::Object(t.spec.clone()));
        out.push(Stored { kind: Kind::PersistentVolumeClaim, metadata: meta, fields });
    }
    out
}

/// A reference that is not the controller's (`setOwnerRef`: no controller, no blockOwnerDeletion).
fn owner(kind: Kind, meta: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: kind.api_version().into(),
        kind: kind.name().into(),
        name: meta.name.clone(),
        uid: meta.uid.clone(),
        controller: None,
        block_owner_deletion: None,
    }
}

/// The pod of `ordinal` (`newStatefulSetPod`, `setPodRevision`): the template with the set as controller, its
/// identity (name, hostname, subdomain, the pod-name and pod-index labels), each claim template's volume in place
/// of a template volume of the same name, and the revision label.
pub fn pod_for(sts: &StatefulSet, ordinal: i32, revision: &str, t: &PodTemplateSpec) -> Pod {
    let mut pod = Pod::default();
    let name = sts.pod_name(ordinal);
    pod.metadata.name = s(&name);
    pod.metadata.namespace = sts.metadata.namespace.clone();
    pod.metadata.labels = t.metadata.labels.clone();
    pod.metadata.annotations = t.metadata.annotations.clone();
    pod.metadata.labels.insert(s(POD_NAME_LABEL), s(&name));
    pod.metadata.labels.insert(s(POD_INDEX_LABEL), s(&ordinal.to_string()));
    pod.metadata.labels.insert(s(CONTROLLER_REVISION_HASH_LABEL), s(revision));
    pod.metadata.owner_references.push(OwnerReference::controller(Kind::StatefulSet, &sts.metadata));
    let mut spec = (*t.spec).clone();
    spec.hostname = s(&name);
    spec.subdomain = sts.spec.service_name.clone();
    let claims: Vec<Volume> = sts
        .spec
        .volume_claim_templates
        .iter()
        .map(|c| Volume {
            name: c.metadata.name.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: s(&sts.claim_name(&c.metadata.name, ordinal)),
                read_only: false,
            }),
            ..Default::default()
        })
        .collect();
    let kept = spec.volumes.iter().filter(|v| !claims.iter().any(|c| c.name == v.name)).cloned();
    spec.volumes = claims.iter().cloned().chain(kept).collect();
    pod.spec = Rc::new(spec);
    pod
}

/// The set's pods split as the sync sees them: `replicas[i]` is the pod of ordinal `start + i` (if any), and the
/// condemned are those of ordinals past the range, highest first. A pod whose name has no ordinal is left out.
struct Pods {
    replicas: Vec<Option<Rc<Object>>>,
    condemned: Vec<Rc<Object>>,
}

fn split(sts: &StatefulSet, caches: Caches<'_>) -> Pods {
    let n = usize::try_from(sts.replicas().max(0)).unwrap_or(0);
    let start = sts.start_ordinal();
    let mut replicas: Vec<Option<Rc<Object>>> = vec![None; n];
    let mut condemned = Vec::new();
    for o in caches.of(Kind::Pod).by_owner(&sts.metadata.uid) {
        let Some(p) = o.as_pod() else { continue };
        if !sts.spec.selector.matches(&p.metadata.labels) {
            continue;
        }
        let Some(ord) = ordinal_of(&sts.metadata.name, &p.metadata.name) else { continue };
        match usize::try_from(i64::from(ord) - i64::from(start)) {
            Ok(i) if i < n => replicas[i] = Some(o.clone()),
            _ => condemned.push(o.clone()),
        }
    }
    let ord = |o: &Rc<Object>| ordinal_of(&sts.metadata.name, &o.meta().name).unwrap_or(0);
    crate::sort::sort_by(&mut condemned, |a, b| ord(b).cmp(&ord(a)));
    Pods { replicas, condemned }
}

/// An event a deletion is announced with: its type, reason and message.
type Event = (EventKind, &'static str, String);

/// What one sync decided to do: claims and a pod to make, pods to delete (with the event each gets), claims whose
/// owners change.
#[derive(Default)]
struct Plan {
    create: Vec<i32>,
    delete: Vec<(Rc<Object>, Option<Event>)>,
    /// Claims to be owned by the pod about to be deleted for a scale-down (whenScaled: Delete).
    reown: Vec<(ObjKey, OwnerReference)>,
}

impl StatefulSetController {
    /// `updateStatefulSet`'s replica and condemned passes and the rolling update (kubeloop decides, then acts).
    fn plan(&self, sts: &StatefulSet, pods: &Pods, update: &str, now: Millis) -> Plan {
        let mut plan = Plan::default();
        let monotonic = !sts.parallel();
        let start = sts.start_ordinal();
        let name = &sts.metadata.name;
        // Living replicas, in ordinal order.
        for (i, slot) in pods.replicas.iter().enumerate() {
            let ord = start + i32::try_from(i).unwrap_or(i32::MAX);
            let Some(o) = slot else {
                plan.create.push(ord);
                if monotonic {
                    return plan;
                }
                continue;
            };
            let Some(p) = o.as_pod() else { continue };
            if matches!(p.status.phase, PodPhase::Failed | PodPhase::Succeeded) && !p.metadata.is_terminating() {
                let ns = &sts.metadata.namespace;
                let event = if p.status.phase == PodPhase::Failed {
                    let msg = format!("StatefulSet {ns}/{name} is recreating failed Pod {}", p.metadata.name);
                    (EventKind::Warning, "RecreatingFailedPod", msg)
                } else {
                    let msg = format!("StatefulSet {ns}/{name} is recreating terminated Pod {}", p.metadata.name);
                    (EventKind::Normal, "RecreatingTerminatedPod", msg)
                };
                plan.delete.push((o.clone(), Some(event)));
                if monotonic {
                    return plan;
                }
                continue;
            }
            let ready = running_and_ready(p) && p.is_available(sts.spec.min_ready_seconds, now);
            if monotonic && (p.metadata.is_terminating() || !ready) {
                return plan;
            }
        }
        if !plan.create.is_empty() || !plan.delete.is_empty() {
            return plan;
        }
        // Condemned pods, highest ordinal first; in order, only the first unhealthy one may go while others wait.
        let first_unhealthy = pods
            .replicas
            .iter()
            .flatten()
            .chain(pods.condemned.iter().rev())
            .find(|o| o.as_pod().is_some_and(|p| !healthy(p)))
            .cloned();
        let (_, when_scaled) = sts.deletes_claims();
        for o in &pods.condemned {
            let Some(p) = o.as_pod() else { continue };
            if p.metadata.is_terminating() {
                if monotonic {
                    return plan;
                }
                continue;
            }
            let first = first_unhealthy.as_ref().is_some_and(|f| Rc::ptr_eq(f, o));
            if monotonic && !running_and_ready(p) && !first {
                return plan;
            }
            if when_scaled {
                let ord = ordinal_of(name, &p.metadata.name).unwrap_or(0);
                for t in &sts.spec.volume_claim_templates {
                    let claim = ObjKey::new(&sts.metadata.namespace, &sts.claim_name(&t.metadata.name, ord));
                    plan.reown.push((claim, owner(Kind::Pod, &p.metadata)));
                }
            }
            plan.delete.push((o.clone(), None));
            if monotonic {
                return plan;
            }
        }
        if !plan.delete.is_empty() || !sts.rolling() {
            return plan;
        }
        // The rolling update: the highest pod not at the update revision goes, down to the partition; wait for
        // each pod to be healthy again.
        let partition = usize::try_from(sts.partition().max(0)).unwrap_or(0);
        for slot in pods.replicas.iter().skip(partition).rev() {
            let Some(o) = slot else { return plan };
            let Some(p) = o.as_pod() else { return plan };
            if revision_of(p) != update && !p.metadata.is_terminating() {
                plan.delete.push((o.clone(), None));
                return plan;
            }
            if !healthy(p) {
                return plan;
            }
        }
        plan
    }

    /// `CreateStatefulPod`: the pod's missing claims (`createPersistentVolumeClaims`), then the pod.
    fn create(&mut self, sts: &StatefulSet, ordinal: i32, update: &str, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        // `newVersionedStatefulSetPod`: below the partition, the current revision's template when it is known.
        let key = sts_key(sts);
        let below = sts.rolling() && i64::from(ordinal) < i64::from(sts.start_ordinal()) + i64::from(sts.partition());
        let (revision, template) = match self.current.get(&key) {
            Some((name, t)) if below && **name != *update => (name.to_string(), t.clone()),
            _ => (update.to_string(), sts.spec.template.clone()),
        };
        let set = Object::StatefulSet(sts.clone());
        let pod_name = sts.pod_name(ordinal);
        for claim in claims_for(sts, ordinal) {
            if cx
                .caches
                .of(Kind::PersistentVolumeClaim)
                .get(&ObjKey::new(&claim.metadata.namespace, &claim.metadata.name))
                .is_some()
            {
                continue;
            }
            let claim_name = claim.metadata.name.clone();
            match cx.api.create(Object::Stored(claim)) {
                Ok(_) => {
                    let msg = format!(
                        "create Claim {claim_name} Pod {pod_name} in StatefulSet {} success",
                        sts.metadata.name
                    );
                    cx.recorder.event(&mut cx.api, &set, EventKind::Normal, "SuccessfulCreate", &msg);
                }
                Err(crate::store::ApiError::AlreadyExists { .. }) => {}
                Err(e) => {
                    let msg = format!(
                        "create Claim {claim_name} for Pod {pod_name} in StatefulSet {} failed error: {e}",
                        sts.metadata.name
                    );
                    cx.recorder.event(&mut cx.api, &set, EventKind::Warning, "FailedCreate", &msg);
                    return Err(e.to_string());
                }
            }
        }
        self.expectations.expect_creations(&key, 1, cx.now);
        match cx.api.create(Object::Pod(pod_for(sts, ordinal, &revision, &template))) {
            Ok(_) => {
                let msg = format!("create Pod {pod_name} in StatefulSet {} successful", sts.metadata.name);
                cx.recorder.event(&mut cx.api, &set, EventKind::Normal, "SuccessfulCreate", &msg);
                Ok(())
            }
            Err(e) => {
                self.expectations.creation_observed(&key);
                let msg = format!("create Pod {pod_name} in StatefulSet {} failed error: {e}", sts.metadata.name);
                cx.recorder.event(&mut cx.api, &set, EventKind::Warning, "FailedCreate", &msg);
                Err(e.to_string())
            }
        }
    }

    /// `DeleteStatefulPod`, with its event.
    fn delete(&mut self, sts: &StatefulSet, pod: &Object, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let set = Object::StatefulSet(sts.clone());
        let key = sts_key(sts);
        self.expectations.expect_deletions(&key, &[pod.key()], cx.now);
        let name = &pod.meta().name;
        match cx.api.delete(Kind::Pod, &pod.key(), &DeleteOptions::default()) {
            Ok(_) => {
                let msg = format!("delete Pod {name} in StatefulSet {} successful", sts.metadata.name);
                cx.recorder.event(&mut cx.api, &set, EventKind::Normal, "SuccessfulDelete", &msg);
                Ok(())
            }
            Err(e) if e.is_not_found() => {
                self.expectations.deletion_observed(&key, &pod.key());
                Ok(())
            }
            Err(e) => {
                self.expectations.deletion_observed(&key, &pod.key());
                let msg = format!("delete Pod {name} in StatefulSet {} failed error: {e}", sts.metadata.name);
                cx.recorder.event(&mut cx.api, &set, EventKind::Warning, "FailedDelete", &msg);
                Err(e.to_string())
            }
        }
    }

    /// Carries out a plan: claims re-owned, pods deleted, then pods made (in Parallel, all; in order, the one).
    fn act(&mut self, sts: &StatefulSet, plan: Plan, update: &str, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        for (claim, reference) in plan.reown {
            let result = cx.api.patch(Kind::PersistentVolumeClaim, &claim, crate::store::Subresource::Main, |o| {
                let refs = &mut o.meta_mut().owner_references;
                refs.retain(|r| r.uid != sts.metadata.uid);
                if !refs.iter().any(|r| r.uid == reference.uid) {
                    refs.push(reference);
                }
            });
            if let Err(e) = result.map(|_| ()).or_else(|e| if e.is_not_found() { Ok(()) } else { Err(e) }) {
                return Err(e.to_string());
            }
        }
        for (pod, event) in &plan.delete {
            if let Some((kind, reason, msg)) = event {
                let set = Object::StatefulSet(sts.clone());
                cx.recorder.event(&mut cx.api, &set, *kind, reason, msg);
            }
            self.delete(sts, pod, cx)?;
        }
        for ordinal in plan.create {
            self.create(sts, ordinal, update, cx)?;
        }
        Ok(())
    }
}

fn sts_key(sts: &StatefulSet) -> ObjKey {
    ObjKey { namespace: sts.metadata.namespace.clone(), name: sts.metadata.name.clone() }
}

/// `updateStatus` and `completeRollingUpdate`: the pods made (the API's), ready, available, at the current and
/// update revisions; once every pod is updated and ready, the update revision is the current one.
fn status_of(sts: &StatefulSet, pods: &Pods, current: &str, update: &str, now: Millis) -> StatefulSetStatus {
    let mut st = StatefulSetStatus {
        observed_generation: sts.metadata.generation,
        collision_count: sts.status.collision_count,
        current_revision: s(current),
        update_revision: s(update),
        ..Default::default()
    };
    for p in pods.replicas.iter().flatten().chain(&pods.condemned).filter_map(|o| o.as_pod()) {
        st.replicas += 1;
        if running_and_ready(p) {
            st.ready_replicas += 1;
            if p.is_available(sts.spec.min_ready_seconds, now) {
                st.available_replicas += 1;
            }
        }
        if !p.metadata.is_terminating() {
            st.current_replicas += i32::from(revision_of(p) == current);
            st.updated_replicas += i32::from(revision_of(p) == update);
        }
    }
    if sts.rolling() && st.updated_replicas == st.replicas && st.ready_replicas == st.replicas {
        st.current_replicas = st.updated_replicas;
        st.current_revision = s(update);
    }
    st
}

/// `updateStatefulSetStatus`: write status if it changed; on a conflict, GET the latest and try once more.
fn update_status(sts: &StatefulSet, status: StatefulSetStatus, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    if sts.status == status {
        return Ok(());
    }
    let mut next = sts.clone();
    next.status = status.clone();
    match cx.api.update_status(Object::StatefulSet(next)) {
        Ok(_) => Ok(()),
        Err(e) if e.is_conflict() => {
            let fresh = cx.api.get(Kind::StatefulSet, &sts_key(sts)).map_err(|e| e.to_string())?;
            let mut next = fresh.as_statefulset().cloned().ok_or("not a statefulset")?;
            next.status = status;
            cx.api.update_status(Object::StatefulSet(next)).map(|_| ()).map_err(|e| e.to_string())
        }
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

impl Reconciler for StatefulSetController {
    fn name(&self) -> &'static str {
        "statefulset"
    }

    fn component(&self) -> &'static str {
        "statefulset-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::StatefulSet, Kind::Pod, Kind::PersistentVolumeClaim]
    }

    fn retained(&self) -> usize {
        self.expectations.len() + self.current.len()
    }

    fn reset(&mut self) {
        self.expectations.clear();
        self.current.clear();
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.kind(), ev) {
            (Kind::StatefulSet, InformerEvent::Delete(..)) => {
                self.expectations.delete(&obj.key());
                self.current.remove(&obj.key());
            }
            (Kind::StatefulSet, _) => out.push((obj.key(), 0)),
            (Kind::Pod, InformerEvent::Add(pod)) => {
                let Some(set) = resolve_controller_ref(pod, Kind::StatefulSet, caches.of(Kind::StatefulSet)) else {
                    return;
                };
                let key = set.key();
                self.expectations.creation_observed(&key);
                out.push((key, 0));
            }
            (Kind::Pod, InformerEvent::Update(old, new)) => {
                if old.meta().resource_version == new.meta().resource_version {
                    return;
                }
                for o in [new, old] {
                    if let Some(set) = resolve_controller_ref(o, Kind::StatefulSet, caches.of(Kind::StatefulSet)) {
                        let key = set.key();
                        if new.meta().is_terminating() && !old.meta().is_terminating() {
                            self.expectations.deletion_observed(&key, &new.key());
                        }
                        // Became ready: look again once it has been ready for minReadySeconds too.
                        let min_ready = set.as_statefulset().map_or(0, |s| s.spec.min_ready_seconds);
                        let (was, is) =
                            (old.as_pod().is_some_and(Pod::is_ready), new.as_pod().is_some_and(Pod::is_ready));
                        if !was && is && min_ready > 0 {
                            out.push((key.clone(), crate::time::seconds(min_ready.into())));
                        }
                        out.push((key, 0));
                        return;
                    }
                }
            }
            (Kind::Pod, InformerEvent::Delete(pod, _)) => {
                let Some(set) = resolve_controller_ref(pod, Kind::StatefulSet, caches.of(Kind::StatefulSet)) else {
                    return;
                };
                let key = set.key();
                self.expectations.deletion_observed(&key, &pod.key());
                out.push((key, 0));
            }
            _ => {}
        }
    }

    /// `sync`: the revisions, the pods as the cache has them, what to do (once the last sync's creates and deletes
    /// are observed), then status.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(sts) = cx.caches.of(Kind::StatefulSet).get(key).and_then(|o| o.as_statefulset()).cloned() else {
            self.expectations.delete(key);
            self.current.remove(key);
            return Ok(ReconcileAction::Done);
        };
        let hash = super::templatehash::compute_hash(&sts.spec.template, sts.status.collision_count);
        let update = format!("{}-{hash}", sts.metadata.name);
        let current = if sts.status.current_revision.is_empty() {
            update.clone()
        } else {
            sts.status.current_revision.to_string()
        };
        if current == update {
            self.current.insert(key.clone(), (s(&update), sts.spec.template.clone()));
        }
        let pods = split(&sts, cx.caches);
        let mut result = Ok(());
        if !sts.metadata.is_terminating() && self.expectations.satisfied(key, cx.now) {
            let plan = self.plan(&sts, &pods, &update, cx.now);
            result = self.act(&sts, plan, &update, cx);
        }
        let status = status_of(&sts, &pods, &current, &update, cx.now);
        let waiting = sts.spec.min_ready_seconds > 0 && status.ready_replicas != status.available_replicas;
        result?;
        update_status(&sts, status, cx)?;
        Ok(match waiting {
            true => ReconcileAction::RequeueAfter(crate::time::seconds(sts.spec.min_ready_seconds.into())),
            false => ReconcileAction::Done,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_read_from_the_sets_own_names_only() {
        assert_eq!(ordinal_of("web", "web-0"), Some(0));
        assert_eq!(ordinal_of("web", "web-12"), Some(12));
        assert_eq!(ordinal_of("web", "web-x"), None);
        assert_eq!(ordinal_of("web", "web-"), None);
        assert_eq!(ordinal_of("web", "webby-1"), None);
        assert_eq!(ordinal_of("web", "web-1-2"), None);
    }

    #[test]
    fn a_pod_has_its_identity_and_its_claims_volumes() {
        let mut sts = StatefulSet::default();
        sts.metadata.name = s("web");
        sts.metadata.namespace = s("default");
        sts.spec.service_name = s("nginx");
        let mut t = crate::api::statefulset::ClaimTemplate::default();
        t.metadata.name = s("www");
        sts.spec.volume_claim_templates.push(t);
        let pod = pod_for(&sts, 2, "web-abc", &sts.spec.template);
        assert_eq!(&*pod.metadata.name, "web-2");
        assert_eq!(&*pod.spec.hostname, "web-2");
        assert_eq!(&*pod.spec.subdomain, "nginx");
        assert_eq!(pod.metadata.labels.get(POD_INDEX_LABEL).map(|v| &**v), Some("2"));
        let claim = pod.spec.volumes[0].persistent_volume_claim.as_ref().map(|c| c.claim_name.to_string());
        assert_eq!(claim.as_deref(), Some("www-web-2"));
        assert_eq!(&*claims_for(&sts, 2)[0].metadata.name, "www-web-2");
    }
}
