// Every OpenCL library of generators/gpu_aot_suite.cmake run on the OpenCL device
// the ICD loader offers (PoCL's CPU device on a machine without a GPU) against the
// plain C++ reference, and checked to have run as device kernels.
//
// This binary must not load libHalide: Halide's LLVM 14 and PoCL's LLVM 15 in one
// process crash inside LLVM. It links only the AOT libraries, their runtime and the
// Halide-free references (ProcessHasNoLibHalide checks).
#include "gpu_aot_registry.h"
#include "op_catalog.h"
#include "reference.h"
#include "stmt_offload.h"
#include "test_seed.h"

#include <HalideBuffer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace tessera {
namespace {

// Norm-wise relative error bound for fp32 kernels against the double reference
// (the same bound as the CPU suites, apps/common/op_check.h).
constexpr double kRelTolerance = 1e-4;

// The tensor's storage seen by Halide: dimensions reversed (dimension 0 innermost).
Halide::Runtime::Buffer<float> runtime_view(Tensor &t) {
    std::vector<halide_dimension_t> dims;
    const std::vector<int64_t> strides = t.strides();
    for (int i = int(t.shape.size()) - 1; i >= 0; i--) {
        dims.push_back(halide_dimension_t(0, int32_t(t.shape[i]), int32_t(strides[i])));
    }
    return Halide::Runtime::Buffer<float>(t.data.data(), int(dims.size()), dims.data());
}

struct DeviceRun {
    int status = 0;
    bool output_on_device = false;  // the output has a device allocation holding newer data than the host's
    Tensor output;
};

// Runs `kernel` on `inputs` (filled on the host) into a NaN-poisoned output, then
// copies the output back.
DeviceRun run_on_device(const GpuAotKernel &kernel, const ops::OpSignature &sig, std::vector<Tensor> &inputs) {
    DeviceRun run;
    run.output = Tensor(sig.output.shape);
    poison(run.output);
    std::vector<Halide::Runtime::Buffer<float>> buffers;
    for (Tensor &t : inputs) {
        buffers.push_back(runtime_view(t));
        buffers.back().set_host_dirty();  // written on the host: the pipeline copies it to the device
    }
    buffers.push_back(runtime_view(run.output));
    std::vector<void *> args;
    for (auto &b : buffers) args.push_back(b.raw_buffer());
    run.status = kernel.argv_entry(args.data());
    Halide::Runtime::Buffer<float> &out = buffers.back();
    run.output_on_device = out.raw_buffer()->device != 0 && out.device_dirty();
    if (run.status == 0) run.status = out.copy_to_host();
    for (auto &b : buffers) b.device_free();
    return run;
}

class OpenclLibrary : public ::testing::TestWithParam<GpuAotKernel> {};

TEST_P(OpenclLibrary, RunsAsDeviceKernelsAndMatchesReference) {
    const GpuAotKernel &kernel = GetParam();
    const uint64_t seed = test::test_seed(kernel.name + ": " + kernel.config);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + kernel.scheduler + ": " + kernel.config);

    // Every stage a kernel: the host code launches kernels and stores no tensor element.
    const gpu::StmtOffload offload = gpu::read_stmt_offload(kernel.stmt_path);
    EXPECT_EQ(gpu::offload_problem(offload), "") << kernel.stmt_path;

    const ops::OpConfig config = ops::parse_op_line(kernel.config);
    const ops::OpSignature sig = ops::describe_op(config);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < sig.inputs.size(); i++) {
        const ops::TensorSpec &spec = sig.inputs[i];
        inputs.push_back(random_tensor(spec.shape, seed * 1000003 + i, spec.lo, spec.hi));
    }
    DeviceRun run = run_on_device(kernel, sig, inputs);
    ASSERT_EQ(run.status, 0) << "the pipeline returned an error";
    EXPECT_TRUE(run.output_on_device) << "the output was not written on the device";
    EXPECT_LE(relative_error(run.output, reference(config, inputs)), kRelTolerance);
}

INSTANTIATE_TEST_SUITE_P(Suite, OpenclLibrary, ::testing::ValuesIn(opencl_kernels()),
                         [](const ::testing::TestParamInfo<GpuAotKernel> &info) { return info.param.name; });

// The check above must fail for a pipeline left on the host: an unscheduled matmul
// compiled for host-opencl computes correct values in host loops.
TEST(OpenclOffloadCheck, RejectsHostOnlySchedule) {
    const GpuAotKernel &kernel = opencl_host_only_kernel();
    const gpu::StmtOffload offload = gpu::read_stmt_offload(kernel.stmt_path);
    EXPECT_GT(offload.host_store_count, 0);
    EXPECT_TRUE(offload.kernels.empty());
    EXPECT_NE(gpu::offload_problem(offload), "");

    const ops::OpSignature sig = ops::describe_op(ops::parse_op_line(kernel.config));
    std::vector<Tensor> inputs;
    for (const ops::TensorSpec &spec : sig.inputs) inputs.push_back(random_tensor(spec.shape, 1, spec.lo, spec.hi));
    DeviceRun run = run_on_device(kernel, sig, inputs);
    ASSERT_EQ(run.status, 0);
    EXPECT_FALSE(run.output_on_device);
    EXPECT_LE(relative_error(run.output, reference(ops::parse_op_line(kernel.config), inputs)), kRelTolerance);
}

// Every operator of the catalogue has a GPU case under every scheduler of the suite
// (generators/gpu_aot_suite.cmake: a new op needs one there).
TEST(OpenclSuite, CoversEveryCataloguedOp) {
    std::vector<std::string> schedulers;
    for (const GpuAotKernel &k : opencl_kernels()) {
        if (std::find(schedulers.begin(), schedulers.end(), k.scheduler) == schedulers.end()) schedulers.push_back(k.scheduler);
    }
    ASSERT_FALSE(schedulers.empty());
    for (const ops::OpInfo &op : ops::op_catalog()) {
        for (const std::string &scheduler : schedulers) {
            const bool covered = std::any_of(opencl_kernels().begin(), opencl_kernels().end(), [&](const GpuAotKernel &k) {
                return k.scheduler == scheduler && ops::parse_op_line(k.config).op == op.name;
            });
            EXPECT_TRUE(covered) << op.name << " has no case for " << scheduler;
        }
    }
}

// Halide's LLVM and PoCL's in one process crash: this binary must never load libHalide.
TEST(OpenclProcess, HasNoLibHalide) {
    std::ifstream maps("/proc/self/maps");
    ASSERT_TRUE(maps.good());
    std::string line;
    while (std::getline(maps, line)) EXPECT_EQ(line.find("libHalide"), std::string::npos) << line;
}

}  // namespace
}  // namespace tessera
