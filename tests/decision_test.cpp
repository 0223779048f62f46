// The scheduler's decisions for single ops, asserted as data (ScheduleOutcome::
// decisions: roles, the rPrograms weighed, the one applied, epilogue tiles, a
// memory output's row blocks), on the AVX-512 target under the Zen 5 profile the
// rules were measured on, whatever the host. The results themselves are checked by
// the op matrix.
#include "alignment.h"
#include "built_op.h"
#include "device_spec.h"
#include "pinned_machine.h"
#include "tessera_scheduler.h"
#include "test_scheduler_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

namespace tessera {
namespace {

std::string base_name(const std::string &name) {
    return std::regex_replace(name, std::regex("\\$\\d+"), "");
}

// Tessera's outcome for an op line on the pinned AVX-512 target with the Zen 5
// profile, keeping `top_k` candidates per compute stage.
ScheduleOutcome decide(const std::string &line, int top_k = 1, const std::string &profile = "avx512_zen5.json") {
    const test::PinnedMachine &avx512 = test::pinned_machines().back();
    SchedulerOptions options = test::pinned_options(avx512, test::test_profile(profile));
    options.top_k = top_k;
    test::BuiltOp b = test::build(line);
    return schedule_pipeline(Halide::Pipeline(b.out), Halide::Target(avx512.target), options);
}

// The decision of the (first) stage that weighed rPrograms.
const StageDecision &compute_decision(const ScheduleOutcome &o) {
    for (const StageDecision &d : o.decisions.stages) {
        if (d.chosen_program()) return d;
    }
    throw std::runtime_error("no compute stage decided:\n" + o.explanation);
}

// A program's tile at `level`, by dim name (of the dims the program tiles).
std::map<std::string, int64_t> tile(const StageDecision &d, const rtile::RProgram &p, int level) {
    const analysis::TensorExpr t = rtile::program_expr(d.compute, p);
    std::map<std::string, int64_t> out;
    for (size_t j = 0; j < t.dims.size(); j++) out[t.dims[j].name] = p.tiles[size_t(level)].shape[j];
    return out;
}

// Every register tile the constructor proposes for a GEMM keeps its broadcast rows
// (rows of A, read at a run-time stride) within the address registers
// (DeviceSpec::row_address_registers = 6): with 8 rows LLVM computes addresses on
// the FMA ports and the kernel ran 25% slower.
TEST(TesseraDecisions, GemmRegisterTilesKeepBroadcastRowsInAddressRegisters) {
    const ScheduleOutcome o = decide("matmul M=256 N=256 K=256", 16);
    const StageDecision &d = compute_decision(o);
    EXPECT_GE(d.candidates.size(), 4u);
    for (const rtile::RProgram &p : d.candidates) {
        const auto reg = tile(d, p, rtile::kRegisterTile);
        EXPECT_LE(reg.at("m"), 6) << o.explanation;
        EXPECT_EQ(reg.at("n") % 16, 0) << "vector dim not whole vectors\n" << o.explanation;
    }
}

// An NCHW convolution 28 wide wastes lanes along its rows (28 of 32): the
// constructor vectorises along the output channels instead, with the weights
// packed channel-innermost, and only with tiles that divide the extents (guarded
// tails ran 2.5-4x slower).
TEST(TesseraDecisions, NarrowNchwConvolutionIsVectorisedAlongOutputChannels) {
    const ScheduleOutcome o = decide("conv2d n=1 c=32 h=28 w=28 oc=32 kh=3 kw=3 stride=1 pad=1 layout=nchw");
    const StageDecision &d = compute_decision(o);
    const rtile::RProgram &p = *d.chosen_program();
    EXPECT_TRUE(p.transposed) << o.explanation;
    EXPECT_EQ(d.compute.dims[p.vector_dim].name, "c") << o.explanation;
    const auto reg = tile(d, p, rtile::kRegisterTile);
    EXPECT_EQ(reg.at("c") % 16, 0) << o.explanation;
    EXPECT_EQ(28 % reg.at("x"), 0) << o.explanation;
    EXPECT_EQ(28 % reg.at("y"), 0) << o.explanation;
}

// An NCHW 1x1 convolution's x and y fuse (Roller's axis fusion) into one dim of
// 56 x 56 points tiled like a GEMM's columns: register tiles of whole vectors, L2
// tiles of whole 56-point rows, the input packed per tile.
TEST(TesseraDecisions, OneByOneConvolutionFusesItsPixels) {
    const ScheduleOutcome o = decide("conv2d n=1 c=64 h=56 w=56 oc=256 kh=1 kw=1 layout=nchw");
    const StageDecision &d = compute_decision(o);
    const rtile::RProgram &p = *d.chosen_program();
    ASSERT_TRUE(p.fusion.has_value()) << o.explanation;
    EXPECT_EQ(p.fusion->fused_name(), "x_y");
    EXPECT_EQ(p.fusion->inner_extent * p.fusion->outer_extent, 3136);
    const int64_t reg = tile(d, p, rtile::kRegisterTile).at("x_y"), l2 = tile(d, p, rtile::kL2Tile).at("x_y");
    EXPECT_EQ(reg % 16, 0) << o.explanation;  // whole AVX-512 vectors
    EXPECT_EQ(l2 % 56, 0) << o.explanation;   // whole rows
    EXPECT_EQ(l2 % reg, 0) << o.explanation;  // whole register tiles
    ASSERT_GE(p.packed_read, 0) << o.explanation;
    EXPECT_EQ(base_name(d.compute.reads[size_t(p.packed_read)].tensor), "input");
    EXPECT_EQ(p.padding_elements, 0);
}

// A stride-2 3x3 layer with 7x7 outputs and 512 channels: L2 tiles of all 7 output
// rows outgrow the L2 and are swept panel by panel of weights (PerfModel::
// panel_sweep) instead of regathering the weights per output row, in both layouts.
TEST(TesseraDecisions, StrideTwoConvolutionTilesAllRowsAndSweepsWeightPanels) {
    for (const char *line : {"conv2d n=1 c=512 h=14 w=14 oc=512 kh=3 kw=3 stride=2 pad=1",
                             "conv2d n=1 c=512 h=14 w=14 oc=512 kh=3 kw=3 stride=2 pad=1 layout=nhwc"}) {
        const ScheduleOutcome o = decide(line);
        const StageDecision &d = compute_decision(o);
        const rtile::RProgram &p = *d.chosen_program();
        EXPECT_EQ(tile(d, p, rtile::kL2Tile).at("y"), 7) << line << "\n" << o.explanation;  // all 7 output rows
        EXPECT_GT(p.swept_panels, 0) << line << "\n" << o.explanation;
    }
}

// A transposing copy reads one float of each of 16 input rows per output vector:
// row by row it ran at 1 GB/s (4096x8192), so its output rows are cut into blocks
// of 64 that use each input line whole. Input rows of a page or more are swept
// instead, in blocks of one vector's lanes, by tasks of input rows (4096x8192: 14
// -> 7 ms). In cache, blocks are a vector's lanes of rows and each lanes x lanes
// square is transposed in registers (TransposeBlock::staged). A broadcast read
// (bias_add's bias moves along the channels, not along the rows' innermost dim) is
// no transpose.
TEST(TesseraDecisions, TransposedReadsAreCutIntoBlocksOfRows) {
    struct Expected {
        const char *line;
        int64_t rows;
        bool sweep, staged;
    };
    for (const Expected &e : {Expected{"transpose shape=30000x200 perm=1,0", 64, false, false},
                              Expected{"transpose shape=30000x1100 perm=1,0", 16, true, false},
                              Expected{"transpose shape=300x1100 perm=1,0", 16, true, true}}) {
        const ScheduleOutcome o = decide(e.line);
        ASSERT_EQ(o.decisions.stages.size(), 1u) << o.explanation;
        const StageDecision &d = o.decisions.stages[0];
        EXPECT_EQ(d.role, StageRole::MemoryOutput);
        const rules::TransposeBlock &tb = d.rows.transpose;
        EXPECT_GE(tb.dim, 0) << e.line << "\n" << o.explanation;
        EXPECT_EQ(tb.rows, e.rows) << e.line << "\n" << o.explanation;
        EXPECT_EQ(tb.vectors, 2) << e.line;
        EXPECT_EQ(tb.sweep, e.sweep) << e.line;
        EXPECT_EQ(tb.staged, e.staged) << e.line;
    }
    const ScheduleOutcome bias = decide("bias_add shape=2x300x7x40 axis=1");
    for (const StageDecision &d : bias.decisions.stages) EXPECT_LT(d.rows.transpose.dim, 0) << bias.explanation;
}

// A bias epilogue is fused: the matmul is computed per L2 tile of the bias
// output, whose tiles are the parallel tasks (4096x4096x64 with bias went from
// 53 to 22 ms, the time without bias), or per register tile of it when the whole
// reduction is one chunk (K=64).
TEST(TesseraDecisions, BiasEpilogueIsFusedIntoTheMatmulTiles) {
    for (const auto &[line, tiles] : {std::pair{"matmul M=256 N=256 K=1024 bias=1", rules::EpilogueTiles::L2},
                                      std::pair{"matmul M=256 N=256 K=64 bias=1", rules::EpilogueTiles::Register}}) {
        const ScheduleOutcome o = decide(line);
        const StageDecision &d = compute_decision(o);
        EXPECT_EQ(d.role, StageRole::EpilogueOutput) << line;
        EXPECT_EQ(base_name(d.func), "matmul_sum");
        EXPECT_EQ(base_name(d.epilogue), "matmul_bias");
        EXPECT_EQ(d.epilogue_tiles, tiles) << line << "\n" << o.explanation;
        for (const StageDecision &other : o.decisions.stages) EXPECT_NE(other.role, StageRole::MemoryOutput);
    }
}

// BERT's out-projection (A[M,K] x W[N,K]^T: K innermost in both operands). Every
// program weighed vectorises only reads whose lanes are adjacent in memory (or the
// transposed program's packed copy): a direct program vectorised along N reads W a
// lane at a time, and when the model counted those as whole vectors it won on the
// Xeon's profile and ran 7x slower (4.2 ms against 0.55).
TEST(TesseraDecisions, NoProgramVectorisesAReadAcrossItsStorageRows) {
    for (const char *profile : {"avx512_xeon.json", "avx512_zen5.json"}) {
        const ScheduleOutcome o = decide("matmul M=128 N=768 K=768 trans_b=1 bias=1", 8, profile);
        const StageDecision &d = compute_decision(o);
        const rtile::RProgram &chosen = *d.chosen_program();
        const analysis::TensorExpr t = rtile::program_expr(d.compute, chosen);
        for (size_t i = 0; i < t.reads.size(); i++) {
            const analysis::AccessMap &m = t.reads[i];
            if (chosen.transposed && int(i) == chosen.packed_read) continue;
            if (!m.depends_on(chosen.vector_dim) || m.coef.empty()) continue;
            EXPECT_NE(m.coef[0][chosen.vector_dim], 0) << profile << ": " << m.text << "\n" << o.explanation;
        }
    }
}

// Under a pure epilogue, a dim with no good divisor gets L2 tiles of whole register
// tiles, the last shifted inwards (N=1000: whole vectors instead of half ones;
// M=197: several rows per register tile instead of one). A dim that divides keeps
// exact tiles.
TEST(TesseraDecisions, EpilogueTilesShiftInwardsAlongAwkwardDims) {
    const ScheduleOutcome awkward = decide("matmul M=197 N=200 K=768");
    const StageDecision &d = compute_decision(awkward);
    const rtile::RProgram &p = *d.chosen_program();
    for (const char *dim : {"n", "m"}) {
        const int j = d.compute.find_dim(dim);
        ASSERT_GE(j, 0);
        EXPECT_TRUE(p.shifts(size_t(j))) << dim << "\n" << awkward.explanation;
    }
    const ScheduleOutcome even = decide("matmul M=128 N=1024 K=64");
    const rtile::RProgram &q = *compute_decision(even).chosen_program();
    for (size_t j = 0; j < q.shifted.size(); j++) EXPECT_FALSE(q.shifts(j)) << even.explanation;
}

// With AVX2's 16 registers and broadcasts of their own, the dividing tiles of two
// vectors stop at 4 rows (8 accumulators); 6 rows (12) need the last L2 tile
// shifted inwards, and are weighed though M divides (attention's second product:
// 1.15x faster on a Zen 3 core). Under AVX-512 the same GEMM keeps dividing tiles.
TEST(TesseraDecisions, Avx2WeighsShiftedTilesThatHoldMoreAccumulators) {
    const std::string line = "batch_matmul B=8 M=512 N=64 K=512";
    const test::PinnedMachine &avx2 = test::pinned_machines().front();
    ASSERT_EQ(avx2.lanes, 8);
    test::BuiltOp b = test::build(line);
    const ScheduleOutcome o =
        schedule_pipeline(Halide::Pipeline(b.out), Halide::Target(avx2.target), test::pinned_options(avx2));
    const StageDecision &d = compute_decision(o);
    const rtile::RProgram &p = *d.chosen_program();
    const int m = d.compute.find_dim("m");
    ASSERT_GE(m, 0);
    EXPECT_TRUE(p.shifts(size_t(m))) << o.explanation;
    const hal::DeviceSpec spec = hal::make_device_spec(Halide::Target(avx2.target), 2, test::load_test_profile(avx2.profile));
    EXPECT_GE(rtile::register_tile_accumulators(p.tiles[rtile::kRegisterTile], p, spec), 12) << o.explanation;
    const rtile::RProgram &q = *compute_decision(decide(line)).chosen_program();
    for (size_t j = 0; j < q.shifted.size(); j++) EXPECT_FALSE(q.shifts(j));
}

// A grouped convolution: its sums have an explicit group axis, so they are
// analysable, and the output reading them at c % ocg and c / ocg is their pure
// epilogue with its channels seen split (c_mod, c_div). Before, the channel index
// c / ocg made the sums unanalysable: a safe schedule at 0.01-0.05x oneDNN.
TEST(TesseraDecisions, GroupedConvolutionIsItsSumsEpilogueWithChannelsSplit) {
    for (const char *line : {"conv2d n=1 c=128 h=28 w=28 oc=128 kh=3 kw=3 pad=1 groups=16",
                             "conv2d n=1 c=64 h=14 w=14 oc=64 kh=3 kw=3 pad=1 groups=4 layout=nhwc"}) {
        const ScheduleOutcome o = decide(line);
        const StageDecision &d = compute_decision(o);
        EXPECT_EQ(d.role, StageRole::EpilogueOutput) << line << "\n" << o.explanation;
        EXPECT_EQ(base_name(d.func), "conv2d_sum");
        EXPECT_EQ(base_name(d.epilogue), "conv2d");
        EXPECT_GE(d.compute.find_dim("g"), 0);
        for (const StageDecision &other : o.decisions.stages) EXPECT_NE(other.role, StageRole::Unanalysable) << line;
        EXPECT_NE(o.explanation.find("c_div"), std::string::npos) << o.explanation;
    }
}

// A compute stage read through a clamp by an output larger than it (a Concat of
// its channels with another's): the output is not its epilogue, since the stage
// would be computed over the output's points and read its operands past their
// end. The pipeline's results are checked too.
// A product computed at root inside the pipeline (its reader, a window-to-image
// reshape, is unanalysable) whose row tiles do not divide its 3136 rows: its storage
// is padded to whole tiles, where Halide would size it by the rows the reader needs
// and the last tile's rfactor merge wrote past them (MaxViT's heap corruption).
TEST(TesseraDecisions, AProductComputedAtRootIsStoredInWholeTiles) {
    // 3137 rows (a prime: no row tile divides them), read in a shuffled order.
    constexpr int rows = 3137;
    Halide::ImageParam a(Halide::Float(32), 2, "a"), w(Halide::Float(32), 2, "w");
    a.set_estimates({{0, 256}, {0, rows}});  // a(k, m)
    w.set_estimates({{0, 64}, {0, 256}});    // w(n, k)
    Halide::Var n("n"), m("m"), x("x"), kk("kk");
    Halide::RDom k(0, 256, "k");
    // The rows through a clamp, as a graph partition reads a reshaped input: evaluable
    // at any row, so row tiles may overrun.
    Halide::Func rows_in("rows_in"), product("rows_product"), shuffled("shuffled");
    rows_in(kk, m) = a(kk, Halide::clamp(m, 0, rows - 1));
    product(n, m) += rows_in(k, m) * w(n, k);
    shuffled(n, x) = product(n, (x * 37) % rows);
    shuffled.set_estimates({{0, 64}, {0, rows}});
    const test::PinnedMachine &avx512 = test::pinned_machines().back();
    const ScheduleOutcome o = schedule_pipeline(Halide::Pipeline(shuffled), Halide::Target(avx512.target),
                                                test::pinned_options(avx512, test::test_profile("avx512_zen5.json")));
    int padded_rows = 0;
    for (const schedule::Step &step : o.schedule.steps()) {
        if (const auto *b = std::get_if<schedule::BoundStorage>(&step)) {
            if (base_name(b->func) == "rows_product" && b->var == "m") padded_rows = b->extent;
        }
    }
    const StageDecision &d = compute_decision(o);
    EXPECT_EQ(base_name(d.func), "rows_product");
    const int64_t rows_tile = tile(d, *d.chosen_program(), rtile::kL2Tile).at("m");
    ASSERT_GT(rows_tile, 1);
    ASSERT_LT(rows_tile, rows) << o.explanation;
    EXPECT_GE(padded_rows, (rows + rows_tile - 1) / rows_tile * rows_tile) << o.explanation;
}

TEST(TesseraDecisions, AnOutputLargerThanItsProducerIsNoEpilogue) {
    Halide::ImageParam a(Halide::Float(32), 2, "a"), w(Halide::Float(32), 2, "w");
    a.set_estimates({{0, 32}, {0, 17}});  // a(k, x)
    w.set_estimates({{0, 32}, {0, 64}});  // w(k, c)
    Halide::Var x("x"), c("c");
    Halide::RDom k(0, 32, "k");
    Halide::Func sums("clamped_sums"), out("wider_out");
    sums(x, c) += a(k, x) * w(k, c);
    out(x, c) = Halide::select(c < 64, sums(x, Halide::clamp(c, 0, 63)), 0.0f);
    out.set_estimates({{0, 17}, {0, 128}});
    const test::PinnedMachine &avx512 = test::pinned_machines().back();
    const ScheduleOutcome o =
        schedule_pipeline(Halide::Pipeline(out), Halide::Target(avx512.target), test::pinned_options(avx512));
    const StageDecision &d = compute_decision(o);
    EXPECT_EQ(base_name(d.func), "clamped_sums");
    EXPECT_EQ(d.role, StageRole::Compute) << o.explanation;
    EXPECT_TRUE(d.epilogue.empty()) << o.explanation;

    // And on this host: it runs within its operands and computes the product.
    const SchedulerChoice host = test::host_choice();
    Halide::Func sums2("clamped_sums_host"), out2("wider_out_host");
    sums2(x, c) += a(k, x) * w(k, c);
    out2(x, c) = Halide::select(c < 64, sums2(x, Halide::clamp(c, 0, 63)), 0.0f);
    out2.set_estimates({{0, 17}, {0, 128}});
    Halide::Pipeline p(out2);
    schedule_pipeline(p, host.target, host.options);
    Halide::Buffer<float> ab(32, 17), wb(32, 64);
    for (int j = 0; j < 17; j++)
        for (int i = 0; i < 32; i++) ab(i, j) = float((i + 2 * j) % 7) - 3;
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 32; i++) wb(i, j) = float((3 * i + j) % 5) - 2;
    a.set(ab);
    w.set(wb);
    Halide::Buffer<float> result(17, 128);
    result.fill(NAN);
    p.realize(result, host.target);
    for (int ch = 0; ch < 128; ch++)
        for (int j = 0; j < 17; j++) {
            double want = 0;
            for (int i = 0; ch < 64 && i < 32; i++) want += double(ab(i, j)) * wb(i, ch);
            ASSERT_EQ(result(j, ch), float(want)) << "x " << j << " c " << ch;
        }
}

}  // namespace
}  // namespace tessera
