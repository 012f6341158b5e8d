//! kubeloop's playground page: a yew view over the simulation engine. The simulation runs outside yew's state
//! ([`liverun::LiveRun`] behind an `Rc<RefCell<_>>`), advanced by a requestAnimationFrame loop within a per-frame wall
//! budget; the view re-renders from a [`snapshot::Snapshot`] built at a bounded rate.

pub mod app;
pub mod charts;
pub mod cmd;
pub mod components;
pub mod console;
pub mod crash;
pub mod deferred;
pub mod driftmeter;
pub mod examples;
pub mod format;
pub mod highlight;
pub mod lessons;
pub mod liverun;
pub mod persist;
pub mod readmeter;
pub mod services;
pub mod session;
pub mod share;
pub mod snapshot;
pub mod stream;
pub mod textwindow;
pub mod view;

/// Mounts the page on `<body>`.
pub fn start() {
    app::mark("kubeloop:main");
    yew::Renderer::<app::App>::new().render();
    // After the renderer, which sets a panic hook of its own (a console message only).
    #[cfg(target_arch = "wasm32")]
    crash::install();
}
