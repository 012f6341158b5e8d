//! The playground's entry point: in the browser (wasm32) it mounts the page; a native build only says where the
//! page lives (the crate also builds natively so the workspace's clippy and tests cover it).

#[cfg(target_arch = "wasm32")]
fn main() {
    kubeloop_web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("kubeloop-web is the playground page: build it with `trunk build --release` and open dist/index.html");
}
