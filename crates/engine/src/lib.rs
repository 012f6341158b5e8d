//! kubeloop's simulation engine: the simulated control plane ([`kubeloop_core`], re-exported here whole) and what a
//! person does to it: kubectl, the manifests it applies, scenario files and the interventions they are made of,
//! and the YAML reading behind them. No web dependencies, no wall clock, no unseeded randomness.
//!
//! The two are two crates so that each is compiled as it should be: the control plane for speed, this side (off the
//! simulation's hot path) for size in the page (`docs/size.md`). Nothing in `kubeloop-core` calls into this crate.

pub use kubeloop_core::*;

pub mod addons;
pub mod bench;
pub(crate) mod decode;
pub mod intervention;
pub mod kubectl;
pub(crate) mod libyaml;
pub mod link;
pub mod manifest;
pub mod scenario;
pub mod soak;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod yamlcheck;
pub(crate) mod yamlpos;
pub(crate) mod yamltree;
pub(crate) mod yamlwrite;

pub use intervention::{DeleteTarget, FaultAction, Intervene, Intervention, ModeAction, NodeRef, Performed, Said};
pub use manifest::ObjectText;
pub use scenario::{Run, RunOptions, RunOutput, Scenario, ScenarioError};
