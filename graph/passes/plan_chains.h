// plan_chains: hands chains of compute-intensive operators to one partition
// (Chimera, HPCA'23). Two partitions, each with one matrix product (MatMul or
// Gemm), become one when the first one's output is read only by the second and
// every other node of both is pointwise, a softmax or a data movement (transpose,
// slice, reshape) and a softmax among them: an attention (Q·Kᵀ -> scale ->
// [+ mask] -> softmax -> ·V). The Tessera plugin's chain analysis then decides
// within that one pipeline whether to fuse (the block orders' predicted data
// movement) or to schedule the stages one by one, and says which under
// TESSERA_EXPLAIN. GEMM -> activation -> GEMM chains (see plan_chains.cpp) and
// convolution chains are left apart: the plugin fuses the first slower than it
// runs them apart, and analyses the second without fusing them yet.
#pragma once

#include "graph.h"
#include "partition.h"

namespace tessera::graph {

FusionPlan plan_chains(const Graph &g, FusionPlan plan);

} // namespace tessera::graph
