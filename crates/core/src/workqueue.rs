//! client-go's `k8s.io/client-go/util/workqueue` in virtual time.
//!
//! Three layers, as in client-go:
//!
//! * [`Queue`] (`queue.go`): a FIFO with a `dirty` set and a `processing` set, so a key is never handed to two
//!   workers at once and a burst of adds of one key collapses into one item.
//! * [`DelayingQueue`] (`delaying_queue.go`): `AddAfter`. client-go runs a goroutine with a timer; here the caller (the
//!   simulation) schedules a wake-up at the instant [`DelayingQueue::add_after`] returns and calls
//!   [`DelayingQueue::fire`] then.
//! * [`RateLimitingQueue`] (`rate_limiting_queue.go`): `AddRateLimited`, `Forget` and `NumRequeues` over a
//!   [`RateLimiter`] (`default_rate_limiters.go`).
//!
//! Every method takes the current virtual time `now` where client-go would read its clock, and the queue keeps
//! client-go's metrics ([`QueueMetrics`], `metrics.go`). Nothing here reads a wall clock, spawns a thread or draws
//! randomness except from the [`Rng`] passed in.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::hash::Hash;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::backoff::Backoff;
use crate::rng::Rng;
use crate::time::{Millis, SECOND};

/// Count, sum, maximum and last value of one duration observed over time (a stand-in for client-go's histograms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DurationStats {
    pub(crate) count: u64,
    pub(crate) sum: Millis,
    pub(crate) max: Millis,
    pub(crate) last: Millis,
}

impl DurationStats {
    fn observe(&mut self, d: Millis) {
        self.count += 1;
        self.sum = self.sum.saturating_add(d);
        self.max = self.max.max(d);
        self.last = d;
    }
}

/// A snapshot of a queue's metrics, named after client-go's workqueue metrics (durations in milliseconds rather than
/// seconds).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueMetrics {
    /// `depth`: keys waiting in the FIFO, i.e. [`Queue::len`]. (client-go's gauge also counts a key re-added while it
    /// is processing, which here enters the FIFO only on `done`.)
    pub depth: u64,
    /// `adds_total`: adds that were not collapsed into an already-dirty key.
    pub adds_total: u64,
    /// `retries_total`: calls of `add_after`, which client-go counts as retries (`add_rate_limited` is one of them).
    pub retries_total: u64,
    /// `queue_duration_seconds`: time from the add that made a key dirty to the `get` that handed it out.
    pub(crate) queue_duration: DurationStats,
    /// `work_duration_seconds`: time from `get` to `done`.
    pub(crate) work_duration: DurationStats,
    /// `unfinished_work_seconds`: sum over keys being processed of how long they have been.
    pub(crate) unfinished_work: Millis,
    /// `longest_running_processor_seconds`: how long the oldest key being processed has been.
    pub(crate) longest_running_processor: Millis,
}

/// client-go's basic work queue (`workqueue.Typed`): FIFO order, a `dirty` set of keys that need processing and a
/// `processing` set of keys handed out by [`get`](Queue::get) and not yet [`done`](Queue::done).
///
/// As in client-go, adding a key that is already dirty does nothing, and adding a key that is being processed only
/// marks it dirty: it re-enters the FIFO when its worker calls `done`. So one key is never handed out twice at once.
#[derive(Clone, Debug)]
pub struct Queue<K> {
    queue: VecDeque<K>,
    dirty: FxHashSet<K>,
    /// Keys being processed, with the instant `get` handed them out.
    processing: FxHashMap<K, Millis>,
    /// When each dirty key was added (client-go's `addTimes`), for the queue duration.
    added_at: FxHashMap<K, Millis>,
    /// Adds of a key already dirty (deduplicated into it), until it is handed out: what the page shows.
    collapsed: FxHashMap<K, u32>,
    adds_total: u64,
    queue_duration: DurationStats,
    work_duration: DurationStats,
}

impl<K> Default for Queue<K> {
    fn default() -> Self {
        Queue {
            queue: VecDeque::new(),
            dirty: FxHashSet::default(),
            processing: FxHashMap::default(),
            added_at: FxHashMap::default(),
            collapsed: FxHashMap::default(),
            adds_total: 0,
            queue_duration: DurationStats::default(),
            work_duration: DurationStats::default(),
        }
    }
}

