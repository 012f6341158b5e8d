//! Services (`ValidateService`, `ValidateServiceClusterIPsRelatedFields`): ports (names, numbers, protocols, no
//! port or node port twice), the type and what each type allows, session affinity, traffic policies, IP families.

use super::{invalid_each, meta, pod, q, FieldError};
use crate::api::names;
use crate::api::{IntOrString, Service, ServicePort};

/// `ValidateService`, in upstream's order (the metadata is checked before).
pub(super) fn validate_service(svc: &Service, errs: &mut Vec<FieldError>) {
    let spec = &svc.spec;
    let ty = &*spec.type_;
    // The registry's strategy keeps clusterIPs in step with clusterIP before validation.
    let cluster_ips: Vec<&str> = if !spec.cluster_ips.is_empty() {
        spec.cluster_ips.iter().map(|s| &**s).collect()
    } else if !spec.cluster_ip.is_empty() {
        vec![&spec.cluster_ip]
    } else {
        Vec::new()
    };
    let headless = cluster_ips == ["None"];
    if spec.ports.is_empty() && !headless && ty != "ExternalName" {
        errs.push(FieldError::required("spec.ports"));
    }
    match ty {
        "LoadBalancer" | "NodePort" if headless => errs.push(FieldError::invalid(
            "spec.clusterIPs[0]",
            q("None"),
            &format!("may not be set to 'None' for {ty} services"),
        )),
        "ExternalName" => external_name(svc, &cluster_ips, errs),
        _ => {}
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, p) in spec.ports.iter().enumerate() {
        port(p, spec.ports.len() > 1, &mut names, &format!("spec.ports[{i}]"), errs);
    }
    meta::labels(&spec.selector, "spec.selector", errs);
    match &*spec.session_affinity {
        "" => errs.push(FieldError::required("spec.sessionAffinity")),
        "ClientIP" | "None" => {}
        other => errs.push(FieldError::not_supported("spec.sessionAffinity", q(other), &["ClientIP", "None"])),
    }
    if ty != "ExternalName" {
        ip_families(svc, errs);
    }
    if ty.is_empty() {
        errs.push(FieldError::required("spec.type"));
    } else if !matches!(ty, "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName") {
        errs.push(FieldError::not_supported(
            "spec.type",
            q(ty),
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        ));
    }
    if ty == "ClusterIP" {
        for (i, p) in spec.ports.iter().enumerate() {
            if p.node_port != 0 {
                errs.push(FieldError::forbidden(
                    format!("spec.ports[{i}].nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    duplicate_ports(&spec.ports, errs);
    traffic_policies(svc, errs);
}

/// What an ExternalName Service may not have, and its name (a DNS subdomain, a trailing dot allowed).
fn external_name(svc: &Service, cluster_ips: &[&str], errs: &mut Vec<FieldError>) {
    let spec = &svc.spec;
    if !cluster_ips.is_empty() {
        errs.push(FieldError::forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    }
    if !spec.ip_families.is_empty() {
        errs.push(FieldError::forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
    }
    if !spec.ip_family_policy.is_empty() {
        errs.push(FieldError::forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
    }
    let cname = spec.external_name.strip_suffix('.').unwrap_or(&spec.external_name);
    if cname.is_empty() {
        errs.push(FieldError::required("spec.externalName"));
    } else {
        invalid_each("spec.externalName", cname, names::dns1123_subdomain(cname), errs);
    }
}

/// `validateServicePort`: a name (required with several ports, a DNS label, unique), a port number, a protocol,
/// a target port number or name.
fn port(
    p: &ServicePort,
    require_name: bool,
    seen: &mut std::collections::BTreeSet<String>,
    at: &str,
    errs: &mut Vec<FieldError>,
) {
    if require_name && p.name.is_empty() {
        errs.push(FieldError::required(format!("{at}.name")));
    } else if !p.name.is_empty() {
        invalid_each(&format!("{at}.name"), &p.name, names::dns1123_label(&p.name), errs);
        if !seen.insert(p.name.to_string()) {
            errs.push(FieldError::duplicate(format!("{at}.name"), q(&p.name)));
        }
    }
    for m in names::port_num(p.port.into()) {
        errs.push(FieldError::invalid(format!("{at}.port"), p.port, &m));
    }
    pod::protocol(&p.protocol, &format!("{at}.protocol"), errs);
    let target = p.target_port.clone().unwrap_or(IntOrString::Int(0));
    pod::port_num_or_name(&target, &format!("{at}.targetPort"), errs);
}

/// No node port twice for a protocol, and no port twice for a protocol (Go's `%#v` of the key shows the second).
fn duplicate_ports(ports: &[ServicePort], errs: &mut Vec<FieldError>) {
    let mut node_ports = std::collections::BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        if p.node_port != 0 && !node_ports.insert((&*p.protocol, p.node_port)) {
            errs.push(FieldError::duplicate(format!("spec.ports[{i}].nodePort"), p.node_port));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        if !seen.insert((&*p.protocol, p.port)) {
            errs.push(FieldError::duplicate(
                format!("spec.ports[{i}]"),
                format!(
                    "core.ServicePort{{Name:\"\", Protocol:{}, AppProtocol:(*string)(nil), Port:{}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                    q(&p.protocol),
                    p.port
                ),
            ));
        }
    }
}

/// The families and family policy kubeloop reads (`ValidateServiceClusterIPsRelatedFields`): known values, no
/// family twice.
fn ip_families(svc: &Service, errs: &mut Vec<FieldError>) {
    let spec = &svc.spec;
    for (i, f) in spec.ip_families.iter().enumerate() {
        if !matches!(&**f, "IPv4" | "IPv6") {
            errs.push(FieldError::not_supported(format!("spec.ipFamilies[{i}]"), q(f), &["IPv4", "IPv6"]));
        }
        if spec.ip_families[..i].contains(f) {
            errs.push(FieldError::duplicate(format!("spec.ipFamilies[{i}]"), q(f)));
        }
    }
    if !matches!(&*spec.ip_family_policy, "" | "SingleStack" | "PreferDualStack" | "RequireDualStack") {
        errs.push(FieldError::not_supported(
            "spec.ipFamilyPolicy",
            q(&spec.ip_family_policy),
            &["PreferDualStack", "RequireDualStack", "SingleStack"],
        ));
    }
}

/// `validateServiceExternalTrafficPolicy` and `validateServiceInternalTrafficFieldsValue`.
fn traffic_policies(svc: &Service, errs: &mut Vec<FieldError>) {
    let spec = &svc.spec;
    let etp = &*spec.external_traffic_policy;
    if !svc.has_node_ports() {
        if !etp.is_empty() {
            errs.push(FieldError::invalid(
                "spec.externalTrafficPolicy",
                q(etp),
                "may only be set for externally-accessible services",
            ));
        }
    } else if etp.is_empty() {
        errs.push(FieldError::required("spec.externalTrafficPolicy"));
    } else if !matches!(etp, "Cluster" | "Local") {
        errs.push(FieldError::not_supported("spec.externalTrafficPolicy", q(etp), &["Cluster", "Local"]));
    }
    let itp = &*spec.internal_traffic_policy;
    if itp.is_empty() && matches!(&*spec.type_, "ClusterIP" | "NodePort" | "LoadBalancer") {
        errs.push(FieldError::required("spec.internalTrafficPolicy"));
    } else if !itp.is_empty() && !matches!(itp, "Cluster" | "Local") {
        errs.push(FieldError::not_supported("spec.internalTrafficPolicy", q(itp), &["Cluster", "Local"]));
    }
}
