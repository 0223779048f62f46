// Index plumbing between tensors of different shapes, in logical coordinates
// (outermost axis first; ops::at reverses them into Halide's order): a reshape
// maps the flat row-major position, a broadcast reads extent-1 axes at 0.
#pragma once

#include "shape.h"

#include <Halide.h>

#include <string>

namespace tessera::graph {

// `in` (of shape `from`) seen with shape `to` (same element count). Axes of extent
// 1 are dropped and kept groups of axes map directly, so only the axes a group
// really splits or merges get a division or a modulo.
Halide::Func reshape_func(const Halide::Func &in, const Shape &from, const Shape &to, const std::string &name);

// `in` (of shape `from`) broadcast to `to` (numpy rules). `from` may have more axes
// than `to` where the extra leading ones are 1 (a scalar the lowering holds as [1]).
Halide::Func broadcast_func(const Halide::Func &in, const Shape &from, const Shape &to, const std::string &name);

// An op-library shape key: "1x3x224x224"; a scalar is written as "1".
std::string shape_key(const Shape &shape);

}  // namespace tessera::graph
