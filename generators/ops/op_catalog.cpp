#include "op_catalog.h"

#include "op_params.h"

#include <algorithm>
#include <sstream>

namespace tessera::ops {

namespace {

const std::vector<KeyInfo> conv_keys(bool depthwise) {
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
    keys.push_back({"layout", "nchw", "nchw or nhwc"});
    return keys;
}

const std::vector<KeyInfo> pool_keys(bool avg) {
    std::vector<KeyInfo> keys = {
        {"n", "1", "batch"},           {"c", "", "channels"},        {"h", "", "input height"},
        {"w", "", "input width"},      {"kh", "", "window height"},  {"kw", "", "window width"},
        {"stride", "1", "stride"},     {"pad", "0", "padding on every side"},
        {"layout", "nchw", "nchw or nhwc"},
    };
    if (avg) keys.push_back({"count_include_pad", "0", "divide by the full window at borders (0/1)"});
    return keys;
}

std::vector<OpInfo> make_catalog() {
    const KeyInfo shape{"shape", "", "tensor shape, e.g. 8x128x768"};
    const std::vector<KeyInfo> binary_keys = {{"shape_a", "", "shape of a"}, {"shape_b", "", "shape of b"}};
    std::vector<OpInfo> ops = {
        {"matmul", "matmul", "C[M,N] = A[M,K] * B[K,N] (+ bias[N])",
         {{"M", "", "rows of A and C"},
          {"N", "", "columns of B and C"},
          {"K", "", "reduction extent"},
          {"trans_a", "0", "A stored as [K,M]"},
          {"trans_b", "0", "B stored as [N,K]"},
          {"bias", "0", "add a bias[N] input"}}},
        {"batch_matmul", "matmul", "C[B,M,N] = A[B,M,K] * B[B,K,N]",
         {{"B", "", "batch"}, {"M", "", "rows"}, {"N", "", "columns"}, {"K", "", "reduction extent"}}},
        {"conv2d", "conv", "2-D convolution (cross-correlation), weights OIHW (nchw) or HWIO (nhwc)",
         conv_keys(false)},
        {"depthwise_conv2d", "conv", "depthwise 2-D convolution, weights [c,kh,kw] (nchw) or [kh,kw,c] (nhwc)",
         conv_keys(true)},
        {"avg_pool2d", "pool", "average pooling", pool_keys(true)},
        {"max_pool2d", "pool", "max pooling (padding never wins)", pool_keys(false)},
        {"global_avg_pool", "pool", "mean over h and w -> [n,c]",
         {{"n", "1", "batch"}, {"c", "", "channels"}, {"h", "", "height"}, {"w", "", "width"},
          {"layout", "nchw", "nchw or nhwc"}}},
        {"reduce_sum", "reduce", "sum over axes (dropped from the output)",
         {shape, {"axes", "", "comma-separated axes, e.g. 1,2"}}},
        {"reduce_mean", "reduce", "mean over axes (dropped from the output)",
         {shape, {"axes", "", "comma-separated axes, e.g. 1,2"}}},
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
        {"add", "elementwise", "a + b with numpy broadcasting", binary_keys},
        {"sub", "elementwise", "a - b with numpy broadcasting", binary_keys},
        {"mul", "elementwise", "a * b with numpy broadcasting", binary_keys},
        {"div", "elementwise", "a / b with numpy broadcasting", binary_keys},
        {"pow", "elementwise", "a ^ b with numpy broadcasting (a > 0)", binary_keys},
        {"max", "elementwise", "max(a, b) with numpy broadcasting", binary_keys},
        {"min", "elementwise", "min(a, b) with numpy broadcasting", binary_keys},
        {"bias_add", "elementwise", "x + bias[shape[axis]]",
         {shape, {"axis", "1", "axis the bias runs along (negative counts from the end)"}}},
        {"softmax", "softmax", "numerically stable softmax",
         {shape, {"axis", "-1", "softmax axis (negative counts from the end)"}}},
        {"layer_norm", "norm", "normalise over the last axis, then * gamma + beta",
         {shape, {"epsilon", "1e-5", "variance epsilon"}}},
        {"batch_norm", "norm", "inference batch norm: (x - mean) / sqrt(var + eps) * scale + bias",
         {shape, {"axis", "1", "channel axis"}, {"epsilon", "1e-5", "variance epsilon"}}},
        {"transpose", "layout", "permute axes: out.shape[i] = in.shape[perm[i]]",
         {shape, {"perm", "", "comma-separated permutation, e.g. 0,2,1"}}},
        {"pad", "layout", "constant padding",
         {shape,
          {"pads", "", "befores then afters per axis, e.g. 0,1,1,0,1,1"},
          {"value", "0", "padding value"}}},
    };
    return ops;
}

Shape matmul_shape(int64_t batch, bool batched, int64_t rows, int64_t cols) {
    return batched ? Shape{batch, rows, cols} : Shape{rows, cols};
}

Shape image_shape(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
    return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
}

void finish(OpSignature &sig) {
    double elems = num_elements(sig.output.shape);
    for (const TensorSpec &t : sig.inputs) elems += num_elements(t.shape);
    sig.bytes = 4.0 * elems;
}

}  // namespace

const std::vector<OpInfo> &op_catalog() {
    static const std::vector<OpInfo> catalog = make_catalog();
    return catalog;
}

const std::vector<std::string> &op_families() {
    static const std::vector<std::string> families = [] {
        std::vector<std::string> f;
        for (const OpInfo &op : op_catalog()) {
            if (std::find(f.begin(), f.end(), op.family) == f.end()) f.push_back(op.family);
        }
        return f;
    }();
    return families;
}

const OpInfo &find_op(const std::string &name) {
    for (const OpInfo &op : op_catalog()) {
        if (op.name == name) return op;
    }
    std::string known;
    for (const OpInfo &op : op_catalog()) known += " " + op.name;
    throw OpError("unknown op '" + name + "' (known:" + known + ")");
}

void check_keys(const OpConfig &config) {
    const OpInfo &info = find_op(config.op);
    for (const auto &kv : config.attrs) {
        bool known = std::any_of(info.keys.begin(), info.keys.end(),
                                 [&](const KeyInfo &k) { return k.name == kv.first; });
        if (!known) {
            std::string keys;
            for (const KeyInfo &k : info.keys) keys += " " + k.name;
            throw OpError(config.op + ": unknown key '" + kv.first + "' (keys:" + keys + ")");
        }
    }
    for (const KeyInfo &k : info.keys) {
        if (k.default_value.empty() && !config.has(k.name)) {
            throw OpError(config.op + ": missing key '" + k.name + "' (" + k.doc + ")");
        }
    }
}

OpSignature describe_op(const OpConfig &config) {
    const OpInfo &info = find_op(config.op);
    OpSignature sig;
    if (info.family == "matmul") {
        MatmulParams p = parse_matmul(config);
        sig.inputs.push_back({"a", matmul_shape(p.batch, p.batched, p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k)});
        sig.inputs.push_back({"b", matmul_shape(p.batch, p.batched, p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n)});
        if (p.bias) sig.inputs.push_back({"bias", {p.n}});
        sig.output = {"output", matmul_shape(p.batch, p.batched, p.m, p.n)};
        sig.flops = 2.0 * p.batch * p.m * p.n * p.k;
        sig.compute_bound = true;
    } else if (info.family == "conv") {
        ConvParams p = parse_conv(config);
        sig.inputs.push_back({"input", image_shape(p.nhwc, p.n, p.c, p.h, p.w)});
        if (p.depthwise) {
            sig.inputs.push_back({"weights", p.nhwc ? Shape{p.kh, p.kw, p.c} : Shape{p.c, p.kh, p.kw}});
        } else {
            int64_t cg = p.c / p.groups;
            sig.inputs.push_back({"weights", p.nhwc ? Shape{p.kh, p.kw, cg, p.oc} : Shape{p.oc, cg, p.kh, p.kw}});
        }
        sig.output = {"output", image_shape(p.nhwc, p.n, p.oc, p.oh, p.ow)};
        sig.flops = 2.0 * p.n * p.oc * p.oh * p.ow * (p.c / p.groups) * p.kh * p.kw;
        sig.compute_bound = !p.depthwise;
    } else if (info.family == "pool") {
        PoolParams p = parse_pool(config);
        sig.inputs.push_back({"input", image_shape(p.nhwc, p.n, p.c, p.h, p.w)});
        if (p.kind == PoolKind::GlobalAvg) {
            sig.output = {"output", {p.n, p.c}};
            sig.flops = double(p.n) * p.c * p.h * p.w;
        } else {
            sig.output = {"output", image_shape(p.nhwc, p.n, p.c, p.oh, p.ow)};
            sig.flops = double(p.n) * p.c * p.oh * p.ow * p.kh * p.kw;
        }
    } else if (info.family == "reduce") {
        ReduceParams p = parse_reduce(config);
        sig.inputs.push_back({"input", p.shape});
        sig.output = {"output", p.out_shape};
        sig.flops = num_elements(p.shape);
    } else if (is_binary_op(config.op)) {
        BinaryParams p = parse_binary(config);
        sig.inputs = {{"a", p.shape_a}, {"b", p.shape_b}};
        // Away from the poles and from negative bases.
        if (p.kind == BinaryKind::Div) sig.inputs[1].lo = 0.5f, sig.inputs[1].hi = 2.0f;
        if (p.kind == BinaryKind::Pow) sig.inputs[0].lo = 0.5f, sig.inputs[0].hi = 2.0f;
        sig.output = {"output", p.out_shape};
        sig.flops = num_elements(p.out_shape);
    } else if (config.op == "bias_add") {
        BiasAddParams p = parse_bias_add(config);
        sig.inputs = {{"input", p.shape}, {"bias", {p.shape[p.axis]}}};
        sig.output = {"output", p.shape};
        sig.flops = num_elements(p.shape);
    } else if (info.family == "elementwise") {
        UnaryParams p = parse_unary(config);
        sig.inputs = {{"input", p.shape}};
        if (p.kind == UnaryKind::Sqrt) sig.inputs[0].lo = 0.0f;
        if (p.kind == UnaryKind::Reciprocal) sig.inputs[0].lo = 0.5f, sig.inputs[0].hi = 2.0f;
        if (p.kind == UnaryKind::Clip) sig.inputs[0].lo = -2.0f, sig.inputs[0].hi = 2.0f;
        sig.output = {"output", p.shape};
        sig.flops = num_elements(p.shape);
    } else if (info.family == "softmax") {
        SoftmaxParams p = parse_softmax(config);
        sig.inputs = {{"input", p.shape}};
        sig.output = {"output", p.shape};
        sig.flops = 4.0 * num_elements(p.shape);
    } else if (info.family == "norm") {
        NormParams p = parse_norm(config);
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
    } else if (config.op == "transpose") {
        TransposeParams p = parse_transpose(config);
        sig.inputs = {{"input", p.shape}};
        sig.output = {"output", p.out_shape};
    } else if (config.op == "pad") {
        PadParams p = parse_pad(config);
        sig.inputs = {{"input", p.shape}};
        sig.output = {"output", p.out_shape};
    } else {
        throw OpError("internal: op '" + config.op + "' has no signature");
    }
    finish(sig);
    return sig;
}

std::string catalog_listing() {
    std::ostringstream out;
    for (const OpInfo &op : op_catalog()) {
        out << op.name << "  [" << op.family << "]  " << op.doc << "\n";
        for (const KeyInfo &k : op.keys) {
            out << "    " << k.name << (k.default_value.empty() ? " (required)" : "=" + k.default_value) << "  "
                << k.doc << "\n";
        }
    }
    return out.str();
}

}  // namespace tessera::ops
