// tessera-bench --model F.onnx --per-layer: where a model loses. Every partition of
// Tessera's plan is timed inside runs of the whole model (JitModel, the model's thread
// pool: its inputs in cache as they are in the model), and the same nodes, cut out of
// the ONNX model as a small model of their own, are timed in onnxruntime with the same
// thread count (scripts/per_layer_peer.py); and onnxruntime's whole model is profiled,
// each of its kernels counted to the partition whose nodes it computes (its time inside
// its own model, weights as cold as they are there). The table is sorted by the time
// lost against the nodes alone.
#pragma once

#include "model_bench.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tessera::bench {

struct LayerRecord {
    std::string model;      // the .onnx file
    std::string partition;  // Tessera's partition name, e.g. "p12_Conv_34"
    std::string family;     // "depthwise 3x3 conv", "1x1 conv", "matmul", "MaxPool", ...
    std::string ops;        // the partition's op types, "Conv+Relu"
    std::string shape;      // its output's, "1x32x112x112"
    std::string layout;     // nchw, nhwc or nchw16c (its anchor's)
    double tessera_ms = 0;  // median over the model runs (the mean of the passes before and after the peer's)
    double peer_ms = 0, peer_min_ms = 0;  // onnxruntime on the same nodes; 0 when it did not run
    std::string peer_error; // why onnxruntime has no time for it
    double peer_call_overhead_ms = 0;  // one onnxruntime session.run with nothing to compute
    // onnxruntime's kernels for these nodes inside its whole model, profiled (0: none
    // claimed); and, the same for every layer of a model, its whole run and the time of
    // the kernels no layer claims (its layout conversions).
    double peer_in_model_ms = 0;
    double peer_model_run_ms = 0, peer_unclaimed_ms = 0;
    bool has_in_model() const { return peer_in_model_ms > 0; }
    bool has_peer() const { return peer_error.empty() && peer_ms > 0; }
    double lost_ms() const { return has_peer() ? tessera_ms - peer_ms : 0; }
};

// The op family a partition counts under: its anchor (first compute-intensive node,
// else first node) with convolutions told apart by kind (depthwise, grouped,
// pointwise 1x1, KxK) and kernel size.
std::string layer_family(const graph::Graph &g, const graph::Partition &p);

// Times every partition of o.model (o.reps model runs after o.warmup) and, when
// o.python runs onnxruntime and it is among o.against, the same nodes there. Prints
// progress. Throws ModelInputError for a bad model or input.
std::vector<LayerRecord> bench_layers(const ModelBenchOptions &o);

// The table of one model's layers, sorted by time lost, then the sums per family.
std::string format_layer_table(const std::vector<LayerRecord> &layers);
// Sums per family over any number of models (the summary of --suite models --per-layer).
std::string format_family_summary(const std::vector<LayerRecord> &layers);

nlohmann::json to_json(const LayerRecord &r);

}  // namespace tessera::bench
