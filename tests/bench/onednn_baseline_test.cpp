// The oneDNN baseline: every operator case of the correctness matrix (plus a few
// sizes that make oneDNN choose blocked layouts) against the plain C++ reference,
// on random inputs with a NaN-poisoned output.
#include "jit_op.h"
#include "onednn_op.h"
#include "op_cases.h"
#include "op_check.h"
#include "reference.h"

#include "test_seed.h"

#include <gtest/gtest.h>

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
                              });
    return cases;
}

class OnednnBaseline : public ::testing::TestWithParam<std::string> {};

TEST_P(OnednnBaseline, MatchesReference) {
    const uint64_t seed = test::test_seed("oneDNN " + GetParam());
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + GetParam());
    const ops::OpConfig config = ops::parse_op_line(GetParam());
    onednn::OnednnOp op(config);
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
