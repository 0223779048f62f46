#!/usr/bin/env bash
# Fused against --no-fusion, side by side: compiles MODEL.onnx both ways with
# `tessera compile`, then runs the two libraries in alternating rounds (A B A B ...)
# on the same input, so a slow spell of the machine hits both, and prints each
# round's medians and the ratio of the best medians.
#   scripts/compare-fusion.sh MODEL.onnx INPUT.npy [ROUNDS] [REPS] [BUILD_DIR]
set -euo pipefail
model=$1 input=$2 rounds=${3:-5} reps=${4:-10} build=${5:-build}
tessera="$build/apps/tessera/tessera"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tessera" compile "$model" -o "$work/fused" | grep -E "^(fusion|compiled)"
"$tessera" compile "$model" -o "$work/unfused" --no-fusion | grep -E "^(fusion|compiled)"
median() { sed -n 's/.*"time_ms_median": \([0-9.e+-]*\).*/\1/p' "$1"; }
best_f=inf best_u=inf
for ((r = 1; r <= rounds; r++)); do
  "$tessera" run "$work/fused" --input "$input" --reps "$reps" --json "$work/f.json" > /dev/null
  "$tessera" run "$work/unfused" --input "$input" --reps "$reps" --json "$work/u.json" > /dev/null
  f=$(median "$work/f.json") u=$(median "$work/u.json")
  printf "round %d: fused %.3f ms, unfused %.3f ms\n" "$r" "$f" "$u"
  best_f=$(python3 -c "print(min(float('$best_f'), $f))") best_u=$(python3 -c "print(min(float('$best_u'), $u))")
done
python3 -c "print(f'$(basename "$model"): fused {$best_f:.3f} ms, unfused {$best_u:.3f} ms (best medians of $rounds rounds x $reps runs): {$best_u / $best_f:.2f}x')"
