// GpuProgram: Roller's rTile construction on a GPU (seed 000 §4-5). Three layers:
// each thread's register tile (its accumulators), the thread block's tile with the
// operands its threads share staged in shared memory one step of the reduction at
// a time, and the scale-out of blocks over the SMs. Tiles are aligned to warps
// along the output's contiguous dim, reduction steps to 32-byte transactions,
// shared rows padded against bank conflicts, registers kept within the HAL's cap;
// the candidate with the least predicted time is chosen (a construction over a few
// thousand aligned shapes, not a search over schedules).
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
    int reduction_dim = -1;          // the reduction dim stepped at the block level (-1: none)
    int64_t reduction_step = 1;
    std::vector<int> staged_reads;   // reads (TensorExpr::reads) staged in shared memory per step
    std::vector<int64_t> staged_padding;  // per staged read: elements padding its rows (bank conflicts)
    int64_t shared_bytes = 0;        // per block
    int registers = 0;               // estimated per thread
    int64_t blocks = 1;
    double efficiency = 1;           // of the SMs: blocks over SMs, occupancy, the last wave
    double predicted_ms = 0;
    std::string bottleneck;          // "compute", "shared", "L2" or "DRAM"

    int64_t threads() const { return threads_x * threads_y; }
    // Points of loop dim j one block covers per reduction step.
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
