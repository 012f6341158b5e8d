//! What a pod reads from ConfigMaps and Secrets, as the kubelet resolves it: volumes before any container starts
//! (the volume manager: `MountVolume.SetUp failed for volume "config" : configmap "app" not found`, retried with
//! its exponential back-off, 500 ms doubling to 2m2s), and each container's environment when it is created
//! (`CreateContainerConfigError`: `configmap "app" not found`, `couldn't find key X in ConfigMap NS/NAME`, tried
//! again at the pod's next sync). A missing object or key marked `optional: true` is skipped. The kubelet reads
//! them with counted GETs.

use crate::api::{Container, Kind, ObjKey, Object, Pod};
use crate::client::Api;
use crate::time::{Millis, SECOND};

/// The volume manager's first wait after a failed mount, and its longest (`durationBeforeRetry`).
pub const MOUNT_RETRY_INITIAL: Millis = 500;
pub const MOUNT_RETRY_MAX: Millis = 2 * 60 * SECOND + 2 * SECOND;
/// How soon a pod whose container could not be configured is synced again (the pod worker's back-off period).
pub const CONFIG_RETRY: Millis = 10 * SECOND;

pub(crate) fn next_mount_retry(previous: Millis) -> Millis {
    if previous == 0 {
        MOUNT_RETRY_INITIAL
    } else {
        previous.saturating_mul(2).min(MOUNT_RETRY_MAX)
    }
}

/// The ConfigMap or Secret `name` of `namespace` (a counted GET); the API's not-found text when it is missing.
fn get(api: &mut Api, kind: Kind, namespace: &str, name: &str) -> Result<std::rc::Rc<Object>, String> {
    let what = if kind == Kind::ConfigMap { "configmap" } else { "secret" };
    api.get(kind, &ObjKey::new(namespace, name)).map_err(|_| format!("{what} \"{name}\" not found"))
}

/// The first volume that cannot be mounted and why.
pub(crate) fn mount_error(api: &mut Api, pod: &Pod) -> Option<(String, String)> {
    let ns = &pod.metadata.namespace;
    for v in &pod.spec.volumes {
        let (kind, name, optional) = match (&v.config_map, &v.secret) {
            (Some(c), _) => (Kind::ConfigMap, &c.name, c.optional),
            (_, Some(s)) => (Kind::Secret, &s.secret_name, s.optional),
            _ => continue,
        };
        if let Err(e) = get(api, kind, ns, name) {
            if optional != Some(true) {
                return Some((v.name.to_string(), e));
            }
        }
    }
    None
}

/// Why the container's environment cannot be made (`makeEnvironmentVariables`), if it cannot.
pub(crate) fn env_error(api: &mut Api, namespace: &str, c: &Container) -> Option<String> {
    for from in &c.env_from {
        let (kind, r) = match (&from.config_map_ref, &from.secret_ref) {
            (Some(r), _) => (Kind::ConfigMap, r),
            (_, Some(r)) => (Kind::Secret, r),
            _ => continue,
        };
        if let Err(e) = get(api, kind, namespace, &r.name) {
            if r.optional != Some(true) {
                return Some(e);
            }
        }
    }
    for var in &c.env {
        let Some(src) = &var.value_from else { continue };
        let (kind, sel) = match (&src.config_map_key_ref, &src.secret_key_ref) {
            (Some(s), _) => (Kind::ConfigMap, s),
            (_, Some(s)) => (Kind::Secret, s),
            _ => continue,
        };
        let optional = sel.optional == Some(true);
        match get(api, kind, namespace, &sel.name) {
            Err(e) if !optional => return Some(e),
            Err(_) => {}
            Ok(obj) => {
                let has = match &*obj {
                    Object::ConfigMap(m) => m.data.contains_key(&sel.key) || m.binary_data.contains_key(&sel.key),
                    Object::Secret(s) => s.data.contains_key(&sel.key),
                    _ => false,
                };
                if !has && !optional {
                    let what = if kind == Kind::ConfigMap { "ConfigMap" } else { "Secret" };
                    return Some(format!("couldn't find key {} in {what} {namespace}/{}", sel.key, sel.name));
                }
            }
        }
    }
    None
}
