//! An informer's cache (client-go's `cache.Indexer`): the objects the reflector has applied, each in one slot,
//! with the indexes the controllers read (by namespace, owner, node, label pair, selector) and the pod groups that
//! count a controller's pods as they change.

use super::*;
/// Where a cached object is held: its place in [`Cache`]'s slots.
pub(super) type Slot = usize;

/// An index bucket: keys in key order, each with its object's slot, so walking it needs no lookups and a new
/// version of an object goes into its one slot, whatever buckets name it.
pub(super) type Bucket = BTreeMap<ObjKey, Slot>;

/// The pods of one controller that carry the same labels, counted as they change (what a ReplicaSet's status
/// is made of, without walking its pods).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodGroup {
    pub(crate) labels: Labels,
    /// Pods in the group, whatever their phase.
    pub(crate) pods: usize,
    /// Those not finished (`Succeeded` or `Failed`).
    pub(crate) unfinished: usize,
    /// Those active (`IsPodActive`: not finished, not being deleted).
    pub(crate) active: usize,
    /// Active pods whose Ready condition is True.
    pub(crate) ready: usize,
    /// When the Ready condition of each of those turned True (pods without that time are not here): how many
    /// pods per time.
    ready_since: BTreeMap<Millis, usize>,
}

impl PodGroup {
    /// Active pods ready for at least `min_ready_seconds` at `now` (`podutil.IsPodAvailable`; with none asked,
    /// every ready pod).
    pub(crate) fn available(&self, min_ready_seconds: i32, now: Millis) -> usize {
        if min_ready_seconds <= 0 {
            return self.ready;
        }
        // Ready at `t` is available when `t + minReadySeconds <= now`.
        let Some(latest) = now.checked_sub(crate::time::seconds(min_ready_seconds.into())) else { return 0 };
        self.ready_since.range(..=latest).map(|(_, c)| c).sum()
    }

    /// Counts `p` in (`add`) or out of the group.
    fn count(&mut self, p: &Pod, add: bool) {
        let step = |n: &mut usize| *n = if add { *n + 1 } else { n.saturating_sub(1) };
        step(&mut self.pods);
        if p.status.phase.is_terminal() {
            return;
        }
        step(&mut self.unfinished);
        if !p.is_active() {
            return;
        }
        step(&mut self.active);
        let Some(ready) = p.condition("Ready").filter(|c| &*c.status == "True") else { return };
        step(&mut self.ready);
        if let Some(t) = ready.last_transition_time {
            let n = self.ready_since.entry(t.0).or_default();
            step(n);
            if *n == 0 {
                self.ready_since.remove(&t.0);
            }
        }
    }
}

/// The informer's local cache (`cache.Indexer`) with the indexes controllers use instead of scanning: namespace,
/// controller owner uid, pod node name and label pairs; and, for the control plane's pods, each controller's
/// pods counted by labels and readiness ([`PodGroup`]). Its reads count the objects and groups they hand out (the
/// engine's work, `crate::work`).
#[derive(Clone, Default)]
pub struct Cache {
    pub(super) objects: FxHashMap<ObjKey, Slot>,
    /// The objects, by slot (`None`: a free slot, listed in `free`).
    slots: Vec<Option<Rc<Object>>>,
    free: Vec<Slot>,
    by_namespace: FxHashMap<Str, Bucket>,
    pub(super) by_owner: FxHashMap<Str, Bucket>,
    /// Objects without a controller, by namespace (candidates for adoption).
    orphans: FxHashMap<Str, Bucket>,
    pub(super) by_node: FxHashMap<Str, Bucket>,
    pub(super) by_label: FxHashMap<(Str, Str), Bucket>,
    /// Objects without a controller, by label pair (with the label index).
    orphans_by_label: FxHashMap<(Str, Str), Bucket>,
    /// Pods by controller uid, in groups of equal labels (with the label index).
    pod_groups: FxHashMap<Str, Vec<PodGroup>>,
    /// Services with a selector, by the first pair of their selector (with the label index).
    by_selector: FxHashMap<(Str, Str), Bucket>,
    label_index: bool,
    /// Objects its reads have handed out, ever (kept across a clear).
    visited: Cell<u64>,
}

pub(super) fn bucket_insert<K: std::hash::Hash + Eq + Clone>(
    map: &mut FxHashMap<K, Bucket>,
    k: &K,
    key: &ObjKey,
    slot: Slot,
) {
    map.entry(k.clone()).or_default().insert(key.clone(), slot);
}

