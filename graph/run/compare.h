// How every graph-layer check compares a result with its expectation: the norm-wise
// relative error max|a - e| / max|e|, +infinity on a shape or dtype mismatch or a
// non-finite element of `actual` that the expectation does not have there. A NaN
// where the expectation is NaN counts as equal (as onnxruntime's test runner counts
// it: sqrt of a negative), a number there does not, and NaN elsewhere never passes;
// an expected infinity may match. An expectation of NaN only checks nothing: +infinity.
#pragma once

#include "tensor_data.h"

namespace tessera::graph {

double relative_error(const TensorData &actual, const TensorData &expected);

}  // namespace tessera::graph
