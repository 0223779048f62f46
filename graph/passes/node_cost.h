// What a node costs on its own: floating-point operations and compulsory DRAM
// traffic (each input read once, each output written once, 4 bytes per fp32
// element). The fusion plan classifies nodes by their ratio, their arithmetic
// intensity, against the device's balance (PowerFusion: by intensity, not op type).
#pragma once

#include "graph.h"

namespace tessera::graph {

struct NodeCost {
    double flops = 0;
    double bytes = 0;
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

NodeCost node_cost(const Graph &g, const Node &node);

// Nodes that only reinterpret a shape (Reshape, Flatten, Squeeze, Unsqueeze,
// Identity): no data moves, so no kernel of their own.
bool is_shape_only(const Node &node);

// Conv, MatMul and Gemm: each output point a sum over a window or a row.
bool is_contraction(const Node &node);

// Nodes computed point by point (an output element reads the inputs' elements at
// the same, broadcast, position): the epilogues a compute-intensive node absorbs.
bool is_elementwise(const Node &node);

} // namespace tessera::graph
