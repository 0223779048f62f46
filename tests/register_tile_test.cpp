// Unit tests of the register-tile budget (scheduler/rtile/alignment.h) on a
// hand-built NHWC convolution (hand_built_exprs.h), of the vector widths, and of
// the third register dim the construction gives channel-blocked convolutions.
#include "alignment.h"
#include "construction.h"
#include "device_spec.h"
#include "hand_built_exprs.h"
#include "pinned_builtin_profile.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using test::nhwc_conv;

hal::DeviceSpec device(const char *target) {
    const Halide::Target t(target);
    return hal::make_device_spec(t, 2, test::pinned_builtin_profile(t.has_feature(Halide::Target::AVX512) ? 16 : 8));
}

rtile::RProgram program_along_x() {
    rtile::RProgram p;
    p.vector_dim = 0;
    p.second_dim = 1;
    return p;
}

rtile::RTile tile(int64_t c, int64_t x) { return rtile::RTile{{c, x, 1, 1, 1, 1}}; }

TEST(RegisterTile, Avx512FmaReadsItsBroadcastFromMemory) {
    const hal::DeviceSpec d = device("x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake");
    ASSERT_EQ(d.vector_lanes, 16);
    // 4 vectors x 7 rows: 28 accumulators and 4 weight vectors fill the 32 registers.
    EXPECT_EQ(rtile::register_tile_registers(tile(64, 7), program_along_x(), d), 32);
    EXPECT_EQ(rtile::register_tile_registers(tile(64, 8), program_along_x(), d), 36);
}

TEST(RegisterTile, Avx2NeedsABroadcastRegister) {
    const hal::DeviceSpec d = device("x86-64-linux-avx-avx2-f16c-fma-sse41");
    ASSERT_EQ(d.vector_lanes, 8);
    // 2 vectors x 6 rows: 12 accumulators, 2 weight vectors and the broadcast.
    EXPECT_EQ(rtile::register_tile_registers(tile(16, 6), program_along_x(), d), 15);
    const analysis::TensorExpr t = nhwc_conv(true);
    EXPECT_TRUE(rtile::register_tile_fits(t, tile(16, 6), program_along_x(), d));
    EXPECT_FALSE(rtile::register_tile_fits(t, tile(16, 7), program_along_x(), d));
}

TEST(RegisterTile, ComputedOperandRowsShareOneAddress) {
    // The padded input computed per tile has a compile-time row stride (its rows
    // hold all 512 input channels, a reduction dim): one address for all 7 rows.
    EXPECT_EQ(rtile::register_tile_row_streams(nhwc_conv(true), tile(64, 7), program_along_x()), 1);
    // Read straight from an input buffer, each row needs its own address.
    EXPECT_EQ(rtile::register_tile_row_streams(nhwc_conv(false), tile(64, 7), program_along_x()), 7);
    const hal::DeviceSpec d = device("x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake");
    EXPECT_TRUE(rtile::register_tile_fits(nhwc_conv(true), tile(64, 7), program_along_x(), d));
    EXPECT_FALSE(rtile::register_tile_fits(nhwc_conv(false), tile(64, 7), program_along_x(), d));
}

TEST(RegisterTile, ComputedOperandWithSpatialInnerDimHasRunTimeStride) {
    // The read's innermost storage dim indexed by a spatial dim (y): its extent
    // follows the tile, which may be ragged, so the row stride is a run-time value.
    analysis::TensorExpr t = nhwc_conv(true);
    t.reads[0].coef[0] = {0, 0, 1, 0, 0, 0};
    EXPECT_EQ(rtile::register_tile_row_streams(t, tile(64, 4), program_along_x()), 4);
}

constexpr const char *kAvx512 = "x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake";

TEST(RegisterTile, ThirdDimHoldsOneOperandVectorPerPoint) {
    const hal::DeviceSpec d = device(kAvx512);
    rtile::RProgram p = program_along_x();
    p.third_dim = 3;
    // 16 channels x 7 pixels x 4 blocks: 28 accumulators and a weight vector per block.
    const rtile::RTile t{{16, 7, 1, 4, 1, 1}};
    EXPECT_EQ(rtile::register_tile_accumulators(t, p, d), 28);
    EXPECT_EQ(rtile::register_tile_registers(t, p, d), 32);
    // The blocks' weight rows lie a constant stride apart: one address for them,
    // one for the input's pixels.
    EXPECT_EQ(rtile::register_tile_row_streams(test::blocked_pointwise_conv(14, 8, 8, 16), t, p), 2);
}

