// ptxas -v on a PTX module: per kernel, the registers, stack, spills and static
// shared memory the assembler settled on for one architecture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu {

struct PtxasKernel {
    std::string name;
    int registers = 0;
    int64_t stack_bytes = 0;
    int64_t spill_store_bytes = 0, spill_load_bytes = 0;
    int64_t shared_bytes = 0;  // static shared memory (smem); Halide's own is dynamic, see the launch
};

struct PtxasResult {
    int exit_status = 0;
    std::string log;  // ptxas's whole output
    std::vector<PtxasKernel> kernels;
};

// Parses the `ptxas info` lines of `ptxas -v`.
std::vector<PtxasKernel> parse_ptxas_log(const std::string &log);

// Writes `ptx` to a temporary file and runs `ptxas -v -arch=ARCH` on it (the cubin discarded).
PtxasResult run_ptxas(const std::string &ptxas, const std::string &ptx, const std::string &arch);

}  // namespace tessera::gpu
