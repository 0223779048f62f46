#include "lower_partition.h"

#include "graph_error.h"
#include "halide_axes.h"
#include "halide_name.h"
#include "lower_rule.h"
#include "lowering_passes.h"
#include "planes_as_rows.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessera::graph {

namespace {

// A channel-blocked value (assign_layouts: 5-D) or a constant: laid out densely by the
// graph layer itself, never by a caller (a graph input keeps run-time strides).
bool dense_value(const Graph &g, const std::string &value) {
    const bool graph_input = std::find(g.inputs.begin(), g.inputs.end(), value) != g.inputs.end();
    return !graph_input && (g.value(value).shape.size() == 5 || g.is_constant(value));
}

// An integer constant as a Func over its data, compiled into the pipeline.
Halide::Func constant_func(const TensorData &data, const std::string &name) {
    std::vector<int> sizes(data.shape.rbegin(), data.shape.rend());
    Halide::Buffer<int64_t> buffer(sizes, name + "_data");
    std::copy(data.i.begin(), data.i.end(), buffer.data());
    Halide::Func f(name);
    f(Halide::_) = buffer(Halide::_);
    return f;
}

}  // namespace

Halide::Type boundary_type(DType dtype) {
    return dtype == DType::f32 ? Halide::Float(32) : Halide::Int(64);
}

LoweredPartition lower_partition(const Graph &original, const Partition &p, const LowerOptions &options) {
    const auto plane = options.planes_as_rows ? pointwise_plane(original, p) : std::nullopt;
    const Graph rows = plane ? with_planes_as_rows(original, p, plane->first, plane->second) : Graph();
    const Graph &g = plane ? rows : original;
    LoweredPartition lp;
    lp.name = halide_name(p.name);
    std::map<std::string, Halide::Func> funcs;
    std::set<std::string> param_names;
    for (const std::string &value : p.inputs) {
        const TensorInfo &info = g.value(value);
        std::string name = "in_" + halide_name(value);
        while (param_names.count(name)) name += "_";
        param_names.insert(name);
        if (info.dtype != DType::f32 && info.is_constant()) {
            // Shape tensors, indices, masks: the lowering rules read their values; a
            // rule that reads one element-wise gets it as a Func over the constant.
            funcs[value] = constant_func(*info.data, name);
            continue;
        }
        Halide::ImageParam param(boundary_type(info.dtype), int(info.shape.size()), name);
        param.set_estimates(ops::halide_region(info.shape));
        // Every shape is static: extents the compiled code takes as constants, so its loop
        // extents and the tile buffers inside parallel tasks are known at compile time
        // (on the stack, not a halide_malloc per task: a 3x3 depthwise over 960 planes of
        // 7x7 ran 0.20-0.35 ms with its padded planes sized at run time, 0.07-0.085 with
        // constant extents). The mins stay symbolic: with constant mins too the same
        // depthwise ran 0.03 ms, but a shifted-inwards tile's start then became a constant
        // expression Halide inlines in the store of a fused 1x1 convolution's accumulators
        // and not in their load, LLVM kept them in memory, and NCHW 1x1 512 -> 128 at
        // 28x28 ran 2.2-2.7 ms against 0.96.
        ops::set_static_extents(param, info.shape);
        // Strides the compiled code may take as constants: a blocked image's pixels
        // are then constant offsets apart (the plugin's register tiles may span
        // them), whatever the buffer's run-time strides would say.
        if (dense_value(g, value)) ops::set_dense_strides(param, info.shape);
        lp.input_values.push_back(value);
        lp.params.push_back(param);
        lp.param_shapes.push_back(info.shape);
        funcs[value] = param;
    }
    for (int index : p.nodes) {
        const Node &node = g.nodes[size_t(index)];
        std::vector<Halide::Func> inputs;
        for (const std::string &in : node.inputs) {
            auto it = funcs.find(in);
            inputs.push_back(in.empty() || it == funcs.end() ? Halide::Func() : it->second);
        }
        const std::vector<Halide::Func> outs = lower_node(g, node, inputs);
        for (size_t k = 0; k < outs.size(); k++) funcs[node.outputs[k]] = outs[k];
    }
    lp.output_value = p.output;
    lp.output_shape = g.value(p.output).shape;
    lp.output = funcs.at(p.output);
    const Halide::Type out_type = boundary_type(g.value(p.output).dtype);
    if (lp.output.output_types().at(0) != out_type) {
        Halide::Func cast(lp.output.name() + "_as_" + (out_type.is_float() ? "float" : "int64"));
        cast(Halide::_) = Halide::cast(out_type, lp.output(Halide::_));
        lp.output = cast;
    }
    lp.output.set_estimates(ops::halide_region(g.value(p.output).shape));
    ops::set_static_extents(lp.output.output_buffer(), g.value(p.output).shape);
    lp.pipeline = Halide::Pipeline(lp.output);
    hal::add_lowering_passes(lp.pipeline);
    return lp;
}

LoweredPartition lower_single_node(const Graph &g, int node) {
    const Node &n = g.nodes.at(size_t(node));
    Partition p;
    p.name = "single_" + n.op_type;
    p.nodes = {node};
    for (const std::string &in : n.inputs) {
        if (!in.empty()) p.inputs.push_back(in);
    }
    p.output = n.outputs.at(0);
    return lower_partition(g, p);
}

}  // namespace tessera::graph
