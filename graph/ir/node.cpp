#include "node.h"

#include "graph_error.h"

#include <set>

namespace tessera::graph {

const Attribute *Node::find(const std::string &key, Attribute::Kind kind) const {
    auto it = attrs.find(key);
    if (it == attrs.end()) return nullptr;
    if (it->second.kind != kind)
        throw GraphError("node '" + name + "' (" + op_type + "): attribute '" + key + "' is " +
                         attribute_kind_name(it->second.kind) + ", expected " + attribute_kind_name(kind));
    return &it->second;
}

int64_t Node::get_int(const std::string &key, int64_t fallback) const {
    const Attribute *a = find(key, Attribute::Kind::Int);
    return a ? a->i : fallback;
}

float Node::get_float(const std::string &key, float fallback) const {
    const Attribute *a = find(key, Attribute::Kind::Float);
    return a ? a->f : fallback;
}

std::string Node::get_string(const std::string &key, const std::string &fallback) const {
    const Attribute *a = find(key, Attribute::Kind::String);
    return a ? a->s : fallback;
}

std::vector<int64_t> Node::get_ints(const std::string &key, const std::vector<int64_t> &fallback) const {
    const Attribute *a = find(key, Attribute::Kind::Ints);
    return a ? a->ints : fallback;
}

std::vector<float> Node::get_floats(const std::string &key, const std::vector<float> &fallback) const {
    const Attribute *a = find(key, Attribute::Kind::Floats);
    return a ? a->floats : fallback;
}

const TensorData *Node::get_tensor(const std::string &key) const {
    const Attribute *a = find(key, Attribute::Kind::Tensor);
    return a ? a->tensor.get() : nullptr;
}

bool is_contraction_op(const std::string &op_type) {
    return op_type == "Conv" || op_type == "ConvTranspose" || op_type == "MatMul" || op_type == "Gemm";
}

bool is_pointwise_unary_op(const std::string &op_type) {
    static const std::set<std::string> ops = {
        "Relu", "Sigmoid", "Tanh",  "Exp",  "Sqrt",  "Erf",   "Neg",   "Gelu",     "Clip",     "Reciprocal",
        "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Softplus", "Abs", "Log", "Softsign", "Mish",
        "Sin", "Cos", "Floor", "Ceil", "Round", "Sign", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
        "Acosh", "Atanh", "ThresholdedRelu", "Shrink", "Celu"};
    return ops.count(op_type) != 0;
}

std::string node_label(const Node &node, int opset) {
    std::string where = node.source_index >= 0 ? "#" + std::to_string(node.source_index) + ", " : "";
    std::string tail = " (" + where + node.op_type + ", opset " + std::to_string(opset) + ")";
    return node.name.empty() ? "unnamed node" + tail : "node '" + node.name + "'" + tail;
}

} // namespace tessera::graph
