// conv_transpose_as_conv: a ConvTranspose over one or two spatial axes (three without
// strides; the 3-D Conv then goes through windows_3d_as_2d) rewritten as the Conv it equals, so that it runs on the op library's
// convolution programs: the input with stride - 1 zeros inserted between its elements
// (Reshape, Pad, Reshape, Slice), padded by (k - 1) * dilation - pad on each side
// (plus output_padding at the end; cropped where that is negative), convolved at
// stride 1 with the weights transposed per group ([C, M/g, k] -> [M, C/g, k]) and
// flipped along each spatial axis (weights computed at run time: Reshape, Transpose, a
// Gather of the taps in reverse and Reshape nodes). The zeros cost stride^2 the useful work; what it
// buys is correctness and the tuned convolution. Runs after fold_constants, before
// uniform_windows (which lifts the 1-D ones and moves uneven pads into a Pad).
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns how many ConvTransposes were rewritten.
int conv_transpose_as_conv(Graph &g);

} // namespace tessera::graph
