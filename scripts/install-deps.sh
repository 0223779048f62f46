#!/usr/bin/env bash
# Installs Tessera's build and run dependencies from Debian's packages.
# Idempotent: asks dpkg which packages are present and installs only the missing ones.
# Runs as root (CI and developer machines); uses sudo only when not root and sudo exists.
set -euo pipefail

packages=(
  libhalide14-0-dev   # Halide 14 (brings LLVM 14) and its autoscheduler plugins
  libdnnl-dev         # oneDNN 2.6, the baseline
  libgtest-dev        # GoogleTest
  cmake
  ninja-build
  g++
  pocl-opencl-icd     # OpenCL on the CPU: tests/gpu runs the OpenCL AOT libraries on it
  ocl-icd-libopencl1  # the OpenCL ICD loader (libOpenCL.so.1) that finds PoCL
  ocl-icd-opencl-dev  # libOpenCL.so, which Halide's OpenCL runtime opens
  opencl-headers
  python3
  python3-matplotlib  # plots of tessera-bench
  nlohmann-json3-dev  # JSON: device profiles, benchmark reports
  clang-14            # make test-sanitize: the ASan + UBSan build (tests/sanitize/)
  libclang-rt-14-dev  # clang-14's sanitizer runtimes and libFuzzer (tests/fuzz/)
  libonnx-dev         # ONNX protobuf classes: model import (graph/)
  libprotobuf-dev     # protobuf headers libonnx-dev's headers include but do not depend on
  libonnx-testdata    # ONNX's node tests: the graph layer's evaluator is checked against them
  python3-onnx        # make run: scripts/make-demo-models.py writes the demo models
  python3-numpy
  python3-dev         # the Python module (python/): Python's headers
  pybind11-dev        # the Python module's bindings
  python3-pytest      # the Python module's tests (make test)
)
# `install-deps.sh --models`: what scripts/export-models.py needs (make models), not the build.
if [[ "${1:-}" == "--models" ]]; then
  packages=(python3-torch python3-torchvision python3-onnx python3-numpy)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them as root" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
