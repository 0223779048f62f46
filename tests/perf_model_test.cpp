// Unit tests of the micro-performance model (scheduler/rtile/perf_model.h) on
// hand-built NCHW convolutions (hand_built_exprs.h).
#include "alignment.h"
#include "construction.h"
#include "device_spec.h"
#include "hand_built_exprs.h"
#include "pinned_builtin_profile.h"
#include "perf_model.h"
#include "program_family.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using test::nchw_conv;

// The built-in profile with Zen 3's 512 KiB L2 (the tile sizes below are chosen
// around its 384 KiB share), whatever this machine's caches.
hal::DeviceSpec avx2() {
    const hal::DeviceProfile profile = test::pinned_builtin_profile(8, 512 << 10);
    return hal::make_device_spec(Halide::Target("x86-64-linux-avx-avx2-f16c-fma-sse41"), 2, profile);
}

// Dims of nchw_conv: x, y, c, r.x, r.y, r.z.
rtile::RTile tile(int64_t x, int64_t y, int64_t c, int64_t rx, int64_t ry, int64_t rz) {
    return rtile::RTile{{x, y, c, rx, ry, rz}};
}

TEST(PerfModel, OddWidthStridedVectorsAreAssembledLaneByLane) {
    const hal::DeviceSpec d = avx2();
    ASSERT_EQ(d.vector_lanes, 8);
    rtile::RProgram p;
    p.vector_dim = 0;  // x: 7 of 8 lanes
    p.second_dim = 2;  // 4 output channels
    const rtile::RTile reg = tile(7, 1, 4, 1, 1, 1);
    const analysis::TensorExpr unit = nchw_conv(3, 3, 1), strided = nchw_conv(3, 3, 2);
    const double unit_loads = rtile::PerfModel(unit, d).mem_traffic(reg, rtile::kRegisterTile, p);
    const double strided_loads = rtile::PerfModel(strided, d).mem_traffic(reg, rtile::kRegisterTile, p);
    // Per tile and tap: 4 weight broadcasts, and the input row as one unaligned
    // vector (2 loads) at stride 1 but 7 loads and 7 inserts at stride 2.
    EXPECT_DOUBLE_EQ(strided_loads / unit_loads, (4.0 + 14.0) / (4.0 + 2.0));
    // Whole 8-lane vectors keep their loads: x=8 reads the same at both strides
    // but for the window's second vector (15 floats span two).
    const rtile::RTile whole = tile(8, 1, 4, 1, 1, 1);
    EXPECT_DOUBLE_EQ(rtile::PerfModel(strided, d).mem_traffic(whole, rtile::kRegisterTile, p) /
                         rtile::PerfModel(unit, d).mem_traffic(whole, rtile::kRegisterTile, p),
                     (4.0 + 4.0) / (4.0 + 2.0));
}

TEST(PerfModel, StridedVectorsChargeTheirShufflesAsFmaSlots) {
    // NCHW 7x7 stride-2 stem, 3 -> 64 channels at 112x112, vectorised along x in
    // tiles of 2 vectors x 8 channels: each tap's 16 FMAs come with 2 input vectors
    // assembled from 4 loaded ones by 2 permutes, on a pipe the FMAs use.
    const hal::DeviceSpec d = hal::make_device_spec(
        Halide::Target("x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake"), 2, test::pinned_builtin_profile(16));
    rtile::RProgram p;
    p.vector_dim = 0;
    p.second_dim = 2;
    const rtile::RTile reg = tile(32, 1, 8, 1, 1, 1);
    p.tiles = {reg, tile(32, 1, 8, 7, 7, 3), tile(112, 8, 64, 7, 7, 3)};
    const analysis::TensorExpr unit = nchw_conv(7, 7, 1, 112, 3, 64), strided = nchw_conv(7, 7, 2, 112, 3, 64);
    EXPECT_DOUBLE_EQ(rtile::PerfModel(strided, d).compute_time_ms(p) / rtile::PerfModel(unit, d).compute_time_ms(p),
                     (16.0 + 2.0) / 16.0);
    // So charged, the construction vectorises the stem along its output channels
    // (measured 1.43-1.54 ms against 1.47-1.69 along x, Zen 4, side by side).
    const rtile::ConstructionResult r = rtile::construct_programs(strided, d, 4);
    ASSERT_FALSE(r.programs.empty());
    EXPECT_TRUE(r.programs.front().transposed);
}

