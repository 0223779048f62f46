#include "shape_inference.h"

#include <algorithm>

namespace tessera::graph {

void check_node(const Node &node, int opset, const std::vector<const TensorInfo *> &inputs) {
    InferContext ctx(node, opset, inputs);
    const OpRule *rule = find_op_rule(node.op_type);
    if (!rule) ctx.fail("op type '" + node.op_type + "' is not supported (supported: " + supported_op_list() + ")");
    // Nodes made by passes (rewrite_patterns' LayerNormalization in an opset-13 model)
    // are Tessera's own: the op's semantics, whatever the model's opset.
    if (opset < rule->min_opset && node.source_index >= 0)
        ctx.fail(node.op_type + " is supported from opset " + std::to_string(rule->min_opset) + " on");
    for (const auto &[key, attr] : node.attrs) {
        if (std::find(rule->attributes.begin(), rule->attributes.end(), key) != rule->attributes.end()) continue;
        std::string names;
        for (const std::string &a : rule->attributes)
            names += (names.empty() ? "" : ", ") + a;
        ctx.fail("attribute '" + key + "' is not supported (supported: " + (names.empty() ? "none" : names) + ")");
    }
    // Attribute values before counts: a training-mode BatchNormalization is reported as
    // such rather than by its extra outputs.
    if (rule->check) rule->check(ctx);
    auto count = [&](const char *what, size_t n, size_t lo, size_t hi) {
        if (n >= lo && n <= hi) return;
        std::string range = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
        ctx.fail(std::to_string(n) + " " + what + " given, which is not supported (supported: " + range + ")");
    };
    count("inputs", node.inputs.size(), rule->min_inputs, rule->max_inputs);
    count("outputs", node.outputs.size(), rule->min_outputs, rule->max_outputs);
    for (size_t k = 0; k < rule->min_inputs; k++)
        if (!node.has_input(k)) ctx.fail("input " + std::to_string(k) + " is required");
}

std::vector<TensorInfo> infer_node(const Node &node, int opset, const std::vector<const TensorInfo *> &inputs) {
    check_node(node, opset, inputs);
    const OpRule &rule = *find_op_rule(node.op_type);
    InferContext ctx(node, opset, inputs);
    DType t = rule.dtype ? rule.dtype(ctx) : ctx.dtype(0);
    for (TensorInfo &o : ctx.out) {
        o.dtype = t;
        o.shape_known = false;
        o.shape.clear();
    }
    bool shapes_known =
        std::all_of(inputs.begin(), inputs.end(), [](const TensorInfo *i) { return !i || i->shape_known; });
    if (shapes_known && !rule.infer(ctx))
        for (TensorInfo &o : ctx.out)
            o.shape_known = false;
    return ctx.out;
}

std::vector<const TensorInfo *> input_infos(const Graph &graph, const Node &node) {
    std::vector<const TensorInfo *> infos;
    for (const std::string &in : node.inputs)
        infos.push_back(in.empty() ? nullptr : &graph.value(in));
    return infos;
}

void infer_shapes(Graph &graph) {
    for (const Node &node : graph.nodes) {
        std::vector<TensorInfo> outs = infer_node(node, graph.opset, input_infos(graph, node));
        for (size_t k = 0; k < outs.size(); k++) {
            if (node.outputs[k].empty()) continue; // an omitted optional output
            graph.values[node.outputs[k]] = std::move(outs[k]);
        }
    }
}

void require_static_shapes(const Graph &graph) {
    for (const Node &node : graph.nodes)
        for (const std::string &o : node.outputs)
            if (!o.empty() && !graph.value(o).shape_known)
                throw GraphError(node_label(node, graph.opset) + ": the shape of output '" + o +
                                 "' depends on values computed at run time; only static shapes are supported");
}

} // namespace tessera::graph
