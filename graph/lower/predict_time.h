// The Tessera plugin's predicted time of one node, lowered alone: what the layout
// choice (passes/assign_layouts) compares a convolution's NCHW and blocked forms by.
// The plugin is reached through Halide's autoscheduler interface only: it opens its
// schedule source with "// Tessera predicts X ms for N compute-intensive stage(s)".
#pragma once

#include "graph.h"

#include <Halide.h>

namespace tessera::graph {

// The predicted ms in a schedule source of the Tessera plugin; -1 when it has none
// (no stage was compute-intensive, or another scheduler wrote it).
double predicted_ms_in(const std::string &schedule_source);

// Node `node` of `g` as a pipeline of its own, scheduled by Tessera for `target`
// (the plugin must be loaded): its predicted ms, or -1.
double predict_node_ms(const Graph &g, int node, const Halide::Target &target, const Halide::MachineParams &params);

}  // namespace tessera::graph