TEST(PerfModel, AnEpiloguesShiftedL2TilesRecomputeTheirOverlap) {
    // A 3x3 stride-2 convolution to 14x14 whose padded input lets its tiles overrun
    // x and y, in register tiles of 5 columns x 16 channels. Computed per L2 tile of
    // its epilogue, L2 tiles of 10 columns shift inwards: 20 columns computed for 14,
    // where whole rows (L2 tiles of 15) compute 15 (ResNet-50's layer3 stride-2 3x3
    // ran 1.5x slower in its model, with tiles of 10, than alone with one of 15).
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = nchw_conv(3, 3, 2, 14, 256, 256);
    rtile::TilingContext tiling;
    tiling.overrun_ok = {true, true, false, false, false, false};
    rtile::RProgram p;
    p.vector_dim = 2;
    p.second_dim = 0;
    const rtile::RTile reg = tile(5, 1, 16, 1, 1, 1);
    auto program = [&](int64_t l2_x) {
        rtile::RProgram q = p;
        q.tiles = {reg, tile(5, 1, 16, 3, 3, 32), tile(l2_x, 14, 64, 3, 3, 32)};
        return q;
    };
    const double rows = rtile::PerfModel(t, d, tiling).compute_time_ms(program(15));
    EXPECT_DOUBLE_EQ(rtile::PerfModel(t, d, tiling).compute_time_ms(program(10)), rows);  // computed at root
    tiling.under_epilogue = true;
    EXPECT_DOUBLE_EQ(rtile::PerfModel(t, d, tiling).compute_time_ms(program(15)), rows);
    EXPECT_DOUBLE_EQ(rtile::PerfModel(t, d, tiling).compute_time_ms(program(10)) / rows, 20.0 / 15.0);
}

TEST(PerfModel, StridedBroadcastsCountTheElementsRead) {
    // A transposed tile of 7 points x 8 channels (vectorised along c): per tap it
    // broadcasts 7 inputs, 2 floats apart, whose box spans 13.
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = nchw_conv(3, 3, 2, 7, 512, 512);
    const rtile::RTile reg = tile(7, 1, 8, 1, 1, 1);
    EXPECT_EQ(t.reads[0].tile_elements(reg.shape), 13);
    EXPECT_EQ(t.reads[0].touched_elements(reg.shape), 7);
    rtile::RProgram p;
    p.vector_dim = 2;
    p.second_dim = 0;
    p.transposed = true;
    p.packed_read = 1;  // the weights, packed with the output channels innermost
    // Under a whole window the strided columns are all touched: 2 x 6 + 3.
    EXPECT_EQ(t.reads[0].touched_extent(0, tile(7, 1, 8, 3, 1, 1).shape), 15);
    // Tiles x taps x (broadcasts + the weight vector, charged two loads: the model
    // reads the weights' own layout, window innermost, not the packed copy). With
    // AVX2's broadcasts as instructions of their own, the 3 unrolled taps share
    // them: 15 inputs over 3 taps, 5 per tap.
    const double tiles = 1 * 7 * 64 * 3 * 3 * 512;
    ASSERT_FALSE(d.fma_broadcasts_from_memory);
    EXPECT_DOUBLE_EQ(rtile::PerfModel(t, d).mem_traffic(reg, rtile::kRegisterTile, p), tiles * (5 + 2));
    // AVX-512 folds each broadcast into its FMA: 7 per tap.
    const hal::DeviceSpec wide =
        hal::make_device_spec(Halide::Target("x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake"), 2,
                              test::pinned_builtin_profile(16));
    ASSERT_TRUE(wide.fma_broadcasts_from_memory);
    rtile::RProgram q = p;
    const rtile::RTile wide_reg = tile(7, 1, 16, 1, 1, 1);
    EXPECT_DOUBLE_EQ(rtile::PerfModel(t, wide).mem_traffic(wide_reg, rtile::kRegisterTile, q),
                     1 * 7 * 32 * 3 * 3 * 512 * (7.0 + 2));
    // The 7 columns are constant offsets from one address: one row stream.
    EXPECT_EQ(rtile::register_tile_row_streams(t, reg, p), 1);
}

