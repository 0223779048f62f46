#include "op_params.h"

#include "op_catalog.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tessera::ops {

namespace {

int64_t positive(const OpConfig &config, const std::string &key, int64_t fallback = 0) {
    int64_t v = fallback > 0 ? config.get_int(key, fallback) : config.get_int(key);
    if (v <= 0) {
        throw OpError(config.op + ": key '" + key + "' must be positive, got " + std::to_string(v));
    }
    return v;
}

int64_t non_negative(const OpConfig &config, const std::string &key) {
    int64_t v = config.get_int(key, 0);
    if (v < 0) {
        throw OpError(config.op + ": key '" + key + "' must not be negative, got " + std::to_string(v));
    }
    return v;
}

// An image op's layout key: nchw, nhwc or (blocked ops) nchwc, the channel-blocked
// NCHW[x]c whose block is the key 'block' (8 or 16) and divides every channel count.
struct ImageLayout {
    bool nhwc = false, blocked = false;
    int64_t block = 16;
};

ImageLayout parse_image_layout(const OpConfig &config, const std::vector<int64_t> &channel_counts) {
    const std::string layout = config.get_string("layout", "nchw");
    ImageLayout l;
    if (layout != "nchwc") {
        if (layout != "nchw" && layout != "nhwc") {
            throw OpError(config.op + ": key 'layout' must be nchw, nhwc or nchwc, got '" + layout + "'");
        }
        l.nhwc = layout == "nhwc";
        return l;
    }
    l.blocked = true;
    l.block = config.get_int("block", 16);
    if (l.block != 8 && l.block != 16) {
        throw OpError(config.op + ": layout=nchwc needs block 8 or 16 (a vector of AVX2 or AVX-512), got " +
                      std::to_string(l.block));
    }
    for (int64_t c : channel_counts) {
        if (c % l.block != 0) {
            throw OpError(config.op + ": layout=nchwc needs channel counts divisible by block=" +
                          std::to_string(l.block) + ", got " + std::to_string(c));
        }
    }
    return l;
}

bool parse_layout(const OpConfig &config) {
    std::string layout = config.get_string("layout", "nchw");
    if (layout != "nchw" && layout != "nhwc") {
        throw OpError(config.op + ": key 'layout' must be nchw or nhwc, got '" + layout + "'");
    }
    return layout == "nhwc";
}

// Resolves a possibly negative axis against `rank`.
int parse_axis(const OpConfig &config, const std::string &key, int64_t fallback, size_t rank) {
    int64_t axis = config.get_int(key, fallback);
    int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
        throw OpError(config.op + ": key '" + key + "' = " + std::to_string(axis) + " is out of range for rank " +
                      std::to_string(r));
    }
    return static_cast<int>(axis < 0 ? axis + r : axis);
}

// A panel width: a positive multiple of 8, the narrowest x86 vector the targets
// have (AVX2's 8 floats), so a panel is whole vectors.
int64_t parse_block(const OpConfig &config, int64_t fallback) {
    const int64_t block = config.get_int("block", fallback);
    if (block <= 0 || block % 8 != 0) {
        throw OpError(config.op + ": key 'block' must be a positive multiple of 8, got " + std::to_string(block));
    }
    return block;
}

}  // namespace

int64_t panel_count(int64_t extent, int64_t block) {
    return (extent + block - 1) / block;
}

