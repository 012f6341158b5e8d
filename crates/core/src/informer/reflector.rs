//! The reflector's state machine (client-go's `Reflector.ListAndWatch`), stepped as kube-rs's `watcher` steps its
//! own: every transition of an informer between starting, listing, watching, re-watching and relisting is one call
//! of [`Informer::step`], over an [`Input`] (one of its own timers coming due, the server ending its watch, a knob
//! or a fault), which returns what the simulation must do next, in order ([`Effect`]). The simulation only routes:
//! it keeps the timers, draws nothing for the reflector, and hands the notifications to the informer's owner.

use super::{Informer, InformerEvent, ReflectorState};
use crate::store::Store;
use crate::time::{Millis, MINUTE};
use crate::watch::WatcherId;

/// client-go's reflector `minWatchTimeout`: each WATCH asks the server to end it after a timeout drawn from
/// [5 min, 10 min), then the reflector re-WATCHes from the last resourceVersion it saw (no LIST).
pub const MIN_WATCH_TIMEOUT: Millis = 5 * MINUTE;
/// The API server's bookmark frequency (the watch cache's `defaultBookmarkFrequency`): a watcher that has
/// caught up is sent the current resourceVersion about once a minute, and just before its timeout.
pub const BOOKMARK_FREQUENCY: Millis = MINUTE;

/// Where a batch of informer notifications came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The watch stream (or, in polling mode, a poll's diff): real notifications of change.
    Watch,
    /// A LIST (start, 410, the relist period) replacing the cache.
    List,
    /// The periodic resync of the cache.
    Resync,
}

/// A timer of the reflector's: what the simulation schedules for it and hands back when it is due.
#[derive(Clone, Debug)]
pub enum Timer {
    /// Events of the watch are due.
    Drain { watcher: WatcherId },
    /// The LIST of this life (`epoch`): the first, after a 410 or a failed LIST; in polling mode, the next poll.
    List { epoch: u64 },
    /// The periodic resync (a newer `token` re-armed it).
    Resync { epoch: u64, token: u64 },
    /// kubeloop's periodic relist (a newer `token` re-armed it).
    Relist { epoch: u64, token: u64 },
    /// The server ends the watch at the timeout the reflector asked for.
    WatchTimeout { watcher: WatcherId },
}

impl Timer {
    /// The timer's number in the history hash (the simulation's numbering of its events).
    pub(crate) fn tag(&self) -> u8 {
        match self {
            Timer::Drain { .. } => 1,
            Timer::List { .. } => 2,
            Timer::Resync { .. } => 3,
            Timer::Relist { .. } => 9,
            Timer::WatchTimeout { .. } => 10,
        }
    }

    /// Whether the timer can no longer do anything, whenever it comes due: the informer started a new life since
    /// (epoch), the timer was re-armed (token), or its watch is closed (watch ids are never reused).
    pub(crate) fn is_stale(&self, inf: &Informer, store: &Store) -> bool {
        match self {
            Timer::Drain { watcher } | Timer::WatchTimeout { watcher } => store.watcher(*watcher).is_none(),
            Timer::List { epoch } => inf.epoch() != *epoch,
            Timer::Resync { epoch, token } => inf.epoch() != *epoch || inf.resync_token() != *token,
            Timer::Relist { epoch, token } => inf.epoch() != *epoch || inf.relist_token() != *token,
        }
    }
}

/// What moves the reflector.
#[derive(Clone, Debug)]
pub enum Input {
    /// One of its timers is due.
    Timer(Timer),
    /// A new life: its first LIST after `after` (`None`: a delay of 2 to 9 ms drawn from its stream).
    Start { after: Option<Millis> },
    /// The server ended this watch (its history compacted away, for one): re-WATCH, or relist after a 410.
    WatchEnded(WatcherId),
    /// Fault: the watch is cut; the reflector re-WATCHes from what it saw (a bookmark's version included).
    Disconnect,
    /// Fault: the server answers 410 Gone; the reflector relists after its backoff.
    Gone,
    /// The relist period changed: re-armed while watching.
    RelistPeriod,
    /// The resync period changed to this: re-armed once the cache has synced.
    ResyncPeriod(Millis),
}

