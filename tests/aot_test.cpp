// Every AOT operator library (generators/aot_suite.cmake, scheduled by
// TESSERA_SCHEDULER at build time) against the reference.
#include "aot_registry.h"
#include "halide_io.h"
#include "jit_op.h"
#include "op_check.h"
#include "reference.h"

#include <HalideBuffer.h>
#include "test_seed.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera {
namespace {

class AotLibrary : public ::testing::TestWithParam<AotKernel> {};

TEST_P(AotLibrary, MatchesReference) {
    const AotKernel &kernel = GetParam();
    const uint64_t seed = test::test_seed(kernel.name + ": " + kernel.config);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + kernel.name + ": " + kernel.config);
    ops::OpConfig config = ops::parse_op_line(kernel.config);
    ops::OpSignature sig = ops::describe_op(config);
    std::vector<Tensor> inputs = make_inputs(sig, seed);
    Tensor output = make_poisoned_output(sig);

    std::vector<Halide::Runtime::Buffer<float>> buffers;
    for (Tensor &t : inputs) buffers.push_back(as_runtime_buffer(t));
    buffers.push_back(as_runtime_buffer(output));
    std::vector<void *> args;
    for (auto &b : buffers) args.push_back(b.raw_buffer());

    ASSERT_EQ(kernel.argv_entry(args.data()), 0);
    EXPECT_LE(relative_error(output, reference(config, inputs)), kRelTolerance);
}

INSTANTIATE_TEST_SUITE_P(Suite, AotLibrary, ::testing::ValuesIn(aot_kernels()),
                         [](const ::testing::TestParamInfo<AotKernel> &info) { return info.param.name; });

}  // namespace
}  // namespace tessera
