//! Faults the API server can be told to inject: all drawn from the store's seeded generator, so a run with faults
//! replays exactly. The user's own client (`kubectl`, the page) is never faulted: the faults are about how the
//! control plane's components cope. Watch-side faults (dropped events, cut watches) live with the informers and
//! the simulation (`Sim::set_watch_drop`, `Sim::disconnect_watch`, `Sim::force_relist`); process and node faults
//! are `Sim::crash_host` and `Sim::kill_node`.

use crate::time::Millis;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// The fraction (0..=1) of updates that fail with 409 Conflict as if another writer got there first.
    pub conflict_fraction: f64,
    /// Extra latency added to every API request of a component (ms).
    pub api_latency: Millis,
    /// Pod creates are refused with 403 "exceeded quota", as if a ResourceQuota were used up.
    pub reject_pod_creates: bool,
}

/// The name of the user's client, which faults leave alone.
pub const EXEMPT_CLIENT: &str = "kubectl";
