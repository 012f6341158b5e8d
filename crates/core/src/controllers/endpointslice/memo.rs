//! What the EndpointSlice controller remembers of each Service's slices between its syncs (kubeloop's own: upstream
//! lists every selected pod at every sync). A sync that finds the slices as its last sync left them recomputes only
//! the pods whose notifications came since, reads only the slices that hold them or have room, and writes the same
//! slices, in the same order, as a sync that recomputes everything ([`super::plan`]); the property test below holds
//! the two to each other. Anything it cannot vouch for (another writer's slice version, a Service or zone change,
//! two pods with one address, a failed write) makes the next sync a whole one, which makes a new memo.

use std::collections::BTreeMap;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{new_slice, ports_key, slice_labels, slice_ports, Plan, Ports};
use crate::api::endpointslice::MAX_ENDPOINTS_PER_SLICE;
use crate::api::{Endpoint, EndpointSlice, ObjKey, Object, Service, Str};

/// The first address of an endpoint (the controller writes exactly one).
pub(super) fn addr(e: &Endpoint) -> Str {
    e.addresses.first().cloned().unwrap_or_default()
}

/// One slice as the last sync left it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Held {
    resource_version: u64,
    ports: Ports,
    len: usize,
}

/// A pod whose notification came since the last sync, and the endpoint it makes now (`None`: none; gone, not
/// selected, without an address or finished).
pub(super) struct Change {
    pub pod: ObjKey,
    pub want: Option<(Ports, Endpoint)>,
}

/// One Service's slices and endpoints, as its last sync left them.
#[derive(Debug)]
pub(super) struct Memo {
    /// The Service's resourceVersion then (another: its selector, ports or labels may have changed).
    pub service_rv: u64,
    /// The controller's zone epoch then (another: a node's zone may have changed).
    pub zone_epoch: u64,
    /// Each pod that is an endpoint: its address.
    pods: FxHashMap<ObjKey, Str>,
    /// Each address: the pod it is and the slice that holds it.
    by_addr: FxHashMap<Str, (ObjKey, Str)>,
    /// The slices, by name.
    slices: BTreeMap<Str, Held>,
    /// The pods whose notifications came since (at most [`Memo::dirty_bound`]; beyond it the memo is dropped).
    pub dirty: FxHashSet<ObjKey>,
}

/// The pod an endpoint is (its `targetRef`).
fn pod_of(e: &Endpoint) -> Option<ObjKey> {
    let r = e.target_ref.as_ref()?;
    Some(ObjKey { namespace: r.namespace.clone(), name: r.name.clone() })
}

