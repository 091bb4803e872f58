# The two commands a newcomer runs (see README):
#   make run    install what is missing, build pkg/, run the bundled samples through the engine,
#               then serve the recall-tuning page on 127.0.0.1 (PORT=8787 by default; Ctrl+C stops)
#   make test   install what is missing, build, run every test
SHELL := /bin/bash
export PATH := $(CURDIR)/js-glue/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER := /usr/bin/chromedriver
export GECKODRIVER := $(HOME)/.cargo/bin/geckodriver

PKG := pkg/openviking_context_engine_bg.wasm
SOURCES := $(shell find src -name '*.rs') Cargo.toml Cargo.lock

.PHONY: run test setup setup-core build test-rust test-wasm test-js bench fuzz clean

PORT ?= 8787

run: setup-core build
	node js-glue/bin/sample.mjs
	node www-demo/serve.mjs $(PORT)

test: setup build
	bash tests/run-all.sh

setup-core:
	.ci/install-tools.sh core

setup: setup-core
	.ci/install-tools.sh browsers
	.ci/install-tools.sh openviking
	.ci/install-tools.sh openclaw

build: setup-core $(PKG) js-glue/$(PKG)

# (setup-core first: wasm-pack needs npm's wasm-opt, or it tries to download binaryen)
$(PKG): $(SOURCES) | setup-core
	wasm-pack build --release --target web --out-dir pkg --no-pack
	@touch $(PKG)

# a copy inside the plugin folder, so an install that copies js-glue/ carries the wasm
js-glue/$(PKG): $(PKG)
	rm -rf js-glue/pkg && mkdir -p js-glue/pkg && cp pkg/*.js pkg/*.wasm pkg/*.d.ts js-glue/pkg/

bench: setup-core build
	.ci/install-tools.sh openviking
	cargo bench --bench recall
	node tests/bench/recall-wasm.mjs
	node tests/bench/tokens.mjs
	node tests/bench/write-path.mjs
	node tests/bench/assemble-scale.mjs
	node tests/bench/scale.mjs --png chromium
	node tests/bench/wasm-size.mjs
	node tests/bench/quality/run.mjs
	node tests/bench/experiences.mjs
	@if [ -n "$$LEGACY_PLUGIN_DIR" ]; then node tests/bench/recall-legacy.mjs && node tests/bench/legacy-divergence.mjs; else echo "recall-legacy, legacy-divergence: set LEGACY_PLUGIN_DIR (see tests/bench/recall-legacy.mjs) to compare with the legacy plugin"; fi
	CRASH_TURNS=1000 CRASH_KILLS=60 CRASH_RESTARTS=6 node --test tests/integration/crash-kill.test.mjs
	$(MAKE) fuzz

# the long fuzz run of the wasm package (the test command runs a shorter one)
fuzz: setup-core build
	node tests/fuzz/fuzz.mjs --calls 1000000

clean:
	rm -rf pkg target
