// Loop shapes shared by the stage schedules: vector splits, parallel rows and
// tiles, and the names of the loops they create.
#pragma once

#include "schedule_builder.h"
#include "tensor_expr.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::rules {

// `v` with a suffix: the name of a loop split from `v` ("x" + "vo" -> "x_vo").
std::string suffixed(const std::string &v, const std::string &s);

// An output whose analysis saw a dim split (analysis/axis_split.h): its region
// along that dim fixed (Halide's bound; before the stage's directives), and the
// split, the stage's first directive, after which its loops carry the split
// dims' names.
void bound_split_output(schedule::ScheduleBuilder &script, const analysis::TensorExpr &t);
void apply_axis_split(schedule::StageBuilder &s, const analysis::TensorExpr &t);

// Pure dims of stage t in Halide order with their extents.
std::vector<std::pair<std::string, int64_t>> pure_dims(const analysis::TensorExpr &t);

// Rows per parallel task when `rows` rows of `slice_points` points each are split
// over `cores` (see parallel_rows).
int64_t task_rows(int64_t rows, int64_t slice_points, int cores);

// Parallelises the rows of a stage: `outer_vars` (innermost first) are the loops
// around its vectorised dim. Only the outermost ones whose product first reaches
// two per core are fused into the task loop (the inner ones stay plain loops:
// no div/mod per row, loop-invariant loads hoisted, as in Adams2019's schedules);
// tasks hold enough points for the thread pool's overhead and there are a few per
// core at most (bias_add 256x56x56 in 196 fused tasks of 73 rows ran 1.8x slower
// than Adams2019's). Returns the row loop where producers attach: the innermost
// one covering enough points (empty when there are no rows). `whole_rows`: the
// loop around all of outer_vars[0]; `outer_of_row`: the serial loop just outside
// the returned one (left empty when that is the task loop). `task_tail`: how the
// split into tasks meets a row count it does not divide; a guarded split hides the
// row from the loops inside it (Halide's prefetch sees no row loop there), so a
// stage that prefetches its next row shifts its last task inwards instead.
// `attach_outside` (an index into outer_vars, -1 for none): producers are constant
// along that dim (a softmax's row maximum along its axis), so the returned loop
// lies outside it, or is empty (root) when that dim is part of the task loop.
std::string parallel_rows(schedule::StageBuilder &s, const std::vector<std::pair<std::string, int64_t>> &outer_vars,
                          int64_t points_per_row, int cores, const std::string &prefix,
                          std::string *whole_rows = nullptr, std::string *outer_of_row = nullptr,
                          Halide::TailStrategy task_tail = Halide::TailStrategy::GuardWithIf,
                          int attach_outside = -1);

// Fuses the tile loops `tiles` (innermost first) into one loop named
// `prefix`<i> and runs it in parallel; returns that loop.
std::string parallel_tiles(schedule::StageBuilder &s, const std::vector<std::string> &tiles, const std::string &prefix);

// `args` with `first` moved to the front: a storage or loop order, innermost first.
std::vector<std::string> with_innermost(const std::vector<Halide::Var> &args, const std::string &first);

// Splits dim `v` of extent `e` into a vector of `lanes` (when it has that many
// points); a pure output takes half or quarter vectors of a narrower row.
bool vector_split(schedule::StageBuilder &s, const std::string &v, int64_t e, int lanes, bool pure_output);

}  // namespace tessera::rules
