//! A kubelet's containers as they run: a container started (its probes and its own exit armed), each probe tick
//! and exit as a step, restarts through the back-off, failed image pulls, a container's exit. Methods of
//! [`Kubelet`] over its pods' runtime state ([`super::containers`] holds the state and derives the pod status).

use super::*;

impl Kubelet {
    /// A container's process starts (its image is there): probes and its own exit are armed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_container(
        &mut self,
        api: &mut Api,
        obj: &Object,
        key: &ObjKey,
        i: usize,
        behaviours: &Behaviours,
        now: Millis,
        due: &mut Vec<(usize, Due, Millis)>,
    ) {
        let b = self.behaviour(key, i, behaviours);
        let Some(pod) = obj.as_pod() else { return };
        let Some(spec) = pod.spec.containers.get(i) else { return };
        // The container's environment is made from the ConfigMaps and Secrets it names, or it does not start.
        if let Some(err) = config::env_error(api, &pod.metadata.namespace, spec) {
            self.recorder.event(api, obj, EventKind::Warning, "Failed", &format!("Error: {err}"));
            let Some(c) = self.pods.get_mut(key).and_then(|rt| rt.containers.get_mut(i)) else { return };
            c.run = Run::Waiting { reason: "CreateContainerConfigError", message: err };
            let at = now + config::CONFIG_RETRY;
            c.sync_at = Some(at);
            due.push((i, Due::Sync, at));
            return;
        }
        self.recorder.event(api, obj, EventKind::Normal, "Created", &format!("Created container: {}", spec.name));
        self.recorder.event(api, obj, EventKind::Normal, "Started", &format!("Started container {}", spec.name));
        let Some(rt) = self.pods.get_mut(key) else { return };
        let admitted = rt.admitted;
        let Some(c) = rt.containers.get_mut(i) else { return };
        c.run = Run::Running { since: now };
        c.started = spec.startup_probe.is_none();
        c.ready = c.started && spec.readiness_probe.is_none();
        c.probes = [ProbeRun::default(); 3];
        c.sync_at = None;
        c.start_at = None;
        c.exit_at = b.runs_for(&pod.spec.restart_policy).map(|d| now.saturating_add(d));
        if let Some(at) = c.exit_at {
            due.push((i, Due::Exit, at));
        }
        arm_probes(c, spec, admitted, &b, now, i, due);
    }

    /// One container timer.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn container_step(
        &mut self,
        api: &mut Api,
        pods: &Cache,
        key: &ObjKey,
        i: usize,
        what: Due,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
        due: &mut Vec<(usize, Due, Millis)>,
    ) {
        let Some(obj) = pods.get(key).cloned() else { return };
        let Some(pod) = obj.as_pod() else { return };
        let Some(spec) = pod.spec.containers.get(i) else { return };
        let b = self.behaviour(key, i, behaviours);
        let Some(rt) = self.pods.get_mut(key) else { return };
        let admitted = rt.admitted;
        let Some(c) = rt.containers.get_mut(i) else { return };
        match what {
            Due::Probe(t) => {
                let slot = containers::probe_index(t);
                if c.probes[slot].next != Some(now) {
                    return;
                }
                c.probes[slot].next = None;
                let (Some(since), Some(p)) = (c.running_since(), spec.probe(t)) else { return };
                let applies = match t {
                    ProbeType::Startup => !c.started,
                    _ => c.started,
                };
                if !applies || c.probes[slot].hold {
                    return;
                }
                if now < since.saturating_add(containers::initial_delay(p)) {
                    arm_probes(c, spec, admitted, &b, now, i, due);
                    return;
                }
                let ok = containers::passes(t, &b, since, now);
                let run = &mut c.probes[slot];
                if ok {
                    run.successes = run.successes.saturating_add(1);
                    run.failures = 0;
                } else {
                    run.failures = run.failures.saturating_add(1);
                    run.successes = 0;
                }
                let (successes, failures) = (run.successes, run.failures);
                let period = containers::period(p);
                let mut changed = false;
                let mut kill = false;
                match t {
                    ProbeType::Readiness => {
                        if ok && successes >= p.success_threshold && !c.ready {
                            c.ready = true;
                            changed = true;
                        } else if !ok && failures >= p.failure_threshold && c.ready {
                            c.ready = false;
                            changed = true;
                        }
                        if !(ok && c.ready) {
                            c.probes[slot].next = Some(now + period);
                        }
                    }
                    ProbeType::Liveness => {
                        if !ok && failures >= p.failure_threshold {
                            kill = true;
                        } else if !ok || b.liveness_fails {
                            c.probes[slot].next = Some(now + period);
                        }
                    }
                    ProbeType::Startup => {
                        if ok && successes >= p.success_threshold {
                            c.started = true;
                            c.ready = spec.readiness_probe.is_none();
                            changed = true;
                            arm_probes(c, spec, admitted, &b, now, i, due);
                        } else if !ok && failures >= p.failure_threshold {
                            kill = true;
                        } else {
                            c.probes[slot].next = Some(now + period);
                        }
                    }
                }
                if let Some(at) = c.probes[slot].next {
                    due.push((i, Due::Probe(t), at));
                }
                if !ok {
                    let pod_ip = pod.status.pod_ip.clone();
                    let msg = format!("{} probe failed: {}", t.as_str(), p.failure_output(&pod_ip));
                    self.recorder.event(api, &obj, EventKind::Warning, "Unhealthy", &msg);
                }
                if kill {
                    let msg = format!("Container {} failed {} probe, will be restarted", spec.name, t.lower());
                    self.recorder.event(api, &obj, EventKind::Normal, "Killing", &msg);
                    self.exit_container(key, i, SIGTERM_EXIT_CODE, &pod.spec.restart_policy, now, due);
                    changed = true;
                }
                if changed {
                    self.write_status(api, key, now);
                }
            }
            Due::Exit => {
                if c.exit_at != Some(now) || c.running_since().is_none() {
                    return;
                }
                self.exit_container(key, i, b.own_exit_code(), &pod.spec.restart_policy, now, due);
                self.write_status(api, key, now);
            }
            Due::Start => {
                if c.start_at != Some(now) {
                    return;
                }
                let took = c.pull_took;
                self.images.insert(spec.image.clone(), now);
                let msg = pulled_message(&spec.image, took);
                self.recorder.event(api, &obj, EventKind::Normal, "Pulled", &msg);
                self.start_container(api, &obj, key, i, behaviours, now, due);
                self.write_status(api, key, now);
            }
            Due::Sync => {
                if c.sync_at != Some(now) {
                    return;
                }
                c.sync_at = None;
                match &c.run {
                    Run::Waiting { reason: "ErrImagePull" | "ImagePullBackOff", .. } => {
                        let last = c.pull_backoff.map_or(now, |e| e.last_update);
                        if BackoffEntry::active(c.pull_backoff.as_ref(), last, now) {
                            let delay = c.pull_backoff.map_or(BACKOFF_INITIAL, |e| e.delay);
                            let msg = format!("Back-off pulling image \"{}\"", spec.image);
                            c.run = Run::Waiting { reason: "ImagePullBackOff", message: msg.clone() };
                            c.sync_at = Some(last + delay);
                            due.push((i, Due::Sync, last + delay));
                            self.recorder.event(api, &obj, EventKind::Normal, "BackOff", &msg);
                            self.recorder.event(api, &obj, EventKind::Warning, "Failed", "Error: ImagePullBackOff");
                            self.write_status(api, key, now);
                        } else {
                            let msg = format!("Pulling image \"{}\"", spec.image);
                            self.recorder.event(api, &obj, EventKind::Normal, "Pulling", &msg);
                            if b.unpullable {
                                self.pull_failed(api, &obj, key, i, now, due);
                                self.write_status(api, key, now);
                            } else {
                                let took = api.rng.range(runtime.image_pull.0, runtime.image_pull.1);
                                c.pull_took = took;
                                c.start_at = Some(now + took);
                                due.push((i, Due::Start, now + took));
                            }
                        }
                    }
                    Run::Exited(t) => {
                        let t = t.clone();
                        self.restart_or_back_off(api, &obj, key, i, t, runtime, behaviours, now, due);
                    }
                    Run::Waiting { reason: "CreateContainerConfigError", .. } => {
                        self.start_container(api, &obj, key, i, behaviours, now, due);
                        self.write_status(api, key, now);
                    }
                    Run::Waiting { reason: "CrashLoopBackOff", .. } => {
                        if let Some(t) = c.last.clone() {
                            self.restart_or_back_off(api, &obj, key, i, t, runtime, behaviours, now, due);
                        }
                    }
                    _ => {}
                }
            }
            // Only a container being stopped has one (its pod's stage is Stopping).
            Due::Stop => {}
        }
    }

    /// A stopped container's sync: still in its back-off (`CrashLoopBackOff`), or restarted now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn restart_or_back_off(
        &mut self,
        api: &mut Api,
        obj: &Object,
        key: &ObjKey,
        i: usize,
        ended: Termination,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
        due: &mut Vec<(usize, Due, Millis)>,
    ) {
        let Some(pod) = obj.as_pod() else { return };
        let Some(spec) = pod.spec.containers.get(i) else { return };
        let present = self.images.contains_key(&spec.image);
        let Some(c) = self.pods.get_mut(key).and_then(|rt| rt.containers.get_mut(i)) else { return };
        if BackoffEntry::active(c.crash_backoff.as_ref(), ended.finished, now) {
            let delay = c.crash_backoff.map_or(BACKOFF_INITIAL, |e| e.delay);
            let (name, ns, uid) = (&pod.metadata.name, &pod.metadata.namespace, &pod.metadata.uid);
            let message = format!(
                "back-off {} restarting failed container={} pod={name}_{ns}({uid})",
                crate::time::go_duration_string(delay),
                spec.name
            );
            c.run = Run::Waiting { reason: "CrashLoopBackOff", message };
            c.last = Some(ended.clone());
            let at = ended.finished.saturating_add(delay);
            c.sync_at = Some(at);
            due.push((i, Due::Sync, at));
            let msg = format!("Back-off restarting failed container {} in pod {name}_{ns}({uid})", spec.name);
            self.recorder.event(api, obj, EventKind::Warning, "BackOff", &msg);
            self.write_status(api, key, now);
            return;
        }
        BackoffEntry::next(&mut c.crash_backoff, ended.finished, now);
        c.last = Some(ended);
        c.restarts = c.restarts.saturating_add(1);
        if present && &*spec.image_pull_policy != "Always" {
            let msg = format!("Container image \"{}\" already present on machine", spec.image);
            self.recorder.event(api, obj, EventKind::Normal, "Pulled", &msg);
            self.start_container(api, obj, key, i, behaviours, now, due);
            self.write_status(api, key, now);
        } else {
            let msg = format!("Pulling image \"{}\"", spec.image);
            self.recorder.event(api, obj, EventKind::Normal, "Pulling", &msg);
            let took = api.rng.range(runtime.image_pull.0, runtime.image_pull.1);
            c.run = Run::Waiting { reason: "ContainerCreating", message: String::new() };
            c.pull_took = took;
            c.start_at = Some(now + took);
            due.push((i, Due::Start, now + took));
            self.write_status(api, key, now);
        }
    }

    /// A container's image pull failed: `ErrImagePull`, and the pull back-off advances.
    pub(super) fn pull_failed(
        &mut self,
        api: &mut Api,
        obj: &Object,
        key: &ObjKey,
        i: usize,
        now: Millis,
        due: &mut Vec<(usize, Due, Millis)>,
    ) {
        let Some(c) = self.pods.get_mut(key).and_then(|rt| rt.containers.get_mut(i)) else { return };
        let err = containers::pull_error(&c.image);
        let msg = format!("Failed to pull image \"{}\": {err}", c.image);
        c.run = Run::Waiting { reason: "ErrImagePull", message: err };
        BackoffEntry::next(&mut c.pull_backoff, now, now);
        c.sync_at = Some(now + PLEG_RELIST_PERIOD);
        due.push((i, Due::Sync, now + PLEG_RELIST_PERIOD));
        self.recorder.event(api, obj, EventKind::Warning, "Failed", &msg);
        self.recorder.event(api, obj, EventKind::Warning, "Failed", "Error: ErrImagePull");
    }

    /// A container's process ended (it exited, or the kubelet killed it): restarted after the next relist if
    /// its pod's restart policy says so.
    pub(super) fn exit_container(
        &mut self,
        key: &ObjKey,
        i: usize,
        exit_code: i32,
        policy: &str,
        now: Millis,
        due: &mut Vec<(usize, Due, Millis)>,
    ) {
        let Some(c) = self.pods.get_mut(key).and_then(|rt| rt.containers.get_mut(i)) else { return };
        let Some(since) = c.running_since() else { return };
        let reason = if exit_code == 0 { "Completed" } else { "Error" };
        c.run = Run::Exited(Termination { exit_code, reason, started: since, finished: now });
        c.ready = false;
        c.started = false;
        c.probes = [ProbeRun::default(); 3];
        c.exit_at = None;
        let restart = match policy {
            "Never" => false,
            "OnFailure" => exit_code != 0,
            _ => true,
        };
        if restart {
            let at = now + PLEG_RELIST_PERIOD;
            c.sync_at = Some(at);
            due.push((i, Due::Sync, at));
        }
    }
}

