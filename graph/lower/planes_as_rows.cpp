#include "planes_as_rows.h"

#include "assign_layouts.h"
#include "node_cost.h"

#include <set>

namespace tessera::graph {

namespace {

bool all_equal(const std::vector<int64_t> &values, int64_t v) {
    for (int64_t x : values) {
        if (x != v) return false;
    }
    return true;
}

// A Conv each of whose output points reads its input at that point only.
bool pointwise_conv(const Graph &g, const Node &n) {
    if (n.op_type != "Conv" || n.inputs.size() < 2 || n.get_int("group", 1) != 1) return false;
    if (!all_equal(n.get_ints("strides", {}), 1) || !all_equal(n.get_ints("pads", {}), 0)) return false;
    const std::string pad = n.get_string("auto_pad", "NOTSET");
    if (pad != "NOTSET" && pad != "VALID") return false;
    // Weights OIHW, or panels [oc/b][c][kh][kw][b] (pack_weights, assign_layouts).
    const Shape &w = g.value(n.inputs[1]).shape;
    return (w.size() == 4 || w.size() == 5) && w[2] == 1 && w[3] == 1;
}

bool single_element(const Shape &s) {
    for (int64_t d : s) {
        if (d != 1) return false;
    }
    return true;
}

// The values a node reads as images (a Conv's weights and bias are not).
std::vector<std::string> image_values(const Node &n) {
    std::vector<std::string> values;
    const size_t read = n.op_type == "Conv" ? 1 : n.inputs.size();
    for (size_t k = 0; k < read && k < n.inputs.size(); k++) {
        if (!n.inputs[k].empty()) values.push_back(n.inputs[k]);
    }
    for (const std::string &out : n.outputs) values.push_back(out);
    return values;
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> pointwise_plane(const Graph &g, const Partition &p) {
    if (p.chain || p.nodes.empty()) return std::nullopt;
    std::optional<std::pair<int64_t, int64_t>> plane;
    for (int index : p.nodes) {
        const Node &n = g.nodes.at(size_t(index));
        if (node_layout(n) == Layout::nhwc || n.outputs.size() != 1) return std::nullopt;
        const bool conversion = n.op_type == kToBlockedOp || n.op_type == kFromBlockedOp;
        if (!pointwise_conv(g, n) && !is_elementwise(n) && !conversion) return std::nullopt;
        for (const std::string &v : image_values(n)) {
            const TensorInfo &info = g.value(v);
            if (single_element(info.shape)) continue;
            if (info.shape.size() != 4 && info.shape.size() != 5) return std::nullopt;
            const std::pair<int64_t, int64_t> hw{info.shape[2], info.shape[3]};
            if (hw == std::pair<int64_t, int64_t>{1, 1}) continue;
            // An integer constant is compiled in by its own shape (lower_partition).
            if (info.is_constant() && info.dtype != DType::f32) return std::nullopt;
            if (plane && *plane != hw) return std::nullopt;
            plane = hw;
        }
    }
    if (!plane || plane->first <= 1) return std::nullopt;
    return plane;
}

Shape plane_as_row(const Shape &shape, int64_t h, int64_t w) {
    if ((shape.size() != 4 && shape.size() != 5) || shape[2] != h || shape[3] != w) return shape;
    Shape row = shape;
    row[2] = 1;
    row[3] = h * w;
    return row;
}

Graph with_planes_as_rows(const Graph &g, const Partition &p, int64_t h, int64_t w) {
    Graph rows = g;
    std::set<std::string> values(p.inputs.begin(), p.inputs.end());
    for (int index : p.nodes) {
        for (const std::string &v : image_values(g.nodes.at(size_t(index)))) values.insert(v);
    }
    for (const std::string &v : values) {
        TensorInfo &info = rows.value(v);
        const Shape row = plane_as_row(info.shape, h, w);
        if (row == info.shape) continue;
        info.shape = row;
        if (info.is_constant()) {
            // The same elements in the same order, under the row's shape.
            auto data = std::make_shared<TensorData>(*info.data);
            data->shape = row;
            info.data = data;
        }
    }
    return rows;
}

}  // namespace tessera::graph
