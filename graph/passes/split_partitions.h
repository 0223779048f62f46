// split_partitions: a fusion decision taken back. A fused partition's pieces are the
// partitions the --no-fusion plan makes of its nodes (one per node, a shape-only node
// with its producer); `tessera compile --tune` times a partition against its pieces run
// one after another and splits the partitions whose pieces ran faster, so fusion never
// makes a partition slower than its pieces (apps/model/tune_fusion.h).
#pragma once

#include "graph.h"
#include "partition.h"

#include <vector>

namespace tessera::graph {

// Per partition of `plan`, its pieces in topological order: empty where the partition
// is one piece already, or where the unfused partitions of its nodes reach outside it
// (a reshape fused in front of its reader stays with its producer when unfused).
std::vector<std::vector<Partition>> fusion_pieces(const Graph &g, const FusionPlan &plan);

// The plan with each partition k where split[k] replaced by pieces[k], numbered again in
// order. Throws GraphError when a partition to split has no pieces.
FusionPlan split_partitions(const FusionPlan &plan, const std::vector<std::vector<Partition>> &pieces,
                            const std::vector<bool> &split);

} // namespace tessera::graph
