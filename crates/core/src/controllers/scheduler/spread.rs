//! PodTopologySpread's counts (`countPodsMatchSelector`) kept as pods are placed and taken off nodes, found through
//! an index so that a pod is offered only to the counts whose selector could match it: upstream recounts the pods
//! of every node for each pod it scores; walking every ReplicaSet's counts for each pod placed would cost as much.
//!
//! Per namespace, per label key and value, a bucket holds the placed pods carrying that label and the counts filed
//! under it. Counts are filed under one pair of their selector's `matchLabels` (a pod lacking that pair cannot
//! match), or, for a selector of `matchExpressions` only, offered every pod of their namespace. Each pod is
//! offered to each counts at most once (a counts is filed once, and a pod has each label key once), and the
//! counts' own selector has the last word, so the results are those of matching every pod against every selector.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Placed, SchedulerWork};
use crate::api::{LabelSelector, ObjKey, Str};

/// The pods one ReplicaSet's selector matches, per node.
#[derive(Clone, Debug)]
pub(super) struct SpreadCounts {
    pub(super) namespace: Str,
    pub(super) selector: LabelSelector,
    /// The `matchLabels` pair it is filed under (`None`: a selector without one, offered every pod of its namespace).
    pub(super) filed: Option<(Str, Str)>,
    pub(super) per_node: FxHashMap<Str, i64>,
}

impl SpreadCounts {
    fn counts(&self, p: &Placed) -> bool {
        !p.terminating && p.namespace == self.namespace && self.selector.matches(&p.labels)
    }

    fn add(&mut self, p: &Placed, sign: i64) {
        if !self.counts(p) {
            return;
        }
        let n = self.per_node.entry(p.node.clone()).or_default();
        *n = n.saturating_add(sign);
        if *n <= 0 {
            self.per_node.remove(&p.node);
        }
    }
}

/// The placed pods carrying one label, and the counts filed under it.
#[derive(Clone, Default)]
struct Bucket {
    pods: FxHashSet<ObjKey>,
    counts: Vec<ObjKey>,
}

impl Bucket {
    fn is_empty(&self) -> bool {
        self.pods.is_empty() && self.counts.is_empty()
    }
}

/// One namespace's buckets, by label key then value, and its counts filed under no label.
#[derive(Clone, Default)]
struct Namespace {
    labels: FxHashMap<Str, FxHashMap<Str, Bucket>>,
    unfiled: Vec<ObjKey>,
}

impl Namespace {
    fn bucket(&self, key: &str, value: &str) -> Option<&Bucket> {
        self.labels.get(key)?.get(value)
    }

    fn bucket_mut(&mut self, key: &Str, value: &Str) -> &mut Bucket {
        self.labels.entry(key.clone()).or_default().entry(value.clone()).or_default()
    }

    /// Drops the bucket of `key`=`value` if it holds nothing.
    fn prune(&mut self, key: &str, value: &str) {
        let Some(values) = self.labels.get_mut(key) else { return };
        if values.get(value).is_some_and(Bucket::is_empty) {
            values.remove(value);
        }
        if values.is_empty() {
            self.labels.remove(key);
        }
    }

    fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.unfiled.is_empty()
    }
}

/// Every ReplicaSet's spreading counts (built when a pod of it is first scored, dropped with it), and the index.
#[derive(Clone, Default)]
pub(super) struct Spread {
    counts: FxHashMap<ObjKey, SpreadCounts>,
    namespaces: FxHashMap<Str, Namespace>,
}

impl Spread {
    pub(super) fn get(&self, rs: &ObjKey) -> Option<&SpreadCounts> {
        self.counts.get(rs)
    }

    /// Holds no counts and no pod.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.namespaces.is_empty()
    }

    /// Entries held for the footprint: each ReplicaSet's counts and their nodes.
    pub(super) fn retained(&self) -> usize {
        self.counts.values().map(|c| 1 + c.per_node.len()).sum()
    }

    /// Pod `key` placed on its node (`sign` 1) or taken off it (-1), as `p` says: filed in (or out of) the buckets
    /// of its labels and counted by the counts whose selector matches it.
    pub(super) fn count(&mut self, key: &ObjKey, p: &Placed, sign: i64, work: &mut SchedulerWork) {
        let Spread { counts, namespaces } = self;
        if sign < 0 && !namespaces.contains_key(&*p.namespace) {
            return;
        }
        let ns = namespaces.entry(p.namespace.clone()).or_default();
        let mut offer = |rs: &ObjKey| {
            if let Some(c) = counts.get_mut(rs) {
                work.spread_entries_visited += 1;
                c.add(p, sign);
            }
        };
        for (k, v) in &p.labels {
            if sign > 0 {
                let b = ns.bucket_mut(k, v);
                b.pods.insert(key.clone());
                b.counts.iter().for_each(&mut offer);
            } else if let Some(b) = ns.labels.get_mut(&**k).and_then(|values| values.get_mut(&**v)) {
                b.pods.remove(key);
                b.counts.iter().for_each(&mut offer);
                ns.prune(k, v);
            }
        }
        ns.unfiled.iter().for_each(offer);
        if ns.is_empty() {
            namespaces.remove(&*p.namespace);
        }
    }

    /// The counts of ReplicaSet `rs`, built on first use (and again for another selector) from the placed pods its
    /// selector could match: those in the bucket it is filed under, the `matchLabels` pair with the fewest pods
    /// (the first in key order among equals); for a selector without `matchLabels`, every placed pod.
    pub(super) fn counts_for(
        &mut self,
        rs: &ObjKey,
        selector: &LabelSelector,
        placed: &FxHashMap<ObjKey, Placed>,
        work: &mut SchedulerWork,
    ) -> &SpreadCounts {
        if !self.counts.get(rs).is_some_and(|c| c.selector == *selector) {
            self.remove(rs);
            let ns = self.namespaces.entry(rs.namespace.clone()).or_default();
            let filed = selector
                .match_labels
                .iter()
                .min_by_key(|(k, v)| ns.bucket(k, v).map_or(0, |b| b.pods.len()))
                .map(|(k, v)| (k.clone(), v.clone()));
            let mut c = SpreadCounts {
                namespace: rs.namespace.clone(),
                selector: selector.clone(),
                filed: filed.clone(),
                per_node: FxHashMap::default(),
            };
            let mut read = |p: &Placed| {
                work.placed_pods_read += 1;
                c.add(p, 1);
            };
            match &filed {
                Some((k, v)) => {
                    let b = ns.bucket_mut(k, v);
                    b.pods.iter().filter_map(|pod| placed.get(pod)).for_each(&mut read);
                    b.counts.push(rs.clone());
                }
                None => {
                    placed.values().for_each(&mut read);
                    ns.unfiled.push(rs.clone());
                }
            }
            self.counts.insert(rs.clone(), c);
        }
        &self.counts[rs]
    }

    /// Drops the counts of ReplicaSet `rs` (deleted, or counted again for another selector).
    pub(super) fn remove(&mut self, rs: &ObjKey) {
        let Some(c) = self.counts.remove(rs) else { return };
        let Some(ns) = self.namespaces.get_mut(&*c.namespace) else { return };
        match &c.filed {
            Some((k, v)) => {
                if let Some(b) = ns.labels.get_mut(&**k).and_then(|values| values.get_mut(&**v)) {
                    b.counts.retain(|other| other != rs);
                }
                ns.prune(k, v);
            }
            None => ns.unfiled.retain(|other| other != rs),
        }
        if ns.is_empty() {
            self.namespaces.remove(&*c.namespace);
        }
    }
}
