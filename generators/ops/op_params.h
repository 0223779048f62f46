// Resolved, validated attributes of every operator. parse_*() read an OpConfig,
// apply defaults, check every constraint (throwing OpError naming the key), and
// derive output extents. The Halide builders and the plain C++ references both
// consume these structs, so an operator's attributes are interpreted in one place.
#pragma once

#include "op_config.h"

namespace tessera::ops {

// matmul:       A[M,K] (trans_a: [K,M]) x B[K,N] (trans_b: [N,K]) (+ bias[N]) -> C[M,N]
// batch_matmul: A[B,M,K] x B[B,K,N] -> C[B,M,N]
struct MatmulParams {
    bool batched = false;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    bool trans_a = false, trans_b = false, bias = false;
};

// conv2d:           x[n,c,h,w] (nhwc: [n,h,w,c]), weights [oc,c/groups,kh,kw] (nhwc: [kh,kw,c/groups,oc])
// depthwise_conv2d: weights [c,kh,kw] (nhwc: [kh,kw,c]); one filter per channel
struct ConvParams {
    bool depthwise = false;
    bool nhwc = false;
    int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0;
    int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
    int64_t oh = 0, ow = 0;  // derived
};

enum class PoolKind { Avg, Max, GlobalAvg };

// avg_pool2d / max_pool2d: x[n,c,h,w] (nhwc: [n,h,w,c]) -> [n,c,oh,ow]; global_avg_pool -> [n,c]
struct PoolParams {
    PoolKind kind = PoolKind::Avg;
    bool nhwc = false;
    int64_t n = 0, c = 0, h = 0, w = 0, kh = 1, kw = 1, stride = 1, pad = 0;
    bool count_include_pad = false;  // avg only: divide by kh*kw even at the borders
    int64_t oh = 0, ow = 0;          // derived
};

// reduce_sum / reduce_mean over `axes`; the reduced axes are dropped (a full
// reduction gives shape [1]).
struct ReduceParams {
    bool mean = false;
    Shape shape;
    std::vector<int> axes;  // sorted, unique, non-negative
    Shape out_shape;        // derived
};

// gelu is the tanh approximation; gelu_erf the exact x/2 (1 + erf(x / sqrt 2)) that
// PyTorch and ONNX models use. clip clamps to [lo, hi].
enum class UnaryKind { Relu, Gelu, GeluErf, Sigmoid, Tanh, Exp, Sqrt, Erf, Neg, Reciprocal, Clip };
struct UnaryParams {
    UnaryKind kind = UnaryKind::Relu;
    Shape shape;
    double lo = 0, hi = 0;  // clip only
};

// add / sub / mul / div / pow / max / min with numpy broadcasting.
enum class BinaryKind { Add, Sub, Mul, Div, Pow, Max, Min };
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

MatmulParams parse_matmul(const OpConfig &config);
ConvParams parse_conv(const OpConfig &config);
PoolParams parse_pool(const OpConfig &config);
ReduceParams parse_reduce(const OpConfig &config);
UnaryParams parse_unary(const OpConfig &config);
BinaryParams parse_binary(const OpConfig &config);
BiasAddParams parse_bias_add(const OpConfig &config);
SoftmaxParams parse_softmax(const OpConfig &config);
NormParams parse_norm(const OpConfig &config);
TransposeParams parse_transpose(const OpConfig &config);
PadParams parse_pad(const OpConfig &config);

// Output extent of a sliding window; throws OpError naming `what` when the
// (dilated) window is larger than the padded input.
int64_t window_output_extent(const std::string &what, int64_t in, int64_t kernel, int64_t stride,
                             int64_t pad, int64_t dilation);

}  // namespace tessera::ops
