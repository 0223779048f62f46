// Unit tests of the GPU HAL (scheduler/hal/gpu_device.*) and of the rTile
// construction on a GPU (scheduler/rtile/gpu_program.*) on hand-built tensor
// expressions: the figures per compute capability and their overrides, and the
// alignment rules every constructed program keeps (warps, register cap, shared
// memory per block, transaction-aligned steps dividing the reduction, enough
// blocks for the SMs).
#include "alignment_policy.h"
#include "gpu_device.h"
#include "gpu_program.h"
#include "hand_built_exprs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace {

using namespace tessera;

hal::DeviceSpec cuda_spec(int capability) {
    return hal::make_gpu_device_spec(Halide::Target("x86-64-linux-cuda"), hal::cuda_figures(capability), 4);
}

TEST(GpuDevice, CudaTableGivesPerSmFiguresAndACapPerThread) {
    const hal::DeviceSpec a10 = cuda_spec(86);
    ASSERT_TRUE(a10.gpu.has_value());
    EXPECT_EQ(a10.arch, "cuda");
    EXPECT_EQ(a10.cores, 72);
    EXPECT_EQ(a10.gpu->warp, 32);
    EXPECT_EQ(a10.gpu->register_cap_per_thread, 128);  // 64 K registers for two blocks of 256 threads
    EXPECT_EQ(a10.gpu->shared_bytes_per_block, 48 << 10);
    EXPECT_EQ(a10.layers.size(), 4u);
    EXPECT_EQ(a10.layers[1].name, "shared");
    EXPECT_EQ(a10.layers[1].role, hal::MemoryRole::Scratchpad);
    EXPECT_EQ(a10.layers.back().role, hal::MemoryRole::Memory);
    EXPECT_EQ(cuda_spec(90).cores, 132);
    // The balance the graph layer classifies against: 31.2 TFLOP/s over 600 GB/s.
    EXPECT_NEAR(hal::balance_flops_per_byte(hal::cuda_figures(86)), 52.07, 0.01);
    EXPECT_EQ(cuda_spec(80).gpu->fp32_lanes_per_sm, 64);
    // Capabilities between the table's entries take the one below; older ones 7.5's.
    EXPECT_EQ(hal::cuda_figures(87).name, hal::cuda_figures(86).name);
    EXPECT_EQ(hal::cuda_figures(61).name, hal::cuda_figures(75).name);
    // A target naming no capability (Halide's default is 2.0) gets 7.5's figures.
    EXPECT_EQ(hal::gpu_figures_for_target(Halide::Target("x86-64-linux-cuda")).name, hal::cuda_figures(75).name);
    EXPECT_EQ(hal::gpu_figures_for_target(Halide::Target("x86-64-linux-cuda-cuda_capability_80")).sms, 108);
    EXPECT_EQ(hal::gpu_figures_for_target(Halide::Target("x86-64-linux-opencl")).name, "generic OpenCL GPU");
}

TEST(GpuDevice, ProfileFileOverridesTheTableAndBadOnesAreNamed) {
    const std::string path = testing::TempDir() + "tessera_gpu_profile_test.json";
    std::ofstream(path) << R"({"name": "test part", "sms": 10, "shared_bytes_per_block": 16384})";
    std::string error;
    auto g = hal::load_gpu_profile(path, hal::cuda_figures(86), &error);
    ASSERT_TRUE(g.has_value()) << error;
    EXPECT_EQ(g->sms, 10);
    EXPECT_EQ(g->shared_bytes_per_block, 16384);
    EXPECT_EQ(g->warp, 32);  // the table's
    EXPECT_EQ(g->name, "test part");
    std::ofstream(path) << R"({"sms": -3})";
    EXPECT_FALSE(hal::load_gpu_profile(path, hal::cuda_figures(86), &error).has_value());
    EXPECT_NE(error.find("'sms' must be a positive integer"), std::string::npos) << error;
    std::ofstream(path) << R"({"shared_bytes_per_block": 1048576})";
    EXPECT_FALSE(hal::load_gpu_profile(path, hal::cuda_figures(86), &error).has_value());
    EXPECT_NE(error.find("inconsistent"), std::string::npos) << error;
    EXPECT_FALSE(hal::load_gpu_profile(path + ".missing", hal::cuda_figures(86), &error).has_value());
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
    std::remove(path.c_str());
}

