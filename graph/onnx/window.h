// Window: the sliding-window geometry shared by Conv, MaxPool and AveragePool, with
// auto_pad and ceil_mode resolved into explicit per-axis pads and output sizes. The
// evaluator and the lowering read this rather than the raw attributes.
#pragma once

#include "op_rule.h"

namespace tessera::graph {

struct Window {
    std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end, out; // one per spatial axis
};

// auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER.
void check_auto_pad(const InferContext &ctx);

// `spatial`: the input's spatial extents; `kernel`: the window's. Fails on attribute
// lists of the wrong length or a window larger than the padded input.
Window resolve_window(const InferContext &ctx, const Shape &spatial, const std::vector<int64_t> &kernel,
                      bool ceil_mode);

// ConvTranspose's geometry (the Window fields, with `out` the transposed output and
// output_padding the extra positions at each axis' end): explicit pads, auto_pad, or
// output_shape with the pads it implies, as ONNX defines them.
struct TransposedWindow : Window {
    std::vector<int64_t> output_padding;
};
TransposedWindow resolve_transposed_window(const InferContext &ctx, const Shape &spatial,
                                           const std::vector<int64_t> &kernel);

// One pad, stride and dilation for both axes and both sides: the windows the op
// library's conv2d and pooling take.
bool uniform_window(const Window &w);

// Whether `w` gives every spatial axis of `input` the output the floor rule gives
// (ceil_mode adding a window is not compiled).
bool floor_windows(const Window &w, const Shape &spatial);

} // namespace tessera::graph