/// What a step asks of the simulation, in the order it asks.
#[derive(Debug)]
pub enum Effect {
    /// Schedule this timer at this time.
    At(Millis, Timer),
    /// Hand these notifications to the informer's owner.
    Deliver(Vec<InformerEvent>, Origin),
    /// The owner's workers may take work: its caches may have just synced (`WaitForCacheSync`), or a poll delivered.
    Pump,
}

/// What a step reads and draws from.
pub struct Env<'a> {
    pub(crate) store: &'a mut Store,
    pub(crate) now: Millis,
    /// kubeloop's relist period (0: none).
    pub(crate) relist_period: Millis,
    /// In polling mode, how many controllers of the owner LIST the kind at each poll.
    pub(crate) listers: usize,
}

impl Informer {
    /// One transition of the reflector (module docs): what the simulation must do next, in order.
    pub(crate) fn step(&mut self, input: Input, env: &mut Env) -> Vec<Effect> {
        let mut out = Vec::new();
        match input {
            Input::Timer(Timer::Drain { watcher }) => self.drain(watcher, env, &mut out),
            Input::Timer(Timer::List { epoch }) => self.list(epoch, env, &mut out),
            Input::Timer(Timer::Resync { epoch, token }) => {
                if self.epoch() != epoch || self.resync_token() != token || self.state() == ReflectorState::Stopped {
                    return out;
                }
                let evs = self.resync();
                self.arm_resync(env, &mut out);
                out.push(Effect::Deliver(evs, Origin::Resync));
            }
            Input::Timer(Timer::Relist { epoch, token }) => {
                if self.epoch() != epoch || self.relist_token() != token || self.watcher().is_none() {
                    return out;
                }
                // Re-observe: the watch ends, a fresh LIST replaces the cache (and a new WATCH starts from it).
                self.begin_list(env.store);
                self.list(epoch, env, &mut out);
            }
            Input::Timer(Timer::WatchTimeout { watcher }) => {
                if self.watcher() != Some(watcher) {
                    return out;
                }
                if let Some(rv) = self.bookmark_due(env, true) {
                    self.bookmark(rv);
                }
                self.watch_timed_out();
                self.rewatch_or_relist(env, &mut out);
            }
            Input::Start { after } => {
                let delay = after.unwrap_or_else(|| self.rng.range(2, 10));
                let epoch = self.start(env.store);
                out.push(Effect::At(env.now + delay, Timer::List { epoch }));
            }
            Input::WatchEnded(watcher) => {
                if self.watcher() == Some(watcher) {
                    self.rewatch_or_relist(env, &mut out);
                }
            }
            Input::Disconnect => {
                if self.watcher().is_none() {
                    return out;
                }
                if let Some(rv) = self.bookmark_due(env, false) {
                    self.bookmark(rv);
                }
                self.rewatch_or_relist(env, &mut out);
            }
            Input::Gone => {
                if self.watcher().is_none() {
                    return out;
                }
                self.gone(env.store);
                self.relist_after_backoff(env, &mut out);
            }
            Input::RelistPeriod => {
                if self.watcher().is_some() {
                    self.arm_relist(env, &mut out);
                }
            }
            Input::ResyncPeriod(period) => {
                self.set_resync_period(period);
                if self.has_synced() {
                    self.arm_resync(env, &mut out);
                }
            }
        }
        out
    }

    /// The watch's due events: the next delivery is armed, the events applied to the cache and delivered.
    fn drain(&mut self, watcher: WatcherId, env: &mut Env, out: &mut Vec<Effect>) {
        if self.watcher() != Some(watcher) {
            return;
        }
        let (evs, next) = env.store.drain_watch(watcher, env.now);
        if let Some(at) = next {
            out.push(Effect::At(at, Timer::Drain { watcher }));
        }
        let evs = self.on_watch_events(evs);
        out.push(Effect::Deliver(evs, Origin::Watch));
    }

