//! The containers of the pods a kubelet runs: their state (waiting, running, exited), their probes, their restarts
//! with upstream's back-off, and the pod status the kubelet derives from them.
//!
//! - Probes follow pkg/kubelet/prober's workers: a worker per probe ticks every `periodSeconds` from when the pod
//!   was admitted; a tick earlier than `initialDelaySeconds` after the container started counts for nothing;
//!   `failureThreshold` failures in a row (or `successThreshold` successes) change the result. Readiness starts
//!   failed and is probed at once when the container starts (the status manager's manual trigger); liveness starts
//!   successful; liveness and readiness wait for the startup probe. A failing liveness or startup probe kills the
//!   container (`Killing`: `Container app failed liveness probe, will be restarted`).
//! - Whether a check passes, and whether and when a process exits, is the simulated application's
//!   [`crate::behaviour`] (kubeloop's own input). A tick that cannot change anything (a healthy container whose
//!   result is settled) is not scheduled, which changes nothing but the work done.
//! - Restarts follow the container's restart policy through the kubelet's back-off (client-go's
//!   `flowcontrol.Backoff`, 10 s doubling to `MaxContainerBackOff` 5 min, forgotten after 10 min without a
//!   restart): the first restart is at once, later ones wait in `CrashLoopBackOff`. Image pulls that fail back off
//!   the same way (`ErrImagePull`, then `ImagePullBackOff`).
//! - The kubelet notices an exit at its next PLEG relist (1 s).

use crate::api::{
    s, ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting, ContainerStatus, Pod,
    PodPhase, PodStatus, Probe, ProbeType, Str, Time,
};
use crate::behaviour::Behaviour;
use crate::store::set_pod_condition;
use crate::time::{Millis, MINUTE, SECOND};

/// The generic PLEG's relist period: how soon the kubelet notices a container exit.
pub const PLEG_RELIST_PERIOD: Millis = SECOND;
/// The kubelet's `backOffPeriod`: the first back-off of a crashing container or a failing image pull.
pub const BACKOFF_INITIAL: Millis = 10 * SECOND;
/// `MaxContainerBackOff` (and the image pull back-off's maximum).
pub const BACKOFF_MAX: Millis = 5 * MINUTE;
/// The exit code of a simulated process stopped by the kubelet (it exits on SIGTERM; kubeloop's own choice).
pub const SIGTERM_EXIT_CODE: i32 = 143;
/// The exit code of a process the kubelet's SIGKILL ends at the end of its grace period (128 + 9).
pub const SIGKILL_EXIT_CODE: i32 = 137;
/// `minimumGracePeriodInSeconds`: what a container is always given between SIGTERM and SIGKILL, even when its
/// preStop hook used up the grace period.
pub const MINIMUM_GRACE_PERIOD_SECONDS: i64 = 2;

/// How the kubelet stops a running container of a pod being deleted (pkg/kubelet/kuberuntime `killContainer`):
/// the preStop hook runs first, within the grace period; then SIGTERM; then SIGKILL when what is left of the
/// grace period (at least [`MINIMUM_GRACE_PERIOD_SECONDS`]) has passed. All of it is known when it begins: the
/// simulated process's answer to SIGTERM is its behaviour's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StopPlan {
    /// When the kubelet began to stop it, and the grace period it was given (seconds).
    pub begun: Millis,
    pub grace_seconds: i64,
    /// Whether it has a preStop hook, which runs from `begun` to `sigterm_at`.
    pub pre_stop: bool,
    /// When SIGTERM is sent, and when SIGKILL is due.
    pub sigterm_at: Millis,
    pub kill_at: Millis,
    /// When the process ends, and its exit code ([`SIGTERM_EXIT_CODE`], or [`SIGKILL_EXIT_CODE`] at `kill_at`).
    pub exit_at: Millis,
    pub exit_code: i32,
}

