#!/bin/bash
# The GPU checks, run on a machine with a CUDA GPU and its driver but no Halide:
# tessera-gpu-bench (every CUDA operator library against the reference, then timed
# beside cuBLAS/cuDNN), each model library of the bundle run against PyTorch's
# exported output, and PyTorch's eager mode on the same ops and models as the peer.
#
#   scripts/gpu-device-check.sh BUNDLE OUT
#
# BUNDLE (made by scripts/gpu-bundle.sh on the build machine): bin/tessera-gpu-bench,
# bin/tessera-run-library, models/NAME/ (libraries `tessera compile --target ...cuda...`
# wrote) with models/NAME.input.npy and NAME.output.npy. Results go to OUT.
set -u
bundle=$1
out=$2
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv

# The CUDA runtime, cuBLAS and cuDNN the binaries link: wherever this machine keeps them.
libdirs=""
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9; do
    found=$(find /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1)
    if [ -z "$found" ]; then echo "gpu-device-check: $lib not found on this machine"; continue; fi
    libdirs="$libdirs:$(dirname "$found")"
done
export LD_LIBRARY_PATH="${libdirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

status=0
echo "== tessera-gpu-bench"
timeout 240 "$bundle/bin/tessera-gpu-bench" --json "$out/gpu-bench.json" 2>&1 | tee "$out/gpu-bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== model libraries"
models=""
for dir in "$bundle"/models/*/; do
    [ -d "$dir" ] || continue  # no models in the bundle
    name=$(basename "$dir")
    models="$models,$name"
    timeout 60 "$bundle/bin/tessera-run-library" "$dir" --input "$bundle/models/$name.input.npy" \
        --expect "$bundle/models/$name.output.npy" --reps 50 2>&1 | tee -a "$out/models.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
done

echo "== PyTorch"
"$bundle/bin/tessera-gpu-bench" --list > "$out/ops.txt"
timeout 200 python3 "$(dirname "$0")/gpu-torch-peer.py" --ops "$out/ops.txt" --models "${models#,}${EXTRA_TORCH_MODELS:+,$EXTRA_TORCH_MODELS}" 2>&1 \
    | tee "$out/torch.txt"
exit $status
