#!/usr/bin/env bash
# The whole test suite, in order, stopping at the first failure:
#   1. cargo fmt --check, leptosfmt --check, the source shape (scripts/shape-check.py)
#   2. cargo clippy, native and wasm32   3. cargo test (native)
#   4. trunk build --release --offline   5. browser tests against dist/ in Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1/5 cargo fmt --check, leptosfmt --check (the view! macros), scripts/shape-check.py"
cargo fmt --check
leptosfmt --check --quiet src
scripts/shape-check.py --self-test
scripts/shape-check.py

step "2/5 cargo clippy --all-targets -- -D warnings (native), then wasm32"
cargo clippy --all-targets -- -D warnings
cargo clippy --workspace --target wasm32-unknown-unknown -- -D warnings

step "3/5 cargo test"
cargo test

step "3b/5 exported Python scripts and notebooks, run by NumPy"; scripts/python-check.sh

step "4/5 trunk build --release --offline"
cargo fetch --quiet
trunk build --release --offline

step "4b/5 byte budgets (e2e/bench/budgets.mjs): everything shipped, and the first screen, gzip -9"
node e2e/bench/load.mjs --dist dist --size-only

step "5/5 browser tests (headless Chromium)"
node e2e/run.mjs --dist dist
