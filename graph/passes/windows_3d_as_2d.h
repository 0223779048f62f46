// windows_3d_as_2d: 3-D convolutions and pools (video and volumetric models,
// [N, C, D, H, W]) written as the 2-D windows the op library compiles.
// - Conv: the depth axis moves next to the batch ([N, D, C, H, W], its pads a Pad),
//   and each depth tap kd becomes a 2-D convolution of the input planes it reads
//   (depth kd dd + od sd for every output depth od, batched as [N Do, C, H, W]) with
//   that tap's weights [M, C/g, KH, KW]; a Sum adds the taps, and the result goes
//   back to [N, M, Do, Ho, Wo]. Groups, strides, dilations and pads keep their meaning.
// - MaxPool and AveragePool are separable: the 2-D window over (H, W) on
//   [N, C D, H, W], then a (KD x 1) window over the depth on [N, C Ho Wo, D, 1].
//   Both averages divide by per-axis counts, whose product is the 3-D count (padding
//   counted or not), so the average of averages is the 3-D average.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns how many windows were rewritten.
int windows_3d_as_2d(Graph &g);

} // namespace tessera::graph
