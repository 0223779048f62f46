// Calls into the op library (generators/ops) from the lowering rules: an OpConfig
// built in code (OpConfig::of("conv2d").with("n", 1)...) is validated by the
// library's own parsers, so the builders get exactly the params a single-op kernel
// would, and a form the library does not support fails with its message, prefixed
// by the node.
#pragma once

#include "lower_rule.h"

#include "op_builder.h"

#include <string>
#include <vector>

namespace tessera::graph {

// ops::build_op on `config` with `inputs`; an OpError becomes a GraphError naming the node.
Halide::Func build_library_op(const LowerContext &ctx, const ops::OpConfig &config,
                              const std::vector<Halide::Func> &inputs);

}  // namespace tessera::graph