TEST(RegisterTile, BlockedConvolutionTilesSpanPixelsAndChannelBlocks) {
    const hal::DeviceSpec d = device(kAvx512);
    const analysis::TensorExpr t = test::blocked_pointwise_conv(28, 8, 8, 16);
    const rtile::ConstructionResult r = rtile::construct_programs(t, d, 4);
    ASSERT_FALSE(r.programs.empty());
    const rtile::RProgram &best = r.programs.front();
    const rtile::RTile &reg = best.tiles[rtile::kRegisterTile];
    // The vector dim is the block, one vector; pixels and output blocks both in
    // the tile, so each broadcast feeds several weight vectors.
    EXPECT_EQ(best.vector_dim, 0u);
    EXPECT_EQ(reg.shape[0], 16);
    ASSERT_EQ(best.third_dim, 3);
    EXPECT_GT(reg.shape[3], 1);
    EXPECT_GT(reg.shape[size_t(best.second_dim)], 1);
    EXPECT_LE(rtile::register_tile_registers(reg, best, d), d.vector_registers);
    EXPECT_GE(rtile::register_tile_accumulators(reg, best, d), d.min_accumulators());
}

TEST(RegisterTile, NoThirdDimWhereTheVectorDimSpansMoreThanOneVector) {
    // Panels of 32 output channels: two vectors along the vector dim, where the
    // tile grows instead (NCHW 3x3 at 7x7x512 ran 1.7x slower with a third dim).
    const hal::DeviceSpec d = device(kAvx512);
    for (const rtile::RProgram &p : rtile::construct_programs(test::pointwise_conv_on_panels(14, 256, 512), d, 8).programs) {
        EXPECT_EQ(p.third_dim, -1);
    }
}

// The transposed NCHW 3x3 program: output channels in the vectors, a row of x
// points, the 3 taps along x unrolled (the window), input channels chunked.
rtile::RProgram transposed_window_program() {
    rtile::RProgram p;
    p.vector_dim = 2;
    p.second_dim = 0;
    p.split_reduction = 5;
    p.transposed = true;
    return p;
}

rtile::RTile channel_row(int64_t c, int64_t x) { return rtile::RTile{{x, 1, c, 1, 1, 1}}; }

TEST(RegisterTile, Avx512HoldsAStrideOneRowOfTheWindowInRegisters) {
    const hal::DeviceSpec d = device(kAvx512);
    const rtile::RProgram p = transposed_window_program();
    const analysis::TensorExpr s1 = test::nchw_conv(3, 3, 1, 14, 256, 256);
    // 7 points and 3 taps at stride 1 touch 9 inputs, each held across the taps.
    EXPECT_EQ(rtile::hoisted_broadcast_registers(s1, channel_row(64, 7), p, d), 9);
    // 28 accumulators, 4 weight vectors and 9 inputs spill; 7 x 2 vectors fit,
    // with the whole file (the 4-register margin stood in for those inputs).
    EXPECT_FALSE(rtile::register_tile_fits(s1, channel_row(64, 7), p, d));
    EXPECT_TRUE(rtile::register_tile_fits(s1, channel_row(32, 7), p, d));
    // One vector: each broadcast feeds one FMA, folded into it.
    EXPECT_EQ(rtile::hoisted_broadcast_registers(s1, channel_row(16, 7), p, d), 0);
    // At stride 2 the taps share one input in three: LLVM folds the broadcasts,
    // none is counted, and the margin stays.
    const analysis::TensorExpr s2 = test::nchw_conv(3, 3, 2, 14, 256, 256);
    EXPECT_EQ(rtile::hoisted_broadcast_registers(s2, channel_row(32, 7), p, d), 0);
    EXPECT_TRUE(rtile::register_tile_fits(s2, channel_row(48, 8), p, d));   // 24 + 3 <= 28
    EXPECT_FALSE(rtile::register_tile_fits(s2, channel_row(48, 9), p, d));  // 27 + 3 > 28
}

