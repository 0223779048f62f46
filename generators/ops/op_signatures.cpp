#include "op_signatures.h"

#include "op_params.h"

namespace tessera::ops {

namespace {

Shape matmul_shape(int64_t batch, bool batched, int64_t rows, int64_t cols) {
    return batched ? Shape{batch, rows, cols} : Shape{rows, cols};
}

Shape image_shape(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
    return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
}

// An image in a conv's or pool's layout: NCHW, NHWC or channel-blocked NCHW[x]c.
template <typename Params>
Shape image_shape(const Params &p, int64_t c, int64_t h, int64_t w) {
    return p.blocked ? Shape{p.n, c / p.block, h, w, p.block} : image_shape(p.nhwc, p.n, c, h, w);
}

// Weights of a (grouped) convolution: OIHW (nchw) or HWIO (nhwc).
Shape conv_weights_shape(const ConvParams &p) {
    int64_t cg = p.c / p.groups;
    if (p.blocked && p.depthwise) return {p.c / p.block, p.kh, p.kw, p.block};
    if (p.packed) return {panel_count(p.oc, p.block), cg, p.kh, p.kw, p.block};
    return p.nhwc ? Shape{p.kh, p.kw, cg, p.oc} : Shape{p.oc, cg, p.kh, p.kw};
}

double conv_flops(const ConvParams &p) {
    return 2.0 * p.n * p.oc * p.oh * p.ow * (p.c / p.groups) * p.kh * p.kw;
}

}  // namespace

OpSignature matmul_signature(const OpConfig &config) {
    MatmulParams p = parse_matmul(config);
    OpSignature sig;
    sig.inputs.push_back({"a", matmul_shape(p.batch, p.batched, p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k)});
    if (p.packed) {
        sig.inputs.push_back({"b", {panel_count(p.n, p.block), p.k, p.block}});
    } else {
        sig.inputs.push_back({"b", matmul_shape(p.batch, p.batched, p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n)});
    }
    if (p.bias) sig.inputs.push_back({"bias", {p.n}});
    sig.output = {"output", matmul_shape(p.batch, p.batched, p.m, p.n)};
    sig.flops = 2.0 * p.batch * p.m * p.n * p.k;
    sig.compute_bound = true;
    return sig;
}

OpSignature conv_signature(const OpConfig &config) {
    ConvParams p = parse_conv(config);
    OpSignature sig;
    sig.inputs.push_back({"input", image_shape(p, p.c, p.h, p.w)});
    if (p.depthwise && !p.blocked) {
        sig.inputs.push_back({"weights", p.nhwc ? Shape{p.kh, p.kw, p.c} : Shape{p.c, p.kh, p.kw}});
    } else {
        sig.inputs.push_back({"weights", conv_weights_shape(p)});
    }
    sig.output = {"output", image_shape(p, p.oc, p.oh, p.ow)};
    sig.flops = conv_flops(p);
    sig.compute_bound = !p.depthwise;
    return sig;
}

OpSignature pool_signature(const OpConfig &config) {
    PoolParams p = parse_pool(config);
    OpSignature sig;
    sig.inputs.push_back({"input", image_shape(p, p.c, p.h, p.w)});
    if (p.kind == PoolKind::GlobalAvg) {
        sig.output = {"output", p.blocked ? Shape{p.n, p.c / p.block, p.block} : Shape{p.n, p.c}};
        sig.flops = double(p.n) * p.c * p.h * p.w;
    } else {
        sig.output = {"output", image_shape(p, p.c, p.oh, p.ow)};
        sig.flops = double(p.n) * p.c * p.oh * p.ow * p.kh * p.kw;
    }
    return sig;
}

OpSignature reduce_signature(const OpConfig &config) {
    ReduceParams p = parse_reduce(config);
    OpSignature sig;
    sig.inputs.push_back({"input", p.shape});
    sig.output = {"output", p.out_shape};
    sig.flops = num_elements(p.shape);
    // Data whose results are defined and well-conditioned: a positive sum under log,
    // products that neither vanish nor explode.
    if (p.kind == ReduceKind::LogSum) sig.inputs[0].lo = 0.1f;
    if (p.kind == ReduceKind::Prod) sig.inputs[0].lo = 0.8f, sig.inputs[0].hi = 1.25f;
    if (p.kind == ReduceKind::LogSumExp) sig.inputs[0].lo = -5.0f, sig.inputs[0].hi = 5.0f;
    return sig;
}

OpSignature unary_signature(const OpConfig &config) {
    UnaryParams p = parse_unary(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}};
    if (p.kind == UnaryKind::Sqrt) sig.inputs[0].lo = 0.0f;
    if (p.kind == UnaryKind::Log) sig.inputs[0].lo = 0.1f, sig.inputs[0].hi = 4.0f;
    // Rounding ops over several integers; Mish past its knee.
    for (UnaryKind k : {UnaryKind::Floor, UnaryKind::Ceil, UnaryKind::Round, UnaryKind::Mish, UnaryKind::Sin})
        if (p.kind == k) sig.inputs[0].lo = -4.0f, sig.inputs[0].hi = 4.0f;
    if (p.kind == UnaryKind::Reciprocal) sig.inputs[0].lo = 0.5f, sig.inputs[0].hi = 2.0f;
    // Inside the inverse functions' domains; tan away from its poles.
    if (p.kind == UnaryKind::Asin || p.kind == UnaryKind::Acos || p.kind == UnaryKind::Atanh)
        sig.inputs[0].lo = -0.9f, sig.inputs[0].hi = 0.9f;
    if (p.kind == UnaryKind::Acosh) sig.inputs[0].lo = 1.1f, sig.inputs[0].hi = 4.0f;
    if (p.kind == UnaryKind::Tan) sig.inputs[0].lo = -1.2f, sig.inputs[0].hi = 1.2f;
    for (UnaryKind k : {UnaryKind::Atan, UnaryKind::Sinh, UnaryKind::Cosh, UnaryKind::Asinh})
        if (p.kind == k) sig.inputs[0].lo = -3.0f, sig.inputs[0].hi = 3.0f;
    if (p.kind == UnaryKind::Clip) sig.inputs[0].lo = -2.0f, sig.inputs[0].hi = 2.0f;
    // Past the activations' knees (hard_swish clamps at +-3, hard_sigmoid at +-2.5).
    for (UnaryKind k : {UnaryKind::HardSigmoid, UnaryKind::HardSwish, UnaryKind::LeakyRelu, UnaryKind::Elu,
                        UnaryKind::Selu, UnaryKind::Softplus, UnaryKind::ThresholdedRelu, UnaryKind::Shrink,
                        UnaryKind::Celu}) {
        if (p.kind == k) sig.inputs[0].lo = -5.0f, sig.inputs[0].hi = 5.0f;
    }
    sig.output = {"output", p.shape};
    sig.flops = num_elements(p.shape);
    return sig;
}

