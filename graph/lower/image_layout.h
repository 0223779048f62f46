// The image a convolution or pooling node reads in the layout assign_layouts gave it:
// its NCHW extents wherever they sit (NCHW [N,C,H,W], NHWC [N,H,W,C], NCHW[b]c
// [N,C/b,H,W,b]) and the op library's keys for that layout.
#pragma once

#include "assign_layouts.h"
#include "lower_rule.h"
#include "op_config.h"

namespace tessera::graph {

struct LayoutImage {
    Layout layout = Layout::nchw;
    int64_t block = 0;                 // NCHW[b]c only
    int64_t n = 0, c = 0, h = 0, w = 0;

    // Where the channels sit in the node's output (the axis of a bias added to it).
    int64_t channel_axis() const { return layout == Layout::nhwc ? 3 : 1; }
    // The op library's keys for the layout: none for NCHW, layout=nhwc, or
    // layout=nchwc block=b.
    ops::OpConfig &add_layout(ops::OpConfig &config) const;
};

// Input 0 of the node as an image; fails naming `what` ("2-D convolutions") unless its
// rank is the layout's.
LayoutImage layout_image(const LowerContext &ctx, const std::string &what);

}  // namespace tessera::graph
