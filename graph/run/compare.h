// How every graph-layer check compares a result with its expectation: the norm-wise
// relative error max|a - e| / max|e|, +infinity on a shape or dtype mismatch or any
// non-finite element of `actual` (NaN never passes; an expected infinity may match).
#pragma once

#include "tensor_data.h"

namespace tessera::graph {

double relative_error(const TensorData &actual, const TensorData &expected);

}  // namespace tessera::graph
