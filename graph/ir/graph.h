// Graph: values by name, nodes, the graph's inputs and outputs and the opset of the
// default ONNX domain the node semantics follow. Plain data: passes edit the fields
// directly and keep nodes in topological order (sort_topologically restores it).
#pragma once

#include "node.h"
#include "tensor_info.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tessera::graph {

struct Graph {
    std::string name;
    int opset = 0;       // the opset whose semantics the nodes follow
    int model_opset = 0; // the model's own (lower where an old model was upgraded on import)
    std::vector<std::string> inputs; // runtime inputs (never constants)
    std::vector<std::string> outputs;
    std::vector<Node> nodes; // topological order
    std::map<std::string, TensorInfo> values;

    bool has_value(const std::string &n) const { return values.count(n) != 0; }
    // Throws GraphError naming the value when absent.
    TensorInfo &value(const std::string &n);
    const TensorInfo &value(const std::string &n) const;
    bool is_constant(const std::string &n) const;

    // Adds or replaces a constant value.
    void set_constant(const std::string &n, TensorData data);
    // `base` if free, else base_1, base_2, ...: names for values made by passes.
    std::string unique_name(const std::string &base) const;

    // Index of the node producing `value`, or -1 (graph input, constant, unknown).
    int producer(const std::string &value_name) const;
    // Indices of the nodes reading `value`, in node order.
    std::vector<int> consumers(const std::string &value_name) const;
    bool is_output(const std::string &value_name) const;

    // True when every node's inputs are graph inputs, constants or outputs of
    // earlier nodes.
    bool is_topologically_sorted() const;
    // Stable topological sort (keeps the original order among ready nodes). Throws
    // GraphError on a cycle or an input no one produces, naming the node.
    void sort_topologically();

    // One line per input, node (with its inputs' and outputs' types and attributes),
    // and output; constants are summarised by count and size.
    void print(std::ostream &os) const;
};

inline void print_graph(const Graph &g, std::ostream &os) {
    g.print(os);
}

} // namespace tessera::graph
