#!/usr/bin/env bash
# Runs every test suite of the project, in order, and prints one closing line
# "N passed, M failed". Called by `make test` (after set-up and build) and by .ci/run.
# Each suite's full output goes to tests/artifacts/logs/<suite>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/js-glue/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export GECKODRIVER="${GECKODRIVER:-$HOME/.cargo/bin/geckodriver}"
logs=tests/artifacts/logs
mkdir -p "$logs"

total_pass=0
total_fail=0
failed_suites=()

# Sums "test result: ok. N passed; M failed" (cargo / wasm-bindgen-test) and "# pass N" /
# "# fail M" (node --test) from a log.
count() {
  local log=$1 p f
  p=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
  f=$(grep -Eo '[0-9]+ failed;' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
  local np nf
  np=$(grep -E '^# pass [0-9]+' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
  nf=$(grep -E '^# fail [0-9]+' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
  # python unittest: "Ran N tests" then "OK" or "FAILED (failures=F, errors=E)"
  local up=0 uf=0
  if grep -qE '^Ran [0-9]+ tests? in' "$log"; then
    local ran; ran=$(grep -Eo '^Ran [0-9]+' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc)
    uf=$(grep -E '^FAILED \(' "$log" | grep -Eo '(failures|errors)=[0-9]+' | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null)
    uf=${uf:-0}
    up=$(( ran - uf ))
  fi
  echo "$(( ${p:-0} + ${np:-0} + up )) $(( ${f:-0} + ${nf:-0} + uf ))"
}

# suite NAME MUST_MATCH COMMAND… — runs a suite; it fails if the command fails, if it ran
# no test, or if its log lacks MUST_MATCH (e.g. proof that a browser really ran the tests).
suite() {
  local name=$1 must=$2; shift 2
  local log="$logs/$name.log" start=$SECONDS
  printf '── %-22s ' "$name"
  "$@" >"$log" 2>&1
  local rc=$?
  read -r p f < <(count "$log")
  # a suite that is a plain program (no test runner) counts as one test
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ $rc -eq 0 ] && [ -n "$must" ] && grep -q -- "$must" "$log"; then p=1; fi
  local ok=1
  [ $rc -eq 0 ] || ok=0
  [ "$p" -gt 0 ] || ok=0
  if [ -n "$must" ] && ! grep -q -- "$must" "$log"; then ok=0; fi
  # a browser suite must not have fallen back to another browser
  case "$name" in
    wasm-chrome) ! grep -q "tests in Firefox" "$log" || ok=0 ;;
    wasm-firefox) ! grep -q "tests in Chrome" "$log" || ok=0 ;;
  esac
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  if [ $ok -eq 1 ]; then
    printf '%4d passed  (%ds)\n' "$p" $((SECONDS - start))
  else
    [ "$f" -gt 0 ] || total_fail=$((total_fail + 1))
    failed_suites+=("$name")
    printf 'FAILED (exit %d, %d passed, %d failed; log %s)\n' $rc "$p" "$f" "$log"
    tail -n 40 "$log" | sed 's/^/   │ /'
  fi
}

# The JS suites load the shipped packages (make build: pkg/ for the plugin, www-demo/pkg/ for
# the page) and, where they call a test-only export, the test build (target/pkg-test/: both
# packages' exports and the test-only ones). It is built here when missing or stale.
if ! make --no-print-directory test-pkg >"$logs/test-pkg.log" 2>&1; then
  echo "the test build (make test-pkg) failed: see $logs/test-pkg.log"
  tail -n 20 "$logs/test-pkg.log"
  exit 1
fi

# `typescript` (off in every shipped build) adds the ts-rs derives tests/typescript_declarations.rs
# needs to check src/wasm/types.d.ts against the Rust types
suite rust-native "" cargo test --all-targets --features typescript
suite rust-doc "" cargo test --doc
# The Rust suite runs under wasm once, in Node, with both packages' features (the default);
# the browsers run only the code that is the browser's: the page's exports and its live search
# over fetch (tests/wasm_exports.rs, tests/http_host.rs, built as the page is).
suite wasm-node "" wasm-pack test --node
BROWSER_TESTS=(--no-default-features --features page,browser-tests --test wasm_exports --test http_host)
suite wasm-chrome "Running headless tests in Chrome" env -u GECKODRIVER wasm-pack test --headless --chrome -- "${BROWSER_TESTS[@]}"
suite wasm-firefox "Running headless tests in Firefox" env -u CHROMEDRIVER wasm-pack test --headless --firefox -- "${BROWSER_TESTS[@]}"
suite js-pkg "" node --test js-glue/test/*.test.mjs
suite openviking-client "" node --test js-glue/test/openviking/ tests/inspect/
suite tokens-reference "# pass" node --test tests/bench/tokens-reference.test.mjs
suite sample "kept #1" node js-glue/bin/sample.mjs
suite browser-demo "# screenshot" node --test tests/browser/
suite fuzz "# fuzz calls=" node --test tests/fuzz/fuzz.test.mjs
suite openviking-smoke "" python3 -m unittest -v tests/openviking/smoke_test.py
suite integration "" node --test --test-concurrency=1 tests/integration/
suite e2e-openclaw "" node --test --test-concurrency=1 tests/e2e/

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
  echo "failed suites: ${failed_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ ${#failed_suites[@]} -eq 0 ]
