// Unit tests of the axis split (scheduler/analysis/axis_split.h): which indices
// are seen as a split loop dim, and the expressions in the split coordinates.
#include "axis_split.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera::analysis;
using Halide::Expr;
using Halide::Var;

std::vector<LoopDim> dims_xcn(int64_t c) { return {{"x", 0, 16, false}, {"c", 0, c, false}, {"n", 0, 2, false}}; }

TEST(AxisSplit, QuotientAndRemainderOfOneDimSplitIt) {
    Var x("x"), c("c"), n("n");
    Halide::Func sums("sums");
    sums(x, c, n) = Halide::cast<float>(x + c + n);
    const std::vector<Expr> values = {sums(x, c % 8, c / 8) + Halide::cast<float>(c)};
    const std::optional<AxisSplit> s = find_axis_split(values, dims_xcn(64));
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->var, "c");
    EXPECT_EQ(s->factor, 8);
    const std::vector<LoopDim> split = split_dims(dims_xcn(64), *s);
    ASSERT_EQ(split.size(), 4u);
    EXPECT_EQ(split[1].name, "c_mod");
    EXPECT_EQ(split[1].extent, 8);
    EXPECT_EQ(split[2].name, "c_div");
    EXPECT_EQ(split[2].extent, 8);
    // c % 8 -> c_mod, c / 8 -> c_div, c elsewhere -> c_div * 8 + c_mod.
    const Expr e = split_coordinates(c % 8 + (c / 8) * 100 + c, *s);
    Var c_mod("c_mod"), c_div("c_div");
    Expr expected = c_mod + c_div * 100 + (c_div * 8 + c_mod);
    EXPECT_TRUE(Halide::Internal::equal(Halide::Internal::simplify(e - expected), Expr(0)))
        << e << " against " << expected;
}

TEST(AxisSplit, OtherDivisionsAreNotASplit) {
    Var x("x"), c("c"), n("n");
    Halide::Func f("f");
    f(x, c) = Halide::cast<float>(x * c);
    // Two factors of one dim, a division of an expression, an extent the factor
    // does not divide, a factor of the whole extent: none is a split.
    EXPECT_FALSE(find_axis_split({f(c % 8, c / 4)}, dims_xcn(64)).has_value());
    EXPECT_FALSE(find_axis_split({f(x, (c + 1) / 8)}, dims_xcn(64)).has_value());
    EXPECT_FALSE(find_axis_split({f(c % 8, c / 8)}, dims_xcn(60)).has_value());
    EXPECT_FALSE(find_axis_split({f(c % 64, c / 64)}, dims_xcn(64)).has_value());
    // A float division is arithmetic, not an index.
    EXPECT_FALSE(find_axis_split({f(x, c) / 2.0f}, dims_xcn(64)).has_value());
}

}  // namespace
