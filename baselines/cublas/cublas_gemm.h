// The cuBLAS baseline: matmul (trans_a, trans_b, bias) and batch_matmul as SGEMM.
#pragma once

#include "gpu_baseline.h"

#include <memory>

namespace tessera::cuda {

// Unsupported (with the reason) for any other op, or where there is no GPU.
std::unique_ptr<GpuBaseline> make_cublas_op(const ops::OpConfig &config);

}  // namespace tessera::cuda