OpSignature binary_signature(const OpConfig &config) {
    BinaryParams p = parse_binary(config);
    OpSignature sig;
    sig.inputs = {{"a", p.shape_a}, {"b", p.shape_b}};
    // Away from the poles and from negative bases.
    if (p.kind == BinaryKind::Div) sig.inputs[1].lo = 0.5f, sig.inputs[1].hi = 2.0f;
    if (p.kind == BinaryKind::Pow) sig.inputs[0].lo = 0.5f, sig.inputs[0].hi = 2.0f;
    sig.output = {"output", p.out_shape};
    sig.flops = num_elements(p.out_shape);
    return sig;
}

OpSignature bias_add_signature(const OpConfig &config) {
    BiasAddParams p = parse_bias_add(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}, {"bias", {p.shape[p.axis]}}};
    sig.output = {"output", p.shape};
    sig.flops = num_elements(p.shape);
    return sig;
}

OpSignature softmax_signature(const OpConfig &config) {
    SoftmaxParams p = parse_softmax(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}};
    sig.output = {"output", p.shape};
    sig.flops = 4.0 * num_elements(p.shape);
    return sig;
}

OpSignature norm_signature(const OpConfig &config) {
    NormParams p = parse_norm(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}};
    Shape vec{p.shape[p.axis]};
    if (p.batch_norm) {
        for (const char *name : {"scale", "bias", "mean"}) sig.inputs.push_back({name, vec});
        sig.inputs.push_back({"var", vec, 0.1f, 1.0f});
    } else {
        sig.inputs.push_back({"gamma", vec});
        sig.inputs.push_back({"beta", vec});
    }
    sig.output = {"output", p.shape};
    sig.flops = (p.batch_norm ? 2.0 : 7.0) * num_elements(p.shape);
    return sig;
}

