// GPU schedules checked on a machine without a GPU: their shape under the HAL's
// built-in figures (pinned: CUDA sm_86, the A10's; the generic OpenCL GPU), and
// every op family's pipeline scheduled by Tessera and compiled by Halide for CUDA
// (PTX) and OpenCL (C): no device is needed for either. Running the kernels is
// the OpenCL-on-PoCL and ptxas tests' job (tests/README.md).
// Halide's generated headers never use their `target` parameter.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "gpu_matmul.schedule.h"
#include "gpu_softmax.schedule.h"
#pragma GCC diagnostic pop
#include "gpu_device.h"
#include "op_builder.h"
#include "built_op.h"
#include "halide_axes.h"
#include "tessera_scheduler.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

using namespace Halide;
using schedule::FuncSchedule;
using schedule::LoopKind;
using schedule::Placement;

const char *const kCuda86 = "x86-64-linux-cuda-cuda_capability_86";
const char *const kOpenCl = "x86-64-linux-opencl";

using test::BuiltOp;
using test::build;

ScheduleOutcome schedule_for(const BuiltOp &b, const char *target) {
    SchedulerOptions options;
    options.parallelism = 2;
    return schedule_pipeline(Pipeline(b.out), Target(target), options);
}

bool has_loop_kind(const FuncSchedule &f, LoopKind kind) {
    for (const schedule::StageSchedule &s : f.stages) {
        for (const schedule::Loop &l : s.loops) {
            if (l.kind == kind) return true;
        }
    }
    return false;
}

TEST(GpuSchedule, StagesTakeTheRolesTheCpuPathGives) {
    // The planning pass is shared: a GEMM with its bias is a compute stage computed
    // per block of its epilogue output on a GPU as on a CPU.
    const BuiltOp b = build("matmul M=96 N=80 K=64 bias=1");
    const ScheduleOutcome o = schedule_for(b, kCuda86);
    bool epilogue = false;
    for (const StageDecision &d : o.decisions.stages) {
        epilogue |= d.role == StageRole::EpilogueOutput && d.func.rfind("matmul_sum", 0) == 0;
    }
    EXPECT_TRUE(epilogue) << o.explanation;
}

TEST(GpuSchedule, MatmulTilesBlocksThreadsAndPerThreadRegisterTiles) {
    const BuiltOp b = build("matmul M=512 N=384 K=256");
    const ScheduleOutcome o = schedule_for(b, kCuda86);
    const FuncSchedule *out = o.schedule.func("matmul");
    ASSERT_NE(out, nullptr);
    EXPECT_TRUE(has_loop_kind(*out, LoopKind::GpuBlock));
    EXPECT_TRUE(has_loop_kind(*out, LoopKind::GpuThread));
    // The sums: per thread (inside the thread loops, so that Halide allocates each
    // thread its own register tile, not the block's), unrolled, in registers.
    const FuncSchedule *sums = o.schedule.func("matmul_sum");
    ASSERT_NE(sums, nullptr);
    EXPECT_EQ(sums->compute.kind, Placement::Kind::At);
    EXPECT_EQ(sums->compute.consumer, "matmul");
    EXPECT_NE(sums->compute.var.find("_thread"), std::string::npos) << sums->compute.var;
    EXPECT_EQ(sums->memory, MemoryType::Register);
    EXPECT_FALSE(has_loop_kind(*sums, LoopKind::GpuThread));
    EXPECT_TRUE(has_loop_kind(*sums, LoopKind::Unrolled));
    // The operands come through the caches: nothing staged in shared memory.
    for (const FuncSchedule &f : o.schedule.funcs()) EXPECT_NE(f.memory, MemoryType::GPUShared) << f.name;
    EXPECT_NE(o.explanation.find("CUDA sm_86"), std::string::npos) << o.explanation;
    EXPECT_NE(o.explanation.find("operands through L1"), std::string::npos) << o.explanation;
    EXPECT_NE(o.source.find("gpu_blocks("), std::string::npos);
}

TEST(GpuSchedule, StagesWithoutReuseRunOnBlocksAndThreads) {
    for (const char *line : {"softmax shape=6x1000 axis=1", "layer_norm shape=64x768", "gelu shape=7x129",
                             "reduce_mean shape=5x17x31 axes=0,2", "transpose shape=37x131 perm=1,0"}) {
        SCOPED_TRACE(line);
        const BuiltOp b = build(line);
        const ScheduleOutcome o = schedule_for(b, kOpenCl);
        int kernels = 0;
        for (const FuncSchedule &f : o.schedule.funcs()) {
            if (f.compute.kind != Placement::Kind::Root) continue;
            kernels++;
            EXPECT_TRUE(has_loop_kind(f, LoopKind::GpuBlock)) << f.name << "\n" << o.explanation;
            EXPECT_TRUE(has_loop_kind(f, LoopKind::GpuThread)) << f.name << "\n" << o.explanation;
        }
        EXPECT_GE(kernels, 1);
        EXPECT_NE(o.explanation.find("generic OpenCL GPU"), std::string::npos);
    }
}

