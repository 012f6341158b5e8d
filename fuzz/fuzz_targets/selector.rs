#![no_main]
//! The `selector` target: see `kubeloop_hostile` for the input format and the oracles.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kubeloop_hostile::check(kubeloop_hostile::Target::Selector, data));
