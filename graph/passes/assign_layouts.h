// assign_layouts: the activation layout of each convolutional node, NCHW, NHWC or
// channel-blocked NCHW[x]c (ALT, EuroSys'23): layout as a compile-time decision of the
// graph, propagated through the memory-bound operators that follow a convolution,
// with conversions only where two layouts meet.
//
//   1. Candidates: each 2-D Conv (groups 1, or depthwise) with constant weights whose
//      window the op library compiles. Its layout is the fastest of NCHW and the
//      enabled alternatives (NCHW[b]c where the block divides its channels, NHWC) as
//      the scheduler's model predicts them (`predict_ms`: the scheduler's predicted time
//      of the node lowered alone, in each form), plus, when its input arrives in an
//      alternative layout (graph order: the producer's layout is known), the
//      conversions another form would need. Without a predictor NHWC is never
//      chosen and NCHW[b]c by the measured rule the model replaces: weights at most
//      `max_weight_ratio` times its output (beyond, the blocked kernel streams far
//      more weights than pixels).
//   2. Propagation (ALT's Algorithm 1 on a DAG): a layout-agnostic node (elementwise on
//      same-shape images or scalars, MaxPool, AveragePool, GlobalAveragePool, Concat,
//      a constant Pad of H and W)
//      computes in the layout of its first image input's producer that is not NCHW,
//      where it can (a block must divide its channels, and each Concat input's).
//   3. Cost: each connected region of one layout is kept only when its conversions
//      (NCHW -> its layout before it, back after it) move at most
//      `max_conversion_share` of the bytes its nodes move anyway (a region grown from
//      a convolution always holds one).
//   4. Rewrite: a node in layout L reads and writes values named `<value>_nhwc`
//      ([N, H, W, C]) or `<value>_nchw<b>c` ([N, C/b, H, W, b]); the original names
//      stay the NCHW values, computed by a conversion where something still reads
//      them (a graph output is always NCHW). Conversions: Transpose nodes for NHWC,
//      ToBlockedLayout / FromBlockedLayout for NCHW[b]c. Convolution weights are
//      transformed at compile time: HWIO for NHWC ([kh][kw][c] depthwise), panels
//      [oc/b][c][kh][kw][b] for NCHW[b]c ([c/b][kh][kw][b] depthwise, tagged with
//      kPackedBlockAttr as pack_weights does). A Concat's axis and a Pad's pads follow
//      its layout.
//
// Like pack_weights, the result is for the compiled path only: the reference evaluator
// runs the graph before this pass (it has no kernels for the conversion nodes).
#pragma once

#include "graph.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera::graph {

// An activation layout of a 4-D image.
enum class Layout { nchw, nhwc, blocked };

// Not ONNX attributes or ops: set and made only by this pass.
inline constexpr const char *kLayoutBlockAttr = "tessera_layout_block";  // on every blocked node
inline constexpr const char *kLayoutNhwcAttr = "tessera_layout_nhwc";    // 1 on every NHWC node
inline constexpr const char *kToBlockedOp = "ToBlockedLayout";           // [N,C,H,W] -> [N,C/b,H,W,b]
inline constexpr const char *kFromBlockedOp = "FromBlockedLayout";       // and back
inline constexpr const char *kBlockAttr = "block";                       // on the conversion nodes