TEST(RegisterTile, Avx2CountsTheWindowsDistinctBroadcasts) {
    const hal::DeviceSpec d = device("x86-64-linux-avx-avx2-f16c-fma-sse41");
    const rtile::RProgram p = transposed_window_program();
    // Beyond the one broadcast register: 4 points x 3 taps touch 6 inputs at
    // stride 1, each held; at stride 2 they touch 9, of which two taps share 3.
    EXPECT_EQ(rtile::hoisted_broadcast_registers(test::nchw_conv(3, 3, 1), channel_row(16, 4), p, d), 5);
    EXPECT_EQ(rtile::hoisted_broadcast_registers(test::nchw_conv(3, 3, 2), channel_row(16, 4), p, d), 3);
    // Stride 4: no input is shared, none held.
    EXPECT_EQ(rtile::hoisted_broadcast_registers(test::nchw_conv(3, 3, 4), channel_row(16, 4), p, d), 0);
    // So at stride 2, 4 points x 2 vectors fit with the window innermost (8 + 2 + 1 +
    // 3 <= 16, the margin replaced); 5 x 2 do not (10 + 2 + 1 + 4 > 16).
    EXPECT_TRUE(rtile::register_tile_fits(test::nchw_conv(3, 3, 2, 28, 64, 128), channel_row(16, 4), p, d));
    EXPECT_FALSE(rtile::register_tile_fits(test::nchw_conv(3, 3, 2, 28, 64, 128), channel_row(16, 5), p, d));
    // 1x1: no window.
    EXPECT_EQ(rtile::hoisted_broadcast_registers(test::nchw_conv(1, 1, 1), channel_row(16, 4), p, d), 0);
}

TEST(RegisterTile, Avx2CountedBroadcastsTakeTheMarginForTwoOperandVectors) {
    const hal::DeviceSpec d = device("x86-64-linux-avx-avx2-f16c-fma-sse41");
    const rtile::RProgram p = transposed_window_program();
    const analysis::TensorExpr s1 = test::nchw_conv(3, 3, 1, 28, 128, 128);
    // 8 accumulators, 2 weight vectors and 6 broadcasts: the whole file, no margin.
    EXPECT_TRUE(rtile::register_tile_fits(s1, channel_row(16, 4), p, d));
    EXPECT_FALSE(rtile::register_tile_fits(s1, channel_row(16, 5), p, d));  // 10 + 2 + 7 > 16
    // 4 operand vectors keep the margin: 8 + 4 + 4 > 12.
    EXPECT_FALSE(rtile::register_tile_fits(s1, channel_row(32, 2), p, d));
    // One vector: nothing hoisted, the margin stays (7 + 1 + 1 <= 12; 14 + 1 + 1 > 12).
    EXPECT_TRUE(rtile::register_tile_fits(s1, channel_row(8, 7), p, d));
    EXPECT_FALSE(rtile::register_tile_fits(s1, channel_row(8, 14), p, d));
}

TEST(VectorWidth, ReductionRowsTakeVectorsThatDivideThem) {
    // A row that fits in a vector is one vector (global_avg_pool 14x14, 7x7).
    EXPECT_EQ(rtile::reduction_vector_width(14, 16), 14);
    EXPECT_EQ(rtile::reduction_vector_width(7, 16), 7);
    // Longer rows: whole vectors, else a divisor of at least 3/4 of a vector.
    EXPECT_EQ(rtile::reduction_vector_width(4096, 16), 16);
    EXPECT_EQ(rtile::reduction_vector_width(196, 16), 14);
    EXPECT_EQ(rtile::reduction_vector_width(300, 16), 15);
    EXPECT_EQ(rtile::reduction_vector_width(28, 8), 7);
    // No such divisor: full vectors, the last one guarded.
    EXPECT_EQ(rtile::reduction_vector_width(1000, 16), 16);
    EXPECT_EQ(rtile::reduction_vector_width(37, 16), 16);
}

}  // namespace
