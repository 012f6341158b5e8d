//! The persistent volume binder (pkg/controller/volume/persistentvolume, only what claims and their volumes
//! need) and kubeloop's own provisioner. A claim that names no class binds to an Available volume of no class
//! that is large enough and has its access modes (the smallest such). A claim of a class is provisioned: with
//! `volumeBindingMode: WaitForFirstConsumer` only once the scheduler has picked a node for a pod that uses it
//! (the claim's `volume.kubernetes.io/selected-node` annotation), else at once. The volume is made by kubeloop's
//! own provisioner, which stands in for the class's (kind's `rancher.io/local-path`, or any other: no external
//! provisioner runs in kubeloop, and its events say so): a PersistentVolume `pvc-<claim uid>` of the requested
//! size, the class's reclaim policy, bound to the claim (the volume's claimRef and phase Bound; the claim's
//! volumeName, phase Bound, capacity and access modes). A bound claim whose volume is gone is Lost; a volume
//! whose claim is gone is Released, and deleted when its reclaim policy is Delete.
//!
//! Claims, classes and volumes are stored kinds ([`crate::api::Stored`]): their fields are read and written as
//! JSON. A claim's key has its namespace, a volume's none: one queue holds both.

use serde_json::{json, Map, Value};

use crate::api::kinds::DEFAULT_STORAGE_CLASS_ANNOTATION;
use crate::api::{s, Kind, ObjKey, Object, ObjectMeta, Quantity, Stored};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::time::Millis;

/// The annotation the scheduler sets on a WaitForFirstConsumer claim: the node its pod was placed on.
pub const SELECTED_NODE_ANNOTATION: &str = "volume.kubernetes.io/selected-node";
/// The annotation a provisioned volume carries: who made it.
pub const PROVISIONED_BY_ANNOTATION: &str = "pv.kubernetes.io/provisioned-by";
/// The annotations the binder sets on a claim it bound.
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";

#[derive(Clone, Default)]
pub struct PersistentVolumeController;

impl PersistentVolumeController {
    pub fn new() -> Self {
        PersistentVolumeController
    }
}

/// The text at a dotted path of a stored object (empty when missing).
pub fn text<'a>(o: &'a Stored, path: &str) -> &'a str {
    o.field(path).and_then(Value::as_str).unwrap_or_default()
}

/// Whether a class binds only once a pod that uses its claim is scheduled.
pub fn waits_for_consumer(class: &Stored) -> bool {
    text(class, "volumeBindingMode") == "WaitForFirstConsumer"
}

/// The storage a claim asks for, in bytes (0 when it names none).
fn requested(claim: &Stored) -> i64 {
    Quantity::parse(text(claim, "spec.resources.requests.storage")).map_or(0, |q| q.value())
}

fn modes(o: &Stored, path: &str) -> Vec<String> {
    o.field(path)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| Some(v.as_str()?.to_string()))
        .collect()
}

/// A volume that is bound to no claim, of the claim's class, with its access modes and at least its size.
fn matches(volume: &Stored, claim: &Stored) -> bool {
    let free = volume.field("spec.claimRef").is_none_or(Value::is_null);
    let size = Quantity::parse(text(volume, "spec.capacity.storage")).map_or(0, |q| q.value());
    let has = modes(volume, "spec.accessModes");
    free && text(volume, "spec.storageClassName") == text(claim, "spec.storageClassName")
        && size >= requested(claim)
        && modes(claim, "spec.accessModes").iter().all(|m| has.contains(m))
}

/// The claim's reference as a volume's claimRef holds it.
fn claim_ref(claim: &Stored) -> Value {
    json!({"kind": "PersistentVolumeClaim", "namespace": &*claim.metadata.namespace, "name": &*claim.metadata.name,
           "uid": &*claim.metadata.uid, "apiVersion": "v1"})
}

