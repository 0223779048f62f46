// Builds any catalogued operator as a Halide Func from input Funcs: the single
// entry point the generators, the JIT runners and the graph layer use. Each op
// registry row (op_registry.def) names its builder.
#pragma once

#include "op_catalog.h"

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace tessera::ops {

// `inputs` follow describe_op(config).inputs, each a Func in Halide order.
// Throws OpError for a bad configuration or a wrong number of inputs.
Halide::Func build_op(const OpConfig &config, const std::vector<Halide::Func> &inputs);

// A row's builder: parses the configuration, then builds from the inputs (their
// count already checked by build_op).
using OpBuilder = Halide::Func (*)(const OpConfig &config, const std::vector<Halide::Func> &inputs);

// Every registry row's builder, keyed by the row's id.
const std::map<std::string, OpBuilder> &op_builders();

}  // namespace tessera::ops
