#!/usr/bin/env bash
# `make run`: the main job end to end on the two models generated at build time
# (scripts/make-demo-models.py): each is compiled to a library, run from it, checked
# against the reference evaluator (--reference, plain C++, no Halide) and timed,
# fused and with --no-fusion; then the cost of one partition call, from a chain of 200
# small elementwise nodes compiled as 200 kernels and as one. Exit status: non-zero
# when any step or check fails.
set -euo pipefail
build=${1:-build}
tessera="$build/apps/tessera/tessera"
demo="$build/demo"
if [[ ! -x "$tessera" ]]; then
  echo "run-demo: $tessera is missing (the graph layer needs libonnx-dev: make deps)" >&2
  exit 1
fi
mkdir -p "$demo"
/usr/bin/python3 "$(dirname "$0")/make-demo-models.py" "$demo" > /dev/null
for model in small_cnn tiny_transformer; do
  echo "== $model"
  "$tessera" run "$demo/$model.onnx" --input "$demo/$model.input.npy" --reference \
    --output "$demo/$model.reference.npy" | tail -1
  "$tessera" compile "$demo/$model.onnx" -o "$demo/$model" | grep -E "^(fusion|compiled|passes)"
  "$tessera" run "$demo/$model" --input "$demo/$model.input.npy" --expect "$demo/$model.reference.npy" --reps 50
  "$tessera" run "$demo/$model.onnx" --no-fusion --input "$demo/$model.input.npy" \
    --expect "$demo/$model.reference.npy" --reps 50 2>/dev/null | grep -v "^\["
done
echo "== call_chain (200 small elementwise nodes: the cost of a partition call)"
"$tessera" run "$demo/call_chain.onnx" --input "$demo/call_chain.input.npy" --reference \
  --output "$demo/call_chain.reference.npy" | tail -1
declare -A median
for form in fused no-fusion; do
  flag=$([[ $form == no-fusion ]] && echo --no-fusion || true)
  "$tessera" compile "$demo/call_chain.onnx" -o "$demo/call_chain_$form" $flag | grep -E "^fusion"
  line=$("$tessera" run "$demo/call_chain_$form" --input "$demo/call_chain.input.npy" \
    --expect "$demo/call_chain.reference.npy" --reps 2000 --threads 2 | tee /dev/stderr | grep -o "median [0-9.]* ms")
  median[$form]=$(echo "$line" | awk '{print $2}')
done
awk -v a="${median[no-fusion]}" -v b="${median[fused]}" \
  'BEGIN { printf "per partition call: %.3f us ((%s - %s ms) / 199 extra calls)\n", (a - b) * 1000 / 199, a, b }'
