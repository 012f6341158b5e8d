#!/usr/bin/env bash
# Sets up everything and serves the kubeloop playground locally:
#   installs the web toolchain (scripts/setup-web.sh: wasm32 target, trunk, wasm-bindgen-cli, npm packages),
#   builds the release site into dist/ (trunk build --release --offline), serves dist/ over HTTP and prints the URL.
#
#   bash scripts/serve.sh                 # http://127.0.0.1:8080/
#   PORT=9000 bash scripts/serve.sh       # another port; HOST=0.0.0.0 to listen on every interface
#
# dist/ is a static site and works from any sub-path (see docs/web-tests.md). The native runner stays available:
#   cargo run --release -p kubeloop-cli -- run examples/web.yaml
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8080}
HOST=${HOST:-127.0.0.1}

bash scripts/setup-web.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

printf '\n==> building the playground (trunk build --release --offline)\n'
trunk build --release --offline

url_host=$HOST
if [ "$HOST" = 0.0.0.0 ]; then url_host=127.0.0.1; fi
printf '\nkubeloop playground: http://%s:%s/\n(Ctrl+C stops the server)\n\n' "$url_host" "$PORT"
exec python3 -m http.server --bind "$HOST" --directory dist "$PORT"
