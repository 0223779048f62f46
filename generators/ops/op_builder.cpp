#include "op_builder.h"

#include "chains.h"
#include "convolution.h"
#include "data_movement.h"
#include "elementwise.h"
#include "linear.h"
#include "normalization.h"
#include "op_registry.h"
#include "panels.h"
#include "pooling.h"
#include "reduction.h"
#include "softmax.h"

namespace tessera::ops {

using Halide::Func;

namespace {

Func build_matmul(const OpConfig &config, const std::vector<Func> &inputs) {
    MatmulParams p = parse_matmul(config);
    return matmul(p, inputs[0], inputs[1], p.bias ? inputs[2] : Func());
}

Func build_conv(const OpConfig &config, const std::vector<Func> &inputs) {
    return conv2d(parse_conv(config), inputs[0], inputs[1]);
}

Func build_pool(const OpConfig &config, const std::vector<Func> &inputs) {
    return pool2d(parse_pool(config), inputs[0]);
}

Func build_reduce(const OpConfig &config, const std::vector<Func> &inputs) {
    return reduce(parse_reduce(config), inputs[0]);
}

Func build_unary(const OpConfig &config, const std::vector<Func> &inputs) {
    return unary(parse_unary(config), inputs[0]);
}

Func build_binary(const OpConfig &config, const std::vector<Func> &inputs) {
    return binary(parse_binary(config), inputs[0], inputs[1]);
}

Func build_bias_add(const OpConfig &config, const std::vector<Func> &inputs) {
    return bias_add(parse_bias_add(config), inputs[0], inputs[1]);
}

Func build_softmax(const OpConfig &config, const std::vector<Func> &inputs) {
    return softmax(parse_softmax(config), inputs[0]);
}

Func build_norm(const OpConfig &config, const std::vector<Func> &inputs) {
    return normalize(parse_norm(config), inputs);
}

Func build_transpose(const OpConfig &config, const std::vector<Func> &inputs) {
    return transpose(parse_transpose(config), inputs[0]);
}

Func build_pad(const OpConfig &config, const std::vector<Func> &inputs) {
    return pad(parse_pad(config), inputs[0]);
}

Func build_pack(const OpConfig &config, const std::vector<Func> &inputs) {
    return pack_panels(parse_pack(config), inputs[0]);
}

Func build_attention(const OpConfig &config, const std::vector<Func> &inputs) {
    AttentionParams p = parse_attention(config);
    return attention(p, inputs[0], inputs[1], inputs[2], p.mask ? inputs[3] : Func());
}

Func build_gemm_chain(const OpConfig &config, const std::vector<Func> &inputs) {
    return gemm_chain(parse_gemm_chain(config), inputs[0], inputs[1], inputs[2]);
}

Func build_conv_chain(const OpConfig &config, const std::vector<Func> &inputs) {
    return conv_chain(parse_conv_chain(config), inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]);
}

}  // namespace

const std::map<std::string, OpBuilder> &op_builders() {
    static const std::map<std::string, OpBuilder> builders = {
#define TESSERA_OP_ROW(id, entries, signature, builder) {#id, builder},
#include "op_registry.def"
#undef TESSERA_OP_ROW
    };
    return builders;
}

Func build_op(const OpConfig &config, const std::vector<Func> &inputs) {
    const OpSignature sig = describe_op(config);  // validates the configuration
    if (inputs.size() != sig.inputs.size()) {
        throw OpError(config.op + ": expected " + std::to_string(sig.inputs.size()) + " inputs, got " +
                      std::to_string(inputs.size()));
    }
    return op_builders().at(op_row(config.op).id)(config, inputs);
}

}  // namespace tessera::ops
