#!/usr/bin/env bash
# Installs everything the build and the tests need, at the pinned versions, and skips
# whatever is already there. Safe to run again and again; `make serve` and `make test`
# run it first.
#
#   - the wasm32-unknown-unknown target            (rustup)
#   - trunk $TRUNK_VERSION                          (cargo install --locked)
#   - leptosfmt $LEPTOSFMT_VERSION                   (cargo install --locked; formats view!)
#   - wasm-bindgen-cli at the version Cargo.lock pins (cargo install, not --locked:
#     a locked dependency of it is missing from the registry)
#   - Debian's chromium, nodejs and npm              (apt-get, only if missing)
#   - playwright-core and binaryen (wasm-opt ≥ 117)  (npm ci, from package-lock.json)
#
# Never Debian's binaryen: its wasm-opt 108 writes wasm that browsers reject.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
LEPTOSFMT_VERSION=0.1.33
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# The wasm-bindgen version is read from Cargo.lock, so the CLI always matches the crate.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WASM_BINDGEN_VERSION" ]; then
  echo "cannot read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION from source (about 12 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

if ! leptosfmt --version 2>/dev/null | grep -q "leptosfmt $LEPTOSFMT_VERSION"; then
  say "installing leptosfmt $LEPTOSFMT_VERSION from source (about 3 minutes)"
  cargo install leptosfmt --version "$LEPTOSFMT_VERSION" --locked
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen $WASM_BINDGEN_VERSION"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION from source (about 7 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages: $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

# npm ci only when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing the browser-test packages and binaryen (npm ci)"
  npm ci --no-audit --no-fund
fi

wasm_opt_major=$(node_modules/.bin/wasm-opt --version | awk '{ print $3 }')
if [ "${wasm_opt_major:-0}" -lt 117 ]; then
  echo "node_modules/.bin/wasm-opt is version ${wasm_opt_major}; need ≥ 117" >&2
  exit 1
fi

say "ready: $(trunk --version), $(leptosfmt --version), wasm-bindgen $WASM_BINDGEN_VERSION, wasm-opt $wasm_opt_major, $(/usr/bin/chromium --version 2>/dev/null | head -1)"
