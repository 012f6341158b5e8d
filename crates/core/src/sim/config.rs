//! The simulation's configuration: everything that can be tuned, upstream's defaults, and the timing profiles.

use super::*;

/// Everything that can be tuned; defaults are upstream's.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub seed: u64,
    pub store: StoreConfig,
    /// `--concurrent-deployment-syncs`, `--concurrent-replicaset-syncs` (5 each).
    pub deployment_workers: usize,
    pub replicaset_workers: usize,
    /// Resync period of the controller manager's informers. `None`: upstream's, a seeded value in [12 h, 24 h)
    /// (`--min-resync-period` 12 h, jittered x1..2). `Some(0)`: off.
    pub resync_period: Option<Millis>,
    /// CPU time of one reconcile on top of its API round trips.
    pub reconcile_cost: Millis,
    pub runtime: RuntimeConfig,
    /// Shape of nodes added without one.
    pub node_template: NodeConfig,
    /// The node lifecycle controller's flags (grace periods, eviction rates).
    pub node_lifecycle: NodeLifecycleConfig,
    /// The controller manager replicas' leader election.
    pub leader_election: LeaderElectionConfig,
    /// kubeloop's own repair knob, not upstream's: every informer relists this often (0, the default = never on
    /// a timer, as client-go's reflector: it LISTs once, re-WATCHes when the server ends a watch, and LISTs again
    /// only after an error such as 410 Gone). A real watch loses nothing, so upstream needs no such period; here
    /// a fault can drop watch events, and a periodic relist is one way to let a level-triggered controller see
    /// the truth again.
    pub relist_period: Millis,
    /// How controllers observe the store.
    pub observe: ObserveMode,
}

/// How controllers observe the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "mode")]
pub enum ObserveMode {
    /// Shared informers: one LIST, then a WATCH of changes into a cache (upstream).
    #[default]
    Informer,
    /// Naive polling: every controller LISTs every object of its kinds every `period` and diffs with what it saw
    /// last time. No watch.
    Polling { period: Millis },
}

/// The timings of node failure handling: upstream's, or a shorter explicit demo choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimingProfile {
    /// node-monitor-grace-period 50 s, eviction 300 s after the taint (upstream defaults).
    #[default]
    Real,
    /// A dead node is noticed after 20 s and its pods evicted 30 s after the taint.
    FastDemo,
}

impl TimingProfile {
    pub fn as_str(self) -> &'static str {
        match self {
            TimingProfile::Real => "real",
            TimingProfile::FastDemo => "fast-demo",
        }
    }

    /// The profile [`TimingProfile::as_str`] names.
    pub fn parse(name: &str) -> Option<TimingProfile> {
        [TimingProfile::Real, TimingProfile::FastDemo].into_iter().find(|p| p.as_str() == name.trim())
    }

    /// The configuration with this profile's node lifecycle and toleration timings.
    pub fn apply(self, mut config: SimConfig) -> SimConfig {
        match self {
            TimingProfile::Real => {
                config.node_lifecycle = NodeLifecycleConfig::default();
                config.store.default_toleration_seconds = crate::admission::DEFAULT_TOLERATION_SECONDS;
            }
            TimingProfile::FastDemo => {
                config.node_lifecycle = NodeLifecycleConfig::fast_demo();
                config.store.default_toleration_seconds = FAST_DEMO_TOLERATION_SECONDS;
            }
        }
        config
    }
}

/// The fast demo's DefaultTolerationSeconds.
pub const FAST_DEMO_TOLERATION_SECONDS: i64 = 30;

/// The default polling period of [`ObserveMode::Polling`].
pub const DEFAULT_POLL_PERIOD: Millis = 5 * crate::time::SECOND;
/// The default relist period: none (upstream's reflector relists only after an error).
pub const DEFAULT_RELIST_PERIOD: Millis = 0;
/// A period for kubeloop's relist repair knob when it is switched on (the lessons' and the page's suggestion).
pub const REPAIR_RELIST_PERIOD: Millis = 5 * crate::time::MINUTE;
pub use crate::informer::{BOOKMARK_FREQUENCY, MIN_WATCH_TIMEOUT};

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            store: StoreConfig::default(),
            deployment_workers: 5,
            replicaset_workers: 5,
            resync_period: None,
            reconcile_cost: 1,
            runtime: RuntimeConfig::default(),
            node_template: NodeConfig::default(),
            node_lifecycle: NodeLifecycleConfig::default(),
            leader_election: LeaderElectionConfig::default(),
            relist_period: DEFAULT_RELIST_PERIOD,
            observe: ObserveMode::Informer,
        }
    }
}
