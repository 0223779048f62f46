// Bad operator descriptions produce an OpError naming the culprit, never a crash.
#include "op_builder.h"
#include "op_catalog.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

// The error message for `line`, or "" if it was accepted.
std::string error_of(const std::string &line) {
    try {
        ops::describe_op(ops::parse_op_line(line));
    } catch (const ops::OpError &e) {
        return e.what();
    }
    return "";
}

struct BadCase {
    std::string line;
    std::string expected;  // substring the message must contain
};

class BadOp : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadOp, NamesTheCulprit) {
    std::string message = error_of(GetParam().line);
    EXPECT_NE(message.find(GetParam().expected), std::string::npos)
        << "line: " << GetParam().line << "\nmessage: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadOp,
    ::testing::Values(BadCase{"convolve c=3", "unknown op 'convolve'"},
                      BadCase{"matmul M=4 N=4 K=4 Q=1", "unknown key 'Q'"},
                      BadCase{"matmul M=4 N=4", "missing key 'K'"},
                      BadCase{"matmul M=0 N=4 K=4", "'M' must be positive"},
                      BadCase{"matmul M=-3 N=4 K=4", "'M' must be positive"},
                      BadCase{"matmul M=4x N=4 K=4", "'4x' is not an integer"},
                      BadCase{"matmul M=4 N=4 K=4 M=5", "given twice"},
                      BadCase{"matmul M=4 N K=4", "malformed token 'N'"},
                      BadCase{"matmul M=4 N=4 K=4 bias=maybe", "not a boolean"},
                      BadCase{"conv2d c=6 h=8 w=8 oc=4 kh=3 kw=3 groups=4", "not divisible by groups"},
                      BadCase{"conv2d c=6 h=8 w=8 oc=9 kh=3 kw=3 groups=2", "oc=9 not divisible by groups=2"},
                      BadCase{"conv2d c=3 h=4 w=4 oc=4 kh=7 kw=3", "larger than the padded input"},
                      BadCase{"conv2d c=3 h=8 w=8 oc=4 kh=3 kw=3 layout=nchw8c", "layout"},
                      BadCase{"conv2d c=3 h=8 w=8 oc=4 kh=3 kw=3 stride=0", "'stride' must be positive"},
                      BadCase{"conv2d c=3 h=8 w=8 oc=4 kh=3 kw=3 pad=-1", "'pad' must not be negative"},
                      BadCase{"max_pool2d c=3 h=8 w=8 kh=2 kw=2 pad=2", "smaller than the window"},
                      BadCase{"reduce_sum shape=3x4 axes=2", "out of range"},
                      BadCase{"reduce_sum shape=3x0 axes=1", "must be positive"},
                      BadCase{"reduce_sum shape=3x4 axes=1,1", "repeated"},
                      BadCase{"add shape_a=3x4 shape_b=5", "do not broadcast"},
                      BadCase{"softmax shape=3x4 axis=2", "out of range"},
                      BadCase{"transpose shape=3x4x5 perm=0,0,1", "not a permutation"},
                      BadCase{"transpose shape=3x4x5 perm=0,1", "rank 3"},
                      BadCase{"pad shape=3x4 pads=1,1,1", "needs 4 entries"},
                      BadCase{"pack_panels shape=3x4 axis=1 block=12", "multiple of 8"},
                      BadCase{"pack_panels shape=3x4 axis=2", "out of range"},
                      BadCase{"conv2d c=4 h=5 w=5 oc=8 kh=3 kw=3 layout=nhwc packed=1", "layout=nchw and groups=1"},
                      BadCase{"conv2d c=4 h=5 w=5 oc=8 kh=3 kw=3 groups=2 packed=1", "layout=nchw and groups=1"},
                      BadCase{"matmul M=4 N=5 K=6 trans_b=1 packed=1", "'trans_b' does not apply"},
                      BadCase{"conv2d c=4 h=5 w=5 oc=8 kh=1 kw=1 sums=planar", "packed weights (packed=1"},
                      BadCase{"conv2d c=4 h=5 w=5 oc=8 kh=1 kw=1 packed=1 sums=rows", "blocked or planar"},
                      BadCase{"layer_norm shape=3x4 epsilon=0", "'epsilon' must be positive"},
                      BadCase{"attention M=4 N=4 K=4", "missing key 'L'"},
                      BadCase{"attention M=4 N=4 K=4 L=4 scale=inf", "'scale' must be finite"},
                      BadCase{"attention M=4 N=4 K=4 L=4 mask=2", "not a boolean"},
                      BadCase{"attention M=4 N=4 K=4 L=4 key_block=-2", "'key_block' must not be negative"},
                      BadCase{"gemm_chain M=4 N=4 K=4 L=4 between=tanh", "'between' must be none, relu, gelu or scale"},
                      BadCase{"gemm_chain M=4 N=4 K=4 L=4 scale=0.5", "'scale' needs between=scale"},
                      BadCase{"conv_chain c=3 h=8 w=8 oc1=4 oc2=4 kh1=3 kw1=3 kh2=7 kw2=1", "(kh2"},
                      BadCase{"conv_chain c=3 h=8 w=8 oc1=4 oc2=4 kh1=3 kw1=3 kh2=1 kw2=1 stride2=0",
                              "'stride2' must be positive"},
                      BadCase{"conv_chain c=3 h=8 w=8 oc1=4 kh1=3 kw1=3 kh2=1 kw2=1", "missing key 'oc2'"}),
    [](const ::testing::TestParamInfo<BadCase> &info) { return "case" + std::to_string(info.index); });

TEST(OpErrors, GoodLinesAreAccepted) {
    EXPECT_EQ(error_of("conv2d n=1 c=64 h=56 w=56 oc=64 kh=3 kw=3 stride=1 pad=1 layout=nchw"), "");
    EXPECT_EQ(error_of("reduce_mean shape=2x3x4 axes=-1,0"), "");
    EXPECT_EQ(error_of("gemm_chain M=4 N=4 K=4 L=4 between=scale scale=0.5"), "");
}

TEST(OpErrors, BuilderRejectsWrongInputCount) {
    ops::OpConfig config = ops::parse_op_line("relu shape=4");
    EXPECT_THROW(ops::build_op(config, {}), ops::OpError);
}

TEST(OpCatalog, EveryOpHasASignature) {
    // The first line of each op's documented example must describe cleanly with
    // all required keys filled in with small values.
    for (const ops::OpInfo &op : ops::op_catalog()) {
        EXPECT_FALSE(op.keys.empty()) << op.name;
        EXPECT_FALSE(op.family.empty()) << op.name;
    }
    EXPECT_NE(ops::catalog_listing().find("depthwise_conv2d"), std::string::npos);
}

}  // namespace
}  // namespace tessera
