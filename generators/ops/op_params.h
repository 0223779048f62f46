// Resolved, validated attributes of every operator. parse_*() read an OpConfig,
// apply defaults, check every constraint (throwing OpError naming the key), and
// derive output extents. The Halide builders and the plain C++ references both
// consume these structs, so an operator's attributes are interpreted in one place.
#pragma once

#include "op_config.h"

namespace tessera::ops {

// matmul:       A[M,K] (trans_a: [K,M]) x B[K,N] (trans_b: [N,K]) (+ bias[N]) -> C[M,N]
//               packed: B as panels [ceil(N/block)][K][block] (pack_panels' output)
// batch_matmul: A[B,M,K] (trans_a: [B,K,M]) x B[B,K,N] (trans_b: [B,N,K]) -> C[B,M,N]
struct MatmulParams {
    bool batched = false;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    bool trans_a = false, trans_b = false, bias = false;
    bool packed = false;
    int64_t block = 64;  // packed only: the panels' width
};

// conv2d:           x[n,c,h,w] (nhwc: [n,h,w,c]), weights [oc,c/groups,kh,kw] (nhwc: [kh,kw,c/groups,oc])
// depthwise_conv2d: weights [c,kh,kw] (nhwc: [kh,kw,c]); one filter per channel
// packed conv2d:    nchw, groups 1, weights as panels [ceil(oc/block)][c][kh][kw][block]
// blocked (layout=nchwc): activations channel-blocked, x[n,c/block,h,w,block] ->
//                   [n,oc/block,oh,ow,block] (NCHW[x]c); conv2d's weights are the
//                   panels above (groups 1), depthwise's [c/block,kh,kw,block];
//                   c and oc are multiples of block (8 or 16: a vector of AVX2 or AVX-512)
struct ConvParams {
    bool depthwise = false;
    bool nhwc = false;
    bool blocked = false;
    bool packed = false;
    int64_t block = 16;  // packed or blocked only: the channel blocks' width
    // packed only: the sums stored [n][oc/block][block][oh][ow] (each channel's plane
    // contiguous, as NCHW) instead of channel-blocked [n][oc/block][oh][ow][block]
    bool planar_sums = false;
    int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0;
    int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
    int64_t oh = 0, ow = 0;  // derived
};

enum class PoolKind { Avg, Max, GlobalAvg };

// avg_pool2d / max_pool2d: x[n,c,h,w] (nhwc: [n,h,w,c]) -> [n,c,oh,ow]; global_avg_pool -> [n,c]
// blocked (layout=nchwc): x[n,c/block,h,w,block] -> [n,c/block,oh,ow,block];
// global_avg_pool -> [n,c/block,block]; c a multiple of block (8 or 16)
struct PoolParams {
    PoolKind kind = PoolKind::Avg;
    bool nhwc = false;
    bool blocked = false;
    int64_t block = 16;  // blocked only
    int64_t n = 0, c = 0, h = 0, w = 0, kh = 1, kw = 1, stride = 1, pad = 0;
    bool count_include_pad = false;  // avg only: divide by kh*kw even at the borders
    // Output extents rounded up: a last window may reach past the padded input's end
    // (it must start inside the input or its leading padding, as in PyTorch and ONNX).
    bool ceil_mode = false;
    int64_t oh = 0, ow = 0;          // derived
};

// reduce_sum / reduce_mean over `axes`; the reduced axes are dropped (a full
// reduction gives shape [1]).
// What a reduction computes over its axes: sum, mean, max, min, product, sum of
// |x| (l1), sqrt of the sum of squares (l2), log of the sum, log of the sum of exps
// (with the max taken out first, so it does not overflow), sum of squares.
enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };
struct ReduceParams {
    ReduceKind kind = ReduceKind::Sum;
    Shape shape;
    std::vector<int> axes;  // sorted, unique, non-negative
    Shape out_shape;        // derived
};

// gelu is the tanh approximation; gelu_erf the exact x/2 (1 + erf(x / sqrt 2)) that
// PyTorch and ONNX models use. clip clamps to [lo, hi].
enum class UnaryKind {
    Relu, Gelu, GeluErf, Sigmoid, Tanh, Exp, Sqrt, Erf, Neg, Reciprocal, Clip,
    HardSigmoid, HardSwish, LeakyRelu, Elu, Selu, Softplus,
    Abs, Log, Softsign, Mish, Sin, Cos, Floor, Ceil, Round, Sign,
    Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, ThresholdedRelu, Shrink, Celu,
};
struct UnaryParams {
    UnaryKind kind = UnaryKind::Relu;
    Shape shape;
    double lo = 0, hi = 0;  // clip only
    // hard_sigmoid (alpha x + beta), leaky_relu, elu, thresholded_relu and celu (alpha),
    // selu (alpha, gamma), shrink (alpha: its lambd, beta: its bias);
    // ONNX's defaults.
    double alpha = 0, beta = 0, gamma = 0;
};

// add / sub / mul / div / pow / max / min with numpy broadcasting.
enum class BinaryKind { Add, Sub, Mul, Div, Pow, Max, Min, Prelu };
struct BinaryParams {
    BinaryKind kind = BinaryKind::Add;
    Shape shape_a, shape_b, out_shape;  // out_shape derived
};

// bias_add: x[shape] + bias[shape[axis]] broadcast along every other axis.
struct BiasAddParams {
    Shape shape;
    int axis = 0;
};

