// Attachment: where a producer is computed inside its consumer, as the rules
// that shape a consumer's loops report it, and compute_at_row, which places a
// producer there.
#pragma once

#include "schedule_builder.h"

#include <string>
#include <vector>

namespace tessera::rules {

// Where a producer is computed inside its consumer: the consumer's Func and loop.
struct Attachment {
    std::string consumer, var;
    bool in_parallel_loop = true;  // false: the consumer found too few rows to run in parallel
    // Points of the consumer's dim 0 per iteration of `var` (0: all of them): a
    // vector of a 1-D output, or a block of a single row (see schedule_pure_output).
    int64_t row_width = 0;
    // A loop of the consumer around all of its second dim (its whole rows), for a
    // producer that tiles that dim (see schedule_reduction); empty when none.
    std::string whole_rows_var = {};
    // The serial loop just outside `var` (empty when `var` is a task loop): a
    // producer computed at `var` and stored here keeps the rows it shares with the
    // next iteration (Halide's sliding window; see compute_at_row).
    std::string storage_var = {};
    // The consumer prefetches the next row of the inputs it reads again (see
    // schedule_pure_output): a reduction computed per row reads them from cache.
    bool rows_prefetched = false;
    // Rows per iteration of `var` when the consumer's rows go in blocks so that
    // producers computed per block prefetch the next block's rows of the inputs
    // they read again (0: no such blocks); the rows run along the consumer's
    // dim `row_dim`, the same dim of a producer it reads at the point.
    int64_t prefetch_block_rows = 0;
    int row_dim = -1;
    // Rows per iteration of `var` when the consumer's rows go in blocks so that a
    // matrix-vector reduction it reads keeps one partial-sum vector per row of the
    // block in registers, sharing the vector's loads (0: none); rows along row_dim.
    int64_t register_rows = 0;
    // The producer is read in this loop only through another stage computed there
    // (a window reduction of the same rows): how many points of its dim 0 one
    // iteration needs is not known, so its splits must not round past them.
    bool read_through_other_stage = false;
};

// Computes f where `at` says: at root when it has no row loop, else per iteration
// of that loop, its buffer on the stack. There its size is a run-time value, so
// Halide would malloc and free it on every row (Halide's runtime moves a run-time
// size above 16 KiB to the heap). Side by side: max_pool2d NCHW 112x112 0.76 ->
// 0.56 ms, avg_pool2d NHWC 28x28 0.096 -> 0.058 ms, softmax 12x128x128 0.165 ->
// 0.125 ms.
void compute_at_row(schedule::ScheduleBuilder &script, const std::string &f, const Attachment &at);

}  // namespace tessera::rules
