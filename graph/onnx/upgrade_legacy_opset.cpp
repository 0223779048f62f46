#include "upgrade_legacy_opset.h"

#include "graph_error.h"
#include "shape_inference.h"

#include <set>

namespace tessera::graph {

namespace {

constexpr int kUpgradedOpset = 7;

[[noreturn]] void fail(const Node &node, int opset, const std::string &what) {
    throw GraphError(node_label(node, opset) + ": " + what);
}

int64_t rank_of(const Graph &g, const Node &node, int opset, size_t k) {
    const TensorInfo &info = g.value(node.inputs.at(k));
    if (!info.shape_known)
        fail(node, opset, "the rank of input '" + node.inputs[k] + "' is not known, which the upgrade to opset 7 needs");
    return int64_t(info.shape.size());
}

// `value` with `trailing` 1s appended to its shape: a reshaped copy of a constant, or
// an Unsqueeze node (opset 7's attribute form) put before the node being upgraded.
std::string with_trailing_ones(Graph &g, std::vector<Node> &nodes, const std::string &value, int64_t trailing) {
    const TensorInfo &info = g.value(value);
    if (info.is_constant()) {
        TensorData data = *info.data;
        data.shape.insert(data.shape.end(), size_t(trailing), 1);
        const std::string name = g.unique_name(value + "_legacy_broadcast");
        g.set_constant(name, std::move(data));
        return name;
    }
    Node unsqueeze;
    unsqueeze.op_type = "Unsqueeze";
    unsqueeze.name = g.unique_name(value + "_legacy_broadcast");
    unsqueeze.inputs = {value};
    unsqueeze.outputs = {unsqueeze.name};
    std::vector<int64_t> axes;
    for (int64_t a = 0; a < trailing; a++) axes.push_back(int64_t(info.shape.size()) + a);
    unsqueeze.attrs["axes"] = Attribute::make_ints(axes);
    const std::vector<TensorInfo> outs = infer_node(unsqueeze, kUpgradedOpset, input_infos(g, unsqueeze));
    g.values[unsqueeze.name] = outs.at(0);
    g.values[unsqueeze.name].name = unsqueeze.name;
    nodes.push_back(std::move(unsqueeze));
    return nodes.back().outputs[0];
}

// Opset 1-6 binary ops: with broadcast=1 and an axis, B's dims line up with A's from
// `axis` on; numpy broadcasting lines them up from the end, so B gains trailing 1s.
void upgrade_legacy_broadcast(Graph &g, std::vector<Node> &nodes, Node &node, int opset) {
    const bool broadcast = node.get_int("broadcast", 0) != 0;
    const bool has_axis = node.has_attr("axis");
    const int64_t axis = node.get_int("axis", 0);
    node.attrs.erase("broadcast");
    node.attrs.erase("axis");
    if (!broadcast || !has_axis || node.inputs.size() != 2) return;
    const int64_t ra = rank_of(g, node, opset, 0), rb = rank_of(g, node, opset, 1);
    const int64_t a = axis < 0 ? axis + ra : axis;
    if (a < 0 || a + rb > ra)
        fail(node, opset, "axis " + std::to_string(axis) + " does not place B (rank " + std::to_string(rb) +
                              ") inside A (rank " + std::to_string(ra) + ")");
    const int64_t trailing = ra - a - rb;
    if (trailing > 0) node.inputs[1] = with_trailing_ones(g, nodes, node.inputs[1], trailing);
}

// Opset 6's PRelu shared one slope per channel: a [C] slope of an [N, C, ...] input
// becomes [C, 1, ...] (numpy broadcasting would align it with the last axis).
void upgrade_legacy_prelu(Graph &g, std::vector<Node> &nodes, Node &node, int opset) {
    const int64_t rx = rank_of(g, node, opset, 0), rs = rank_of(g, node, opset, 1);
    const TensorInfo &x = g.value(node.inputs[0]), &slope = g.value(node.inputs[1]);
    if (rx >= 3 && rs == 1 && slope.shape[0] != 1 && slope.shape[0] == x.shape[1])
        node.inputs[1] = with_trailing_ones(g, nodes, node.inputs[1], rx - 2);
}

void drop_is_test(Node &node, int opset) {
    if (node.has_attr("is_test") && node.get_int("is_test", 0) == 0)
        fail(node, opset, "is_test 0 (training mode) is not supported (inference only)");
    node.attrs.erase("is_test");
}

} // namespace

void upgrade_legacy_opset(Graph &g) {
    const int opset = g.opset;
    if (opset >= kUpgradedOpset) return;
    static const std::set<std::string> legacy_broadcast = {"Add", "Sub", "Mul", "Div", "Pow"};
    std::vector<Node> nodes;
    nodes.reserve(g.nodes.size());
    for (Node &node : g.nodes) {
        node.attrs.erase("consumed_inputs");
        if (legacy_broadcast.count(node.op_type)) {
            upgrade_legacy_broadcast(g, nodes, node, opset);
        } else if (node.op_type == "PRelu" && node.inputs.size() == 2) {
            upgrade_legacy_prelu(g, nodes, node, opset);
        } else if (node.op_type == "BatchNormalization" || node.op_type == "Dropout") {
            // A BatchNormalization that writes its statistics is training mode whatever is_test says.
            drop_is_test(node, opset);
        } else if (node.op_type == "Gemm") {
            node.attrs.erase("broadcast");
        } else if (node.op_type == "Reshape" && node.has_attr("shape")) {
            const std::vector<int64_t> shape = node.get_ints("shape", {});
            const std::string name = g.unique_name(node.name.empty() ? "reshape_shape" : node.name + "_shape");
            g.set_constant(name, TensorData::ints({int64_t(shape.size())}, shape));
            node.attrs.erase("shape");
            node.inputs.resize(1);
            node.inputs.push_back(name);
        } else if (node.op_type == "Concat" && !node.has_attr("axis")) {
            node.attrs["axis"] = Attribute::make_int(1);
        } else if (node.op_type == "Cast" && node.has_attr("to") &&
                   node.attrs.at("to").kind == Attribute::Kind::String) {
            fail(node, opset, "'to' named by a string (opsets 1-5) is not supported");
        }
        std::vector<TensorInfo> outs = infer_node(node, kUpgradedOpset, input_infos(g, node));
        for (size_t k = 0; k < outs.size(); k++) {
            if (node.outputs[k].empty()) continue;
            outs[k].name = node.outputs[k];
            g.values[node.outputs[k]] = std::move(outs[k]);
        }
        nodes.push_back(std::move(node));
    }
    g.nodes = std::move(nodes);
    g.opset = kUpgradedOpset;
}

} // namespace tessera::graph
