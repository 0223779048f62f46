// What a Halide lowered statement (`-e stmt`, a .stmt file) says about GPU offload:
// the device kernels it carries, each launch the host code makes, and any tensor
// element the host code itself stores. A pipeline compiled for a GPU target whose
// every stage runs as kernels has kernels, launches and no host stores; one left on
// the host (a CPU-only schedule) stores its elements in host loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu {

struct KernelLaunch {
    std::string kernel;
    std::string threads[3];   // threads per block along x, y, z: a literal or an expression
    std::string shared_bytes; // dynamic shared memory of the launch: a literal or an expression
    // The value of a constant expression ("128", "0 + (232*4)"), or -1 when it
    // depends on a variable (computed at run time).
    static int64_t literal(const std::string &text);
};

struct StmtOffload {
    std::vector<std::string> kernels;      // device kernels of the module (OpenCL C or PTX entries)
    std::vector<KernelLaunch> launches;    // halide_opencl_run / halide_cuda_run calls of the host code
    std::vector<std::string> host_stores;  // host lines storing a tensor element (first few kept)
    int host_store_count = 0;
};

// Reads a .stmt file; throws std::runtime_error when it cannot be read or holds no host function.
StmtOffload read_stmt_offload(const std::string &path);
StmtOffload parse_stmt_offload(const std::string &text);

// "" when every stage runs as device kernels (kernels and launches, no host store);
// otherwise why not, naming a host store.
std::string offload_problem(const StmtOffload &offload);

}  // namespace tessera::gpu
