// The family of a compute stage, as the performance model's calibration groups them
// (hal/model_calibration.h): stages of one family reach a similar share of the
// device's figures, read from their access maps, not from operator names.
#pragma once

#include "tensor_expr.h"

#include <string>

namespace tessera::rtile {

// "conv": a window (a reduction dim and a spatial dim in one storage dim of a read)
// and a reduction over channels besides (dims of one point count as neither); "depthwise": windows only (depthwise
// convolutions, pools computed as compute stages); "matmul": no window, two or more
// reads (GEMMs, batched products, 1x1 convolutions); "reduction": the rest.
std::string program_family(const analysis::TensorExpr &t);

}  // namespace tessera::rtile