TEST(PerfModel, AMeasuredBroadcastRateChargesBroadcastHeavyTiles) {
    // NCHW 3x3, 256 -> 256 channels, 14 x 14 outputs on a core that issues one
    // broadcast per cycle beside its two FMA pipes (AVX2's table), against one that
    // issues them as any load.
    hal::DeviceSpec d = avx2();
    ASSERT_EQ(d.broadcasts_per_cycle, 1.0);
    d.broadcasts_per_cycle = 0;
    const analysis::TensorExpr t = nchw_conv(3, 3, 1, 14, 256, 256);
    // Direct: 8 points in a vector x 8 channels: per tap 8 weight broadcasts and
    // one unaligned input vector (two loads).
    rtile::RProgram direct;
    direct.vector_dim = 0;
    direct.second_dim = 2;
    direct.split_reduction = 5;
    const rtile::RTile direct_reg = tile(8, 1, 8, 1, 1, 1);
    // Transposed: 7 points x 8 channels in a vector: per tap 3 input broadcasts
    // (9 over the 3 unrolled taps) and the weight vector.
    rtile::RProgram transposed = direct;
    transposed.vector_dim = 2;
    transposed.second_dim = 0;
    transposed.transposed = true;
    transposed.packed_read = 1;
    const rtile::RTile transposed_reg = tile(7, 1, 8, 1, 1, 1);
    auto register_ms = [&](const rtile::RProgram &p, const rtile::RTile &reg) {
        return rtile::PerfModel(t, d).mem_time_ms(reg, rtile::kRegisterTile, p);
    };
    const double direct_loads = register_ms(direct, direct_reg), transposed_loads = register_ms(transposed, transposed_reg);
    d.broadcasts_per_cycle = 1.0;
    // Direct: max(10 loads / 2, 8 broadcasts / 1) cycles per tap, was 5.
    EXPECT_DOUBLE_EQ(register_ms(direct, direct_reg) / direct_loads, 8.0 / 5.0);
    // Transposed: max(5 loads / 2, 3 broadcasts / 1), was 2.5.
    EXPECT_DOUBLE_EQ(register_ms(transposed, transposed_reg) / transposed_loads, 3.0 / 2.5);
    // The construction's pick follows: the transposed program, ahead of the
    // direct one that ran 1.6x slower on Zen 3.
    const rtile::ConstructionResult r = rtile::construct_programs(t, d, 4);
    ASSERT_FALSE(r.programs.empty());
    EXPECT_TRUE(r.programs.front().transposed);
}

TEST(PerfModel, ATileOneAccumulatorShortOfTheLatencyStaysACandidate) {
    // A 1x1 convolution at 7x7 over packed panels: with the output channels in the
    // vectors, the only tiles with more than one point per weight vector are a row
    // of 7 points, one vector wide (7 accumulators, one short of AVX2's 2 pipes x
    // latency 4: an eighth of the FMA rate). Without them every tile loaded one
    // weight vector per FMA (320 -> 1280 channels measured 0.93 ms, with the row
    // 0.57-0.73 on Zen 3).
    const hal::DeviceSpec d = avx2();
    ASSERT_EQ(d.min_accumulators(), 8);
    const analysis::TensorExpr t = test::pointwise_conv_on_panels(7, 320, 1280);
    const rtile::ConstructionResult r = rtile::construct_programs(t, d, 8);
    ASSERT_FALSE(r.programs.empty());
    const rtile::RProgram &best = r.programs.front();
    EXPECT_EQ(best.vector_dim, 0u);  // xi
    const rtile::RTile &reg = best.tiles[rtile::kRegisterTile];
    EXPECT_EQ(reg.shape[1] * reg.shape[2], 7) << "a row of the 7x7 map";
    EXPECT_EQ(rtile::register_tile_accumulators(reg, best, d), 7);
}

