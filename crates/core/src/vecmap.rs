//! A map kept as a vector sorted by key, for the small maps (a few distinct keys: finalizer names, filter failure
//! reasons, images with a behaviour, work counters, revisions): a B-tree's code, compiled again for each key and
//! value type, costs the page more than such a map's lookups cost a run (docs/size.md). It iterates in key order,
//! as a `BTreeMap` does, so it can stand in for one without changing any output. A map that grows with the cluster
//! (a key per pod, node or zone) stays a B-tree: an insert here moves the entries after it.

use std::borrow::Borrow;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VecMap<K, V> {
    /// Sorted by key; each key once.
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { entries: Vec::new() }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key`'s value; the one it had, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// `key`'s value, made with `V::default()` first if it has none (`BTreeMap`'s `entry(key).or_default()`).
    pub fn or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, V::default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    /// Keeps the entries `keep` holds for.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, their values to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
}

/// As a map, in key order (what a `BTreeMap` writes).
impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for VecMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries.iter().map(|(k, v)| (k, v)))
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Any sequence of inserts, counts and removes leaves the same entries, in the same order, as a BTreeMap.
        #[test]
        fn a_vecmap_holds_what_a_btreemap_holds_in_its_order(
            ops in proptest::collection::vec((0u8..3, 0u8..12, any::<u16>()), 0..200)
        ) {
            let (mut ours, mut theirs) = (VecMap::new(), BTreeMap::new());
            for (op, k, v) in ops {
                match op {
                    0 => prop_assert_eq!(ours.insert(k, v), theirs.insert(k, v)),
                    1 => {
                        let o = ours.or_default(k);
                        *o = o.wrapping_add(1);
                        let t = theirs.entry(k).or_default();
                        *t = t.wrapping_add(1);
                    }
                    _ => prop_assert_eq!(ours.remove(&k), theirs.remove(&k)),
                }
                prop_assert_eq!(ours.get(&k), theirs.get(&k));
            }
            let a: Vec<_> = ours.iter().map(|(k, v)| (*k, *v)).collect();
            let b: Vec<_> = theirs.iter().map(|(k, v)| (*k, *v)).collect();
            prop_assert_eq!(a, b);
            prop_assert_eq!(ours.len(), theirs.len());
        }
    }
}
