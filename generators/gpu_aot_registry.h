// The GPU ahead-of-time operator libraries built by gpu_aot_suite.cmake for
// host-opencl, each with its scheduler, the op line it was generated from and its
// lowered statement, callable through Halide's argv entry point (inputs then
// output, each a halide_buffer_t*). Halide-free: the PoCL test must not load libHalide.
#pragma once

#include <string>
#include <vector>

namespace tessera {

struct GpuAotKernel {
    std::string scheduler;  // "Li2018", "Tessera", ...
    std::string name;       // the library's function name
    std::string config;     // "op k=v ..."
    int (*argv_entry)(void **args);
    std::string stmt_path;  // Halide's lowered statement of this library (.stmt)
};

// Every case of the suite under every scheduler of TESSERA_GPU_SCHEDULERS.
const std::vector<GpuAotKernel> &opencl_kernels();

// A matmul compiled for host-opencl with no schedule: every stage a host loop.
// What the offload check exists to reject.
const GpuAotKernel &opencl_host_only_kernel();

}  // namespace tessera