impl<K: Clone + Eq + Hash> Queue<K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// client-go `Add`: no-op if `k` is already dirty; otherwise marks it dirty and appends it to the FIFO unless it
    /// is being processed (then [`done`](Queue::done) re-queues it).
    pub(crate) fn add(&mut self, k: K, now: Millis) {
        if self.dirty.contains(&k) {
            let n = self.collapsed.entry(k).or_insert(0);
            *n = n.saturating_add(1);
            return;
        }
        self.adds_total += 1;
        self.added_at.entry(k.clone()).or_insert(now);
        self.dirty.insert(k.clone());
        if !self.processing.contains_key(&k) {
            self.queue.push_back(k);
        }
        self.debug_check();
    }

    /// The queue's invariants, in O(1), after every operation of a debug build: every queued key is dirty and
    /// not processing, and every dirty key is queued or processing.
    fn debug_check(&self) {
        debug_assert!(
            self.queue.len() <= self.dirty.len() && self.dirty.len() <= self.queue.len() + self.processing.len(),
            "work queue: {} queued, {} dirty, {} processing",
            self.queue.len(),
            self.dirty.len(),
            self.processing.len()
        );
    }

    /// client-go `Get` (without blocking): pops the head of the FIFO and moves it from dirty to processing.
    pub(crate) fn get(&mut self, now: Millis) -> Option<K> {
        self.debug_check();
        let k = self.queue.pop_front()?;
        debug_assert!(
            self.dirty.contains(&k) && !self.processing.contains_key(&k),
            "work queue: a key handed out twice"
        );
        self.dirty.remove(&k);
        self.collapsed.remove(&k);
        if let Some(t) = self.added_at.remove(&k) {
            self.queue_duration.observe(now.saturating_sub(t));
        }
        self.processing.insert(k.clone(), now);
        Some(k)
    }

    /// client-go `Done`: `k` is no longer processing; if it was added meanwhile it goes to the back of the FIFO.
    /// A key that is not being processed is ignored.
    pub(crate) fn done(&mut self, k: &K, now: Millis) {
        let Some(start) = self.processing.remove(k) else {
            return;
        };
        self.work_duration.observe(now.saturating_sub(start));
        if self.dirty.contains(k) {
            self.queue.push_back(k.clone());
        }
        self.debug_check();
    }

    /// Keys waiting in the FIFO (client-go `Len`, the `depth` metric).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Keys handed out by `get` and not yet `done`.
    pub fn processing_len(&self) -> usize {
        self.processing.len()
    }

    pub fn is_processing(&self, k: &K) -> bool {
        self.processing.contains_key(k)
    }

    pub fn is_dirty(&self, k: &K) -> bool {
        self.dirty.contains(k)
    }

    /// The keys in the FIFO, head first.
    pub fn iter(&self) -> impl Iterator<Item = &K> + '_ {
        self.queue.iter()
    }

    /// The keys being processed, with when they were handed out (in no particular order).
    pub fn processing(&self) -> impl Iterator<Item = (&K, Millis)> + '_ {
        self.processing.iter().map(|(k, &t)| (k, t))
    }

    /// How many adds of a dirty key were deduplicated into it since it was added.
    pub fn collapsed(&self, k: &K) -> u32 {
        self.collapsed.get(k).copied().unwrap_or(0)
    }

    /// client-go `unfinished_work_seconds`: sum over keys being processed of `now - start`.
    pub(crate) fn unfinished_work(&self, now: Millis) -> Millis {
        self.processing.values().fold(0, |acc, &t| acc.saturating_add(now.saturating_sub(t)))
    }

    /// client-go `longest_running_processor_seconds`: the largest `now - start` over keys being processed.
    pub(crate) fn longest_running_processor(&self, now: Millis) -> Millis {
        self.processing.values().map(|&t| now.saturating_sub(t)).max().unwrap_or(0)
    }

    /// A snapshot of the metrics at `now` (`retries_total` is counted by [`DelayingQueue`] and is 0 here).
    pub(crate) fn metrics(&self, now: Millis) -> QueueMetrics {
        QueueMetrics {
            depth: self.queue.len() as u64,
            adds_total: self.adds_total,
            retries_total: 0,
            queue_duration: self.queue_duration,
            work_duration: self.work_duration,
            unfinished_work: self.unfinished_work(now),
            longest_running_processor: self.longest_running_processor(now),
        }
    }
}

/// client-go's delaying queue (`workqueue.TypedDelayingInterface`): a [`Queue`] plus keys waiting for a ready time.
///
/// client-go's `waitingLoop` goroutine becomes explicit: [`add_after`](DelayingQueue::add_after) says when a wake-up
/// is needed, and the simulation calls [`fire`](DelayingQueue::fire) at that time. A wake-up whose entry was
/// superseded (moved earlier, or already fired) finds nothing due and does nothing.
#[derive(Clone, Debug)]
pub struct DelayingQueue<K> {
    queue: Queue<K>,
    /// Waiting key -> its slot in `schedule`.
    waiting: FxHashMap<K, (Millis, u64)>,
    /// (ready time, add order) -> key: fired in ready order, ties in the order of `add_after`.
    schedule: BTreeMap<(Millis, u64), K>,
    seq: u64,
    retries_total: u64,
}