    /// LIST then WATCH (or, in polling mode, a poll); a failed LIST is retried after the backoff.
    fn list(&mut self, epoch: u64, env: &mut Env, out: &mut Vec<Effect>) {
        if self.epoch() != epoch || self.state() != ReflectorState::Listing {
            return;
        }
        if let Some(period) = self.polling() {
            let evs = self.poll(env.store, env.listers);
            out.push(Effect::At(env.now + period, Timer::List { epoch: self.epoch() }));
            out.push(Effect::Deliver(evs, Origin::Watch));
            out.push(Effect::Pump);
            return;
        }
        // client-go's resync timer runs from the informer's start; a relist does not re-arm it.
        let first_sync = !self.has_synced();
        match self.list_and_watch(env.store) {
            Ok(evs) => {
                if first_sync {
                    self.arm_resync(env, out);
                }
                self.arm_watch_timeout(env, out);
                self.arm_relist(env, out);
                out.push(Effect::Deliver(evs, Origin::List));
                out.push(Effect::Pump);
            }
            Err(_) => {
                let backoff = self.next_backoff();
                out.push(Effect::At(env.now + backoff, Timer::List { epoch }));
            }
        }
    }

    /// Re-WATCHes from the last resourceVersion it saw (a bookmark's included), with no LIST; when the server no
    /// longer has that history (410 Gone) it LISTs after its backoff.
    fn rewatch_or_relist(&mut self, env: &mut Env, out: &mut Vec<Effect>) {
        if self.rewatch(env.store).is_ok() {
            self.arm_watch_timeout(env, out);
        } else {
            self.relist_after_backoff(env, out);
        }
    }

    fn relist_after_backoff(&mut self, env: &mut Env, out: &mut Vec<Effect>) {
        let epoch = self.epoch();
        let backoff = self.next_backoff();
        out.push(Effect::At(env.now + backoff, Timer::List { epoch }));
    }

    /// Arms the server-side end of the open watch: client-go asks for a timeout drawn from [`MIN_WATCH_TIMEOUT`] to
    /// twice that.
    fn arm_watch_timeout(&mut self, env: &mut Env, out: &mut Vec<Effect>) {
        if let Some(watcher) = self.watcher() {
            let timeout = self.rng.range(MIN_WATCH_TIMEOUT, 2 * MIN_WATCH_TIMEOUT - 1);
            self.watch_opened(env.now);
            out.push(Effect::At(env.now + timeout, Timer::WatchTimeout { watcher }));
        }
    }

    /// Arms the next resync (none when its period is 0); earlier timers become stale.
    fn arm_resync(&mut self, env: &Env, out: &mut Vec<Effect>) {
        if let Some((period, epoch, token)) = self.rearm_resync() {
            out.push(Effect::At(env.now + period, Timer::Resync { epoch, token }));
        }
    }

    /// Arms the next periodic relist (none when the period is 0); earlier timers become stale.
    fn arm_relist(&mut self, env: &Env, out: &mut Vec<Effect>) {
        let period = env.relist_period;
        if let Some((epoch, token)) = self.rearm_relist(period) {
            out.push(Effect::At(env.now + period, Timer::Relist { epoch, token }));
        }
    }

    /// The resourceVersion of the last bookmark the server sent the watch: none unless the watcher has caught up
    /// (nothing undelivered); then the current one when `deadline` (the server bookmarks a watcher just before its
    /// timeout), else the kind's as of the last whole [`BOOKMARK_FREQUENCY`] since the watch opened.
    fn bookmark_due(&self, env: &Env, deadline: bool) -> Option<u64> {
        let w = env.store.watcher(self.watcher()?)?;
        if !w.buffer.is_empty() {
            return None;
        }
        if deadline {
            return Some(env.store.resource_version());
        }
        let open = env.now.saturating_sub(self.watch_opened_at());
        if open < BOOKMARK_FREQUENCY {
            return None;
        }
        Some(env.store.kind_resource_version_at(self.kind, env.now - open % BOOKMARK_FREQUENCY))
    }
}
