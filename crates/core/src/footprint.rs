//! The engine's footprint: what it holds right now, counted in entries, by structure. Every figure here must stay
//! flat over a long run of a steady cluster (the soak tests assert it); a figure that grows with simulated time is
//! a leak. An uncounted observation, like drift: reading it changes nothing.

use crate::informer::ReflectorState;
use crate::sim::Sim;

/// Entries held by each structure of the engine.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Footprint {
    /// Objects in the API store.
    pub objects: usize,
    /// Versions the watch cache keeps (bounded by its window and capacity per kind).
    pub history: usize,
    /// Versions kept past the window (as of each kind's last write) beyond the minimum a kind keeps: always 0.
    /// A check, not entries: not in the total.
    pub history_beyond_window: usize,
    /// The watch cache's capacity over every kind.
    pub history_capacity: usize,
    /// Watches the API server has open.
    pub open_watches: usize,
    /// Informers whose reflector holds a watch: every open watch but a person's (`kubectl get -w`) is one of these.
    pub watching_informers: usize,
    /// Events committed but not yet delivered, over all open watches.
    pub buffered_events: usize,
    /// Objects in informer caches.
    pub cached_objects: usize,
    /// Timers in the event heap (live, or stale and not yet compacted away).
    pub timers: usize,
    /// Controller entries: queued, processing, delayed and rate-limited keys, in-memory state.
    pub controller_entries: usize,
    /// Kubelet entries: pods.
    pub kubelet_entries: usize,
    /// Images on the nodes (image garbage collection keeps each node under its bound).
    pub images: usize,
    /// Nodes with a kubelet.
    pub kubelets: usize,
    /// Event correlator caches of every recorder (client-go's aggregator, logger and spam filter: an LRU of 4,096
    /// entries each, per recorder).
    pub recorder_entries: usize,
    /// Recorders (one per controller, process and kubelet): `recorder_entries` stays under 3 x 4,096 times this.
    pub recorders: usize,
    /// Pending Event expirations.
    pub event_expirations: usize,
    /// The observers' logs: Kubernetes Events and reconciles kept for the event stream (bounded rings).
    pub event_log: usize,
    pub reconcile_log: usize,
    /// Registered API clients (one per component; grows only with nodes added).
    pub clients: usize,
}

impl Footprint {
    /// Every entry, over all structures.
    pub fn total(&self) -> usize {
        self.objects
            + self.history
            + self.open_watches
            + self.buffered_events
            + self.cached_objects
            + self.timers
            + self.controller_entries
            + self.kubelet_entries
            + self.images
            + self.recorder_entries
            + self.event_expirations
            + self.event_log
            + self.reconcile_log
            + self.clients
    }

    /// Measures `sim` (uncounted: no API call, no random draw).
    pub fn of(sim: &Sim) -> Footprint {
        let store = &sim.store;
        Footprint {
            objects: crate::api::Kind::ALL.iter().map(|k| store.count_of(*k)).sum(),
            history: store.history_len(),
            history_beyond_window: store.history_beyond_window(),
            history_capacity: store.history_capacity(),
            open_watches: store.open_watchers(),
            watching_informers: sim
                .informers
                .iter()
                .filter(|i| matches!(i.state(), ReflectorState::Watching(_)))
                .count(),
            buffered_events: store.buffered_watch_events(),
            cached_objects: sim.informers.iter().map(|i| i.cache.len()).sum(),
            timers: sim.pending_timers(),
            controller_entries: sim
                .hosts
                .iter()
                .map(|h| h.controllers.iter().map(|c| c.footprint()).sum::<usize>())
                .sum(),
            kubelet_entries: sim.kubelets.iter().map(|k| k.footprint()).sum(),
            images: sim.kubelets.iter().map(|k| k.image_count()).sum(),
            kubelets: sim.kubelets.len(),
            recorder_entries: sim
                .hosts
                .iter()
                .map(|h| h.recorder.len() + h.controllers.iter().map(|c| c.recorder.len()).sum::<usize>())
                .sum::<usize>()
                + sim.kubelets.iter().map(|k| k.recorder.len()).sum::<usize>(),
            recorders: sim.hosts.iter().map(|h| 1 + h.controllers.len()).sum::<usize>() + sim.kubelets.len(),
            event_expirations: store.expiry_len(),
            event_log: store.event_log().1.len(),
            reconcile_log: sim.log.records.len(),
            clients: store.clients().len(),
        }
    }
}