impl<K> Default for DelayingQueue<K> {
    fn default() -> Self {
        DelayingQueue {
            queue: Queue::default(),
            waiting: FxHashMap::default(),
            schedule: BTreeMap::new(),
            seq: 0,
            retries_total: 0,
        }
    }
}

impl<K: Clone + Eq + Hash> DelayingQueue<K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The underlying FIFO, for read-only queries.
    pub fn queue(&self) -> &Queue<K> {
        &self.queue
    }

    /// client-go `Add`, straight into the FIFO (see [`Queue::add`]).
    pub(crate) fn add(&mut self, k: K, now: Millis) {
        self.queue.add(k, now);
    }

    /// client-go `AddAfter`: counts a retry; a zero delay is a plain [`add`](DelayingQueue::add) and returns `None`.
    /// Otherwise `k` waits until `now + delay`; if it is already waiting it keeps the earlier ready time. Returns
    /// `Some(ready_at)` when the ready time was newly set or moved earlier, so the caller must schedule a wake-up
    /// (a call to [`fire`](DelayingQueue::fire)) then; `None` when no new wake-up is needed.
    pub(crate) fn add_after(&mut self, k: K, delay: Millis, now: Millis) -> Option<Millis> {
        self.retries_total += 1;
        if delay == 0 {
            self.queue.add(k, now);
            return None;
        }
        let ready_at = now.saturating_add(delay);
        if let Some(&slot) = self.waiting.get(&k) {
            if slot.0 <= ready_at {
                return None;
            }
            self.schedule.remove(&slot);
        }
        let slot = (ready_at, self.seq);
        self.seq += 1;
        self.schedule.insert(slot, k.clone());
        self.waiting.insert(k, slot);
        Some(ready_at)
    }

    /// Moves every waiting key whose ready time is `<= now` into the FIFO, in order of ready time (ties in the order
    /// of `add_after`), as client-go's `waitingLoop` does. Returns how many keys were released.
    pub(crate) fn fire(&mut self, now: Millis) -> usize {
        let mut released = 0;
        while let Some(entry) = self.schedule.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let k = entry.remove();
            self.waiting.remove(&k);
            self.queue.add(k, now);
            released += 1;
        }
        released
    }

    /// The earliest ready time of a waiting key.
    pub fn next_ready(&self) -> Option<Millis> {
        self.schedule.keys().next().map(|&(t, _)| t)
    }

    /// Keys waiting for their ready time.
    pub(crate) fn waiting_len(&self) -> usize {
        self.waiting.len()
    }

    /// Waiting keys with their ready times, in the order they will fire.
    pub fn waiting(&self) -> impl Iterator<Item = (&K, Millis)> + '_ {
        self.schedule.iter().map(|(&(t, _), k)| (k, t))
    }

    /// See [`Queue::get`].
    pub(crate) fn get(&mut self, now: Millis) -> Option<K> {
        self.queue.get(now)
    }

    /// See [`Queue::done`].
    pub(crate) fn done(&mut self, k: &K, now: Millis) {
        self.queue.done(k, now);
    }

    /// Keys in the FIFO (not counting waiting keys).
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// A snapshot of the metrics at `now`, with `retries_total`.
    pub(crate) fn metrics(&self, now: Millis) -> QueueMetrics {
        QueueMetrics { retries_total: self.retries_total, ..self.queue.metrics(now) }
    }
}

/// Clones a boxed rate limiter: implemented for every [`RateLimiter`] that is `Clone`.
pub trait CloneRateLimiter<K> {
    fn clone_box(&self) -> Box<dyn RateLimiter<K>>;
}

impl<K, T: RateLimiter<K> + Clone + 'static> CloneRateLimiter<K> for T {
    fn clone_box(&self) -> Box<dyn RateLimiter<K>> {
        Box::new(self.clone())
    }
}

impl<K> Clone for Box<dyn RateLimiter<K>> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// client-go's `TypedRateLimiter`: how long a key should wait before it is retried.
pub trait RateLimiter<K>: CloneRateLimiter<K> {
    /// The delay before `k` may be retried (client-go `When`); records the failure.
    fn when(&mut self, k: &K, now: Millis, rng: &mut Rng) -> Millis;
    /// Stops tracking `k` (client-go `Forget`), e.g. once it was processed successfully.
    fn forget(&mut self, k: &K);
    /// How many times `k` has been rate limited since it was last forgotten (client-go `NumRequeues`).
    fn num_requeues(&self, k: &K) -> u32;
    /// Keys the limiter remembers (their failure counts), for the engine's footprint.
    fn tracked(&self) -> usize {
        0
    }
}

