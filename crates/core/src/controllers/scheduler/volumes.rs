//! The VolumeBinding plugin, as far as claims go: its PreFilter refuses a pod whose claim does not exist
//! (`persistentvolumeclaim "x" not found`) or is unbound and not WaitForFirstConsumer ("pod has unbound immediate
//! PersistentVolumeClaims"); its Filter keeps a pod on the nodes its bound volumes' node affinity names (kind's
//! local-path volumes name their node: "node(s) had volume node affinity conflict"); once the pod is placed, its
//! unbound WaitForFirstConsumer claims are annotated with the node (`volume.kubernetes.io/selected-node`), which
//! the provisioner waits for. Only `kubernetes.io/hostname In [...]` affinity is read.

use serde_json::Value;

use crate::api::{Kind, ObjKey, Pod, Stored, Str};
use crate::controller::Caches;
use crate::controllers::persistentvolume::{pod_claims, text, waits_for_consumer, SELECTED_NODE_ANNOTATION};

/// The filter plugin index the tally files VolumeBinding's rejections under (not NodeResourcesFit's).
pub(super) const VOLUME_BINDING: usize = 100;
/// Filter's message for a node a bound volume's affinity excludes.
pub(super) const AFFINITY_CONFLICT: &str = "node(s) had volume node affinity conflict";

/// What VolumeBinding's PreFilter found of a pod's claims: the nodes its bound volumes allow (none: any), and
/// its WaitForFirstConsumer claims still to be given a node.
#[derive(Default)]
pub(super) struct Claims {
    pub(super) nodes: Option<Vec<Str>>,
    pub(super) to_select: Vec<ObjKey>,
}

/// PreFilter: the pod's claims, or the message that makes it unschedulable on every node.
pub(super) fn prefilter(pod: &Pod, caches: Caches<'_>) -> Result<Claims, String> {
    let mut out = Claims::default();
    let mut unbound_immediate = false;
    for key in pod_claims(pod) {
        let claim = caches.of(Kind::PersistentVolumeClaim).get(&key).and_then(|o| o.as_stored());
        let Some(claim) = claim else {
            return Err(format!("persistentvolumeclaim \"{}\" not found", crate::limits::echo(&key.name)));
        };
        let volume = text(claim, "spec.volumeName");
        if volume.is_empty() {
            let class = caches.of(Kind::StorageClass).get(&ObjKey::cluster(text(claim, "spec.storageClassName")));
            if class.and_then(|c| c.as_stored()).is_some_and(waits_for_consumer) {
                if claim.metadata.annotation(SELECTED_NODE_ANNOTATION).is_none() {
                    out.to_select.push(key);
                }
            } else {
                unbound_immediate = true;
            }
            continue;
        }
        let pv = caches.of(Kind::PersistentVolume).get(&ObjKey::cluster(volume)).and_then(|o| o.as_stored());
        if let Some(hosts) = pv.and_then(hostnames) {
            out.nodes = Some(match out.nodes.take() {
                None => hosts,
                Some(before) => before.into_iter().filter(|n| hosts.contains(n)).collect(),
            });
        }
    }
    if unbound_immediate {
        return Err("pod has unbound immediate PersistentVolumeClaims".into());
    }
    Ok(out)
}

/// The nodes a volume's required node affinity names by `kubernetes.io/hostname` (none: no such affinity).
fn hostnames(pv: &Stored) -> Option<Vec<Str>> {
    let terms = pv.field("spec.nodeAffinity.required.nodeSelectorTerms")?.as_array()?;
    let mut out = Vec::new();
    for term in terms {
        for req in term.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
            let is = |k: &str, v: &str| req.get(k).and_then(Value::as_str) == Some(v);
            if is("key", "kubernetes.io/hostname") && is("operator", "In") {
                let values = req.get("values").and_then(Value::as_array).into_iter().flatten();
                out.extend(values.filter_map(Value::as_str).map(Str::from));
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `FitError.Error()` when a PreFilter plugin rejected the pod: its message for every node, then preemption's.
pub(super) fn prefilter_message(why: &str, total: usize) -> String {
    format!(
        "0/{total} nodes are available: {why}. preemption: 0/{total} nodes are available: {total} Preemption is not \
         helpful for scheduling."
    )
}