TEST(PerfModel, AnL1TileHoldsTheWholeLinesItReadsPartOf) {
    // NCHW 1x1, 56x56, vectorised along x: an L1 tile 8 points wide reads 8 floats of
    // each 56-float input row and holds the 16 of its line; 16 wide, whole lines.
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = nchw_conv(1, 1, 1, 56, 64, 64);
    rtile::RProgram p;
    p.vector_dim = 0;
    p.second_dim = 2;
    const rtile::PerfModel model(t, d);
    auto footprint = [&](const rtile::RTile &l1, const rtile::RProgram &q) {
        return model.mem_footprint(l1, rtile::kL1Tile, q);
    };
    const rtile::RTile narrow = tile(8, 1, 4, 1, 1, 64), wide = tile(16, 1, 4, 1, 1, 64);
    // Input 8 x 64 channels, weights 4 x 64; the input's rows in lines of 16.
    EXPECT_EQ(footprint(narrow, p), (16 * 64 + 4 * 64) * 4);
    EXPECT_EQ(footprint(wide, p), (16 * 64 + 4 * 64) * 4);
    // A transposed program reads its packed copy, the vector dim innermost.
    rtile::RProgram transposed = p;
    transposed.transposed = true;
    transposed.vector_dim = 2;
    transposed.second_dim = 0;
    EXPECT_EQ(footprint(narrow, transposed), (8 * 64 + 4 * 64) * 4);
}

// The L1 footprint of `tile` (dims xi, x, y, co, r.z) in a 1x1 convolution over
// packed weight panels on a side x side map, on the pinned AVX2 machine.
int64_t panel_conv_l1_footprint(int side, int in, int out, size_t vector_dim, size_t second_dim,
                                const rtile::RTile &tile) {
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = test::pointwise_conv_on_panels(side, in, out);
    rtile::RProgram p;
    p.vector_dim = vector_dim;
    p.second_dim = second_dim;
    return rtile::PerfModel(t, d).mem_footprint(tile, rtile::kL1Tile, p);
}

TEST(PerfModel, BroadcastsAcrossPanelsHoldTheirWholeLines) {
    // A 1x1 convolution over packed weight panels, vectorised along the points (x,
    // then co): a tile of 1 of a panel's 32 channels in each of 4 panels broadcasts
    // one float of every 16-float line it holds (56x56, 256 -> 128: it ran 7.8 ms,
    // the tile of 4 channels in one panel 2.4). Input 8 x 64 channels (its 56-float
    // rows in lines of 16); weights 4 panels x 64 channels, a line each.
    const rtile::RTile across{{1, 8, 1, 4, 64}}, within{{4, 8, 1, 1, 64}};
    EXPECT_EQ(panel_conv_l1_footprint(56, 256, 128, 1, 3, across), (16 * 64 + 4 * 64 * 16) * 4);
    EXPECT_EQ(panel_conv_l1_footprint(56, 256, 128, 1, 3, within), (16 * 64 + 64 * 16) * 4);
}

// predict()'s L2 -> L1 term for a program of one tile at every level below L2
// (dims xi, x, y, co, r.z) in a 1x1 convolution over weight panels, 28x28, `in`
// input channels -> 512, vectorised along x with the panels (co) unrolled.
double panel_conv_l1_ms(int64_t in, const rtile::RTile &reg, const rtile::RTile &l1) {
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = test::pointwise_conv_on_panels(28, in, 512);
    rtile::RProgram p;
    p.vector_dim = 1;
    p.second_dim = 3;
    rtile::RTile l2 = l1;
    l2.shape[2] = 28;
    p.tiles = {reg, l1, l2};
    rtile::PerfModel(t, d).predict(p);
    return p.terms.l1_ms;
}

