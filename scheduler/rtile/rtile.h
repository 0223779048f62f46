// RTile: a tile shape over a TensorExpr's loop dimensions (Roller (OSDI'22), Fig. 3)
// plus the storage padding of its data tiles, and RProgram: one rTile per memory
// layer with the scale-out over cores, its predicted time and bottleneck.
#pragma once

#include "axis_fusion.h"
#include "model_calibration.h"
#include "tensor_expr.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::rtile {

struct RTile {
    std::vector<int64_t> shape;  // points per loop dimension (TensorExpr::dims order)

    int64_t points() const;
    // Data tile of every tensor the stage reads (elements), in TensorExpr::reads order.
    std::vector<int64_t> read_tiles(const analysis::TensorExpr &t) const;
    int64_t write_tile(const analysis::TensorExpr &t) const;
    std::string to_string(const analysis::TensorExpr &t) const;  // "n=32 m=4 k=256"
};

// Layer indices into DeviceSpec::layers: 0 registers, 1 L1, 2 L2 (the tiles we build).
enum TileLevel { kRegisterTile = 0, kL1Tile = 1, kL2Tile = 2, kTileLevels = 3 };

struct RProgram {
    std::vector<RTile> tiles;      // one per TileLevel, each containing the one before
    size_t vector_dim = 0;         // loop dim vectorised in the register tile
    int second_dim = -1;           // the other register-tile dim (-1: none)
    // A third register-tile dim (-1: none), unrolled inside the second: one whose
    // reads are the other operand's (a channel-blocked convolution's output
    // blocks, which move its weights and not its input), so the tile reuses each
    // broadcast across it and each vector across the second (onnxruntime's MLAS
    // runs its NCHWc kernels so: pixels x output-channel blocks).
    int third_dim = -1;
    size_t split_reduction = 0;    // reduction dim chunked at the L1/L2 levels
    int64_t parallel_tasks = 1;    // L2 tiles spread over the cores
    int packed_read = -1;          // read packed into a contiguous L2 tile (-1: none)
    int64_t packed_row = 0;        // elements in a row of the packed tile
    int64_t padding_elements = 0;    // storage padding of the packed tile's rows
    // The vector dim is not the output's contiguous dim (an NCHW convolution
    // vectorised along its output channels): the packed read is stored with the
    // vector dim innermost, the accumulators likewise, and the output is written
    // by scatter once per reduction chunk.
    bool transposed = false;
    int packed_storage_dim = -1;   // transposed: the packed read's storage dim indexed by the vector dim
    // The micro-kernel runs the reduction chunk innermost instead of the window
    // (see construction.cpp, strided_window): LLVM then unrolls no window and
    // hoists none of its broadcasts.
    bool chunk_innermost = false;
    // Per loop dim (empty: none): the L2 tiles need not divide its extent, the
    // last one shifts inwards (valid only computed per tile of a pure epilogue).
    std::vector<bool> shifted;
    bool shifts(size_t j) const { return j < shifted.size() && shifted[j]; }
    // Per loop dim of the stage (before any fusion): its reads can be evaluated
    // anywhere, so a register tile there may be kept whole past the extent.
    std::vector<bool> evaluable_anywhere;
    bool anywhere(size_t j) const { return j < evaluable_anywhere.size() && evaluable_anywhere[j]; }
    // Axis fusion: the program tiles analysis::fuse_axes(stage, *fusion), whose
    // dims its tiles and indices refer to (see program_expr).
    std::optional<analysis::AxisFusion> fusion;
    double predicted_ms = 0;
    // Panels of the packed operand per L2 tile when the tile outgrows the L2 and is
    // swept panel by panel (PerfModel::panel_sweep); 0 when it stays resident.
    int64_t swept_panels = 0;
    hal::ModelTerms terms;         // what predicted_ms is made of, before calibration
    double register_ms = 0;        // time of the register layer alone: breaks ties between equal predictions
    std::string bottleneck;        // memory layer (or "compute") that bounds the prediction
};

// The stage as the program tiles it: `t`, or its fused form (RProgram::fusion).
analysis::TensorExpr program_expr(const analysis::TensorExpr &t, const RProgram &p);

// The read packed into a contiguous copy per L2 tile `l2` (-1: none): a
// transposed program's packed operand; otherwise the reused input that streams
// along the vector dim (B of a GEMM, an NHWC convolution's weights) when its L2
// data tile is not one contiguous run (layout alignment, ALT (EuroSys'23)). Read once in
// all (a GEMV's matrix), a packed copy would be pure extra traffic.
int packed_read_of(const analysis::TensorExpr &t, const RProgram &p, const RTile &l2);

// Elements of the data tiles read through `m` per chunk of every L2 tile (the
// packed operands' place), over the whole stage: tasks x chunks x data tile.
double per_tile_elements(const analysis::TensorExpr &t, const RProgram &p, const analysis::AccessMap &m);

// How many times a producer read through `m` would be computed over, in total,
// if it were computed per chunk of every L2 tile: per_tile_elements / the whole
// tensor. Neighbouring tiles share halos, and tiles that split dims the read does
// not depend on recompute all of it.
double per_tile_recompute_factor(const analysis::TensorExpr &t, const RProgram &p, const analysis::AccessMap &m);

}  // namespace tessera::rtile
