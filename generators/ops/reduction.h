// Reductions over any set of axes: sum, mean, max, min, prod, l1, l2, log_sum,
// log_sum_exp, sum_square (ReduceKind).
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func reduce(const ReduceParams &p, const Halide::Func &input);

}  // namespace tessera::ops