impl StopPlan {
    /// The plan for a process that exits `exit_after` after SIGTERM (`None`: it ignores it), with a preStop hook
    /// that takes `hook` (`None`: no hook), given `grace_seconds` from `now`.
    pub(crate) fn new(now: Millis, grace_seconds: i64, hook: Option<Millis>, exit_after: Option<Millis>) -> StopPlan {
        let grace_seconds = grace_seconds.max(0);
        let grace = crate::time::seconds(grace_seconds);
        // executePreStopHook: the hook runs at most the grace period, and what it took (whole seconds) is spent.
        let ran = hook.filter(|_| grace_seconds > 0).map_or(0, |h| h.min(grace));
        let left = (grace_seconds - (ran / SECOND) as i64).max(MINIMUM_GRACE_PERIOD_SECONDS);
        let sigterm_at = now.saturating_add(ran);
        let kill_at = sigterm_at.saturating_add(crate::time::seconds(left));
        let (exit_at, exit_code) = match exit_after {
            Some(d) if sigterm_at.saturating_add(d) < kill_at => (sigterm_at.saturating_add(d), SIGTERM_EXIT_CODE),
            _ => (kill_at, SIGKILL_EXIT_CODE),
        };
        StopPlan { begun: now, grace_seconds, pre_stop: hook.is_some(), sigterm_at, kill_at, exit_at, exit_code }
    }

    /// The plan when the pod's grace period is shortened to `grace_seconds` (a second delete): the pod worker
    /// kills again with the shorter period, from now, and SIGKILL comes then if that is sooner.
    pub(crate) fn shortened(mut self, grace_seconds: i64, now: Millis) -> StopPlan {
        let by = now.saturating_add(crate::time::seconds(grace_seconds.max(0)));
        if by < self.kill_at {
            self.grace_seconds = grace_seconds;
            self.kill_at = by;
            self.sigterm_at = self.sigterm_at.min(by);
            if self.exit_at >= by {
                (self.exit_at, self.exit_code) = (by, SIGKILL_EXIT_CODE);
            }
        }
        self
    }
}

/// The kubelet's container restart and image pull back-off: 10 s doubling to 5 min, without jitter.
const CONTAINER_BACKOFF: crate::backoff::Backoff = crate::backoff::Backoff::doubling(BACKOFF_INITIAL, BACKOFF_MAX);

/// One item of `flowcontrol.Backoff`: the current delay and when it was last advanced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffEntry {
    pub(crate) delay: Millis,
    pub(crate) last_update: Millis,
}

impl BackoffEntry {
    /// `hasExpired`: stable for twice the maximum since the last update.
    fn expired(&self, event: Millis) -> bool {
        event.saturating_sub(self.last_update) > 2 * BACKOFF_MAX
    }

    /// `IsInBackOffSince(id, event)`: less than the delay has passed since `event`.
    pub(crate) fn active(entry: Option<&BackoffEntry>, event: Millis, now: Millis) -> bool {
        entry.is_some_and(|e| !e.expired(event) && now.saturating_sub(event) < e.delay)
    }

    /// `Next(id, event)`: the initial delay for a new or expired item, else double it (up to the maximum).
    pub(crate) fn next(entry: &mut Option<BackoffEntry>, event: Millis, now: Millis) {
        *entry = Some(match *entry {
            Some(e) if !e.expired(event) => BackoffEntry { delay: CONTAINER_BACKOFF.after(e.delay), last_update: now },
            _ => BackoffEntry { delay: CONTAINER_BACKOFF.initial, last_update: now },
        });
    }
}

/// How a container ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Termination {
    pub(crate) exit_code: i32,
    pub(crate) reason: &'static str,
    pub(crate) started: Millis,
    pub(crate) finished: Millis,
}

impl Termination {
    fn state(&self) -> ContainerState {
        ContainerState {
            terminated: Some(ContainerStateTerminated {
                exit_code: self.exit_code,
                reason: s(self.reason),
                started_at: Some(Time(self.started)),
                finished_at: Some(Time(self.finished)),
            }),
            ..Default::default()
        }
    }
}

/// What a container is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    Waiting { reason: &'static str, message: String },
    Running { since: Millis },
    Exited(Termination),
}