/// client-go `ItemExponentialFailureRateLimiter`: `base * 2^failures` for the key, capped at `max`, where `failures`
/// counts the key's earlier `when` calls since it was forgotten. With base 5 ms: 5, 10, 20, 40 ... ms.
#[derive(Clone, Debug)]
pub struct ItemExponentialFailureRateLimiter<K> {
    /// The doubling back-off's first delay and cap (kept as two figures: a queue of every controller has one).
    base: Millis,
    max: Millis,
    failures: FxHashMap<K, u32>,
}

impl<K> ItemExponentialFailureRateLimiter<K> {
    pub fn new(base: Millis, max: Millis) -> Self {
        ItemExponentialFailureRateLimiter { base, max, failures: FxHashMap::default() }
    }
}

impl<K: Clone + Eq + Hash + 'static> RateLimiter<K> for ItemExponentialFailureRateLimiter<K> {
    fn when(&mut self, k: &K, _now: Millis, _rng: &mut Rng) -> Millis {
        let failures = self.failures.entry(k.clone()).or_insert(0);
        let exp = *failures;
        *failures = failures.saturating_add(1);
        Backoff::doubling(self.base, self.max).delay(exp)
    }

    fn forget(&mut self, k: &K) {
        self.failures.remove(k);
    }

    fn num_requeues(&self, k: &K) -> u32 {
        self.failures.get(k).copied().unwrap_or(0)
    }

    fn tracked(&self) -> usize {
        self.failures.len()
    }
}

/// client-go `BucketRateLimiter`: one token bucket shared by all keys, behaving like Go's
/// `rate.NewLimiter(qps, burst).Reserve().Delay()`. Tokens refill continuously at `qps` up to `burst`; each call
/// takes one token, possibly driving the balance negative, and returns the wait until that debt is repaid (rounded
/// up to whole milliseconds). With 10 qps and burst 100 and no time passing, calls 1..=100 return 0, the 101st
/// 100 ms, the 102nd 200 ms.
#[derive(Clone, Debug)]
pub struct BucketRateLimiter {
    qps: f64,
    burst: u32,
    tokens: f64,
    last: Millis,
}

impl BucketRateLimiter {
    /// A full bucket. As in Go, a burst of 0 never allows anything ([`Millis::MAX`], Go's `InfDuration`), a `qps` of
    /// 0 (or less, or NaN) allows only the first `burst` calls, and an infinite `qps` allows everything.
    pub fn new(qps: f64, burst: u32) -> Self {
        BucketRateLimiter { qps, burst, tokens: f64::from(burst), last: 0 }
    }

    fn reserve(&mut self, now: Millis) -> Millis {
        let refills = self.qps > 0.0;
        if refills && self.qps.is_infinite() {
            return 0;
        }
        if !refills || self.burst == 0 {
            if self.tokens >= 1.0 {
                self.tokens -= 1.0;
                return 0;
            }
            return Millis::MAX;
        }
        let elapsed = now.saturating_sub(self.last) as f64 / SECOND as f64;
        self.last = self.last.max(now);
        self.tokens = (self.tokens + elapsed * self.qps).min(f64::from(self.burst)) - 1.0;
        if self.tokens >= 0.0 {
            return 0;
        }
        // Round up, tolerating floating-point noise so that exactly 100 ms is not reported as 101.
        let wait_ms = -self.tokens / self.qps * SECOND as f64;
        (wait_ms - 1e-6).ceil().max(0.0) as Millis
    }
}

impl<K> RateLimiter<K> for BucketRateLimiter {
    fn when(&mut self, _k: &K, now: Millis, _rng: &mut Rng) -> Millis {
        self.reserve(now)
    }

    fn forget(&mut self, _k: &K) {}

    fn num_requeues(&self, _k: &K) -> u32 {
        0
    }
}

/// client-go `MaxOfRateLimiter`: asks every limiter (each records the failure) and returns the longest delay;
/// `forget` goes to all, `num_requeues` is the largest.
#[derive(Clone)]
pub struct MaxOfRateLimiter<K> {
    limiters: Vec<Box<dyn RateLimiter<K>>>,
}

impl<K> MaxOfRateLimiter<K> {
    pub fn new(limiters: Vec<Box<dyn RateLimiter<K>>>) -> Self {
        MaxOfRateLimiter { limiters }
    }
}

