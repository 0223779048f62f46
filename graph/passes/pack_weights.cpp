#include "pack_weights.h"

#include "assign_layouts.h"

namespace tessera::graph {

namespace {

int64_t panels(int64_t extent, int64_t block) {
    return (extent + block - 1) / block;
}

}  // namespace

TensorData pack_conv_weights(const TensorData &w, int64_t b) {
    const int64_t oc = w.shape[0], per_channel = num_elements(w.shape) / oc;
    TensorData out(DType::f32, {panels(oc, b), w.shape[1], w.shape[2], w.shape[3], b});
    for (int64_t o = 0; o < oc; o++)
        for (int64_t i = 0; i < per_channel; i++)
            out.f[size_t((o / b * per_channel + i) * b + o % b)] = w.f[size_t(o * per_channel + i)];
    return out;
}

TensorData widen_groups_to_block(const TensorData &w, int64_t group_width, int64_t b) {
    const int64_t oc = w.shape[0], taps = w.shape[2] * w.shape[3];
    TensorData out(DType::f32, {oc, b, w.shape[2], w.shape[3]});
    for (int64_t o = 0; o < oc; o++) {
        // Output channel o reads its group's channels, at offset (o % b) / width * width
        // in its block.
        const int64_t first = (o % b) / group_width * group_width;
        for (int64_t i = 0; i < group_width; i++)
            for (int64_t t = 0; t < taps; t++)
                out.f[size_t((o * b + first + i) * taps + t)] = w.f[size_t((o * group_width + i) * taps + t)];
    }
    return out;
}

namespace {

// B [K,N] (transposed: [N,K]) -> [N/b][K][b], the last panel's missing columns zero.
TensorData pack_matrix(const TensorData &m, bool transposed, int64_t b) {
    const int64_t k = transposed ? m.shape[1] : m.shape[0], n = transposed ? m.shape[0] : m.shape[1];
    TensorData out(DType::f32, {panels(n, b), k, b});
    for (int64_t r = 0; r < k; r++)
        for (int64_t j = 0; j < n; j++)
            out.f[size_t((j / b * k + r) * b + j % b)] = m.f[size_t(transposed ? j * k + r : r * n + j)];
    return out;
}

// Rows of A in a Gemm / MatMul: M, or every row of every batch.
// The widest power-of-two panel up to `widest` (and at least 8) that divides n,
// else `widest`: with whole panels the product's output reads its panels back at
// n % b and n / b exactly, which the plugin analyses as the product's epilogue
// (scheduler/analysis/axis_split.h); a last partial panel left it unanalysable.
int64_t dividing_block(int64_t n, int64_t widest) {
    for (int64_t b = widest; b >= 8; b /= 2) {
        if (n % b == 0) return b;
    }
    return widest;
}

int64_t rows_of_a(const Graph &g, const Node &node) {
    const Shape &a = g.value(node.inputs[0]).shape;
    if (node.op_type == "Gemm") return node.get_int("transA", 0) != 0 ? a[1] : a[0];
    return num_elements(a) / a.back();
}

bool f32_constant(const Graph &g, const Node &node, size_t k, size_t rank) {
    if (!node.has_input(k) || !g.is_constant(node.inputs[k])) return false;
    const TensorInfo &info = g.value(node.inputs[k]);
    return info.dtype == DType::f32 && info.shape.size() == rank;
}

// How `o` packs a convolution's weights: the panels' width (0: not packed) and
// whether its sums are planar.
struct ConvPacking {
    int64_t block = 0;
    bool planar = false;
};

ConvPacking conv_packing(const Graph &g, const Node &node, const PackOptions &o) {
    if (node.op_type != "Conv" || node.get_int("group", 1) != 1 || !f32_constant(g, node, 1, 4) ||
        g.value(node.inputs[0]).shape.size() != 4 || node.has_attr(kLayoutNhwcAttr)) {
        return {};
    }
    if (o.convolutions) return {o.conv_block, false};
    const Shape &w = g.value(node.inputs[1]).shape, &y = g.value(node.outputs[0]).shape;
    if (y.size() != 4) return {};
    const int64_t plane = y[2] * y[3];
    // A windowed convolution on a small plane whose output channels fill whole panels.
    if (w[2] * w[3] > 1) {
        if (plane <= o.window_max_points && w[0] % o.window_block == 0) return {o.window_block, false};
        return {};
    }
    // A 1x1 convolution whose output channels fill whole panels, by its plane.
    if (w[0] % o.pointwise_block != 0) {
        if (plane <= o.pointwise_max_points && o.pointwise_partial_block > 0) return {o.pointwise_partial_block, false};
        return {};
    }
    if (plane <= o.pointwise_max_points) return {o.pointwise_block, false};
    if (plane <= o.planar_max_points && w[1] >= o.planar_min_channels) return {o.pointwise_block, true};
    return {};
}

}  // namespace

PackOptions default_packing() {
    PackOptions o;
    o.convolutions = false;
    o.pointwise_max_points = kPackedPointwisePoints;
    o.pointwise_partial_block = kPackedPartialPanelBlock;
    o.planar_max_points = kPackedPlanarPoints;
    o.window_max_points = kPackedWindowPoints;
    o.max_rows = 1;
    o.transposed_products = true;
    return o;
}

PackOptions for_sixteen_vector_registers(PackOptions o) {
    o.matmul_block = kPackedMatmulBlockAvx2;
    o.max_rows = 0;
    return o;
}

int64_t packed_block(const Node &node) {
    return node.get_int(kPackedBlockAttr, 0);
}

int pack_weights(Graph &g, const PackOptions &o) {
    int packed = 0;
    for (Node &node : g.nodes) {
        if (packed_block(node) != 0 || node.inputs.size() < 2) continue;
        TensorData panels_data;
        int64_t block = 0;
        const std::string &x = node.inputs[0];
        const bool transposed = node.op_type == "Gemm" && node.get_int("transB", 0) != 0;  // B stored [N,K]
        if (const ConvPacking conv = conv_packing(g, node, o); conv.block > 0) {
            block = conv.block;
            panels_data = pack_conv_weights(*g.value(node.inputs[1]).data, block);
            if (conv.planar) node.attrs[kPackedPlanarAttr] = Attribute::make_int(1);
        } else if ((node.op_type == "Gemm" || node.op_type == "MatMul") && f32_constant(g, node, 1, 2) &&
                   g.value(x).shape.size() >= 2 && (node.op_type == "MatMul" || g.value(x).shape.size() == 2) &&
                   (o.max_rows == 0 || rows_of_a(g, node) <= o.max_rows || (o.transposed_products && transposed))) {
            const Shape &b = g.value(node.inputs[1]).shape;
            block = dividing_block(transposed ? b[0] : b[1], o.matmul_block);
            panels_data = pack_matrix(*g.value(node.inputs[1]).data, transposed, block);
        } else {
            continue;
        }
        const std::string name = g.unique_name(node.inputs[1] + "_panels");
        g.set_constant(name, std::move(panels_data));
        node.inputs[1] = name;
        node.attrs[kPackedBlockAttr] = Attribute::make_int(block);
        packed++;
    }
    return packed;
}

}  // namespace tessera::graph
