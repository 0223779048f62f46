#!/usr/bin/env bash
# run_fuzzer.sh FUZZER NAME WORK_DIR RUNS: one fuzz CTest case (tests/fuzz/README.md).
#  1. Replays every regression input of tests/fuzz/regressions/NAME/: each must run
#     clean and its output must contain the message in the matching .expect file.
#  2. Builds the seed corpus from apps/suites (or the test device profiles).
#  3. Runs the fuzzer for RUNS executions (fixed seed TESSERA_FUZZ_SEED, default 1;
#     0 draws one) and prints how many it executed. Fails on any crash, hang (an
#     input over 10 s), out-of-memory, leak or other sanitizer report.
set -uo pipefail
fuzzer=$1
name=$2
work=$3
runs=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
source "$here/../sanitize/env.sh"
seed=${TESSERA_FUZZ_SEED:-1}

rm -rf "$work"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts"

# 1. Regression inputs.
failed=0
replayed=0
for input in "$here/regressions/$name"/*.input; do
  [[ -e "$input" ]] || continue
  replayed=$((replayed + 1))
  output=$(TESSERA_FUZZ_PRINT=1 "$fuzzer" "$input" 2>&1 | tr -d '\000')
  rc=${PIPESTATUS[0]}
  message=$(grep -E '^(rejected|accepted): ' <<<"$output" | head -n 3)
  expect_file=${input%.input}.expect
  if [[ $rc -ne 0 ]]; then
    echo "$output"
    echo "regression $(basename "$input"): FAILED (exit status $rc)"
    failed=1
  elif [[ -f "$expect_file" ]] && ! grep -qF -- "$(head -n 1 "$expect_file")" <<<"$message"; then
    echo "regression $(basename "$input"): FAILED: expected '$(head -n 1 "$expect_file")', got: $message"
    failed=1
  else
    echo "regression $(basename "$input"): ${message:-ran clean}"
  fi
done
echo "$name: $replayed regression inputs replayed"
[[ $failed -eq 0 ]] || exit 1

# 2. Seeds: apps/suites' lines (and the small, awkward cases of tests/op_cases.h, which
# fit the size bound of fuzz_op_build) for the op parsers, tests/ for the profile loader.
n=0
suite_lines() {
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$source_dir"/apps/suites/*.suite | grep -v '^[[:space:]]*$'
  sed -n 's/^[[:space:]]*"\([a-z][a-z0-9_]* [^"]*\)",.*/\1/p' "$source_dir"/tests/op_cases.h
}
case "$name" in
  fuzz_suite_file)
    cp "$source_dir"/apps/suites/*.suite "$work/seeds/"
    while IFS= read -r line; do n=$((n + 1)); printf '%s\n' "$line" >"$work/seeds/line$n"; done < <(suite_lines)
    dict=$here/ops.dict ;;
  fuzz_op_build)
    while IFS= read -r line; do n=$((n + 1)); printf '%s' "$line" >"$work/seeds/line$n"; done < <(suite_lines)
    dict=$here/ops.dict ;;
  fuzz_bench_shape)
    # "conv2d n=1 c=64 ..." -> "conv2d\nn=1,c=64,..." (--op, then --shape)
    while IFS= read -r line; do
      n=$((n + 1))
      read -r op keys <<<"$line"
      printf '%s\n%s' "$op" "${keys// /,}" >"$work/seeds/line$n"
    done < <(suite_lines)
    dict=$here/ops.dict ;;
  fuzz_device_profile)
    cp "$source_dir"/tests/profiles/*.json "$source_dir"/tests/small_llc_profile.json "$work/seeds/"
    dict=$here/profile.dict ;;
  *)
    echo "run_fuzzer.sh: unknown fuzz target '$name'" >&2
    exit 2 ;;
esac
echo "$name: $(ls "$work/seeds" | wc -l) seed inputs, dictionary $(basename "$dict"), seed $seed"

# 3. Fuzz.
start=$(date +%s)
"$fuzzer" -runs="$runs" -seed="$seed" -max_len=4096 -timeout=10 -rss_limit_mb=2560 -dict="$dict" \
  -print_final_stats=1 -print_funcs=0 -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" >"$work/log" 2>&1
rc=$?
seconds=$(($(date +%s) - start))
executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
if [[ $rc -ne 0 ]]; then
  tail -n 80 "$work/log"
  echo "$name: FAILED (exit status $rc) after ${executed:-?} executions in ${seconds} s"
  for a in "$work"/artifacts/*; do
    [[ -e "$a" ]] && echo "  input: $a (reproduce: $fuzzer $a; keep it as tests/fuzz/regressions/$name/NAME.input)"
  done
  exit 1
fi
grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|Done )' "$work/log"
echo "$name: $executed executions in ${seconds} s ($replayed regression inputs replayed first), $(ls "$work/corpus" | wc -l) new corpus inputs, no crash, hang, leak or sanitizer report" | tee "$work/summary"
