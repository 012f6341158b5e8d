//! The engine's work: deterministic counts of what it did, by component. Timings are noisy; these are not. The same
//! seed and the same writes give the same counts on every machine (nothing here counts hash-map order, pointers or
//! time), so a test can hold them to a budget exactly (docs/performance.md, "The work budget") and a speed-up shows
//! as a smaller figure.
//!
//! Where each figure is counted, once for every component:
//! - objects visited by controllers: every object an informer cache's read yields ([`crate::informer::Cache`]: a
//!   `get` that finds one, each object a `list`, an index walk or a `select` hands out), charged to the controller
//!   whose reconcile or handler made the read ([`crate::controller::Host`]);
//! - a controller's own figures (the scheduler's nodes filtered and scored, for example): [`Counters`] it reports
//!   through [`crate::controller::Reconciler::work`];
//! - the kubelets: the notifications their pod informers hand them, the pod timers and heartbeats they run
//!   ([`KubeletWork`], counted by the event loop);
//! - the API server: requests and watch events served ([`crate::store::ApiCounters`], summed over its clients).
//!
//! Peak live bytes are not here: the engine cannot see its allocations. The binary that measures (the runner's
//! `bench`, the work budget's test) counts them with a global allocator of its own.

use std::collections::BTreeMap;

use crate::store::ApiCounters;
use crate::vecmap::VecMap;

/// Named figures a component counts of its own work (a controller's, through
/// [`crate::controller::Reconciler::work`]), in name order.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Counters(VecMap<&'static str, u64>);

impl Counters {
    /// Adds `n` to the figure `name` (created at 0).
    pub(crate) fn add(&mut self, name: &'static str, n: u64) {
        let c = self.0.or_default(name);
        *c = c.saturating_add(n);
    }

    /// The figure `name` (0 when never counted).
    pub fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().map(|(k, v)| (*k, *v))
    }

    /// Adds every figure of `other`.
    pub(crate) fn merge(&mut self, other: &Counters) {
        for (k, v) in other.iter() {
            self.add(k, v);
        }
    }
}

/// One controller's work (summed over the replicas that ran it).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllerWork {
    pub reconciles: u64,
    /// Objects its reconciles read from the informer caches.
    pub reconcile_visits: u64,
    /// The most objects one of its reconciles read.
    pub(crate) max_reconcile_visits: u64,
    /// Informer notifications handed to its handlers (level or edge).
    pub(crate) notifications: u64,
    /// Objects its handlers read from the informer caches.
    pub handler_visits: u64,
    /// Figures of its own ([`crate::controller::Reconciler::work`]).
    pub own: Counters,
}

impl ControllerWork {
    /// One reconcile that read `visits` objects.
    pub(crate) fn reconciled(&mut self, visits: u64) {
        self.reconciles += 1;
        self.reconcile_visits += visits;
        self.max_reconcile_visits = self.max_reconcile_visits.max(visits);
    }

    /// `notifications` handed to its handlers, which read `visits` objects.
    pub(crate) fn handled(&mut self, notifications: u64, visits: u64) {
        self.notifications += notifications;
        self.handler_visits += visits;
    }

    /// Adds another replica's work.
    pub(crate) fn merge(&mut self, o: &ControllerWork) {
        self.reconciles += o.reconciles;
        self.reconcile_visits += o.reconcile_visits;
        self.max_reconcile_visits = self.max_reconcile_visits.max(o.max_reconcile_visits);
        self.notifications += o.notifications;
        self.handler_visits += o.handler_visits;
        self.own.merge(&o.own);
    }
}

/// One kubelet's work (or every kubelet's, summed).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KubeletWork {
    /// Pod notifications its informer handed it (its node's pods only: the watch is filtered by node).
    pub(crate) notifications: u64,
    /// Pod timers it ran (pull, start, probes, exits, stops: each reads its pod).
    pub pod_steps: u64,
    /// Heartbeats (lease renewal and node status, every 10 s: each reads its Node).
    pub ticks: u64,
}

impl KubeletWork {
    pub(crate) fn merge(&mut self, o: &KubeletWork) {
        self.notifications += o.notifications;
        self.pod_steps += o.pod_steps;
        self.ticks += o.ticks;
    }
}

/// What the API server served and accepted, every client summed.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiWork {
    pub(crate) gets: u64,
    pub(crate) lists: u64,
    /// Objects returned by LISTs.
    pub(crate) list_items: u64,
    /// Watch events delivered to watchers.
    pub(crate) watch_events: u64,
    /// Creates, updates and deletes.
    pub(crate) writes: u64,
}

