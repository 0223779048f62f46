// GPU schedules: the loops of a GpuProgram (rtile/gpu_program.h) on a
// compute-intensive stage, and the mapping of every other stage's loops onto
// blocks and threads. Halide's GPU model: gpu_blocks / gpu_threads loops, Funcs
// computed at a block loop shared by the block's threads (cooperative), storage
// at that level in shared memory or, with MemoryType::Register, one copy per
// thread (Halide lifts it into the thread loops).
#pragma once

#include "gpu_program.h"
#include "schedule_builder.h"
#include "stage_plan.h"

#include <string>
#include <vector>

namespace tessera::rules {

// An operand of a compute stage staged in shared memory: the Function the stage
// calls (an input's hidden wrapper, or a pure producer such as a boundary
// condition) and the read (TensorExpr::reads index) it serves.
struct StagedOperand {
    std::string func;
    int read = -1;
    int64_t row = 0;      // elements of a staged row (its innermost storage dim) per step
    int64_t padding = 0;  // elements padding each staged row (bank conflicts)
};

// The staged reads of `p` that `compute`'s Function calls directly, with the
// Function each is wrapped through (reads that reach an input through an inlined
// producer are not staged: their loads go to the caches).
std::vector<StagedOperand> staged_operands(const analysis::TensorExpr &compute, const rtile::GpuProgram &p,
                                           const analysis::StagePlan &plan);

// A compute-intensive stage `f` (one update, `compute`) following GpuProgram `p`:
// `tiled` (a pure Func reading f at the point it writes: a pure output epilogue,
// or f's wrapper at root for its other consumers) carries the block tiles (the
// last ones shifted inwards, so every block's tile is whole) and the threads with
// their register tiles; f is computed per block, its accumulators in registers;
// the reduction dim goes in steps at the block level, each step's `operands`
// copied into shared memory by all of the block's threads. With `tiled` empty (f
// is an output itself) f carries the tiles and each thread accumulates in the
// output, reading its operands through the caches.
void schedule_gpu_compute(schedule::ScheduleBuilder &b, const analysis::TensorExpr &compute,
                          const rtile::GpuProgram &p, const std::string &tiled,
                          const std::vector<StagedOperand> &operands);

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
