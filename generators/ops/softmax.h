// Numerically stable softmax along one axis: exp(x - max) / sum(exp(x - max)).
#pragma once

#include "op_params.h"

#include <Halide.h>

#include <string>

namespace tessera::ops {

// Its Funcs are <prefix>_max, <prefix>_exp, <prefix>_sum and the output `out_name`.
Halide::Func softmax(const SoftmaxParams &p, const Halide::Func &input, const std::string &prefix = "softmax",
                     const std::string &out_name = "softmax");

}  // namespace tessera::ops
