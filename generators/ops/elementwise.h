// Unary (relu, gelu, sigmoid, tanh, exp), broadcasting binary (add, mul) and
// bias_add as Halide Funcs.
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

// The scalar formula of a unary op; also used when fusing it into other stages
// (the kind alone: clip needs its bounds from the params).
Halide::Expr unary_expr(UnaryKind kind, const Halide::Expr &x);
Halide::Expr unary_expr(const UnaryParams &p, const Halide::Expr &x);
Halide::Expr binary_expr(BinaryKind kind, const Halide::Expr &a, const Halide::Expr &b);

Halide::Func unary(const UnaryParams &p, const Halide::Func &input);
Halide::Func binary(const BinaryParams &p, const Halide::Func &a, const Halide::Func &b);
Halide::Func bias_add(const BiasAddParams &p, const Halide::Func &input, const Halide::Func &bias);

}  // namespace tessera::ops
