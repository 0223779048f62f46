// Partition: the unit the graph layer's stages agree on. The fusion plan makes
// it (a set of nodes that become one kernel), lowering turns it into one Halide
// Pipeline, the Tessera plugin schedules it and emission makes it one object.
// A partition has exactly one output value: the value of its last node, which is
// all that the rest of the graph (or the caller) reads of it.
#pragma once

#include <string>
#include <vector>

namespace tessera::graph {

struct Partition {
    std::string name;                // "p3_conv1" (index and the anchor or first node)
    bool compute_intensive = false;  // anchored on a compute-intensive node
    std::vector<int> nodes;          // node indices, topological order; the last produces `output`
    std::vector<std::string> inputs; // values read from outside: graph inputs, constants, other partitions
    std::string output;
    double flops = 0;
    double dram_bytes = 0; // compulsory: every input read once, the output written once
    // Two matrix products with the stages between them (passes/plan_chains): the
    // plugin's chain analysis decides whether to fuse them.
    bool chain = false;
};

struct FusionPlan {
    std::vector<Partition> partitions; // topological order
    double balance = 0;                // device FLOP per DRAM byte the classification used
    int kernels_before = 0;            // one per node that moves data (shape-only nodes excluded)
    double dram_bytes_before = 0;      // every such node's compulsory traffic
    double dram_bytes_after = 0;       // every partition's
};

} // namespace tessera::graph