/// The volume kubeloop's provisioner makes for a claim of `class` (kind's local-path provisioner's shape: the
/// selected node as required node affinity).
fn provisioned(claim: &Stored, class: &Stored) -> Stored {
    let provisioner = text(class, "provisioner");
    let mut meta = ObjectMeta { name: s(&format!("pvc-{}", claim.metadata.uid)), ..Default::default() };
    meta.annotations.insert(s(PROVISIONED_BY_ANNOTATION), s(provisioner));
    let policy = match text(class, "reclaimPolicy") {
        "" => "Delete",
        p => p,
    };
    let mut spec = Map::new();
    spec.insert("capacity".into(), json!({"storage": text(claim, "spec.resources.requests.storage")}));
    spec.insert("accessModes".into(), claim.field("spec.accessModes").cloned().unwrap_or(json!([])));
    spec.insert("claimRef".into(), claim_ref(claim));
    spec.insert("persistentVolumeReclaimPolicy".into(), json!(policy));
    spec.insert("storageClassName".into(), json!(&*class.metadata.name));
    spec.insert("volumeMode".into(), json!(text(claim, "spec.volumeMode")));
    if let Some(node) = claim.metadata.annotation(SELECTED_NODE_ANNOTATION) {
        let term = json!({"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]});
        spec.insert("nodeAffinity".into(), json!({"required": {"nodeSelectorTerms": [term]}}));
    }
    let mut fields = Map::new();
    fields.insert("spec".into(), Value::Object(spec));
    fields.insert("status".into(), json!({"phase": "Pending"}));
    Stored { kind: Kind::PersistentVolume, metadata: meta, fields }
}

/// A stored object with `status.phase` (and, for a claim, what binding gives it) set.
fn with_phase(o: &Stored, phase: &str, more: &[(&str, Value)]) -> Stored {
    let mut next = o.clone();
    let mut status = Map::new();
    status.insert("phase".into(), json!(phase));
    for (k, v) in more {
        status.insert((*k).into(), v.clone());
    }
    next.fields.insert("status".into(), Value::Object(status));
    next
}

impl PersistentVolumeController {
    /// `syncClaim`: an unbound claim is bound (or provisioned, or waits); a bound one follows its volume.
    fn sync_claim(&self, claim: &Stored, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let obj = Object::Stored(claim.clone());
        let volume_name = text(claim, "spec.volumeName");
        if !volume_name.is_empty() {
            // A volume the cache has not seen yet (this controller may have just made it) is asked for, as
            // upstream's controller finds its own writes in its cache.
            let key = ObjKey::cluster(volume_name);
            let volume = match cx.caches.of(Kind::PersistentVolume).get(&key).cloned() {
                Some(v) => Some(v),
                None => match cx.api.get(Kind::PersistentVolume, &key) {
                    Ok(v) => Some(v),
                    Err(e) if e.is_not_found() => None,
                    Err(e) => return Err(e.to_string()),
                },
            };
            return match volume.as_ref().and_then(|v| v.as_stored()) {
                None if text(claim, "status.phase") != "Lost" => {
                    let msg = "Bound claim has lost its PersistentVolume. Data on the volume is lost!";
                    cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "ClaimLost", msg);
                    status(cx, with_phase(claim, "Lost", &[]))
                }
                Some(v) if text(claim, "status.phase") != "Bound" => self.bind(claim, v, cx),
                _ => Ok(()),
            };
        }
        let class_name = text(claim, "spec.storageClassName");
        let class = cx.caches.of(Kind::StorageClass).get(&ObjKey::cluster(class_name)).cloned();
        let class = class.as_ref().and_then(|c| c.as_stored());
        // Static binding first: an Available volume of the claim's class.
        let free = cx
            .caches
            .of(Kind::PersistentVolume)
            .list()
            .into_iter()
            .filter_map(|o| o.as_stored())
            .filter(|v| matches(v, claim))
            .min_by_key(|v| Quantity::parse(text(v, "spec.capacity.storage")).map_or(0, |q| q.value()))
            .cloned();
        let waiting =
            class.is_some_and(waits_for_consumer) && claim.metadata.annotation(SELECTED_NODE_ANNOTATION).is_none();
        if waiting {
            let msg = "waiting for first consumer to be created before binding";
            cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "WaitForFirstConsumer", msg);
            return Ok(());
        }
        if let Some(v) = free {
            return self.bind_volume(claim, &v, cx);
        }
        let Some(class) = class else {
            if class_name.is_empty() {
                let msg = "no persistent volumes available for this claim and no storage class is set";
                cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "FailedBinding", msg);
            } else {
                let msg = format!("storageclass.storage.k8s.io \"{}\" not found", crate::limits::echo(class_name));
                cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "ProvisioningFailed", &msg);
            }
            return Ok(());
        };
        let provisioner = text(class, "provisioner");
        let msg = format!(
            "Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by \
             the system administrator. If volume creation is delayed, please verify that the provisioner is \
             running and correctly registered."
        );
        cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "ExternalProvisioning", &msg);
        let volume = match cx.api.create(Object::Stored(provisioned(claim, class))) {
            Ok(v) => v,
            Err(e) => {
                let msg = format!("failed to provision volume with StorageClass \"{}\": {e}", class.metadata.name);
                cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "ProvisioningFailed", &msg);
                return Err(e.to_string());
            }
        };
        let msg = format!(
            "Successfully provisioned volume {} (kubeloop's own provisioner, standing in for {provisioner})",
            volume.meta().name
        );
        cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "ProvisioningSucceeded", &msg);
        let Some(v) = volume.as_stored() else { return Ok(()) };
        self.bind_volume(claim, v, cx)
    }

    /// `bind`: the volume's claimRef and phase, then the claim's volumeName and phase.
    fn bind_volume(&self, claim: &Stored, volume: &Stored, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let mut v = volume.clone();
        if v.field("spec.claimRef").is_none_or(Value::is_null) {
            if let Some(Value::Object(spec)) = v.fields.get_mut("spec") {
                spec.insert("claimRef".into(), claim_ref(claim));
            }
            v = cx
                .api
                .update(Object::Stored(v))
                .map_err(|e| e.to_string())?
                .as_stored()
                .cloned()
                .ok_or("not stored")?;
        }
        if text(&v, "status.phase") != "Bound" {
            status(cx, with_phase(&v, "Bound", &[]))?;
        }
        let mut c = claim.clone();
        if let Some(Value::Object(spec)) = c.fields.get_mut("spec") {
            spec.insert("volumeName".into(), json!(&*v.metadata.name));
        }
        c.metadata.annotations.insert(s(BIND_COMPLETED), s("yes"));
        c.metadata.annotations.insert(s(BOUND_BY_CONTROLLER), s("yes"));
        let c = cx.api.update(Object::Stored(c)).map_err(|e| e.to_string())?;
        let Some(c) = c.as_stored() else { return Ok(()) };
        self.bind(c, &v, cx)
    }

    /// The claim's status once bound: phase Bound, the volume's access modes and capacity.
    fn bind(&self, claim: &Stored, volume: &Stored, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let modes = volume.field("spec.accessModes").cloned().unwrap_or(json!([]));
        let capacity = volume.field("spec.capacity").cloned().unwrap_or(json!({}));
        status(cx, with_phase(claim, "Bound", &[("accessModes", modes), ("capacity", capacity)]))
    }

    /// `syncVolume`: Available without a claim, Bound with one, Released when its claim is gone (and deleted
    /// under the Delete reclaim policy).
    fn sync_volume(&self, volume: &Stored, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let Some(r) = volume.field("spec.claimRef").filter(|r| !r.is_null()) else {
            return match text(volume, "status.phase") {
                "Available" => Ok(()),
                _ => status(cx, with_phase(volume, "Available", &[])),
            };
        };
        let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        let key = ObjKey::new(&field("namespace"), &field("name"));
        let claim = cx.caches.of(Kind::PersistentVolumeClaim).get(&key).cloned();
        let claim = claim.as_ref().and_then(|c| c.as_stored()).filter(|c| *c.metadata.uid == *field("uid"));
        match claim {
            Some(_) => match text(volume, "status.phase") {
                "Bound" => Ok(()),
                _ => status(cx, with_phase(volume, "Bound", &[])),
            },
            None if text(volume, "spec.persistentVolumeReclaimPolicy") == "Delete" => {
                let opts = crate::store::DeleteOptions::default();
                match cx.api.delete(Kind::PersistentVolume, &key_of(volume), &opts) {
                    Ok(_) => Ok(()),
                    Err(e) if e.is_not_found() => Ok(()),
                    Err(e) => Err(e.to_string()),
                }
            }
            None => match text(volume, "status.phase") {
                "Released" => Ok(()),
                _ => status(cx, with_phase(volume, "Released", &[])),
            },
        }
    }
}

