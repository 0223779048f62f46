// GpuProgram: Roller's rTile construction on a GPU (Roller (OSDI'22) §4-5). Two layers:
// each thread's register tile (its accumulators, held in registers through the whole
// reduction) and the thread block's tile, then the scale-out of blocks over the
// SMs. The operands reach the registers through the L1 cache: Halide 14 cannot
// keep per-thread accumulators in registers while a block stages each reduction
// step's operands in shared memory (a Func computed per block and stored in
// registers gets the whole block tile per thread, which spills to local memory;
// scheduler/README.md, "GPU"). Tiles are aligned to warps along the output's
// contiguous dim, registers kept within the HAL's cap; the candidate with the least
// predicted time is chosen (a construction over a few hundred aligned shapes, not a
// search over schedules).
#pragma once

#include "device_spec.h"
#include "tensor_expr.h"

#include <string>
#include <vector>

namespace tessera::rtile {

struct GpuProgram {
    int x_dim = -1;                  // loop dim the threads' x runs along (the output's contiguous dim)
    int y_dim = -1;                  // loop dim of the threads' y (-1: none)
    int64_t threads_x = 1, threads_y = 1;
    int64_t reg_x = 1, reg_y = 1;    // each thread's register tile along x_dim, y_dim
    int registers = 0;               // estimated per thread
    int64_t blocks = 1;
    double efficiency = 1;           // of the SMs: blocks over SMs, occupancy, the last wave
    double predicted_ms = 0;
    std::string bottleneck;          // "compute", "L2" or "DRAM"

    int64_t threads() const { return threads_x * threads_y; }
    // Points of loop dim j one block covers (a reduction dim: all of it).
    int64_t block_extent(const analysis::TensorExpr &t, size_t j) const;
    std::string to_string(const analysis::TensorExpr &t) const;
};

// The program for a compute-intensive stage (a reduction whose operands are
// reused) on the GPU `d` describes (d.gpu set).
GpuProgram construct_gpu_program(const analysis::TensorExpr &t, const hal::DeviceSpec &d);

// Threads per block of Tessera's GPU kernels at most (hal/gpu_device.cpp caps the
// registers per thread for two such blocks per SM).
constexpr int64_t kMaxBlockThreads = 256;

}  // namespace tessera::rtile
