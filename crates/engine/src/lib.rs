//! kubeloop's simulation engine: a deterministic, single-threaded, discrete-event simulation of a Kubernetes
//! control plane. No web dependencies, no wall clock, no unseeded randomness.

pub mod admission;
pub mod api;
pub mod bench;
pub mod client;
pub mod controller;
pub mod controllers;
pub mod faults;
pub mod footprint;
pub mod informer;
pub mod intervention;
pub mod kubectl;
pub mod kubelet;
pub mod leaderelection;
pub mod limits;
pub mod manifest;
pub mod recorder;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod soak;
pub mod store;
pub mod time;
pub mod watch;
pub mod workqueue;
pub mod yamlcheck;
pub mod yamlpos;