TEST(PerfModel, BroadcastsFromPanelsFourKibApartComeFromTheL2) {
    // One channel of each of 16 panels per register tile: with 128 input channels
    // the panels are 16 KiB apart, so their lines share an L1 set, 16 in 8 ways,
    // and every broadcast refetches its line (128 -> 512 at 28x28 on Zen 5 ran
    // 1.09 ms so, 0.29 with 8 channels of one panel). With 136 channels (17 KiB
    // apart) they spread over four sets (4 lines each with chunks of 8 input
    // channels, 256 bytes of each panel). Per input channel the two stages do the
    // same work, so the term per channel compares them.
    const rtile::RTile reg{{1, 8, 1, 16, 1}}, l1{{1, 8, 1, 16, 8}};
    const double aliased = panel_conv_l1_ms(128, reg, l1) / 128, spread = panel_conv_l1_ms(136, reg, l1) / 136;
    EXPECT_GT(aliased, 4 * spread);
    // 8 channels of one panel: contiguous broadcasts, no set overfull.
    const rtile::RTile within_reg{{8, 8, 1, 1, 1}}, within_l1{{8, 8, 1, 1, 8}};
    EXPECT_NEAR(panel_conv_l1_ms(128, within_reg, within_l1) / 128, panel_conv_l1_ms(136, within_reg, within_l1) / 136,
                0.05 * panel_conv_l1_ms(136, within_reg, within_l1) / 136);
}

// predict()'s L2 -> L1 term of a GEMM out(n, m) += a(k, m) * b(n, k), 512 x 64 x 256,
// vectorised along n with `n` x `m` register tiles and the whole reduction in L1.
double gemm_l1_ms(int64_t n, int64_t m) {
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = test::gemm(512, 64, 256);
    rtile::RProgram p;
    p.vector_dim = 0;
    p.second_dim = 1;
    const rtile::RTile reg{{n, m, 1}}, l1{{n, m, 256}}, l2{{64, 256, 256}};
    p.tiles = {reg, l1, l2};
    rtile::PerfModel(t, d).predict(p);
    return p.terms.l1_ms;
}

TEST(PerfModel, SetConflictsRefetchEachLineOncePerRegisterTile) {
    // B's rows are 64 floats (256 bytes) apart: an L1 tile of 16 or 8 columns x 256 rows
    // lands in a quarter of the sets, every line evicted before the next register tile
    // reads it. Both tiles hold 64 outputs and fetch one line of B per row from the L2;
    // 4 x 16 reads half the rows of A. Its 16 columns are two AVX2 vector loads of that
    // one line: charged per load, 4 x 16 was ranked below 8 x 8, which ran 1.25x slower
    // (0.217 against 0.173-0.181 ms on a Zen 3 core).
    EXPECT_LT(gemm_l1_ms(16, 4), gemm_l1_ms(8, 8));
}

TEST(PerfModel, RowsOfASmallMapStraddleLines) {
    // A 1x1 convolution at 7x7 over weight panels, vectorised along a panel's
    // channels (xi, then x): per input channel the tile reads a row of 7 floats, 196
    // bytes after the last, which starts anywhere in a line and holds 1.375 lines on
    // average (22 floats); 8 of a panel's 32 channels hold one line (16). Counted as
    // one line each, 256 channels fit 3/4 of Zen 3's L1 and ran 1.2-1.3x slower than 128.
    const rtile::RTile row{{8, 7, 1, 1, 256}};
    const int64_t bytes = panel_conv_l1_footprint(7, 512, 2048, 0, 1, row);
    EXPECT_EQ(bytes, (256 * 22 + 256 * 16) * 4);
    EXPECT_GT(bytes, avx2().tile_layer(rtile::kL1Tile).capacity_bytes * 3 / 4);
}

