// avg_pool2d, max_pool2d and global_avg_pool as Halide Funcs.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func pool2d(const PoolParams &p, const Halide::Func &input);

}  // namespace tessera::ops
