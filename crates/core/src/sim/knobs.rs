//! Knobs and faults: how the control loops trigger and observe, and what the API server and the watches do to them.

use super::*;

impl Sim {
    // ---- knobs ----------------------------------------------------------------------------------------------

    /// Sets the trigger mode of one controller (by name) or of all (`None`). Returns the controllers that take
    /// it (edge only where a controller has an edge mode).
    pub fn set_trigger_mode(&mut self, controller: Option<&str>, mode: TriggerMode) -> Vec<&'static str> {
        let mut taken = Vec::new();
        for c in self.hosts.iter_mut().flat_map(|h| h.controllers.iter_mut()) {
            if controller.is_some_and(|n| n != c.name()) {
                continue;
            }
            c.trigger = mode;
            if c.effective_trigger() == mode && !taken.contains(&c.name()) {
                taken.push(c.name());
            }
        }
        taken
    }

    /// Switches how the controllers (not the kubelets) observe the store. Each of their running informers
    /// starts over: a LIST and then a WATCH, or a LIST every poll period.
    pub fn set_observe_mode(&mut self, mode: ObserveMode) {
        self.config.observe = mode;
        let polling = match mode {
            ObserveMode::Informer => None,
            ObserveMode::Polling { period } => Some(period.max(1)),
        };
        for id in 0..self.informers.len() {
            if !matches!(self.informer_owner[id], Owner::Host(_)) {
                continue;
            }
            let inf = &mut self.informers[id];
            inf.set_polling(polling);
            if inf.state() == ReflectorState::Stopped {
                continue;
            }
            self.start_informer(id);
        }
    }

    /// The relist period (0 = only on 410); re-arms every running informer.
    pub fn set_relist_period(&mut self, period: Millis) {
        self.config.relist_period = period;
        for id in 0..self.informers.len() {
            self.reflector(id, Input::RelistPeriod);
        }
    }

    /// Fault: every informer of the control plane (the controllers' and the scheduler's, not the kubelets')
    /// loses this fraction (0..=1) of the watch events delivered to it.
    pub fn set_watch_drop(&mut self, fraction: f64) {
        let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        self.watch_drop = f;
        for (inf, owner) in self.informers.iter_mut().zip(&self.informer_owner) {
            if matches!(owner, Owner::Host(_)) {
                inf.set_drop_fraction(f);
            }
        }
    }

    /// Fault: one informer loses this fraction of its watch events.
    pub fn set_informer_watch_drop(&mut self, informer: InformerId, fraction: f64) {
        if let Some(inf) = self.informers.get_mut(informer) {
            inf.set_drop_fraction(fraction);
        }
    }

    /// Fault: the API server answers the informer's watch with 410 Gone: it drops its watch and relists (after
    /// its backoff), replacing its cache.
    pub fn force_relist(&mut self, informer: InformerId) {
        if informer < self.informers.len() {
            self.reflector(informer, Input::Gone);
        }
    }

    /// Injected API faults (conflicts, latency, refused pod creates).
    pub fn set_faults(&mut self, faults: crate::faults::Faults) {
        self.store.faults = faults;
    }

    /// The resync period of the controller manager's informers (0 disables resync). Takes effect now.
    pub fn set_resync_period(&mut self, period: Millis) {
        let ids: Vec<InformerId> = [CONTROLLER_MANAGER, CONTROLLER_MANAGER_2]
            .iter()
            .filter_map(|&h| self.hosts.get(h.0))
            .flat_map(|h| h.informers.iter().flatten().copied())
            .collect();
        for id in ids {
            self.reflector(id, Input::ResyncPeriod(period));
        }
    }
}
