//! Writes: create, update, patch, bind, delete; admission on the way in; the commit that versions every change, records it in the watch cache and fans it out to the watchers.

use super::*;

impl Store {
    // ---- writes ---------------------------------------------------------------------------------------------

    fn new_uid(&mut self) -> Str {
        let a = self.rng.next_u64();
        let b = self.rng.next_u64();
        s(&format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            ((b >> 48) & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        ))
    }

    /// The service registry's allocations: a cluster IP from the service range (given, `None` for a headless
    /// Service, or a free one at random from the range's upper part, as upstream's allocator prefers), and a node
    /// port from 30000-32767 for each port of a NodePort or LoadBalancer Service that has none.
    fn allocate(&mut self, svc: &mut crate::api::Service) -> Result<(), admission::FieldError> {
        use crate::api::service::{ipv4, parse_ipv4, ServiceRange, NODE_PORTS};
        let services = &self.kinds[Kind::Service.index()].objects;
        let taken_ip = |ip: &str| services.values().any(|o| o.as_service().is_some_and(|s| &*s.spec.cluster_ip == ip));
        if &*svc.spec.type_ != "ExternalName" {
            let given = svc.spec.cluster_ip.to_string();
            let ip = if given == "None" {
                given
            } else if given.is_empty() {
                let rng = &mut self.rng;
                let free =
                    ServiceRange::DEFAULT.allocate(|n| rng.range(0, u64::from(n) - 1) as u32, |a| taken_ip(&ipv4(a)));
                match free {
                    Some(a) => ipv4(a),
                    None => {
                        return Err(admission::FieldError::new(
                            "spec.clusterIPs",
                            "Internal error: failed to allocate a serviceIP: range is full",
                        ))
                    }
                }
            } else {
                let refuse = |why: String| {
                    admission::FieldError::new(
                        "spec.clusterIPs",
                        format!(
                            "Invalid value: []string{{{}}}: failed to allocate IP {given}: {why}",
                            crate::api::go_quote(&given)
                        ),
                    )
                };
                match parse_ipv4(&given) {
                    None => {
                        return Err(admission::FieldError::new(
                            "spec.clusterIPs[0]",
                            format!(
                                "Invalid value: {}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                                crate::api::go_quote(&given)
                            ),
                        ))
                    }
                    Some(a) if !ServiceRange::DEFAULT.contains(a) => {
                        return Err(refuse(format!(
                        "the provided IP ({given}) is not in the valid range. The range of valid IPs is 10.96.0.0/12"
                    )))
                    }
                    Some(_) if taken_ip(&given) => return Err(refuse("provided IP is already allocated".into())),
                    Some(_) => given.clone(),
                }
            };
            svc.spec.cluster_ip = s(&ip);
            svc.spec.cluster_ips = vec![s(&ip)];
        }
        if svc.has_node_ports() {
            let taken_port = |p: i32| {
                services.values().any(|o| o.as_service().is_some_and(|s| s.spec.ports.iter().any(|x| x.node_port == p)))
            };
            let (lo, hi) = NODE_PORTS;
            let mut mine: Vec<i32> = Vec::new();
            for (i, port) in svc.spec.ports.iter_mut().enumerate() {
                if port.node_port != 0 {
                    if !(lo..=hi).contains(&port.node_port) {
                        return Err(admission::FieldError::new(
                            format!("spec.ports[{i}].nodePort"),
                            format!("Invalid value: {}: provided port is not in the valid range. The range of valid ports is {lo}-{hi}", port.node_port),
                        ));
                    }
                    if taken_port(port.node_port) {
                        return Err(admission::FieldError::new(
                            format!("spec.ports[{i}].nodePort"),
                            format!("Invalid value: {}: provided port is already allocated", port.node_port),
                        ));
                    }
                    mine.push(port.node_port);
                    continue;
                }
                let span = (hi - lo + 1) as u32;
                let start = self.rng.range(0, u64::from(span) - 1) as u32;
                let free =
                    (0..span).map(|k| lo + ((start + k) % span) as i32).find(|p| !taken_port(*p) && !mine.contains(p));
                match free {
                    Some(p) => {
                        port.node_port = p;
                        mine.push(p);
                    }
                    None => {
                        return Err(admission::FieldError::new(
                            format!("spec.ports[{i}].nodePort"),
                            "Internal error: failed to allocate a nodePort: range is full",
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// Defaults a new pod's spec (admission: [`admission::default_pod_spec_with`]). The pods of a ReplicaSet are
    /// made from one spec, its template's: a spec defaulted among the last [`POD_DEFAULTS_KEPT`] gets the same
    /// defaulted spec, shared, not a copy of its own (the same result, as defaulting reads nothing but the spec).
    fn default_pod_spec(&mut self, spec: &mut Rc<PodSpec>) {
        if let Some((_, defaulted)) = self.pod_defaults.iter().find(|(given, _)| Rc::ptr_eq(given, spec)) {
            *spec = defaulted.clone();
            return;
        }
        let given = spec.clone();
        admission::default_pod_spec_with(spec, self.config.default_toleration_seconds);
        if self.pod_defaults.len() == POD_DEFAULTS_KEPT {
            self.pod_defaults.pop_front();
        }
        self.pod_defaults.push_back((given, spec.clone()));
    }

    /// Creates `obj`. The server sets uid, resourceVersion, generation and creationTimestamp, and turns
    /// `generateName` into a name with a random 5-character suffix.
    pub(crate) fn create(&mut self, client: ClientId, mut obj: Object, now: Millis) -> Result<Rc<Object>, ApiError> {
        self.writer = client;
        let kind = obj.kind();
        let resource = group_resource(kind);
        {
            let m = obj.meta_mut();
            if !kind.namespaced() {
                m.namespace = s("");
            } else if m.namespace.is_empty() {
                m.namespace = s("default");
            }
        }
        // NamespaceLifecycle admission runs before the name is generated: a refused create names its generateName.
        if kind.namespaced() {
            let ns_key = ObjKey::cluster(&obj.meta().namespace);
            match self.kinds[Kind::Namespace.index()].objects.get(&ns_key) {
                None => {
                    return self.fail(client, ApiError::NotFound { resource: "namespaces", name: ns_key.name });
                }
                Some(ns) if ns.as_namespace().is_some_and(|n| &*n.status.phase == "Terminating") => {
                    let m = obj.meta();
                    let name = if m.name.is_empty() { &m.generate_name } else { &m.name };
                    return self.fail(
                        client,
                        ApiError::Forbidden(format!(
                            "{resource} \"{}\" is forbidden: unable to create new content in namespace {} because it is being terminated",
                            crate::limits::echo(name),
                            crate::limits::echo(&ns_key.name)
                        )),
                    );
                }
                Some(_) => {}
            }
        }
        if obj.meta().name.is_empty() {
            if obj.meta().generate_name.is_empty() {
                let errors =
                    vec![admission::FieldError::required_because("metadata.name", "name or generateName is required")];
                return self.fail(client, ApiError::Invalid(admission::Invalid::new(&obj, errors)));
            }
            let mut name;
            loop {
                name = crate::api::names::generated_name(&obj.meta().generate_name, &self.rng.name_suffix(5));
                if !self.kinds[kind.index()].objects.contains_key(&ObjKey::new(&obj.meta().namespace, &name)) {
                    break;
                }
            }
            obj.meta_mut().name = s(&name);
        }
        let key = obj.key();
        if self.kinds[kind.index()].objects.contains_key(&key) {
            return self.fail(client, ApiError::AlreadyExists { resource, name: key.name });
        }
        // kubeloop's envelope, for every client: a controller's surge, a kubelet's registration, a person's create.
        let cap = self.cap(kind);
        if self.kinds[kind.index()].objects.len() >= cap {
            let why = kind.refusal(cap);
            let name = crate::limits::echo(&key.name);
            return self.fail(client, ApiError::Forbidden(format!("{resource} \"{name}\" is forbidden: {why}")));
        }
        // PrepareForCreate: the server owns status (nodes report their own).
        match &mut obj {
            Object::Pod(p) => p.status = Default::default(),
            Object::Deployment(d) => d.status = Default::default(),
            Object::ReplicaSet(r) => r.status = Default::default(),
            Object::Job(j) => *j.status = Default::default(),
            Object::CronJob(c) => c.status = Default::default(),
            // namespaceStrategy.PrepareForCreate: the namespace is Active and carries the `kubernetes` finalizer.
            Object::Namespace(n) => {
                n.status = NamespaceStatus { phase: s("Active"), conditions: Vec::new() };
                if !n.spec.finalizers.iter().any(|f| &**f == FINALIZER_KUBERNETES) {
                    n.spec.finalizers.push(s(FINALIZER_KUBERNETES));
                }
            }
            _ => {}
        }
        match &mut obj {
            Object::Pod(p) => self.default_pod_spec(&mut p.spec),
            _ => admission::default_object_with(&mut obj, self.config.default_toleration_seconds),
        }
        // DefaultStorageClass, then LimitRanger's defaults (mutating admission, before validation).
        if let Object::Stored(claim) = &mut obj {
            if claim.kind == Kind::PersistentVolumeClaim {
                self.default_storage_class(claim);
            }
        }
        let mut refused = None;
        if let Object::Pod(p) = &mut obj {
            refused = self.limit_ranger(p).err();
        }
        // The job strategy's Validate generates a Job's selector from its UID, which the API server sets first.
        let early_uid = match &mut obj {
            Object::Job(j) => {
                let uid = self.new_uid();
                crate::api::job::generate_selector(j, &uid);
                j.metadata.uid = uid.clone();
                Some(uid)
            }
            _ => None,
        };
        let errs = admission::validate(&obj);
        if !errs.is_empty() {
            return self.fail(client, ApiError::Invalid(admission::Invalid::new(&obj, errs)));
        }
        // Validating admission: LimitRanger's bounds, then ResourceQuota.
        if let Some(why) = refused.or_else(|| self.resource_quota(&obj, now).err()) {
            let name = crate::limits::echo(&key.name);
            return self.fail(client, ApiError::Forbidden(format!("{resource} \"{name}\" is forbidden: {why}")));
        }
        if let Object::Service(svc) = &mut obj {
            if let Err(e) = self.allocate(svc) {
                return self.fail(client, ApiError::Invalid(admission::Invalid::new(&obj, vec![e])));
            }
        }
        if kind == Kind::Pod && self.faults.reject_pod_creates && self.faulted(client) {
            let used = self.in_namespace(kind, &key.namespace).count();
            return self.fail(
                client,
                ApiError::Forbidden(format!(
                    "pods \"{}\" is forbidden: exceeded quota: kubeloop-fault, requested: pods=1, used: pods={used}, limited: pods={used}",
                    key.name
                )),
            );
        }
        let uid = early_uid.unwrap_or_else(|| self.new_uid());
        let m = obj.meta_mut();
        m.uid = uid;
        // Only the kinds whose registry strategy sets it have a generation (pods, ReplicaSets, Deployments);
        // a Lease, Node, Namespace or Event has none (e.g. pkg/registry/coordination/lease/strategy.go).
        m.generation = if kind.has_generation() { 1 } else { 0 };
        m.creation_timestamp = Some(Time(now));
        m.deletion_timestamp = None;
        m.deletion_grace_period_seconds = None;
        template_generation(None, &mut obj);
        self.count(client).creates += 1;
        Ok(self.commit(EventType::Added, obj, None, now))
    }

    /// Updates the main resource (`Subresource::Main`: status is kept as stored) or the status
    /// (`Subresource::Status`: only status is taken). A resourceVersion that is set and not current gives 409
    /// Conflict; an update that changes nothing writes nothing and keeps the resourceVersion.
    pub(crate) fn update(
        &mut self,
        client: ClientId,
        obj: Object,
        sub: Subresource,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        self.writer = client;
        let kind = obj.kind();
        let key = obj.key();
        let Some(current) = self.kinds[kind.index()].objects.get(&key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name });
        };
        let rv = obj.meta().resource_version;
        let injected = rv != 0
            && self.faults.conflict_fraction > 0.0
            && self.faulted(client)
            && self.rng.chance(self.faults.conflict_fraction);
        if rv != 0 && (rv != current.meta().resource_version || injected) {
            self.count(client).conflicts += 1;
            return self.fail(client, ApiError::Conflict { resource: group_resource(kind), name: key.name });
        }
        let next = match sub {
            Subresource::Status => {
                let mut next = (*current).clone();
                next.take_status_from(&obj);
                next
            }
            Subresource::Finalize => {
                let mut next = (*current).clone();
                take_finalizers(&mut next, &obj);
                next
            }
            Subresource::Main => {
                let mut next = obj;
                if kind.has_status_subresource() {
                    next.take_status_from(&current);
                }
                keep_namespace_finalizers(&current, &mut next);
                if let (Object::Service(old), Object::Service(new)) = (&*current, &mut next) {
                    patch_allocated_values(new, old);
                }
                self.admit_update(client, &current, &mut next)?;
                let cm = current.meta();
                let m = next.meta_mut();
                m.uid = cm.uid.clone();
                m.creation_timestamp = cm.creation_timestamp;
                m.deletion_timestamp = cm.deletion_timestamp;
                m.deletion_grace_period_seconds = cm.deletion_grace_period_seconds;
                m.generation = cm.generation;
                m.generate_name = cm.generate_name.clone();
                if kind.has_generation() && current.spec_differs(&next) {
                    next.meta_mut().generation += 1;
                }
                template_generation(Some(&current), &mut next);
                next
            }
        };
        self.write_if_changed(client, current, next, now)
    }

    /// Read-modify-write without a precondition, like a PATCH: `f` changes the stored object. Used where upstream
    /// patches (kubelet status, bindings, scale).
    pub(crate) fn patch(
        &mut self,
        client: ClientId,
        kind: Kind,
        key: &ObjKey,
        sub: Subresource,
        now: Millis,
        f: impl FnOnce(&mut Object),
    ) -> Result<Rc<Object>, ApiError> {
        self.writer = client;
        let Some(current) = self.kinds[kind.index()].objects.get(key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name.clone() });
        };
        let mut next = (*current).clone();
        f(&mut next);
        match sub {
            Subresource::Main => {
                if kind.has_status_subresource() {
                    next.take_status_from(&current);
                }
                keep_namespace_finalizers(&current, &mut next);
                self.admit_update(client, &current, &mut next)?;
                if kind.has_generation() && current.spec_differs(&next) {
                    next.meta_mut().generation += 1;
                }
                template_generation(Some(&current), &mut next);
            }
            Subresource::Status => {
                let mut only_status = (*current).clone();
                only_status.take_status_from(&next);
                next = only_status;
            }
            Subresource::Finalize => {
                let mut only_finalizers = (*current).clone();
                take_finalizers(&mut only_finalizers, &next);
                next = only_finalizers;
            }
        }
        self.write_if_changed(client, current, next, now)
    }

    /// Defaulting and validation of an update of the main resource.
    fn admit_update(&mut self, client: ClientId, current: &Object, next: &mut Object) -> Result<(), ApiError> {
        admission::default_object_with(next, self.config.default_toleration_seconds);
        let errs = admission::validate(next);
        if !errs.is_empty() {
            return self.fail(client, ApiError::Invalid(admission::Invalid::new(next, errs)));
        }
        if let Err(e) = validate_update(current, next) {
            return self.fail(client, e);
        }
        Ok(())
    }

    fn write_if_changed(
        &mut self,
        client: ClientId,
        current: Rc<Object>,
        mut next: Object,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        next.meta_mut().resource_version = current.meta().resource_version;
        if next == *current {
            return Ok(current);
        }
        self.count(client).updates += 1;
        // The last finalizer is gone from an object deleted with no grace period left: the update becomes the
        // delete (ShouldDeleteDuringUpdate; one write, one DELETED event). A pod in its grace period stays until
        // its kubelet's delete. A namespace also waits for its `spec.finalizers` (ShouldDeleteNamespaceDuringUpdate).
        if next.meta().is_terminating()
            && next.meta().finalizers.is_empty()
            && current.meta().deletion_grace_period_seconds == Some(0)
            && next.as_namespace().is_none_or(|n| n.spec.finalizers.is_empty())
        {
            return Ok(self.remove(Rc::new(next), now));
        }
        Ok(self.commit(EventType::Modified, next, Some(current), now))
    }

    /// The pods/binding subresource: assigns an unbound pod to a node and sets PodScheduled=True.
    pub(crate) fn bind(
        &mut self,
        client: ClientId,
        pod: &ObjKey,
        uid: &str,
        node: &str,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        self.writer = client;
        let Some(current) = self.kinds[Kind::Pod.index()].objects.get(pod).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: "pods", name: pod.name.clone() });
        };
        let Some(p) = current.as_pod() else { unreachable!("pods hold pods") };
        if &*p.metadata.uid != uid {
            return self.fail(client, ApiError::Conflict { resource: "pods", name: pod.name.clone() });
        }
        if !p.spec.node_name.is_empty() || p.metadata.is_terminating() {
            let msg = if p.metadata.is_terminating() {
                format!("pod {} is being deleted, cannot be assigned to a host", pod.name)
            } else {
                format!("pod {} is already assigned to node \"{}\"", pod.name, p.spec.node_name)
            };
            self.count(client).conflicts += 1;
            return self.fail(
                client,
                ApiError::ConflictWith { resource: "pods/binding", name: pod.name.clone(), detail: msg },
            );
        }
        let mut next = (*current).clone();
        if let Object::Pod(p) = &mut next {
            Rc::make_mut(&mut p.spec).node_name = s(node);
            set_pod_condition(&mut p.status.conditions, "PodScheduled", "True", "", "", now);
        }
        self.count(client).creates += 1; // a Binding is created
        Ok(self.commit(EventType::Modified, next, Some(current), now))
    }

