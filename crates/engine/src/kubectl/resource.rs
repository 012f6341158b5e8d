//! Resource names as kubectl resolves them against the API's discovery: plural, singular, short name or kind,
//! any case, with an optional group (`deployments.apps`, `deploy.v1.apps`), and the `TYPE NAME...` /
//! `TYPE/NAME` argument forms.

use crate::api::Kind;

/// The discovery facts of one resource (`kubectl api-resources`): the kind's row of the registry.
pub type Resource = crate::api::KindInfo;

/// Every resource kubeloop serves, in discovery's order (core group first, then by group).
pub fn resources() -> impl Iterator<Item = &'static Resource> + Clone {
    crate::api::DISCOVERY.iter().map(|k| k.info())
}

/// The discovery entry of `kind`.
pub fn resource(kind: Kind) -> &'static Resource {
    kind.info()
}

/// Resolves a resource name typed by a user. The error is kubectl's (without `error: `).
pub fn kind_of(name: &str) -> Result<Kind, String> {
    let lower = name.to_ascii_lowercase();
    let (base, group) = match lower.split_once('.') {
        Some((b, g)) => (b, Some(g)),
        None => (lower.as_str(), None),
    };
    for r in resources() {
        let named = base == r.kind.plural()
            || base == r.singular
            || r.short_names.contains(&base)
            || base == r.kind.name().to_ascii_lowercase();
        // `deployments.apps`, `deployments.v1.apps`, `pods.v1`, `pods.v1.` (the core group is empty).
        let grouped = match group {
            None => true,
            Some(g) => {
                let g = g.strip_prefix(&format!("{}.", r.version)).unwrap_or(g);
                g == r.group || (g == r.version && r.group.is_empty()) || (g.is_empty() && r.group.is_empty())
            }
        };
        if named && grouped {
            return Ok(r.kind);
        }
    }
    Err(format!("the server doesn't have a resource type \"{name}\""))
}

/// What a command's arguments name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Targets {
    /// `TYPE[,TYPE...] [NAME...]`: no names means every object of the types.
    ByType { kinds: Vec<Kind>, names: Vec<String> },
    /// `TYPE/NAME ...`
    ByName(Vec<(Kind, String)>),
}

/// The kinds of upstream's `all` category that kubeloop serves, in the order `kubectl get all` prints them (the
/// core group's pods and services, then apps' daemonsets, deployments, replicasets and statefulsets, then batch's
/// cronjobs and jobs; of the category's others kubeloop serves none of replicationcontrollers and
/// horizontalpodautoscalers).
pub const ALL_CATEGORY: [Kind; 8] = [
    Kind::Pod,
    Kind::Service,
    Kind::DaemonSet,
    Kind::Deployment,
    Kind::ReplicaSet,
    Kind::StatefulSet,
    Kind::CronJob,
    Kind::Job,
];

/// Parses `TYPE[,TYPE] [NAME...]` or `TYPE/NAME...`. `all` expands to [`ALL_CATEGORY`] (`kubectl get all`). An empty
/// list is an error for the caller to word.
pub fn targets(args: &[String]) -> Result<Targets, String> {
    let Some(first) = args.first() else { return Ok(Targets::ByType { kinds: Vec::new(), names: Vec::new() }) };
    if first.contains('/') {
        let mut out = Vec::new();
        for a in args {
            let Some((t, n)) = a.split_once('/') else {
                return Err(format!(
                    "arguments in resource/name form must have a single resource and name: {a:?} has no resource type"
                ));
            };
            if n.is_empty() || n.contains('/') {
                return Err("arguments in resource/name form must have a single resource and name".to_string());
            }
            out.push((kind_of(t)?, n.to_string()));
        }
        return Ok(Targets::ByName(out));
    }
    if args[1..].iter().any(|a| a.contains('/')) {
        return Err("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'".into());
    }
    let mut kinds = Vec::new();
    for t in first.split(',').filter(|t| !t.is_empty()) {
        if t.eq_ignore_ascii_case("all") {
            for k in ALL_CATEGORY {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
            continue;
        }
        let k = kind_of(t)?;
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    Ok(Targets::ByType { kinds, names: args[1..].to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_like_discovery() {
        for (n, k) in [
            ("po", Kind::Pod),
            ("Pods", Kind::Pod),
            ("pod.v1", Kind::Pod),
            ("deploy", Kind::Deployment),
            ("deployments.apps", Kind::Deployment),
            ("deployment.v1.apps", Kind::Deployment),
            ("Deployment", Kind::Deployment),
            ("rs", Kind::ReplicaSet),
            ("no", Kind::Node),
            ("ns", Kind::Namespace),
            ("ev", Kind::Event),
            ("leases.coordination.k8s.io", Kind::Lease),
            ("cm", Kind::ConfigMap),
            ("secrets", Kind::Secret),
            ("sa", Kind::ServiceAccount),
            ("ServiceAccount", Kind::ServiceAccount),
        ] {
            assert_eq!(kind_of(n), Ok(k), "{n}");
        }
        assert_eq!(kind_of("svc"), Ok(Kind::Service));
        assert_eq!(kind_of("pvc"), Ok(Kind::PersistentVolumeClaim));
        assert_eq!(kind_of("sts"), Ok(Kind::StatefulSet));
        assert_eq!(kind_of("csr"), Err("the server doesn't have a resource type \"csr\"".into()));
        assert!(kind_of("deployments.batch").is_err());
    }

    #[test]
    fn arguments_are_types_with_names_or_type_slash_name_pairs_never_both() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            targets(&v(&["po,deploy", "a"])),
            Ok(Targets::ByType { kinds: vec![Kind::Pod, Kind::Deployment], names: v(&["a"]) })
        );
        assert_eq!(
            targets(&v(&["pod/a", "deploy/b"])),
            Ok(Targets::ByName(vec![(Kind::Pod, "a".into()), (Kind::Deployment, "b".into())]))
        );
        assert!(targets(&v(&["pods", "pod/a"])).is_err());
        assert_eq!(
            targets(&v(&["all"])),
            Ok(Targets::ByType {
                kinds: vec![
                    Kind::Pod,
                    Kind::Service,
                    Kind::DaemonSet,
                    Kind::Deployment,
                    Kind::ReplicaSet,
                    Kind::StatefulSet,
                    Kind::CronJob,
                    Kind::Job
                ],
                names: vec![]
            })
        );
    }
}
