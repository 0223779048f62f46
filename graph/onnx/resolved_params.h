// Attribute and value-input readings resolved against the input shapes, shared by the
// shape rules that define them and by the evaluator (later the lowering) that obeys
// them, so that opset differences (axes as attribute or input, Softmax's coercion to
// 2-D before opset 13) are decided in one place. Each fails through ctx naming the node.
#pragma once

#include "op_rule.h"

#include <map>

namespace tessera::graph {

// Softmax as [outer, n, inner] with the normalised axis n: before opset 13 the input is
// coerced to 2-D at `axis` (n is everything from axis on, inner 1); from 13 on `axis`
// is a single axis.
struct SoftmaxGeometry {
    int64_t outer = 1, n = 1, inner = 1;
};
SoftmaxGeometry softmax_geometry(const InferContext &ctx);

// A reduction's (ReduceSum, ReduceMean, ...) reduced axes, normalised and sorted (all
// axes when absent; none, the identity, when absent with noop_with_empty_axes).
std::vector<int64_t> reduce_axes(const InferContext &ctx);

// LayerNormalization's first normalised axis.
int64_t layer_norm_axis(const InferContext &ctx);

// Slice per input axis: start, step and output length (all axes, untouched ones
// start 0 step 1).
struct SliceParams {
    std::vector<int64_t> start, step, length;
};
// nullopt when starts/ends/axes/steps are not constants (yet).
std::optional<SliceParams> slice_params(const InferContext &ctx);

// Split's part sizes along its axis; nullopt when the split input is not constant.
std::optional<std::vector<int64_t>> split_sizes(const InferContext &ctx, int64_t *axis);

// Unsqueeze's inserted / Squeeze's removed axes, normalised and sorted; nullopt when
// they come from an input that is not constant.
std::optional<std::vector<int64_t>> unsqueeze_axes(const InferContext &ctx);
std::optional<std::vector<int64_t>> squeeze_axes(const InferContext &ctx);

// The value a Constant node holds (value, value_float(s), value_int(s)).
TensorData constant_node_value(const InferContext &ctx);

// Pad in constant mode: the padding before and after each axis and the fill value
// (opset 2-10 attributes, 11+ inputs); nullopt while the pads or the value are
// inputs not constant (yet). Fails on negative pads (cropping) and on an axes input.
// Pad's mode: constant (the value), edge (the nearest element), reflect (mirrored
// about the edge element, which is not repeated) or wrap (opset 19: periodic).
enum class PadMode { Constant, Edge, Reflect, Wrap };
struct PadSpec {
    std::vector<int64_t> before, after;
    double value = 0;
    PadMode mode = PadMode::Constant;
};
// The input index an output index `i` (counted from the input's first element, so
// negative in the before-padding) reads along an axis of `n` elements, in a mode
// other than Constant.
int64_t pad_source(int64_t i, int64_t n, PadMode mode);
std::optional<PadSpec> pad_spec(const InferContext &ctx);

// Clip's bounds (attributes min and max before opset 11, optional scalar inputs from
// 11 on); an absent bound is no bound. nullopt while a bound is an input not constant.
struct ClipBounds {
    std::optional<double> lo, hi;
};
std::optional<ClipBounds> clip_bounds(const InferContext &ctx);

// Resize / Upsample along one axis: the taps each output position reads, one for
// nearest, two for linear, four for cubic: tap k reads input position index[k][i]
// (clamped to the axis: the edge repeats) with weight weight[k][i]. `resized` is false
// where the axis keeps its extent and positions.
struct ResizeTaps {
    bool resized = false;
    std::vector<std::vector<int64_t>> index;
    std::vector<std::vector<double>> weight;
};
// One per axis; nullopt while scales or sizes are inputs not constant (yet).
std::optional<std::vector<ResizeTaps>> resize_taps(const InferContext &ctx);

// Keys' cubic convolution weights (coefficient a) of the four taps around a point at
// fraction s past the second: distances 1 + s, s, 1 - s and 2 - s.
std::vector<double> cubic_weights(double s, double a);

// GridSample (opsets 16 and 20, 4-D input): how each output point samples X at the
// normalised (x, y) its grid holds.
struct GridSampleSpec {
    enum class Mode { Linear, Nearest, Cubic } mode = Mode::Linear;
    enum class Padding { Zeros, Border, Reflection } padding = Padding::Zeros;
    bool align_corners = false;
};
GridSampleSpec grid_sample_spec(const InferContext &ctx);

// Einsum's terms: one string of indices per operand and the output's (explicit, or
// the indices that appear once, sorted).
struct EinsumSpec {
    std::vector<std::string> inputs;
    std::string output;
};
EinsumSpec parse_einsum(const InferContext &ctx);
// Each index's extent (equal wherever it appears).
std::map<char, int64_t> einsum_extents(const InferContext &ctx, const EinsumSpec &spec);

// Transpose's permutation (default: reversed axes).
std::vector<int64_t> transpose_perm(const InferContext &ctx);

} // namespace tessera::graph
