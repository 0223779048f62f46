// reduce_sum and reduce_mean over any set of axes.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func reduce(const ReduceParams &p, const Halide::Func &input);

}  // namespace tessera::ops
