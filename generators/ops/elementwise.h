// Unary (relu, gelu, sigmoid, tanh, exp), broadcasting binary (add, mul) and
// bias_add as Halide Funcs.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

// The scalar formula of a unary op; also used when fusing it into other stages.
Halide::Expr unary_expr(UnaryKind kind, const Halide::Expr &x);

Halide::Func unary(const UnaryParams &p, const Halide::Func &input);
Halide::Func binary(const BinaryParams &p, const Halide::Func &a, const Halide::Func &b);
Halide::Func bias_add(const BiasAddParams &p, const Halide::Func &input, const Halide::Func &bias);

}  // namespace tessera::ops
