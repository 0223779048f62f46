// The oneDNN baseline: every operator case of the correctness matrix (plus a few
// sizes that make oneDNN choose blocked layouts) against the plain C++ reference,
// on random inputs with a NaN-poisoned output.
#include "jit_op.h"
#include "onednn_common.h"
#include "onednn_op.h"
#include "op_cases.h"
#include "op_check.h"
#include "reference.h"

#include "test_seed.h"

#include <gtest/gtest.h>

#include <set>

#include <cctype>
#include <random>

namespace tessera {
namespace {

std::vector<std::string> onednn_cases() {
    std::vector<std::string> cases = test::op_cases();
    cases.insert(cases.end(), {
                                  // Large enough for blocked (nChw16c) activations: timed reorders in run().
                                  "conv2d n=1 c=32 h=14 w=15 oc=48 kh=3 kw=3 pad=1",
                                  "conv2d n=2 c=32 h=9 w=9 oc=32 kh=3 kw=3 stride=2 pad=1 layout=nhwc",
                                  "conv2d n=1 c=64 h=8 w=8 oc=64 kh=3 kw=3 pad=1 groups=4",
                                  "depthwise_conv2d n=1 c=32 h=12 w=12 kh=3 kw=3 pad=1",
                                  "matmul M=64 N=96 K=80 trans_a=1 trans_b=1 bias=1",
                                  "add shape_a=4x1x5 shape_b=3x1",
                                  "transpose shape=2x3x4x5 perm=3,1,0,2",
                                  // Few or odd channel counts: plain layouts oneDNN runs only with
                                  // C++ fallbacks, replaced by a JIT kernel on the channel-blocked
                                  // layout (channels padded to the block) with timed reorders.
                                  "max_pool2d n=2 c=3 h=12 w=11 kh=3 kw=3 stride=2 pad=1",
                                  "max_pool2d n=1 c=17 h=9 w=10 kh=3 kw=3 stride=1 pad=1",
                                  "avg_pool2d n=1 c=33 h=9 w=9 kh=3 kw=3 stride=2 pad=1 count_include_pad=1",
                                  "avg_pool2d n=2 c=3 h=10 w=7 kh=2 kw=3 stride=2 pad=1",
                                  "avg_pool2d n=1 c=33 h=8 w=8 kh=3 kw=3 stride=2 pad=1 layout=nhwc",
                                  "global_avg_pool n=2 c=33 h=6 w=5",
                                  "global_avg_pool n=1 c=3 h=9 w=9 layout=nhwc",
                                  "batch_norm shape=2x17x6x5 axis=1",
                                  "batch_norm shape=2x33x4x4 axis=1",
                                  "batch_norm shape=2x32x6x5 axis=1",
                                  "batch_norm shape=2x48x3x3 axis=1",
                                  "batch_norm shape=2x64x5 axis=1",
                                  "batch_norm shape=3x4x5x33 axis=-1",
                                  "batch_norm shape=6x17 axis=-1",
                                  "batch_norm shape=5x64 axis=-1",
                                  "batch_norm shape=17x3x4 axis=0",
                                  // Reductions over channels, over spatial axes and over both:
                                  // a plain source transposed to put the reduced axes innermost.
                                  "reduce_sum shape=2x17x5x6 axes=1",
                                  "reduce_mean shape=2x33x4x4 axes=1",
                                  "reduce_sum shape=2x3x9x9 axes=1",
                                  "reduce_mean shape=2x33x5x5 axes=2,3",
                                  "reduce_sum shape=3x17x4x5 axes=0,2",
                                  "reduce_mean shape=2x17x5x3 axes=1,3",
                                  "reduce_sum shape=64x33 axes=0",
                                  // Softmax along a non-innermost axis: that axis moved innermost.
                                  "softmax shape=2x17x5x6 axis=1",
                                  "softmax shape=2x33x3 axis=1",
                                  "softmax shape=3x7x5 axis=0",
                                  // Pads on every axis (a border box per side), and on h/w only.
                                  "pad shape=2x3x4x5 pads=1,0,2,1,0,2,1,3 value=2.5",
                                  "pad shape=2x17x5x5 pads=0,0,1,1,0,0,1,1",
                                  // Chains with channels enough for blocked activations (the
                                  // intermediate kept in oneDNN's layout), and longer GEMM chains.
                                  "conv_chain c=32 h=14 w=15 oc1=48 oc2=32 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1",
                                  "conv_chain n=2 c=32 h=9 w=9 oc1=32 oc2=16 kh1=3 kw1=3 kh2=3 kw2=3 stride1=2 "
                                  "pad1=1 pad2=1 layout=nhwc",
                                  "attention B=2 M=64 N=64 K=64 L=96 mask=1",
                                  "gemm_chain B=2 M=48 N=40 K=64 L=80 between=gelu",
                              });
    return cases;
}

class OnednnBaseline : public ::testing::TestWithParam<std::string> {};

TEST_P(OnednnBaseline, MatchesReference) {
    const uint64_t seed = test::test_seed("oneDNN " + GetParam());
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + GetParam());
    const ops::OpConfig config = ops::parse_op_line(GetParam());
    onednn::OnednnOp op(config);
    // oneDNN 2.6 has no erf, hard_sigmoid, selu, softsign, sin, cos, floor, ceil, sign, tan,
    // inverse or hyperbolic trigonometric, thresholded_relu, shrink or celu eltwise, no binary pow or prelu and no log-sum reductions;
    // packing weights is a compile-time layout change (oneDNN's own weight reorder is
    // untimed too), and unpacking activations a conversion between layouts (oneDNN's reorders).
    static const std::set<std::string> none = {"erf",   "pow",          "pack_panels", "unpack_panels",
                                               "prelu", "hard_sigmoid", "selu",        "reduce_log_sum",
                                               "reduce_log_sum_exp", "softsign",    "sin",
                                               "cos",   "floor",        "ceil",        "sign",
                                               "tan",   "asin",         "acos",        "atan",
                                               "sinh",  "cosh",         "asinh",       "acosh",
                                               "atanh", "thresholded_relu", "shrink", "celu"};
    // Nor an average pool that counts the padding but not a ceil_mode window's overhang.
    const bool overhang_counted = config.get_bool("ceil_mode", false) && config.get_bool("count_include_pad", false);
    if (none.count(config.op) || overhang_counted) {
        EXPECT_FALSE(op.supported());
        GTEST_SKIP() << "no oneDNN primitive for " << config.op << ": " << op.why_not();
    }
    ASSERT_TRUE(op.supported()) << op.why_not();
    EXPECT_FALSE(op.impl().empty());

