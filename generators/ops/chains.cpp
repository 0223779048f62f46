#include "chains.h"

#include "convolution.h"
#include "elementwise.h"
#include "linear.h"
#include "softmax.h"

namespace tessera::ops {

using namespace Halide;

namespace {

// A pure output over the last stage's sums, as matmul and conv2d end (see linear.cpp).
Func pure_output(const std::string &name, const Func &sum) {
    Func out(name);
    const std::vector<Var> args = sum.args();
    out(args) = Func(sum)(args);
    return out;
}

const char *between_name(ChainBetween between) {
    switch (between) {
    case ChainBetween::None: return "none";
    case ChainBetween::Relu: return "relu";
    case ChainBetween::Gelu: return "gelu";
    case ChainBetween::Scale: return "scale";
    }
    return "between";
}

}  // namespace

Func attention(const AttentionParams &p, const Func &q, const Func &k, const Func &v, const Func &mask) {
    // scores[b, m, l] = sum over k of q[b, m, k] * k[b, l, k]
    Func scores = matmul_sum(batched_product(p.batch, p.m, p.l, p.k, true), q, k, {"attention_scores", "l", "k"});
    const std::vector<Var> args = scores.args();  // (l, m, batch)
    Func logits("attention_logits");
    Expr scaled = scores(args) * float(p.scale);
    logits(args) = p.mask ? scaled + Func(mask)(args) : scaled;
    SoftmaxParams rows;
    rows.shape = {p.batch, p.m, p.l};
    rows.axis = 2;
    Func probs = softmax(rows, logits, "attention", "attention_probs");
    // out[b, m, n] = sum over l of probs[b, m, l] * v[b, l, n]
    Func out = matmul_sum(batched_product(p.batch, p.m, p.n, p.l), probs, v, {"attention_out", "n", "l"});
    return pure_output("attention", out);
}

Func gemm_chain(const GemmChainParams &p, const Func &a, const Func &b1, const Func &b2) {
    Func first = matmul_sum(batched_product(p.batch, p.m, p.l, p.k), a, b1, {"gemm_chain_first", "l", "k"});
    Func between = first;
    if (p.between != ChainBetween::None) {
        const std::vector<Var> args = first.args();
        between = Func(std::string("gemm_chain_") + between_name(p.between));
        Expr x = first(args);
        between(args) = p.between == ChainBetween::Scale ? x * float(p.scale)
                        : p.between == ChainBetween::Relu ? unary_expr(UnaryKind::Relu, x)
                                                          : unary_expr(UnaryKind::Gelu, x);
    }
    Func second = matmul_sum(batched_product(p.batch, p.m, p.n, p.l), between, b2, {"gemm_chain_second", "n", "l"});
    return pure_output("gemm_chain", second);
}

Func conv_chain(const ConvChainParams &p, const Func &input, const Func &w1, const Func &b1, const Func &w2,
                const Func &b2) {
    Func first = conv2d(p.first(), input, w1, "conv_chain_first");
    // (x, y, c, n) in nchw, (c, x, y, n) in nhwc
    const std::vector<Var> args = first.args();
    const Var c = p.nhwc ? args[0] : args[2];
    Func relu("conv_chain_relu");
    relu(args) = unary_expr(UnaryKind::Relu, first(args) + Func(b1)(c));
    Func second = conv2d(p.second(), relu, w2, "conv_chain_second");
    Func out("conv_chain");
    out(args) = second(args) + Func(b2)(c);
    return out;
}

}  // namespace tessera::ops