pub(super) fn bucket_remove<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, Bucket>, k: &K, key: &ObjKey) {
    if let Some(b) = map.get_mut(k) {
        b.remove(key);
        if b.is_empty() {
            map.remove(k);
        }
    }
}

pub(super) fn pair(k: &Str, v: &Str) -> (Str, Str) {
    (k.clone(), v.clone())
}

/// One index bucket of a [`Cache`] (the namespace's aside).
#[derive(PartialEq)]
pub(super) enum Member {
    Owner(Str),
    Orphan(Str),
    Node(Str),
    Label((Str, Str)),
    OrphanLabel((Str, Str)),
    Selector((Str, Str)),
}

/// The first pair of a Service's selector: the one bucket of [`Cache::services_selecting`] that holds it.
pub(super) fn selector_pair(o: &Object) -> Option<(Str, Str)> {
    o.as_service()?.spec.selector.iter().next().map(|(k, v)| pair(k, v))
}

impl Cache {
    pub(crate) fn new(label_index: bool) -> Self {
        Cache { label_index, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Objects its reads have handed out since it was made: every object a `get` found, a `list` returned, or an
    /// index walk or a `select` looked at, and every pod group read (what a controller visits, counted at the one
    /// place it reads).
    pub(crate) fn visited(&self) -> u64 {
        self.visited.get()
    }

    /// Sets the count of visits back (a debug build's own check reads the cache without counting as work).
    #[cfg(debug_assertions)]
    pub(crate) fn rewind_visits(&self, to: u64) {
        self.visited.set(to);
    }

    fn visit(&self, n: usize) {
        self.visited.set(self.visited.get().saturating_add(n as u64));
    }

    fn at(&self, slot: Slot) -> Option<&Rc<Object>> {
        self.slots.get(slot).and_then(Option::as_ref)
    }

    /// The cached objects by slot, from slot `from` on, with their slots (uncounted: for an observer that reads
    /// the cache a part at a time, [`Informer::drift_part`]).
    pub(crate) fn slots_from(&self, from: usize) -> impl Iterator<Item = (usize, &Rc<Object>)> + '_ {
        self.slots.iter().enumerate().skip(from).filter_map(|(i, o)| o.as_ref().map(|o| (i, o)))
    }

    pub(crate) fn get(&self, key: &ObjKey) -> Option<&Rc<Object>> {
        let o = self.objects.get(key).and_then(|&slot| self.at(slot));
        self.visit(usize::from(o.is_some()));
        o
    }

    /// Every cached object, in key order.
    pub(crate) fn list(&self) -> Vec<&Rc<Object>> {
        let mut v: Vec<&Rc<Object>> = self.slots.iter().flatten().collect();
        v.sort_by(|a, b| a.meta().namespace.cmp(&b.meta().namespace).then(a.meta().name.cmp(&b.meta().name)));
        self.visit(v.len());
        v
    }

    fn resolve<'a>(&'a self, b: Option<&'a Bucket>) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        b.into_iter().flat_map(|b| b.values()).filter_map(|&slot| self.at(slot)).inspect(|_| self.visit(1))
    }

