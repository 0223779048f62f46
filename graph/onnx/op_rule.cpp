#include "op_rule.h"

namespace tessera::graph {

InferContext::InferContext(const Node &n, int op_set, std::vector<const TensorInfo *> inputs)
    : node(n), opset(op_set), in(std::move(inputs)) {
    out.resize(node.outputs.size());
    for (size_t k = 0; k < out.size(); k++)
        out[k].name = node.outputs[k];
}

const TensorInfo &InferContext::input(size_t k) const {
    if (!has(k)) fail("input " + std::to_string(k) + " is required");
    return *in[k];
}

std::optional<std::vector<int64_t>> InferContext::int_values(size_t k) const {
    const TensorData *v = value(k);
    if (!v) return std::nullopt;
    return v->as_ints();
}

void InferContext::fail(const std::string &what) const {
    throw GraphError(node_label(node, opset) + ": " + what);
}

int64_t InferContext::axis(int64_t a, int64_t r, const std::string &what) const {
    if (a < -r || a >= r) fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(r));
    return a < 0 ? a + r : a;
}

void InferContext::require_dtype(size_t k, const std::vector<DType> &allowed) const {
    if (!has(k)) return;
    DType t = dtype(k);
    std::string names;
    for (DType a : allowed) {
        if (a == t) return;
        names += std::string(names.empty() ? "" : ", ") + dtype_name(a);
    }
    fail("input " + std::to_string(k) + " ('" + node.inputs[k] + "') has dtype " + dtype_name(t) +
         ", which is not supported (supported: " + names + ")");
}

void InferContext::require_one_of(const std::string &key, const std::string &v,
                                  std::initializer_list<const char *> allowed) const {
    std::string names;
    for (const char *a : allowed) {
        if (v == a) return;
        names += std::string(names.empty() ? "" : ", ") + a;
    }
    fail(key + " '" + v + "' is not supported (supported: " + names + ")");
}

void InferContext::set_output(size_t k, DType t, Shape s) {
    out[k].dtype = t;
    out[k].shape = std::move(s);
    out[k].shape_known = true;
}

const RuleTable &op_rules() {
    static const RuleTable table = [] {
        RuleTable t;
        register_conv_rules(t);
        register_pool_rules(t);
        register_linear_rules(t);
        register_elementwise_rules(t);
        register_normalization_rules(t);
        register_shape_op_rules(t);
        register_data_movement_rules(t);
        register_resize_rules(t);
        register_einsum_rules(t);
        return t;
    }();
    return table;
}

const OpRule *find_op_rule(const std::string &op_type) {
    auto it = op_rules().find(op_type);
    return it == op_rules().end() ? nullptr : &it->second;
}

std::string supported_op_list() {
    std::string s;
    for (const auto &[name, rule] : op_rules())
        s += (s.empty() ? "" : ", ") + name;
    return s;
}

} // namespace tessera::graph
