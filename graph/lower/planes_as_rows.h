// planes_as_rows: a partition whose every node is pointwise across the image plane
// (1x1 stride-1 unpadded convolutions, element-wise nodes, layout conversions)
// computes the same values whatever the plane's shape, so it is lowered with each
// H x W plane seen as one row of H*W points: the same bytes, dense, in the same
// order. Its register tiles may then take any number of points instead of a
// divisor of W plus the columns a shifted tile recomputes. Zen 3, one core,
// NCHW8c: 1x1 512 -> 2048 at 7x7 1.34 -> 1.10 ms (oneDNN 1.10), 960 -> 160 at 7x7
// 0.25 -> 0.20, 64 -> 256 at 56x56 1.07 -> 1.01 (docs/experiments.md, "Planes as
// rows").
#pragma once

#include "graph.h"
#include "partition.h"

#include <optional>

namespace tessera::graph {

// The plane (H, W) that every image value of `p` shares, when `p` may be lowered
// with its planes as rows: each node a Conv with a 1x1 kernel, stride 1, no pad
// and one group, an element-wise node (is_elementwise) or a conversion between
// NCHW and NCHW[b]c (assign_layouts); each value it reads or
// writes (but a Conv's weights and bias) a scalar or single element, or of rank 4
// (NCHW) or 5 (NCHW[b]c) with the plane (H, W) or (1, 1) at axes 2 and 3; no
// NHWC node; H > 1. nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> pointwise_plane(const Graph &g, const Partition &p);

// `shape` with its plane (axes 2 and 3, when they are (h, w)) as one row (1, h*w).
Shape plane_as_row(const Shape &shape, int64_t h, int64_t w);

// `g` with the shapes of the values `p` reads and writes as plane_as_row gives
// them; everything else as in `g`.
Graph with_planes_as_rows(const Graph &g, const Partition &p, int64_t h, int64_t w);

}  // namespace tessera::graph