/// A pod being deleted: the kubelet stops its containers (pkg/kubelet/kuberuntime `killContainersWithSyncResult`,
/// every container at once): each running one gets its preStop hook, SIGTERM, and SIGKILL at the end of its grace
/// period ([`StopPlan`]); what is not running stops at once. When every container has stopped, the pod's status
/// is terminal and the kubelet confirms the delete ([`Kubelet::finish_stop`]).
impl Kubelet {
    pub(super) fn begin_stop(
        &mut self,
        api: &mut Api,
        obj: &Object,
        key: &ObjKey,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let Some(pod) = obj.as_pod() else { return Vec::new() };
        // The grace period the API server set: the delete's, else the pod's terminationGracePeriodSeconds.
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(30);
        let behaviours: Vec<Behaviour> =
            (0..pod.spec.containers.len()).map(|i| self.behaviour(key, i, behaviours)).collect();
        let Some(rt) = self.pods.get_mut(key) else { return Vec::new() };
        rt.stage = Stage::Stopping;
        let mut due = Vec::new();
        let mut killing = Vec::new();
        for (i, (c, spec)) in rt.containers.iter_mut().zip(pod.spec.containers.iter()).enumerate() {
            // Nothing of it runs any more: no probe, restart, pull or exit of its own but the one planned here.
            c.probes = [ProbeRun::default(); 3];
            (c.sync_at, c.start_at) = (None, None);
            if c.running_since().is_none() {
                c.exit_at = None;
                continue;
            }
            let b = &behaviours[i];
            let hook = spec.lifecycle.as_ref().and_then(|l| l.pre_stop.as_ref()).map(|h| match &h.sleep {
                Some(_) => h.takes(),
                None => b.pre_stop_takes.unwrap_or_else(|| h.takes()),
            });
            let exit_after = match b.on_sigterm {
                None => Some(api.rng.range(runtime.container_stop.0, runtime.container_stop.1)),
                Some(Sigterm::ExitAfter(d)) => Some(d),
                Some(Sigterm::Ignore) => None,
            };
            let plan = StopPlan::new(now, grace, hook, exit_after);
            // Its own exit, if it comes first, ends it as well.
            c.exit_at = c.exit_at.filter(|at| *at < plan.exit_at);
            if let Some(at) = c.exit_at {
                due.push((i, Due::Exit, at));
            }
            c.stop = Some(Box::new(plan));
            due.push((i, Due::Stop, plan.exit_at));
            killing.push(format!("Stopping container {}", spec.name));
        }
        for msg in &killing {
            self.recorder.event(api, obj, EventKind::Normal, "Killing", msg);
        }
        if due.is_empty() {
            // Nothing was running (still pulling, or backing off): the status is terminal at once, and the
            // sandbox goes after the runtime's stop time.
            self.write_status(api, key, now);
            let stop = api.rng.range(runtime.container_stop.0, runtime.container_stop.1);
            return vec![(stop, key.clone(), pod.metadata.uid.clone(), PodStep::Stopped)];
        }
        self.timers(key, now, due)
    }