// softmax along `axis` (numerically stable: the row maximum is subtracted).
struct SoftmaxParams {
    Shape shape;
    int axis = 0;
    bool log = false;  // log_softmax: x - max - log(sum(exp(x - max)))
};

// layer_norm over the last axis with gamma/beta[last]; batch_norm (inference) with
// scale, bias, mean, var [shape[axis]].
struct NormParams {
    bool batch_norm = false;
    Shape shape;
    int axis = 0;  // the normalised axis (layer_norm) or the channel axis (batch_norm)
    double epsilon = 1e-5;
};

// transpose: out.shape[i] = in.shape[perm[i]]
struct TransposeParams {
    Shape shape;
    std::vector<int> perm;
    Shape out_shape;  // derived
};

// pad: ONNX-style pads (all befores, then all afters), constant value.
struct PadParams {
    Shape shape;
    std::vector<int64_t> before, after;
    double value = 0.0;
    Shape out_shape;  // derived
};

// pack_panels: x[shape] -> the same values with axis `axis` split into blocks of
// `block` (the last one zero-padded): the blocks' index stays at `axis` (front:
// moves to the front), the position within a block becomes the innermost axis.
// OIHW weights with axis 0 give the panels a packed conv2d reads, [O/b][I][H][W][b];
// B[K,N] with axis 1 and front, a packed matmul's [N/b][K][b]; NCHW with axis 1,
// the channel-blocked NCHW[b]c.
// unpack_panels is the inverse (front not allowed): `shape` is the unpacked shape,
// the input pack_panels' output (the padding is dropped).
struct PackParams {
    Shape shape;
    int axis = 0;
    int64_t block = 16;
    bool front = false;
    bool unpack = false;  // unpack_panels
    Shape out_shape;  // derived
};

// Panels of `block` along an extent: ceil(extent / block).
int64_t panel_count(int64_t extent, int64_t block);

// Chains of compute-intensive operators (Chimera's GEMM-softmax-GEMM, GEMM-GEMM and
// conv-conv), each one op so a chain scheduler sees the whole pipeline.

// attention: q[B,M,K], k[B,L,K] (keys row by row, so scores = q k^T), v[B,L,N] and,
// with mask, an additive mask[B,M,L] -> out[B,M,N] =
// softmax over L of (scale * q k^T + mask), times v. The softmax subtracts the row max.
struct AttentionParams {
    int64_t batch = 1, m = 0, n = 0, k = 0, l = 0;
    bool mask = false;
    double scale = 1.0;  // default 1/sqrt(K)
    // 0: the softmax over whole rows of scores. > 0: the online-softmax form, keys
    // in blocks of this many, each row's max and sum carried from block to block.
    int64_t key_block = 0;
};

// What gemm_chain applies to the first product before the second.
enum class ChainBetween { None, Relu, Gelu, Scale };

// gemm_chain: a[B,M,K], b1[B,K,L], b2[B,L,N] -> out[B,M,N] = f(a b1) b2, f one of
// ChainBetween (gelu: the tanh approximation, as the gelu op).
struct GemmChainParams {
    int64_t batch = 1, m = 0, n = 0, k = 0, l = 0;
    ChainBetween between = ChainBetween::None;
    double scale = 1.0;  // between=scale only; default 1/sqrt(K)
};

// conv_chain: relu(conv(x, w1) + b1), then conv(., w2) + b2, both convolutions in
// one layout (nchw with OIHW weights, nhwc with HWIO, as conv2d), no groups or
// dilation. Inputs x, w1, b1[oc1], w2, b2[oc2].
struct ConvChainParams {
    bool nhwc = false;
    int64_t n = 1, c = 0, h = 0, w = 0, oc1 = 0, oc2 = 0;
    int64_t kh1 = 0, kw1 = 0, kh2 = 0, kw2 = 0, stride1 = 1, stride2 = 1, pad1 = 0, pad2 = 0;
    int64_t h1 = 0, w1 = 0, oh = 0, ow = 0;  // derived: the intermediate's and the output's extents
    // The two convolutions as conv2d sees them (the second over the intermediate).
    ConvParams first() const;
    ConvParams second() const;
};

// A batch_matmul's params: [batch, m, k] x [batch, k, n] (b stored [batch, n, k]
// when trans_b), as the chains' GEMM stages are.
MatmulParams batched_product(int64_t batch, int64_t m, int64_t n, int64_t k, bool trans_b = false);

MatmulParams parse_matmul(const OpConfig &config);
ConvParams parse_conv(const OpConfig &config);
PoolParams parse_pool(const OpConfig &config);
ReduceParams parse_reduce(const OpConfig &config);
ReduceKind reduce_kind(const std::string &op);  // "reduce_max" -> Max
UnaryParams parse_unary(const OpConfig &config);
BinaryParams parse_binary(const OpConfig &config);
BiasAddParams parse_bias_add(const OpConfig &config);
SoftmaxParams parse_softmax(const OpConfig &config);
NormParams parse_norm(const OpConfig &config);
TransposeParams parse_transpose(const OpConfig &config);
PadParams parse_pad(const OpConfig &config);
PackParams parse_pack(const OpConfig &config);
AttentionParams parse_attention(const OpConfig &config);
GemmChainParams parse_gemm_chain(const OpConfig &config);
ConvChainParams parse_conv_chain(const OpConfig &config);

// Output extent of a sliding window; throws OpError naming `what` when the
// (dilated) window is larger than the padded input.
int64_t window_output_extent(const std::string &what, int64_t in, int64_t kernel, int64_t stride,
                             int64_t pad, int64_t dilation);

}  // namespace tessera::ops
