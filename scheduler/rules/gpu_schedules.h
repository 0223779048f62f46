// GPU schedules: the loops of a GpuProgram (rtile/gpu_program.h) on a
// compute-intensive stage, and the mapping of every other stage's loops onto
// blocks and threads. Halide's GPU model: gpu_blocks / gpu_threads loops, Funcs
// computed at a block loop shared by the block's threads (cooperative), storage
// at that level in shared memory or, with MemoryType::Register, a copy of the
// whole block-level allocation per thread (so per-thread accumulators are
// computed inside the thread loops instead).
#pragma once

#include "gpu_program.h"
#include "schedule_builder.h"

#include <string>
#include <vector>

namespace tessera::rules {

// A compute-intensive stage `f` (one update, `compute`) following GpuProgram `p`:
// `tiled` (a pure Func reading f at the point it writes: a pure output epilogue,
// or f's wrapper at root for its other consumers) carries the block tiles (the
// last ones shifted inwards, so every block's tile is whole) and the threads with
// their register tiles; f is computed per thread, its register tile of
// accumulators held in registers through the whole reduction, the operands read
// through the L1 cache. With `tiled` empty (f is an output itself) f carries the
// tiles and each thread accumulates in the output.
void schedule_gpu_compute(schedule::ScheduleBuilder &b, const analysis::TensorExpr &compute,
                          const rtile::GpuProgram &p, const std::string &tiled);

// A pure stage `out` whose read `read` moves along its innermost storage dim with
// another loop than the output's innermost (a transpose): 32 x 32 tiles per block,
// the read's tile copied into shared memory (rows padded by a bank word) by threads
// along the read's innermost dim, the output written by threads along its own, so
// both sides coalesce. Returns false (nothing done) when `out` is not such a stage
// (`callee`: the Function `out` calls directly for that read).
bool schedule_gpu_transpose(schedule::ScheduleBuilder &b, const analysis::TensorExpr &out, int read,
                            const std::string &callee);

// Stage loops of `f` (every stage) onto blocks and threads: coalesced threads
// along the innermost dim, fused with the next ones while it has fewer points
// than a block's threads; a stage's reduction loops run serially inside each
// thread, or, for a long reduction with few outputs, across a block's threads
// (rfactor); a stage without pure loops runs on one thread. `extents`: the points
// per pure dim (estimates), innermost first. Returns the updates reduced across
// threads.
int schedule_gpu_pointwise(schedule::ScheduleBuilder &b, const std::string &f, const std::vector<int64_t> &extents,
                            int64_t block_threads);

}  // namespace tessera::rules
