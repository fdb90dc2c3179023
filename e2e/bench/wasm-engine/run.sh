#!/usr/bin/env bash
# Builds the wasm engine harness like Trunk builds the app (cargo --release for
# wasm32-unknown-unknown from the root, so with the root's profile and any
# .cargo/config.toml; wasm-bindgen --target web; wasm-opt at the level index.html asks
# for) and times engine::run in headless Chromium.
#   e2e/bench/wasm-engine/run.sh [RUNS_T16 RUNS_T128 RUNS_T512]
# It also builds the harness with wasm SIMD toggled the other way (+simd128 if the app's
# flags lack it, -simd128 if they have it; RUSTFLAGS, its own target dir) and runs the two
# builds interleaved in one browser (pkg/ = as the app, pkg-simd/ or pkg-nosimd/); SIMD=0
# skips that.
# CARGO_PROFILE_RELEASE_OPT_LEVEL=s and WASM_OPT_LEVEL=s try other optimisation levels.
# PROFILE=release-worker builds the engine as the worker ships it (opt-level 2: training
# and large inputs run there; train.mjs and same.mjs want it); the default, release, is the
# page's (opt-level z).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$root/scripts/env.sh"
cd "$root" # cargo reads .cargo/config.toml from the working directory, as under Trunk
# the [profile.*] sections' settings, comments left out
profile() { awk '/^\[/{on = ($0 ~ /^\[profile\./)} on && NF && !/^#/' "$1"; }
if ! diff <(profile "$root/Cargo.toml") <(profile "$here/Cargo.toml") >/dev/null; then
  echo "e2e/bench/wasm-engine/Cargo.toml: its [profile.*] sections differ from the root's; copy them" >&2
  exit 1
fi
if [ -n "${RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
  echo "RUSTFLAGS is set: it replaces .cargo/config.toml's flags, so the harness is not built like the app" >&2
fi
level="${WASM_OPT_LEVEL:-$(grep -o 'data-wasm-opt="[^"]*"' "$root/index.html" | head -1 | cut -d'"' -f2)}"
cp "$root/Cargo.lock" "$here/Cargo.lock"
cargo_profile="${PROFILE:-release}"

# build TARGET_DIR OUT_DIR [RUSTFLAGS]
build() {
  local target="$1" out="$2"
  if [ $# -ge 3 ]; then
    RUSTFLAGS="$3" CARGO_TARGET_DIR="$target" cargo build --quiet --offline --profile "$cargo_profile" \
      --target wasm32-unknown-unknown --manifest-path "$here/Cargo.toml"
  else
    CARGO_TARGET_DIR="$target" cargo build --quiet --offline --profile "$cargo_profile" \
      --target wasm32-unknown-unknown --manifest-path "$here/Cargo.toml"
  fi
  rm -rf "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" \
    "$target/wasm32-unknown-unknown/$cargo_profile/al_wasm_engine_bench.wasm"
  # no --enable-simd: wasm-opt takes the features from the target_features section
  wasm-opt "-O${level:-z}" "$out/al_wasm_engine_bench_bg.wasm" -o "$out/al_wasm_engine_bench_bg.wasm"
  cat > "$out/index.html" <<'HTML'
<!DOCTYPE html><meta charset="utf-8"><title>engine bench</title>
<script type="module">
import init, { engine_times, train_rates, train_losses } from './al_wasm_engine_bench.js';
await init();
window.engineTimes = (t, runs) => Array.from(engine_times(t, runs));
window.trainRates = (config, steps, runs) => Array.from(train_rates(config, steps, runs));
window.trainLosses = (config, steps) => Array.from(train_losses(config, steps));
window.ready = true;
</script>
HTML
  # does the optimised wasm use SIMD? (opcode prefix 0xfd; binaryen prints v128 ops)
  local n
  n=$(wasm-dis "$out/al_wasm_engine_bench_bg.wasm" 2>/dev/null | grep -c 'f64x2\|v128' || true)
  echo "$(basename "$out"): $(wc -c < "$out/al_wasm_engine_bench_bg.wasm") bytes, $n lines with v128/f64x2 ops" >&2
}

# the root's target dir: the dependencies are shared with the app's build
build "$root/target" "$here/pkg"
dirs="$here/pkg"
if [ "${SIMD:-1}" != 0 ]; then
  if grep -qs 'simd128' "$root/.cargo/config.toml"; then other=nosimd flag=-simd128; else other=simd flag=+simd128; fi
  build "$root/target/wasm-engine-$other" "$here/pkg-$other" "-C target-feature=$flag"
  dirs="$here/pkg,$here/pkg-$other"
fi
node "$here/run.mjs" "$dirs" "$@"
