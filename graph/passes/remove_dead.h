// remove_dead: drops the nodes no graph output depends on, then the values (constants
// included) no remaining node or graph output refers to. Graph inputs always stay: they
// are the model's interface.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns the number of nodes removed.
int remove_dead(Graph &graph);

} // namespace tessera::graph
