//! What the EndpointSlice controller remembers of each Service's slices between its syncs (kubeloop's own: upstream
//! lists every selected pod at every sync). A sync that finds the slices as its last sync left them recomputes only
//! the pods whose notifications came since, reads only the slices that hold them or have room, and writes the same
//! slices, in the same order, as a sync that recomputes everything ([`super::plan`]); the property test below holds
//! the two to each other. Anything it cannot vouch for (another writer's slice version, a Service or zone change,
//! two pods with one address, a failed write) makes the next sync a whole one, which makes a new memo.

use std::collections::BTreeMap;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{finish, ports_key, slice_labels, Body, Plan, Ports};
use crate::api::{Endpoint, EndpointSlice, ObjKey, Object, Service, Str};

// Its tables are vectors searched in order or by halves, and maps of types the controller already had: each new
// map or sort type is kilobytes of the page's download.

/// The first address of an endpoint (the controller writes exactly one).
pub(super) fn addr(e: &Endpoint) -> Str {
    e.addresses.first().cloned().unwrap_or_default()
}

/// One slice as the last sync left it.
#[derive(Clone)]
struct Held {
    name: Str,
    resource_version: u64,
    ports: Ports,
    len: usize,
}

/// A pod whose notification came since the last sync, and the endpoint it makes now (`None`: none; gone, not
/// selected, without an address or finished).
pub(super) struct Change {
    pub(crate) pod: ObjKey,
    pub(crate) want: Option<(Ports, Endpoint)>,
}

/// One Service's slices and endpoints, as its last sync left them.
#[derive(Clone)]
pub(super) struct Memo {
    /// The Service's resourceVersion then (another: its selector, ports or labels may have changed).
    pub(crate) service_rv: u64,
    /// The controller's zone epoch then (another: a node's zone may have changed).
    pub(crate) zone_epoch: u64,
    /// Each pod that is an endpoint (by name: a Service's pods share its namespace): its address.
    pods: FxHashMap<Str, Str>,
    /// Each address: the pod it is.
    owner: FxHashMap<Str, Str>,
    /// Each address: the slice that holds it.
    holder: FxHashMap<Str, Str>,
    /// The slices, in name order.
    slices: Vec<Held>,
    /// The pods whose notifications came since (at most [`Memo::dirty_bound`]; beyond it the memo is dropped).
    pub(crate) dirty: FxHashSet<ObjKey>,
}

/// The pod an endpoint is (its `targetRef`'s name).
fn pod_of(e: &Endpoint) -> Option<Str> {
    Some(e.target_ref.as_ref()?.name.clone())
}

/// The slice named `name` among `cached` (in name order).
pub(super) fn find<'a>(cached: &'a [Rc<Object>], name: &str) -> Option<&'a EndpointSlice> {
    let i = cached.binary_search_by(|o| (*o.meta().name).cmp(name)).ok()?;
    cached[i].as_endpointslice()
}

/// One slice's edit: each address it loses (`None`) or keeps with a new endpoint.
type Edit = Vec<(Str, Option<Endpoint>)>;

/// What a sync's changes do to the slices.
#[derive(Default)]
struct Edits {
    /// By slice name.
    slices: Vec<(Str, Edit)>,
    /// Endpoints new to their port set, in pod order.
    added: Vec<(Ports, Endpoint)>,
    /// Addresses taken out of their slice.
    removed: Vec<Str>,
}

