#include "fold_constants.h"

#include "evaluate.h"
#include "shape_inference.h"

namespace tessera::graph {

int fold_constants(Graph &graph) {
    int folded = 0;
    std::vector<Node> kept;
    for (Node &node : graph.nodes) {
        // Earlier folds may have turned this node's inputs into constants.
        std::vector<const TensorInfo *> infos = input_infos(graph, node);
        std::vector<TensorInfo> outs = infer_node(node, graph.opset, infos);
        for (size_t k = 0; k < outs.size(); k++)
            if (!node.outputs[k].empty()) graph.values[node.outputs[k]] = outs[k];

        bool all_constant = true;
        for (const TensorInfo *in : infos)
            all_constant = all_constant && (!in || in->is_constant());
        // Shape and Size need only their input's shape: a data-less placeholder stands
        // in for the input (their kernels read nothing else).
        TensorData placeholder;
        bool shape_of_known = (node.op_type == "Shape" || node.op_type == "Size") && infos[0]->shape_known &&
                              !infos[0]->is_constant();
        if (!all_constant && !shape_of_known) {
            kept.push_back(std::move(node));
            continue;
        }
        std::vector<const TensorData *> args;
        for (const TensorInfo *in : infos)
            args.push_back(in ? in->data.get() : nullptr);
        if (shape_of_known) {
            placeholder.dtype = infos[0]->dtype;
            placeholder.shape = infos[0]->shape;
            args[0] = &placeholder;
        }
        std::vector<TensorData> values = evaluate_node(node, graph.opset, args);
        for (size_t k = 0; k < values.size(); k++)
            if (!node.outputs[k].empty()) graph.set_constant(node.outputs[k], std::move(values[k]));
        folded++;
    }
    graph.nodes = std::move(kept);
    return folded;
}

} // namespace tessera::graph
