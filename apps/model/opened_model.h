// What every tessera command (and tessera-bench --model) does first: import the
// model (with --input-shape overrides), run the graph passes, and plan the
// partitions against this machine's balance (the device profile the scheduler
// reads too).
#pragma once

#include "assign_layouts.h"
#include "graph.h"
#include "measured_layouts.h"
#include "pack_weights.h"
#include "partition.h"
#include "plan_chains.h"
#include "plan_fusion.h"
#include "prepare_graph.h"
#include "scheduler_options.h"
#include "schedulers.h"

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
    // --layout: chosen: each convolution's layout, NCHW, NHWC or channel-blocked
    // NCHW[b]c, the fastest the Tessera plugin's model predicts, propagated through
    // the memory-bound nodes after it (assign_layouts), and the matrix-vector
    // products' weights packed; blocked / nhwc: the same with one alternative to NCHW;
    // nchwc: every convolution with a channel-blocked form in it, unpredicted (as
    // onnxruntime runs CNNs; regions whose conversions cost too much still stay NCHW);
    // measured: as chosen, each convolution's forms timed on this machine instead
    // (measured_layouts.h, `layout_timing`);
    // auto (the default): only the matrix-vector products' weights packed into the panels the
    // packed matmul reads; packed: every convolution's and matrix product's weights
    // (the models ran 9-36% slower, docs/results.md); fixed: none, the model's own.
    std::string layout = "auto";
    // --channel-block: NCHW[b]c's b, 8 or 16 (0: the target's vector of fp32,
    // channel_block_for). 16 on AVX2 gives the blocked 3x3 convolutions register tiles
    // two vectors wide (ResNet-18 all blocked 1.1-1.3x faster on Zen 3); a tuned graph
    // alternative there.
    int64_t channel_block = 0;
    // --layout measured: how each form is timed (threads, rounds, the tuning log).
    NodeTimingSettings layout_timing;
    std::string scheduler = "Tessera";
    // Tessera's options (the device profile included): they schedule the partitions,
    // predict the layouts' times and give the balance the fusion plan classifies by.
    SchedulerOptions scheduler_options;
    bool ahead_of_time = false;  // `tessera compile`: GPU targets allowed
    std::string target = "host";
};

// Parses "name=1x3x224x224" into options.input_shapes; throws UsageError.
void add_input_shape(ModelOptions &options, const std::string &arg);
// Parses --channel-block's value (8 or 16); throws UsageError.
void set_channel_block(ModelOptions &options, const std::string &arg);
// Parses --layout's value: "auto" (the default), "chosen", "measured", "blocked", "nchwc", "nhwc",
// "packed" or "fixed"; throws UsageError.
void set_layout(ModelOptions &options, const std::string &arg);

struct OpenedModel {
    graph::Graph graph;
    graph::PrepareReport prepared;
    graph::LayoutReport layouts;  // assign_layouts' regions (--layout chosen, measured, blocked, nchwc, nhwc)
    int packed_weights = 0;       // nodes whose constant weights pack_weights laid out as panels
    graph::FusionPlan plan;
    Halide::Target target;
    SchedulerChoice choice;                            // the scheduler, its target and options
    std::function<void(Halide::Pipeline &)> schedule;  // apply_scheduler with `choice`
};

// Whether --layout asks assign_layouts for the activations' layouts.
bool assigns_layouts(const ModelOptions &options);

// The Halide target `options.target` names ("host": this machine's). Throws UsageError
// for a string Halide does not read.
Halide::Target target_of(const ModelOptions &options);

// The channel block of NCHW[b]c for a target: one vector of fp32 (16 with AVX-512, else 8).
int64_t channel_block_for(const Halide::Target &target);
// The block a model opened with `options` uses: options.channel_block, else the target's.
int64_t channel_block_of(const ModelOptions &options, const Halide::Target &target);

// "layouts: blocked, nchw16c: ...; constant weights of 1 other node(s) packed ...".
std::string describe_layouts(const ModelOptions &options, const OpenedModel &opened);

// Throws graph::GraphError (the model), UsageError (an unknown scheduler or target).
OpenedModel open_model(const ModelOptions &options);

}  // namespace tessera::cli
