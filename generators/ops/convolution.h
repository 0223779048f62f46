// conv2d (groups, stride, pad, dilation; NCHW/OIHW or NHWC/HWIO) and depthwise
// conv2d as Halide Funcs. Zero padding goes through a named boundary Func so the
// scheduler sees the real input behind it.
#pragma once

#include "op_params.h"

#include <Halide.h>

#include <string>

namespace tessera::ops {

// Packed weights (p.packed) are pack_panels' [oc/block][c][kh][kw][block].
// `name` names the output Func and, with "_sum", its sum (default: conv2d or
// depthwise_conv2d, their sums conv2d_sum and depthwise_sum).
Halide::Func conv2d(const ConvParams &p, const Halide::Func &input, const Halide::Func &weights,
                    const std::string &name = "");

}  // namespace tessera::ops
