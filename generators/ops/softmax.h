// Numerically stable softmax along one axis: exp(x - max) / sum(exp(x - max)).
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func softmax(const SoftmaxParams &p, const Halide::Func &input);

}  // namespace tessera::ops
