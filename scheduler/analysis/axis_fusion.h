// Axis fusion (Roller (OSDI'22), end of §3.2): two adjacent loop dims that every
// tensor either indexes as two adjacent storage dims (inner, then outer, both
// with coefficient 1) or does not index at all can be merged into one dim whose
// extent is their product. An NCHW 1x1 convolution 14 x 14 wide becomes a GEMM
// with 196 columns, which whole 8- or 16-lane vectors tile where 14 could not.
//
// The fused stage is a canonical form for construction; Halide still sees the two
// dims, fused by `Stage::fuse` in the schedule. For the fused index to address
// memory densely, the storage along the inner dim must hold exactly the inner
// extent: true of the tile buffers the schedule allocates (the accumulators and
// the packed input copy per L2 tile), not of the caller's buffers. See
// apply/compute_schedules.cpp and scheduler/README.md.
#pragma once

#include "tensor_expr.h"

#include <optional>

namespace tessera::analysis {

struct AxisFusion {
    size_t inner = 0;            // loop dim index of the inner dim; the outer is inner + 1
    std::string inner_name, outer_name;
    int64_t inner_extent = 1, outer_extent = 1;

    std::string fused_name() const { return inner_name + "_" + outer_name; }
};

// The fusion of loop dim `inner` with the next dim when Roller's rule allows it:
// both pure dims starting at 0, neither among the dims whose tiles may overrun
// (`overrun_ok`, per loop dim), and every access (the write
// and each read) either independent of both or indexing them as adjacent storage
// dims with coefficient 1 (other loop dims there only of extent 1: a 1x1 window).
std::optional<AxisFusion> find_axis_fusion(const TensorExpr &t, const std::vector<bool> &overrun_ok, size_t inner);

// The canonical form of `t` with the fusion applied: the inner dim becomes the
// fused dim (extent the product), the outer dim disappears, and every access that
// used both gets one storage dim for them. The fused dim's tiles beyond the
// registers cover whole inner rows, the last shifted inwards along the outer dim
// (rtile::fuse_tiling): the schedule computes the stage per tile of its pure
// epilogue, which is cut so.
TensorExpr fuse_axes(const TensorExpr &t, const AxisFusion &f);

}  // namespace tessera::analysis
