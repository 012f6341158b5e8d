#!/usr/bin/env bash
# Installs what building and testing the playground page needs; idempotent, and quick when all is present.
#
#   bash scripts/setup-web.sh                 # wasm32 target, trunk, wasm-bindgen-cli, npm packages
#   bash scripts/setup-web.sh --with-browser  # ... and Debian's chromium (browser tests); or KUBELOOP_WITH_BROWSER=1
#
# - the wasm32-unknown-unknown target (rustup)
# - trunk 0.21.14 (cargo install --locked; trunk 0.22 needs a newer rustc)
# - wasm-bindgen-cli at exactly the version of the `wasm-bindgen` crate in Cargo.lock (trunk runs it from PATH
#   only when the versions match, and never downloads it: builds use `trunk build --offline`)
# - npm packages pinned in package.json / package-lock.json: playwright-core (drives the system chromium; it
#   downloads no browser) and binaryen (its wasm-opt; Debian's binaryen is too old for trunk)
# - with --with-browser: chromium from apt, only if /usr/bin/chromium is missing
#
# This script exports nothing to its caller. Callers put the tools on PATH themselves:
#   export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
# (scripts/serve.sh and scripts/test.sh do).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
with_browser=${KUBELOOP_WITH_BROWSER:-0}
for arg in "$@"; do
  case "$arg" in
    --with-browser) with_browser=1 ;;
    *) echo "setup-web: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

# Local to this process: find what cargo install and npm put in place.
PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

say() { printf 'setup-web: %s\n' "$*"; }

# --- Rust: wasm32 target -------------------------------------------------------------------------------------
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "wasm32-unknown-unknown target present"
else
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# --- trunk -----------------------------------------------------------------------------------------------------
have_trunk=$(trunk --version 2>/dev/null || true)
if [ "$have_trunk" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION present"
else
  say "installing trunk $TRUNK_VERSION (found: ${have_trunk:-none}; takes several minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

# --- wasm-bindgen-cli, at the version Cargo.lock pins ----------------------------------------------------------
wbg_version=$(awk '
  /^\[\[package\]\]/ { in_wbg = 0 }
  $0 == "name = \"wasm-bindgen\"" { in_wbg = 1; next }
  in_wbg && /^version = / { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)
if [ -z "$wbg_version" ]; then
  say "warning: no wasm-bindgen crate in Cargo.lock, so no wasm-bindgen-cli is installed (the page has no wasm-bindgen dependency yet)" >&2
else
  have_wbg=$(wasm-bindgen --version 2>/dev/null || true)
  if [ "$have_wbg" = "wasm-bindgen $wbg_version" ]; then
    say "wasm-bindgen-cli $wbg_version present"
  else
    say "installing wasm-bindgen-cli $wbg_version (found: ${have_wbg:-none}; takes several minutes)"
    # Not --locked: the CLI's own lock file does not build with every toolchain; the version is exact.
    cargo install wasm-bindgen-cli --version "=$wbg_version" --force
  fi
fi

# --- npm packages ----------------------------------------------------------------------------------------------
npm_current() {
  # True when every devDependency in package.json is installed at exactly the pinned version.
  node -e '
    const fs = require("fs");
    const want = JSON.parse(fs.readFileSync("package.json", "utf8")).devDependencies || {};
    for (const [name, version] of Object.entries(want)) {
      let have;
      try { have = JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, "utf8")).version; } catch { process.exit(1); }
      if (have !== version) process.exit(1);
    }
  ' 2>/dev/null
}
if npm_current; then
  say "npm packages present ($(node -p 'Object.entries(require("./package.json").devDependencies).map(([n, v]) => n + "@" + v).join(", ")'))"
elif [ -f package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund
else
  say "npm install (no package-lock.json yet)"
  npm install --no-audit --no-fund
fi
wasm-opt --version >/dev/null || { echo "setup-web: node_modules/.bin/wasm-opt does not run" >&2; exit 1; }

# --- chromium (opt-in) -----------------------------------------------------------------------------------------
if [ "$with_browser" = 1 ]; then
  if [ -x /usr/bin/chromium ]; then
    say "chromium present ($(/usr/bin/chromium --version 2>/dev/null | head -n 1))"
  else
    say "installing chromium with apt"
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium </dev/null
  fi
fi

say "done"