/// A status update of a stored claim or volume (a deleted one is left alone).
fn status(cx: &mut Ctx<'_, '_>, next: Stored) -> Result<(), String> {
    match cx.api.update_status(Object::Stored(next)) {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

fn key_of(o: &Stored) -> ObjKey {
    ObjKey { namespace: o.metadata.namespace.clone(), name: o.metadata.name.clone() }
}

impl Reconciler for PersistentVolumeController {
    fn name(&self) -> &'static str {
        "persistentvolumebinder"
    }

    fn component(&self) -> &'static str {
        "persistentvolume-controller"
    }

    fn workers(&self) -> usize {
        1
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::PersistentVolumeClaim, Kind::PersistentVolume, Kind::StorageClass]
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        let Some(o) = obj.as_stored() else { return };
        let deleted = matches!(ev, InformerEvent::Delete(..));
        match o.kind {
            Kind::PersistentVolumeClaim if deleted => {
                let volume = text(o, "spec.volumeName");
                if !volume.is_empty() {
                    out.push((ObjKey::cluster(volume), 0));
                }
            }
            Kind::PersistentVolumeClaim => out.push((obj.key(), 0)),
            Kind::PersistentVolume if deleted => {
                if let Some(r) = o.field("spec.claimRef").filter(|r| !r.is_null()) {
                    let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                    out.push((ObjKey::new(&field("namespace"), &field("name")), 0));
                }
            }
            Kind::PersistentVolume => out.push((obj.key(), 0)),
            // A new class: the unbound claims of that class (or of none, for a new default) look again.
            Kind::StorageClass if !deleted => {
                let default = o.metadata.annotation(DEFAULT_STORAGE_CLASS_ANNOTATION) == Some("true");
                for c in caches.of(Kind::PersistentVolumeClaim).list().into_iter().filter_map(|c| c.as_stored()) {
                    let class = text(c, "spec.storageClassName");
                    if text(c, "spec.volumeName").is_empty()
                        && (class == &*o.metadata.name || (default && class.is_empty()))
                    {
                        out.push((key_of(c), 0));
                    }
                }
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let kind = match key.namespace.is_empty() {
            true => Kind::PersistentVolume,
            false => Kind::PersistentVolumeClaim,
        };
        let Some(o) = cx.caches.of(kind).get(key).and_then(|o| o.as_stored()).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        if o.metadata.is_terminating() {
            return Ok(ReconcileAction::Done);
        }
        match kind {
            Kind::PersistentVolume => self.sync_volume(&o, cx)?,
            _ => self.sync_claim(&o, cx)?,
        }
        Ok(ReconcileAction::Done)
    }
}

/// The claims a pod's volumes name, in its namespace.
pub fn pod_claims(pod: &crate::api::Pod) -> impl Iterator<Item = ObjKey> + '_ {
    pod.spec
        .volumes
        .iter()
        .filter_map(|v| v.persistent_volume_claim.as_ref())
        .map(|c| ObjKey { namespace: pod.metadata.namespace.clone(), name: c.claim_name.clone() })
}

/// The scheduler's patch of a WaitForFirstConsumer claim it placed a pod for (`AssumePodVolumes`'s selected node).
pub(crate) fn select_node(o: &mut Object, node: &str) {
    o.meta_mut().annotations.insert(s(SELECTED_NODE_ANNOTATION), s(node));
}
