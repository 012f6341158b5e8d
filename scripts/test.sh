#!/usr/bin/env bash
# Sets up everything the tests need on a fresh machine, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "toolchain: rustfmt, clippy, wasm32 target"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
rustup target add wasm32-unknown-unknown >/dev/null

step "format"
cargo fmt --all -- --check

step "lint"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "tests (engine, runner)"
cargo test --workspace --locked

step "the engine builds for wasm32-unknown-unknown unchanged"
cargo build -p kubeloop-engine --target wasm32-unknown-unknown --locked

step "all tests passed"
