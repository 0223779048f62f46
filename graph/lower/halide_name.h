// Names Halide accepts for Funcs, parameters and generated functions: letters,
// digits and '_' (ONNX names carry '/', '.', ':' and may start with a digit).
#pragma once

#include <string>

namespace tessera::graph {

std::string halide_name(const std::string &name);

}  // namespace tessera::graph
