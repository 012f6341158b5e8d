//! The API client a component holds: every call goes to the store under the component's identity, is counted,
//! and costs simulated time (a seeded round-trip latency) that the caller's reconcile is charged for.

use std::rc::Rc;

use crate::api::{Kind, LabelSelector, ObjKey, Object};
use crate::rng::Rng;
use crate::store::{ApiError, ClientId, DeleteOptions, Store, Subresource};
use crate::time::Millis;
use crate::watch::WatchFilter;

/// Round-trip latency of one API request: a seeded value in this range (milliseconds).
pub const API_LATENCY: (Millis, Millis) = (1, 4);

/// A component's connection to the API server for the duration of one piece of work.
pub struct Api<'a> {
    store: &'a mut Store,
    pub(crate) client: ClientId,
    pub(crate) now: Millis,
    pub(crate) rng: &'a mut Rng,
    /// Requests made.
    pub(crate) calls: u32,
    /// Simulated time those requests took.
    pub(crate) elapsed: Millis,
}

impl<'a> Api<'a> {
    pub(crate) fn new(store: &'a mut Store, client: ClientId, now: Millis, rng: &'a mut Rng) -> Self {
        Api { store, client, now, rng, calls: 0, elapsed: 0 }
    }

    /// An uncounted look at the store: one of the named exceptions to "every read of a component is a counted
    /// request" (ARCHITECTURE.md). The kubelet's own Node object (and its Node's uid for its Lease's owner), and a
    /// leader elector's Lease before it writes it. The kubelet reads the pods it runs from its informer's cache.
    pub(crate) fn peek(&self, kind: Kind, key: &ObjKey) -> Option<&Rc<Object>> {
        self.store.peek(kind, key)
    }

    /// Why the writes being made now are made.
    pub(crate) fn cause(&self) -> crate::cause::Cause {
        self.store.causes.current
    }

    /// Says why the writes that follow are made ([`crate::cause`]): recorded with each, never sent.
    pub(crate) fn because(&mut self, cause: crate::cause::Cause) {
        self.store.causes.current = cause;
    }

    /// The writes that follow are the reconcile's acting on a node whose Lease was last renewed at `rv`.
    pub(crate) fn because_not_renewed(&mut self, rv: u64) {
        use crate::cause::Cause;
        if let Cause::Reconcile(reconcile) | Cause::NotRenewed { reconcile, .. } = self.store.causes.current {
            self.store.causes.current = Cause::NotRenewed { reconcile, rv };
        }
    }

    /// The writes that follow are the reconcile's own again.
    pub(crate) fn because_reconcile(&mut self) {
        use crate::cause::Cause;
        if let Cause::NotRenewed { reconcile, .. } = self.store.causes.current {
            self.store.causes.current = Cause::Reconcile(reconcile);
        }
    }

    /// The API server's wall clock at simulated time `now` (the times it stamps on Events): not a request.
    pub(crate) fn wall_nanos(&mut self, now: Millis) -> u64 {
        self.store.wall_nanos(now)
    }

    fn charge(&mut self) {
        self.calls += 1;
        self.elapsed += self.rng.range(API_LATENCY.0, API_LATENCY.1) + self.store.faults.api_latency;
    }

    pub fn get(&mut self, kind: Kind, key: &ObjKey) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.get(self.client, kind, key)
    }

    /// LIST (one call per 500 items): objects of `kind`, in `namespace` if given, matching `selector` if given,
    /// and the resourceVersion the list is consistent with.
    pub fn list(
        &mut self,
        kind: Kind,
        namespace: Option<&str>,
        selector: Option<&LabelSelector>,
    ) -> (Vec<Rc<Object>>, u64) {
        self.charge();
        self.store.list(self.client, kind, namespace, selector, &WatchFilter::All)
    }

    /// LIST with a field selector the API server indexes (`spec.nodeName=NODE` for pods, as `kubectl drain` and
    /// the kubelet ask): like [`Api::list`], restricted by `filter`.
    pub fn list_filtered(
        &mut self,
        kind: Kind,
        namespace: Option<&str>,
        selector: Option<&LabelSelector>,
        filter: &WatchFilter,
    ) -> (Vec<Rc<Object>>, u64) {
        self.charge();
        self.store.list(self.client, kind, namespace, selector, filter)
    }

    pub fn create(&mut self, obj: Object) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.create(self.client, obj, self.now)
    }

    pub fn update(&mut self, obj: Object) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.update(self.client, obj, Subresource::Main, self.now)
    }

    pub(crate) fn update_status(&mut self, obj: Object) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.update(self.client, obj, Subresource::Status, self.now)
    }

    pub fn patch(
        &mut self,
        kind: Kind,
        key: &ObjKey,
        sub: Subresource,
        f: impl FnOnce(&mut Object),
    ) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.patch(self.client, kind, key, sub, self.now, f)
    }

    pub fn delete(&mut self, kind: Kind, key: &ObjKey, opts: &DeleteOptions) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.delete(self.client, kind, key, opts, self.now)
    }

    /// DELETECOLLECTION of `kind` in `namespace` (one request).
    pub(crate) fn delete_collection(
        &mut self,
        kind: Kind,
        namespace: &str,
        opts: &DeleteOptions,
    ) -> Result<usize, ApiError> {
        self.charge();
        self.store.delete_collection(self.client, kind, namespace, opts, self.now)
    }

    /// The `finalize` subresource of a namespace: writes its `spec.finalizers` (with the resourceVersion as a
    /// precondition when set).
    pub(crate) fn finalize(&mut self, obj: Object) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.update(self.client, obj, Subresource::Finalize, self.now)
    }

    pub(crate) fn bind(&mut self, pod: &ObjKey, uid: &str, node: &str) -> Result<Rc<Object>, ApiError> {
        self.charge();
        self.store.bind(self.client, pod, uid, node, self.now)
    }

    /// Sends `f`'s requests with `dryRun=All` (`kubectl --dry-run=server`): the API server defaults, admits and
    /// validates each write and answers it with the object as it would be stored (errors included), but persists
    /// nothing: no resourceVersion, history, watch event or Event expiry, and no draw from the server's random
    /// stream, so the run goes on exactly as if the requests had never been made. They are counted as the requests
    /// they are (the API server serves them); the counters are not part of the history hash.
    pub fn dry_run<T>(&mut self, f: impl FnOnce(&mut Api<'a>) -> T) -> T {
        let saved = self.store.begin_dry_run();
        let out = f(self);
        self.store.end_dry_run(saved);
        out
    }

    /// Requests made in the background (client-go's event broadcaster, the scheduler's binding cycle): counted,
    /// but the caller does not wait for them.
    pub(crate) fn detached<T>(&mut self, f: impl FnOnce(&mut Api<'a>) -> T) -> T {
        let before = self.elapsed;
        let out = f(self);
        self.elapsed = before;
        out
    }

    /// Requests issued in parallel (a slow-start batch): counted each, but the caller waits one round trip.
    pub(crate) fn parallel<T>(&mut self, f: impl FnOnce(&mut Api<'a>) -> T) -> T {
        let before = self.elapsed;
        let calls = self.calls;
        let out = f(self);
        if self.calls > calls {
            let one = self.rng.range(API_LATENCY.0, API_LATENCY.1) + self.store.faults.api_latency;
            self.elapsed = before + one;
        }
        out
    }
}
