#!/usr/bin/env bash
# Sets up and runs kubeloop locally. Until the playground page lands, "run" is the native runner:
# it plays the example scenario and prints its timeline and summary.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p kubeloop-cli
exec ./target/release/kubeloop run examples/web.yaml "$@"