    const ops::OpSignature sig = ops::describe_op(config);
    std::vector<Tensor> inputs = make_inputs(sig, seed);
    const Tensor expected = reference(config, inputs);
    Tensor out = make_poisoned_output(sig);
    op.run(inputs, out);
    EXPECT_LE(relative_error(out, expected), kRelTolerance) << "impl " << op.impl();
    // A second run into a fresh poisoned output (weights already prepared) agrees too.
    Tensor again = make_poisoned_output(sig);
    op.run(inputs, again);
    EXPECT_LE(relative_error(again, expected), kRelTolerance) << "impl " << op.impl();
}

std::string case_name(const ::testing::TestParamInfo<std::string> &info) {
    std::string name = info.param;
    for (char &c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OnednnBaseline, ::testing::ValuesIn(onednn_cases()), case_name);

TEST(OnednnBaselineWeights, NewWeightBufferIsReordered) {
    const ops::OpConfig config = ops::parse_op_line("conv2d n=1 c=16 h=10 w=10 oc=16 kh=3 kw=3 pad=1");
    const ops::OpSignature sig = ops::describe_op(config);
    onednn::OnednnOp op(config);
    ASSERT_TRUE(op.supported()) << op.why_not();
    std::vector<Tensor> inputs = make_inputs(sig, 7);
    Tensor out = make_poisoned_output(sig);
    op.run(inputs, out);
    // Other weights in another buffer must not reuse the first weights' reorder.
    inputs[1] = random_tensor(sig.inputs[1].shape, 99);
    Tensor out2 = make_poisoned_output(sig);
    op.run(inputs, out2);
    EXPECT_LE(relative_error(out2, reference(config, inputs)), kRelTolerance);
}

TEST(OnednnBaselineImpl, OptimisedImplStrings) {
    for (const char *impl : {"jit:avx2", "jit:avx512_core", "jit:uni", "bnorm_jit:avx512_core", "brgconv:avx512_core",
                             "brg:avx512_core_amx", "brgemm", "brdgmm_dw:avx512_core", "x64:gemm:jit", "gemm:jit",
                             "simple_layer_normalization:any"}) {
        EXPECT_TRUE(onednn::is_optimised_impl(impl)) << impl;
    }
    for (const char *impl : {"ref:any", "gemm:ref", "simple:any", "simple_nchw:any", "ncsp_bnorm:any", "nspc_bnorm:any",
                             "lnorm_ref:any", ""}) {
        EXPECT_FALSE(onednn::is_optimised_impl(impl)) << impl;
    }
}

// oneDNN 2.6 runs batch_norm on nchw or on channels-last data with 17 channels, and
// pooling on nchw with 3 channels, only with C++ fallbacks; the baseline takes its
// JIT kernel on the blocked layout instead and names the timed reorders.
TEST(OnednnBaselineImpl, PlainFallbackGivesWayToBlockedJit) {
    const unsigned avx2 = unsigned(dnnl::cpu_isa::avx2);
    if ((unsigned(dnnl::get_effective_cpu_isa()) & avx2) != avx2) GTEST_SKIP() << "no AVX2: other oneDNN kernels";
    for (const char *line : {"batch_norm shape=2x32x6x5 axis=1", "batch_norm shape=6x17 axis=-1",
                             "max_pool2d n=2 c=3 h=12 w=11 kh=3 kw=3 stride=2 pad=1", "softmax shape=2x17x5x6 axis=1",
                             "softmax shape=3x7x5 axis=0"}) {
        onednn::OnednnOp op(ops::parse_op_line(line));
        ASSERT_TRUE(op.supported()) << line << ": " << op.why_not();
        EXPECT_TRUE(op.optimised_impl()) << line << ": " << op.impl();
        EXPECT_NE(op.impl().find("+src reorder "), std::string::npos) << line << ": " << op.impl();
        EXPECT_NE(op.impl().find("+dst reorder "), std::string::npos) << line << ": " << op.impl();
    }
    // A reduction over non-innermost axes: the source transposed, the output as it is.
    for (const char *line : {"reduce_sum shape=2x17x5x6 axes=1", "reduce_sum shape=64x33 axes=0"}) {
        onednn::OnednnOp op(ops::parse_op_line(line));
        ASSERT_TRUE(op.supported()) << line << ": " << op.why_not();
        EXPECT_TRUE(op.optimised_impl()) << line << ": " << op.impl();
        EXPECT_NE(op.impl().find("+src reorder "), std::string::npos) << line << ": " << op.impl();
        EXPECT_EQ(op.impl().find("+dst reorder"), std::string::npos) << line << ": " << op.impl();
    }
    // Plain layouts oneDNN runs with a JIT kernel are kept: no reorders.
    for (const char *line : {"batch_norm shape=5x64 axis=-1", "reduce_mean shape=2x33x5x5 axes=2,3"}) {
        onednn::OnednnOp op(ops::parse_op_line(line));
        ASSERT_TRUE(op.supported()) << line << ": " << op.why_not();
        EXPECT_TRUE(op.optimised_impl()) << line << ": " << op.impl();
        EXPECT_EQ(op.impl().find("reorder"), std::string::npos) << line << ": " << op.impl();
    }
    // nchw pooling with 17 channels: a JIT kernel with AVX-512 (kept as it is), a C++
    // fallback with AVX2 alone (blocked, with the reorders): asked of oneDNN here.
    {
        using tag = dnnl::memory::format_tag;
        const dnnl::memory::desc src({1, 17, 9, 10}, dnnl::memory::data_type::f32, tag::nchw);
        const dnnl::memory::desc dst({1, 17, 9, 10}, dnnl::memory::data_type::f32, tag::nchw);
        const dnnl::pooling_forward::desc plain(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, src,
                                                dst, {1, 1}, {3, 3}, {1, 1}, {1, 1});
        const std::string plain_impl =
            dnnl::pooling_forward::primitive_desc(plain, onednn::cpu_engine()).impl_info_str();
        const char *line = "max_pool2d n=1 c=17 h=9 w=10 kh=3 kw=3 stride=1 pad=1";
        onednn::OnednnOp op(ops::parse_op_line(line));
        ASSERT_TRUE(op.supported()) << line << ": " << op.why_not();
        EXPECT_TRUE(op.optimised_impl()) << line << ": " << op.impl();
        const bool reordered = op.impl().find("reorder") != std::string::npos;
        EXPECT_EQ(reordered, !onednn::is_optimised_impl(plain_impl)) << line << ": " << op.impl() << " (plain: " << plain_impl << ")";
    }
    // nchw batch_norm whose channels do not fill whole blocks keeps the plain C++
    // kernel: padded channels made the blocked one slower.
    onednn::OnednnOp padded(ops::parse_op_line("batch_norm shape=2x17x6x5 axis=1"));
    ASSERT_TRUE(padded.supported()) << padded.why_not();
    EXPECT_EQ(padded.impl().find("reorder"), std::string::npos) << padded.impl();
}

// The chains unfused: one primitive per stage, the epilogues fused as post-ops.
TEST(OnednnBaselineImpl, ChainsAreTheirPrimitivesInSequence) {
    onednn::OnednnOp attention(ops::parse_op_line("attention B=2 M=13 N=11 K=7 L=19 mask=1"));
    ASSERT_TRUE(attention.supported()) << attention.why_not();
    const std::string impl = attention.impl();
    const size_t first = impl.find("matmul "), softmax = impl.find("; softmax "), second = impl.find("; matmul ");
    EXPECT_TRUE(first == 0 && softmax != std::string::npos && second != std::string::npos && softmax < second) << impl;

    onednn::OnednnOp gemms(ops::parse_op_line("gemm_chain M=13 N=11 K=7 L=19 between=relu"));
    ASSERT_TRUE(gemms.supported()) << gemms.why_not();
    EXPECT_NE(gemms.impl().find("; matmul "), std::string::npos) << gemms.impl();

    onednn::OnednnOp convs(ops::parse_op_line("conv_chain c=3 h=13 w=11 oc1=5 oc2=7 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1"));
    ASSERT_TRUE(convs.supported()) << convs.why_not();
    EXPECT_NE(convs.impl().find(" +relu post-op; conv "), std::string::npos) << convs.impl();
}

TEST(OnednnBaselineImpl, PadIsAllReorders) {
    onednn::OnednnOp op(ops::parse_op_line("pad shape=2x3x4x5 pads=1,0,2,1,0,2,1,3 value=2.5"));
    ASSERT_TRUE(op.supported()) << op.why_not();
    // Six padded sides: six border boxes, no fill outside oneDNN.
    EXPECT_NE(op.impl().find("6 border reorders"), std::string::npos) << op.impl();
    EXPECT_EQ(op.impl().find("fill"), std::string::npos) << op.impl();
}

TEST(OnednnBaselineErrors, BadConfigNamesTheKey) {
    try {
        onednn::OnednnOp op(ops::parse_op_line("conv2d c=4 h=8 w=8 kh=3 kw=3"));
        FAIL() << "expected OpError";
    } catch (const ops::OpError &e) {
        EXPECT_NE(std::string(e.what()).find("'oc'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace tessera