int64_t window_output_extent(const std::string &what, int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             int64_t dilation) {
    int64_t span = 0, padded = 0;
    // Checked: huge keys overflowed int64 here (tests/fuzz).
    if (__builtin_mul_overflow(dilation, kernel - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_mul_overflow(pad, 2, &padded) || __builtin_add_overflow(in, padded, &padded)) {
        throw OpError(what + ": window (kernel " + std::to_string(kernel) + ", dilation " + std::to_string(dilation) +
                      ") or padded input (" + std::to_string(in) + " + 2 x pad " + std::to_string(pad) +
                      ") too large");
    }
    if (span > padded) {
        throw OpError(what + ": window of " + std::to_string(span) + " is larger than the padded input of " +
                      std::to_string(padded));
    }
    return (padded - span) / stride + 1;
}

MatmulParams batched_product(int64_t batch, int64_t m, int64_t n, int64_t k, bool trans_b) {
    MatmulParams p;
    p.batched = true;
    p.batch = batch;
    p.m = m;
    p.n = n;
    p.k = k;
    p.trans_b = trans_b;
    return p;
}

MatmulParams parse_matmul(const OpConfig &config) {
    check_keys(config);
    MatmulParams p;
    p.batched = config.op == "batch_matmul";
    p.batch = p.batched ? positive(config, "B") : 1;
    p.m = positive(config, "M");
    p.n = positive(config, "N");
    p.k = positive(config, "K");
    p.trans_a = config.get_bool("trans_a", false);
    p.trans_b = config.get_bool("trans_b", false);
    p.bias = config.get_bool("bias", false);
    p.packed = !p.batched && config.get_bool("packed", false);
    if (p.packed) {
        // Panels of 4 AVX-512 vectors: the register tile then takes rows of A
        // against the panel (16-wide panels got tiles across 8 panels, one load
        // per FMA: 512^3 5.7 ms against 2.5 at 64, the plain matmul 2.4; Zen 4).
        p.block = parse_block(config, 64);
        if (p.trans_b) throw OpError("matmul: packed B is [N/block][K][block]; 'trans_b' does not apply to it");
    }
    return p;
}

ConvParams parse_conv(const OpConfig &config) {
    check_keys(config);
    ConvParams p;
    p.depthwise = config.op == "depthwise_conv2d";
    p.n = positive(config, "n", 1);
    p.c = positive(config, "c");
    p.h = positive(config, "h");
    p.w = positive(config, "w");
    p.oc = p.depthwise ? p.c : positive(config, "oc");
    p.kh = positive(config, "kh");
    p.kw = positive(config, "kw");
    p.stride = positive(config, "stride", 1);
    p.pad = non_negative(config, "pad");
    p.dilation = positive(config, "dilation", 1);
    p.groups = p.depthwise ? p.c : positive(config, "groups", 1);
    if (p.c % p.groups != 0) {
        throw OpError(config.op + ": channels c=" + std::to_string(p.c) + " not divisible by groups=" +
                      std::to_string(p.groups));
    }
    if (p.oc % p.groups != 0) {
        throw OpError(config.op + ": output channels oc=" + std::to_string(p.oc) + " not divisible by groups=" +
                      std::to_string(p.groups));
    }
    p.oh = window_output_extent(config.op + " (kh, h)", p.h, p.kh, p.stride, p.pad, p.dilation);
    p.ow = window_output_extent(config.op + " (kw, w)", p.w, p.kw, p.stride, p.pad, p.dilation);
    const ImageLayout layout = parse_image_layout(config, {p.c, p.oc});
    p.nhwc = layout.nhwc;
    p.blocked = layout.blocked;
    const std::string sums = config.get_string("sums", "blocked");
    if (sums != "blocked" && sums != "planar") {
        throw OpError("conv2d: sums must be blocked or planar, got '" + sums + "'");
    }
    if (sums == "planar" && (p.blocked || !config.get_bool("packed", false))) {
        throw OpError("conv2d: sums=planar applies to packed weights (packed=1, layout=nchw) only");
    }
    p.planar_sums = sums == "planar";
    if (p.blocked) {
        p.block = layout.block;
        if (!p.depthwise && p.groups != 1 && (p.c / p.groups != p.block || p.oc / p.groups != p.block)) {
            throw OpError("conv2d: layout=nchwc takes groups of one block (c/groups = oc/groups = block=" +
                          std::to_string(p.block) + "), groups=1 or depthwise_conv2d; got c=" + std::to_string(p.c) +
                          " oc=" + std::to_string(p.oc) + " groups=" + std::to_string(p.groups));
        }
        // conv2d's weights are the panels of the same block.
        p.packed = !p.depthwise;
        if (config.has("packed") && !config.get_bool("packed", true)) {
            throw OpError("conv2d: layout=nchwc reads packed weights; 'packed=0' does not apply to it");
        }
        return p;
    }
    p.packed = !p.depthwise && config.get_bool("packed", false);
    if (p.packed) {
        // One AVX-512 vector of output channels against rows of pixels: 32 ran
        // 5-7% slower on the ResNet 3x3 layers (Zen 4, one thread).
        p.block = parse_block(config, 16);
        if (p.nhwc || p.groups != 1) {
            throw OpError("conv2d: packed weights need layout=nchw and groups=1, got layout=" +
                          config.get_string("layout", "nchw") + " groups=" + std::to_string(p.groups));
        }
    }
    return p;
}

PoolParams parse_pool(const OpConfig &config) {
    check_keys(config);
    PoolParams p;
    p.kind = config.op == "max_pool2d" ? PoolKind::Max
             : config.op == "avg_pool2d" ? PoolKind::Avg
                                         : PoolKind::GlobalAvg;
    p.n = positive(config, "n", 1);
    p.c = positive(config, "c");
    const ImageLayout layout = parse_image_layout(config, {p.c});
    p.nhwc = layout.nhwc;
    p.blocked = layout.blocked;
    p.block = layout.block;
    p.h = positive(config, "h");
    p.w = positive(config, "w");
    if (p.kind == PoolKind::GlobalAvg) {
        p.kh = p.h;
        p.kw = p.w;
        p.oh = p.ow = 1;
        return p;
    }
    p.kh = positive(config, "kh");
    p.kw = positive(config, "kw");
    p.stride = positive(config, "stride", 1);
    p.pad = non_negative(config, "pad");
    if (p.pad >= p.kh || p.pad >= p.kw) {
        // Otherwise a window could lie entirely in the padding.
        throw OpError(config.op + ": pad=" + std::to_string(p.pad) + " must be smaller than the window (kh, kw)");
    }
    p.count_include_pad = config.get_bool("count_include_pad", false);
    p.ceil_mode = config.get_bool("ceil_mode", false);
    p.oh = window_output_extent(config.op + " (kh, h)", p.h, p.kh, p.stride, p.pad, 1);
    p.ow = window_output_extent(config.op + " (kw, w)", p.w, p.kw, p.stride, p.pad, 1);
    if (p.ceil_mode) {
        // One more window where the floor rule leaves input over, if it starts inside
        // the input or its leading padding.
        auto rounded_up = [&](int64_t floor_out, int64_t in, int64_t kernel) {
            const int64_t out = (in + 2 * p.pad - kernel + p.stride - 1) / p.stride + 1;
            return out > floor_out && (out - 1) * p.stride < in + p.pad ? out : floor_out;
        };
        p.oh = rounded_up(p.oh, p.h, p.kh);
        p.ow = rounded_up(p.ow, p.w, p.kw);
    }
    return p;
}

ReduceKind reduce_kind(const std::string &op) {
    static const std::map<std::string, ReduceKind> kinds = {
        {"reduce_sum", ReduceKind::Sum},         {"reduce_mean", ReduceKind::Mean},
        {"reduce_max", ReduceKind::Max},         {"reduce_min", ReduceKind::Min},
        {"reduce_prod", ReduceKind::Prod},       {"reduce_l1", ReduceKind::L1},
        {"reduce_l2", ReduceKind::L2},           {"reduce_log_sum", ReduceKind::LogSum},
        {"reduce_log_sum_exp", ReduceKind::LogSumExp}, {"reduce_sum_square", ReduceKind::SumSquare},
    };
    auto it = kinds.find(op);
    if (it == kinds.end()) throw OpError("'" + op + "' is not a reduction");
    return it->second;
}

ReduceParams parse_reduce(const OpConfig &config) {
    check_keys(config);
    ReduceParams p;
    p.kind = reduce_kind(config.op);
    p.shape = config.get_shape("shape");
    int64_t rank = static_cast<int64_t>(p.shape.size());
    for (int64_t a : config.get_int_list("axes")) {
        if (a < -rank || a >= rank) {
            throw OpError(config.op + ": axis " + std::to_string(a) + " in 'axes' is out of range for rank " +
                          std::to_string(rank));
        }
        int axis = static_cast<int>(a < 0 ? a + rank : a);
        if (std::find(p.axes.begin(), p.axes.end(), axis) != p.axes.end()) {
            throw OpError(config.op + ": axis " + std::to_string(axis) + " repeated in 'axes'");
        }
        p.axes.push_back(axis);
    }
    std::sort(p.axes.begin(), p.axes.end());
    for (int i = 0; i < rank; i++) {
        if (std::find(p.axes.begin(), p.axes.end(), i) == p.axes.end()) p.out_shape.push_back(p.shape[i]);
    }
    if (p.out_shape.empty()) p.out_shape = {1};
    return p;
}

UnaryParams parse_unary(const OpConfig &config) {
    check_keys(config);
    UnaryParams p;
    const std::string &op = config.op;
    static const std::map<std::string, UnaryKind> kinds = {
        {"relu", UnaryKind::Relu}, {"gelu", UnaryKind::Gelu},   {"gelu_erf", UnaryKind::GeluErf},
        {"sigmoid", UnaryKind::Sigmoid}, {"tanh", UnaryKind::Tanh}, {"exp", UnaryKind::Exp},
        {"sqrt", UnaryKind::Sqrt}, {"erf", UnaryKind::Erf},     {"neg", UnaryKind::Neg},
        {"reciprocal", UnaryKind::Reciprocal}, {"clip", UnaryKind::Clip},
        {"hard_sigmoid", UnaryKind::HardSigmoid}, {"hard_swish", UnaryKind::HardSwish},
        {"leaky_relu", UnaryKind::LeakyRelu}, {"elu", UnaryKind::Elu}, {"selu", UnaryKind::Selu},
        {"softplus", UnaryKind::Softplus}, {"abs", UnaryKind::Abs}, {"log", UnaryKind::Log},
        {"softsign", UnaryKind::Softsign}, {"mish", UnaryKind::Mish}, {"sin", UnaryKind::Sin},
        {"cos", UnaryKind::Cos}, {"floor", UnaryKind::Floor}, {"ceil", UnaryKind::Ceil},
        {"round", UnaryKind::Round}, {"sign", UnaryKind::Sign}, {"tan", UnaryKind::Tan},
        {"asin", UnaryKind::Asin}, {"acos", UnaryKind::Acos}, {"atan", UnaryKind::Atan},
        {"sinh", UnaryKind::Sinh}, {"cosh", UnaryKind::Cosh}, {"asinh", UnaryKind::Asinh},
        {"acosh", UnaryKind::Acosh}, {"atanh", UnaryKind::Atanh}, {"thresholded_relu", UnaryKind::ThresholdedRelu},
        {"shrink", UnaryKind::Shrink}, {"celu", UnaryKind::Celu}};
    auto it = kinds.find(op);
    if (it == kinds.end()) throw OpError(op + " is not a unary elementwise op");
    p.kind = it->second;
    p.shape = config.get_shape("shape");
    if (p.kind == UnaryKind::Clip) {
        p.lo = config.get_float("min", -INFINITY);
        p.hi = config.get_float("max", INFINITY);
        if (std::isnan(p.lo) || std::isnan(p.hi) || p.lo > p.hi) {
            throw OpError("clip: 'min' must not exceed 'max' (got " + std::to_string(p.lo) + " > " +
                          std::to_string(p.hi) + ")");
        }
    }
    // The ONNX operators' defaults.
    if (p.kind == UnaryKind::HardSigmoid) {
        p.alpha = config.get_float("alpha", 0.2);
        p.beta = config.get_float("beta", 0.5);
    }
    if (p.kind == UnaryKind::LeakyRelu) p.alpha = config.get_float("alpha", 0.01);
    if (p.kind == UnaryKind::Elu || p.kind == UnaryKind::ThresholdedRelu || p.kind == UnaryKind::Celu)
        p.alpha = config.get_float("alpha", 1.0);
    if (p.kind == UnaryKind::Shrink) {
        p.alpha = config.get_float("lambd", 0.5);
        p.beta = config.get_float("bias", 0.0);
    }
    if (p.kind == UnaryKind::Celu && p.alpha == 0) throw OpError("celu: alpha must not be 0");
    if (p.kind == UnaryKind::Selu) {
        p.alpha = config.get_float("alpha", 1.67326319217681884765625);
        p.gamma = config.get_float("gamma", 1.05070102214813232421875);
    }
    for (double v : {p.alpha, p.beta, p.gamma}) {
        if (!std::isfinite(v)) throw OpError(op + ": its parameters must be finite");
    }
    return p;
}

BinaryParams parse_binary(const OpConfig &config) {
    check_keys(config);
    BinaryParams p;
    static const std::map<std::string, BinaryKind> kinds = {
        {"add", BinaryKind::Add}, {"sub", BinaryKind::Sub}, {"mul", BinaryKind::Mul}, {"div", BinaryKind::Div},
        {"pow", BinaryKind::Pow}, {"max", BinaryKind::Max}, {"min", BinaryKind::Min}, {"prelu", BinaryKind::Prelu}};
    auto it = kinds.find(config.op);
    if (it == kinds.end()) throw OpError(config.op + " is not a binary elementwise op");
    p.kind = it->second;
    p.shape_a = config.get_shape("shape_a");
    p.shape_b = config.get_shape("shape_b");
    // numpy broadcasting: align trailing axes; extents must match or be 1.
    size_t rank = std::max(p.shape_a.size(), p.shape_b.size());
    p.out_shape.assign(rank, 1);
    for (size_t i = 0; i < rank; i++) {
        int64_t ea = i < rank - p.shape_a.size() ? 1 : p.shape_a[i - (rank - p.shape_a.size())];
        int64_t eb = i < rank - p.shape_b.size() ? 1 : p.shape_b[i - (rank - p.shape_b.size())];
        if (ea != eb && ea != 1 && eb != 1) {
            throw OpError(config.op + ": shapes shape_a=" + shape_to_string(p.shape_a) + " and shape_b=" +
                          shape_to_string(p.shape_b) + " do not broadcast");
        }
        p.out_shape[i] = std::max(ea, eb);
    }
    return p;
}

BiasAddParams parse_bias_add(const OpConfig &config) {
    check_keys(config);
    BiasAddParams p;
    p.shape = config.get_shape("shape");
    p.axis = parse_axis(config, "axis", 1 < p.shape.size() ? 1 : 0, p.shape.size());
    return p;
}

SoftmaxParams parse_softmax(const OpConfig &config) {
    check_keys(config);
    SoftmaxParams p;
    p.log = config.op == "log_softmax";
    p.shape = config.get_shape("shape");
    p.axis = parse_axis(config, "axis", -1, p.shape.size());
    return p;
}

NormParams parse_norm(const OpConfig &config) {
    check_keys(config);
    NormParams p;
    p.batch_norm = config.op == "batch_norm";
    p.shape = config.get_shape("shape");
    if (p.shape.empty()) {
        // An empty value is a rank-0 shape: no axis to normalise (tests/fuzz).
        throw OpError(config.op + ": key 'shape' needs at least one axis, e.g. shape=8x768");
    }
    p.axis = p.batch_norm ? parse_axis(config, "axis", 1 < p.shape.size() ? 1 : 0, p.shape.size())
                          : static_cast<int>(p.shape.size()) - 1;
    p.epsilon = config.get_float("epsilon", 1e-5);
    if (!(p.epsilon > 0)) {
        throw OpError(config.op + ": key 'epsilon' must be positive");
    }
    return p;
}

TransposeParams parse_transpose(const OpConfig &config) {
    check_keys(config);
    TransposeParams p;
    p.shape = config.get_shape("shape");
    std::vector<int64_t> perm = config.get_int_list("perm");
    if (perm.size() != p.shape.size()) {
        throw OpError("transpose: 'perm' has " + std::to_string(perm.size()) + " entries but the shape has rank " +
                      std::to_string(p.shape.size()));
    }
    std::vector<bool> seen(perm.size(), false);
    for (int64_t a : perm) {
        if (a < 0 || a >= static_cast<int64_t>(perm.size()) || seen[a]) {
            throw OpError("transpose: 'perm' = " + config.value("perm") + " is not a permutation of 0.." +
                          std::to_string(perm.size() - 1));
        }
        seen[a] = true;
        p.perm.push_back(static_cast<int>(a));
        p.out_shape.push_back(p.shape[a]);
    }
    return p;
}

PadParams parse_pad(const OpConfig &config) {
    check_keys(config);
    PadParams p;
    p.shape = config.get_shape("shape");
    std::vector<int64_t> pads = config.get_int_list("pads");
    size_t rank = p.shape.size();
    if (pads.size() != 2 * rank) {
        throw OpError("pad: 'pads' needs " + std::to_string(2 * rank) + " entries (befores then afters) for rank " +
                      std::to_string(rank) + ", got " + std::to_string(pads.size()));
    }
    for (size_t i = 0; i < rank; i++) {
        if (pads[i] < 0 || pads[rank + i] < 0) {
            throw OpError("pad: negative entry in 'pads' = " + config.value("pads") + " (cropping is not supported)");
        }
        p.before.push_back(pads[i]);
        p.after.push_back(pads[rank + i]);
        int64_t extent = 0;
        // Checked: huge pads overflowed int64 here (tests/fuzz).
        if (__builtin_add_overflow(p.shape[i], pads[i], &extent) ||
            __builtin_add_overflow(extent, pads[rank + i], &extent)) {
            throw OpError("pad: axis " + std::to_string(i) + " padded by 'pads' = " + config.value("pads") +
                          " is too large");
        }
        p.out_shape.push_back(extent);
    }
    p.value = config.get_float("value", 0.0);
    return p;
}

PackParams parse_pack(const OpConfig &config) {
    check_keys(config);
    PackParams p;
    p.unpack = config.op == "unpack_panels";
    p.shape = config.get_shape("shape");
    p.axis = parse_axis(config, "axis", 0, p.shape.size());
    p.block = parse_block(config, 16);
    p.front = !p.unpack && config.get_bool("front", false);
    Shape outer = p.shape;
    outer[size_t(p.axis)] = panel_count(p.shape[size_t(p.axis)], p.block);
    if (p.front) std::rotate(outer.begin(), outer.begin() + p.axis, outer.begin() + p.axis + 1);
    p.out_shape = outer;
    p.out_shape.push_back(p.block);
    return p;
}

namespace {

// The scale of an attention's scores or of gemm_chain's between=scale: default 1/sqrt(K).
double parse_scale(const OpConfig &config, int64_t k) {
    double scale = config.get_float("scale", 1.0 / std::sqrt(double(k)));
    if (!std::isfinite(scale)) throw OpError(config.op + ": key 'scale' must be finite");
    return scale;
}

// The extents of two batched GEMMs in a row (attention, gemm_chain): B (default 1), M, N, K, L.
template <typename Params>
Params two_gemm_extents(const OpConfig &config) {
    check_keys(config);
    Params p;
    p.batch = positive(config, "B", 1);
    p.m = positive(config, "M");
    p.n = positive(config, "N");
    p.k = positive(config, "K");
    p.l = positive(config, "L");
    return p;
}

}  // namespace

AttentionParams parse_attention(const OpConfig &config) {
    AttentionParams p = two_gemm_extents<AttentionParams>(config);
    p.mask = config.get_bool("mask", false);
    p.scale = parse_scale(config, p.k);
    p.key_block = std::min(non_negative(config, "key_block"), p.l);  // beyond L: one block, the same sums
    return p;
}

GemmChainParams parse_gemm_chain(const OpConfig &config) {
    GemmChainParams p = two_gemm_extents<GemmChainParams>(config);
    static const std::map<std::string, ChainBetween> kinds = {{"none", ChainBetween::None},
                                                              {"relu", ChainBetween::Relu},
                                                              {"gelu", ChainBetween::Gelu},
                                                              {"scale", ChainBetween::Scale}};
    const std::string between = config.get_string("between", "none");
    auto it = kinds.find(between);
    if (it == kinds.end()) {
        throw OpError(config.op + ": key 'between' must be none, relu, gelu or scale, got '" + between + "'");
    }
    p.between = it->second;
    if (config.has("scale") && p.between != ChainBetween::Scale) {
        throw OpError(config.op + ": key 'scale' needs between=scale");
    }
    if (p.between == ChainBetween::Scale) p.scale = parse_scale(config, p.k);
    return p;
}

namespace {

// One convolution of a chain: no groups, no dilation.
ConvParams chain_conv(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t kh, int64_t kw,
                      int64_t stride, int64_t pad, int64_t oh, int64_t ow) {
    ConvParams p;
    p.nhwc = nhwc;
    p.n = n, p.c = c, p.h = h, p.w = w, p.oc = oc, p.kh = kh, p.kw = kw;
    p.stride = stride, p.pad = pad;
    p.oh = oh, p.ow = ow;
    return p;
}

}  // namespace

ConvParams ConvChainParams::first() const {
    return chain_conv(nhwc, n, c, h, w, oc1, kh1, kw1, stride1, pad1, h1, w1);
}

ConvParams ConvChainParams::second() const {
    return chain_conv(nhwc, n, oc1, h1, w1, oc2, kh2, kw2, stride2, pad2, oh, ow);
}

ConvChainParams parse_conv_chain(const OpConfig &config) {
    check_keys(config);
    ConvChainParams p;
    p.nhwc = parse_layout(config);
    p.n = positive(config, "n", 1);
    p.c = positive(config, "c");
    p.h = positive(config, "h");
    p.w = positive(config, "w");
    p.oc1 = positive(config, "oc1");
    p.oc2 = positive(config, "oc2");
    p.kh1 = positive(config, "kh1");
    p.kw1 = positive(config, "kw1");
    p.kh2 = positive(config, "kh2");
    p.kw2 = positive(config, "kw2");
    p.stride1 = positive(config, "stride1", 1);
    p.stride2 = positive(config, "stride2", 1);
    p.pad1 = non_negative(config, "pad1");
    p.pad2 = non_negative(config, "pad2");
    p.h1 = window_output_extent(config.op + " (kh1, h)", p.h, p.kh1, p.stride1, p.pad1, 1);
    p.w1 = window_output_extent(config.op + " (kw1, w)", p.w, p.kw1, p.stride1, p.pad1, 1);
    p.oh = window_output_extent(config.op + " (kh2, the first convolution's output height)", p.h1, p.kh2, p.stride2,
                                p.pad2, 1);
    p.ow = window_output_extent(config.op + " (kw2, the first convolution's output width)", p.w1, p.kw2, p.stride2,
                                p.pad2, 1);
    return p;
}

}  // namespace tessera::ops