impl<K: Clone + 'static> RateLimiter<K> for MaxOfRateLimiter<K> {
    fn when(&mut self, k: &K, now: Millis, rng: &mut Rng) -> Millis {
        self.limiters.iter_mut().map(|l| l.when(k, now, rng)).fold(0, Millis::max)
    }

    fn forget(&mut self, k: &K) {
        self.limiters.iter_mut().for_each(|l| l.forget(k));
    }

    fn num_requeues(&self, k: &K) -> u32 {
        self.limiters.iter().map(|l| l.num_requeues(k)).max().unwrap_or(0)
    }

    fn tracked(&self) -> usize {
        self.limiters.iter().map(|l| l.tracked()).sum()
    }
}

/// client-go `DefaultTypedControllerRateLimiter`: the max of per-key exponential backoff from 5 ms to 1000 s and an
/// overall token bucket of 10 qps with a burst of 100.
pub fn default_controller_rate_limiter<K: Clone + Eq + Hash + 'static>() -> MaxOfRateLimiter<K> {
    MaxOfRateLimiter::new(vec![
        Box::new(ItemExponentialFailureRateLimiter::new(5, 1000 * SECOND)),
        Box::new(BucketRateLimiter::new(10.0, 100)),
    ])
}

/// client-go `wait.Jitter`: `d + rng.f64() * max_factor * d`, so within `[d, d * (1 + max_factor))`. As in Go, a
/// `max_factor <= 0` means 1.0. Always draws exactly one number from `rng`.
pub(crate) fn jitter(d: Millis, max_factor: f64, rng: &mut Rng) -> Millis {
    let factor = if max_factor > 0.0 { max_factor } else { 1.0 };
    d.saturating_add((rng.f64() * factor * d as f64) as Millis)
}

/// Opt-in jitter around another limiter: each delay passes through [`jitter`] with `max_factor`.
#[derive(Clone)]
pub struct JitteredRateLimiter<K> {
    inner: Box<dyn RateLimiter<K>>,
    max_factor: f64,
}

impl<K> JitteredRateLimiter<K> {
    pub fn new(inner: Box<dyn RateLimiter<K>>, max_factor: f64) -> Self {
        JitteredRateLimiter { inner, max_factor }
    }
}

impl<K: Clone + 'static> RateLimiter<K> for JitteredRateLimiter<K> {
    fn when(&mut self, k: &K, now: Millis, rng: &mut Rng) -> Millis {
        let d = self.inner.when(k, now, rng);
        jitter(d, self.max_factor, rng)
    }

    fn forget(&mut self, k: &K) {
        self.inner.forget(k);
    }

    fn num_requeues(&self, k: &K) -> u32 {
        self.inner.num_requeues(k)
    }
}

/// client-go's rate limiting queue (`workqueue.TypedRateLimitingInterface`): a [`DelayingQueue`] whose
/// [`add_rate_limited`](RateLimitingQueue::add_rate_limited) asks a [`RateLimiter`] for the delay.
///
/// The usual controller loop: `get`; on success `forget` then `done`; on failure `add_rate_limited` then `done`.
#[derive(Clone)]
pub struct RateLimitingQueue<K> {
    queue: DelayingQueue<K>,
    limiter: Box<dyn RateLimiter<K>>,
}

impl<K: fmt::Debug> fmt::Debug for RateLimitingQueue<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimitingQueue").field("queue", &self.queue).finish_non_exhaustive()
    }
}

impl<K: Clone + Eq + Hash> RateLimitingQueue<K> {
    pub fn new(limiter: Box<dyn RateLimiter<K>>) -> Self {
        RateLimitingQueue { queue: DelayingQueue::default(), limiter }
    }

    /// Keys held anywhere in the queue: queued, processing, waiting for their delay, or remembered by the rate
    /// limiter (the engine's footprint).
    pub(crate) fn footprint(&self) -> usize {
        let q = self.queue.queue();
        q.len() + q.processing_len() + self.queue.waiting_len() + self.limiter.tracked()
    }

    /// The underlying delaying queue, for read-only queries.
    pub fn delaying(&self) -> &DelayingQueue<K> {
        &self.queue
    }

    /// See [`Queue::add`].
    pub fn add(&mut self, k: K, now: Millis) {
        self.queue.add(k, now);
    }

    /// See [`DelayingQueue::add_after`].
    pub(crate) fn add_after(&mut self, k: K, delay: Millis, now: Millis) -> Option<Millis> {
        self.queue.add_after(k, delay, now)
    }

