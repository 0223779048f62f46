#include "import_onnx.h"

#include "onnx_dtype.h"
#include "onnx_tensor.h"
#include "resolved_params.h"
#include "shape_inference.h"
#include "upgrade_legacy_opset.h"

#include <onnx/onnx_pb.h>

#include <set>

namespace tessera::graph {

namespace {

using ShapeOverrides = std::map<std::string, std::vector<int64_t>>;

bool is_default_domain(const std::string &domain) {
    return domain.empty() || domain == "ai.onnx";
}

int default_opset(const onnx::ModelProto &model, const std::string &source) {
    for (const auto &op : model.opset_import()) {
        if (!is_default_domain(op.domain())) continue;
        int v = int(op.version());
        if (v < min_supported_opset || v > max_supported_opset)
            throw GraphError(source + ": opset " + std::to_string(v) +
                             " of the default ONNX domain is not supported (supported: " +
                             std::to_string(min_supported_opset) + "-" + std::to_string(max_supported_opset) + ")");
        return v;
    }
    throw GraphError(source + ": the model imports no opset of the default ONNX domain");
}

TensorInfo graph_input(const onnx::ValueInfoProto &vi, const ShapeOverrides &overrides) {
    const std::string &name = vi.name();
    if (!vi.type().has_tensor_type()) throw GraphError("input '" + name + "' is not a tensor, which is not supported");
    const auto &tt = vi.type().tensor_type();
    auto dtype = dtype_from_onnx(tt.elem_type());
    if (!dtype)
        throw GraphError("input '" + name + "' has dtype " + onnx_dtype_name(tt.elem_type()) +
                         ", which is not supported (supported: " + supported_onnx_dtypes() + ")");
    TensorInfo info;
    info.name = name;
    info.dtype = *dtype;
    info.shape_known = true;
    auto over = overrides.find(name);
    std::string hint =
        "give its shape as input_shapes[\"" + name + "\"] (tessera: --input-shape " + name + "=1x3x224x224)";
    if (!tt.has_shape()) {
        if (over == overrides.end()) throw GraphError("input '" + name + "' has no declared shape; " + hint);
        info.shape = over->second;
        return info;
    }
    const auto &dims = tt.shape().dim();
    if (over != overrides.end()) {
        const Shape &s = over->second;
        if (int(s.size()) != dims.size())
            throw GraphError("input '" + name + "': the given shape " + shape_string(s) + " has rank " +
                             std::to_string(s.size()) + " but the model declares rank " + std::to_string(dims.size()));
        for (int i = 0; i < dims.size(); i++)
            if (dims[i].has_dim_value() && dims[i].dim_value() != s[i])
                throw GraphError("input '" + name + "': the given shape " + shape_string(s) + " disagrees with dim " +
                                 std::to_string(i) + " = " + std::to_string(dims[i].dim_value()) + " of the model");
        info.shape = s;
        return info;
    }
    for (int i = 0; i < dims.size(); i++) {
        if (dims[i].has_dim_value() && dims[i].dim_value() >= 0) {
            info.shape.push_back(dims[i].dim_value());
            continue;
        }
        std::string label = dims[i].has_dim_param() ? " ('" + dims[i].dim_param() + "')" : "";
        throw GraphError("input '" + name + "' dim " + std::to_string(i) + label + " is symbolic or unknown; " + hint);
    }
    return info;
}

Attribute convert_attribute(const onnx::AttributeProto &a, const Node &node, int opset) {
    std::string what = node_label(node, opset) + ": attribute '" + a.name() + "'";
    switch (a.type()) {
    case onnx::AttributeProto::INT: return Attribute::make_int(a.i());
    case onnx::AttributeProto::FLOAT: return Attribute::make_float(a.f());
    case onnx::AttributeProto::STRING: return Attribute::make_string(a.s());
    case onnx::AttributeProto::INTS: return Attribute::make_ints({a.ints().begin(), a.ints().end()});
    case onnx::AttributeProto::FLOATS: return Attribute::make_floats({a.floats().begin(), a.floats().end()});
    case onnx::AttributeProto::TENSOR: return Attribute::make_tensor(tensor_from_proto(a.t(), what));
    default:
        throw GraphError(what + " has type " + onnx::AttributeProto::AttributeType_Name(a.type()) +
                         ", which is not supported (supported: INT, FLOAT, STRING, INTS, FLOATS, TENSOR)");
    }
}

Node convert_node(const onnx::NodeProto &proto, int index, int opset) {
    Node node;
    node.op_type = proto.op_type();
    node.name = proto.name();
    node.source_index = index;
    node.inputs.assign(proto.input().begin(), proto.input().end());
    node.outputs.assign(proto.output().begin(), proto.output().end());
    // The op is checked before its attributes so that an unknown op is reported as such.
    if (!is_default_domain(proto.domain()))
        throw GraphError(node_label(node, opset) + ": op type '" + node.op_type + "' of domain '" + proto.domain() +
                         "' is not supported (supported: the default ONNX domain)");
    if (!find_op_rule(node.op_type))
        throw GraphError(node_label(node, opset) + ": op type '" + node.op_type +
                         "' is not supported (supported: " + supported_op_list() + ")");
    for (const auto &a : proto.attribute())
        node.attrs[a.name()] = convert_attribute(a, node, opset);
    // Trailing empty outputs are omitted optional outputs.
    while (!node.outputs.empty() && node.outputs.back().empty())
        node.outputs.pop_back();
    return node;
}

} // namespace

Graph import_onnx_bytes(const std::string &bytes, const std::string &source, const ShapeOverrides &input_shapes) {
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes)) throw GraphError(source + ": not an ONNX model (protobuf parse failed)");
    if (!model.has_graph() || model.ir_version() <= 0)
        throw GraphError(source + ": not an ONNX model (no ir_version or graph)");
    Graph g;
    g.opset = default_opset(model, source);
    const onnx::GraphProto &gp = model.graph();
    g.name = gp.name();

    for (const auto &init : gp.initializer())
        g.set_constant(init.name(), tensor_from_proto(init, "initializer '" + init.name() + "'"));
    std::set<std::string> used_overrides;
    for (const auto &vi : gp.input()) {
        if (g.is_constant(vi.name())) continue; // older exporters list initializers as inputs too
        g.values[vi.name()] = graph_input(vi, input_shapes);
        g.inputs.push_back(vi.name());
        used_overrides.insert(vi.name());
    }
    for (const auto &[name, shape] : input_shapes)
        if (!used_overrides.count(name)) {
            std::string names;
            for (const std::string &in : g.inputs)
                names += (names.empty() ? "" : ", ") + in;
            throw GraphError(source + ": a shape is given for '" + name +
                             "', which is not an input of the model (inputs: " + names + ")");
        }

    for (int k = 0; k < gp.node_size(); k++) {
        Node node = convert_node(gp.node(k), k, g.opset);
        if (node.op_type == "Constant") {
            check_node(node, g.opset, {});
            g.set_constant(node.outputs.at(0), constant_node_value(InferContext(node, g.opset, {})));
            continue;
        }
        g.nodes.push_back(std::move(node));
    }
    for (const auto &out : gp.output())
        g.outputs.push_back(out.name());

    // ONNX requires sorted nodes; sorting anyway reports an undefined input by node.
    g.sort_topologically();
    for (const Node &node : g.nodes)
        for (const std::string &o : node.outputs)
            g.values[o].name = o;
    g.model_opset = g.opset;
    upgrade_legacy_opset(g);
    infer_shapes(g);
    for (const std::string &o : g.outputs)
        if (!g.has_value(o)) throw GraphError(source + ": graph output '" + o + "' is produced by no node");
    return g;
}

Graph import_onnx(const std::string &path, const ShapeOverrides &input_shapes) {
    return import_onnx_bytes(read_file_bytes(path), path, input_shapes);
}

} // namespace tessera::graph
