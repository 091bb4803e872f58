#!/usr/bin/env bash
# Builds a wasm package twice through the same pipeline, for comparing opt-level 3 against
# opt-level "z": cargo (release profile of Cargo.toml, only opt-level overridden;
# the default features: the plugin's and the page's exports in one module, so `scale.mjs` finds
# the pure Engine in both variants; PKG_FEATURES=plugin or page for one package's exports) →
# wasm-bindgen --target web → wasm-opt with the flags of
# [package.metadata.wasm-pack.profile.release], `-O3` replaced by `-Oz` for the z variant.
# Touches neither pkg/, js-glue/pkg/, www-demo/pkg/, Cargo.toml nor the main target dir. Both variants are
# built from ONE snapshot of a commit (`git archive`, default HEAD) unpacked under the out root,
# not from the working tree, so an edit made while cargo runs cannot end up in only one of
# them; each package dir gets a SOURCE file naming the commit.
#
#   tests/bench/build-variants.sh [out-root] [rev]   # default /tmp HEAD → /tmp/pkg-o3, /tmp/pkg-z
#
# Then: node tests/bench/scale.mjs --pkg /tmp/pkg-o3 --pkg /tmp/pkg-z   (interleaved)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/js-glue/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT="${1:-/tmp}"
REV=$(git rev-parse --verify "${2:-HEAD}^{commit}")
SRC="$OUT/ovce-src-${REV:0:12}"
rm -rf "$SRC" && mkdir -p "$SRC"
git archive "$REV" | tar -x -C "$SRC"
echo "[build-variants] sources: $REV → $SRC" >&2

pin=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' "$SRC/Cargo.toml")
have=$(wasm-bindgen --version | awk '{print $2}')
[ "$pin" = "$have" ] || { echo "wasm-bindgen CLI $have != crate pin $pin (.ci/install-tools.sh core)" >&2; exit 2; }

FEATURES=(--strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue)
# keep FEATURES in step with Cargo.toml's wasm-opt list (minus the -O level)
grep -q '"-O3", "--strip-debug", "--strip-producers", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue"' "$SRC/Cargo.toml" \
  || { echo "Cargo.toml's wasm-opt flags changed: update FEATURES in $0" >&2; exit 2; }

for v in o3 z; do
  level=${v#o}; [ "$v" = z ] && level=z
  target="$PWD/target/bench-$v"
  echo "[build-variants] $v: cargo opt-level=$level → $target" >&2
  (cd "$SRC" && CARGO_TARGET_DIR="$target" CARGO_PROFILE_RELEASE_OPT_LEVEL="$level" \
    cargo build --release --target wasm32-unknown-unknown --lib --locked --quiet ${PKG_FEATURES:+--no-default-features --features "$PKG_FEATURES"})
  raw="$OUT/pkg-$v-raw"
  rm -rf "$raw" "$OUT/pkg-$v" && mkdir -p "$raw" "$OUT/pkg-$v"
  wasm-bindgen --target web --out-dir "$raw" "$target/wasm32-unknown-unknown/release/openviking_context_engine.wasm"
  cp "$raw"/*.js "$raw"/*.d.ts "$OUT/pkg-$v/"
  wasm-opt "$raw/openviking_context_engine_bg.wasm" "-O$level" "${FEATURES[@]}" -o "$OUT/pkg-$v/openviking_context_engine_bg.wasm"
  printf 'commit %s\nopt-level %s\nwasm-opt -O%s\n' "$REV" "$level" "$level" > "$OUT/pkg-$v/SOURCE"
  ls -l "$OUT/pkg-$v/openviking_context_engine_bg.wasm" >&2
done
