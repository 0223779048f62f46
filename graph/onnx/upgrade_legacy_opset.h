// upgrade_legacy_opset: a model of opset 1-6 of the default domain rewritten into the
// opset-7 forms of its ops, the oldest opset the rules read. The adapters follow the
// changes ONNX's operator changelog lists for the ops Tessera takes:
//   - Add, Sub, Mul, Div, Pow: `broadcast`/`axis` (B aligned with A from `axis` on)
//     become numpy broadcasting, B reshaped with trailing 1s where the alignment needs it;
//   - PRelu: a slope of one value per channel becomes [C, 1, ...] so that it broadcasts
//     over the channel axis, as opset 6 shared it;
//   - BatchNormalization and Dropout: `is_test` goes (0 written out, training mode, is
//     refused; absent, it is read as inference, as ONNX's version converter does);
//   - Gemm: `broadcast` goes (C broadcasts unidirectionally from opset 7 on);
//   - Reshape before 5: its `shape` attribute becomes the input;
//   - Concat before 4: the default axis 1 is written out;
//   - every op: `consumed_inputs` (opsets 1-5) goes.
// Ops whose older form differs in ways the rules do read (Slice before 10, Clip before
// 11, Pad's attributes before 11, Softmax's 2-D coercion before 13) keep it: their
// rules take every form from opset 7 on.
#pragma once

#include "graph.h"

namespace tessera::graph {

// The graph as imported (nodes sorted, inputs' and constants' shapes known) with
// g.opset < 7. Rewrites the nodes, infers their shapes and sets g.opset to 7. Throws
// GraphError naming the node for a form that has no opset-7 equivalent (a training-mode
// BatchNormalization, a Cast to a type named by a string).
void upgrade_legacy_opset(Graph &g);

} // namespace tessera::graph
