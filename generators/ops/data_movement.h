// transpose and constant pad.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func transpose(const TransposeParams &p, const Halide::Func &input);
Halide::Func pad(const PadParams &p, const Halide::Func &input);

}  // namespace tessera::ops
