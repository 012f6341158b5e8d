//! Leader election (client-go tools/leaderelection) with a Lease lock: replicas of a component race to hold the
//! Lease `kube-system/<component>`; only the holder runs its controllers. The leader renews every retry period
//! (2 s) and gives up if it cannot renew within the renew deadline (10 s); a candidate takes the lease over once
//! it has seen the same record for a whole lease duration (15 s) by its own clock. Every acquisition bumps
//! `leaseTransitions` and is recorded as a `LeaderElection` Event ("... became leader").

use crate::api::{s, Kind, Lease, ObjKey, Object, ObjectMeta, Str, Time};
use crate::client::Api;
use crate::store::ApiError;
use crate::time::{Millis, SECOND};

/// `--leader-elect-*` flags; defaults are kube-controller-manager's.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderElectionConfig {
    pub(crate) lease_duration: Millis,
    pub(crate) renew_deadline: Millis,
    pub(crate) retry_period: Millis,
}

impl Default for LeaderElectionConfig {
    fn default() -> Self {
        LeaderElectionConfig { lease_duration: 15 * SECOND, renew_deadline: 10 * SECOND, retry_period: 2 * SECOND }
    }
}

/// What one attempt changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    None,
    /// `OnStartedLeading`
    StartedLeading,
    /// `OnStoppedLeading`: the renew deadline passed without a successful renewal.
    StoppedLeading,
}

/// One replica's elector.
#[derive(Clone, Debug)]
pub struct LeaderElector {
    pub identity: Str,
    pub(crate) lock: ObjKey,
    pub(crate) config: LeaderElectionConfig,
    pub leading: bool,
    /// The holder, renewTime and transitions last seen, and when (our clock) they were first seen.
    observed: Option<(Str, Option<Time>, i32)>,
    observed_at: Millis,
    /// The last successful acquire or renew.
    last_renew: Millis,
}

impl LeaderElector {
    pub(crate) fn new(component: &str, identity: &str, config: LeaderElectionConfig) -> Self {
        LeaderElector {
            identity: s(identity),
            lock: ObjKey::new("kube-system", component),
            config,
            leading: false,
            observed: None,
            observed_at: 0,
            last_renew: 0,
        }
    }

    /// The process died: it forgets everything (the Lease stays until it expires).
    pub(crate) fn reset(&mut self) {
        self.leading = false;
        self.observed = None;
        self.observed_at = 0;
        self.last_renew = 0;
    }

    /// One `tryAcquireOrRenew`, and for a leader the renew-deadline check. Returns whether leadership changed.
    pub(crate) fn tick(&mut self, api: &mut Api, now: Millis) -> Transition {
        let ok = self.try_acquire_or_renew(api, now);
        if ok {
            self.last_renew = now;
            if !self.leading {
                self.leading = true;
                return Transition::StartedLeading;
            }
        } else if self.leading && now >= self.last_renew + self.config.renew_deadline {
            self.leading = false;
            return Transition::StoppedLeading;
        }
        Transition::None
    }

    fn try_acquire_or_renew(&mut self, api: &mut Api, now: Millis) -> bool {
        let current = match api.get(Kind::Lease, &self.lock) {
            Ok(o) => o,
            Err(ApiError::NotFound { .. }) => {
                let mut lease =
                    Lease { metadata: ObjectMeta::named(&self.lock.namespace, &self.lock.name), ..Default::default() };
                self.fill(&mut lease, now, None);
                return match api.create(Object::Lease(lease)) {
                    Ok(o) => {
                        self.observe(&o, now);
                        true
                    }
                    Err(_) => false,
                };
            }
            Err(_) => return false,
        };
        let Some(lease) = current.as_lease() else { return false };
        let record =
            (lease.spec.holder_identity.clone(), lease.spec.renew_time, lease.spec.lease_transitions.unwrap_or(0));
        if self.observed.as_ref() != Some(&record) {
            self.observed = Some(record.clone());
            self.observed_at = now;
        }
        let held_by_other = !record.0.is_empty() && record.0 != self.identity;
        if held_by_other && now < self.observed_at + self.config.lease_duration {
            return false;
        }
        let mut next = lease.clone();
        let previous = if record.0 == self.identity { Some(lease) } else { None };
        self.fill(&mut next, now, previous);
        match api.update(Object::Lease(next)) {
            Ok(o) => {
                self.observe(&o, now);
                true
            }
            Err(_) => false,
        }
    }

    /// The record this replica writes: itself as holder, renewed now; a new acquisition bumps the transitions.
    fn fill(&self, lease: &mut Lease, now: Millis, own: Option<&Lease>) {
        let spec = &mut lease.spec;
        match own {
            Some(prev) => {
                spec.acquire_time = prev.spec.acquire_time;
                spec.lease_transitions = prev.spec.lease_transitions;
            }
            None => {
                let had_holder = !spec.holder_identity.is_empty();
                spec.acquire_time = Some(Time(now));
                spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + i32::from(had_holder));
            }
        }
        spec.holder_identity = self.identity.clone();
        spec.lease_duration_seconds = Some((self.config.lease_duration / SECOND) as i32);
        spec.renew_time = Some(Time(now));
    }

    fn observe(&mut self, o: &Object, now: Millis) {
        if let Some(l) = o.as_lease() {
            self.observed =
                Some((l.spec.holder_identity.clone(), l.spec.renew_time, l.spec.lease_transitions.unwrap_or(0)));
            self.observed_at = now;
        }
    }
}
