// Plain C++ references for every catalogued operator: straightforward loops with
// double accumulation, written from the operator definitions in op_params.h and
// sharing no code with the Halide builders.
#pragma once

#include "op_config.h"
#include "tensor.h"

#include <vector>

namespace tessera {

// `inputs` follow ops::describe_op(config).inputs. Throws ops::OpError on a bad
// configuration or inputs of the wrong shape.
Tensor reference(const ops::OpConfig &config, const std::vector<Tensor> &inputs);

}  // namespace tessera
