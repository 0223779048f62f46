// Bridges logical tensor order (outermost axis first, as users and the references
// write shapes) and Halide's order (dimension 0 innermost). Every op builder
// indexes Funcs through these helpers so the reversal is written once.
#pragma once

#include "op_config.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::ops {

// Vars named <prefix>0..<prefix>r-1 in logical order.
std::vector<Halide::Var> logical_vars(size_t rank, const std::string &prefix = "d");

// f at logical coordinates (reversed into Halide's argument order).
Halide::Expr at(const Halide::Func &f, const std::vector<Halide::Expr> &logical);
Halide::FuncRef ref(Halide::Func &f, const std::vector<Halide::Expr> &logical);

std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var> &vars);

// {min 0, extent} per dimension in Halide order, for estimates and boundary conditions.
Halide::Region halide_region(const Shape &logical);

// A buffer's extents fixed to `logical` (constants in the compiled code: loop bounds,
// tile buffers on the stack), and its strides those of a dense row-major tensor of it.
void set_static_extents(Halide::OutputImageParam buffer, const Shape &logical);
void set_dense_strides(Halide::OutputImageParam buffer, const Shape &logical);

// An image's h and w bounded to [0, h) x [0, w), its other dims unbounded, in Halide
// order for NCHW, NHWC or channel-blocked NCHW[x]c: a zero-padding boundary condition.
Halide::Region image_bounds(bool nhwc, bool blocked, int64_t h, int64_t w);

}  // namespace tessera::ops
