#!/usr/bin/env bash
# `make run`: the main job end to end on the two models generated at build time
# (scripts/make-demo-models.py): each is compiled to a library, run from it, checked
# against the reference evaluator (--reference, plain C++, no Halide) and timed,
# fused and with --no-fusion. Exit status: non-zero when any step or check fails.
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
