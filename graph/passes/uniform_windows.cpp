#include "uniform_windows.h"

#include "shape_inference.h"
#include "window.h"

#include <algorithm>
#include <limits>

namespace tessera::graph {

namespace {

// Adds `node` after inferring its outputs' types and shapes.
void add_node(Graph &g, std::vector<Node> &nodes, Node node) {
    std::vector<TensorInfo> outs = infer_node(node, g.opset, input_infos(g, node));
    for (size_t k = 0; k < outs.size(); k++) {
        outs[k].name = node.outputs[k];
        g.values[node.outputs[k]] = std::move(outs[k]);
    }
    nodes.push_back(std::move(node));
}

std::string reshaped(Graph &g, std::vector<Node> &nodes, const std::string &value, const Shape &to,
                     const std::string &base) {
    const TensorInfo &info = g.value(value);
    const std::string name = g.unique_name(base);
    if (info.is_constant()) {
        TensorData data = *info.data;
        data.shape = to;
        g.set_constant(name, std::move(data));
        return name;
    }
    Node reshape;
    reshape.op_type = "Reshape";
    reshape.name = name;
    const std::string shape = g.unique_name(base + "_shape");
    g.set_constant(shape, TensorData::ints({int64_t(to.size())}, to));
    reshape.inputs = {value, shape};
    reshape.outputs = {name};
    add_node(g, nodes, std::move(reshape));
    return name;
}

// A constant-mode Pad of an [N, C, H, W] input by `pads` (H, W befores, then afters),
// in the graph's opset's form.
std::string padded_input(Graph &g, std::vector<Node> &nodes, const std::string &value,
                         const std::vector<int64_t> &hw_pads, float fill, const std::string &base) {
    Node pad;
    pad.op_type = "Pad";
    pad.name = g.unique_name(base);
    const std::vector<int64_t> pads = {0, 0, hw_pads[0], hw_pads[1], 0, 0, hw_pads[2], hw_pads[3]};
    pad.inputs = {value};
    if (g.opset < 11) {
        pad.attrs["pads"] = Attribute::make_ints(pads);
        pad.attrs["value"] = Attribute::make_float(fill);
    } else {
        const std::string pads_name = g.unique_name(base + "_pads"), fill_name = g.unique_name(base + "_value");
        g.set_constant(pads_name, TensorData::ints({8}, pads));
        g.set_constant(fill_name, TensorData::floats({}, {fill}));
        pad.inputs.push_back(pads_name);
        pad.inputs.push_back(fill_name);
    }
    pad.outputs = {pad.name};
    add_node(g, nodes, std::move(pad));
    return nodes.back().outputs[0];
}

bool is_window(const Graph &g, const Node &n, size_t rank) {
    if (n.op_type != "Conv" && n.op_type != "MaxPool" && n.op_type != "AveragePool") return false;
    if (n.outputs.size() != 1) return false;  // MaxPool's Indices
    const TensorInfo &x = g.value(n.inputs[0]);
    return x.shape_known && x.shape.size() == rank && g.value(n.outputs[0]).shape_known &&
           (n.op_type != "Conv" || g.value(n.inputs[1]).shape_known);
}

std::vector<int64_t> window_kernel(const Graph &g, const Node &n) {
    if (n.op_type != "Conv") return n.get_ints("kernel_shape", {});
    const Shape &w = g.value(n.inputs[1]).shape;
    return std::vector<int64_t>(w.begin() + 2, w.end());
}

// A 2-D window made uniform in place: unit axes take the other's stride and dilation,
// uneven pads go to a Pad node before it. Returns whether a Pad was added.
bool make_uniform(Graph &g, std::vector<Node> &nodes, Node &n) {
    const Shape x = g.value(n.inputs[0]).shape;
    const std::vector<int64_t> kernel = window_kernel(g, n);
    const bool ceil_mode = n.get_int("ceil_mode", 0) != 0;
    const Window win = resolve_window(InferContext(n, g.opset, input_infos(g, n)), {x[2], x[3]}, kernel, ceil_mode);
    std::vector<int64_t> strides = win.strides, dilations = win.dilations;
    std::vector<int64_t> pads = {win.pad_begin[0], win.pad_begin[1], win.pad_end[0], win.pad_end[1]};
    for (size_t i = 0; i < 2; i++) {
        if (x[2 + i] == 1 && kernel[i] == 1 && win.pad_begin[i] == 0 && win.pad_end[i] == 0) {
            strides[i] = strides[1 - i];
            dilations[i] = dilations[1 - i];
        }
    }
    const bool even = std::all_of(pads.begin(), pads.end(), [&](int64_t p) { return p == pads[0]; });
    const bool excludes_padding = n.op_type == "AveragePool" && n.get_int("count_include_pad", 0) == 0;
    const bool pad_first = !even && !excludes_padding && !ceil_mode;
    if (!pad_first && strides == win.strides && dilations == win.dilations) return false;  // as uniform as it gets
    bool padded = false;
    if (pad_first) {
        const float fill = n.op_type == "MaxPool" ? -std::numeric_limits<float>::infinity() : 0.0f;
        const std::string base = n.name.empty() ? n.outputs[0] : n.name;
        n.inputs[0] = padded_input(g, nodes, n.inputs[0], pads, fill, base + "_pad");
        pads = {0, 0, 0, 0};
        padded = true;
    }
    n.attrs.erase("auto_pad");
    n.attrs["pads"] = Attribute::make_ints(pads);
    n.attrs["strides"] = Attribute::make_ints(strides);
    if (n.op_type != "AveragePool" || dilations != std::vector<int64_t>{1, 1})  // AveragePool's from opset 19
        n.attrs["dilations"] = Attribute::make_ints(dilations);
    else
        n.attrs.erase("dilations");
    return padded;
}

// [N, C, L] -> [N, C, L, 1] with a k x 1 window (its pads and strides made uniform
// by make_uniform), then back to [N, C, L'].
bool lift_1d(Graph &g, std::vector<Node> &nodes, const Node &n) {
    const Shape x = g.value(n.inputs[0]).shape, y = g.value(n.outputs[0]).shape;
    const std::vector<int64_t> kernel = window_kernel(g, n);
    const Window win = resolve_window(InferContext(n, g.opset, input_infos(g, n)), {x[2]}, kernel,
                                      n.get_int("ceil_mode", 0) != 0);
    const std::string base = n.name.empty() ? n.outputs[0] : n.name;
    Node lifted = n;
    lifted.name = g.unique_name(base + "_2d");
    lifted.inputs[0] = reshaped(g, nodes, n.inputs[0], {x[0], x[1], x[2], 1}, base + "_2d_input");
    if (n.op_type == "Conv") {
        const Shape w = g.value(n.inputs[1]).shape;
        lifted.inputs[1] = reshaped(g, nodes, n.inputs[1], {w[0], w[1], w[2], 1}, base + "_2d_weights");
    }
    lifted.outputs = {lifted.name};
    lifted.attrs.erase("auto_pad");
    lifted.attrs["pads"] = Attribute::make_ints({win.pad_begin[0], 0, win.pad_end[0], 0});
    lifted.attrs["strides"] = Attribute::make_ints({win.strides[0], 1});
    lifted.attrs["dilations"] = Attribute::make_ints({win.dilations[0], 1});
    if (lifted.has_attr("kernel_shape")) lifted.attrs["kernel_shape"] = Attribute::make_ints({kernel[0], 1});
    const bool padded = make_uniform(g, nodes, lifted);
    add_node(g, nodes, lifted);

    Node back;
    back.op_type = "Reshape";
    back.name = g.unique_name(base + "_1d_output");
    const std::string shape = g.unique_name(base + "_1d_shape");
    g.set_constant(shape, TensorData::ints({3}, y));
    back.inputs = {nodes.back().outputs[0], shape};
    back.outputs = n.outputs;
    add_node(g, nodes, std::move(back));
    return padded;
}

} // namespace

UniformWindowCounts uniform_windows(Graph &g) {
    UniformWindowCounts counts;
    std::vector<Node> nodes;
    for (const Node &n : g.nodes) {
        if (is_window(g, n, 3)) {
            counts.padded += lift_1d(g, nodes, n);
            counts.lifted_1d++;
        } else if (is_window(g, n, 4)) {
            Node uniform = n;
            counts.padded += make_uniform(g, nodes, uniform);
            nodes.push_back(std::move(uniform));
        } else {
            nodes.push_back(n);
        }
    }
    g.nodes = std::move(nodes);
    return counts;
}

} // namespace tessera::graph
