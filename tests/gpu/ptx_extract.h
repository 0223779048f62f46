// The PTX modules Halide embeds in an object compiled for a CUDA target: the
// NVPTX back end's text, stored NUL-terminated among the object's constants.
#pragma once

#include <string>
#include <vector>

namespace tessera::gpu {

// Every PTX module of the object file; throws std::runtime_error when it cannot be read.
std::vector<std::string> ptx_modules_in_object(const std::string &path);

// The module's `.target sm_XX`, e.g. "sm_86" ("" when absent).
std::string ptx_target(const std::string &ptx);

}  // namespace tessera::gpu
