//! A bounded proptest pass per grammar, in CI's debug build (overflow checks on): the structure-aware generators
//! of the fuzzers, driven by proptest's bytes, and raw bytes. Failures shrink to a small input; add it to
//! `fuzz/regressions/TARGET/` (first byte 0 for a generated one) when it is fixed.

use kubeloop_hostile::{check, Target};
use proptest::prelude::*;

fn structured(data: &[u8]) -> Vec<u8> {
    let mut input = vec![0];
    input.extend_from_slice(data);
    input
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn manifests(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(Target::Manifest, &structured(&data));
    }

    #[test]
    fn kubectl_lines(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        check(Target::Kubectl, &structured(&data));
    }

    #[test]
    fn scenarios(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(Target::Scenario, &structured(&data));
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn quantities(data in proptest::collection::vec(any::<u8>(), 0..40), raw in "\\PC{0,24}") {
        check(Target::Quantity, &structured(&data));
        check(Target::Quantity, raw.as_bytes());
    }

    #[test]
    fn selectors(data in proptest::collection::vec(any::<u8>(), 0..80), raw in "[a-z0-9=!,() .-]{0,40}") {
        check(Target::Selector, &structured(&data));
        check(Target::Selector, raw.as_bytes());
    }

    #[test]
    fn durations(data in proptest::collection::vec(any::<u8>(), 0..40), raw in "[0-9.a-zµ+-]{0,24}") {
        check(Target::Duration, &structured(&data));
        check(Target::Duration, raw.as_bytes());
    }
}