    /// Deletes an object. Objects with finalizers, and pods bound to a node (the kubelet confirms with a second,
    /// zero-grace delete), are only marked with a deletionTimestamp. Foreground and orphan propagation add the
    /// `foregroundDeletion` / `orphan` finalizer for the garbage collector.
    pub(crate) fn delete(
        &mut self,
        client: ClientId,
        kind: Kind,
        key: &ObjKey,
        opts: &DeleteOptions,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        self.writer = client;
        // NamespaceLifecycle admission: the immortal namespaces are never deleted.
        if kind == Kind::Namespace && IMMORTAL_NAMESPACES.contains(&&*key.name) {
            return self.fail(
                client,
                ApiError::Forbidden(format!(
                    "namespaces \"{}\" is forbidden: this namespace may not be deleted",
                    key.name
                )),
            );
        }
        let Some(current) = self.kinds[kind.index()].objects.get(key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name.clone() });
        };
        if let Some(uid) = &opts.preconditions_uid {
            if *uid != current.meta().uid {
                self.count(client).conflicts += 1;
                return self
                    .fail(client, ApiError::Conflict { resource: group_resource(kind), name: key.name.clone() });
            }
        }
        self.count(client).deletes += 1;
        if let Some(ns) = current.as_namespace() {
            // The namespace registry's Delete: the first request only starts termination (deletionTimestamp,
            // phase Terminating); the namespace stays until its `spec.finalizers` are gone (the namespace
            // controller empties it, then finalizes it).
            if !ns.metadata.is_terminating() {
                let mut next = ns.clone();
                next.metadata.deletion_timestamp = Some(Time(now));
                next.metadata.deletion_grace_period_seconds = Some(0);
                next.status.phase = s("Terminating");
                return Ok(self.commit(EventType::Modified, Object::Namespace(next), Some(current), now));
            }
            if !ns.spec.finalizers.is_empty() {
                return Ok(current);
            }
        }
        let mut next = (*current).clone();
        let mut graceful = false;
        if let Object::Pod(p) = &next {
            let grace = opts.grace_period_seconds.or(p.spec.termination_grace_period_seconds).unwrap_or(30).max(0);
            // CheckGracefulDelete: unbound and terminal pods go at once.
            if grace > 0 && !p.spec.node_name.is_empty() && !p.status.phase.is_terminal() {
                // BeforeDelete: an already terminating pod's grace may only be shortened.
                if p.metadata.deletion_grace_period_seconds.is_some_and(|current_grace| grace >= current_grace) {
                    return Ok(current);
                }
                let m = next.meta_mut();
                m.deletion_timestamp = Some(Time(now.saturating_add(crate::time::seconds(grace))));
                m.deletion_grace_period_seconds = Some(grace);
                graceful = true;
            }
        }
        let m = next.meta_mut();
        match opts.propagation {
            Some(Propagation::Foreground) if !m.finalizers.iter().any(|f| &**f == "foregroundDeletion") => {
                m.finalizers.push(s("foregroundDeletion"));
            }
            Some(Propagation::Orphan) if !m.finalizers.iter().any(|f| &**f == "orphan") => {
                m.finalizers.push(s("orphan"));
            }
            _ => {}
        }
        if graceful || !m.finalizers.is_empty() {
            if m.deletion_timestamp.is_none() {
                m.deletion_timestamp = Some(Time(now));
                m.deletion_grace_period_seconds = Some(0);
            }
            if next == *current {
                return Ok(current);
            }
            return Ok(self.commit(EventType::Modified, next, Some(current), now));
        }
        Ok(self.remove(current, now))
    }

    /// DELETECOLLECTION in one namespace: every object of `kind` in `namespace` is deleted as [`Store::delete`]
    /// would delete it (graceful pods are only marked; finalizers are respected). One request; the first error,
    /// if any, after trying them all.
    pub(crate) fn delete_collection(
        &mut self,
        client: ClientId,
        kind: Kind,
        namespace: &str,
        opts: &DeleteOptions,
        now: Millis,
    ) -> Result<usize, ApiError> {
        self.writer = client;
        let keys: Vec<ObjKey> = self.kinds[kind.index()]
            .objects
            .range(ObjKey::new(namespace, "")..)
            .take_while(|(k, _)| &*k.namespace == namespace)
            .map(|(k, _)| k.clone())
            .collect();
        let mut first_error = None;
        for key in &keys {
            match self.delete(client, kind, key, opts, now) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(keys.len()),
        }
    }

    fn remove(&mut self, obj: Rc<Object>, now: Millis) -> Rc<Object> {
        let mut last = (*obj).clone();
        if last.meta().deletion_timestamp.is_none() {
            last.meta_mut().deletion_timestamp = Some(Time(now));
        }
        self.commit(EventType::Deleted, last, Some(obj), now)
    }

    pub(super) fn fail<T>(&mut self, client: ClientId, e: ApiError) -> Result<T, ApiError> {
        self.count(client).errors += 1;
        Err(e)
    }

    /// Assigns the next resourceVersion, stores (or removes) the object, records history and fans the event out to
    /// the watchers that match it.
    fn commit(&mut self, type_: EventType, mut obj: Object, old: Option<Rc<Object>>, now: Millis) -> Rc<Object> {
        if self.dry_run {
            // The dry run's answer: the object as it would be written, with the resourceVersion it had.
            return Rc::new(obj);
        }
        self.rv += 1;
        self.writes += 1;
        obj.meta_mut().resource_version = self.rv;
        let kind = obj.kind();
        let key = obj.key();
        let obj = Rc::new(obj);
        self.causes.wrote(self.rv, now, self.writer, type_, &obj);
        let ks = &mut self.kinds[kind.index()];
        // A watch event carries (old, new): the old must be what the store held, so that every client sees one
        // consistent sequence of versions.
        debug_assert!(
            old.as_ref().is_none_or(|o| o.meta().resource_version < self.rv),
            "commit of {kind} {key}: the new resourceVersion is not after the old one"
        );
        debug_assert_eq!(
            ks.objects.get(&key).map(|o| o.meta().resource_version),
            old.as_ref().map(|o| o.meta().resource_version),
            "commit of {kind} {key}: the old object is not the stored one"
        );
        if type_ == EventType::Deleted {
            ks.objects.remove(&key);
        } else {
            ks.objects.insert(key.clone(), obj.clone());
        }
        if kind == Kind::Pod {
            if let Some(p) = old.as_ref().and_then(|o| o.as_pod()) {
                self.pods.count(p, false);
            }
            if let Some(p) = obj.as_pod().filter(|_| type_ != EventType::Deleted) {
                self.pods.count(p, true);
            }
        }
        if let Some(ix) = ks.index.as_mut() {
            if let Some(o) = old.as_deref() {
                ix.update(o, &key, false);
            }
            if type_ != EventType::Deleted {
                ix.update(&obj, &key, true);
            }
        }
        let mut h = self.history_hash;
        h = fnv1a(h, &self.rv.to_le_bytes());
        h = fnv1a(h, &now.to_le_bytes());
        h = fnv1a(h, type_.as_str().as_bytes());
        h = fnv1a(h, kind.name().as_bytes());
        h = fnv1a(h, key.namespace.as_bytes());
        h = fnv1a(h, key.name.as_bytes());
        self.history_hash = h;

        let ev = WatchEvent { type_, object: obj.clone(), rv: self.rv, at: now };
        // Fan out: watchers of the whole kind, and for pods the watchers of the old and new node.
        let mut targets: Vec<WatcherId> = ks.watchers.clone();
        if kind == Kind::Pod && !ks.node_watchers.is_empty() {
            let new_node = obj.as_pod().map(|p| p.spec.node_name.clone());
            let old_node = old.as_ref().and_then(|o| o.as_pod()).map(|p| p.spec.node_name.clone());
            for n in [new_node, old_node.filter(|o| Some(o) != obj.as_pod().map(|p| &p.spec.node_name))]
                .into_iter()
                .flatten()
            {
                if let Some(ws) = ks.node_watchers.get(&n) {
                    targets.extend_from_slice(ws);
                }
            }
        }
        debug_assert!(
            {
                let mut t = targets.clone();
                t.sort_unstable();
                t.dedup();
                t.len() == targets.len()
            },
            "commit of {kind} {key}: a watcher would get the event twice"
        );
        let mut overflowing = Vec::new();
        for id in targets {
            if let Some(w) = self.watchers.get_mut(&id) {
                if let Some(e) = w.filter.translate(&ev, old.as_deref()) {
                    if w.buffer.is_empty() {
                        if let Some(notify) = w.notify {
                            self.wakeups.push(Wakeup { watcher: id, notify, at: now + w.latency });
                        }
                    }
                    w.buffer.push_back(e);
                    if w.buffer.len() > self.config.watch_buffer_max {
                        overflowing.push(id);
                    }
                }
            }
        }
        // The watch cache ends a watcher that has fallen too far behind (its buffer is full); its reader re-watches
        // from the last resourceVersion it saw (or relists on 410).
        for id in overflowing {
            let notify = self.watchers.get(&id).and_then(|w| w.notify);
            self.stop_watch(id);
            if let Some(notify) = notify {
                self.ended.push(Wakeup { watcher: id, notify, at: now });
            }
        }
        let ks = &mut self.kinds[kind.index()];
        ks.history.push_back(HistoryEntry { ev, old });
        while ks.history.len() > self.config.watch_history_max
            || (ks.history.len() > self.config.watch_history_min
                && ks.history.front().is_some_and(|e| self.config.past_window(e.ev.at, now)))
        {
            if let Some(e) = ks.history.pop_front() {
                ks.compacted = e.ev.rv;
            }
        }
        if kind == Kind::Event && type_ != EventType::Deleted {
            self.event_expiry.push_back((now + self.config.event_ttl, key));
            if self.event_log.len() >= EVENT_LOG_CAPACITY {
                self.event_log.pop_front();
            }
            self.event_log.push_back(obj.clone());
            self.event_log_total += 1;
        }
        self.expire_events(now);
        obj
    }

    /// Deletes Event objects whose TTL has passed (etcd leases do this for the real API server).
    fn expire_events(&mut self, now: Millis) {
        if self.expiring {
            return;
        }
        self.expiring = true;
        // The API server's own deletes, whoever's request it serves.
        let (writer, cause) = (self.writer, self.causes.current);
        (self.writer, self.causes.current) = (SERVER, Cause::Server("event TTL"));
        self.expire_due_events(now);
        (self.writer, self.causes.current) = (writer, cause);
        self.expiring = false;
    }

    fn expire_due_events(&mut self, now: Millis) {
        while let Some((at, key)) = self.event_expiry.front().cloned() {
            if at > now {
                break;
            }
            self.event_expiry.pop_front();
            let Some(ev) = self.kinds[Kind::Event.index()].objects.get(&key).cloned() else { continue };
            let last_write = ev.as_event().and_then(|e| e.body.last_timestamp).map(|t| t.0).unwrap_or(0);
            if last_write + self.config.event_ttl <= now {
                self.remove(ev, now);
            }
        }
    }
}

