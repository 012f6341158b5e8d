//! The parts of describe that show a pod's containers (pkg/describe's `describeContainers` and what it calls): image,
//! ports, state, resources, environment, mounts and volumes, the pod template of a workload, and the QoS class.

use super::*;
/// `describeContainers`: per container its image, ports, state, resources, environment and mounts.
pub(super) fn describe_containers(
    w: &mut Writer,
    label: &str,
    containers: &[Container],
    statuses: &[ContainerStatus],
    space: &str,
) {
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.write(0, &format!("{space}{label}:{none}\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for c in containers {
        let status = statuses.iter().find(|s| s.name == c.name);
        w.write(1, &format!("{name_indent}{}:\n", c.name));
        // kubeloop's runtime reports no container or image ids: `Container ID:` and `Image ID:` are left out.
        w.write(2, &format!("Image:\t{}\n", c.image));
        let ports: Vec<String> = c
            .ports
            .iter()
            .map(|p| format!("{}/{}", p.container_port, if p.protocol.is_empty() { "TCP" } else { &p.protocol }))
            .collect();
        let host_ports: Vec<String> =
            c.ports.iter().map(|p| format!("0/{}", if p.protocol.is_empty() { "TCP" } else { &p.protocol })).collect();
        let none_or = |v: &[String]| if v.is_empty() { "<none>".to_string() } else { v.join(", ") };
        if ports.len() > 1 {
            w.write(2, &format!("Ports:\t{}\n", ports.join(", ")));
            w.write(2, &format!("Host Ports:\t{}\n", host_ports.join(", ")));
        } else {
            w.write(2, &format!("Port:\t{}\n", none_or(&ports)));
            w.write(2, &format!("Host Port:\t{}\n", none_or(&host_ports)));
        }
        if !c.command.is_empty() {
            w.write(2, "Command:\n");
            for part in &c.command {
                for line in part.split('\n') {
                    w.write(3, &format!("{line}\n"));
                }
            }
        }
        if !c.args.is_empty() {
            w.write(2, "Args:\n");
            for part in &c.args {
                for line in part.split('\n') {
                    w.write(3, &format!("{line}\n"));
                }
            }
        }
        if let Some(s) = status {
            describe_state(w, "State", &s.state);
            if s.last_state.terminated.is_some() {
                describe_state(w, "Last State", &s.last_state);
            }
            w.write(2, &format!("Ready:\t{}\n", if s.ready { "True" } else { "False" }));
            w.write(2, &format!("Restart Count:\t{}\n", s.restart_count));
        }
        for (title, list) in [("Limits", &c.resources.limits), ("Requests", &c.resources.requests)] {
            if list.is_empty() {
                continue;
            }
            w.write(2, &format!("{title}:\n"));
            for (name, q) in sorted_resources(list) {
                w.write(3, &format!("{name}:\t{}\n", quantity_string(q, name)));
            }
        }
        for (title, probe) in
            [("Liveness", &c.liveness_probe), ("Readiness", &c.readiness_probe), ("Startup", &c.startup_probe)]
        {
            if let Some(p) = probe {
                w.write(2, &format!("{title}:\t{}\n", p.describe()));
            }
        }
        describe_env(w, c);
        w.write(2, "Mounts:\t<none>\n");
    }
}

/// `describeContainerEnvFrom` (when there is any) and `describeContainerEnvVars`.
pub(super) fn describe_env(w: &mut Writer, c: &crate::api::Container) {
    if !c.env_from.is_empty() {
        w.write(2, "Environment Variables from:\n");
        for e in &c.env_from {
            let (from, r) = match (&e.config_map_ref, &e.secret_ref) {
                (Some(r), _) => ("ConfigMap", r),
                (_, Some(r)) => ("Secret", r),
                _ => continue,
            };
            let optional = r.optional == Some(true);
            if e.prefix.is_empty() {
                w.write(3, &format!("{}\t{from}\tOptional: {optional}\n", r.name));
            } else {
                w.write(3, &format!("{}\t{from} with prefix '{}'\tOptional: {optional}\n", r.name, e.prefix));
            }
        }
    }
    if c.env.is_empty() {
        w.write(2, "Environment:\t<none>\n");
        return;
    }
    w.write(2, "Environment:\n");
    for e in &c.env {
        match &e.value_from {
            None => {
                for (i, line) in e.value.split('\n').enumerate() {
                    if i == 0 {
                        w.write(3, &format!("{}:\t{line}\n", e.name));
                    } else {
                        w.write(3, &format!("\t{line}\n"));
                    }
                }
            }
            Some(src) => {
                if let Some(s) = &src.secret_key_ref {
                    let optional = s.optional == Some(true);
                    let text = format!("<set to the key '{}' in secret '{}'>", s.key, s.name);
                    w.write(3, &format!("{}:\t{text}\tOptional: {optional}\n", e.name));
                } else if let Some(s) = &src.config_map_key_ref {
                    let optional = s.optional == Some(true);
                    let text = format!("<set to the key '{}' of config map '{}'>", s.key, s.name);
                    w.write(3, &format!("{}:\t{text}\tOptional: {optional}\n", e.name));
                } else {
                    w.write(3, &format!("{}:\t\n", e.name));
                }
            }
        }
    }
}

/// `describeVolumes`: the volumes kubeloop reads (others are dropped on apply with a warning).
pub(super) fn describe_volumes(w: &mut Writer, indent: &str, volumes: &[crate::api::Volume]) {
    if volumes.is_empty() {
        w.write(0, &format!("{indent}Volumes:\t<none>\n"));
        return;
    }
    w.write(0, &format!("{indent}Volumes:\n"));
    for v in volumes {
        w.write(0, &format!("{indent}  {}:\n", v.name));
        let line = |w: &mut Writer, k: &str, v: &str| w.write(0, &format!("{indent}    {k}:\t{v}\n"));
        if let Some(c) = &v.config_map {
            line(w, "Type", "ConfigMap (a volume populated by a ConfigMap)");
            line(w, "Name", &c.name);
            line(w, "Optional", if c.optional == Some(true) { "true" } else { "false" });
        } else if let Some(s) = &v.secret {
            line(w, "Type", "Secret (a volume populated by a Secret)");
            line(w, "SecretName", &s.secret_name);
            line(w, "Optional", if s.optional == Some(true) { "true" } else { "false" });
        } else if let Some(e) = &v.empty_dir {
            line(w, "Type", "EmptyDir (a temporary directory that shares a pod's lifetime)");
            line(w, "Medium", &e.medium);
            let limit = e.size_limit.as_ref().map_or("<unset>".to_string(), |q| q.as_str().to_string());
            line(w, "SizeLimit", &limit);
        } else {
            line(w, "Type", "<unknown>");
        }
    }
}

/// `describeStatus`: a container state under `name` (`State`, `Last State`).
pub(super) fn describe_state(w: &mut Writer, name: &str, st: &crate::api::ContainerState) {
    if let Some(r) = &st.running {
        w.write(2, &format!("{name}:\tRunning\n"));
        w.write(3, &format!("Started:\t{}\n", time_or_zero(r.started_at)));
    } else if let Some(wt) = &st.waiting {
        w.write(2, &format!("{name}:\tWaiting\n"));
        if !wt.reason.is_empty() {
            w.write(3, &format!("Reason:\t{}\n", wt.reason));
        }
    } else if let Some(t) = &st.terminated {
        w.write(2, &format!("{name}:\tTerminated\n"));
        if !t.reason.is_empty() {
            w.write(3, &format!("Reason:\t{}\n", t.reason));
        }
        w.write(3, &format!("Exit Code:\t{}\n", t.exit_code));
        w.write(3, &format!("Started:\t{}\n", time_or_zero(t.started_at)));
        w.write(3, &format!("Finished:\t{}\n", time_or_zero(t.finished_at)));
    } else {
        w.write(2, &format!("{name}:\tWaiting\n"));
    }
}

/// `SortedResourceNames`: cpu, memory, then the rest by name.
pub(super) fn sorted_resources(list: &crate::api::types::ResourceList) -> Vec<(&str, &Quantity)> {
    let mut v: Vec<(&str, &Quantity)> = list.iter().map(|(k, q)| (&**k, q)).collect();
    let rank = |k: &str| match k {
        "cpu" => 0,
        "memory" => 1,
        _ => 2,
    };
    crate::sort::sort_by(&mut v, |a, b| rank(a.0).cmp(&rank(b.0)).then(a.0.cmp(b.0)));
    v
}

/// `DescribePodTemplate`.
pub(super) fn describe_pod_template(w: &mut Writer, t: &PodTemplateSpec) {
    w.write(0, "Pod Template:\n");
    labels_multiline(w, "  ", "Labels", &t.metadata.labels);
    if !t.metadata.annotations.is_empty() {
        annotations_multiline(w, "  ", "Annotations", &t.metadata.annotations);
    }
    describe_containers(w, "Containers", &t.spec.containers, &[], "  ");
    describe_volumes(w, "  ", &t.spec.volumes);
    labels_multiline(w, "  ", "Node-Selectors", &t.spec.node_selector);
    tolerations_multiline(w, "  ", "Tolerations", &t.spec.tolerations);
}

/// `qos.GetPodQOS`: BestEffort without requests or limits, Guaranteed when every container's cpu and memory
/// limits are set and equal to its requests, Burstable otherwise.
pub(super) fn qos_class(spec: &PodSpec) -> &'static str {
    let any = spec.containers.iter().any(|c| !c.resources.requests.is_empty() || !c.resources.limits.is_empty());
    if !any {
        return "BestEffort";
    }
    let guaranteed = spec.containers.iter().all(|c| {
        ["cpu", "memory"].iter().all(|r| match c.resources.limits.get(*r) {
            Some(l) => c.resources.requests.get(*r).is_none_or(|q| q == l),
            None => false,
        }) && c.resources.requests.iter().all(|(k, q)| c.resources.limits.get(k) == Some(q))
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}