    /// Objects whose controller owner has this uid.
    pub(crate) fn by_owner(&self, uid: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_owner.get(uid))
    }

    /// The pods whose controller owner has this uid, counted in groups of equal labels (empty without the label
    /// index), in the order the groups first had a pod.
    pub(crate) fn pod_groups(&self, uid: &str) -> &[PodGroup] {
        let groups = self.pod_groups.get(uid).map_or(&[][..], Vec::as_slice);
        self.visit(groups.len());
        groups
    }

    /// Objects in `namespace` that have no controller (what a controller may adopt).
    pub(crate) fn orphans(&self, namespace: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.orphans.get(namespace))
    }

    /// Objects in `namespace` with no controller that `selector` matches, in key order: through the orphans'
    /// label index when the selector has a matchLabels pair (the smallest bucket of its pairs), else every
    /// orphan of the namespace. The second figure is how many orphans were looked at.
    pub(crate) fn select_orphans(&self, namespace: &str, selector: &LabelSelector) -> Vec<&Rc<Object>> {
        let candidates = match self.smallest(&self.orphans_by_label, selector) {
            Some(b) => self.resolve(b),
            None => self.resolve(self.orphans.get(namespace)),
        };
        candidates.filter(|o| &*o.meta().namespace == namespace && selector.matches(&o.meta().labels)).collect()
    }

    /// The Services of `namespace` whose selector `labels` match (every pair of it; a Service without a selector
    /// selects nothing), in key order: only those whose selector's first pair is among `labels` are looked at
    /// (with the label index; without it, none is found).
    pub(crate) fn services_selecting(&self, namespace: &str, labels: &Labels) -> Vec<&Rc<Object>> {
        let mut found: Vec<&Rc<Object>> = Vec::new();
        for (k, v) in labels {
            for o in self.resolve(self.by_selector.get(&pair(k, v))) {
                if &*o.meta().namespace == namespace
                    && o.as_service().is_some_and(|s| labels.contains_all(&s.spec.selector))
                {
                    found.push(o);
                }
            }
        }
        found.sort_by(|a, b| a.meta().name.cmp(&b.meta().name));
        found
    }

    /// Pods bound to this node.
    pub(crate) fn by_node(&self, node: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_node.get(node))
    }

    pub(crate) fn by_namespace(&self, ns: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_namespace.get(ns))
    }

    /// With the label index, the smallest of `index`'s buckets for the selector's matchLabels pairs (`Some(None)`:
    /// a pair nothing carries); `None` when there is no index or no pair to look up.
    fn smallest<'a>(
        &self,
        index: &'a FxHashMap<(Str, Str), Bucket>,
        selector: &LabelSelector,
    ) -> Option<Option<&'a Bucket>> {
        if !self.label_index {
            return None;
        }
        selector.match_labels.iter().map(|(k, v)| index.get(&pair(k, v))).min_by_key(|b| b.map_or(0, |b| b.len()))
    }

    /// Objects in `namespace` matching `selector`, found through the label index when the selector has a
    /// matchLabels pair (the smallest bucket of its pairs), else through the namespace index.
    pub(crate) fn select(&self, namespace: &str, selector: &LabelSelector) -> Vec<&Rc<Object>> {
        let candidates = match self.smallest(&self.by_label, selector) {
            Some(b) => self.resolve(b),
            None => self.resolve(self.by_namespace.get(namespace)),
        };
        candidates.filter(|o| &*o.meta().namespace == namespace && selector.matches(&o.meta().labels)).collect()
    }

    /// The buckets `o` is in besides its namespace's (which its key fixes).
    fn members(&self, o: &Object) -> Vec<Member> {
        let m = o.meta();
        let controller = controller_of(m);
        let mut out = Vec::with_capacity(2 + 2 * m.labels.len());
        out.push(match controller {
            Some(r) => Member::Owner(r.uid.clone()),
            None => Member::Orphan(m.namespace.clone()),
        });
        if let Some(p) = o.as_pod().filter(|p| !p.spec.node_name.is_empty()) {
            out.push(Member::Node(p.spec.node_name.clone()));
        }
        if self.label_index {
            out.extend(selector_pair(o).map(Member::Selector));
            for (k, v) in &m.labels {
                out.push(Member::Label(pair(k, v)));
                if controller.is_none() {
                    out.push(Member::OrphanLabel(pair(k, v)));
                }
            }
        }
        out
    }

    /// Puts `key` in the bucket `m` names, at `slot` (`None`: takes it out).
    fn put(&mut self, m: &Member, key: &ObjKey, slot: Option<Slot>) {
        fn apply<K: std::hash::Hash + Eq + Clone>(
            map: &mut FxHashMap<K, Bucket>,
            k: &K,
            key: &ObjKey,
            slot: Option<Slot>,
        ) {
            match slot {
                Some(slot) => bucket_insert(map, k, key, slot),
                None => bucket_remove(map, k, key),
            }
        }
        match m {
            Member::Owner(uid) => apply(&mut self.by_owner, uid, key, slot),
            Member::Orphan(ns) => apply(&mut self.orphans, ns, key, slot),
            Member::Node(node) => apply(&mut self.by_node, node, key, slot),
            Member::Label(p) => apply(&mut self.by_label, p, key, slot),
            Member::OrphanLabel(p) => apply(&mut self.orphans_by_label, p, key, slot),
            Member::Selector(p) => apply(&mut self.by_selector, p, key, slot),
        }
    }

    fn index(&mut self, key: &ObjKey, slot: Slot, o: &Object) {
        bucket_insert(&mut self.by_namespace, &o.meta().namespace, key, slot);
        for m in self.members(o) {
            self.put(&m, key, Some(slot));
        }
    }

    fn unindex(&mut self, key: &ObjKey, o: &Object) {
        bucket_remove(&mut self.by_namespace, &o.meta().namespace, key);
        for m in self.members(o) {
            self.put(&m, key, None);
        }
    }

    /// Moves `key` (at `slot`) out of the buckets `old` was in and `new` is not, and into those `new` is in and
    /// `old` was not (binding a pod moves it into one: its node's).
    fn reindex(&mut self, key: &ObjKey, slot: Slot, old: &Object, new: &Object) {
        let (was, is) = (self.members(old), self.members(new));
        for m in was.iter().filter(|m| !is.contains(m)) {
            self.put(m, key, None);
        }
        for m in is.iter().filter(|m| !was.contains(m)) {
            self.put(m, key, Some(slot));
        }
    }

    /// Counts a pod with a controller in (`add`) or out of its [`PodGroup`] (with the label index).
    fn tally(&mut self, o: &Object, add: bool) {
        let (true, Some(p)) = (self.label_index, o.as_pod()) else { return };
        let Some(owner) = controller_of(&p.metadata) else { return };
        let groups = self.pod_groups.entry(owner.uid.clone()).or_default();
        let i = match groups.iter().position(|g| g.labels == p.metadata.labels) {
            Some(i) => i,
            None => {
                groups.push(PodGroup { labels: p.metadata.labels.clone(), ..Default::default() });
                groups.len() - 1
            }
        };
        groups[i].count(p, add);
        if groups[i].pods == 0 {
            groups.remove(i);
            if groups.is_empty() {
                self.pod_groups.remove(&owner.uid);
            }
        }
    }

    /// Stores `o`, returning the previous version.
    pub(crate) fn upsert(&mut self, o: Rc<Object>) -> Option<Rc<Object>> {
        let key = o.key();
        let old = match self.objects.get(&key) {
            Some(&slot) => {
                let old = self.slots[slot].replace(o.clone());
                if let Some(old) = &old {
                    // Most writes change a status: the new version is already where the old one was, in every
                    // bucket (they name its slot).
                    if !self.same_buckets(old, &o) {
                        self.reindex(&key, slot, old, &o);
                    }
                    self.tally(old, false);
                }
                old
            }
            None => {
                let slot = match self.free.pop() {
                    Some(slot) => {
                        self.slots[slot] = Some(o.clone());
                        slot
                    }
                    None => {
                        self.slots.push(Some(o.clone()));
                        self.slots.len() - 1
                    }
                };
                self.index(&key, slot, &o);
                self.objects.insert(key, slot);
                None
            }
        };
        self.tally(&o, true);
        old
    }

    /// Whether two versions of an object belong in the same index buckets.
    fn same_buckets(&self, a: &Object, b: &Object) -> bool {
        let (ma, mb) = (a.meta(), b.meta());
        controller_of(ma).map(|r| &r.uid) == controller_of(mb).map(|r| &r.uid)
            && a.as_pod().map(|p| &p.spec.node_name) == b.as_pod().map(|p| &p.spec.node_name)
            && (!self.label_index
                || (ma.labels == mb.labels
                    && a.as_service().map(|s| &s.spec.selector) == b.as_service().map(|s| &s.spec.selector)))
    }

    pub(crate) fn remove(&mut self, key: &ObjKey) -> Option<Rc<Object>> {
        let slot = self.objects.remove(key)?;
        let old = self.slots[slot].take()?;
        self.free.push(slot);
        self.unindex(key, &old);
        self.tally(&old, false);
        Some(old)
    }

    pub(crate) fn clear(&mut self) {
        let (label_index, visited) = (self.label_index, self.visited.get());
        *self = Cache::new(label_index);
        self.visited.set(visited);
    }

    /// Whether the pod groups kept as pods changed are what counting the cached pods now gives (the safety check
    /// of release sweeps, [`crate::sim::Sim::check_safety`]).
    pub(crate) fn check_pod_groups(&self) -> Result<(), String> {
        let mut recount = Cache::new(self.label_index);
        for o in self.slots.iter().flatten() {
            recount.tally(o, true);
        }
        let sorted = |groups: &FxHashMap<Str, Vec<PodGroup>>| {
            let mut all: Vec<(Str, Vec<PodGroup>)> = groups.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for (_, g) in &mut all {
                g.sort_by(|a, b| a.labels.cmp(&b.labels));
            }
            all.sort_by(|a, b| a.0.cmp(&b.0));
            all
        };
        let (kept, counted) = (sorted(&self.pod_groups), sorted(&recount.pod_groups));
        if kept != counted {
            return Err(format!("a cache's pod groups {kept:?} are not its pods' {counted:?}"));
        }
        Ok(())
    }
}
