// rewrite_patterns: subgraphs an exporter emits, rewritten into the single ops the
// op library computes better (PowerFusion: match the library's kernels):
// - GELU in PyTorch's Erf form, x * 0.5 * (1 + erf(x / sqrt 2)) (five nodes), into
//   one Gelu (the library's gelu_erf: one pass instead of five);
// - Split into one Slice per output, so that every node has one output and each
//   part can fuse with its own consumer;
// - LayerNorm as exporters write it before opset 17 (ReduceMean, Sub, Pow,
//   ReduceMean, Add eps, Sqrt, Div, [* gamma, + beta]) into one LayerNormalization
//   over the last axis (the library's layer_norm: two passes over a row instead of nine).
// Runs after fold_constants (the constants it matches must be folded).
#pragma once

#include "graph.h"

namespace tessera::graph {

struct RewriteCounts {
    int gelu = 0;   // Erf-form GELUs replaced by Gelu
    int split = 0;  // Splits replaced by Slices
    int layer_norm = 0;  // decomposed LayerNorms (ReduceMean, Sub, Pow, ..., Div) replaced by LayerNormalization
};

RewriteCounts rewrite_patterns(Graph &g);

}  // namespace tessera::graph
