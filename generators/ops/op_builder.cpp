#include "op_builder.h"

#include "convolution.h"
#include "data_movement.h"
#include "elementwise.h"
#include "linear.h"
#include "normalization.h"
#include "pooling.h"
#include "reduction.h"
#include "softmax.h"

namespace tessera::ops {

using Halide::Func;

Func build_op(const OpConfig &config, const std::vector<Func> &inputs) {
    const OpSignature sig = describe_op(config);  // validates the configuration
    if (inputs.size() != sig.inputs.size()) {
        throw OpError(config.op + ": expected " + std::to_string(sig.inputs.size()) + " inputs, got " +
                      std::to_string(inputs.size()));
    }
    const std::string family = find_op(config.op).family;
    if (family == "matmul") {
        MatmulParams p = parse_matmul(config);
        return matmul(p, inputs[0], inputs[1], p.bias ? inputs[2] : Func());
    }
    if (family == "conv") return conv2d(parse_conv(config), inputs[0], inputs[1]);
    if (family == "pool") return pool2d(parse_pool(config), inputs[0]);
    if (family == "reduce") return reduce(parse_reduce(config), inputs[0]);
    if (is_binary_op(config.op)) return binary(parse_binary(config), inputs[0], inputs[1]);
    if (config.op == "bias_add") return bias_add(parse_bias_add(config), inputs[0], inputs[1]);
    if (family == "elementwise") return unary(parse_unary(config), inputs[0]);
    if (family == "softmax") return softmax(parse_softmax(config), inputs[0]);
    if (family == "norm") return normalize(parse_norm(config), inputs);
    if (config.op == "transpose") return transpose(parse_transpose(config), inputs[0]);
    if (config.op == "pad") return pad(parse_pad(config), inputs[0]);
    throw OpError("internal: op '" + config.op + "' has no builder");
}

}  // namespace tessera::ops
