// The cuBLAS and cuDNN baselines against the references where a GPU is present;
// without one, each says so ("no GPU") instead of failing. Built where CMake found
// the CUDA toolkit.
#include "cublas_gemm.h"
#include "cuda_device.h"
#include "op_catalog.h"
#include "reference.h"
#include "test_seed.h"
#ifdef TESSERA_HAVE_CUDNN
#include "cudnn_conv.h"
#endif

#include <gtest/gtest.h>

#include <memory>

namespace tessera {
namespace {

constexpr double kRelTolerance = 1e-4;

// Runs the baseline on fresh inputs into a poisoned output, against the reference;
// without a GPU, checks that the baseline declines with "no GPU".
void check_baseline(const std::unique_ptr<cuda::GpuBaseline> &baseline, const std::string &line) {
    SCOPED_TRACE(line);
    if (!cuda::why_no_gpu().empty()) {
        EXPECT_FALSE(baseline->supported());
        EXPECT_EQ(baseline->why_not().rfind("no GPU", 0), 0u) << baseline->why_not();
        return;
    }
    ASSERT_TRUE(baseline->supported()) << baseline->why_not();
    const ops::OpConfig config = ops::parse_op_line(line);
    const ops::OpSignature sig = ops::describe_op(config);
    const uint64_t seed = test::test_seed(line);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < sig.inputs.size(); i++) {
        inputs.push_back(random_tensor(sig.inputs[i].shape, seed * 1000003 + i, sig.inputs[i].lo, sig.inputs[i].hi));
    }
    Tensor output(sig.output.shape);
    poison(output);
    baseline->run(inputs, output);
    EXPECT_LE(relative_error(output, reference(config, inputs)), kRelTolerance) << baseline->impl();
}

TEST(CublasBaseline, GemmsMatchTheReferenceOrDeclineWithoutGpu) {
    for (const std::string line : {"matmul M=37 N=53 K=29", "matmul M=17 N=16 K=64 trans_a=1",
                                   "matmul M=31 N=7 K=13 trans_b=1 bias=1", "batch_matmul B=3 M=17 N=19 K=23",
                                   "batch_matmul B=2 M=13 N=9 K=21 trans_b=1"}) {
        check_baseline(cuda::make_cublas_op(ops::parse_op_line(line)), line);
    }
}

TEST(CublasBaseline, OtherOpsAreUnsupported) {
    auto baseline = cuda::make_cublas_op(ops::parse_op_line("relu shape=4"));
    EXPECT_FALSE(baseline->supported());
    EXPECT_NE(baseline->why_not().find("matmul"), std::string::npos) << baseline->why_not();
}

#ifdef TESSERA_HAVE_CUDNN
TEST(CudnnBaseline, ConvolutionsMatchTheReferenceOrDeclineWithoutGpu) {
    for (const std::string line : {"conv2d n=1 c=3 h=17 w=13 oc=5 kh=3 kw=3 pad=1",
                                   "conv2d n=2 c=6 h=10 w=9 oc=9 kh=3 kw=2 stride=2 pad=1 groups=3",
                                   "conv2d n=1 c=5 h=13 w=13 oc=3 kh=3 kw=3 pad=2 dilation=2",
                                   "depthwise_conv2d n=1 c=7 h=15 w=15 kh=5 kw=5 stride=2 pad=2"}) {
        check_baseline(cuda::make_cudnn_op(ops::parse_op_line(line)), line);
    }
}

TEST(CudnnBaseline, NhwcAndOtherOpsAreUnsupported) {
    auto nhwc = cuda::make_cudnn_op(ops::parse_op_line("conv2d n=1 c=3 h=8 w=8 oc=4 kh=3 kw=3 layout=nhwc"));
    EXPECT_FALSE(nhwc->supported());
    EXPECT_NE(nhwc->why_not().find("NCHW"), std::string::npos) << nhwc->why_not();
    EXPECT_FALSE(cuda::make_cudnn_op(ops::parse_op_line("matmul M=4 N=4 K=4"))->supported());
}
#endif

}  // namespace
}  // namespace tessera
