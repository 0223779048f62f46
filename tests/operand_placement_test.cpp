// Unit tests of rtile::per_tile_recompute_factor, which sends a padded input to
// root when per-tile placement would compute it many times over.
#include "hand_built_exprs.h"
#include "rtile.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;

rtile::RProgram program(const std::vector<int64_t> &l2, int64_t tasks) {
    rtile::RProgram p;
    p.split_reduction = 5;  // the kernel rows, r.z
    p.tiles = {rtile::RTile{l2}, rtile::RTile{l2}, rtile::RTile{l2}};
    p.parallel_tasks = tasks;
    return p;
}

TEST(OperandPlacement, TilesSplittingOnlyChannelsRecomputeTheWholeInput) {
    const analysis::TensorExpr t = test::nhwc_conv(true);
    // 4 tasks of 128 output channels, each over all 7x7 points, in 3 chunks of one
    // kernel row: each chunk pads 512 x 9 x 7 of the 512 x 9 x 9 input.
    const rtile::RProgram p = program({128, 7, 7, 512, 3, 1}, 4);
    EXPECT_NEAR(rtile::per_tile_recompute_factor(t, p, t.reads[0]), 4.0 * 3 * 63 / 81, 1e-9);
}

TEST(OperandPlacement, TilesSplittingRowsShareOnlyHalos) {
    const analysis::TensorExpr t = test::nhwc_conv(true);
    // 7 tasks, one output row each over all channels, one chunk: 3 of 9 input rows each.
    const rtile::RProgram p = program({512, 7, 1, 512, 3, 3}, 7);
    EXPECT_NEAR(rtile::per_tile_recompute_factor(t, p, t.reads[0]), 7.0 * 3 / 9, 1e-9);
}

}  // namespace