OpSignature transpose_signature(const OpConfig &config) {
    TransposeParams p = parse_transpose(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}};
    sig.output = {"output", p.out_shape};
    return sig;
}

OpSignature pad_signature(const OpConfig &config) {
    PadParams p = parse_pad(config);
    OpSignature sig;
    sig.inputs = {{"input", p.shape}};
    sig.output = {"output", p.out_shape};
    return sig;
}

OpSignature pack_signature(const OpConfig &config) {
    PackParams p = parse_pack(config);
    OpSignature sig;
    sig.inputs = {{"input", p.unpack ? p.out_shape : p.shape}};
    sig.output = {"output", p.unpack ? p.shape : p.out_shape};
    return sig;
}

// Chains: the flops are the sum of the stages' (as their own ops count them).

OpSignature attention_signature(const OpConfig &config) {
    AttentionParams p = parse_attention(config);
    OpSignature sig;
    sig.inputs = {{"q", {p.batch, p.m, p.k}}, {"k", {p.batch, p.l, p.k}}, {"v", {p.batch, p.l, p.n}}};
    if (p.mask) sig.inputs.push_back({"mask", {p.batch, p.m, p.l}});
    sig.output = {"output", {p.batch, p.m, p.n}};
    const double scores = double(p.batch) * p.m * p.l;
    // q k^T, the scale (and the mask), the softmax, then the product with v.
    sig.flops = 2.0 * scores * p.k + (p.mask ? 2.0 : 1.0) * scores + 4.0 * scores + 2.0 * scores * p.n;
    sig.compute_bound = true;
    return sig;
}

OpSignature gemm_chain_signature(const OpConfig &config) {
    GemmChainParams p = parse_gemm_chain(config);
    OpSignature sig;
    sig.inputs = {{"a", {p.batch, p.m, p.k}}, {"b1", {p.batch, p.k, p.l}}, {"b2", {p.batch, p.l, p.n}}};
    sig.output = {"output", {p.batch, p.m, p.n}};
    const double first = double(p.batch) * p.m * p.l;
    sig.flops = 2.0 * first * p.k + (p.between == ChainBetween::None ? 0.0 : first) + 2.0 * first * p.n;
    sig.compute_bound = true;
    return sig;
}

OpSignature conv_chain_signature(const OpConfig &config) {
    ConvChainParams p = parse_conv_chain(config);
    const ConvParams first = p.first(), second = p.second();
    OpSignature sig;
    sig.inputs = {{"input", image_shape(p.nhwc, p.n, p.c, p.h, p.w)},
                  {"w1", conv_weights_shape(first)},
                  {"b1", {p.oc1}},
                  {"w2", conv_weights_shape(second)},
                  {"b2", {p.oc2}}};
    sig.output = {"output", image_shape(p.nhwc, p.n, p.oc2, p.oh, p.ow)};
    // Each convolution, the first one's bias and relu, the second one's bias.
    const double mid = double(p.n) * p.oc1 * p.h1 * p.w1, out = double(p.n) * p.oc2 * p.oh * p.ow;
    sig.flops = conv_flops(first) + 2.0 * mid + conv_flops(second) + out;
    sig.compute_bound = true;
    return sig;
}

}  // namespace tessera::ops
