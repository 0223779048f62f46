// Every OpenCL library of generators/gpu_aot_suite.cmake run on the OpenCL device
// the ICD loader offers (PoCL's CPU device on a machine without a GPU) against the
// plain C++ reference, and checked to have run as device kernels.
//
// This binary must not load libHalide: Halide's LLVM 14 and PoCL's LLVM 15 in one
// process crash inside LLVM. It links only the AOT libraries, their runtime and the
// Halide-free references (ProcessHasNoLibHalide checks).
#include "gpu_aot_registry.h"
#include "gpu_aot_run.h"
#include "op_catalog.h"
#include "reference.h"
#include "stmt_offload.h"
#include "test_seed.h"

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
    GpuAotRun call(kernel, inputs, run.output);
    run.status = call.run();
    run.output_on_device = call.output_on_device();
    if (run.status == 0) run.status = call.copy_output_to_host();
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