    /// client-go `AddRateLimited`: `add_after(k, limiter.when(k))`, which counts a retry and a failure of `k`.
    /// Returns the wake-up to schedule, as [`DelayingQueue::add_after`] does.
    pub fn add_rate_limited(&mut self, k: K, now: Millis, rng: &mut Rng) -> Option<Millis> {
        self.add_rate_limited_with_delay(k, now, rng).1
    }

    /// [`RateLimitingQueue::add_rate_limited`], also returning the delay the limiter chose (for the event stream).
    pub(crate) fn add_rate_limited_with_delay(&mut self, k: K, now: Millis, rng: &mut Rng) -> (Millis, Option<Millis>) {
        let delay = self.limiter.when(&k, now, rng);
        (delay, self.queue.add_after(k, delay, now))
    }

    /// client-go `Forget`: the limiter stops tracking `k` (its backoff resets). Does not remove `k` from the queue.
    pub(crate) fn forget(&mut self, k: &K) {
        self.limiter.forget(k);
    }

    /// client-go `NumRequeues`.
    pub fn num_requeues(&self, k: &K) -> u32 {
        self.limiter.num_requeues(k)
    }

    /// See [`Queue::get`].
    pub fn get(&mut self, now: Millis) -> Option<K> {
        self.queue.get(now)
    }

    /// See [`Queue::done`].
    pub fn done(&mut self, k: &K, now: Millis) {
        self.queue.done(k, now);
    }

    /// See [`DelayingQueue::fire`].
    pub fn fire(&mut self, now: Millis) -> usize {
        self.queue.fire(now)
    }

    /// See [`DelayingQueue::next_ready`].
    pub fn next_ready(&self) -> Option<Millis> {
        self.queue.next_ready()
    }

    /// See [`DelayingQueue::waiting_len`].
    pub fn waiting_len(&self) -> usize {
        self.queue.waiting_len()
    }