/// A DaemonSet's template generation (the daemonset strategy's PrepareForCreate and PrepareForUpdate, shown in v1 as
/// the `deprecated.daemonset.template.generation` annotation): 1 on create, one more when the template changes,
/// whatever the client sent.
fn template_generation(current: Option<&Object>, next: &mut Object) {
    use crate::api::daemonset::TEMPLATE_GENERATION_ANNOTATION;
    let Object::DaemonSet(ds) = next else { return };
    let old = current.and_then(|c| c.as_daemonset());
    let generation = match old {
        None => 1,
        Some(o) => {
            let was = o.template_generation().unwrap_or(1);
            if o.spec.template != ds.spec.template {
                was.saturating_add(1)
            } else {
                was
            }
        }
    };
    ds.metadata.annotations.insert(s(TEMPLATE_GENERATION_ANNOTATION), s(&generation.to_string()));
}

/// A Main update of a namespace keeps its `spec.finalizers` (namespaceStrategy.PrepareForUpdate): only the
/// `finalize` subresource changes them.
fn keep_namespace_finalizers(current: &Object, next: &mut Object) {
    if let (Object::Namespace(c), Object::Namespace(n)) = (current, next) {
        n.spec.finalizers = c.spec.finalizers.clone();
    }
}

/// The `finalize` subresource: `spec.finalizers` from `from`, nothing else.
fn take_finalizers(next: &mut Object, from: &Object) {
    if let (Object::Namespace(n), Object::Namespace(f)) = (next, from) {
        n.spec.finalizers = f.spec.finalizers.clone();
    }
}

