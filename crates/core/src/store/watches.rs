//! Watches: opening one from a resourceVersion (replayed from the watch cache, or 410 Gone), draining, stopping; the watch cache's window and sizes.

use super::*;

impl Store {
    // ---- watch ----------------------------------------------------------------------------------------------

    /// The resourceVersion of the last change of `kind` at or before `at`, as far as the watch cache remembers
    /// (what a bookmark sent then would have carried, for that kind's watch cache).
    pub fn kind_resource_version_at(&self, kind: Kind, at: Millis) -> u64 {
        let ks = &self.kinds[kind.index()];
        let newer = ks.history.partition_point(|h| h.ev.at <= at);
        match newer {
            0 => ks.compacted,
            n => ks.history[n - 1].ev.rv,
        }
    }

    /// Opens a watch of `kind` from `from_rv`: every later change, in order. A start older than the history the
    /// server keeps is refused with 410 Gone; the client must relist.
    ///
    /// This is a reader that polls ([`Store::drain_watch`]): a person's `kubectl get -w`. Its delivery latency is
    /// drawn from a stream of its own, so opening it changes nothing in the simulation's future.
    pub(crate) fn watch(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
    ) -> Result<WatcherId, ApiError> {
        self.open_watch(client, kind, from_rv, filter, None)
    }

    /// Opens a watch for a simulated component: the simulation is woken (with `notify`) when events become due.
    pub(crate) fn watch_notify(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
        notify: usize,
    ) -> Result<WatcherId, ApiError> {
        self.open_watch(client, kind, from_rv, filter, Some(notify))
    }

    fn open_watch(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
        notify: Option<usize>,
    ) -> Result<WatcherId, ApiError> {
        let ks = &self.kinds[kind.index()];
        if from_rv < ks.compacted {
            // watch_cache.go: "too old resource version: %d (%d)" with the oldest servable version minus one.
            let oldest = ks.history.front().map_or(self.rv + 1, |h| h.ev.rv);
            return self.fail(client, ApiError::Gone { requested: from_rv, oldest: oldest - 1 });
        }
        let (lo, hi) = self.config.watch_latency;
        let latency = match notify {
            Some(_) => self.watch_latency[kind.index()].range(lo, hi),
            // An observer's watch must not draw from the simulation's stream: the shortest latency.
            None => lo,
        };
        let mut w = Watcher { kind, filter: filter.clone(), client, latency, notify, buffer: VecDeque::new() };
        // Replay from the watch cache, in order (the history is bounded, and so is the buffer).
        let start = ks.history.partition_point(|h| h.ev.rv <= from_rv);
        for h in ks.history.range(start..) {
            if let Some(e) = w.filter.translate(&h.ev, h.old.as_deref()) {
                w.buffer.push_back(e);
            }
        }
        let id = self.next_watcher;
        self.next_watcher += 1;
        if let (Some(due), Some(notify)) = (w.next_due(), notify) {
            self.wakeups.push(Wakeup { watcher: id, notify, at: due });
        }
        self.watchers.insert(id, w);
        let ks = &mut self.kinds[kind.index()];
        match filter {
            WatchFilter::All | WatchFilter::InvolvedObject(..) => ks.watchers.push(id),
            WatchFilter::NodeName(n) => ks.node_watchers.entry(n).or_default().push(id),
        }
        self.count(client).watches_opened += 1;
        Ok(id)
    }

    /// Closes a watch; undelivered events are lost.
    pub(crate) fn stop_watch(&mut self, id: WatcherId) {
        let Some(w) = self.watchers.remove(&id) else { return };
        let ks = &mut self.kinds[w.kind.index()];
        match &w.filter {
            WatchFilter::All | WatchFilter::InvolvedObject(..) => ks.watchers.retain(|x| *x != id),
            WatchFilter::NodeName(n) => {
                if let Some(v) = ks.node_watchers.get_mut(n) {
                    v.retain(|x| *x != id);
                    if v.is_empty() {
                        ks.node_watchers.remove(n);
                    }
                }
            }
        }
    }

    /// Delivers the events of watcher `id` that are due at `now` (counted as served), and when the next ones are.
    pub(crate) fn drain_watch(&mut self, id: WatcherId, now: Millis) -> (Vec<WatchEvent>, Option<Millis>) {
        let Some(w) = self.watchers.get_mut(&id) else { return (Vec::new(), None) };
        let evs = w.take_due(now);
        let next = w.next_due();
        let client = w.client;
        self.count(client).watch_events += evs.len() as u64;
        (evs, next)
    }

    pub fn watcher(&self, id: WatcherId) -> Option<&Watcher> {
        self.watchers.get(&id)
    }

    pub fn open_watchers(&self) -> usize {
        self.watchers.len()
    }

    /// Events buffered in open watches, not yet delivered.
    pub(crate) fn buffered_watch_events(&self) -> usize {
        self.watchers.values().map(|w| w.buffer.len()).sum()
    }

    /// Entries of the watch cache (history kept per kind for watches that start in the past).
    pub(crate) fn history_len(&self) -> usize {
        self.kinds.iter().map(|k| k.history.len()).sum()
    }

    /// Watch cache versions a kind still keeps although they are older than the window as of that kind's last
    /// write, beyond the minimum it always keeps: always 0 (the soak judge holds the watch cache to this, since
    /// its size follows the write rate of the last window, not time).
    pub(crate) fn history_beyond_window(&self) -> usize {
        self.kinds
            .iter()
            .map(|k| {
                let Some(newest) = k.history.back().map(|h| h.ev.at) else { return 0 };
                let old = k.history.iter().take_while(|h| self.config.past_window(h.ev.at, newest)).count();
                old.min(k.history.len().saturating_sub(self.config.watch_history_min))
            })
            .sum()
    }

    /// The most versions the watch cache keeps, over every kind (its capacity).
    pub(crate) fn history_capacity(&self) -> usize {
        self.kinds.len() * self.config.watch_history_max
    }

    /// Pending Event expirations (one per Event write within the TTL).
    pub(crate) fn expiry_len(&self) -> usize {
        self.event_expiry.len()
    }
}
