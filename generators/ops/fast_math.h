// Vectorisable fp32 transcendental functions for the operator library. Halide's
// exp/tanh on Float(32) become one libm call per lane; these are polynomials
// (exp: relative error below 2.5e-7), so elementwise and softmax kernels stay in
// vector registers.
// Semantics at the extremes: exp saturates at exp(88) instead of overflowing to
// infinity, and underflows to ~exp(-87) instead of 0.
#pragma once

#include <Halide.h>

namespace tessera::ops {

Halide::Expr vector_exp(const Halide::Expr &x);
// tanh via exp(-2|x|); a short odd series near 0, where 1 - exp(-2|x|) would cancel.
Halide::Expr vector_tanh(const Halide::Expr &x);
// erf: its odd Taylor series below |x| = 0.5, above it 1 - erfc(|x|) by a rational
// approximation times exp(-x^2) (absolute error below 3e-7 over the whole line).
Halide::Expr vector_erf(const Halide::Expr &x);

}  // namespace tessera::ops
