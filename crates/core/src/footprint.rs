//! The engine's footprint: what it holds right now, counted in entries, by structure. Every figure here must stay
//! flat over a long run of a steady cluster (the soak tests assert it); a figure that grows with simulated time is
//! a leak. An uncounted observation, like drift: reading it changes nothing.

use crate::informer::{Cache, ReflectorState};
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
    /// The causes kept for "why?" (writes, reconciles, interventions, stopped kubelets: rings of a fixed capacity,
    /// [`crate::cause`]); not in the total, which a long run's filling rings would read as growth.
    pub causes: usize,
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
    pub(crate) fn of(sim: &Sim) -> Footprint {
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
            causes: store.causes.footprint(),
            clients: store.clients().len(),
        }
    }
}

/// Bytes the engine holds, by structure: what each frees when it is dropped, the structures dropped one after the
/// other (observers' logs, timers, recorders, each controller with its queue, informer caches by component,
/// kubelets, then the store: watches, Event log, watch cache history, field indexes, objects by kind, a pod's
/// status, spec and metadata before the rest of its object; the simulation's remains last). A version shared by
/// several structures (store, watch history, caches share one `Rc<Object>`) counts with the last of them dropped:
/// each figure is what that structure costs beyond those after it, and the parts sum to every byte the simulation
/// held. Measured by taking the simulation apart, so only at the end of a run (`kubeloop bench --memory`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes {
    /// Each structure and the bytes dropping it freed, in the order dropped (a structure met twice, like a
    /// controller of both controller managers, once, summed).
    pub parts: Vec<(String, isize)>,
}

impl Bytes {
    /// Every byte the simulation held (the parts' sum).
    pub fn total(&self) -> isize {
        self.parts.iter().map(|(_, b)| b).sum()
    }

    /// The bytes of the structure named `name` (0 if there is none).
    pub fn get(&self, name: &str) -> isize {
        self.parts.iter().find(|(n, _)| n == name).map_or(0, |(_, b)| *b)
    }

    /// Takes `sim` apart and measures each structure by the bytes its drop frees; `live` reads the bytes allocated
    /// and not freed since some start (a counting global allocator's figure; negative when more was freed).
    pub fn of(mut sim: Sim, live: &dyn Fn() -> i64) -> Bytes {
        let mut meter = Meter::new(live);
        sim.log.records = Default::default();
        meter.dropped("reconcile log (kept for observers)".into());
        sim.store.causes = Default::default();
        meter.dropped("causes (kept for \"why?\")".into());
        sim.drop_timers();
        meter.dropped("timers".into());
        for r in recorders(&mut sim) {
            r.release();
        }
        meter.dropped("recorders (Event correlators)".into());
        for h in &mut sim.hosts {
            for c in std::mem::take(&mut h.controllers) {
                let name = format!("controller: {} (queue, state)", c.name());
                drop(c);
                meter.dropped(name);
            }
        }
        for i in &mut sim.informers {
            i.cache = Cache::new(false);
            let host = sim.hosts.iter().find(|h| h.informers.contains(&Some(i.id)));
            let component = host.map_or("kubelet", |h| &h.recorder.component);
            meter.dropped(format!("informer caches: {component} ({})", i.kind));
        }
        sim.kubelets = Vec::new();
        meter.dropped("kubelets (pods they run, images, last node status)".into());
        sim.store.take_apart(&mut |name| meter.dropped(name));
        drop(sim);
        meter.dropped("the rest (informers, hosts, clients, configuration)".into());
        meter.bytes
    }
}

/// Every recorder of `sim`: each process's, each controller's, each kubelet's.
fn recorders(sim: &mut Sim) -> impl Iterator<Item = &mut crate::recorder::Recorder> {
    let hosts = sim
        .hosts
        .iter_mut()
        .flat_map(|h| std::iter::once(&mut h.recorder).chain(h.controllers.iter_mut().map(|c| &mut c.recorder)));
    hosts.chain(sim.kubelets.iter_mut().map(|k| &mut k.recorder))
}

/// Reads the live bytes after each drop, less its own (the parts' names and their vector), so that the parts sum
/// to exactly what the simulation held.
struct Meter<'a> {
    live: &'a dyn Fn() -> i64,
    /// The simulation's bytes at the last reading.
    last: i64,
    bytes: Bytes,
}

impl Meter<'_> {
    fn new(live: &dyn Fn() -> i64) -> Meter<'_> {
        let mut meter = Meter { live, last: 0, bytes: Bytes::default() };
        meter.last = meter.held(0);
        meter
    }

    /// The live bytes that are not the meter's own (`pending` of them are, not yet in its parts).
    fn held(&self, pending: usize) -> i64 {
        let parts = &self.bytes.parts;
        let own = parts.capacity() * std::mem::size_of::<(String, isize)>()
            + parts.iter().map(|(n, _)| n.capacity()).sum::<usize>()
            + pending;
        (self.live)().saturating_sub(i64::try_from(own).unwrap_or(i64::MAX))
    }

    fn dropped(&mut self, name: String) {
        let now = self.held(name.capacity());
        let freed = isize::try_from(self.last.saturating_sub(now)).unwrap_or(isize::MAX);
        match self.bytes.parts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, b)) => {
                *b += freed;
                drop(name);
            }
            None => self.bytes.parts.push((name, freed)),
        }
        self.last = self.held(0);
    }
}
