// layer_norm (over the last axis, two-pass variance) and inference batch_norm.
#pragma once

#include "op_params.h"

#include <Halide.h>

#include <vector>

namespace tessera::ops {

// layer_norm inputs: x, gamma, beta. batch_norm inputs: x, scale, bias, mean, var.
Halide::Func normalize(const NormParams &p, const std::vector<Halide::Func> &inputs);

}  // namespace tessera::ops