/// Sets (or adds) a pod condition in place ([`Placement::InPlace`]): lastTransitionTime moves only when the status
/// changes.
pub fn set_pod_condition(
    conds: &mut Vec<PodCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: Millis,
) {
    let new = PodCondition {
        type_: s(type_),
        status: s(status),
        last_transition_time: Some(Time(now)),
        reason: s(reason),
        message: s(message),
    };
    crate::api::set_condition(conds, new, crate::api::Placement::InPlace);
}

/// Validation the API server applies to updates: immutable fields (each kind's `Validate...Update`, and the
/// registry's immutable selector of Deployments and ReplicaSets).
pub fn validate_update(current: &Object, next: &Object) -> Result<(), ApiError> {
    let errs = update_errors(current, next);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Invalid(admission::Invalid::new(next, errs)))
    }
}

/// The service registry's `patchAllocatedValues`: an update that leaves out what the server allocated (the cluster
/// IPs, the node port of a port of the same name) keeps it, so that a client may send the same Service again
/// without reading it first (an identical `kubectl apply` is then `unchanged`). A node port the new Service gives
/// to another port is not taken back.
pub fn patch_allocated_values(new: &mut crate::api::Service, old: &crate::api::Service) {
    let needs_cluster_ip = |s: &crate::api::Service| s.type_name() != "ExternalName";
    if needs_cluster_ip(old) && needs_cluster_ip(new) {
        if new.spec.cluster_ip.is_empty() {
            new.spec.cluster_ip = old.spec.cluster_ip.clone();
        }
        if new.spec.cluster_ips.is_empty() && !old.spec.cluster_ips.is_empty() {
            new.spec.cluster_ips = old.spec.cluster_ips.clone();
        }
    }
    if old.has_node_ports() && new.has_node_ports() {
        for i in 0..new.spec.ports.len() {
            // The last old port of that name (as a map by name keeps it), unless the new Service uses its port.
            let name = &new.spec.ports[i].name;
            let kept = old.spec.ports.iter().rev().find(|p| &p.name == name).map_or(0, |p| p.node_port);
            if new.spec.ports[i].node_port == 0 && !new.spec.ports.iter().any(|p| p.node_port == kept) {
                new.spec.ports[i].node_port = kept;
            }
        }
    }
}