    /// Keys in the FIFO (not counting waiting keys).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn is_processing(&self, k: &K) -> bool {
        self.queue.queue().is_processing(k)
    }

    pub fn is_dirty(&self, k: &K) -> bool {
        self.queue.queue().is_dirty(k)
    }

    /// The keys in the FIFO, head first.
    pub fn iter(&self) -> impl Iterator<Item = &K> + '_ {
        self.queue.queue().iter()
    }

    /// See [`DelayingQueue::metrics`].
    pub fn metrics(&self, now: Millis) -> QueueMetrics {
        self.queue.metrics(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_queue() -> RateLimitingQueue<&'static str> {
        RateLimitingQueue::new(Box::new(default_controller_rate_limiter()))
    }

    fn whens<L: RateLimiter<&'static str>>(l: &mut L, k: &'static str, now: Millis, n: usize) -> Vec<Millis> {
        let mut rng = Rng::new(1);
        (0..n).map(|_| l.when(&k, now, &mut rng)).collect()
    }

    #[test]
    fn a_burst_of_adds_of_one_key_is_handed_out_once() {
        let mut q = Queue::new();
        for t in 0..5 {
            q.add("a", t);
        }
        assert_eq!(q.len(), 1);
        assert!(q.is_dirty(&"a"));
        assert_eq!(q.collapsed(&"a"), 4, "four adds collapsed into the first");
        assert_eq!(q.get(5), Some("a"));
        assert!(q.is_processing(&"a") && !q.is_dirty(&"a"));
        assert_eq!((q.collapsed(&"a"), q.processing().collect::<Vec<_>>()), (0, vec![(&"a", 5)]));
        assert_eq!(q.get(5), None);
    }

    #[test]
    fn a_key_re_added_while_processing_is_handed_out_again_only_after_done_and_once() {
        let mut q = Queue::new();
        q.add("a", 0);
        assert_eq!(q.get(1), Some("a"));
        q.add("a", 2);
        q.add("a", 3);
        assert!(q.is_dirty(&"a") && q.is_empty());
        assert_eq!(q.get(4), None, "never handed out twice at once");
        q.done(&"a", 5);
        assert_eq!(q.len(), 1);
        assert_eq!(q.get(6), Some("a"));
        assert_eq!(q.get(6), None);
        q.done(&"a", 7);
        assert!(q.is_empty() && !q.is_processing(&"a"));
    }

    #[test]
    fn done_without_get_is_ignored() {
        let mut q = Queue::new();
        q.add("a", 0);
        q.done(&"a", 1);
        assert_eq!(q.len(), 1);
        assert_eq!(q.metrics(1).work_duration.count, 0);
    }

    #[test]
    fn different_keys_are_fifo() {
        let mut q = Queue::new();
        for k in ["b", "a", "c", "a"] {
            q.add(k, 0);
        }
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), ["b", "a", "c"]);
        assert_eq!([q.get(1), q.get(1), q.get(1)], [Some("b"), Some("a"), Some("c")]);
    }

    #[test]
    fn get_on_empty_is_none() {
        let mut q: Queue<u32> = Queue::new();
        assert!(q.is_empty());
        assert_eq!(q.get(0), None);
    }

    #[test]
    fn add_after_keeps_the_earlier_ready_time() {
        let mut q = DelayingQueue::new();
        assert_eq!(q.add_after("a", 100, 0), Some(100));
        assert_eq!(q.add_after("a", 200, 0), None, "later time is ignored");
        assert_eq!(q.add_after("a", 100, 0), None, "same time needs no new wake-up");
        assert_eq!(q.add_after("a", 50, 10), Some(60), "earlier time moves it");
        assert_eq!(q.waiting_len(), 1);
        assert_eq!(q.next_ready(), Some(60));
        assert_eq!(q.fire(59), 0);
        assert_eq!(q.fire(60), 1);
        assert_eq!((q.get(60), q.waiting_len(), q.next_ready()), (Some("a"), 0, None));
    }

    #[test]
    fn add_after_zero_is_immediate() {
        let mut q = DelayingQueue::new();
        assert_eq!(q.add_after("a", 0, 5), None);
        assert_eq!(q.waiting_len(), 0);
        assert_eq!(q.get(5), Some("a"));
    }

    #[test]
    fn fire_releases_only_due_keys_in_ready_order_ties_by_add_order() {
        let mut q = DelayingQueue::new();
        q.add_after("late", 300, 0);
        q.add_after("tie1", 100, 0);
        q.add_after("early", 50, 0);
        q.add_after("tie2", 100, 0);
        let order: Vec<_> = q.waiting().map(|(k, t)| (*k, t)).collect();
        assert_eq!(order, [("early", 50), ("tie1", 100), ("tie2", 100), ("late", 300)]);
        assert_eq!(q.fire(100), 3);
        assert_eq!(q.queue().iter().copied().collect::<Vec<_>>(), ["early", "tie1", "tie2"]);
        assert_eq!((q.waiting_len(), q.next_ready()), (1, Some(300)));
    }

    #[test]
    fn a_superseded_wake_up_is_harmless() {
        let mut q = DelayingQueue::new();
        assert_eq!(q.add_after("a", 100, 0), Some(100));
        assert_eq!(q.add_after("a", 20, 0), Some(20));
        assert_eq!(q.fire(20), 1);
        assert_eq!(q.get(20), Some("a"));
        // The wake-up scheduled for 100 still arrives: nothing is due, nothing changes.
        assert_eq!(q.fire(100), 0);
        assert!(q.is_empty());
        assert_eq!(q.waiting_len(), 0);
    }

    #[test]
    fn exponential_backoff_doubles_from_5ms_and_caps_at_1000s() {
        let mut l = ItemExponentialFailureRateLimiter::new(5, 1000 * SECOND);
        assert_eq!(whens(&mut l, "a", 0, 5), [5, 10, 20, 40, 80]);
        assert_eq!(whens(&mut l, "b", 0, 1), [5], "failures are counted per key");
        let later = whens(&mut l, "a", 0, 100);
        assert_eq!(later[12], 5 << 17, "655 s");
        assert!(later[13..].iter().all(|&d| d == 1000 * SECOND), "capped, also past 2^64");
        let mut huge = ItemExponentialFailureRateLimiter::new(u64::MAX / 2, u64::MAX);
        assert_eq!(whens(&mut huge, "a", 0, 3), [u64::MAX / 2, u64::MAX - 1, u64::MAX]);
    }

    #[test]
    fn forget_resets_backoff() {
        let mut q = default_queue();
        let mut rng = Rng::new(1);
        assert_eq!(q.add_rate_limited("a", 0, &mut rng), Some(5));
        assert_eq!(q.add_rate_limited("a", 0, &mut rng), None, "10 ms is later than the waiting 5 ms");
        q.forget(&"a");
        assert_eq!(q.num_requeues(&"a"), 0);
        q.fire(5);
        assert_eq!(q.get(5), Some("a"));
        q.done(&"a", 6);
        assert_eq!(q.add_rate_limited("a", 6, &mut rng), Some(11), "back to 5 ms");
    }

    #[test]
    fn num_requeues_counts_rate_limited_adds() {
        let mut q = default_queue();
        let mut rng = Rng::new(1);
        for _ in 0..3 {
            q.add_rate_limited("a", 0, &mut rng);
        }
        q.add_after("a", 1, 0);
        q.add("a", 0);
        assert_eq!((q.num_requeues(&"a"), q.num_requeues(&"b")), (3, 0));
        assert_eq!(q.metrics(0).retries_total, 4, "client-go counts every add_after as a retry");
    }

    #[test]
    fn the_bucket_lets_a_burst_of_100_through_then_spaces_by_100ms_and_refills() {
        let mut b = BucketRateLimiter::new(10.0, 100);
        let first = whens(&mut b, "x", 0, 103);
        assert!(first[..100].iter().all(|&d| d == 0));
        assert_eq!(first[100..], [100, 200, 300]);
        // 10.3 s later the debt of 3 tokens is repaid and the bucket is full again.
        let refilled = whens(&mut b, "x", 10_300, 101);
        assert!(refilled[..100].iter().all(|&d| d == 0));
        assert_eq!(refilled[100], 100);
        // Partly refilled: 250 ms after the last call there are 1.5 tokens, after a debt of 1.
        assert_eq!(whens(&mut b, "x", 10_550, 2), [0, 50]);
        assert_eq!(whens(&mut BucketRateLimiter::new(10.0, 0), "x", 0, 1), [Millis::MAX]);
        assert_eq!(whens(&mut BucketRateLimiter::new(0.0, 2), "x", 0, 3), [0, 0, Millis::MAX]);
    }

    #[test]
    fn the_default_limiter_takes_the_max_of_both() {
        let mut l = default_controller_rate_limiter();
        let mut rng = Rng::new(1);
        let keys: Vec<String> = (0..102).map(|i| format!("k{i}")).collect();
        let delays: Vec<_> = keys.iter().map(|k| l.when(k, 0, &mut rng)).collect();
        assert!(delays[..100].iter().all(|&d| d == 5), "per-key backoff wins while the bucket has tokens");
        assert_eq!(delays[100..], [100, 200], "then the bucket wins");
        let k = "slow".to_string();
        let last = (0..30).map(|_| l.when(&k, 100_000, &mut rng)).last();
        assert_eq!(last, Some(1000 * SECOND));
        assert_eq!(l.num_requeues(&k), 30);
        l.forget(&k);
        assert_eq!(l.num_requeues(&k), 0);
    }

    #[test]
    fn jitter_stays_within_bounds_and_is_deterministic_for_a_seed() {
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..1000).map(|_| jitter(1000, 0.5, &mut rng)).collect::<Vec<_>>()
        };
        let a = run(7);
        assert!(a.iter().all(|&d| (1000..1500).contains(&d)));
        assert!(a.iter().any(|&d| d != a[0]), "actually jitters");
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        assert_eq!(jitter(0, 0.5, &mut Rng::new(1)), 0);

        let exp = ItemExponentialFailureRateLimiter::new(100, SECOND);
        let mut l = JitteredRateLimiter::new(Box::new(exp), 0.1);
        let mut rng = Rng::new(3);
        let d = [l.when(&"a", 0, &mut rng), l.when(&"a", 0, &mut rng)];
        assert!((100..110).contains(&d[0]) && (200..220).contains(&d[1]), "{d:?}");
        assert_eq!(l.num_requeues(&"a"), 2);
    }

    #[test]
    fn metrics_follow_a_scripted_sequence() {
        let mut q = default_queue();
        let mut rng = Rng::new(1);
        q.add("a", 0);
        q.add("a", 5); // collapsed: not an add, queue time still counts from 0
        q.add("b", 10);
        assert_eq!((q.metrics(10).depth, q.metrics(10).adds_total), (2, 2));
        assert_eq!(q.get(20), Some("a")); // queued 20 ms
        assert_eq!(q.get(40), Some("b")); // queued 30 ms
        q.add("a", 45); // dirty while processing
        let m = q.metrics(50);
        assert_eq!((m.depth, m.adds_total), (0, 3));
        assert_eq!((m.unfinished_work, m.longest_running_processor), (30 + 10, 30));
        q.done(&"a", 60); // worked 40 ms, re-queued
        q.done(&"b", 70); // worked 30 ms
        assert_eq!(q.add_rate_limited("c", 70, &mut rng), Some(75));
        assert_eq!(q.fire(75), 1);
        assert_eq!(q.get(80), Some("a")); // queued 80 - 45 = 35 ms
        assert_eq!(
            q.metrics(90),
            QueueMetrics {
                depth: 1,
                adds_total: 4,
                retries_total: 1,
                queue_duration: DurationStats { count: 3, sum: 85, max: 35, last: 35 },
                work_duration: DurationStats { count: 2, sum: 70, max: 40, last: 30 },
                unfinished_work: 10,
                longest_running_processor: 10,
            }
        );
    }
}
