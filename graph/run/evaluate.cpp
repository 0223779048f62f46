#include "evaluate.h"

#include "kernel.h"
#include "shape_inference.h"

#include <memory>

namespace tessera::graph {

const KernelTable &kernels() {
    static const KernelTable table = [] {
        KernelTable t;
        register_conv_kernels(t);
        register_pool_kernels(t);
        register_linear_kernels(t);
        register_elementwise_kernels(t);
        register_normalization_kernels(t);
        register_shape_op_kernels(t);
        register_data_movement_kernels(t);
        return t;
    }();
    return table;
}

std::vector<TensorData> evaluate_node(const Node &node, int opset, const std::vector<const TensorData *> &inputs) {
    // Infos that point at the input data without owning it, so that the rule sees
    // every input as a known value.
    std::vector<TensorInfo> infos(inputs.size());
    std::vector<const TensorInfo *> info_ptrs(inputs.size(), nullptr);
    for (size_t k = 0; k < inputs.size(); k++) {
        if (!inputs[k]) continue;
        infos[k].name = k < node.inputs.size() ? node.inputs[k] : "";
        infos[k].dtype = inputs[k]->dtype;
        infos[k].shape = inputs[k]->shape;
        infos[k].shape_known = true;
        infos[k].data = std::shared_ptr<const TensorData>(std::shared_ptr<void>(), inputs[k]);
        info_ptrs[k] = &infos[k];
    }
    std::vector<TensorInfo> out_infos = infer_node(node, opset, info_ptrs);
    InferContext ic(node, opset, info_ptrs);
    auto kernel = kernels().find(node.op_type);
    if (kernel == kernels().end()) ic.fail("the reference evaluator has no kernel for " + node.op_type);
    std::vector<TensorData> outputs;
    for (const TensorInfo &o : out_infos) {
        if (!o.shape_known) ic.fail("output shape unknown although every input is known (internal error)");
        outputs.emplace_back(o.dtype, o.shape);
    }
    KernelContext kc{ic, inputs, outputs};
    kernel->second(kc);
    return outputs;
}

void check_graph_inputs(const Graph &graph, const TensorMap &inputs, const std::string &who) {
    for (const std::string &name : graph.inputs) {
        auto it = inputs.find(name);
        if (it == inputs.end()) throw GraphError(who + ": graph input '" + name + "' is not given");
        const TensorInfo &want = graph.value(name);
        const TensorData &got = it->second;
        if (got.dtype != want.dtype || got.shape != want.shape)
            throw GraphError(who + ": input '" + name + "' is " + dtype_name(got.dtype) + "[" +
                             shape_string(got.shape) + "], the graph expects " + want.type_string());
    }
}

TensorMap evaluate(const Graph &graph, const TensorMap &inputs) {
    std::map<std::string, std::shared_ptr<const TensorData>> values;
    for (const auto &[name, info] : graph.values)
        if (info.is_constant()) values[name] = info.data;
    check_graph_inputs(graph, inputs, "evaluate");
    for (const std::string &name : graph.inputs) values[name] = std::make_shared<const TensorData>(inputs.at(name));
    for (const Node &node : graph.nodes) {
        std::vector<const TensorData *> args;
        for (const std::string &in : node.inputs) {
            if (in.empty()) {
                args.push_back(nullptr);
                continue;
            }
            auto it = values.find(in);
            if (it == values.end())
                throw GraphError(node_label(node, graph.opset) + ": input '" + in +
                                 "' has no value (graph not sorted?)");
            args.push_back(it->second.get());
        }
        std::vector<TensorData> outs = evaluate_node(node, graph.opset, args);
        for (size_t k = 0; k < outs.size(); k++)
            if (!node.outputs[k].empty())
                values[node.outputs[k]] = std::make_shared<const TensorData>(std::move(outs[k]));
    }
    TensorMap result;
    for (const std::string &name : graph.outputs) {
        auto it = values.find(name);
        if (it == values.end()) throw GraphError("evaluate: graph output '" + name + "' was never computed");
        result[name] = *it->second;
    }
    return result;
}

} // namespace tessera::graph
