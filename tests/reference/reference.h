// Plain C++ references for every catalogued operator: straightforward loops with
// double accumulation, written from the operator definitions in op_params.h and
// sharing no code with the Halide builders.
#pragma once

#include "op_config.h"
#include "tensor.h"

#include <map>
#include <string>
#include <vector>

namespace tessera {

// `inputs` follow ops::describe_op(config).inputs. Throws ops::OpError on a bad
// configuration or inputs of the wrong shape.
Tensor reference(const ops::OpConfig &config, const std::vector<Tensor> &inputs);

// A registry row's reference: parses the configuration, then computes from inputs
// already checked against the signature.
using ReferenceFn = Tensor (*)(const ops::OpConfig &config, const std::vector<Tensor> &inputs);

// One reference per op registry row (generators/ops/op_registry.def), keyed by the
// row's id. A separate table because the references are their own link unit.
const std::map<std::string, ReferenceFn> &reference_table();

}  // namespace tessera