impl From<&ApiCounters> for ApiWork {
    fn from(c: &ApiCounters) -> Self {
        ApiWork {
            gets: c.gets,
            lists: c.list_calls,
            list_items: c.list_items,
            watch_events: c.watch_events,
            writes: c.writes(),
        }
    }
}

/// The engine's work so far ([`crate::Sim::work`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Work {
    /// Events the loop ran.
    pub(crate) events: u64,
    pub(crate) api: ApiWork,
    /// Every kubelet's, summed.
    pub(crate) kubelets: KubeletWork,
    /// By controller name.
    pub(crate) controllers: VecMap<&'static str, ControllerWork>,
}

impl Work {
    /// Every figure by a dotted name (`api.watchEvents`, `controller.scheduler.reconcileVisits`,
    /// `controller.scheduler.nodesScored`), in a fixed order: what a budget holds.
    pub fn figures(&self) -> Vec<(String, u64)> {
        let mut out = vec![("events".to_string(), self.events)];
        let api = &self.api;
        for (name, v) in [
            ("gets", api.gets),
            ("lists", api.lists),
            ("listItems", api.list_items),
            ("watchEvents", api.watch_events),
            ("writes", api.writes),
        ] {
            out.push((format!("api.{name}"), v));
        }
        let k = &self.kubelets;
        for (name, v) in [("notifications", k.notifications), ("podSteps", k.pod_steps), ("ticks", k.ticks)] {
            out.push((format!("kubelets.{name}"), v));
        }
        for (c, w) in self.controllers.iter() {
            for (name, v) in [
                ("reconciles", w.reconciles),
                ("reconcileVisits", w.reconcile_visits),
                ("maxReconcileVisits", w.max_reconcile_visits),
                ("notifications", w.notifications),
                ("handlerVisits", w.handler_visits),
            ] {
                out.push((format!("controller.{c}.{name}"), v));
            }
            for (name, v) in w.own.iter() {
                out.push((format!("controller.{c}.{name}"), v));
            }
        }
        out
    }

    /// The work done since `earlier` (a figure that is a maximum keeps its value now).
    pub fn since(&self, earlier: &Work) -> Work {
        let mut w = self.clone();
        w.events -= earlier.events.min(w.events);
        let sub = |a: &mut u64, b: u64| *a = a.saturating_sub(b);
        sub(&mut w.api.gets, earlier.api.gets);
        sub(&mut w.api.lists, earlier.api.lists);
        sub(&mut w.api.list_items, earlier.api.list_items);
        sub(&mut w.api.watch_events, earlier.api.watch_events);
        sub(&mut w.api.writes, earlier.api.writes);
        sub(&mut w.kubelets.notifications, earlier.kubelets.notifications);
        sub(&mut w.kubelets.pod_steps, earlier.kubelets.pod_steps);
        sub(&mut w.kubelets.ticks, earlier.kubelets.ticks);
        for (name, c) in w.controllers.iter_mut() {
            let Some(e) = earlier.controllers.get(name) else { continue };
            sub(&mut c.reconciles, e.reconciles);
            sub(&mut c.reconcile_visits, e.reconcile_visits);
            sub(&mut c.notifications, e.notifications);
            sub(&mut c.handler_visits, e.handler_visits);
            let mut own = Counters::default();
            for (k, v) in c.own.iter() {
                own.add(k, v.saturating_sub(e.own.get(k)));
            }
            c.own = own;
        }
        w
    }

    /// The work of controller `name` (all zero if it never ran).
    pub fn controller(&self, name: &str) -> ControllerWork {
        self.controllers.get(name).cloned().unwrap_or_default()
    }
}

/// A budget of figures ([`Work::figures`] and any the measuring binary adds): each figure's ceiling.
pub type Budget = BTreeMap<String, u64>;

/// The figures over their budget, and the figures the budget and the measurement do not share, each as a
/// sentence naming the figure; empty when the measurement is within the budget.
pub fn over_budget(figures: &[(String, u64)], budget: &Budget) -> Vec<String> {
    let mut out = Vec::new();
    for (name, v) in figures {
        match budget.get(name) {
            Some(max) if v > max => out.push(format!("{name} is {v}, {} over its budget of {max}", v - max)),
            Some(_) => {}
            None => out.push(format!("{name} ({v}) has no budget: add it")),
        }
    }
    for name in budget.keys() {
        if !figures.iter().any(|(n, _)| n == name) {
            out.push(format!("{name} has a budget but is no longer measured: remove it"));
        }
    }
    out
}