    /// A container of a pod being deleted ended: at its plan's SIGTERM exit or SIGKILL, or by its own exit first.
    /// The status says so; when it was the last one, the delete is confirmed [`TERMINATED_POD_CLEANUP`] later.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn container_stopped(
        &mut self,
        api: &mut Api,
        key: &ObjKey,
        uid: &Str,
        i: usize,
        what: Due,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let own_code = self.behaviour(key, i, behaviours).own_exit_code();
        let Some(rt) = self.pods.get_mut(key) else { return Vec::new() };
        let Some(c) = rt.containers.get_mut(i) else { return Vec::new() };
        let Some(since) = c.running_since() else { return Vec::new() };
        let code = match (what, c.stop.as_deref()) {
            (Due::Stop, Some(p)) if p.exit_at == now => p.exit_code,
            (Due::Exit, _) if c.exit_at == Some(now) => own_code,
            _ => return Vec::new(),
        };
        let reason = if code == 0 { "Completed" } else { "Error" };
        c.run = Run::Exited(Termination { exit_code: code, reason, started: since, finished: now });
        (c.ready, c.started, c.exit_at, c.stop) = (false, false, None, None);
        let done = rt.containers.iter().all(|c| c.running_since().is_none());
        // The last one: the status is terminal (Failed, or Succeeded when every container exited 0).
        self.write_status(api, key, now);
        if done {
            return vec![(TERMINATED_POD_CLEANUP, key.clone(), uid.clone(), PodStep::Stopped)];
        }
        Vec::new()
    }

    /// A pod being deleted whose containers have all stopped, and whose volumes and sandbox are gone: the
    /// kubelet's status manager confirms the delete (grace 0, the pod's UID as precondition), which removes it.
    pub(super) fn finish_stop(&mut self, api: &mut Api, key: &ObjKey, uid: &Str) {
        let opts =
            DeleteOptions { grace_period_seconds: Some(0), preconditions_uid: Some(uid.clone()), ..Default::default() };
        let _ = api.delete(Kind::Pod, key, &opts);
    }
}

