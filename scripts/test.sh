#!/usr/bin/env bash
# Sets up everything the tests need on a fresh machine, then runs every test:
#   format, clippy, the Rust tests, the wasm32 build of the engine (and the native-vs-wasm history check), then
#   the playground: the web toolchain
#   and chromium (scripts/setup-web.sh --with-browser), the release site build held to its size budget
#   (scripts/size-budget.json: wasm+js gzipped), and the browser tests
#   (tests/*.test.mjs) against dist/ served from a sub-path.
#
#   bash scripts/test.sh          # everything (CI runs this)
#   bash scripts/test.sh --web    # only the web part: setup, site build, browser tests
set -euo pipefail
cd "$(dirname "$0")/.."

web_only=0
for arg in "$@"; do
  case "$arg" in
    --web) web_only=1 ;;
    *) echo "test.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }

if [ "$web_only" = 0 ]; then
  step "toolchain: rustfmt, clippy, wasm32 target"
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
  rustup target add wasm32-unknown-unknown >/dev/null

  step "format"
  cargo fmt --all -- --check

  step "lint"
  cargo clippy --workspace --all-targets --locked -- -D warnings

  step "tests (engine, runner)"
  cargo test --workspace --locked

  step "the engine builds for wasm32-unknown-unknown unchanged, and gives the native history there"
  cargo build -p kubeloop-engine --target wasm32-unknown-unknown --locked
  cargo build -p kubeloop-wasm-check --target wasm32-unknown-unknown --locked
  cargo build -p kubeloop-cli --locked
  node scripts/wasm-determinism.mjs target/wasm32-unknown-unknown/debug/kubeloop_wasm_check.wasm target/debug/kubeloop \
    examples/*.yaml examples/lessons/*.yaml crates/wasm-check/scenarios/*.yaml
fi

step "web toolchain and browser: trunk, wasm-bindgen-cli, npm packages, chromium"
bash scripts/setup-web.sh --with-browser
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

step "the playground's release build (trunk build --release --offline)"
trunk build --release --offline
test -f dist/index.html || { echo "test.sh: trunk build left no dist/index.html" >&2; exit 1; }

step "the page's size budget (wasm+js gzipped, scripts/size-budget.json)"
node scripts/size-budget.mjs dist target/wasm32-unknown-unknown/web/kubeloop-web.wasm

step "browser tests: dist/ served from a sub-path"
site=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$site"
}
trap cleanup EXIT
ln -s "$PWD/dist" "$site/kubeloop"
port=${TEST_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}
python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port" >"$site/server.log" 2>&1 </dev/null &
server_pid=$!
export KUBELOOP_URL="http://127.0.0.1:$port/kubeloop/"
up=0
for _ in $(seq 1 100); do
  if node -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$KUBELOOP_URL"; then
    up=1
    break
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.2
done
if [ "$up" != 1 ]; then
  cat "$site/server.log" >&2
  echo "test.sh: the HTTP server did not serve $KUBELOOP_URL" >&2
  exit 1
fi
echo "serving dist/ at $KUBELOOP_URL"

rm -rf tests/screenshots
mkdir -p tests/screenshots
rc=0
node --test --test-reporter=spec --test-concurrency=1 tests/ </dev/null || rc=$?

step "screenshots: $PWD/tests/screenshots/ (git-ignored)"
ls -l tests/screenshots/
if [ "$rc" != 0 ]; then
  step "browser tests FAILED (exit $rc)"
  exit "$rc"
fi

step "all tests passed"
