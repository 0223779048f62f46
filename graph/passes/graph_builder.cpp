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

std::string GraphBuilder::scalar(float v, const std::string &base) {
    const std::string name = g_.unique_name(base);
    g_.set_constant(name, TensorData::floats({}, {v}));
    return name;
}

std::string GraphBuilder::reduce_mean(const std::string &value, const std::vector<int64_t> &axes,
                                      const std::string &base, const std::string &output) {
    std::map<std::string, Attribute> attrs = {{"keepdims", Attribute::make_int(1)}};
    std::vector<std::string> inputs = {value};
    if (g_.opset < 18) {
        attrs["axes"] = Attribute::make_ints(axes);
    } else {
        inputs.push_back(g_.unique_name(base + "_axes"));
        g_.set_constant(inputs.back(), TensorData::ints({int64_t(axes.size())}, axes));
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
    const std::string shape = g_.unique_name(base + "_shape");
    g_.set_constant(shape, TensorData::ints({int64_t(to.size())}, to));
    return op("Reshape", {value, shape}, base, name);
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
    Node pad;
    pad.op_type = "Pad";
    pad.name = g_.unique_name(base);
    pad.inputs = {value};
    if (g_.opset < 11) {
        pad.attrs["pads"] = Attribute::make_ints(pads);
        pad.attrs["value"] = Attribute::make_float(fill);
    } else {
        const std::string pads_name = g_.unique_name(base + "_pads"), fill_name = g_.unique_name(base + "_value");
        g_.set_constant(pads_name, TensorData::ints({int64_t(pads.size())}, pads));
        g_.set_constant(fill_name, TensorData::floats({}, {fill}));
        pad.inputs.push_back(pads_name);
        pad.inputs.push_back(fill_name);
    }
    pad.outputs = {pad.name};
    const std::string name = pad.name;
    add(std::move(pad));
    return name;
}

std::string GraphBuilder::slice(const std::string &value, const std::vector<int64_t> &start, const Shape &length,
                                const std::string &base, const std::string &output) {
    Node slice;
    slice.op_type = "Slice";
    slice.name = g_.unique_name(base);
    std::vector<int64_t> ends;
    for (size_t a = 0; a < start.size(); a++) ends.push_back(start[a] + length[a]);
    slice.inputs = {value};
    if (g_.opset < 10) {
        slice.attrs["starts"] = Attribute::make_ints(start);
        slice.attrs["ends"] = Attribute::make_ints(ends);
    } else {
        const std::string starts_name = g_.unique_name(base + "_starts"), ends_name = g_.unique_name(base + "_ends");
        g_.set_constant(starts_name, TensorData::ints({int64_t(start.size())}, start));
        g_.set_constant(ends_name, TensorData::ints({int64_t(ends.size())}, ends));
        slice.inputs.push_back(starts_name);
        slice.inputs.push_back(ends_name);
    }
    slice.outputs = {output.empty() ? slice.name : output};
    const std::string name = slice.outputs[0];
    add(std::move(slice));
    return name;
}

} // namespace tessera::graph