TEST(GpuAlignment, SharedRowsAMultipleOfTheBanksArePadded) {
    const hal::DeviceSpec d = cuda_spec(86);
    const auto align = rtile::alignment_policy(d);
    EXPECT_EQ(align->storage_padding(32, 4), 1);   // 128 B: every row starts in bank 0
    EXPECT_EQ(align->storage_padding(64, 4), 1);
    EXPECT_EQ(align->storage_padding(33, 4), 0);
    EXPECT_EQ(align->storage_padding(8, 4), 0);
    EXPECT_EQ(align->vector_granule(1000), 32);
    EXPECT_EQ(align->vector_granule(20), 16);
}

// The rules every program keeps, on the table's parts.
void expect_aligned(const analysis::TensorExpr &t, const rtile::GpuProgram &p, const hal::DeviceSpec &d) {
    const hal::GpuFigures &g = *d.gpu;
    SCOPED_TRACE(p.to_string(t));
    EXPECT_LE(p.threads(), rtile::kMaxBlockThreads);
    EXPECT_LE(p.registers, g.register_cap_per_thread);
    EXPECT_LE(p.threads_x * p.reg_x, t.dims[p.x_dim].extent);
    if (p.y_dim >= 0) {
        EXPECT_LE(p.threads_y * p.reg_y, t.dims[p.y_dim].extent);
    }
}

TEST(GpuProgram, LargeGemmFillsTheSmsWithWarpAlignedBlocksAndRegisterTiles) {
    for (int capability : {75, 86, 90}) {
        const hal::DeviceSpec d = cuda_spec(capability);
        const analysis::TensorExpr t = test::gemm(1024, 1024, 1024);
        const rtile::GpuProgram p = rtile::construct_gpu_program(t, d);
        expect_aligned(t, p, d);
        EXPECT_EQ(p.threads() % d.gpu->warp, 0);
        EXPECT_GE(p.blocks * 10, d.gpu->sms * 9);  // nine SMs in ten busy at least
        EXPECT_EQ(p.x_dim, 0);  // threads along n, the output's contiguous dim
        EXPECT_EQ(p.y_dim, 1);
        EXPECT_GT(p.reg_x * p.reg_y, 1);  // register tiles reuse each loaded value
        EXPECT_GE(p.threads(), 4 * d.gpu->warp);  // blocks of several warps, not one
    }
}

TEST(GpuProgram, SmallGemmShrinksItsTilesToSpreadOverTheSms) {
    const hal::DeviceSpec d = cuda_spec(86);
    const analysis::TensorExpr t = test::gemm(64, 64, 64);
    const rtile::GpuProgram p = rtile::construct_gpu_program(t, d);
    expect_aligned(t, p, d);
    EXPECT_GE(p.blocks, 16);  // not one block of the whole 64 x 64 output
}

TEST(GpuProgram, NchwConvolutionThreadsRunAlongColumnsAndOutputChannels) {
    const hal::DeviceSpec d = cuda_spec(86);
    const analysis::TensorExpr t = test::nchw_conv(3, 3, 1, 28, 64, 128);
    const rtile::GpuProgram p = rtile::construct_gpu_program(t, d);
    expect_aligned(t, p, d);
    EXPECT_EQ(p.x_dim, 0);
    EXPECT_EQ(p.y_dim, 2);   // the output channels: the input serves all of them
}

TEST(GpuProgram, PoclCpuDeviceKeepsItsOwnLimits) {
    const hal::DeviceSpec d =
        hal::make_gpu_device_spec(Halide::Target("x86-64-linux-opencl"), hal::pocl_cpu_figures(2), 4);
    const analysis::TensorExpr t = test::gemm(300, 200, 123);
    const rtile::GpuProgram p = rtile::construct_gpu_program(t, d);
    expect_aligned(t, p, d);
    EXPECT_EQ(d.cores, 2);
}

}  // namespace
