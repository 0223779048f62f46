// Random valid ONNX graphs from a seed, for differential testing (after NNSmith,
// ASPLOS'23): image values grown by random convolutions (grouped, strided, padded
// evenly or not, dilated, with and without bias) and transposed convolutions,
// activations, broadcasting elementwise ops, pools (ceil_mode too), Concats of
// branches, squeeze-excite products and gates by other reductions, a softmax,
// transposes to NHWC and back, matrix products along the last axis, Pads (constant,
// edge, reflect), LRN, SpaceToDepth and DepthToSpace, Resizes (nearest, linear,
// cubic), and masks (ArgMax of the input, Equal, Not; int64 and bool values between
// partitions) applied by Where or as a cast factor, with fan-out (a value read by
// several nodes) and odd sizes.
#pragma once

#include "model_builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::graph::testing {

struct RandomGraph {
    ModelBuilder model;
    std::vector<std::string> nodes;   // "Conv c3 = c1 k3 s2 p1 g1 -> 1x8x5x6", one per node, for messages
    std::vector<std::string> values;  // every value a generator step made, in order (the shrinker's outputs)
};

// A graph of about `nodes` nodes (fewer where shapes run out) from `seed`.
RandomGraph random_graph(uint64_t seed, int nodes);

}  // namespace tessera::graph::testing
