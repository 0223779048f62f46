// Transposing copies: how an output that reads a tensor across its rows is cut
// into blocks (TransposeBlock), and the staging of a block's squares in registers.
#pragma once

#include "device_spec.h"
#include "schedule_builder.h"
#include "tensor_expr.h"

#include <string>
#include <vector>

namespace tessera::rules {

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

// Elements of `t` in a cache line (fp32: 16, one AVX-512 vector, two with AVX2).
int64_t line_elements(const hal::DeviceSpec &d, const analysis::TensorExpr &t);

// Loads each lanes x lanes square of a staged transposed read (TransposeBlock::
// staged) into registers at the output's loop `at` (see transpose_blocks.cpp).
void stage_transposed_squares(schedule::ScheduleBuilder &script, const analysis::TensorExpr &t,
                              const TransposeBlock &tb, const std::string &at);

}  // namespace tessera::rules
