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
    fn generated_manifests_hold_every_oracle(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(Target::Manifest, &structured(&data));
    }

    #[test]
    fn generated_kubectl_lines_hold_every_oracle(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        check(Target::Kubectl, &structured(&data));
    }

    #[test]
    fn generated_scenarios_hold_every_oracle(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        check(Target::Scenario, &structured(&data));
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn generated_and_raw_quantities_hold_every_oracle(
        data in proptest::collection::vec(any::<u8>(), 0..40),
        raw in "\\PC{0,24}",
    ) {
        check(Target::Quantity, &structured(&data));
        check(Target::Quantity, raw.as_bytes());
    }

    #[test]
    fn generated_and_raw_selectors_hold_every_oracle(
        data in proptest::collection::vec(any::<u8>(), 0..80),
        raw in "[a-z0-9=!,() .-]{0,40}",
    ) {
        check(Target::Selector, &structured(&data));
        check(Target::Selector, raw.as_bytes());
    }

    #[test]
    fn generated_and_raw_durations_hold_every_oracle(
        data in proptest::collection::vec(any::<u8>(), 0..40),
        raw in "[0-9.a-zµ+-]{0,24}",
    ) {
        check(Target::Duration, &structured(&data));
        check(Target::Duration, raw.as_bytes());
    }
}

/// The manifest generator reaches the kinds kubeloop only stores, with documents their schema accepts (so the
/// oracles above run through their reader, not only its refusals).
#[test]
fn generated_manifests_include_stored_kinds_that_read() {
    use kubeloop_engine::api::Kind;
    let stored: Vec<Kind> = Kind::ALL.into_iter().filter(|k| k.info().stored.is_some()).collect();
    let (mut read, mut state) = (vec![0; stored.len()], 0x9e37_79b9_u32);
    for _ in 0..6_000 {
        let data: Vec<u8> = (0..300)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state >> 24) as u8
            })
            .collect();
        let text = kubeloop_hostile::generate::manifest(&mut kubeloop_hostile::bytes::Bytes::new(&data));
        if let Ok((objects, _)) = kubeloop_engine::manifest::parse(&text) {
            for m in &objects {
                if let Some(i) = stored.iter().position(|k| *k == m.object.kind()) {
                    read[i] += 1;
                }
            }
        }
    }
    for (kind, n) in stored.iter().zip(&read) {
        assert!(*n > 0, "no generated {kind} was read: {read:?}");
    }
}
