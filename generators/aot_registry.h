// The ahead-of-time operator libraries built by aot_suite.cmake, each with the op
// line it was generated from, callable through Halide's argv entry point
// (inputs then output, each a halide_buffer_t*).
#pragma once

#include <string>
#include <vector>

namespace tessera {

struct AotKernel {
    std::string name;
    std::string config;  // "op k=v ..."
    int (*argv_entry)(void **args);
};

const std::vector<AotKernel> &aot_kernels();

}  // namespace tessera
