#!/bin/bash
# Gathers what scripts/gpu-device-check.sh needs on a GPU machine into BUNDLE: the
# Halide-free binaries and the named models compiled for CUDA (host part AVX2 only,
# the HAL's sm_90 figures). Run after `make build` and `make models`.
#
#   scripts/gpu-bundle.sh BUNDLE MODEL[,MODEL...]      e.g. .device mobilenet_v2,bert_encoder
set -eu
bundle=$1
build=${BUILD_DIR:-build}
target=${GPU_TARGET:-x86-64-linux-sse41-avx-avx2-fma-f16c-cuda-cuda_capability_86}
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/models"
cp "$build/apps/gpu_bench/tessera-gpu-bench" "$build/apps/run_library/tessera-run-library" "$bundle/bin/"
for name in ${2//,/ }; do
    TESSERA_GPU_PROFILE=${TESSERA_GPU_PROFILE:-cuda-sm90} "$build/apps/tessera/tessera" compile "models/$name.onnx" \
        -o "$bundle/models/$name" --target "$target" -j 2 > "$bundle/models/$name.compile.log"
    rm -f "$bundle/models/$name"/*.a  # the run-time loader opens the shared library
    cp "models/$name.input.npy" "models/$name.output.npy" "$bundle/models/"
done
du -sh "$bundle"