/// The `Pulled` event of a pull that took `ms` (pkg/kubelet/images/image_manager.go, 1.34): the pull time, the time
/// including waiting for the puller (the same here: pulls do not queue), and the image's size.
pub(super) fn pulled_message(image: &str, ms: Millis) -> String {
    let took = crate::time::go_duration_string(ms);
    format!(
        "Successfully pulled image \"{image}\" in {took} ({took} including waiting). Image size: {} bytes.",
        image_size_bytes(image)
    )
}

/// Schedules the probe ticks of a running container that can change something now: the startup probe until it
/// passes, readiness while the container is not ready or its check fails (at once when it has not been probed
/// yet: the status manager's manual trigger), liveness while its check fails. A tick already pending stays.
pub(super) fn arm_probes(
    c: &mut ContainerRun,
    spec: &crate::api::Container,
    admitted: Millis,
    b: &Behaviour,
    now: Millis,
    i: usize,
    due: &mut Vec<(usize, Due, Millis)>,
) {
    let Some(since) = c.running_since() else { return };
    for t in ProbeType::ALL {
        let Some(p) = spec.probe(t) else { continue };
        let slot = containers::probe_index(t);
        let run = c.probes[slot];
        if run.next.is_some() || run.hold {
            continue;
        }
        let wanted = match t {
            ProbeType::Startup => !c.started,
            ProbeType::Readiness => c.started && (!c.ready || b.readiness_fails),
            ProbeType::Liveness => c.started && b.liveness_fails,
        };
        if !wanted {
            continue;
        }
        let earliest = since.saturating_add(containers::initial_delay(p)).max(now);
        let fresh = run.successes == 0 && run.failures == 0;
        let at = if t == ProbeType::Readiness && fresh && earliest == now {
            now
        } else {
            containers::next_tick(admitted, containers::period(p), earliest)
        };
        c.probes[slot].next = Some(at);
        due.push((i, Due::Probe(t), at));
    }
}
