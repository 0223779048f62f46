#include "graph_builder.h"

#include "shape_inference.h"

namespace tessera::graph {

int GraphBuilder::rewrite_nodes(const std::function<bool(const Node &)> &rewrite) {
    int count = 0;
    for (const Node &n : g_.nodes) {
        if (rewrite(n)) {
            count++;
        } else {
            keep(n);
        }
    }
    finish();
    return count;
}

void GraphBuilder::add(Node node) {
    std::vector<TensorInfo> outs = infer_node(node, g_.opset, input_infos(g_, node));
    for (size_t k = 0; k < outs.size(); k++) {
        outs[k].name = node.outputs[k];
        g_.values[node.outputs[k]] = std::move(outs[k]);
    }
    nodes_.push_back(std::move(node));
}

std::string GraphBuilder::op(const std::string &op_type, const std::vector<std::string> &inputs,
                             const std::string &base, const std::string &output,
                             const std::map<std::string, Attribute> &attrs) {
    Node n;
    n.op_type = op_type;
    n.name = g_.unique_name(base);
    n.inputs = inputs;
    n.outputs = {output.empty() ? n.name : output};
    n.attrs = attrs;
    const std::string name = n.outputs[0];
    add(std::move(n));
    return name;
}

std::string GraphBuilder::constant(TensorData data, const std::string &base) {
    const std::string name = g_.unique_name(base);
    g_.set_constant(name, std::move(data));
    return name;
}

std::string GraphBuilder::scalar(float v, const std::string &base) { return constant(TensorData::floats({}, {v}), base); }

std::string GraphBuilder::reduce_mean(const std::string &value, const std::vector<int64_t> &axes,
                                      const std::string &base, const std::string &output) {
    std::map<std::string, Attribute> attrs = {{"keepdims", Attribute::make_int(1)}};
    std::vector<std::string> inputs = {value};
    if (g_.opset < 18) {
        attrs["axes"] = Attribute::make_ints(axes);
    } else {
        inputs.push_back(constant(TensorData::ints({int64_t(axes.size())}, axes), base + "_axes"));
    }
    return op("ReduceMean", inputs, base, output, attrs);
}

std::string GraphBuilder::reshape(const std::string &value, const Shape &to, const std::string &base,
                                  const std::string &output) {
    const TensorInfo &info = g_.value(value);
    if (info.shape_known && info.shape == to && output.empty()) return value;
    const std::string name = output.empty() ? g_.unique_name(base) : output;
    if (info.is_constant() && output.empty()) {
        TensorData data = *info.data;
        data.shape = to;
        g_.set_constant(name, std::move(data));
        return name;
    }
    return op("Reshape", {value, constant(TensorData::ints({int64_t(to.size())}, to), base + "_shape")}, base, name);
}

std::string GraphBuilder::transpose(const std::string &value, const std::vector<int64_t> &perm,
                                    const std::string &base, const std::string &output) {
    bool identity = true;
    for (size_t a = 0; a < perm.size(); a++) identity &= perm[a] == int64_t(a);
    if (identity && output.empty()) return value;
    return op("Transpose", {value}, base, output, {{"perm", Attribute::make_ints(perm)}});
}

std::string GraphBuilder::pad(const std::string &value, const std::vector<int64_t> &pads, float fill,
                              const std::string &base) {
    if (g_.opset < 11)
        return op("Pad", {value}, base, "", {{"pads", Attribute::make_ints(pads)}, {"value", Attribute::make_float(fill)}});
    return op("Pad",
              {value, constant(TensorData::ints({int64_t(pads.size())}, pads), base + "_pads"),
               constant(TensorData::floats({}, {fill}), base + "_value")},
              base);
}

std::string GraphBuilder::slice(const std::string &value, const std::vector<int64_t> &start, const Shape &length,
                                const std::string &base, const std::string &output) {
    std::vector<int64_t> ends;
    for (size_t a = 0; a < start.size(); a++) ends.push_back(start[a] + length[a]);
    if (g_.opset < 10)
        return op("Slice", {value}, base, output,
                  {{"starts", Attribute::make_ints(start)}, {"ends", Attribute::make_ints(ends)}});
    return op("Slice",
              {value, constant(TensorData::ints({int64_t(start.size())}, start), base + "_starts"),
               constant(TensorData::ints({int64_t(ends.size())}, ends), base + "_ends")},
              base, output);
}

} // namespace tessera::graph