fn update_errors(current: &Object, next: &Object) -> Vec<admission::FieldError> {
    use admission::{q, FieldError};
    const IMMUTABLE: &str = "field is immutable when `immutable` is set";
    let mut errs = Vec::new();
    match (current, next) {
        (Object::Deployment(a), Object::Deployment(b)) if a.spec.selector != b.spec.selector => errs
            .push(FieldError::invalid("spec.selector", admission::go_selector(&b.spec.selector), "field is immutable")),
        (Object::ReplicaSet(a), Object::ReplicaSet(b)) if a.spec.selector != b.spec.selector => errs
            .push(FieldError::invalid("spec.selector", admission::go_selector(&b.spec.selector), "field is immutable")),
        (Object::StatefulSet(a), Object::StatefulSet(b)) => admission::stateful_set_update(a, b, &mut errs),
        // ValidateConfigMapUpdate / ValidateSecretUpdate: nothing of an immutable one changes, and a Secret's type
        // never does.
        (Object::ConfigMap(a), Object::ConfigMap(b)) if a.immutable == Some(true) => {
            if b.immutable != Some(true) {
                errs.push(FieldError::forbidden("immutable", IMMUTABLE));
            }
            if a.data != b.data {
                errs.push(FieldError::forbidden("data", IMMUTABLE));
            }
            if a.binary_data != b.binary_data {
                errs.push(FieldError::forbidden("binaryData", IMMUTABLE));
            }
        }
        (Object::Secret(a), Object::Secret(b)) => {
            if a.type_ != b.type_ {
                errs.push(FieldError::invalid("type", q(&b.type_), "field is immutable"));
            }
            if a.immutable == Some(true) {
                if b.immutable != Some(true) {
                    errs.push(FieldError::forbidden("immutable", IMMUTABLE));
                }
                if a.data != b.data {
                    errs.push(FieldError::forbidden("data", IMMUTABLE));
                }
            }
        }
        (Object::EndpointSlice(a), Object::EndpointSlice(b)) if a.address_type != b.address_type => {
            errs.push(FieldError::invalid("addressType", q(&b.address_type), "field is immutable"))
        }
        // ValidateServiceUpdate: an allocated cluster IP stays (unless the Service becomes ExternalName).
        (Object::Service(a), Object::Service(b))
            if !a.spec.cluster_ip.is_empty()
                && a.spec.cluster_ip != b.spec.cluster_ip
                && &*b.spec.type_ != "ExternalName" =>
        {
            errs.push(FieldError::invalid(
                "spec.clusterIPs[0]",
                format!("[]string{{{}}}", q(&b.spec.cluster_ip)),
                "may not change once set",
            ))
        }
        (Object::Pod(a), Object::Pod(b)) => {
            // ValidatePodUpdate: only images and added tolerations may change (and nodeName via binding only).
            let mut a2 = (*a.spec).clone();
            let mut b2 = (*b.spec).clone();
            for c in a2.containers.iter_mut().chain(b2.containers.iter_mut()) {
                c.image = s("");
            }
            let added_tolerations = b.spec.tolerations.len() >= a.spec.tolerations.len()
                && a.spec.tolerations.iter().all(|t| b.spec.tolerations.contains(t));
            a2.tolerations.clear();
            b2.tolerations.clear();
            if a2 != b2 || !added_tolerations || a.spec.containers.len() != b.spec.containers.len() {
                errs.push(FieldError::forbidden(
                    "spec",
                    "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations), `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
                ));
            }
        }
        _ => {}
    }
    errs
}
