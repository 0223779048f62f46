#include "planes_as_rows.h"

#include "assign_layouts.h"
#include "graph_error.h"
#include "node_cost.h"
#include "shape_inference.h"
#include "window.h"

#include <set>

namespace tessera::graph {

namespace {

// A Conv each of whose output points reads its input at that point only: a 1x1
// window (weights OIHW, or panels [oc/b][c][kh][kw][b]) with stride 1 and no pad,
// as the lowering resolves it.
bool pointwise_conv(const Graph &g, const Node &n) {
    if (n.op_type != "Conv" || n.inputs.size() < 2 || n.get_int("group", 1) != 1) return false;
    const Shape &x = g.value(n.inputs[0]).shape, &w = g.value(n.inputs[1]).shape;
    if (x.size() < 4 || (w.size() != 4 && w.size() != 5) || w[2] != 1 || w[3] != 1) return false;
    try {
        InferContext ic(n, g.opset, input_infos(g, n));
        const Window win = resolve_window(ic, {x[2], x[3]}, {1, 1}, false);
        for (size_t a = 0; a < win.strides.size(); a++) {
            if (win.strides[a] != 1 || win.pad_begin[a] != 0 || win.pad_end[a] != 0) return false;
        }
        return true;
    } catch (const GraphError &) {
        return false;  // the lowering reports it
    }
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
            if (num_elements(info.shape) == 1) continue;
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
