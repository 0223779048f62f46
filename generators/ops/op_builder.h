// Builds any catalogued operator as a Halide Func from input Funcs: the single
// entry point the generators, the JIT runners and later the graph layer use.
#pragma once

#include "op_catalog.h"

#include <Halide.h>

#include <vector>

namespace tessera::ops {

// `inputs` follow describe_op(config).inputs, each a Func in Halide order.
// Throws OpError for a bad configuration or a wrong number of inputs.
Halide::Func build_op(const OpConfig &config, const std::vector<Halide::Func> &inputs);

}  // namespace tessera::ops
