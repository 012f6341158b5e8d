//! kube-system's add-ons: what `kubeadm init` installs after the control plane (kube-proxy as a DaemonSet, CoreDNS
//! as a Deployment with its `kube-dns` Service at 10.96.0.10), kind's network agent (kindnet, a DaemonSet) and kind's
//! default StorageClass `standard` (`rancher.io/local-path`, WaitForFirstConsumer; its volumes are made by
//! kubeloop's own provisioner, `controllers/persistentvolume.rs`), so
//! that a new cluster looks like a real one: `kubectl get pods -A` lists them, their requests take room on every
//! node, and `kubectl drain` without `--ignore-daemonsets` fails. Every cluster a scenario, the page or the
//! benchmark starts has them unless it asks not to (`cluster: {addons: false}`).

use crate::sim::Sim;

/// The add-ons' manifests (`data/kube-system.yaml`), as kubeadm 1.34 and kind write them, less the fields kubeloop
/// does not simulate.
pub const KUBE_SYSTEM: &str = include_str!("../data/kube-system.yaml");

/// What the runner's timeline says of them at t=0.
pub const NOTE: &str = "cluster: kube-system's add-ons (kubeadm's kube-proxy DaemonSet and CoreDNS Deployment with the kube-dns Service, kind's kindnet DaemonSet and default StorageClass `standard`); `cluster: {addons: false}` starts without them";

/// The API client that creates them, as kubeadm does (its own line in the API table).
pub const CLIENT: &str = "kubeadm";

/// The add-ons' pods on a cluster of `nodes` schedulable nodes: kube-proxy and kindnet on each, and CoreDNS's two.
pub const fn pods(nodes: usize) -> usize {
    2 * nodes + 2
}

/// Whether a pod is one of the add-ons' (kube-proxy's, kindnet's or CoreDNS's, by the labels their templates give):
/// the page draws them only when asked to.
pub fn is_addon_pod(pod: &crate::api::Pod) -> bool {
    is_addon(&pod.metadata)
}

/// Whether an object in kube-system carries an add-on's label (its pods, and the kube-dns Service).
pub fn is_addon(m: &crate::api::ObjectMeta) -> bool {
    &*m.namespace == "kube-system"
        && (matches!(m.label("k8s-app"), Some("kube-proxy" | "kube-dns")) || m.label("app") == Some("kindnet"))
}

/// Creates the add-ons' objects, in the file's order. Built in: a refusal is a bug, and says so.
pub fn install(sim: &mut Sim) -> Result<(), String> {
    let (objects, _) = crate::manifest::parse(KUBE_SYSTEM).map_err(|e| format!("kube-system add-ons: {e}"))?;
    let client = sim.register_client(CLIENT);
    for m in objects {
        sim.as_client(client, |api| api.create(m.object)).map_err(|e| format!("kube-system add-ons: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;
    use crate::sim::SimConfig;

    #[test]
    fn the_addons_read_without_a_warning_and_install() {
        let (objects, warnings) = crate::manifest::parse(KUBE_SYSTEM).expect("reads");
        // Only the kinds' notes (stored, not simulated), no field kubeloop would ignore.
        assert!(warnings.iter().all(|w| w.stored_only.is_some()), "{warnings:?}");
        assert!(objects.iter().all(|m| m.warnings.is_empty()), "fields kubeloop ignores");
        let mut sim = Sim::new(SimConfig::default());
        install(&mut sim).expect("installs");
        let names = |k| sim.store().objects(k).map(|o| o.meta().name.to_string()).collect::<Vec<_>>();
        assert_eq!(names(Kind::DaemonSet), ["kindnet", "kube-proxy"]);
        assert_eq!(names(Kind::Deployment), ["coredns"]);
        let dns = sim.store().objects(Kind::Service).find(|o| &*o.meta().name == "kube-dns").expect("kube-dns");
        assert_eq!(&*dns.as_service().expect("a service").spec.cluster_ip, "10.96.0.10");
        assert_eq!(names(Kind::StorageClass), ["standard"]);
    }
}
