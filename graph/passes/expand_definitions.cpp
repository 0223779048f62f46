#include "expand_definitions.h"

#include "graph_builder.h"
#include "resolved_params.h"
#include "shape_inference.h"

#include <algorithm>
#include <numeric>

namespace tessera::graph {

namespace {

std::string base_of(const Node &n) { return n.name.empty() ? n.outputs[0] : n.name; }

bool is_read(const Graph &g, const std::string &value) {
    return !value.empty() && (g.is_output(value) || !g.consumers(value).empty());
}

// The statistics are ReduceMean's keepdims shape, as LayerNormalization defines them.
void expand_layer_norm(Graph &g, GraphBuilder &b, const Node &n) {
    const InferContext ctx(n, g.opset, input_infos(g, n));
    const int64_t axis = layer_norm_axis(ctx), rank = ctx.rank(0);
    std::vector<int64_t> axes(size_t(rank - axis));
    std::iota(axes.begin(), axes.end(), axis);
    const std::string base = base_of(n);
    auto output = [&](size_t k) { return k < n.outputs.size() && is_read(g, n.outputs[k]) ? n.outputs[k] : ""; };
    const std::string mean = b.reduce_mean(n.inputs[0], axes, base + "_mean", output(1));
    const std::string centred = b.op("Sub", {n.inputs[0], mean}, base + "_centred");
    const std::string square = b.op("Mul", {centred, centred}, base + "_square");
    const std::string variance = b.reduce_mean(square, axes, base + "_variance");
    const std::string epsilon = b.scalar(n.get_float("epsilon", 1e-5f), base + "_epsilon");
    const std::string shifted = b.op("Add", {variance, epsilon}, base + "_shifted");
    const std::string deviation = b.op("Sqrt", {shifted}, base + "_deviation");
    const std::string inverse = b.op("Reciprocal", {deviation}, base + "_inverse", output(2));
    const std::string normalised = b.op("Mul", {centred, inverse}, base + "_normalised");
    const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
    const std::string scaled = b.op("Mul", {normalised, n.inputs[1]}, base + "_scaled", has_bias ? "" : n.outputs[0]);
    if (has_bias) b.op("Add", {scaled, n.inputs[2]}, base + "_biased", n.outputs[0]);
}

// y = Min(Max(x, lo), hi), each bound where given.
void expand_clip(GraphBuilder &b, const Node &n) {
    const std::string base = base_of(n);
    const bool lo = n.inputs.size() > 1 && !n.inputs[1].empty(), hi = n.inputs.size() > 2 && !n.inputs[2].empty();
    std::string y = n.inputs[0];
    if (lo) y = b.op("Max", {y, n.inputs[1]}, base + "_lower", hi ? "" : n.outputs[0]);
    if (hi) y = b.op("Min", {y, n.inputs[2]}, base + "_upper", n.outputs[0]);
    if (!lo && !hi) b.op("Identity", {y}, base, n.outputs[0]);
}

// [N, C, H, W] through a 6-D view, as ONNX defines both ops.
void expand_depth_space(Graph &g, GraphBuilder &b, const Node &n) {
    const Shape x = g.value(n.inputs[0]).shape, y = g.value(n.outputs[0]).shape;
    const int64_t s = n.get_int("blocksize", 1);
    const std::string base = base_of(n);
    Shape view;
    std::vector<int64_t> perm;
    if (n.op_type == "SpaceToDepth") {
        view = {x[0], x[1], x[2] / s, s, x[3] / s, s}, perm = {0, 3, 5, 1, 2, 4};
    } else if (n.get_string("mode", "DCR") == "CRD") {
        view = {x[0], x[1] / (s * s), s, s, x[2], x[3]}, perm = {0, 1, 4, 2, 5, 3};
    } else {
        view = {x[0], s, s, x[1] / (s * s), x[2], x[3]}, perm = {0, 3, 4, 1, 5, 2};
    }
    const std::string blocks = b.reshape(n.inputs[0], view, base + "_blocks");
    const std::string moved = b.transpose(blocks, perm, base + "_moved");
    b.reshape(moved, y, base + "_out", n.outputs[0]);
}

// x (bias + alpha / size * the channel window's sum of squares)^-beta, the window sum
// an average (padding counted) over [N, 1, C, rest] with a size x 1 window.
void expand_lrn(Graph &g, GraphBuilder &b, const Node &n) {
    const Shape x = g.value(n.inputs[0]).shape;
    const std::string base = base_of(n);
    const int64_t size = n.get_int("size", 1), below = (size - 1) / 2, above = size - 1 - below;
    const std::string square = b.op("Mul", {n.inputs[0], n.inputs[0]}, base + "_square");
    const std::string planes = b.reshape(square, {x[0], 1, x[1], num_elements(x) / (x[0] * x[1])}, base + "_planes");
    const std::string window = b.op("AveragePool", {planes}, base + "_window_mean", "",
                                    {{"kernel_shape", Attribute::make_ints({size, 1})},
                                     {"pads", Attribute::make_ints({below, 0, above, 0})},
                                     {"count_include_pad", Attribute::make_int(1)}});
    const std::string mean = b.reshape(window, x, base + "_mean");
    const std::string scaled = b.op("Mul", {mean, b.scalar(n.get_float("alpha", 1e-4f), base + "_alpha")}, base + "_scaled");
    const std::string shifted = b.op("Add", {scaled, b.scalar(n.get_float("bias", 1.0f), base + "_bias")}, base + "_shifted");
    const std::string divisor =
        b.op("Pow", {shifted, b.scalar(-n.get_float("beta", 0.75f), base + "_minus_beta")}, base + "_inverse_divisor");
    b.op("Mul", {n.inputs[0], divisor}, base + "_normalised", n.outputs[0]);
}

// (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over the axes (a variance rounded below
// 0 taken as 0).
void expand_mean_variance_norm(Graph &g, GraphBuilder &b, const Node &n) {
    const int64_t rank = int64_t(g.value(n.inputs[0]).shape.size());
    std::vector<int64_t> axes;
    for (int64_t a : n.get_ints("axes", {0, 2, 3})) axes.push_back(a < 0 ? a + rank : a);
    std::sort(axes.begin(), axes.end());
    const std::string base = base_of(n), &x = n.inputs[0];
    const std::string mean = b.reduce_mean(x, axes, base + "_mean");
    const std::string mean_of_squares = b.reduce_mean(b.op("Mul", {x, x}, base + "_square"), axes, base + "_mean_of_squares");
    const std::string variance =
        b.op("Sub", {mean_of_squares, b.op("Mul", {mean, mean}, base + "_square_of_mean")}, base + "_variance");
    const std::string deviation = b.op("Sqrt", {b.op("Relu", {variance}, base + "_not_negative")}, base + "_deviation");
    const std::string divisor = b.op("Add", {deviation, b.scalar(1e-9f, base + "_epsilon")}, base + "_divisor");
    b.op("Div", {b.op("Sub", {x, mean}, base + "_centred"), divisor}, base + "_normalised", n.outputs[0]);
}

bool runtime_clip(const Graph &g, const Node &n) {
    if (n.op_type != "Clip" || g.opset < 11) return false;
    for (size_t k = 1; k < n.inputs.size(); k++)
        if (!n.inputs[k].empty() && !g.value(n.inputs[k]).is_constant()) return true;
    return false;
}

} // namespace

int expand_definitions(Graph &g) {
    GraphBuilder b(g);
    return b.rewrite_nodes([&](const Node &n) {
        if (n.op_type == "LayerNormalization" && n.outputs.size() > 1) {
            if (is_read(g, n.outputs[1]) || (n.outputs.size() > 2 && is_read(g, n.outputs[2]))) {
                expand_layer_norm(g, b, n);
            } else {
                Node fused = n;
                fused.outputs.resize(1);
                b.keep(fused);
            }
            return true;
        }
        if (n.op_type == "Dropout" && n.outputs.size() > 1) {
            // At inference its mask is all true: a constant, and the identity stays.
            if (is_read(g, n.outputs[1])) {
                TensorData mask(DType::boolean, g.value(n.inputs[0]).shape);
                for (size_t k = 0; k < mask.size(); k++) mask.i[k] = 1;
                g.set_constant(n.outputs[1], std::move(mask));
            }
            Node identity = n;
            identity.outputs.resize(1);
            b.keep(identity);
            return true;
        }
        if (runtime_clip(g, n)) {
            expand_clip(b, n);
            return true;
        }
        if (n.op_type == "DepthToSpace" || n.op_type == "SpaceToDepth") {
            expand_depth_space(g, b, n);
            return true;
        }
        if (n.op_type == "LRN") {
            expand_lrn(g, b, n);
            return true;
        }
        if (n.op_type == "MeanVarianceNormalization") {
            expand_mean_variance_norm(g, b, n);
            return true;
        }
        return false;
    });
}

} // namespace tessera::graph
