#include "node_cost.h"

#include "pack_weights.h"

#include <set>

namespace tessera::graph {

namespace {

double elements(const Graph &g, const std::string &value) {
    return value.empty() ? 0.0 : double(num_elements(g.value(value).shape));
}

} // namespace

bool is_shape_only(const Node &node) {
    static const std::set<std::string> ops = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
    return ops.count(node.op_type) != 0;
}

bool is_contraction(const Node &node) {
    return node.op_type == "Conv" || node.op_type == "MatMul" || node.op_type == "Gemm";
}

bool is_elementwise(const Node &node) {
    static const std::set<std::string> binary = {"Add", "Sub", "Mul", "Div", "Pow", "Cast"};
    return binary.count(node.op_type) != 0 || is_pointwise_unary_op(node.op_type);
}

NodeCost node_cost(const Graph &g, const Node &node) {
    NodeCost c;
    if (is_shape_only(node)) return c;
    for (const std::string &in : node.inputs) {
        if (!in.empty() && g.value(in).dtype == DType::f32) c.bytes += 4 * elements(g, in);
    }
    double out_elements = 0;
    for (const std::string &out : node.outputs)
        out_elements += elements(g, out);
    c.bytes += 4 * out_elements;
    const std::string &op = node.op_type;
    if (op == "Conv") {
        // Every output point: C/groups x kh x kw multiply-adds.
        // Packed weights ([oc/b][c][kh][kw][b]) end in the panel's lanes.
        const Shape &w = g.value(node.inputs[1]).shape;
        const size_t end = packed_block(node) > 0 ? w.size() - 1 : w.size();
        double window = 1;
        for (size_t d = 1; d < end; d++)
            window *= double(w[d]);
        c.flops = 2 * out_elements * window;
    } else if (op == "MatMul" || op == "Gemm") {
        const Shape &a = g.value(node.inputs[0]).shape;
        const bool trans_a = op == "Gemm" && node.get_int("transA", 0) != 0;
        const double k = double(trans_a ? a[a.size() - 2] : a.back());
        c.flops = 2 * out_elements * k;
    } else if (op == "Softmax" || op == "LogSoftmax" || op == "LayerNormalization" || op == "BatchNormalization") {
        c.flops = 5 * out_elements;
    } else {
        c.flops = out_elements;
    }
    return c;
}

} // namespace tessera::graph
