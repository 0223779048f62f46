// Unit tests of the lowering passes Tessera adds to every pipeline
// (scheduler/hal/lowering_passes.h): boundary conditions read by masked loads, and
// the guard against Halide 14's misaligned strided loads.
#include "host_target.h"
#include "lowering_passes.h"
#include "masked_boundary_loads.h"
#include "strided_load_alignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace {

using namespace tessera;
using namespace Halide::Internal;
using Halide::Expr;

Expr i32(int v) { return Expr(int32_t(v)); }

// A padded row's vector as Halide lowers constant_exterior(x in [0, 17)): lanes
// x = 2t - 1 + i, outside where x + 1 >= 18 or x + 1 < 1, the read clamped to
// [0, hi]. With hi = 16 the clamp is inactive on every lane the select keeps.
Expr padded_row_vector(int hi, int index_stride) {
    const Expr t = Variable::make(Halide::Int(32), "t");
    const Expr shifted = Ramp::make(t * 2, i32(1), 16);
    const Expr outside = (Broadcast::make(i32(18), 16) <= shifted) || (shifted < Broadcast::make(i32(1), 16));
    const Expr x = Ramp::make(t * 2 - 1, i32(index_stride), 16);
    const Expr clamped = Max::make(Min::make(x, Broadcast::make(i32(hi), 16)), Broadcast::make(i32(0), 16));
    const Expr index = clamped + Broadcast::make(Variable::make(Halide::Int(32), "row"), 16);
    const Expr read = Load::make(Halide::Float(32, 16), "input", index, Halide::Buffer<>(), Parameter(),
                                 const_true(16), ModulusRemainder());
    return Select::make(outside, Broadcast::make(Expr(0.0f), 16), read);
}

// Masked dense loads of `buffer` in a compiled module's functions.
int masked_dense_loads(const Halide::Module &m, const std::string &buffer) {
    struct Count : IRVisitor {
        std::string name;
        int n = 0;
        using IRVisitor::visit;
        void visit(const Load *op) override {
            const Ramp *r = op->index.as<Ramp>();
            if (op->name == name && r && is_const_one(r->stride) && !is_const_one(op->predicate)) n++;
            IRVisitor::visit(op);
        }
    } count;
    count.name = buffer;
    for (const LoweredFunc &f : m.functions()) f.body.accept(&count);
    return count.n;
}

// The load a select keeps; `s` must outlive the pointer (hold the pass's result).
const Load *kept_read(const Stmt &s) {
    const Select *sel = s.as<Evaluate>()->value.as<Select>();
    return sel ? sel->false_value.as<Load>() : nullptr;
}

TEST(MaskedBoundaryLoads, AClampTheSelectMakesInactiveBecomesAMaskedDenseLoad) {
    const Stmt masked = hal::mask_boundary_loads(Evaluate::make(padded_row_vector(16, 1)));
    const Load *read = kept_read(masked);
    ASSERT_NE(read, nullptr);
    const Ramp *ramp = read->index.as<Ramp>();
    ASSERT_NE(ramp, nullptr) << read->index;
    EXPECT_TRUE(is_const_one(ramp->stride));
    EXPECT_FALSE(is_const_one(read->predicate)) << "the lanes outside the image must not be read";
}

TEST(MaskedBoundaryLoads, ClampsTheConditionDoesNotCoverAndGathersStayAsTheyWere) {
    // Clamped to 15: lane x = 16 is kept by the select and clamped, so the clamp matters.
    const Stmt narrower_stmt = hal::mask_boundary_loads(Evaluate::make(padded_row_vector(15, 1)));
    const Load *narrower = kept_read(narrower_stmt);
    ASSERT_NE(narrower, nullptr);
    EXPECT_EQ(narrower->index.as<Ramp>(), nullptr) << narrower->index;
    EXPECT_TRUE(is_const_one(narrower->predicate));
    // A stride-2 read stays a gather without its clamp: left alone.
    const Stmt strided_stmt = hal::mask_boundary_loads(Evaluate::make(padded_row_vector(16, 2)));
    const Load *strided = kept_read(strided_stmt);
    ASSERT_NE(strided, nullptr);
    EXPECT_TRUE(is_const_one(strided->predicate));
}

// A select on floats (a leaky relu's x > 0) has lanes the pass cannot write as
// integers of the lane; it is rebuilt unchanged, without a type error.
TEST(MaskedBoundaryLoads, SelectsOnOtherTypesAreLeftAsTheyWere) {
    const Expr v = Load::make(Halide::Float(32, 8), "v", Ramp::make(i32(0), i32(1), 8), Halide::Buffer<>(),
                              Parameter(), const_true(8), ModulusRemainder());
    const Expr call = Call::make(Halide::Float(32, 8), "tanh_f32", {v}, Call::PureExtern);
    const Expr e = Select::make(call > Broadcast::make(Expr(0.0f), 8), v, v * 0.2f);
    const Stmt s = hal::mask_boundary_loads(Evaluate::make(e));
    EXPECT_TRUE(equal(s.as<Evaluate>()->value, e)) << s;
}

