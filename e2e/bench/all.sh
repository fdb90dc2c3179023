#!/usr/bin/env bash
# Every benchmark of BENCHMARKS.md, in order (about 20 minutes on 2 cores). `make bench`.
# Not a test: nothing here asserts a time. Needs numpy (pip install -r tools/requirements.txt).
#   1. native engine vs numpy, interleaved      python3 tools/bench_numpy.py --engine
#   2. engine::run in wasm (T = 16, 128, 512)    e2e/bench/wasm-engine/run.sh
#   3. interaction latency (default, medium, stress)   node e2e/bench/latency.mjs
#   4. bytes shipped and cold load               node e2e/bench/load.mjs
#   5. a decode step and a tile step (issue 21)   node e2e/bench/decode.mjs
#   6. Lighthouse, mobile and desktop, four pages  node e2e/bench/lighthouse.mjs
#   7. blocking while a lesson link starts (4× CPU)  node e2e/bench/blocking.mjs
#   8. training steps/s in the Learn view's worker, and typing beside it
#                                                node e2e/bench/learn-rate.mjs, latency.mjs --train
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
python3 -c 'import numpy' 2>/dev/null || { echo "numpy missing: pip install -r tools/requirements.txt" >&2; exit 1; }
trunk build --release --offline
python3 tools/bench_numpy.py --engine
e2e/bench/wasm-engine/run.sh
node e2e/bench/latency.mjs --dist dist
node e2e/bench/load.mjs --dist dist
node e2e/bench/decode.mjs --dist dist
node e2e/bench/lighthouse.mjs --dist dist --runs 3
node e2e/bench/blocking.mjs --dist dist --page '?lesson=baseball-bat&ls=2'
node e2e/bench/learn-rate.mjs --dist dist
node e2e/bench/latency.mjs --dist dist --only default,medium --train
