// conv2d (groups, stride, pad, dilation; NCHW/OIHW or NHWC/HWIO) and depthwise
// conv2d as Halide Funcs. Zero padding goes through a named boundary Func so the
// scheduler sees the real input behind it.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

Halide::Func conv2d(const ConvParams &p, const Halide::Func &input, const Halide::Func &weights);

}  // namespace tessera::ops
