// Roller's micro-performance model (Roller (OSDI'22) §3.3, Fig. 9) for a CPU core:
// memory footprint and traffic of a tile at each layer come from the access maps;
// time at a layer is traffic / bandwidth of the layer below (shared layers split
// evenly over the cores); compute time comes from the measured FMA peak, slowed
// when the register tile has too few accumulators to hide the FMA latency.
#pragma once

#include "alignment_policy.h"
#include "device_spec.h"
#include "tiling.h"
#include "rtile.h"

#include <memory>
#include <optional>

namespace tessera::rtile {

class PerfModel {
public:
    PerfModel(const analysis::TensorExpr &t, const hal::DeviceSpec &d, TilingContext tiling = {})
        : t_(t), d_(d), tiling_(std::move(tiling)), alignment_(alignment_policy(d)) {}
    const hal::DeviceSpec &device() const { return d_; }
    const TilingContext &tiling() const { return tiling_; }
    const AlignmentPolicy &alignment() const { return *alignment_; }

    // Bytes a tile of this level occupies (registers: the register file bytes it needs).
    int64_t mem_footprint(const RTile &tile, TileLevel level, const RProgram &p) const;
    // Data moved into the layer holding `tile` over the whole stage. Registers: load
    // instructions (a broadcast costs as much as a vector load); caches: bytes.
    double mem_traffic(const RTile &tile, TileLevel level, const RProgram &p) const;
    // Milliseconds to move mem_traffic at this level with `cores` cores streaming.
    double mem_time_ms(const RTile &tile, TileLevel level, const RProgram &p) const;
    // Milliseconds of arithmetic for the whole stage on all cores, for the program's
    // register tile (and, along dims whose L2 tiles shift inwards, the overlap the
    // last L2 tile recomputes).
    double compute_time_ms(const RProgram &p) const;
    // Bytes (vector registers at the register level) a tile of `level` may use. A
    // transposed program's L1 tile (its reduction chunk) may use the L2: each chunk
    // ends in a scattered pass over the outputs, dearer than streaming the packed
    // operand panel from L2.
    int64_t capacity(TileLevel level, const RProgram &p) const;

    // L2 tiles (the parallel tasks) spread over the cores: the stage's points over
    // cores x the points of the busiest core, tasks handed out largest first (a
    // ragged last tile is a smaller task). 1 is perfect balance.
    double parallel_efficiency(const RTile &l2) const;
    int64_t task_count(const RTile &l2) const;

    // Fills p.predicted_ms and p.bottleneck from its tiles.
    void predict(RProgram &p) const;

    double ghz() const;

private:
    // Load instructions of one register tile per step of the reduction: all of them
    // and, among them, the broadcasts (reads that do not move with the vector dim);
    // and the shuffles that assemble vectors read at a stride along the vector dim.
    struct RegisterLoads {
        double loads = 0, broadcasts = 0, shuffles = 0;
    };
    // `only_read`: that read's loads alone (-1: every read's).
    RegisterLoads register_loads(const RTile &tile, const RProgram &p, int only_read = -1) const;
    // Per read, the share of its L1 tile's lines that sit in L1 sets holding more
    // lines of the tile than the L1 has ways (cache_sets.h): they are evicted before
    // the next register tile reads them again, so those loads come from the L2.
    // Counted for inputs read in place (a packed copy is laid out per tile).
    std::vector<double> l1_set_overflow(const RTile &tile, const RProgram &p) const;
    // Elements of L1 lines a tile holds but does not read: a read stored with a
    // spatial dim innermost whose tile covers less than a line of a longer row
    // (8 of a packed weight panel's 32 output channels fill half of each line: its
    // 20 KiB of weights held 40, past Zen 3's L1, and ran 2-4x slower than 16;
    // broadcasts of 1 channel in each of 4 panels, a float per line, 3.3x slower
    // than 4 channels of one); pieces that start anywhere in a line hold the lines
    // they straddle (a 7-point row of a 7x7 map, 1.375 lines on average).
    int64_t line_waste(const RTile &tile, const RProgram &p) const;
    // Cycles each row of a computed copy of read `m` costs beyond its elements:
    // kCopyRowCycles when no storage dim moves with a reduction dim alone (a depthwise
    // window), kConvCopyRowCycles when one does and another slides a window (a
    // convolution's padded input, whose elements its channel reduction's FMAs cover),
    // 0 otherwise (a channel reduction without a window).
    double copy_row_cycles(const analysis::AccessMap &m) const;
    // Elements of one row of a computed copy of read `m` per L2 `tile`: its storage
    // dims up to and including the first a window slides along.
    int64_t copied_row_elements(const analysis::AccessMap &m, const RTile &tile) const;
    // An L2 tile with a packed operand (packed_read_of) is swept panel by panel
    // (apply's panel_packing): the L1-tile loops the operand moves with go
    // outermost, those it does not index (the pixels, for weights) sweep inside.
    struct PanelSweep {
        int packed_read;  // the packed operand's read
        RTile piece;      // the L2 tile cut to one L1 tile along every dim that has several
        int64_t panels;   // panels per L2 tile
    };
    // The sweep of an L2 tile whose data (`resident` elements) do not all fit in
    // the L2 and that has more than one L1 tile along some dim the packed operand
    // does not index; none otherwise.
    std::optional<PanelSweep> panel_sweep(const RTile &tile, const RProgram &p, int64_t resident) const;
    bool l2_shifts(size_t j) const { return tiling_.l2_shifts(j); }

    const analysis::TensorExpr &t_;
    const hal::DeviceSpec &d_;
    TilingContext tiling_;
    std::unique_ptr<AlignmentPolicy> alignment_;
};

}  // namespace tessera::rtile
