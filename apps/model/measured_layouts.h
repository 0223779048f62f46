// `--layout measured`: each convolution's forms (NCHW, NCHW[b]c, NHWC) timed on this
// machine instead of predicted. assign_layouts asks its predictor for the time of a
// node in each form (the graph it is given holds the node in that form); this one
// lowers the node alone, schedules it with Tessera's untuned choice, JIT-compiles it and
// returns the fastest of a few runs with the model's thread count. A node seen before
// (the same ops, attributes and shapes: a model's repeated blocks, or a record of the
// tuning log) is not measured again; new measurements are appended to the log. The
// layout pass then weighs the measured times against its modelled conversions as it
// weighs predictions (graph/passes/assign_layouts.h).
#pragma once

#include "graph.h"
#include "schedulers.h"

#include <functional>
#include <string>

namespace tessera::cli {

struct NodeTimingSettings {
    int threads = 0;       // the model's thread pool (0: every core this process may use)
    int rounds = 5;        // timed rounds after one warm-up; the fastest counts
    std::string log_path;  // the tuning log read and appended to; empty: none
    bool append_to_log = true;  // false: the log is only read (inspect shows what a compile would take)
    // Replaces the timing (each form still lowered, scheduled and compiled): given the
    // node's name and its form ("nchw", "nhwc", "nchw8c"), the ms. For tests.
    std::function<double(const std::string &node, const std::string &form)> timer_override;
    std::function<void(const std::string &)> progress;  // a line per node measured
};

// A predictor for assign_layouts (LayoutOptions::predict_ms) that measures. `untuned`:
// the Tessera scheduler, its target and options. Throws graph::GraphError for a
// malformed log (at the first call).
std::function<double(const graph::Graph &, int node)> measured_node_ms(const SchedulerChoice &untuned,
                                                                      const NodeTimingSettings &settings);

// The form a node of `g` computes in, as measured_node_ms names it ("nchw", "nchw8c").
std::string node_form(const graph::Graph &g, int node);

}  // namespace tessera::cli