// A 3x3 depthwise update over a computed padded copy, 96 channels at 56x56: NCHW,
// out(x, y, c) += padded(x + r.x - 1, y + r.y - 1, c) * w(r.x, r.y, c), or channel-
// blocked by 8, out(oi, x, y, ob) += padded(oi, x + r.x - 1, y + r.y - 1, ob) * w(oi, r.x, r.y, ob).
analysis::TensorExpr depthwise(bool blocked) {
    analysis::TensorExpr t;
    t.func = "depthwise";
    t.stage = 1;
    analysis::AccessMap in, w;
    in.tensor = "padded";
    in.is_input = false;
    w.tensor = "weights";
    w.is_input = true;
    if (blocked) {
        t.dims = {{"oi", 0, 8, false}, {"x", 0, 56, false}, {"y", 0, 56, false},
                  {"ob", 0, 12, false}, {"r$x", 0, 3, true}, {"r$y", 0, 3, true}};
        in.coef = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 0, 0, 1, 0, 0}};
        in.offset = {0, -1, -1, 0};
        w.coef = {{1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 1, 0, 0}};
        w.offset = {0, 0, 0, 0};
        t.write.coef = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 0}};
        t.write.offset = {0, 0, 0, 0};
    } else {
        t.dims = {{"x", 0, 56, false}, {"y", 0, 56, false}, {"c", 0, 96, false},
                  {"r$x", 0, 3, true}, {"r$y", 0, 3, true}};
        in.coef = {{1, 0, 0, 1, 0}, {0, 1, 0, 0, 1}, {0, 0, 1, 0, 0}};
        in.offset = {-1, -1, 0};
        w.coef = {{0, 0, 0, 1, 0}, {0, 0, 0, 0, 1}, {0, 0, 1, 0, 0}};
        w.offset = {0, 0, 0};
        t.write.coef = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}};
        t.write.offset = {0, 0, 0};
    }
    t.reads = {in, w};
    t.write.tensor = "depthwise";
    return t;
}

TEST(PerfModel, ACopysRowsRunToTheDimTheWindowSlidesAlong) {
    // The padded copy made per L2 tile is charged boundary code per row. The same
    // tiles (8 channels x 56 x 8 points) in both layouts copy the same elements; a
    // blocked row holds a pixel row's 8 channels (8 x 58 floats), an NCHW row one
    // channel's 58, so the blocked copy has an eighth of the rows. Its 8 lanes alone
    // taken as a row charged every pixel (a blocked depthwise predicted 1.16 ms
    // against NCHW's 0.20; it ran 0.28).
    const hal::DeviceSpec d = avx2();
    rtile::RProgram blocked;
    blocked.vector_dim = 0;
    blocked.split_reduction = 5;
    blocked.tiles = {rtile::RTile{{8, 8, 1, 1, 1, 1}}, rtile::RTile{{8, 8, 1, 1, 3, 3}},
                     rtile::RTile{{8, 56, 8, 1, 3, 3}}};
    rtile::RProgram nchw;
    nchw.vector_dim = 0;
    nchw.split_reduction = 4;
    nchw.tiles = {rtile::RTile{{8, 1, 8, 1, 1}}, rtile::RTile{{8, 1, 8, 3, 3}}, rtile::RTile{{56, 8, 8, 3, 3}}};
    rtile::PerfModel(depthwise(true), d).predict(blocked);
    rtile::PerfModel(depthwise(false), d).predict(nchw);
    ASSERT_GT(nchw.terms.overhead_ms, 0);
    EXPECT_NEAR(blocked.terms.overhead_ms * 8, nchw.terms.overhead_ms, 1e-9 * nchw.terms.overhead_ms);
}

// A transposed program of an NCHW 3x3 stride-2 convolution, 512 -> 512 channels,
// 7 x 7 outputs: vectorised along c, its weights (read 1) packed per panel of 8.
// Other register and L1 tiles may be given.
rtile::RProgram transposed(const rtile::RTile &l2, const rtile::RTile &reg = tile(7, 1, 8, 1, 1, 1),
                           const rtile::RTile &l1 = tile(7, 1, 8, 3, 3, 512)) {
    rtile::RProgram p;
    p.vector_dim = 2;
    p.second_dim = 0;
    p.transposed = true;
    p.packed_read = 1;
    p.split_reduction = 5;
    p.tiles = {reg, l1, l2};
    return p;
}

