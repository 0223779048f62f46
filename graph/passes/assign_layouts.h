// assign_layouts: channel-blocked activations (NCHW[x]c) for the convolutional parts of
// a model (seed 003, ALT): layout as a compile-time decision of the graph, propagated
// through the memory-bound operators that follow a convolution, with conversions only
// where a blocked operator meets one that needs NCHW.
//
//   1. Candidates: each 2-D Conv (groups 1, or depthwise) with constant weights whose
//      channel counts the block divides and whose window the op library compiles,
//      unless the scheduler's model (`predict_ms`: the plugin's predicted time of the
//      node lowered alone, in each form) predicts its blocked form slower. Without a
//      predictor, the measured rule the model replaces: weights at most
//      `max_weight_ratio` times its output (beyond, the blocked kernel re-reads the
//      weights per pixel).
//   2. Propagation (ALT's Algorithm 1 on a DAG): a layout-agnostic node (elementwise on
//      same-shape images or scalars, MaxPool, AveragePool, GlobalAveragePool) whose
//      image input is blocked computes blocked too.
//   3. Cost: each connected blocked region is kept only when its conversions
//      (NCHW -> blocked before it, blocked -> NCHW after it) move at most
//      `max_conversion_share` of the bytes its nodes move anyway (a region grown from
//      a convolution always holds one).
//   4. Rewrite: a blocked node reads and writes values named `<value>_nchw<b>c` of
//      shape [N, C/b, H, W, b]; the original names stay the NCHW values, computed by a
//      FromBlockedLayout node where something still reads them (a graph output is
//      always NCHW); ToBlockedLayout nodes feed blocked nodes from NCHW values.
//      Convolution weights become panels at compile time ([oc/b][c][kh][kw][b];
//      depthwise [c/b][kh][kw][b]), tagged with kPackedBlockAttr as pack_weights does.
//
// Like pack_weights, the result is for the compiled path only: the reference evaluator
// runs the graph before this pass (it has no kernels for the conversion nodes).
#pragma once

#include "graph.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera::graph {

// Not ONNX attributes or ops: set and made only by this pass.
inline constexpr const char *kLayoutBlockAttr = "tessera_layout_block";  // on every blocked node
inline constexpr const char *kToBlockedOp = "ToBlockedLayout";           // [N,C,H,W] -> [N,C/b,H,W,b]
inline constexpr const char *kFromBlockedOp = "FromBlockedLayout";       // and back
inline constexpr const char *kBlockAttr = "block";                       // on the conversion nodes

struct LayoutOptions {
    // Channels per block: the vector width of the target's fp32 registers (16 with
    // AVX-512, 8 with AVX2), as oneDNN's nChw16c / nChw8c. 8 or 16.
    int64_t block = 16;
    // A region's conversions may move at most this share of the bytes the region's
    // nodes move: a conversion reads and writes a whole activation, as a pointwise
    // op does, and the blocked kernels' gain must pay for it.
    double max_conversion_share = 0.25;
    // The predicted ms of node `node` of a graph (-1: no prediction); open_model
    // lowers the node alone and asks the Tessera plugin (graph/lower/predict_time.h).
    std::function<double(const Graph &, int node)> predict_ms;
    // Without a predictor: a convolution whose weights hold more than this many
    // times the elements of its output stays NCHW (see step 1).
    double max_weight_ratio = 16;
};

// One connected region of blocked nodes, kept or dropped, for --explain.
struct LayoutRegion {
    std::vector<std::string> nodes;  // node labels in graph order
    int convolutions = 0;            // Convs among them
    double bytes = 0;                // what its nodes move (node_cost)
    double conversion_bytes = 0;     // what its conversions would move
    int conversions = 0;
    bool kept = false;
    std::string reason;  // why it was kept or dropped
};

// A convolution's predicted forms (when a predictor was given).
struct LayoutPrediction {
    std::string node;
    double nchw_ms = -1, blocked_ms = -1;
    bool blocked_slower() const { return nchw_ms >= 0 && blocked_ms >= 0 && blocked_ms > nchw_ms; }
};

struct LayoutReport {
    int64_t block = 0;
    std::vector<LayoutRegion> regions;
    std::vector<LayoutPrediction> predictions;  // per candidate convolution, graph order
    int blocked_nodes = 0, conversions = 0;  // after the pass
    // "nchw16c: 2 regions, 41 nodes blocked, 3 conversions (0.9 MB); 1 region kept NCHW"
    std::string summary() const;
    // One line per region: its nodes, traffic, conversions and the decision; then
    // each convolution's predicted ms in both forms.
    std::string describe() const;
};

// Throws GraphError on an option out of range. Leaves a graph with no candidate as it is.
LayoutReport assign_layouts(Graph &g, const LayoutOptions &options = {});

// The block a node computes in (0: NCHW).
int64_t layout_block(const Node &node);

// A copy of `g` in which node `node` alone computes blocked (its image inputs and its
// output new blocked values, its weights panels): what the predictor lowers.
Graph with_node_blocked(const Graph &g, int node, int64_t block);

}  // namespace tessera::graph
