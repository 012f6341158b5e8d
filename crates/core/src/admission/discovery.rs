//! EndpointSlices (`pkg/apis/discovery/validation/validation.go`): the address type, at most 1000 endpoints of 1
//! to 100 addresses each (of that type, not special addresses), at most 100 ports with unique names, known
//! protocols and numbers in range.

use super::{invalid_each, pod, q, FieldError};
use crate::api::names;
use crate::api::EndpointSlice;

pub(super) fn validate_endpoint_slice(e: &EndpointSlice, errs: &mut Vec<FieldError>) {
    let ty = &*e.address_type;
    match ty {
        "" => errs.push(FieldError::required("addressType")),
        "IPv4" | "IPv6" | "FQDN" => {}
        other => errs.push(FieldError::not_supported("addressType", q(other), &["FQDN", "IPv4", "IPv6"])),
    }
    endpoints(e, ty, errs);
    ports(e, errs);
}

/// `validateEndpoints`.
fn endpoints(e: &EndpointSlice, ty: &str, errs: &mut Vec<FieldError>) {
    let endpoints = e.endpoints();
    if endpoints.len() > 1000 {
        errs.push(FieldError::too_many("endpoints", endpoints.len(), 1000));
        return;
    }
    for (i, ep) in endpoints.iter().enumerate() {
        let at = format!("endpoints[{i}].addresses");
        if ep.addresses.is_empty() {
            errs.push(FieldError::required_because(&at, "must contain at least 1 address"));
        } else if ep.addresses.len() > 100 {
            errs.push(FieldError::too_many(&at, ep.addresses.len(), 100));
        }
        for (j, a) in ep.addresses.iter().enumerate() {
            let path = format!("{at}[{j}]");
            match ty {
                "IPv4" => match a.parse::<std::net::Ipv4Addr>() {
                    Ok(ip) => non_special_ip(std::net::IpAddr::V4(ip), a, &path, errs),
                    Err(_) => errs.push(FieldError::invalid(path, q(a), "must be a valid IPv4 address")),
                },
                "IPv6" => match a.parse::<std::net::Ipv6Addr>() {
                    Ok(ip) => non_special_ip(std::net::IpAddr::V6(ip), a, &path, errs),
                    Err(_) => errs.push(FieldError::invalid(path, q(a), "must be a valid IPv6 address")),
                },
                "FQDN" => fully_qualified_domain_name(a, &path, errs),
                _ => {}
            }
        }
        if !ep.node_name.is_empty() {
            invalid_each(
                &format!("endpoints[{i}].nodeName"),
                &ep.node_name,
                names::dns1123_subdomain(&ep.node_name),
                errs,
            );
        }
    }
}

/// `ValidateNonSpecialIP`: not unspecified, loopback or link-local.
fn non_special_ip(ip: std::net::IpAddr, text: &str, path: &str, errs: &mut Vec<FieldError>) {
    use std::net::IpAddr;
    let (link_local, link_local_multicast) = match ip {
        IpAddr::V4(v4) => (v4.is_link_local(), v4.octets()[..3] == [224, 0, 0]),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            ((s[0] & 0xffc0) == 0xfe80, (s[0] & 0xff0f) == 0xff02)
        }
    };
    if ip.is_unspecified() {
        errs.push(FieldError::invalid(
            path,
            q(text),
            &format!("may not be unspecified ({})", crate::limits::echo(text)),
        ));
    }
    if ip.is_loopback() {
        errs.push(FieldError::invalid(path, q(text), "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    }
    if link_local {
        errs.push(FieldError::invalid(path, q(text), "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
    }
    if link_local_multicast {
        errs.push(FieldError::invalid(
            path,
            q(text),
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        ));
    }
}

/// `IsFullyQualifiedDomainName`: a DNS subdomain of at least two labels (a trailing dot allowed).
fn fully_qualified_domain_name(name: &str, path: &str, errs: &mut Vec<FieldError>) {
    if name.is_empty() {
        errs.push(FieldError::required(path));
        return;
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    let msgs = names::dns1123_subdomain(name);
    if !msgs.is_empty() {
        errs.push(FieldError::invalid(path, q(name), &msgs.join(",")));
    } else if name.split('.').count() < 2 {
        errs.push(FieldError::invalid(
            path,
            q(name),
            "should be a domain with at least two segments separated by dots",
        ));
    } else if let Some((label, msgs)) =
        name.split('.').map(|l| (l, names::dns1123_label(l))).find(|(_, m)| !m.is_empty())
    {
        errs.push(FieldError::invalid(path, q(label), &msgs.join(",")));
    }
}

/// `validatePorts`.
fn ports(e: &EndpointSlice, errs: &mut Vec<FieldError>) {
    let ports = e.ports();
    if ports.len() > 100 {
        errs.push(FieldError::too_many("ports", ports.len(), 100));
        return;
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let at = format!("ports[{i}]");
        if !p.name.is_empty() {
            invalid_each(&format!("{at}.name"), &p.name, names::dns1123_label(&p.name), errs);
        }
        if !names.insert(p.name.clone()) {
            errs.push(FieldError::duplicate(format!("{at}.name"), q(&p.name)));
        }
        pod::protocol(&p.protocol, &format!("{at}.protocol"), errs);
        if let Some(n) = p.port {
            for m in names::port_num(n.into()) {
                errs.push(FieldError::invalid(format!("{at}.port"), n, &m));
            }
        }
    }
}