TEST(PerfModel, AConvolutionsPaddedCopyIsChargedPerRow) {
    // NCHW 3x3 64 -> 64 at 56x56 over a computed padded copy, the same transposed
    // register and L1 tiles: L2 tiles 8 points wide copy rows of 10 floats, 14 tasks
    // of 58 rows x 64 channels; whole rows copy rows of 58, 4 tasks of 16 x 64. The
    // narrow tiles' rows cost more, though both programs' arithmetic is the same (they
    // tied, and the narrow one ran 0.99 ms against 0.76 on an Intel Xeon).
    analysis::TensorExpr t = test::nchw_conv(3, 3, 1, 56, 64, 64);
    t.reads[0].is_input = false;
    const hal::DeviceSpec d = avx2();
    auto program = [](const rtile::RTile &l2) {
        return transposed(l2, tile(8, 1, 32, 1, 1, 1), tile(8, 1, 32, 3, 3, 64));
    };
    rtile::RProgram narrow = program(tile(8, 56, 32, 3, 3, 64)), rows = program(tile(56, 14, 64, 3, 3, 64));
    const rtile::PerfModel model(t, d);
    narrow.parallel_tasks = model.task_count(narrow.tiles[rtile::kL2Tile]);
    rows.parallel_tasks = model.task_count(rows.tiles[rtile::kL2Tile]);
    model.predict(narrow);
    model.predict(rows);
    rtile::RProgram input_read = program(tile(8, 56, 32, 3, 3, 64));
    input_read.parallel_tasks = narrow.parallel_tasks;
    rtile::PerfModel(test::nchw_conv(3, 3, 1, 56, 64, 64), d).predict(input_read);
    // Copied rows: 14 x 58 x 64 against 4 x 16 x 64, 8 cycles each beyond the rest.
    const double per_row_ms = 8 / (model.ghz() * 1e9 * d.cores) * 1e3;
    EXPECT_NEAR(narrow.terms.overhead_ms - input_read.terms.overhead_ms, 14 * 58 * 64 * per_row_ms, 1e-6);
    EXPECT_GT(narrow.terms.overhead_ms - rows.terms.overhead_ms, 0.5 * 14 * 58 * 64 * per_row_ms);
}

TEST(PerfModel, TilesPastTheL2AreSweptPanelByPanel) {
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = nchw_conv(3, 3, 2, 7, 512, 512);
    const rtile::PerfModel model(t, d);
    const int64_t panel = 8 * 9 * 512, row_piece = 15 * 3 * 512;  // weights of 8 channels; 3 input rows
    // One output row of 8 channels fits: resident, every read fetched once.
    const rtile::RTile small = tile(7, 1, 8, 3, 3, 512);
    ASSERT_LE((panel + row_piece + 7 * 8) * 4, model.capacity(rtile::kL2Tile, transposed(small)));
    EXPECT_EQ(model.mem_footprint(small, rtile::kL2Tile, transposed(small)), (panel + row_piece + 7 * 8) * 4);
    // All 7 rows of 16 channels do not fit (2 panels, 15 input rows): the L2 holds
    // one panel, one output row's input rows and the tile's outputs ...
    const rtile::RTile large = tile(7, 7, 16, 3, 3, 512);
    const int64_t resident = 2 * panel + 15 * 15 * 512 + 7 * 7 * 16;
    ASSERT_GT(resident * 4, model.capacity(rtile::kL2Tile, transposed(large)));
    EXPECT_EQ(model.mem_footprint(large, rtile::kL2Tile, transposed(large)), (panel + row_piece + 7 * 7 * 16) * 4);
    // ... and the input streams once per panel: 32 tiles of 2 panels, 15 input rows.
    const double traffic = 32.0 * (2 * panel + 2 * 15 * 15 * 512 + 7 * 7 * 16) * 4;
    EXPECT_DOUBLE_EQ(model.mem_traffic(large, rtile::kL2Tile, transposed(large)), traffic);
    // A plain program along c packs nothing here (the weights' innermost dim is
    // r.x, not c): the resident model.
    rtile::RProgram plain = transposed(large);
    plain.transposed = false;
    EXPECT_EQ(model.mem_footprint(large, rtile::kL2Tile, plain), resident * 4);
}