impl Memo {
    /// The memo of slices a whole sync left (every slice of the Service) for `endpoints` desired endpoints, or `None`
    /// when an endpoint has no pod, an address or a pod is there twice, or the slices do not hold every desired
    /// endpoint (two pods with one address: the slices hold it once). Then every sync is a whole one until that is
    /// gone.
    pub fn of<'a>(
        service_rv: u64,
        zone_epoch: u64,
        slices: impl IntoIterator<Item = &'a EndpointSlice>,
        endpoints: usize,
    ) -> Option<Memo> {
        let mut memo = Memo {
            service_rv,
            zone_epoch,
            pods: FxHashMap::default(),
            by_addr: FxHashMap::default(),
            slices: BTreeMap::new(),
            dirty: FxHashSet::default(),
        };
        for s in slices {
            memo.hold(s)?;
        }
        (memo.pods.len() == endpoints).then_some(memo)
    }

    /// Records slice `s` as written, with its endpoints (`None`: one was not the controller's own).
    fn hold(&mut self, s: &EndpointSlice) -> Option<()> {
        let name = s.metadata.name.clone();
        for e in s.endpoints() {
            let (a, pod) = (addr(e), pod_of(e)?);
            if self.pods.insert(pod.clone(), a.clone()).is_some()
                || self.by_addr.insert(a, (pod, name.clone())).is_some()
            {
                return None;
            }
        }
        let held =
            Held { resource_version: s.metadata.resource_version, ports: ports_key(s), len: s.endpoints().len() };
        self.slices.insert(name, held);
        Some(())
    }

    /// Entries held, for the controller's footprint.
    pub fn entries(&self) -> usize {
        self.pods.len() + self.slices.len() + self.dirty.len()
    }

    /// Pods it has as endpoints.
    pub fn endpoints(&self) -> usize {
        self.pods.len()
    }

    /// The most dirty pods it keeps: beyond, a whole sync is cheaper than the memo.
    pub fn dirty_bound(&self) -> usize {
        2 * self.pods.len() + 1024
    }

    /// Whether `cached` (the Service's slices in the informer cache, by name) are the slices it remembers, at the
    /// versions it remembers.
    pub fn matches(&self, cached: &BTreeMap<Str, Rc<Object>>) -> bool {
        cached.len() == self.slices.len()
            && cached
                .iter()
                .zip(&self.slices)
                .all(|((n, o), (m, h))| n == m && o.meta().resource_version == h.resource_version)
    }

    /// Endpoints after `changes`.
    pub fn total_after(&self, changes: &[Change]) -> usize {
        let gone = changes.iter().filter(|c| self.pods.contains_key(&c.pod)).count();
        let come = changes.iter().filter(|c| c.want.is_some()).count();
        self.pods.len() - gone + come
    }

    /// What to write for `changes` (in pod order), reading only the slices they touch or that have room: what
    /// [`super::plan`] writes given every endpoint. `None` when it cannot tell (two pods with one address).
    pub fn plan(
        &self,
        svc: &Service,
        changes: &[Change],
        cached: &BTreeMap<Str, Rc<Object>>,
    ) -> Option<(Plan, Vec<Str>)> {
        let edits = self.edits(changes)?;
        let labels = slice_labels(svc);
        let mut groups: BTreeMap<&Ports, Vec<Endpoint>> = BTreeMap::new();
        for name in edits.slices.keys() {
            groups.entry(&self.slices.get(name)?.ports).or_default();
        }
        for (ports, e) in &edits.added {
            groups.entry(ports).or_default().push(e.clone());
        }
        let mut plan = Plan::default();
        let mut leftover = Vec::new();
        for (ports, mut wanted) in groups {
            // Each slice of the port set: its name and count, its endpoints when read, whether they change.
            let mut bodies: Vec<(&Str, usize, Option<Vec<Endpoint>>, bool)> = Vec::new();
            let mut remaining = 0;
            for (name, held) in self.slices.iter().filter(|(_, h)| &h.ports == ports) {
                let (body, changed) = match edits.slices.get(name) {
                    Some(edit) => {
                        let (kept, changed) = edit.apply(cached_slice(cached, name)?.endpoints());
                        (Some(kept), changed)
                    }
                    None => (None, false),
                };
                remaining += body.as_ref().map_or(held.len, Vec::len);
                bodies.push((name, held.len, body, changed));
            }
            // Fill the slices with room, in name order, then new ones.
            for (name, len, body, changed) in &mut bodies {
                let len = body.as_ref().map_or(*len, Vec::len);
                let room = MAX_ENDPOINTS_PER_SLICE.saturating_sub(len);
                if room > 0 && !wanted.is_empty() {
                    let take = room.min(wanted.len());
                    let body = match body {
                        Some(b) => b,
                        None => body.insert(cached_slice(cached, name)?.endpoints().to_vec()),
                    };
                    body.extend(wanted.drain(..take));
                    remaining += take;
                    *changed = true;
                }
            }
            remaining += wanted.len();
            while !wanted.is_empty() {
                let take = MAX_ENDPOINTS_PER_SLICE.min(wanted.len());
                plan.create.push(new_slice(svc, &labels, slice_ports(ports), Some(wanted.drain(..take).collect())));
            }
            for (name, _, body, changed) in bodies {
                let Some(body) = body else { continue };
                let mut slice = cached_slice(cached, name)?.clone();
                if body.is_empty() {
                    // A port set nobody has any more goes after those still wanted, as a whole sync orders them.
                    if remaining > 0 { &mut plan.delete } else { &mut leftover }.push(slice);
                } else if changed {
                    slice.endpoints = Some(body);
                    slice.metadata.labels = labels.clone();
                    plan.update.push(slice);
                }
            }
        }
        plan.delete.extend(leftover);
        Some((plan, edits.removed))
    }

    /// What `changes` do to the slices: by slice, the addresses it loses and those it keeps with a new endpoint;
    /// the endpoints to add, in pod order. `None` when an address would be two pods'.
    fn edits(&self, changes: &[Change]) -> Option<Edits> {
        let changed: FxHashSet<&ObjKey> = changes.iter().map(|c| &c.pod).collect();
        let mut wanted: FxHashMap<Str, (&Ports, &Endpoint)> = FxHashMap::default();
        for c in changes {
            let Some((ports, e)) = &c.want else { continue };
            let a = addr(e);
            let held_by_unchanged = self.by_addr.get(&a).is_some_and(|(pod, _)| !changed.contains(pod));
            if held_by_unchanged || wanted.insert(a, (ports, e)).is_some() {
                return None;
            }
        }
        let mut edits = Edits::default();
        let mut kept: FxHashSet<Str> = FxHashSet::default();
        for c in changes {
            let Some(a) = self.pods.get(&c.pod) else { continue };
            let (_, slice) = self.by_addr.get(a)?;
            let held = self.slices.get(slice)?;
            let edit = edits.slices.entry(slice.clone()).or_default();
            match wanted.get(a) {
                Some((ports, e)) if **ports == held.ports => {
                    edit.replace.insert(a.clone(), (*e).clone());
                    kept.insert(a.clone());
                }
                _ => {
                    edit.remove.insert(a.clone());
                    edits.removed.push(a.clone());
                }
            }
        }
        for c in changes {
            if let Some((ports, e)) = &c.want {
                if !kept.contains(&addr(e)) {
                    edits.added.push((ports.clone(), e.clone()));
                }
            }
        }
        Some(edits)
    }

    /// Takes in what a sync of `changes` wrote: the addresses it took out of their slices (`removed`), the slices
    /// it created or updated (`written`, as the store returned them) and those it deleted.
    pub fn after(
        &mut self,
        changes: &[Change],
        removed: &[Str],
        written: &[Rc<Object>],
        deleted: &[Str],
    ) -> Option<()> {
        for a in removed {
            self.by_addr.remove(a);
        }
        for c in changes {
            self.pods.remove(&c.pod);
        }
        for name in deleted {
            self.slices.remove(name);
        }
        for o in written {
            let s = o.as_endpointslice()?;
            for e in s.endpoints() {
                self.by_addr.insert(addr(e), (pod_of(e)?, s.metadata.name.clone()));
            }
            let held =
                Held { resource_version: s.metadata.resource_version, ports: ports_key(s), len: s.endpoints().len() };
            self.slices.insert(s.metadata.name.clone(), held);
        }
        for c in changes {
            if let Some((_, e)) = &c.want {
                self.pods.insert(c.pod.clone(), addr(e));
            }
        }
        self.dirty.clear();
        Some(())
    }

    /// Checks that the memo is whole: each pod's address held by one slice that names it, each slice's count
    /// right (for tests).
    #[cfg(test)]
    fn check(&self, cached: &BTreeMap<Str, Rc<Object>>) {
        assert_eq!(self.pods.len(), self.by_addr.len(), "pods and addresses");
        for (pod, a) in &self.pods {
            assert_eq!(&self.by_addr[a].0, pod);
        }
        assert!(self.matches(cached));
        for (name, held) in &self.slices {
            let s = cached[name].as_endpointslice().expect("a slice");
            assert_eq!(held.len, s.endpoints().len());
            for e in s.endpoints() {
                assert_eq!(&self.by_addr[&addr(e)].1, name);
            }
        }
    }
}

