// Node: one operator application. Op types and attribute names are ONNX's (default
// domain), so the ONNX operator specification is the reference for their meaning.
// Inputs and outputs name values of the Graph; an empty input name marks an omitted
// optional input.
#pragma once

#include "attribute.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::graph {

struct Node {
    std::string op_type;
    std::string name;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::map<std::string, Attribute> attrs;
    int source_index = -1; // position in the imported model; -1 for nodes made by passes

    bool has_attr(const std::string &key) const { return attrs.count(key) != 0; }
    bool has_input(size_t k) const { return k < inputs.size() && !inputs[k].empty(); }

    // Typed access with a fallback for an absent attribute. An attribute of another
    // kind throws GraphError naming the node and the attribute.
    int64_t get_int(const std::string &key, int64_t fallback) const;
    float get_float(const std::string &key, float fallback) const;
    std::string get_string(const std::string &key, const std::string &fallback) const;
    std::vector<int64_t> get_ints(const std::string &key, const std::vector<int64_t> &fallback) const;
    std::vector<float> get_floats(const std::string &key, const std::vector<float> &fallback) const;
    const TensorData *get_tensor(const std::string &key) const; // nullptr when absent

private:
    const Attribute *find(const std::string &key, Attribute::Kind kind) const;
};

// Convolutions and matrix products: the ops whose loops Tessera's rPrograms tile (the
// per-layer view's anchors, the partitions --tune measures).
bool is_contraction_op(const std::string &op_type);

// Activations and unary math: each output element from the input element at the same
// position (Clip's bounds, constant scalars, aside). Fusion takes them as epilogues,
// layouts pass through them.
bool is_pointwise_unary_op(const std::string &op_type);

// "node 'conv1' (#3, Conv, opset 13)": how every error message names a node.
std::string node_label(const Node &node, int opset);

} // namespace tessera::graph
