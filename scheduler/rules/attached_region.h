// The region a producer computed at a consumer's loop covers per iteration of that
// loop, when the consumer's loop nest fixes it exactly: Halide is then told the
// constant extents (bound_extent). With extents left to run time, the producer's
// buffer is a run-time-sized stack allocation, and LLVM 14 keeps accumulators in
// it (a load and a store per update) and pays for the allocation per iteration.
#pragma once

#include "schedule_builder.h"
#include "tensor_expr.h"

#include <Halide.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::rules {

// For a producer the consumer reads only at its own point (the caller checks that:
// producer(x, y, ...) with the consumer's pure vars in order), the extent per
// iteration of the consumer's loop `var` of each of the producer's pure dims
// (Halide order, which are then the consumer's); empty when not known for certain.
// Known when the consumer is a pure definition and every dim's loops lie wholly
// inside `var` (then the dim's whole extent, `extents[i]`; no RoundUp split) or
// wholly outside it (one point).
std::vector<int64_t> per_iteration_extents(const Halide::Internal::Function &consumer, const std::string &var,
                                           const std::vector<int64_t> &extents);

// The points of `producer`'s dim 0 that `reader` (the consumer's pure stage) reads per
// iteration of its loop `var`: the span its affine reads cover with the consumer's
// per_iteration_extents; 0 when not known. A reduction computed there sizes its
// vector blocks to it: blocks as wide as the producer's whole dim, computed for one
// point per iteration, read that many rows past it (a ReduceMean over [24, 5]
// reshaped to [24, 1] read input row 46 of 24).
int64_t points_read_per_iteration(schedule::ScheduleBuilder &script, const analysis::TensorExpr &reader,
                                  const std::string &producer, const std::string &var);

// Gives `producer` (computed at the consumer's loop `var`, read there only at the
// consumer's own point) the constant extents of per_iteration_extents when they
// are known and its own splits do not round up past them; returns whether it did.
bool bound_attached_region(schedule::ScheduleBuilder &script, const std::string &producer, const std::string &consumer,
                           const std::string &var, const std::vector<std::pair<std::string, int64_t>> &dims);

}  // namespace tessera::rules
