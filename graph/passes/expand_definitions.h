// expand_definitions: ops whose compiled form is their definition in other ONNX ops,
// written in their place:
// - a LayerNormalization whose Mean or InvStdDev output is read (a training graph's
//   statistics) becomes ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt, Reciprocal and
//   the scale and bias; one whose statistics nobody reads drops those outputs and
//   stays the fused op;
// - a Dropout's mask output (all true at inference) becomes a constant;
// - a Clip whose bounds are computed at run time becomes Max and Min (broadcast);
// - DepthToSpace (DCR or CRD) and SpaceToDepth become Reshape, Transpose, Reshape;
// - LRN becomes the square, a size x 1 average over the channels, and a Pow;
// - MeanVarianceNormalization becomes its ReduceMeans, Sqrt and Div.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns how many nodes were rewritten.
int expand_definitions(Graph &g);

} // namespace tessera::graph
