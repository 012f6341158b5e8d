//! Labels and annotations: a small map from text to text, kept as one vector of pairs sorted by key.
//!
//! An object has a handful of labels, and the control plane reads them all the time (every selector match of every
//! reconcile), so a sorted vector serves them better than a B-tree: a lookup is a scan of a few adjacent pairs, and
//! iteration is a slice walk. It is also one small piece of code, where each B-tree map type compiles its own
//! search, insertion, iteration and drop. Iteration is in key order (bytewise, as `str` compares), exactly as a
//! `BTreeMap<Str, Str>` iterates, so every output keeps its order.

use std::fmt;
use std::rc::Rc;

use super::Str;

/// Text keys to text values, sorted by key; each key at most once.
///
/// The pairs are shared between copies: an object is copied for each of its writes, and a pod made from a template
/// starts with the template's labels, so a copy costs a count, not an allocation per pair, and two maps that share
/// their pairs compare equal without reading them. A write copies the pairs first when they are shared.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Labels {
    /// `None` when empty (never an empty slice, so that the derived comparisons order maps as their pairs do).
    pairs: Option<Rc<[(Str, Str)]>>,
}

/// One pair of a [`Labels`], as a map's iterator yields it.
pub type Pair<'a> = (&'a Str, &'a Str);

fn pair(p: &(Str, Str)) -> Pair<'_> {
    (&p.0, &p.1)
}

/// The iterator over a [`Labels`]' pairs, in key order.
pub type Iter<'a> = std::iter::Map<std::slice::Iter<'a, (Str, Str)>, fn(&(Str, Str)) -> Pair<'_>>;

impl Labels {
    pub const fn new() -> Labels {
        Labels { pairs: None }
    }

    fn of(pairs: Vec<(Str, Str)>) -> Labels {
        Labels { pairs: if pairs.is_empty() { None } else { Some(pairs.into()) } }
    }

