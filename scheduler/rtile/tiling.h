// TilingContext: how one construction's tiles may meet each loop dim's extent,
// beside the TensorExpr it tiles (the analysis says what the stage reads; the
// context says what the tiling of it may do). Per loop dim: the tiles may overrun
// it (every read along it can be evaluated anywhere: a boundary condition), or the
// last tile shifts inwards (the stage is computed per tile of a pure epilogue
// whose tails shift inwards), or else they must divide it.
#pragma once

#include "alignment.h"
#include "axis_fusion.h"

#include <vector>

namespace tessera::rtile {

struct TilingContext {
    std::vector<bool> overrun_ok;
    std::vector<bool> shift_ok;
    // The stage is computed per L2 tile of a pure epilogue: along a dim its tiles
    // may overrun, the epilogue's L2 tiles still shift inwards (its own buffer has
    // no room past the end), so the last one recomputes an overlap.
    bool under_epilogue = false;

    TailRule tail_rule(size_t j) const {
        if (j < overrun_ok.size() && overrun_ok[j]) return TailRule::Overrun;
        if (j < shift_ok.size() && shift_ok[j]) return TailRule::ShiftInwards;
        return TailRule::Divide;
    }
    bool overruns(size_t j) const { return j < overrun_ok.size() && overrun_ok[j]; }
    bool shifts(size_t j) const { return j < shift_ok.size() && shift_ok[j]; }
    // Whether the L2 tiles along j shift inwards (whole tiles, an overlap recomputed).
    bool l2_shifts(size_t j) const { return shifts(j) || (under_epilogue && overruns(j)); }
};

// The context of analysis::fuse_axes(t, f)'s dims: the fused dim's tiles beyond the
// registers shift inwards along the outer dim (see analysis/axis_fusion.h), and
// every other dim keeps its rules.
TilingContext fuse_tiling(const TilingContext &c, const analysis::AxisFusion &f, size_t fused_dims);

}  // namespace tessera::rtile