/// One probe worker's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeRun {
    /// Results in a row of the last kind.
    pub(crate) successes: i32,
    pub(crate) failures: i32,
    /// The tick scheduled next, if any.
    pub(crate) next: Option<Millis>,
    /// A liveness or startup failure killed the container: no more probing until it runs again.
    pub(crate) hold: bool,
}

/// A container of a pod the kubelet runs.
#[derive(Clone, Debug)]
pub struct ContainerRun {
    pub(crate) name: Str,
    pub(crate) image: Str,
    pub(crate) run: Run,
    pub(crate) restarts: i32,
    /// The previous run's end (`lastState`).
    pub(crate) last: Option<Termination>,
    /// The startup probe passed (or there is none).
    pub(crate) started: bool,
    pub(crate) ready: bool,
    pub(crate) crash_backoff: Option<BackoffEntry>,
    pub(crate) pull_backoff: Option<BackoffEntry>,
    /// Indexed by [`probe_index`].
    pub(crate) probes: [ProbeRun; 3],
    /// When the running process exits by itself.
    pub(crate) exit_at: Option<Millis>,
    /// When the kubelet next looks at a stopped container (restart, back-off, pull retry).
    pub(crate) sync_at: Option<Millis>,
    /// When a pull in flight ends and the container starts, and how long it took.
    pub(crate) start_at: Option<Millis>,
    pub(crate) pull_took: Millis,
    /// This pod's own behaviour for the container (kubeloop's own input), over the image's.
    pub(crate) behaviour: Option<Box<Behaviour>>,
    /// How it is being stopped, once its pod is being deleted (boxed: a container carries it only then).
    pub(crate) stop: Option<Box<StopPlan>>,
}

pub(crate) fn probe_index(t: ProbeType) -> usize {
    match t {
        ProbeType::Startup => 0,
        ProbeType::Liveness => 1,
        ProbeType::Readiness => 2,
    }
}

impl ContainerRun {
    pub(crate) fn new(name: Str, image: Str) -> Self {
        ContainerRun {
            name,
            image,
            run: Run::Waiting { reason: "ContainerCreating", message: String::new() },
            restarts: 0,
            last: None,
            started: false,
            ready: false,
            crash_backoff: None,
            pull_backoff: None,
            probes: [ProbeRun::default(); 3],
            exit_at: None,
            sync_at: None,
            start_at: None,
            pull_took: 0,
            behaviour: None,
            stop: None,
        }
    }

    pub(crate) fn running_since(&self) -> Option<Millis> {
        match self.run {
            Run::Running { since } => Some(since),
            _ => None,
        }
    }

    /// Every pending timer of the container, with what it is for.
    pub(crate) fn due(&self) -> Vec<(Millis, Due)> {
        let mut v = Vec::new();
        for t in ProbeType::ALL {
            if let Some(at) = self.probes[probe_index(t)].next {
                v.push((at, Due::Probe(t)));
            }
        }
        if let Some(at) = self.exit_at {
            v.push((at, Due::Exit));
        }
        if let Some(at) = self.sync_at {
            v.push((at, Due::Sync));
        }
        if let Some(at) = self.start_at {
            v.push((at, Due::Start));
        }
        if let Some(p) = self.stop.as_deref() {
            v.push((p.exit_at, Due::Stop));
        }
        v
    }

    /// Moves a pending timer.
    pub(crate) fn set_due(&mut self, d: Due, at: Millis) {
        match d {
            Due::Probe(t) => self.probes[probe_index(t)].next = Some(at),
            Due::Exit => self.exit_at = Some(at),
            Due::Sync => self.sync_at = Some(at),
            Due::Start => self.start_at = Some(at),
            Due::Stop => {
                if let Some(p) = &mut self.stop {
                    p.exit_at = at;
                }
            }
        }
    }

