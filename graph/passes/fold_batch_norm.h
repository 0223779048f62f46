// fold_batch_norm: a BatchNormalization whose input comes from a Conv with constant
// weights (and constant bias, or none), whose own parameters are constants, and whose
// input no one else reads, is folded into the Conv at compile time:
//   W'[m] = W[m] * s[m],  b'[m] = (b[m] - mean[m]) * s[m] + beta[m],  s = scale / sqrt(var + eps).
// The Conv then writes the BN's output; any other BN stays as it is.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns the number of BatchNormalization nodes folded. New weights get fresh names
// (the old ones may be shared); remove_dead drops the unused originals.
int fold_batch_norm(Graph &graph);

} // namespace tessera::graph
