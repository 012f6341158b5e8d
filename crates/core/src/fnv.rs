//! FNV-1a, the one hash of the engine's fingerprints: the history hash, the random streams' keys (`Rng::keyed`),
//! images' simulated sizes, and the page's node-card fingerprints. Stable across runs and platforms.

/// The hash of no bytes: where a fingerprint starts.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// `h` with `bytes` folded in.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}