    /// The container's status as the kubelet reports it.
    pub(crate) fn status(&self, previous: Option<&ContainerStatus>) -> ContainerStatus {
        let state = match &self.run {
            Run::Waiting { reason, message } => ContainerState {
                waiting: Some(ContainerStateWaiting { reason: s(reason), message: s(message) }),
                ..Default::default()
            },
            Run::Running { since } => ContainerState {
                running: Some(ContainerStateRunning { started_at: Some(Time(*since)) }),
                ..Default::default()
            },
            Run::Exited(t) => t.state(),
        };
        let last_state = self.last.as_ref().map(Termination::state).unwrap_or_default();
        // Keep the shared image text of the previous status when it is the same.
        let image = previous.filter(|p| p.image == self.image).map_or_else(|| self.image.clone(), |p| p.image.clone());
        ContainerStatus {
            name: self.name.clone(),
            state,
            last_state,
            ready: self.ready,
            restart_count: self.restarts,
            image,
            started: Some(self.started && self.running_since().is_some()),
        }
    }
}

/// What a container timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Due {
    Probe(ProbeType),
    Exit,
    Sync,
    Start,
    /// The process ends as its [`StopPlan`] says.
    Stop,
}

/// The first tick of a probe worker that began at `origin`, ticking every `period`, at or after `not_before`.
pub(crate) fn next_tick(origin: Millis, period: Millis, not_before: Millis) -> Millis {
    let period = period.max(SECOND);
    if not_before <= origin {
        return origin;
    }
    let k = (not_before - origin).div_ceil(period);
    origin.saturating_add(k.saturating_mul(period))
}

/// The probe's period in milliseconds.
pub(crate) fn period(p: &Probe) -> Millis {
    crate::time::seconds(i64::from(p.period_seconds.max(1)))
}

/// The probe's initial delay in milliseconds.
pub(crate) fn initial_delay(p: &Probe) -> Millis {
    crate::time::seconds(i64::from(p.initial_delay_seconds.max(0)))
}

/// Whether a check of type `t` passes for a process behaving as `b` that has run since `since`, at `now`.
pub(crate) fn passes(t: ProbeType, b: &Behaviour, since: Millis, now: Millis) -> bool {
    match t {
        ProbeType::Readiness => !b.readiness_fails,
        ProbeType::Liveness => !b.liveness_fails,
        ProbeType::Startup => b.starts_after.is_none_or(|d| now.saturating_sub(since) >= d),
    }
}

/// The pod status the kubelet reports for containers in these states (`generateAPIPodStatus`): the phase
/// (`getPhase`; a pod being deleted whose containers have all stopped is terminal whatever its restart policy:
/// Succeeded when every one exited 0, else Failed), the Ready and ContainersReady conditions, and each
/// container's status.
pub fn apply_status(st: &mut PodStatus, policy: &str, containers: &[ContainerRun], terminating: bool, now: Millis) {
    let (mut waiting, mut running, mut stopped, mut succeeded) = (0, 0, 0, 0);
    for c in containers {
        match &c.run {
            Run::Running { .. } => running += 1,
            Run::Exited(t) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            Run::Waiting { .. } if c.last.is_some() => stopped += 1,
            Run::Waiting { .. } => waiting += 1,
        }
    }
    st.phase = if terminating && running == 0 {
        if waiting == 0 && stopped == succeeded {
            PodPhase::Succeeded
        } else {
            PodPhase::Failed
        }
    } else if waiting > 0 {
        PodPhase::Pending
    } else if running > 0 {
        PodPhase::Running
    } else if stopped > 0 {
        match policy {
            "Never" if stopped > succeeded => PodPhase::Failed,
            "Never" | "OnFailure" if stopped == succeeded => PodPhase::Succeeded,
            _ => PodPhase::Running,
        }
    } else {
        PodPhase::Pending
    };
    let unready: Vec<&str> = containers.iter().filter(|c| !c.ready).map(|c| &*c.name).collect();
    let terminal = st.phase.is_terminal();
    for cond in ["Ready", "ContainersReady"] {
        if terminal {
            let reason = if st.phase == PodPhase::Failed { "PodFailed" } else { "PodCompleted" };
            set_pod_condition(&mut st.conditions, cond, "False", reason, "", now);
        } else if unready.is_empty() {
            set_pod_condition(&mut st.conditions, cond, "True", "", "", now);
        } else {
            let msg = format!("containers with unready status: [{}]", unready.join(" "));
            set_pod_condition(&mut st.conditions, cond, "False", "ContainersNotReady", &msg, now);
        }
    }
    let ready_to_start = if terminal { "False" } else { "True" };
    set_pod_condition(&mut st.conditions, "PodReadyToStartContainers", ready_to_start, "", "", now);
    super::order_conditions(&mut st.conditions);
    let previous = std::mem::take(&mut st.container_statuses);
    st.container_statuses = containers.iter().map(|c| c.status(previous.iter().find(|p| p.name == c.name))).collect();
}

