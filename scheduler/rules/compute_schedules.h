// Schedules of compute-intensive stages from their rPrograms: tiles at the
// registers, L1 and L2, packed operands, and the epilogue fused around them.
#pragma once

#include "construction.h"
#include "attachment.h"

namespace tessera::rules {

// A producer computed per tile of a compute-intensive stage: a pure Func it reads
// (a boundary condition), or the hidden wrapper Func of an input it packs.
struct TileOperand {
    std::string func;  // the producer's Func
    bool input_copy;   // an input's wrapper: packed through a Func::in() copy
};

// A stage fused under a pure epilogue is computed per register tile of it, its
// accumulators in registers from the first product to the epilogue's stores (no
// rfactor, no L2 tile of sums written and read back), when the whole reduction is
// one L1 chunk (matmul with K=64, batches of small GEMMs), the program is not
// transposed and its register tile is whole vectors along dim 0 within its L2
// tile. Side by side (`tessera-bench --suite-file F --schedulers
// tessera,tessera+X,onednn`, X a temporary switch back), on Zen 5: matmul
// 4096x4096x64 7.38 -> 5.22 ms (0.76x -> 1.08x oneDNN; with a bias 7.78 -> 5.15),
// batch_matmul 16x512x512x64 1.76 -> 1.26 ms, 12x128x128x64 0.069 -> 0.055 ms,
// 16x256x256x80 0.427 -> 0.370 ms; K=2 and a depthwise 5x5 unchanged.
bool register_epilogue_applies(const analysis::TensorExpr &t, const rtile::RProgram &p, const hal::DeviceSpec &d);

// A compute-intensive reduction following rProgram `p`: L2 tiles in parallel, the
// reduction chunked (rfactor) with the chunk loop outside the L1 and register
// tiles, the register tile's accumulators computed in registers (vectorised +
// unrolled), the packed operand computed per chunk of an L2 tile.
// Without `epilogue` the stage is computed at root (an output, or a producer the
// caller has put at root). With `epilogue` (a pure output reading the stage at
// the point it writes: bias, activation; `p` must have more than one L2 tile) the
// L2 tiles become the epilogue's parallel tiles and the stage is computed inside
// each (or inside each register tile, see register_epilogue_applies), so its
// result is consumed from L2 or registers instead of making a round trip through
// memory. Returns the loop producers of the outermost stage attach to.
// `tiles` (when given) gets which tiles the epilogue's loops are.
enum class EpilogueTiles { None, L2, Register };
Attachment schedule_compute_output(schedule::ScheduleBuilder &script, const std::vector<analysis::TensorExpr> &stages,
                                   const rtile::RProgram &p, const hal::DeviceSpec &d,
                                   const std::vector<TileOperand> &operands,
                                   const analysis::TensorExpr *epilogue = nullptr, EpilogueTiles *tiles = nullptr);

}  // namespace tessera::rules
