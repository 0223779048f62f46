// prepare_graph: the passes every compiled model goes through, in order:
// fold_constants (shape arithmetic becomes constants, Reshape targets known),
// expand_definitions, fold_batch_norm, conv_transpose_as_conv, einsum_as_matmul, windows_3d_as_2d,
// uniform_windows, rewrite_patterns, remove_dead, and the check that every shape
// is static. `tessera compile`, `tessera run` and the tests share it.
#pragma once

#include "graph.h"
#include "rewrite_patterns.h"
#include "uniform_windows.h"

#include <string>

namespace tessera::graph {

struct PrepareReport {
    int folded = 0, expanded = 0, batch_norms = 0, conv_transposes = 0, einsums = 0, windows_3d = 0, removed = 0;
    UniformWindowCounts windows;
    RewriteCounts rewrites;
    std::string summary() const;  // "folded 12 nodes, 3 BatchNormalizations into convolutions, ..."
};

// Throws GraphError naming the first node whose output shape stays unknown.
PrepareReport prepare_graph(Graph &g);

}  // namespace tessera::graph
