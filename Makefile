# The two commands a newcomer runs (see README):
#   make run    install what is missing, build pkg/, run the bundled samples through the engine,
#               then serve the recall-tuning page on 127.0.0.1 (PORT=8787 by default; Ctrl+C stops)
#   make test   install what is missing, build, run every test
SHELL := /bin/bash
export PATH := $(CURDIR)/js-glue/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER := /usr/bin/chromedriver
export GECKODRIVER := $(HOME)/.cargo/bin/geckodriver

# Two packages from the one crate (cargo features, see Cargo.toml):
#   pkg/          the plugin's (ContextEngine + the few free functions js-glue calls), copied
#                 into js-glue/pkg/ so an install that copies js-glue/ carries it
#   www-demo/pkg/ the tuning page's (the pure Engine with explain records, the trigger timeline, liveSearch)
# and, for tests only, target/pkg-test/: both plus the test-only exports (`testing`), built
# with the wasm-test profile (release code without fat LTO or wasm-opt: quicker to build).
WASM := openviking_context_engine_bg.wasm
PKG := pkg/$(WASM)
PAGE_PKG := www-demo/pkg/$(WASM)
TEST_PKG := target/pkg-test/$(WASM)
# wasm-opt's flags: the release profile's, from Cargo.toml (one source)
WASM_OPT_FLAGS := $(shell sed -n 's/^wasm-opt = \[\(.*\)\]/\1/p' Cargo.toml | head -n 1 | tr -d '",')
SOURCES := $(shell find src -name '*.rs') src/wasm/types.d.ts src/wasm/tools.json Cargo.toml Cargo.lock

.PHONY: run test setup setup-core build test-pkg test-rust test-wasm test-js bench fuzz clean

PORT ?= 8787

run: setup-core build
	node js-glue/bin/sample.mjs
	node www-demo/serve.mjs $(PORT)

test: setup build test-pkg
	bash tests/run-all.sh

setup-core:
	.ci/install-tools.sh core

setup:
	.ci/install-tools.sh all

build: setup-core $(PKG) js-glue/$(PKG) $(PAGE_PKG)

test-pkg: setup-core $(TEST_PKG)

# (setup-core first: wasm-pack needs npm's wasm-opt, or it tries to download binaryen)
# the plugin's: the plugin-release profile (opt-level "s"), then wasm-opt with the release flags
$(PKG): $(SOURCES) | setup-core
	wasm-pack build --profile plugin-release --no-opt --target web --out-dir pkg --no-pack -- --no-default-features --features plugin
	wasm-opt $(PKG) $(WASM_OPT_FLAGS) -o $(PKG)
	@touch $(PKG)

# a copy inside the plugin folder, so an install that copies js-glue/ carries the wasm
js-glue/$(PKG): $(PKG)
	rm -rf js-glue/pkg && mkdir -p js-glue/pkg && cp pkg/*.js pkg/*.wasm pkg/*.d.ts js-glue/pkg/

$(PAGE_PKG): $(SOURCES) | setup-core
	wasm-pack build --release --target web --out-dir www-demo/pkg --no-pack -- --no-default-features --features page
	@touch $(PAGE_PKG)

$(TEST_PKG): $(SOURCES) | setup-core
	wasm-pack build --profile wasm-test --no-opt --target web --out-dir target/pkg-test --no-pack -- --features testing
	@touch $(TEST_PKG)

bench: setup-core build test-pkg
	.ci/install-tools.sh openviking
	node tests/bench/recall-workloads.mjs
	cargo bench --bench recall
	node tests/bench/recall-wasm.mjs
	node tests/bench/tokens.mjs
	node tests/bench/write-path.mjs
	node tests/bench/write-memory.mjs
	node tests/bench/assemble-scale.mjs
	node tests/bench/scale.mjs --png chromium
	node tests/bench/wasm-size.mjs
	node tests/bench/quality/run.mjs
	node tests/bench/quality/run.mjs --set tune
	node tests/bench/quality/run.mjs --set heldout
	node tests/bench/quality/run.mjs --set heldout2
	node tests/bench/quality/run.mjs --set heldout3
	node tests/bench/experiences.mjs
	node tests/bench/skills.mjs
	node tests/bench/hung-server.mjs
	node tests/bench/plugin-turn.mjs
	node tests/bench/plugin-cold-turn.mjs
	@if [ -n "$$LEGACY_PLUGIN_DIR" ]; then node tests/bench/recall-legacy.mjs && node tests/bench/legacy-divergence.mjs; else echo "recall-legacy, legacy-divergence: set LEGACY_PLUGIN_DIR (see tests/bench/recall-legacy.mjs) to compare with the legacy plugin"; fi
	CRASH_TURNS=1000 CRASH_KILLS=60 CRASH_RESTARTS=6 node --test tests/integration/crash-kill.test.mjs
	$(MAKE) fuzz

# the long fuzz run of the wasm package (the test command runs a shorter one)
fuzz: setup-core build test-pkg
	node tests/fuzz/fuzz.mjs --calls 1000000

clean:
	rm -rf pkg js-glue/pkg www-demo/pkg target
