// fold_constants: evaluates every node whose inputs are all constants with the reference
// evaluator and replaces it by its outputs as constants; a Shape node folds as soon as
// its input's shape is known. Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains
// (PyTorch's exporter) thereby collapse into a constant shape, and the shapes downstream
// are re-inferred in the same sweep.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns the number of nodes folded. The inputs the folded nodes read stay in the
// graph; remove_dead drops those no one needs any more.
int fold_constants(Graph &graph);

} // namespace tessera::graph