    /// From pairs in any order; a later pair wins over an earlier one with the same key, as when inserting them
    /// one by one (the cost is one sort, whatever the number of pairs).
    pub fn from_pairs(mut pairs: Vec<(Str, Str)>) -> Labels {
        // Stable, so that among equal keys the last one given is the last one here; the project's one stable sort
        // (labels are short), not a copy of the standard library's for these pairs.
        crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Str, Str)> = Vec::with_capacity(pairs.len());
        for p in pairs {
            match out.last_mut() {
                Some(last) if last.0 == p.0 => *last = p,
                _ => out.push(p),
            }
        }
        Labels::of(out)
    }

    fn slice(&self) -> &[(Str, Str)] {
        self.pairs.as_deref().unwrap_or(&[])
    }

    pub fn len(&self) -> usize {
        self.slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_none()
    }

    /// Where `key` is, or where it would go.
    fn find(&self, key: &str) -> Result<usize, usize> {
        let pairs = self.slice();
        // A few pairs: a scan that skips on length first is faster than a binary search of string comparisons.
        if pairs.len() <= 16 {
            for (i, (k, _)) in pairs.iter().enumerate() {
                if super::text_eq(k, key) {
                    return Ok(i);
                }
            }
            return Err(pairs.partition_point(|(k, _)| **k < *key));
        }
        pairs.binary_search_by(|(k, _)| (**k).cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&Str> {
        self.find(key).ok().map(|i| &self.slice()[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Whether every pair of `other` is here too (at once when the two share their pairs).
    pub fn contains_all(&self, other: &Labels) -> bool {
        match (&self.pairs, &other.pairs) {
            (_, None) => true,
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => true,
            _ => other.iter().all(|(k, v)| self.get(k).is_some_and(|mine| super::text_eq(mine, v))),
        }
    }

    /// The pairs, to change (copied first when shared).
    fn edit(&mut self, f: impl FnOnce(&mut Vec<(Str, Str)>)) {
        let mut pairs = self.slice().to_vec();
        f(&mut pairs);
        *self = Labels::of(pairs);
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: Str, value: Str) -> Option<Str> {
        let mut old = None;
        match self.find(&key) {
            Ok(i) => self.edit(|p| old = Some(std::mem::replace(&mut p[i].1, value))),
            Err(i) => self.edit(|p| p.insert(i, (key, value))),
        }
        old
    }

    pub fn remove(&mut self, key: &str) -> Option<Str> {
        let i = self.find(key).ok()?;
        let mut old = None;
        self.edit(|p| old = Some(p.remove(i).1));
        old
    }

    /// The pairs in key order.
    pub fn iter(&self) -> Iter<'_> {
        self.slice().iter().map(pair as fn(&(Str, Str)) -> Pair<'_>)
    }

    pub fn keys(&self) -> impl Iterator<Item = &Str> + '_ {
        self.slice().iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Str> + '_ {
        self.slice().iter().map(|(_, v)| v)
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = Pair<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Labels {
    type Item = (Str, Str);
    type IntoIter = std::vec::IntoIter<(Str, Str)>;
    fn into_iter(self) -> Self::IntoIter {
        self.slice().to_vec().into_iter()
    }
}

impl FromIterator<(Str, Str)> for Labels {
    fn from_iter<I: IntoIterator<Item = (Str, Str)>>(iter: I) -> Labels {
        Labels::from_pairs(iter.into_iter().collect())
    }
}

impl Extend<(Str, Str)> for Labels {
    fn extend<I: IntoIterator<Item = (Str, Str)>>(&mut self, iter: I) {
        let mut pairs = self.slice().to_vec();
        pairs.extend(iter);
        *self = Labels::from_pairs(pairs);
    }
}

impl<const N: usize> From<[(Str, Str); N]> for Labels {
    fn from(pairs: [(Str, Str); N]) -> Labels {
        Labels::from_pairs(pairs.into())
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl serde::Serialize for Labels {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

#[cfg(any(test, feature = "oracle"))]
impl<'de> serde::Deserialize<'de> for Labels {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Labels, D::Error> {
        let map = std::collections::BTreeMap::<Str, Str>::deserialize(deserializer)?;
        Ok(Labels::from_pairs(map.into_iter().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::s;

    fn pairs(l: &Labels) -> Vec<(String, String)> {
        l.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn iterates_in_key_order_with_the_last_value_of_a_repeated_key_like_a_btreemap() {
        let given = [("b", "1"), ("a", "2"), ("b", "3"), ("ab", "4"), ("B", "5"), ("", "6")];
        let l: Labels = given.iter().map(|(k, v)| (s(k), s(v))).collect();
        let m: std::collections::BTreeMap<String, String> =
            given.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(pairs(&l), m.into_iter().collect::<Vec<_>>());
    }

    #[test]
    fn inserts_gets_and_removes_like_a_btreemap_with_few_and_many_keys() {
        for n in [3usize, 40] {
            let mut l = Labels::new();
            let mut m = std::collections::BTreeMap::new();
            // A fixed scramble of 0..n, inserted twice (the second time replacing the values).
            for round in 0..2 {
                for i in 0..n {
                    let k = format!("k{}", (i * 7 + 3) % n);
                    let v = format!("{round}-{i}");
                    assert_eq!(l.insert(s(&k), s(&v)).map(|v| v.to_string()), m.insert(k, v));
                }
            }
            assert_eq!(l.len(), m.len());
            for i in 0..n + 2 {
                let k = format!("k{i}");
                assert_eq!(l.get(&k).map(|v| v.to_string()), m.get(&k).cloned());
                assert_eq!(l.contains_key(&k), m.contains_key(&k));
            }
            for i in (0..n + 2).step_by(3) {
                let k = format!("k{i}");
                assert_eq!(l.remove(&k).map(|v| v.to_string()), m.remove(&k));
            }
            assert_eq!(pairs(&l), m.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn serializes_and_prints_as_a_map() {
        let l = Labels::from([(s("tier"), s("web")), (s("app"), s("api"))]);
        assert_eq!(serde_json::to_string(&l).unwrap(), r#"{"app":"api","tier":"web"}"#);
        assert_eq!(format!("{l:?}"), r#"{"app": "api", "tier": "web"}"#);
    }
}
