// uniform_windows: Conv, MaxPool and AveragePool rewritten into the windows the op
// library's conv2d and pooling take (one pad, stride and dilation for both axes and
// both sides), so that models with other windows compile instead of being refused:
// - over one spatial axis ([N, C, L], audio and sequence models): the 2-D form over
//   [N, C, L, 1] with a k x 1 window, between two Reshapes;
// - an axis of extent 1 with a 1-wide unpadded window (a lifted axis, or PyTorch's
//   Unsqueeze + 2-D pool form of a 1-D pool) takes the other axis' stride and dilation:
//   it has one output either way;
// - other strides that differ between the axes (2 x 1, an audio model's) become their
//   gcd, and a Pad, Reshape, Slice and Reshape keep every (stride / gcd)-th output:
//   the window computes the skipped outputs too, which is correct, not fast;
// - pads that differ between axes or sides (SAME_UPPER's odd pad, a lifted axis) move
//   into a Pad node before the window (zeros; -inf for MaxPool). An AveragePool that
//   excludes padding from its divisor then counts it, and a Mul by a constant map of
//   window size / points inside the input puts each output's own divisor back. Not
//   with ceil_mode, whose results depend on where the padding is: those keep their
//   pads and the lowering names what it lacks.
// Runs after fold_constants (shapes known) and fold_batch_norm (Conv -> BN adjacent).
#pragma once

#include "graph.h"

namespace tessera::graph {

struct UniformWindowCounts {
    int lifted_1d = 0;  // 1-D windows rewritten as 2-D
    int padded = 0;     // windows given a Pad node for their uneven pads
    int rescaled = 0;   // of those, averages excluding padding rescaled by a Mul
    int strided = 0;    // windows computed at their strides' gcd, every few outputs kept
};

UniformWindowCounts uniform_windows(Graph &g);

} // namespace tessera::graph