TEST(PerfModel, PackedWeightsOfAPlainProgramAreSweptToo) {
    // NHWC 3x3, 512 -> 512 channels, 7x7 (nhwc_conv; dims c, x, y, r.x, r.y, r.z),
    // vectorised along c, the kernel rows (r.z) chunked: its weights are packed.
    const hal::DeviceSpec d = avx2();
    const analysis::TensorExpr t = test::nhwc_conv(true);
    const rtile::PerfModel model(t, d);
    rtile::RProgram p;
    p.vector_dim = 0;
    p.second_dim = 1;
    p.split_reduction = 5;
    const rtile::RTile l1{{16, 4, 1, 512, 3, 1}}, l2{{64, 7, 7, 512, 3, 1}};
    p.tiles = {rtile::RTile{{16, 4, 1, 1, 1, 1}}, l1, l2};
    ASSERT_EQ(rtile::packed_read_of(t, p, l2), 1);
    // 64 channels' weights of one kernel row, 9 x 7 input columns and rows, and
    // the outputs do not fit: one panel of 16 channels, the input of one L1 tile
    // (4 outputs: 6 columns of one row) and the outputs do.
    const int64_t resident = 64 * 512 * 3 + 512 * 9 * 7 + 64 * 7 * 7;
    ASSERT_GT(resident * 4, model.capacity(rtile::kL2Tile, p));
    EXPECT_EQ(model.mem_footprint(l2, rtile::kL2Tile, p), (16 * 512 * 3 + 512 * 6 + 64 * 7 * 7) * 4);
}

TEST(PerfModel, ProgramFamiliesFromTheAccessMaps) {
    EXPECT_EQ(rtile::program_family(nchw_conv(3, 3, 1)), "conv");
    EXPECT_EQ(rtile::program_family(nchw_conv(1, 1, 1)), "matmul");  // taps of one point: a product
    EXPECT_EQ(rtile::program_family(test::gemm(64, 64, 64)), "matmul");
    EXPECT_EQ(rtile::program_family(test::nhwc_conv(false)), "conv");
}

// A profile's calibration scales its family's terms: every constructed program is
// predicted from its terms with the factors, and the ranking follows them.
TEST(PerfModel, CalibrationScalesItsFamilysTermsAndTheRankingFollows) {
    const analysis::TensorExpr t = test::gemm(96, 256, 512);
    const hal::DeviceSpec plain = avx2();
    hal::DeviceSpec calibrated = avx2();
    hal::FamilyCalibration f;
    f.compute = 3;  // arithmetic far slower than the peak: programs bound by loads lose their edge
    f.l2 = 0.25;
    calibrated.calibration["matmul"] = f;
    hal::DeviceSpec other = avx2();
    other.calibration["conv"] = f;  // another family's factors change nothing here

    const std::vector<rtile::RProgram> before = rtile::construct_programs(t, plain, 8).programs;
    const std::vector<rtile::RProgram> after = rtile::construct_programs(t, calibrated, 8).programs;
    const std::vector<rtile::RProgram> unrelated = rtile::construct_programs(t, other, 8).programs;
    ASSERT_GE(before.size(), 2u);
    ASSERT_GE(after.size(), 2u);
    for (const rtile::RProgram &p : before) {
        EXPECT_EQ(p.terms.family, "matmul");
        EXPECT_NEAR(p.predicted_ms, hal::calibrated_ms(p.terms, hal::FamilyCalibration{}), 1e-12);
    }
    for (size_t i = 0; i < after.size(); i++) {
        EXPECT_NEAR(after[i].predicted_ms, hal::calibrated_ms(after[i].terms, f), 1e-12);
        if (i > 0) {
            EXPECT_LE(after[i - 1].predicted_ms, after[i].predicted_ms * 1.02);  // ranked (ties within 2%)
        }
    }
    // Compute-bound programs are predicted 3x slower.
    EXPECT_GT(after[0].predicted_ms, 2 * before[0].predicted_ms);
    ASSERT_EQ(unrelated.size(), before.size());
    for (size_t i = 0; i < before.size(); i++) EXPECT_DOUBLE_EQ(unrelated[i].predicted_ms, before[i].predicted_ms);
}

}  // namespace
