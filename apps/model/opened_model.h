// What every tessera command (and tessera-bench --model) does first: import the
// model (with --input-shape overrides), run the graph passes, and plan the
// partitions against this machine's balance (the device profile the scheduler
// reads too).
#pragma once

#include "graph.h"
#include "pack_weights.h"
#include "partition.h"
#include "plan_chains.h"
#include "plan_fusion.h"
#include "prepare_graph.h"

#include <Halide.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::cli {

// A usage error: the message is printed with the usage, exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ModelOptions {
    std::string model;  // .onnx path
    std::map<std::string, std::vector<int64_t>> input_shapes;
    bool fuse = true;
    bool chains = true;  // plan_chains: attention chains as one partition (--no-chains)
    // --layout: which constant weights pack_weights lays out as the panels the
    // packed conv2d / matmul read. auto (the default): matrix-vector products only;
    // packed: every convolution and matrix product (the models ran 9-36% slower,
    // docs/results.md); fixed: none, the model's own layouts.
    std::string layout = "auto";
    std::string scheduler = "Tessera";
    bool ahead_of_time = false;  // `tessera compile`: GPU targets allowed
    std::string target = "host";
};

// Parses "name=1x3x224x224" into options.input_shapes; throws UsageError.
void add_input_shape(ModelOptions &options, const std::string &arg);
// Parses --layout's value: "auto" (the default), "packed" or "fixed"; throws UsageError.
void set_layout(ModelOptions &options, const std::string &arg);

struct OpenedModel {
    graph::Graph graph;
    graph::PrepareReport prepared;
    int packed_weights = 0;  // nodes whose constant weights pack_weights laid out as panels
    graph::FusionPlan plan;
    Halide::Target target;
    std::function<void(Halide::Pipeline &)> schedule;  // the chosen scheduler, for target
};

// Throws graph::GraphError (the model), UsageError (an unknown scheduler or target).
OpenedModel open_model(const ModelOptions &options);

}  // namespace tessera::cli
