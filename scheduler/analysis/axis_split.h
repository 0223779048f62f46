// Axis split: a pure stage that reads a producer at `v % k` and `v / k` of one of
// its loop dims v (the inverse of a reshape that split an axis: a grouped
// convolution's sums over an explicit group axis read back per output channel,
// c = g * ocg + o) is affine in the split coordinates v_mod = v % k (extent k) and
// v_div = v / k, with v = v_div * k + v_mod. Seen so, the stage is the pure
// epilogue of the sums it reads at its point, or an affine copy, instead of an
// unanalysable stage.
//
// The split stage is a canonical form for construction, as the fused one of
// axis_fusion.h: Halide still sees v, split by `Stage::split(v, v_div, v_mod, k)`
// as the stage's first directive (rules::apply_axis_split).
#pragma once

#include "tensor_expr.h"

#include <Halide.h>

#include <optional>
#include <string>
#include <vector>

namespace tessera::analysis {

// The split of one loop dim that every non-affine index in `values` comes from:
// `v % k` and `v / k` of a single dim v (starting at 0, its extent a multiple of
// k) with a single constant k > 1. nullopt when there is none or more than one.
std::optional<AxisSplit> find_axis_split(const std::vector<Halide::Expr> &values, const std::vector<LoopDim> &dims);

// `e` in the split coordinates: v % k -> v_mod, v / k -> v_div, any other v ->
// v_div * k + v_mod.
Halide::Expr split_coordinates(const Halide::Expr &e, const AxisSplit &s);

// `dims` with v replaced by v_mod and v_div, in that order (Halide's order, inner first).
std::vector<LoopDim> split_dims(const std::vector<LoopDim> &dims, const AxisSplit &s);

}  // namespace tessera::analysis
