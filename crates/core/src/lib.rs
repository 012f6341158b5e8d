//! kubeloop's simulated control plane: a deterministic, single-threaded, discrete-event simulation of a Kubernetes
//! control plane (API store, watches, informers, work queues, controllers, scheduler, kubelets). No web
//! dependencies, no wall clock, no unseeded randomness. What a person does to it (kubectl, manifests, scenarios,
//! interventions) is `kubeloop-engine`, which re-exports this crate: front ends use that one.

#![forbid(unsafe_code)]

#[doc(hidden)]
pub mod admission;
pub mod api;
pub mod backoff;
pub mod behaviour;
pub mod cause;
#[doc(hidden)]
pub mod client;
pub mod controller;
pub mod controllers;
pub mod cron;
pub mod eviction;
#[doc(hidden)]
pub mod faults;
pub mod fnv;
pub mod footprint;
pub mod informer;
pub mod kubelet;
#[doc(hidden)]
pub mod leaderelection;
pub mod limits;
pub mod recorder;
pub mod rng;
pub mod sim;
pub mod sort;
pub mod store;
pub mod time;
pub mod vecmap;
#[doc(hidden)]
pub mod watch;
pub mod work;
pub mod workqueue;

// The deliberate public API at the root: the types a front end (the page, the runner, a test) builds a run with.
// The concept modules stay public for reading and testing one concept at a time (`store`, `informer`,
// `workqueue`, `controllers::...`); the plumbing (admission, the API client, fault settings, leader election, the
// watch cache) is hidden from the documentation: kubeloop-engine's kubectl reads it, front ends do not. The few
// types its public signatures name are re-exported here.
pub use client::Api;
pub use faults::Faults;
pub use leaderelection::LeaderElectionConfig;
pub use sim::{HostId, ObserveMode, Sim, SimConfig, TimingProfile};
pub use watch::{WatchEvent, WatchFilter, WatcherId};
