#include "chains.h"

#include "convolution.h"
#include "elementwise.h"
#include "fast_math.h"
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

// The online-softmax form of attention (p.key_block = Lb > 0; flash attention):
// the keys in nb = ceil(L / Lb) blocks, each row's max and sum carried from block
// to block, so no stage needs a row of scores whole and a schedule may stream the
// keys. Per block j (l < Lb the key in the block, key j*Lb + l):
//   scores(l, m, j, b)    = q(., m, b) . k(., key, b)        (a GEMM over K)
//   logits                = scale * scores (+ mask)
//   block_max(m, j, b)    = max over l of logits; block_exp = exp(logits - block_max)
//   block_sum(m, j, b)    = sum over l of block_exp
//   block_out(n, m, j, b) = sum over l of block_exp * v(n, key, b)   (a GEMM over l)
// and the blocks in order (running(n, m, b) = {max M, sum s, out o}, from {lowest, 0, 0}):
//   M' = max(M, block_max), s' = s e^(M - M') + block_sum e^(block_max - M'),
//   o' = o e^(M - M') + block_out e^(block_max - M');  attention = o / s.
// Keys past L (when Lb does not divide L) read the last key and weigh nothing.
// The row statistics ride along each output column (a Tuple shares one update
// loop): N/lanes vector exponentials per row and block against Lb*N/lanes FMAs.
// With M = lowest at first, abs(M - block_max) is huge and the clamped
// exponential tiny: it scales a zero sum and output.
Func online_attention(const AttentionParams &p, const Func &q, const Func &k, const Func &v, const Func &mask) {
    const int lb = int(p.key_block), blocks = int((p.l + p.key_block - 1) / p.key_block);
    Var l("l"), m("m"), j("j"), b("batch"), n("n");
    const bool tail = p.l % p.key_block != 0;
    // Keys past L read the last one (clamped only where there are such keys: the
    // clamp costs address arithmetic in the second GEMM's inner loop).
    auto key_of = [&](const Expr &at) { return tail ? min(j * lb + at, int(p.l) - 1) : j * lb + at; };
    Expr key = key_of(l);
    RDom rk(0, int(p.k), "k");
    Func scores("attention_scores");
    scores(l, m, j, b) = 0.0f;
    scores(l, m, j, b) += Func(q)(rk, m, b) * Func(k)(rk, key, b);
    Func logits("attention_logits");
    Expr scaled = scores(l, m, j, b) * float(p.scale);
    if (p.mask) scaled += Func(mask)(key, m, b);
    logits(l, m, j, b) = tail ? select(j * lb + l < int(p.l), scaled, Float(32).min()) : scaled;
    RDom rl(0, lb, "l");
    Func block_max("attention_block_max"), block_exp("attention_block_exp"), block_sum("attention_block_sum");
    block_max(m, j, b) = Float(32).min();
    block_max(m, j, b) = max(block_max(m, j, b), logits(rl, m, j, b));
    Expr e = vector_exp(logits(l, m, j, b) - block_max(m, j, b));
    block_exp(l, m, j, b) = tail ? select(j * lb + l < int(p.l), e, 0.0f) : e;
    block_sum(m, j, b) = 0.0f;
    block_sum(m, j, b) += block_exp(rl, m, j, b);
    Func block_out("attention_block_out");
    block_out(n, m, j, b) = 0.0f;
    block_out(n, m, j, b) += block_exp(rl, m, j, b) * Func(v)(n, key_of(rl), b);
    RDom rj(0, blocks, "j");
    Func running("attention_running");
    running(n, m, b) = {Float(32).min(), 0.0f, 0.0f};
    // One of e^(M - M'), e^(block_max - M') is 1: one exponential, of -|M - block_max|.
    Expr old_max = running(n, m, b)[0], bm = block_max(m, rj, b), new_max = max(old_max, bm);
    Expr e_gap = vector_exp(-abs(old_max - bm)), grows = bm > old_max;
    Expr keep = select(grows, e_gap, 1.0f), add = select(grows, 1.0f, e_gap);
    running(n, m, b) = {new_max, running(n, m, b)[1] * keep + block_sum(m, rj, b) * add,
                        running(n, m, b)[2] * keep + block_out(n, m, rj, b) * add};
    Func out("attention");
    out(n, m, b) = running(n, m, b)[2] / running(n, m, b)[1];
    return out;
}

}  // namespace

Func attention(const AttentionParams &p, const Func &q, const Func &k, const Func &v, const Func &mask) {
    if (p.key_block > 0) return online_attention(p, q, k, v, mask);
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