/// Whether the status in the store says something else than the kubelet's containers (it was lost or
/// overwritten): readiness, phase or a restart count.
pub(crate) fn drifted(pod: &Pod, containers: &[ContainerRun]) -> bool {
    let ready = containers.iter().all(|c| c.ready);
    pod.is_ready() != ready
        || pod.status.container_statuses.len() != containers.len()
        || pod
            .status
            .container_statuses
            .iter()
            .zip(containers)
            .any(|(s, c)| s.restart_count != c.restarts || s.ready != c.ready)
}

/// The reference a pull failure names (containerd's normalised form: `docker.io/library/nginx:latest`).
pub(crate) fn normalised_image(image: &str) -> String {
    let (name, tagged) = match image.rsplit_once('/') {
        Some((_, last)) => (image.to_string(), last.contains(':') || last.contains('@')),
        None => (image.to_string(), image.contains(':') || image.contains('@')),
    };
    let first = name.split('/').next().unwrap_or("");
    let has_domain = name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut out = if has_domain {
        name
    } else if name.contains('/') {
        format!("docker.io/{name}")
    } else {
        format!("docker.io/library/{name}")
    };
    if !tagged {
        out.push_str(":latest");
    }
    out
}

/// The runtime's error for an image that cannot be pulled (the simulated registry answers "not found").
pub(crate) fn pull_error(image: &str) -> String {
    let r = normalised_image(image);
    format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image \"{r}\": failed to resolve reference \"{r}\": {r}: not found"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_five_minutes_and_is_forgotten_after_ten() {
        let mut e = None;
        assert!(!BackoffEntry::active(e.as_ref(), 0, 0));
        BackoffEntry::next(&mut e, 0, 0);
        assert_eq!(e.map(|b| b.delay), Some(10 * SECOND));
        assert!(BackoffEntry::active(e.as_ref(), 5 * SECOND, 6 * SECOND));
        assert!(!BackoffEntry::active(e.as_ref(), 5 * SECOND, 15 * SECOND));
        let mut delays = Vec::new();
        for i in 1..8 {
            BackoffEntry::next(&mut e, i * SECOND, i * SECOND);
            delays.push(e.map(|b| b.delay / SECOND));
        }
        assert_eq!(delays, [20, 40, 80, 160, 300, 300, 300].map(Some));
        // Ten minutes and a bit after the last update: a fresh 10 s.
        BackoffEntry::next(&mut e, 7 * SECOND + 10 * MINUTE + 1, 7 * SECOND + 10 * MINUTE + 1);
        assert_eq!(e.map(|b| b.delay), Some(10 * SECOND));
    }

    #[test]
    fn ticks_follow_the_worker_grid() {
        assert_eq!(next_tick(1_000, 10_000, 500), 1_000);
        assert_eq!(next_tick(1_000, 10_000, 1_000), 1_000);
        assert_eq!(next_tick(1_000, 10_000, 1_001), 11_000);
        assert_eq!(next_tick(1_000, 10_000, 25_000), 31_000);
    }

    #[test]
    fn images_are_named_as_containerd_names_them() {
        assert_eq!(normalised_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(normalised_image("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(normalised_image("bitnami/redis:7"), "docker.io/bitnami/redis:7");
        assert_eq!(normalised_image("registry.k8s.io/pause:3.10"), "registry.k8s.io/pause:3.10");
        assert_eq!(normalised_image("localhost:5000/app"), "localhost:5000/app:latest");
    }
}
