//! client-go's `wait.Backoff` (k8s.io/apimachinery/pkg/util/wait): the one description of an exponential back-off
//! that every component uses (a first delay, a factor, a cap and a jitter), and the delays it gives. Each component
//! keeps its own state, as upstream's do (the work queue a failure count per item, the reflector its current delay,
//! the kubelet a `flowcontrol.Backoff` entry per container, the scheduler an attempt count per pod); the numbers
//! come from here.

use crate::rng::Rng;
use crate::time::Millis;

/// An exponential back-off: `initial`, then each delay `factor` times the last, never over `cap`; `jitter` adds up
/// to that fraction of a delay at random.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    pub(crate) initial: Millis,
    pub(crate) factor: u64,
    pub(crate) cap: Millis,
    /// 0: none (no random draw is made).
    pub(crate) jitter: f64,
}

impl Backoff {
    /// A back-off that doubles from `initial` to `cap`, without jitter.
    pub(crate) const fn doubling(initial: Millis, cap: Millis) -> Backoff {
        Backoff { initial, factor: 2, cap, jitter: 0.0 }
    }

    /// The delay after `steps` earlier ones: `initial * factor^steps`, capped (the cap also where that overflows, as
    /// client-go's `ItemExponentialFailureRateLimiter`). Stepped, not raised to a power: once at the cap (within 64
    /// steps of a factor of 2 or more) it stays there.
    pub(crate) fn delay(&self, steps: u32) -> Millis {
        let mut d = self.initial.min(self.cap);
        for _ in 0..steps {
            let next = self.after(d);
            if next == d {
                break;
            }
            d = next;
        }
        d
    }

    /// The delay that follows `current`.
    pub(crate) fn after(&self, current: Millis) -> Millis {
        current.saturating_mul(self.factor).min(self.cap)
    }

    /// `delay` with its jitter (`wait.Jitter`): up to `jitter * delay` more, drawn from `rng`; no draw without jitter.
    pub(crate) fn jittered(&self, delay: Millis, rng: &mut Rng) -> Millis {
        if self.jitter <= 0.0 {
            return delay;
        }
        delay + (delay as f64 * self.jitter * rng.f64()) as Millis
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    #[test]
    fn delays_grow_by_the_factor_up_to_the_cap() {
        let b = Backoff::doubling(5, 1000 * SECOND);
        assert_eq!([b.delay(0), b.delay(1), b.delay(2), b.delay(10)], [5, 10, 20, 5120]);
        assert_eq!(b.delay(40), 1000 * SECOND, "capped");
        assert_eq!(b.delay(64), 1000 * SECOND, "the cap where 2^64 overflows");
        assert_eq!(b.delay(u32::MAX), 1000 * SECOND);
        assert_eq!([b.after(5), b.after(600 * SECOND), b.after(Millis::MAX)], [10, 1000 * SECOND, 1000 * SECOND]);
    }

    #[test]
    fn jitter_adds_up_to_its_fraction_and_none_draws_nothing() {
        let b = Backoff { jitter: 1.0, ..Backoff::doubling(800, 30 * SECOND) };
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let d = b.jittered(800, &mut rng);
            assert!((800..1600).contains(&d), "{d}");
        }
        let (mut a, mut c) = (Rng::new(9), Rng::new(9));
        assert_eq!(Backoff::doubling(800, 30 * SECOND).jittered(800, &mut a), 800);
        assert_eq!(a.next_u64(), c.next_u64(), "no draw without jitter");
    }
}