TEST(GpuSchedule, TransposesStageTilesInSharedMemory) {
    const ScheduleOutcome o = schedule_for(build("transpose shape=37x131 perm=1,0"), kCuda86);
    int tiles = 0;
    for (const FuncSchedule &f : o.schedule.funcs()) {
        if (f.origin != FuncSchedule::Origin::Wrapper) continue;
        tiles++;
        EXPECT_EQ(f.memory, MemoryType::GPUShared) << f.name;
        EXPECT_EQ(f.compute.consumer.rfind("transpose", 0), 0u) << f.name;  // "transpose$1" after another test
        ASSERT_EQ(f.storage_extents.size(), 1u) << f.name;
        EXPECT_EQ(f.storage_extents.begin()->second, 33) << f.name;  // a bank word of padding
    }
    EXPECT_EQ(tiles, 1) << o.explanation;
}

TEST(GpuSchedule, LongReductionsWithFewOutputsShareABlocksThreads) {
    // 6 rows of 1000: a block per row, its 256 threads each a strided part of the
    // row, the parts summed from shared memory.
    const ScheduleOutcome few = schedule_for(build("softmax shape=6x1000 axis=1"), kCuda86);
    int partials = 0;
    for (const FuncSchedule &f : few.schedule.funcs()) {
        if (f.origin != FuncSchedule::Origin::Rfactor) continue;
        partials++;
        EXPECT_EQ(f.memory, MemoryType::GPUShared) << f.name;
        EXPECT_EQ(f.compute.kind, Placement::Kind::At) << f.name;
        EXPECT_TRUE(has_loop_kind(f, LoopKind::GpuThread)) << f.name;
    }
    EXPECT_EQ(partials, 2) << few.explanation;  // the maximum and the sum
    // 20000 rows of 300: a thread per row already fills the GPU.
    const ScheduleOutcome many = schedule_for(build("softmax shape=20000x300 axis=1"), kCuda86);
    for (const FuncSchedule &f : many.schedule.funcs()) EXPECT_NE(f.origin, FuncSchedule::Origin::Rfactor) << f.name;
}

// Every family, scheduled by Tessera and compiled for both GPU targets (Halide
// emits PTX through LLVM and OpenCL C; neither needs a device).
TEST(GpuSchedule, EveryFamilyCompilesForCudaAndOpenCl) {
    const char *const lines[] = {
        "matmul M=37 N=53 K=29 bias=1",
        "batch_matmul B=3 M=17 N=33 K=20",
        "conv2d n=2 c=6 h=13 w=11 oc=8 kh=3 kw=3 stride=2 pad=1 groups=2",
        "conv2d n=1 c=5 h=12 w=12 oc=7 kh=3 kw=3 pad=1 dilation=2 layout=nhwc",
        "depthwise_conv2d n=1 c=9 h=15 w=15 kh=5 kw=5 stride=2 pad=2",
        "avg_pool2d n=1 c=4 h=11 w=9 kh=3 kw=3 stride=2 pad=1 layout=nhwc",
        "max_pool2d n=1 c=3 h=10 w=10 kh=2 kw=2 stride=2",
        "reduce_mean shape=5x17x31 axes=0,2",
        "softmax shape=6x37 axis=1",
        "layer_norm shape=9x65",
        "pad shape=3x5x7 pads=0,1,2,1,0,3 value=-1.5",
        "attention B=2 M=19 L=23 K=16 N=8 mask=1",
        "attention B=2 M=19 L=23 K=16 N=8 mask=1 key_block=8",
        "gemm_chain B=1 M=33 K=16 L=40 N=24 between=relu",
        "conv_chain c=8 h=9 w=10 oc1=12 oc2=7 kh1=1 kw1=1 kh2=3 kw2=3 pad2=1",
    };
    for (const char *target : {kCuda86, kOpenCl}) {
        for (const char *line : lines) {
            SCOPED_TRACE(std::string(target) + ": " + line);
            const BuiltOp b = build(line);
            std::vector<Argument> args;
            for (const ImageParam &p : b.params) args.push_back(p);
            const ScheduleOutcome o = schedule_for(b, target);
            EXPECT_NO_THROW(Pipeline(b.out).compile_to_module(args, "kernel", Target(target)));
        }
    }
}

// The .schedule.h a generator emits for a GPU target (tests/CMakeLists.txt),
// applied to a fresh pipeline of the same op, schedules it for the GPU as Tessera
// did and compiles for that target.
TEST(GpuSchedule, EmittedScheduleHeadersApplyAndCompile) {
    const struct {
        const char *line, *target;
        void (*apply)(Pipeline, Target);
    } headers[] = {
        {"matmul M=96 N=80 K=64 bias=1", kCuda86, apply_schedule_gpu_matmul},
        {"softmax shape=6x1000 axis=1", kOpenCl, apply_schedule_gpu_softmax},
    };
    for (const auto &h : headers) {
        SCOPED_TRACE(h.line);
        const BuiltOp b = build(h.line);
        Pipeline p(b.out);
        h.apply(p, Target(h.target));
        std::vector<Argument> args;
        for (const ImageParam &param : b.params) args.push_back(param);
        EXPECT_NO_THROW(p.compile_to_module(args, "kernel", Target(h.target)));
        bool gpu_loops = false;
        for (const Internal::Dim &d : b.out.function().definition().schedule().dims()) {
            gpu_loops |= d.for_type == Internal::ForType::GPUBlock;
        }
        EXPECT_TRUE(gpu_loops);
    }
}

}  // namespace
}  // namespace tessera