fn cached_slice<'a>(cached: &'a BTreeMap<Str, Rc<Object>>, name: &Str) -> Option<&'a EndpointSlice> {
    cached.get(name)?.as_endpointslice()
}

/// What a sync's changes do to the slices.
#[derive(Default)]
struct Edits {
    slices: BTreeMap<Str, Edit>,
    /// Endpoints new to their port set, in pod order.
    added: Vec<(Ports, Endpoint)>,
    /// Addresses taken out of their slice.
    removed: Vec<Str>,
}

/// One slice's edit.
#[derive(Default)]
struct Edit {
    remove: FxHashSet<Str>,
    replace: FxHashMap<Str, Endpoint>,
}

impl Edit {
    /// The slice's endpoints after the edit, and whether they differ.
    fn apply(&self, endpoints: &[Endpoint]) -> (Vec<Endpoint>, bool) {
        let mut changed = false;
        let mut kept = Vec::with_capacity(endpoints.len());
        for e in endpoints {
            let a = addr(e);
            if self.remove.contains(&a) {
                changed = true;
            } else if let Some(n) = self.replace.get(&a) {
                changed |= n != e;
                kept.push(n.clone());
            } else {
                kept.push(e.clone());
            }
        }
        (kept, changed)
    }
}

#[cfg(test)]
mod tests;
