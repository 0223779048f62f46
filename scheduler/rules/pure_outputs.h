// Pure outputs (elementwise, broadcast, transpose, pad, a reduction's epilogue):
// rows vectorised along dim 0 and shaped by what the Funcs they read need; and the
// pure producers kept out of line at such a row.
#pragma once

#include "attachment.h"
#include "device_spec.h"
#include "schedule_builder.h"
#include "tensor_expr.h"
#include "transpose_blocks.h"

#include <string>
#include <vector>

namespace tessera::rules {

// Rows per block of a matrix-vector product's register blocks (see
// schedule_pure_output). A Halide harness, 1000x1000: 0.12-0.20 ms unblocked;
// blocks of 2, 4, 8 and 16 rows 0.076-0.090, 0.054-0.088, 0.073-0.085, 0.088-0.093
// (oneDNN 0.07-0.09).
constexpr int64_t kRegisterBlockRows = 4;

// Rows per block at most when producers prefetch the next block (see
// schedule_pure_output): the block's rows of a producer stay within half of L1.
// Side by side in a Halide harness (softmax 32768x1024, fastest of 6 rounds),
// blocks of 1 (no prefetch), 2 and 4 rows: 22.2, 15.2 and 14.6 ms.
constexpr int64_t kPrefetchBlockRows = 4;

// What the Funcs a pure output reads ask of its rows (see schedule_pure_output).
struct RowNeeds {
    // It reads a reduction along a single row (every outer dimension one point):
    // the row is cut into blocks of kRowBlockVectors vectors, which become the rows;
    // the reduction is then computed per block, in the tasks, its accumulators in
    // registers (see kRowBlockVectors).
    bool row_blocks = false;
    // Input buffers the row's producers stream before the output reads them again
    // (layer_norm's x, under its mean and variance): each row prefetches their next
    // row, which the hardware prefetcher does not fetch while the row's later
    // passes compute.
    std::vector<std::string> reread_inputs;
    // A producer computed at the row reads such an input again (softmax's
    // exponentials): the rows go in blocks and that producer prefetches the next
    // block (Attachment::prefetch_block_rows).
    bool producers_reread = false;
    // It reads a matrix-vector reduction (see Attachment::register_rows): the rows
    // go in blocks of kRegisterBlockRows.
    bool matrix_vector = false;
};

// A pure output (elementwise, broadcast, transpose, pad, or the epilogue of a
// reduction): vectorised along dimension 0, the outer dimensions (with a transposed
// read: its blocks, see transpose_block) as rows split into parallel tasks, shaped
// by `needs`. `decisions` (when given) gets what it chose beyond the loops.
// Returns the row loop that producers attach to.
struct RowDecisions {
    std::vector<std::string> prefetched;  // inputs each row prefetches (RowNeeds::reread_inputs)
    TransposeBlock transpose;             // its blocks, when it reads transposed (dim >= 0)
};
Attachment schedule_pure_output(schedule::ScheduleBuilder &script, const analysis::TensorExpr &t, const hal::DeviceSpec &d,
                                const RowNeeds &needs = {}, RowDecisions *decisions = nullptr);

// Vectors per block of a single row cut into blocks (schedule_pure_output). Side
// by side on Zen 5 (a Halide harness, 2 threads), global_avg_pool NCHW 2048x7x7
// computed per block of 2, 4 and 8 vectors: 7.0, 7.0 and 8.9 us; the reduction's
// blocks as the tasks, its sums in a 2048-float buffer: 9.1-17.4 us (Adams2019:
// 6.7 us). In tessera-bench (200 interleaved rounds, two runs), medians before ->
// after: 2048x7x7 10 -> 8 us, 1024x14x14 8 -> 5 us, reduce_mean 1x4032x11x11
// axes=2,3 23-24 -> 16-26 us and 1x512x1024 axes=2 19 -> 12-21 us (both
// bimodal; fastest runs 21 -> 11 and 17 -> 9 us), 512x7x7 3 us either way.
constexpr int64_t kRowBlockVectors = 4;

// A pure producer kept out of line (read by several consumers, or a boundary
// condition under a sliding window): computed at its consumer's row (or root, see
// compute_at_row), stored at the serial loop outside the row when `slides` (a
// sliding window), vectorised along its dim 0 (`args`, `extent0` points) when that
// has a vector's worth. Computed per block of the consumer's rows
// (Attachment::prefetch_block_rows) it prefetches the next block's rows of the
// `reread` inputs. Returns the inputs it prefetches.
std::vector<std::string> schedule_shared_producer(schedule::ScheduleBuilder &script, const std::string &f,
                                                  const std::vector<std::string> &args, int64_t extent0,
                                                  const Attachment &at, bool slides,
                                                  const std::vector<std::string> &reread, const hal::DeviceSpec &d);

}  // namespace tessera::rules
