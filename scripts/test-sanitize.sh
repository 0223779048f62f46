#!/usr/bin/env bash
# `make test-sanitize`: builds the scheduler, the op library, the tools and the tests
# with AddressSanitizer + UndefinedBehaviorSanitizer (clang-14, TESSERA_SANITIZE=ON)
# and the libFuzzer targets (TESSERA_FUZZ=ON) in build-sanitize/, then runs the
# sanitizer-labelled subset of the tests (tests/sanitize/CMakeLists.txt) and every
# fuzz target for a bounded number of executions (tests/fuzz/). Prints how long each
# part took. Environment: SANITIZE_BUILD_DIR (build-sanitize), SANITIZE_JOBS (2),
# CMAKE_FLAGS (extra configure flags), TESSERA_FUZZ_RUNS (200000 executions per target).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${SANITIZE_JOBS:-2}
runs=${TESSERA_FUZZ_RUNS:-200000}

for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null || { echo "test-sanitize: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

elapsed() { local s=$(($(date +%s) - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
all=$(date +%s)

# -O1 with line tables: readable sanitizer stack traces; no -DNDEBUG, so assertions
# stay on.
t=$(date +%s)
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DTESSERA_SANITIZE=ON -DTESSERA_FUZZ=ON -DTESSERA_FUZZ_RUNS="$runs" ${CMAKE_FLAGS:-} \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
grep -E "^-- (Halide|Sanitizers|Fuzzing)" "$build.configure.log" || true

# The build runs sanitized tools (the AOT generators with the plugin, test discovery):
# they need the same options as the tests.
source tests/sanitize/env.sh
cmake --build "$build" -j "$jobs" --target sanitize-tests
echo "test-sanitize: configure + sanitized build: $(elapsed "$t")"

# Both parts run even when the first fails; the exit status is non-zero if either did.
status=0
t=$(date +%s)
(cd "$build" && ctest -L sanitize --output-on-failure -j "$jobs") || status=1
echo "test-sanitize: sanitizer-labelled tests: $(elapsed "$t")"

t=$(date +%s)
(cd "$build" && ctest -L fuzz --output-on-failure -j "$jobs") || status=1
cat "$build"/tests/fuzz/work/*/summary 2>/dev/null || true
echo "test-sanitize: fuzz targets ($runs executions each): $(elapsed "$t")"
echo "test-sanitize: total $(elapsed "$all")"
exit $status