struct LayoutOptions {
    // Channels per block: the vector width of the target's fp32 registers (16 with
    // AVX-512, 8 with AVX2), as oneDNN's nChw16c / nChw8c. 8 or 16.
    int64_t block = 16;
    // The alternatives to NCHW. NHWC is chosen only by prediction (predict_ms).
    bool blocked = true;
    bool nhwc = false;
    // A region's conversions may move at most this share of the bytes the region's
    // nodes move: a conversion reads and writes a whole activation, as a pointwise
    // op does, and the blocked kernels' gain must pay for it.
    double max_conversion_share = 0.25;
    // The predicted ms of node `node` of a graph (-1: no prediction); open_model
    // lowers the node alone (lower_single_node) and reads the Tessera scheduler's
    // ScheduleOutcome::predicted_ms.
    std::function<double(const Graph &, int node)> predict_ms;
    // What a conversion kernel moves per second (GB/s; a read and a write of the
    // tensor): a candidate whose input arrives in an alternative layout is charged,
    // in each other form, the conversions it needs on top of its predicted time.
    double conversion_gbs = 10;
    // Without a predictor: a convolution whose weights hold more than this many
    // times the elements of its output stays NCHW (see step 1).
    double max_weight_ratio = 128;
    // Keep only the regions whose convolutions gain from the layout (the default
    // `--layout auto`): those holding a depthwise convolution, and those whose 1x1
    // convolutions do at least min_pointwise_share of their convolutions' multiply-adds.
    // Blocked, MobileNet-class nets ran 1.28-1.33x faster on Zen 3 (MobileNetV2 0.69x ->
    // 0.84x onnxruntime on an Intel Xeon), and on the Xeon ResNet-50 (52% of its MACs in
    // 1x1s) 1.15x, ResNeXt-50 (92%) 1.17x, SqueezeNet 1.1 (40%) 1.40x, GoogLeNet (25%)
    // 1.10x, DenseNet-121 (52%) 0.99x; ResNet-18 and -34 (1%: only their downsampling
    // 1x1s) ran 0.96x, their dense 3x3s faster in NCHW (docs/experiments.md,
    // "Channel-blocked models").
    bool only_where_blocking_gains = false;
    double min_pointwise_share = 0.10;
};

// One connected region of nodes in one layout, kept or dropped, for --explain.
struct LayoutRegion {
    Layout layout = Layout::blocked;
    std::vector<std::string> nodes;  // node labels in graph order
    int convolutions = 0;            // Convs among them
    int depthwise = 0;               // depthwise Convs among those
    double conv_macs = 0;            // the Convs' multiply-adds
    double pointwise_macs = 0;       // those of the 1x1 Convs (groups 1) among them
    double bytes = 0;                // what its nodes move (node_cost)
    double conversion_bytes = 0;     // what its conversions would move
    std::vector<std::string> converted_in, converted_out;  // the values converted into its layout, and back
    bool kept = false;
    std::string reason;  // why it was kept or dropped
    int conversions() const { return int(converted_in.size() + converted_out.size()); }
};

// A convolution's predicted forms (when a predictor was given), indexed by Layout.
struct LayoutPrediction {
    std::string node;
    double ms[3] = {-1, -1, -1};             // predicted; -1: not an alternative, or no prediction
    double conversion_ms[3] = {0, 0, 0};     // the conversions its input would need
    Layout chosen = Layout::nchw;            // the fastest predicted, conversions included
};

struct LayoutReport {
    int64_t block = 0;
    std::vector<LayoutRegion> regions;
    std::vector<LayoutPrediction> predictions;  // per candidate convolution, graph order
    int blocked_nodes = 0, nhwc_nodes = 0, conversions = 0;  // after the pass
    // "nchw16c: 2 region(s), 41 node(s); nhwc: 1 region(s), 4 node(s); 3 conversion(s)
    // (0.90 MB); 1 region(s) kept NCHW"
    std::string summary() const;
    // One line per region: its nodes, traffic, conversions and the decision, and the
    // values converted into and out of a kept one; then each convolution's predicted
    // ms in each form.
    std::string describe() const;
};

// Throws GraphError on an option out of range. Leaves a graph with no candidate as it is.
LayoutReport assign_layouts(Graph &g, const LayoutOptions &options = {});

// The layout a node computes in, and its block (0 unless blocked).
Layout node_layout(const Node &node);
int64_t layout_block(const Node &node);

// "nchw", "nhwc", "nchw16c".
std::string layout_name(Layout layout, int64_t block);

// A copy of `g` in which node `node` alone computes in `layout` (its image inputs and
// its output new values in that layout, its weights transformed): what the predictor
// lowers.
Graph with_node_in_layout(const Graph &g, int node, Layout layout, int64_t block);

}  // namespace tessera::graph
