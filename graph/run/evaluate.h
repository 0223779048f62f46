// evaluate: runs a Graph on host tensors with the reference kernels (graph/run/kernel.h).
// fold_constants uses it for constant subgraphs; tests use it as the oracle for
// compiled models.
#pragma once

#include "graph.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::graph {

using TensorMap = std::map<std::string, TensorData>;

// `inputs` by graph input name; returns every graph output by name. Throws GraphError
// for a missing input or one whose dtype or shape differs from the graph's, and for
// errors of the nodes (e.g. a Gather index out of range), naming the node.
TensorMap evaluate(const Graph &graph, const TensorMap &inputs);

// Throws GraphError naming `who` and the input when `inputs` lacks a graph input or
// holds one of another dtype or shape than the graph's.
void check_graph_inputs(const Graph &graph, const TensorMap &inputs, const std::string &who);

// Runs one node on the given inputs (nullptr for omitted optional ones); output shapes
// come from the node's OpRule applied to the actual input values.
std::vector<TensorData> evaluate_node(const Node &node, int opset, const std::vector<const TensorData *> &inputs);

} // namespace tessera::graph
