//! Controller expectations (pkg/controller/controller_utils.go, UIDTrackingControllerExpectations): after a
//! controller asks for N creates or deletes, it does not act on that object again until its informer has observed
//! them (or 5 minutes pass), so a stale cache never makes it create twice.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::api::ObjKey;
use crate::time::{Millis, MINUTE};

/// `ExpectationsTimeout`.
pub const EXPECTATIONS_TIMEOUT: Millis = 5 * MINUTE;

#[derive(Clone, Debug, Default)]
struct Expectation {
    add: i64,
    del: i64,
    timestamp: Millis,
    /// Keys of the pods whose deletion is expected (deletions are tracked by key, so each counts once).
    deleting: FxHashSet<ObjKey>,
}

#[derive(Clone, Default)]
pub struct Expectations {
    map: FxHashMap<ObjKey, Expectation>,
}

impl Expectations {
    /// Controllers with expectations recorded.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// `SatisfiedExpectations`: nothing pending, or the expectations expired.
    pub(crate) fn satisfied(&self, key: &ObjKey, now: Millis) -> bool {
        match self.map.get(key) {
            None => true,
            Some(e) => (e.add <= 0 && e.del <= 0) || now.saturating_sub(e.timestamp) > EXPECTATIONS_TIMEOUT,
        }
    }

    pub(crate) fn expect_creations(&mut self, key: &ObjKey, n: usize, now: Millis) {
        let e = self.map.entry(key.clone()).or_default();
        *e = Expectation { add: n as i64, del: 0, timestamp: now, deleting: FxHashSet::default() };
    }

    pub(crate) fn expect_deletions(&mut self, key: &ObjKey, pods: &[ObjKey], now: Millis) {
        let e = self.map.entry(key.clone()).or_default();
        *e = Expectation { add: 0, del: pods.len() as i64, timestamp: now, deleting: pods.iter().cloned().collect() };
    }

    pub(crate) fn creation_observed(&mut self, key: &ObjKey) {
        if let Some(e) = self.map.get_mut(key) {
            e.add -= 1;
        }
    }

    /// Lowers the deletion expectation once per pod.
    pub(crate) fn deletion_observed(&mut self, key: &ObjKey, pod: &ObjKey) {
        if let Some(e) = self.map.get_mut(key) {
            if e.deleting.remove(pod) {
                e.del -= 1;
            }
        }
    }

    pub(crate) fn delete(&mut self, key: &ObjKey) {
        self.map.remove(key);
    }

    pub(crate) fn clear(&mut self) {
        self.map.clear();
    }

    /// `(add, del)` still pending.
    #[cfg(test)]
    fn pending(&self, key: &ObjKey) -> Option<(i64, i64)> {
        self.map.get(key).map(|e| (e.add, e.del))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creations_must_be_observed_before_the_next_sync() {
        let mut e = Expectations::default();
        let k = ObjKey::new("default", "web");
        assert!(e.satisfied(&k, 0));
        e.expect_creations(&k, 2, 0);
        assert!(!e.satisfied(&k, 1));
        e.creation_observed(&k);
        assert!(!e.satisfied(&k, 1));
        e.creation_observed(&k);
        assert!(e.satisfied(&k, 1));
    }

    #[test]
    fn deletions_count_once_per_pod() {
        let mut e = Expectations::default();
        let k = ObjKey::new("default", "web");
        let p = ObjKey::new("default", "web-abcde");
        e.expect_deletions(&k, std::slice::from_ref(&p), 0);
        e.deletion_observed(&k, &ObjKey::new("default", "other"));
        assert!(!e.satisfied(&k, 0));
        e.deletion_observed(&k, &p);
        e.deletion_observed(&k, &p);
        assert_eq!(e.pending(&k), Some((0, 0)));
        assert!(e.satisfied(&k, 0));
    }

    #[test]
    fn expectations_expire_after_five_minutes() {
        let mut e = Expectations::default();
        let k = ObjKey::new("default", "web");
        e.expect_creations(&k, 1, 1000);
        assert!(!e.satisfied(&k, 1000 + EXPECTATIONS_TIMEOUT));
        assert!(e.satisfied(&k, 1001 + EXPECTATIONS_TIMEOUT));
    }
}
