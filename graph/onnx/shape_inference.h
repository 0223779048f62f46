// Checking nodes against their OpRule and inferring output dtypes and shapes, for a
// whole graph (import, passes) or for one node given its inputs (the evaluator).
#pragma once

#include "op_rule.h"

namespace tessera::graph {

// Op type known at this opset, input/output counts, attribute names, the rule's
// attribute and dtype checks. Throws GraphError naming the node.
void check_node(const Node &node, int opset, const std::vector<const TensorInfo *> &inputs);

// Infers one node's outputs from its inputs' infos: dtypes always, shapes when every
// present input's shape is known and the values the shapes depend on are constants.
std::vector<TensorInfo> infer_node(const Node &node, int opset, const std::vector<const TensorInfo *> &inputs);

// Checks every node and (re)infers every node output in topological order, updating
// graph.values. Constants are left as they are.
void infer_shapes(Graph &graph);

// Throws GraphError naming the first node whose output shape is still unknown (a value
// the shape depends on is computed at run time), or does nothing.
void require_static_shapes(const Graph &graph);

// The infos of a node's inputs in `graph` (nullptr for omitted ones).
std::vector<const TensorInfo *> input_infos(const Graph &graph, const Node &node);

} // namespace tessera::graph