impl Memo {
    /// The memo of slices a whole sync left (every slice of the Service) for `endpoints` desired endpoints, or `None`
    /// when an endpoint has no pod, an address or a pod is there twice, or the slices do not hold every desired
    /// endpoint (two pods with one address: the slices hold it once). Then every sync is a whole one until that is
    /// gone.
    pub(crate) fn of<'a>(
        service_rv: u64,
        zone_epoch: u64,
        slices: impl IntoIterator<Item = &'a EndpointSlice>,
        endpoints: usize,
    ) -> Option<Memo> {
        let mut memo = Memo {
            service_rv,
            zone_epoch,
            pods: FxHashMap::default(),
            owner: FxHashMap::default(),
            holder: FxHashMap::default(),
            slices: Vec::new(),
            dirty: FxHashSet::default(),
        };
        for s in slices {
            for e in s.endpoints() {
                let (a, pod) = (addr(e), pod_of(e)?);
                if memo.pods.insert(pod.clone(), a.clone()).is_some() || memo.owner.insert(a.clone(), pod).is_some() {
                    return None;
                }
                memo.holder.insert(a, s.metadata.name.clone());
            }
            memo.hold(s);
        }
        (memo.pods.len() == endpoints).then_some(memo)
    }

    /// Records slice `s` as written (its endpoints' addresses aside).
    fn hold(&mut self, s: &EndpointSlice) {
        let held = Held {
            name: s.metadata.name.clone(),
            resource_version: s.metadata.resource_version,
            ports: ports_key(s),
            len: s.endpoints().len(),
        };
        match self.slices.binary_search_by(|h| h.name.cmp(&held.name)) {
            Ok(i) => self.slices[i] = held,
            Err(i) => self.slices.insert(i, held),
        }
    }

    fn held(&self, name: &str) -> Option<&Held> {
        let i = self.slices.binary_search_by(|h| (*h.name).cmp(name)).ok()?;
        Some(&self.slices[i])
    }

    /// Entries held, for the controller's footprint.
    pub(crate) fn entries(&self) -> usize {
        self.pods.len() + self.slices.len() + self.dirty.len()
    }

    /// Pods it has as endpoints.
    pub(crate) fn endpoints(&self) -> usize {
        self.pods.len()
    }

    /// The most dirty pods it keeps: beyond, a whole sync is cheaper than the memo.
    pub(crate) fn dirty_bound(&self) -> usize {
        2 * self.pods.len() + 1024
    }

    /// Whether `cached` (the Service's slices in the informer cache, in name order) are the slices it remembers, at
    /// the versions it remembers.
    pub(crate) fn matches(&self, cached: &[Rc<Object>]) -> bool {
        cached.len() == self.slices.len()
            && cached.iter().zip(&self.slices).all(|(o, h)| {
                let m = o.meta();
                m.name == h.name && m.resource_version == h.resource_version
            })
    }

    /// Endpoints after `changes`.
    pub(crate) fn total_after(&self, changes: &[Change]) -> usize {
        let gone = changes.iter().filter(|c| self.pods.contains_key(&c.pod.name)).count();
        let come = changes.iter().filter(|c| c.want.is_some()).count();
        self.pods.len() - gone + come
    }

    /// What to write for `changes` (in pod order), reading only the slices they touch or that have room: what
    /// [`super::plan`] writes given every endpoint. `None` when it cannot tell (two pods with one address).
    pub(crate) fn plan(&self, svc: &Service, changes: &[Change], cached: &[Rc<Object>]) -> Option<(Plan, Vec<Str>)> {
        let edits = self.edits(changes)?;
        let labels = slice_labels(svc);
        let mut groups: BTreeMap<Ports, Vec<Endpoint>> = BTreeMap::new();
        for (name, _) in &edits.slices {
            groups.entry(self.held(name)?.ports.clone()).or_default();
        }
        for (ports, e) in &edits.added {
            groups.entry(ports.clone()).or_default().push(e.clone());
        }
        let mut plan = Plan::default();
        let mut leftover = Vec::new();
        for (ports, wanted) in groups {
            let mut bodies = Vec::new();
            for held in self.slices.iter().filter(|h| h.ports == ports) {
                let slice = find(cached, &held.name)?;
                let edit = edits.slices.iter().find(|(n, _)| *n == held.name);
                let (kept, changed) = match edit {
                    Some((_, edit)) => {
                        let (kept, changed) = apply(edit, slice.endpoints());
                        (Some(kept), changed)
                    }
                    None => (None, false),
                };
                let len = kept.as_ref().map_or(held.len, Vec::len);
                bodies.push(Body { slice, len, kept, changed });
            }
            let (emptied, remaining) = finish(svc, &labels, &ports, bodies, wanted, &mut plan);
            // A port set nobody has any more goes after those still wanted, as a whole sync orders them.
            if remaining > 0 { &mut plan.delete } else { &mut leftover }.extend(emptied);
        }
        plan.delete.extend(leftover);
        Some((plan, edits.removed))
    }

    /// What `changes` do to the slices: by slice, the addresses it loses and those it keeps with a new endpoint;
    /// the endpoints to add, in pod order. `None` when an address would be two pods'.
    fn edits(&self, changes: &[Change]) -> Option<Edits> {
        let changed = |pod: &Str| changes.binary_search_by(|c| (*c.pod.name).cmp(pod)).is_ok();
        // Each address wanted now, and the change that wants it.
        let mut wanted: FxHashMap<Str, usize> = FxHashMap::default();
        for (i, c) in changes.iter().enumerate() {
            let Some((_, e)) = &c.want else { continue };
            let a = addr(e);
            let held_by_unchanged = self.owner.get(&a).is_some_and(|pod| !changed(pod));
            if held_by_unchanged || wanted.insert(a, i).is_some() {
                return None;
            }
        }
        let mut edits = Edits::default();
        let mut kept = vec![false; changes.len()];
        for c in changes {
            let Some(a) = self.pods.get(&c.pod.name) else { continue };
            let slice = self.holder.get(a)?;
            let held = self.held(slice)?;
            let new = wanted.get(a).and_then(|&i| Some((i, changes[i].want.as_ref()?)));
            let new = match new {
                Some((i, (ports, e))) if *ports == held.ports => {
                    kept[i] = true;
                    Some(e.clone())
                }
                _ => {
                    edits.removed.push(a.clone());
                    None
                }
            };
            match edits.slices.iter_mut().find(|(n, _)| n == slice) {
                Some((_, edit)) => edit.push((a.clone(), new)),
                None => edits.slices.push((slice.clone(), vec![(a.clone(), new)])),
            }
        }
        for (c, kept) in changes.iter().zip(kept) {
            if let (Some(w), false) = (&c.want, kept) {
                edits.added.push(w.clone());
            }
        }
        Some(edits)
    }

    /// Takes in what a sync of `changes` wrote: the addresses it took out of their slices (`removed`), the slices
    /// it created or updated (`written`, as the store returned them) and those it deleted.
    pub(crate) fn after(
        &mut self,
        changes: &[Change],
        removed: &[Str],
        written: &[Rc<Object>],
        deleted: &[Str],
    ) -> Option<()> {
        for a in removed {
            self.owner.remove(a);
            self.holder.remove(a);
        }
        for c in changes {
            self.pods.remove(&c.pod.name);
        }
        self.slices.retain(|h| !deleted.contains(&h.name));
        for o in written {
            let s = o.as_endpointslice()?;
            for e in s.endpoints() {
                self.owner.insert(addr(e), pod_of(e)?);
                self.holder.insert(addr(e), s.metadata.name.clone());
            }
            self.hold(s);
        }
        for c in changes {
            if let Some((_, e)) = &c.want {
                self.pods.insert(c.pod.name.clone(), addr(e));
            }
        }
        self.dirty.clear();
        Some(())
    }

    /// Checks that the memo is whole: each pod's address held by one slice that names it, each slice's count
    /// right (for tests).
    #[cfg(test)]
    fn check(&self, cached: &[Rc<Object>]) {
        assert_eq!(self.pods.len(), self.owner.len(), "pods and addresses");
        assert_eq!(self.pods.len(), self.holder.len(), "pods and slices");
        for (pod, a) in &self.pods {
            assert_eq!(&self.owner[a], pod);
        }
        assert!(self.matches(cached));
        for held in &self.slices {
            let s = find(cached, &held.name).expect("a slice");
            assert_eq!(held.len, s.endpoints().len());
            for e in s.endpoints() {
                assert_eq!(self.holder[&addr(e)], held.name);
            }
        }
    }
}

/// A slice's endpoints after its edit, and whether they differ.
fn apply(edit: &Edit, endpoints: &[Endpoint]) -> (Vec<Endpoint>, bool) {
    let mut changed = false;
    let mut kept = Vec::with_capacity(endpoints.len());
    for e in endpoints {
        let a = addr(e);
        match edit.iter().find(|(x, _)| *x == a) {
            Some((_, None)) => changed = true,
            Some((_, Some(n))) => {
                changed |= n != e;
                kept.push(n.clone());
            }
            None => kept.push(e.clone()),
        }
    }
    (kept, changed)
}

#[cfg(test)]
mod tests;
