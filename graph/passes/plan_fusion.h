// plan_fusion: PowerFusion's partitioning. Each node is classified by
// its arithmetic intensity against the device balance (peak FLOP/s over DRAM
// bytes/s, from the same device profile the scheduler reads): compute-intensive
// nodes anchor a kernel of their own and absorb the elementwise epilogues that
// follow them (bias, residual add, relu/clip/gelu) and shape-only reshapes, and
// the pointwise prologues only they read (a transpose, a scale);
// connected memory-bound nodes (elementwise, broadcast, reductions, transposes,
// softmax, layer_norm, pooling) become one kernel whose intermediates never
// return to memory. A value read by several nodes, or by the caller, ends its
// kernel: every partition has one output (see Partition).
#pragma once

#include "graph.h"
#include "partition.h"

namespace tessera::graph {

struct FusionOptions {
    double balance = 10; // FLOP per DRAM byte at which a node becomes compute-intensive
    bool fuse = true;    // false: one partition per node, reshapes kept with their producer (--no-fusion)
};

// The graph must be topologically sorted with every shape known.
FusionPlan plan_fusion(const Graph &g, const FusionOptions &options);

// "Conv+Add+Relu": the op types of a partition's nodes, in order.
std::string partition_op_types(const Graph &g, const Partition &p);

// Numbers the partitions in order, each keeping its anchor's part of the name
// ("p3_conv1"): after partitions were merged or split.
void number_partitions(std::vector<Partition> &partitions);

// "fusion: 65 kernels -> 23, predicted DRAM traffic 120.5 MB -> 60.2 MB (balance 10.0 FLOP/B)\n"
std::string fusion_summary(const FusionPlan &plan);

// One line per partition and the summary (kernels and predicted DRAM bytes before
// and after fusion), as `tessera compile --explain` prints it.
std::string describe_plan(const Graph &g, const FusionPlan &plan);

} // namespace tessera::graph
