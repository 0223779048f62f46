// The cuDNN baseline: conv2d and depthwise_conv2d in NCHW (OIHW weights).
#pragma once

#include "gpu_baseline.h"

#include <memory>

namespace tessera::cuda {

// Unsupported (with the reason) for any other op or layout, or where there is no GPU.
std::unique_ptr<GpuBaseline> make_cudnn_op(const ops::OpConfig &config);

}  // namespace tessera::cuda
