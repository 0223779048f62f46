// Turning the constructor's decisions into Halide directives, one function per kind
// of stage (see scheduler/README.md for the loop nests they produce).
#pragma once

#include "device_spec.h"
#include "schedule_builder.h"
#include "tensor_expr.h"

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
};

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

// Output rows per block of a transposing copy, and vectors per row of a block when
// its input rows share cache sets or the row is long (see transpose_block).
constexpr int64_t kTransposeBlock = 64;
constexpr int64_t kTransposeVectors = 2;
// Input rows at least this long (a page) are swept (see TransposeBlock::sweep).
constexpr int64_t kTransposeSweepBytes = 4096;

// A transposing copy's blocks. `dim` is the output dim that walks the innermost
// storage dim of a tensor read across the output's rows (a transpose out(x, y) =
// in(y, x) gives y's index), when it has at least a vector's worth of points; else
// -1. A read that does not move with the output's innermost dim (a broadcast bias)
// is not transposed. A block is `rows` points of `dim` (kTransposeBlock, or all of
// a shorter dim) by `vectors` adjacent vectors along the output's innermost dim.
//
// `sweep`: the input rows (along `dim`) span a page or more and there are at least
// two tasks per core. Then a block is one cache line's floats of `dim` (each
// gathered line used whole; 16, a vector's lanes with AVX-512) by
// kTransposeVectors vectors, the blocks walk along the input rows, and the
// parallel tasks take groups of that many vectors of input rows: a task streams
// 2 x lanes input rows from start to end (16 or 64 rows measured slower than 32). The other way (tasks own kTransposeBlock points of `dim` and
// walk down all input rows) touches every input row's page once per task, 4096 of
// them for 4096x8192, past the TLB and the prefetchers' streams: side by side on
// Zen 5, 4096x8192 14.8 -> 7.6 ms, 8192x4096 16.2 -> 8.1 ms; short rows (NHWC ->
// NCHW with 64 or 256 channels) measured slower swept (1.19 -> 1.54 ms), so they
// keep the blocks (scheduler/README.md, "Loop nests", has the whole run).
//
// `staged`: the copy fits the LLC, so its time goes to the gathers (a float from
// each of `lanes` input rows per vector), not to DRAM. Then a block's `rows` are a
// vector's lanes, and each lanes x lanes square of it is loaded row by row into
// registers and transposed there (see stage_transposed_squares). At DRAM size the
// gathers stay: the shuffles measured slower there (Zen 3, 4096x8192, a harness,
// 45.7 ms gathered against 52.4-53.4 staged), the access pattern being the limit.
struct TransposeBlock {
    int dim = -1;
    int read = -1;  // the transposed read's index in the stage's reads
    int64_t rows = 0, vectors = 0;
    bool sweep = false;
    bool staged = false;
};
TransposeBlock transpose_block(const analysis::TensorExpr &t, const hal::DeviceSpec &d);

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

// Computes f where `at` says: at root when it has no row loop, else per iteration
// of that loop, its buffer on the stack. There its size is a run-time value, so
// Halide would malloc and free it on every row (Halide's runtime moves a run-time
// size above 16 KiB to the heap). Side by side: max_pool2d NCHW 112x112 0.76 ->
// 0.56 ms, avg_pool2d NHWC 28x28 0.096 -> 0.058 ms, softmax 12x128x128 0.165 ->
// 0.125 ms.
void compute_at_row(schedule::ScheduleBuilder &script, const std::string &f, const Attachment &at);

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

// A reduction without reuse (sum, max, pooling window, depthwise): vectorised along
// its innermost pure dimension, a block of vectors accumulating in registers with
// the reduction loops just outside. As an output it is also parallelised and the
// loop inside one task is returned (for its producers); otherwise it is computed
// at `at` (or around the consumer's whole rows, when it tiles them) and returns
// where it is computed.
Attachment schedule_reduction(schedule::ScheduleBuilder &script, const std::vector<analysis::TensorExpr> &stages,
                        const hal::DeviceSpec &d, bool is_output, const Attachment &at);

// A stage the constructor cannot analyse: computed at root, outer loop parallel
// (its pure stage: the outer loops fused until they give each core two tasks),
// innermost pure var vectorised (guarded) when it has `extents[0]` >= a vector,
// also in updates that write along it -- valid for any definition. `extents`: per
// pure var, Halide order (empty when unknown).
void schedule_safe(schedule::ScheduleBuilder &script, const Halide::Internal::Function &f,
                   const std::vector<int64_t> &extents, const hal::DeviceSpec &d);

}  // namespace tessera::rules
