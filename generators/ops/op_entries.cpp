#include "op_entries.h"

namespace tessera::ops {

namespace {

KeyInfo shape_key() {
    return {"shape", "", "tensor shape, e.g. 8x128x768"};
}

std::vector<KeyInfo> conv_keys(bool depthwise) {
    std::vector<KeyInfo> keys = {
        {"n", "1", "batch"},
        {"c", "", "input channels"},
        {"h", "", "input height"},
        {"w", "", "input width"},
    };
    if (!depthwise) keys.push_back({"oc", "", "output channels"});
    keys.insert(keys.end(), {
                                {"kh", "", "kernel height"},
                                {"kw", "", "kernel width"},
                                {"stride", "1", "stride (both axes)"},
                                {"pad", "0", "zero padding on every side"},
                                {"dilation", "1", "kernel dilation"},
                            });
    if (!depthwise) keys.push_back({"groups", "1", "channel groups (c and oc divisible by it)"});
    keys.push_back({"layout", "nchw",
                    "nchw, nhwc or nchwc (channel-blocked [n][c/block][h][w][block]; weights as panels: " +
                        std::string(depthwise ? "[c/block][kh][kw][block]" : "[oc/block][c][kh][kw][block]") + ")"});
    if (!depthwise) {
        keys.push_back({"packed", "0", "weights as panels [oc/block][c][kh][kw][block] (pack_panels; nchw, groups 1)"});
        keys.push_back({"block", "16", "packed: the panels' width, a multiple of 8; nchwc: 8 or 16"});
        keys.push_back({"sums", "blocked",
                        "packed: the sums' order, blocked [n][oc/block][oh][ow][block] or planar "
                        "[n][oc/block][block][oh][ow] (each channel's plane contiguous)"});
    } else {
        keys.push_back({"block", "16", "nchwc: the channel blocks' width, 8 or 16"});
    }
    return keys;
}

std::vector<KeyInfo> pool_keys(bool avg) {
    std::vector<KeyInfo> keys = {
        {"n", "1", "batch"},           {"c", "", "channels"},        {"h", "", "input height"},
        {"w", "", "input width"},      {"kh", "", "window height"},  {"kw", "", "window width"},
        {"stride", "1", "stride"},     {"pad", "0", "padding on every side"},
        {"layout", "nchw", "nchw, nhwc or nchwc (channel-blocked [n][c/block][h][w][block])"},
        {"block", "16", "nchwc: the channel blocks' width, 8 or 16"},
    };
    if (avg) keys.push_back({"count_include_pad", "0", "divide by the full window at borders (0/1)"});
    keys.push_back({"ceil_mode", "0", "output extents rounded up: a last window past the edge (0/1)"});
    return keys;
}

}  // namespace

std::vector<OpInfo> matmul_entries() {
    return {
        {"matmul", "matmul", "C[M,N] = A[M,K] * B[K,N] (+ bias[N])",
         {{"M", "", "rows of A and C"},
          {"N", "", "columns of B and C"},
          {"K", "", "reduction extent"},
          {"trans_a", "0", "A stored as [K,M]"},
          {"trans_b", "0", "B stored as [N,K]"},
          {"bias", "0", "add a bias[N] input"},
          {"packed", "0", "B as panels [N/block][K][block] (pack_panels)"},
          {"block", "64", "packed: the panels' width, a multiple of 8"}}},
        {"batch_matmul", "matmul", "C[B,M,N] = A[B,M,K] * B[B,K,N]",
         {{"B", "", "batch"},
          {"M", "", "rows"},
          {"N", "", "columns"},
          {"K", "", "reduction extent"},
          {"trans_a", "0", "A stored as [B,K,M]"},
          {"trans_b", "0", "B stored as [B,N,K] (e.g. keys for q k^T)"}}},
    };
}

std::vector<OpInfo> conv_entries() {
    return {
        {"conv2d", "conv", "2-D convolution (cross-correlation), weights OIHW (nchw) or HWIO (nhwc)",
         conv_keys(false)},
        {"depthwise_conv2d", "conv", "depthwise 2-D convolution, weights [c,kh,kw] (nchw) or [kh,kw,c] (nhwc)",
         conv_keys(true)},
    };
}

std::vector<OpInfo> pool_entries() {
    return {
        {"avg_pool2d", "pool", "average pooling", pool_keys(true)},
        {"max_pool2d", "pool", "max pooling (padding never wins)", pool_keys(false)},
        {"global_avg_pool", "pool", "mean over h and w -> [n,c] (nchwc: [n,c/block,block])",
         {{"n", "1", "batch"}, {"c", "", "channels"}, {"h", "", "height"}, {"w", "", "width"},
          {"layout", "nchw", "nchw, nhwc or nchwc (channel-blocked [n][c/block][h][w][block])"},
          {"block", "16", "nchwc: the channel blocks' width, 8 or 16"}}},
    };
}

std::vector<OpInfo> reduce_entries() {
    return {
        {"reduce_sum", "reduce", "sum over axes (dropped from the output)",
         {shape_key(), {"axes", "", "comma-separated axes, e.g. 1,2"}}},
        {"reduce_mean", "reduce", "mean over axes (dropped from the output)",
         {shape_key(), {"axes", "", "comma-separated axes, e.g. 1,2"}}},
        {"reduce_max", "reduce", "maximum over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_min", "reduce", "minimum over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_prod", "reduce", "product over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_l1", "reduce", "sum of |x| over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_l2", "reduce", "sqrt of the sum of squares over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_log_sum", "reduce", "log of the sum over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_log_sum_exp", "reduce", "log of the sum of exp over axes (max taken out first)",
         {shape_key(), {"axes", "", "comma-separated axes"}}},
        {"reduce_sum_square", "reduce", "sum of squares over axes", {shape_key(), {"axes", "", "comma-separated axes"}}},
    };
}

std::vector<OpInfo> unary_entries() {
    const KeyInfo shape = shape_key();
    return {
        {"relu", "elementwise", "max(x, 0)", {shape}},
        {"gelu", "elementwise", "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (tanh approximation)", {shape}},
        {"sigmoid", "elementwise", "1 / (1 + exp(-x))", {shape}},
        {"tanh", "elementwise", "tanh(x)", {shape}},
        {"exp", "elementwise", "exp(x)", {shape}},
        {"gelu_erf", "elementwise", "x / 2 (1 + erf(x / sqrt(2))) (exact, as PyTorch and ONNX define it)", {shape}},
        {"sqrt", "elementwise", "sqrt(x)", {shape}},
        {"erf", "elementwise", "erf(x)", {shape}},
        {"neg", "elementwise", "-x", {shape}},
        {"reciprocal", "elementwise", "1 / x", {shape}},
        {"clip", "elementwise", "min(max(x, min), max)",
         {shape, {"min", "-inf", "lower bound"}, {"max", "inf", "upper bound"}}},
        {"hard_sigmoid", "elementwise", "max(0, min(1, alpha x + beta))",
         {shape, {"alpha", "0.2", "slope"}, {"beta", "0.5", "offset"}}},
        {"hard_swish", "elementwise", "x max(0, min(1, x / 6 + 1/2))", {shape}},
        {"leaky_relu", "elementwise", "x >= 0 ? x : alpha x", {shape, {"alpha", "0.01", "slope below 0"}}},
        {"elu", "elementwise", "x >= 0 ? x : alpha (exp(x) - 1)", {shape, {"alpha", "1", "scale below 0"}}},
        {"selu", "elementwise", "gamma (x > 0 ? x : alpha (exp(x) - 1))",
         {shape, {"alpha", "1.67326319", "scale below 0"}, {"gamma", "1.05070102", "scale"}}},
        {"softplus", "elementwise", "log(1 + exp(x))", {shape}},
        {"abs", "elementwise", "|x|", {shape}},
        {"log", "elementwise", "ln(x)", {shape}},
        {"softsign", "elementwise", "x / (1 + |x|)", {shape}},
        {"mish", "elementwise", "x tanh(log(1 + exp(x)))", {shape}},
        {"sin", "elementwise", "sin(x)", {shape}},
        {"cos", "elementwise", "cos(x)", {shape}},
        {"floor", "elementwise", "floor(x)", {shape}},
        {"ceil", "elementwise", "ceil(x)", {shape}},
        {"round", "elementwise", "x rounded to the nearest integer, halves to even", {shape}},
        {"sign", "elementwise", "-1, 0 or 1 by the sign of x", {shape}},
        {"tan", "elementwise", "tan(x)", {shape}},
        {"asin", "elementwise", "asin(x)", {shape}},
        {"acos", "elementwise", "acos(x)", {shape}},
        {"atan", "elementwise", "atan(x)", {shape}},
        {"sinh", "elementwise", "sinh(x)", {shape}},
        {"cosh", "elementwise", "cosh(x)", {shape}},
        {"asinh", "elementwise", "asinh(x)", {shape}},
        {"acosh", "elementwise", "acosh(x)", {shape}},
        {"atanh", "elementwise", "atanh(x)", {shape}},
        {"thresholded_relu", "elementwise", "x > alpha ? x : 0", {shape, {"alpha", "1.0", "threshold"}}},
        {"shrink", "elementwise", "x < -lambd ? x + bias : x > lambd ? x - bias : 0",
         {shape, {"lambd", "0.5", "half-width of the band set to 0"}, {"bias", "0.0", "moved towards 0"}}},
        {"celu", "elementwise", "max(0, x) + min(0, alpha (exp(x / alpha) - 1))",
         {shape, {"alpha", "1.0", "scale of the negative part, not 0"}}},
    };
}

std::vector<OpInfo> binary_entries() {
    const std::vector<KeyInfo> keys = {{"shape_a", "", "shape of a"}, {"shape_b", "", "shape of b"}};
    return {
        {"add", "elementwise", "a + b with numpy broadcasting", keys},
        {"sub", "elementwise", "a - b with numpy broadcasting", keys},
        {"mul", "elementwise", "a * b with numpy broadcasting", keys},
        {"div", "elementwise", "a / b with numpy broadcasting", keys},
        {"pow", "elementwise", "a ^ b with numpy broadcasting (a > 0)", keys},
        {"max", "elementwise", "max(a, b) with numpy broadcasting", keys},
        {"min", "elementwise", "min(a, b) with numpy broadcasting", keys},
        {"prelu", "elementwise", "a < 0 ? a b : a with numpy broadcasting (b: the slope)", keys},
    };
}

std::vector<OpInfo> bias_add_entries() {
    return {
        {"bias_add", "elementwise", "x + bias[shape[axis]]",
         {shape_key(), {"axis", "1", "axis the bias runs along (negative counts from the end)"}}},
    };
}

std::vector<OpInfo> softmax_entries() {
    return {
        {"softmax", "softmax", "numerically stable softmax",
         {shape_key(), {"axis", "-1", "softmax axis (negative counts from the end)"}}},
        {"log_softmax", "softmax", "log of softmax without its rounding: x - max - log(sum(exp(x - max)))",
         {shape_key(), {"axis", "-1", "softmax axis (negative counts from the end)"}}},
    };
}

std::vector<OpInfo> norm_entries() {
    return {
        {"layer_norm", "norm", "normalise over the last axis, then * gamma + beta",
         {shape_key(), {"epsilon", "1e-5", "variance epsilon"}}},
        {"batch_norm", "norm", "inference batch norm: (x - mean) / sqrt(var + eps) * scale + bias",
         {shape_key(), {"axis", "1", "channel axis"}, {"epsilon", "1e-5", "variance epsilon"}}},
    };
}

std::vector<OpInfo> transpose_entries() {
    return {
        {"transpose", "layout", "permute axes: out.shape[i] = in.shape[perm[i]]",
         {shape_key(), {"perm", "", "comma-separated permutation, e.g. 0,2,1"}}},
    };
}

std::vector<OpInfo> pad_entries() {
    return {
        {"pad", "layout", "constant padding",
         {shape_key(),
          {"pads", "", "befores then afters per axis, e.g. 0,1,1,0,1,1"},
          {"value", "0", "padding value"}}},
    };
}

std::vector<OpInfo> pack_entries() {
    return {
        {"pack_panels", "layout",
         "split an axis into blocks, the position within a block innermost (zero-padded): weight panels, NCHW[x]c",
         {shape_key(),
          {"axis", "0", "the axis split into blocks"},
          {"block", "16", "block size, a multiple of 8"},
          {"front", "0", "the blocks' axis goes first (B[K,N] axis 1 -> [N/b][K][b])"}}},
        {"unpack_panels", "layout",
         "pack_panels' inverse: blocks of an axis back into it, padding dropped (NCHW[x]c -> NCHW); shape is the "
         "unpacked shape",
         {shape_key(), {"axis", "0", "the axis split into blocks"}, {"block", "16", "block size, a multiple of 8"}}},
    };
}

// The chains (family "chain"): Chimera's compute-intensive operator chains as one
// op each, so the whole chain is one pipeline.

std::vector<OpInfo> attention_entries() {
    return {
        {"attention", "chain",
         "softmax over L of (scale * q k^T (+ mask)) times v: q[B,M,K], k[B,L,K], v[B,L,N] (mask[B,M,L]) -> [B,M,N]",
         {{"B", "1", "batch (heads)"},
          {"M", "", "query rows"},
          {"N", "", "columns of v and of the output"},
          {"K", "", "reduction extent of the scores (head size)"},
          {"L", "", "key rows: the softmax axis and the second reduction"},
          {"mask", "0", "add a mask[B,M,L] input to the scaled scores (0/1)"},
          {"scale", "1/sqrt(K)", "factor of the scores"},
          {"key_block", "0",
           "0: softmax over whole rows; > 0: online-softmax form, keys in blocks of this many, each row's "
           "max and sum carried from block to block"}}},
    };
}

std::vector<OpInfo> gemm_chain_entries() {
    return {
        {"gemm_chain", "chain", "C[B,M,N] = f(A[B,M,K] * B1[B,K,L]) * B2[B,L,N], f per 'between'",
         {{"B", "1", "batch"},
          {"M", "", "rows of A and C"},
          {"N", "", "columns of B2 and C"},
          {"K", "", "reduction extent of the first product"},
          {"L", "", "columns of the first product, reduction extent of the second"},
          {"between", "none", "none, relu, gelu (tanh approximation) or scale"},
          {"scale", "1/sqrt(K)", "factor of between=scale"}}},
    };
}

std::vector<OpInfo> conv_chain_entries() {
    return {
        {"conv_chain", "chain",
         "relu(conv(x, w1) + b1), then conv(., w2) + b2; weights OIHW (nchw) or HWIO (nhwc) as conv2d",
         {{"n", "1", "batch"},
          {"c", "", "input channels"},
          {"h", "", "input height"},
          {"w", "", "input width"},
          {"oc1", "", "output channels of the first convolution"},
          {"oc2", "", "output channels of the second convolution"},
          {"kh1", "", "first kernel height"},
          {"kw1", "", "first kernel width"},
          {"kh2", "", "second kernel height"},
          {"kw2", "", "second kernel width"},
          {"stride1", "1", "first stride (both axes)"},
          {"stride2", "1", "second stride (both axes)"},
          {"pad1", "0", "first zero padding on every side"},
          {"pad2", "0", "second zero padding on every side"},
          {"layout", "nchw", "nchw or nhwc"}}},
    };
}

}  // namespace tessera::ops
