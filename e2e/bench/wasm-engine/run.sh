#!/usr/bin/env bash
# Builds the wasm engine harness like Trunk builds the app (cargo --release for
# wasm32-unknown-unknown with the root's profile, wasm-bindgen --target web, wasm-opt
# at the level index.html asks for) and times engine::run in headless Chromium.
#   e2e/bench/wasm-engine/run.sh [RUNS_T16 RUNS_T128 RUNS_T512]
# CARGO_PROFILE_RELEASE_OPT_LEVEL=s and WASM_OPT_LEVEL=s try other optimisation levels.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$root/scripts/env.sh"
profile() { awk '/^\[/{on = ($0 ~ /^\[profile\./)} on && NF' "$1"; }
if ! diff <(profile "$root/Cargo.toml") <(profile "$here/Cargo.toml") >/dev/null; then
  echo "e2e/bench/wasm-engine/Cargo.toml: its [profile.*] sections differ from the root's; copy them" >&2
  exit 1
fi
level="${WASM_OPT_LEVEL:-$(grep -o 'data-wasm-opt="[^"]*"' "$root/index.html" | cut -d'"' -f2)}"
cp "$root/Cargo.lock" "$here/Cargo.lock"
# the root's target dir: the dependencies are shared with the app's build
CARGO_TARGET_DIR="$root/target" cargo build --quiet --offline --release --target wasm32-unknown-unknown \
  --manifest-path "$here/Cargo.toml"
rm -rf "$here/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$here/pkg" \
  "$root/target/wasm32-unknown-unknown/release/al_wasm_engine_bench.wasm"
wasm-opt "-O${level:-z}" "$here/pkg/al_wasm_engine_bench_bg.wasm" -o "$here/pkg/al_wasm_engine_bench_bg.wasm"
cat > "$here/pkg/index.html" <<'HTML'
<!DOCTYPE html><meta charset="utf-8"><title>engine bench</title>
<script type="module">
import init, { engine_times } from './al_wasm_engine_bench.js';
await init();
window.engineTimes = (t, runs) => Array.from(engine_times(t, runs));
window.ready = true;
</script>
HTML
node "$here/run.mjs" "$here/pkg" "$@"
