// Unit tests of axis fusion (scheduler/analysis/axis_fusion.h) and of the fused
// programs the construction builds from it (scheduler/rtile/construction.cpp), on
// hand-built NCHW convolutions (hand_built_exprs.h).
#include "axis_fusion.h"
#include "construction.h"
#include "device_spec.h"
#include "pinned_builtin_profile.h"
#include "hand_built_exprs.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using test::nchw_conv;

hal::DeviceSpec avx2() {
    return hal::make_device_spec(Halide::Target("x86-64-linux-avx-avx2-f16c-fma-sse41"), 2,
                                 test::pinned_builtin_profile(8));
}

TEST(AxisFusion, OneByOneConvolutionFusesItsRowsAndColumns) {
    const analysis::TensorExpr t = nchw_conv(1, 1);
    const std::optional<analysis::AxisFusion> f = analysis::find_axis_fusion(t, {}, 0);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->fused_name(), "x_y");
    EXPECT_EQ(f->inner_extent, 14);
    EXPECT_EQ(f->outer_extent, 14);

    const analysis::TensorExpr fused = analysis::fuse_axes(t, *f);
    ASSERT_EQ(fused.dims.size(), t.dims.size() - 1);
    EXPECT_EQ(fused.dims[0].name, "x_y");
    EXPECT_EQ(fused.dims[0].extent, 196);
    EXPECT_EQ(fused.dims[0].fused_row, 14);
    EXPECT_EQ(fused.dims[1].name, "c");
    // Its tiles shift inwards along the fused dim; the others keep their rules.
    const rtile::TilingContext tiling = rtile::fuse_tiling({}, *f, fused.dims.size());
    EXPECT_TRUE(tiling.shifts(0));
    EXPECT_FALSE(tiling.shifts(1));
    // The input's two storage dims became one, indexed by the fused dim; the
    // weights, which use neither dim, only lost the column.
    const analysis::AccessMap &in = fused.reads[0];
    ASSERT_EQ(in.coef.size(), 2u);
    EXPECT_EQ(in.coef[0], (std::vector<int64_t>{1, 0, 1, 14, 0}));
    EXPECT_EQ(in.coef[1], (std::vector<int64_t>{0, 0, 0, 0, 1}));
    EXPECT_EQ(fused.reads[1].coef.size(), 4u);
    EXPECT_EQ(fused.reads[1].coef[3], (std::vector<int64_t>{0, 1, 0, 0, 0}));
    EXPECT_EQ(fused.write.coef.size(), 2u);
    // A tile of two rows reads two rows of each input channel it covers.
    EXPECT_EQ(in.tile_elements({28, 4, 1, 1, 8}), 28 * 8);
}

TEST(AxisFusion, SlidingWindowsAndLoneDimsDoNotFuse) {
    // A 3x3 window reads x + r.x: the input's rows are not the output's.
    EXPECT_FALSE(analysis::find_axis_fusion(nchw_conv(3, 3), {}, 0).has_value());
    // y and c: the input does not index c (its channels are r.z), the output does.
    EXPECT_FALSE(analysis::find_axis_fusion(nchw_conv(1, 1), {}, 1).has_value());
    // c is followed by a reduction dim.
    EXPECT_FALSE(analysis::find_axis_fusion(nchw_conv(1, 1), {}, 2).has_value());
}

TEST(AxisFusion, ConstructionTilesTheFusedDimInWholeVectorsAndWholeRows) {
    const analysis::TensorExpr t = nchw_conv(1, 1);
    const hal::DeviceSpec d = avx2();
    const rtile::ConstructionResult r = rtile::construct_programs(t, d, 8, {}, /*under_epilogue=*/true);
    const rtile::RProgram *fused = nullptr;
    for (const rtile::RProgram &p : r.programs) {
        if (p.fusion && !fused) fused = &p;
    }
    ASSERT_NE(fused, nullptr);
    const int64_t reg = fused->tiles[rtile::kRegisterTile].shape[0], l2 = fused->tiles[rtile::kL2Tile].shape[0];
    EXPECT_EQ(reg % d.vector_lanes, 0);
    EXPECT_EQ(l2 % 14, 0);    // whole x rows
    EXPECT_EQ(l2 % reg, 0);   // whole register tiles
    EXPECT_EQ(fused->packed_read, 0);       // the input, copied per L2 tile
    EXPECT_EQ(fused->padding_elements, 0);    // rows exactly 14 floats apart
    EXPECT_GE(fused->parallel_tasks, 2);
    // Without a pure epilogue to cut into whole rows, nothing is fused.
    for (const rtile::RProgram &p : rtile::construct_programs(t, d, 8, {}, false).programs) {
        EXPECT_FALSE(p.fusion.has_value());
    }
}

}  // namespace