// A 3x3 stride-2 average pool over 17x17 planes, its padded copy per channel in
// vectors of 16 (every vector of a 19-point row straddles an edge), compiled with
// the passes over an input that is a window of a larger buffer filled with NaN
// around it: masked lanes that read past the image would bring the NaN in.
TEST(MaskedBoundaryLoads, APaddedCopyOfSmallPlanesComputesThePoolExactly) {
    const int W = 17, H = 17, C = 6, OW = 9, OH = 9;
    Halide::Buffer<float> storage(W + 8, H + 8, C);
    Halide::Buffer<float> in = storage.copy();
    in.fill(std::numeric_limits<float>::quiet_NaN());
    in.crop(0, 4, W);
    in.crop(1, 4, H);
    in.translate(0, -4);
    in.translate(1, -4);
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) in(x, y, c) = float((x * 7 + y * 13 + c * 3) % 17);

    Halide::ImageParam input(Halide::Float(32), 3, "input");
    Halide::Var x("x"), y("y"), c("c"), xo("xo"), xi("xi");
    Halide::Func padded = Halide::BoundaryConditions::constant_exterior(input, 0.0f, {{0, W}, {0, H}});
    Expr sum = 0.0f;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) sum = sum + padded(x * 2 + i - 1, y * 2 + j - 1, c);
    Halide::Func pool("pool");
    pool(x, y, c) = sum / 9.0f;
    pool.split(x, xo, xi, 8, Halide::TailStrategy::ShiftInwards).vectorize(xi);
    padded.compute_at(pool, c).vectorize(padded.args()[0], 16, Halide::TailStrategy::GuardWithIf);
    Halide::Pipeline p(pool);
    hal::add_lowering_passes(p);
    // The row's edge vectors (both, at 19 columns) are masked loads, not gathers.
    EXPECT_GT(masked_dense_loads(p.compile_to_module(p.infer_arguments(), "pool", hal::host_target()), "input"), 0);
    input.set(in);
    Halide::Buffer<float> out(OW, OH, C);
    out.fill(std::numeric_limits<float>::quiet_NaN());
    p.realize(out, hal::host_target());
    for (int ch = 0; ch < C; ch++)
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                float ref = 0.0f;
                for (int j = 0; j < 3; j++)
                    for (int i = 0; i < 3; i++) {
                        const int ix = ox * 2 + i - 1, iy = oy * 2 + j - 1;
                        if (ix >= 0 && ix < W && iy >= 0 && iy < H) ref += in(ix, iy, ch);
                    }
                ref /= 9.0f;
                ASSERT_FALSE(std::isnan(out(ox, oy, ch))) << ox << "," << oy << "," << ch;
                ASSERT_NEAR(out(ox, oy, ch), ref, 1e-5f * std::max(1.0f, std::abs(ref))) << ox << "," << oy << "," << ch;
            }
}

// Halide 14 marks a stride-2 load at a constant odd index aligned to the native vector
// once it shifts the base (a remainder taken modulo 0): the guard forgets exactly
// those loads' alignment and leaves every other load as it was.
TEST(StridedLoadAlignment, OnlyConstantIndexStridedLoadsLoseTheirAlignment) {
    using namespace Halide::Internal;
    const auto load = [](int64_t base, int stride, ModulusRemainder align) {
        return Load::make(Halide::Float(32, 4), "buf", Ramp::make(Halide::Expr(int32_t(base)), Halide::Expr(stride), 4),
                          Halide::Buffer<>(), Parameter(), const_true(4), align);
    };
    const auto alignment_after = [](const Halide::Expr &e) {
        const Stmt s = hal::forget_constant_strided_load_alignment(Evaluate::make(e));
        return s.as<Evaluate>()->value.as<Load>()->alignment;
    };
    const ModulusRemainder odd = alignment_after(load(11, 2, ModulusRemainder(0, 11)));
    EXPECT_EQ(odd.modulus, 1);
    EXPECT_EQ(odd.remainder, 0);
    EXPECT_EQ(alignment_after(load(9, 3, ModulusRemainder(0, 9))).modulus, 1);
    EXPECT_EQ(alignment_after(load(11, 1, ModulusRemainder(0, 11))).modulus, 0);  // dense: not that path
    EXPECT_EQ(alignment_after(load(11, 2, ModulusRemainder(32, 11))).modulus, 32);  // not constant
    EXPECT_EQ(alignment_after(load(11, 8, ModulusRemainder(0, 11))).modulus, 0);  // a gather
}

}  // namespace
