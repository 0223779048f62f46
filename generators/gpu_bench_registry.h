// The CUDA operator libraries built by gpu_bench_suite.cmake at the sizes of real
// networks, timed by tessera-gpu-bench. Halide-free, like gpu_aot_registry.h.
#pragma once

#include "gpu_aot_registry.h"

namespace tessera {

// Every case of the bench suite under every scheduler of TESSERA_GPU_SCHEDULERS.
const std::vector<GpuAotKernel> &cuda_bench_kernels();

}  // namespace tessera
