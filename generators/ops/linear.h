// matmul and batch_matmul as Halide Funcs. Inputs are in Halide order: a logical
// A[M,K] is a Func a(k, m); see halide_axes.h.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

// `bias` is used only when p.bias is set.
Halide::Func matmul(const MatmulParams &p, const Halide::Func &a, const Halide::Func &b, const Halide::Func &bias);

}  // namespace tessera::ops
