//! The one source of randomness: a seeded PCG-XSH-RR 64/32 generator. Same seed, same sequence, on every platform.

use crate::fnv::{fnv1a, FNV_OFFSET};

/// Seeded pseudo-random generator (PCG32). Never seeded from the OS or a clock.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    inc: u64,
}

impl Rng {
    const MUL: u64 = 6_364_136_223_846_793_005;

    pub fn new(seed: u64) -> Self {
        let mut r = Rng { state: 0, inc: (seed.rotate_left(17) ^ 0xda3e_39cb_94b9_5bdb) << 1 | 1 };
        r.next_u32();
        r.state = r.state.wrapping_add(seed);
        r.next_u32();
        r
    }

    /// The stream of one part of the simulation, named by `key` (a component and what it draws for, say
    /// `["kube-controller-manager/cp-1", "Pod"]`): from the run's seed and the key alone, so that adding a part (a
    /// kind, a controller, a node) never moves another part's draws.
    pub(crate) fn keyed(seed: u64, key: &[&str]) -> Rng {
        // Each part ends with a 0 byte, so that `["ab", "c"]` and `["a", "bc"]` differ.
        let h = key.iter().fold(FNV_OFFSET, |h, part| fnv1a(fnv1a(h, part.as_bytes()), &[0]));
        Rng::new(seed ^ h)
    }

    /// A digest of where the stream stands (its next draws), without drawing.
    pub(crate) fn position(&self) -> u64 {
        self.state ^ self.inc.rotate_left(32)
    }

    pub(crate) fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(Self::MUL).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    pub fn next_u64(&mut self) -> u64 {
        (self.next_u32() as u64) << 32 | self.next_u32() as u64
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `[lo, hi]` (inclusive); `lo` when the range is empty.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo + 1;
        if span == 0 {
            return self.next_u64();
        }
        // Lemire's nearly-divisionless method with rejection for exact uniformity.
        let zone = u64::MAX - (u64::MAX - span + 1) % span;
        loop {
            let v = self.next_u64();
            if v <= zone {
                return lo + v % span;
            }
        }
    }

    /// True with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.f64() < p
        }
    }

    /// A lowercase alphanumeric suffix as the API server's generateName uses (consonants and digits, no vowels).
    pub(crate) fn name_suffix(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len).map(|_| ALPHABET[self.range(0, ALPHABET.len() as u64 - 1) as usize] as char).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut c = Rng::new(43);
        assert_ne!(Rng::new(42).next_u64(), c.next_u64());
    }

    #[test]
    fn keyed_streams_depend_on_the_seed_and_the_whole_key_only() {
        let draw = |seed, key: &[&str]| Rng::keyed(seed, key).next_u64();
        assert_eq!(draw(7, &["a", "Pod"]), draw(7, &["a", "Pod"]));
        assert_ne!(draw(7, &["a", "Pod"]), draw(8, &["a", "Pod"]));
        assert_ne!(draw(7, &["a", "Pod"]), draw(7, &["a", "Node"]));
        assert_ne!(draw(7, &["ab", "c"]), draw(7, &["a", "bc"]), "the parts are delimited");
    }

    #[test]
    fn ranges_stay_in_bounds_and_cover() {
        let mut r = Rng::new(7);
        let mut seen = [false; 6];
        for _ in 0..1000 {
            let v = r.range(10, 15);
            assert!((10..=15).contains(&v));
            seen[(v - 10) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(r.range(5, 5), 5);
        let f = r.f64();
        assert!((0.0..1.0).contains(&f));
    }

    #[test]
    fn name_suffixes_look_like_kubernetes() {
        let s = Rng::new(1).name_suffix(5);
        assert_eq!(s.len(), 5);
        assert!(s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        assert!(!s.contains(['a', 'e', 'i', 'o', 'u']));
    }
}
