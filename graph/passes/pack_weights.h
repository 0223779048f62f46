// pack_weights: constant weights laid out once, at compile time, as the panels the
// op library's packed conv2d and matmul read (pack_panels' layout), so no compiled
// call packs them again (ALT, EuroSys'23: constant weights are transformed at compile time).
//   Conv (2-D, groups 1) with constant OIHW weights -> [oc/b][c][kh][kw][b], b = conv_block
//   (pointwise_block for the 1x1 convolutions default_packing takes)
//   Gemm / MatMul with a constant 2-D B (Gemm's transB: [N,K]) -> [N/b][K][b], b the widest
//   power of two from matmul_block down to 8 that divides N (else matmul_block)
// Each packed node gets a new constant (the old one is left for remove_dead, it may be
// shared) and the attribute kPackedBlockAttr = b, which the lowering reads; the node keeps
// its ONNX op type and other attributes. A packed graph is for the compiled path: the
// reference evaluator runs the graph before this pass.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Not ONNX attributes: set only by this pass. A packed convolution with
// kPackedPlanarAttr = 1 computes its sums planar (the op library's conv2d sums=planar).
inline constexpr const char *kPackedBlockAttr = "tessera_packed_block";
inline constexpr const char *kPackedPlanarAttr = "tessera_packed_planar";

struct PackOptions {
    int64_t conv_block = 16;    // conv2d's packed default (generators/ops/op_params.cpp says why)
    int64_t matmul_block = 64;  // matmul's widest
    bool convolutions = true;
    // With `convolutions` off, still the NCHW 1x1 convolutions (groups 1) whose output
    // plane has at most this many points (0: none) and whose output channels
    // pointwise_block divides, in panels of that width (16-wide ones were no faster
    // than the unpacked form on those planes where 32 divides: docs/results.md).
    int64_t pointwise_max_points = 0;
    int64_t pointwise_block = 32;
    // Those on such planes whose output channels pointwise_block does not divide, in
    // panels of this width, the last one partly zero (0: left unpacked).
    int64_t pointwise_partial_block = 0;
    // Also those on larger planes up to this many points with at least planar_min_channels
    // input channels, their sums planar (0: none).
    int64_t planar_max_points = 0;
    int64_t planar_min_channels = 64;
    // Also the convolutions with a window (kh x kw > 1) whose output plane has at most
    // this many points (0: none) and whose output channels window_block divides.
    int64_t window_max_points = 0;
    int64_t window_block = 32;
    // Matrix products with at most this many rows of A (0: any). Matrix-vector products
    // (a classifier's Gemm, transB) gain the most: the plugin streams an [N,K] B by
    // rows of K, a packed one by contiguous panels.
    int64_t max_rows = 0;
    // Also, whatever their rows, the Gemms whose B is stored [N,K] (transB: a
    // transformer's projections as PyTorch exports nn.Linear): the plugin vectorises
    // along N, which that layout strides by K, one load and insert per lane.
    bool transposed_products = false;
};

// What `tessera compile --layout auto` packs: the matrix-vector products, the Gemms
// with transB (a BERT layer's out-projection 128x768x768 0.63 -> 0.34 ms alone on
// Zen 5; onnxruntime 0.45 inside its model), the 1x1
// convolutions on planes of at most 56 x 56 points (kPackedPointwisePoints, in panels of
// kPackedPartialPanelBlock where 32 does not divide their output channels; then planar
// up to kPackedPlanarPoints) and the windowed ones on planes of at most 7 x 7
// (kPackedWindowPoints). Packed, the other convolutions and the larger GEMMs ran slower
// in the models (graph/README.md).
PackOptions default_packing();

// Matrix products' panel width (PackOptions::matmul_block) with 16 vector registers
// (AVX2: two vectors of fp32; with AVX-512's 32, the default 64, four). The register tiles of 4 rows x 2-3
// vectors that fit 16 registers read a part of a 64-wide panel's rows, 256 bytes apart, and
// use a quarter of the L1's sets. Measured (Zen 3, one thread, `tessera-bench` lines
// `matmul ... packed=1 block=B`, docs/experiments.md "Matrix panels two vectors wide on
// AVX2"): 128x768x768 2.07 -> 1.62 ms (unpacked row-major B 1.69), 128x768x3072 10.5 ->
// 6.67, 128x2304x768 6.28 -> 5.02, 128x3072x768 8.32 -> 6.65; panels of 24 alike; a
// matrix-vector product unchanged.
inline constexpr int64_t kPackedMatmulBlockAvx2 = 16;

// `o` for a target with 16 vector registers (AVX2): matrix products' panels
// kPackedMatmulBlockAvx2 wide, and every matrix product with a constant B packed (in 64-wide
// panels the larger GEMMs ran slower packed; in these, BERT's layer on one Zen 3 core: its FFN
// GEMMs 7.70-7.80 -> 7.00-7.03 ms and 7.29 -> 7.12-7.14, QKV 5.50 -> 5.30, the partitions
// 23.1-23.3 -> 22.1 ms in all, `tessera run --threads 1 --profile`).
PackOptions for_sixteen_vector_registers(PackOptions o);

// Output points of the largest plane whose 1x1 convolutions default_packing packs.
// Measured (docs/results.md, "Pointwise convolutions"): packed in 32-wide panels, the
// 1x1 layers of ResNet-50, ResNeXt and MobileNetV2 on 14x14 and 7x7 planes (stride 2
// from 28x28 included) ran 1.1-4x faster than as written; on 28x28 planes faster in five
// of six and 0.69x in one, on 56x56 and 112x112 planes mostly slower (0.3-1.07x).
inline constexpr int64_t kPackedPointwisePoints = 14 * 14;

// The panels' width for the 1x1 convolutions on those planes whose output channels 32
// does not divide (RegNet's 48, 104, 208 and 440), the last panel partly zero. Measured
// (Intel Xeon AVX-512, libraries interleaved, docs/experiments.md "Packed panels for channel counts 32 does not divide"):
// RegNetY-400MF 6.40-6.43 -> 6.11-6.16 ms, RegNetX-400MF 6.85-7.18 -> 6.24-6.80 (in
// panels of 32 with a partial one 6.44-6.65 and 6.54-6.72); ShuffleNetV2, EfficientNet-B0
// and MobileNetV3-Large within noise.
inline constexpr int64_t kPackedPartialPanelBlock = 16;

// Output points of the largest plane whose 1x1 convolutions default_packing packs with
// planar sums (those on planes above kPackedPointwisePoints, with 64 input channels or
// more). Measured there: 1.0-1.7x on 56x56 planes, 0.9-1.3x on 28x28 ones; with fewer
// input channels, 32 -> 32 on 56x56 0.70x, 32 -> 64 stride 2 0.69x, 16 -> 96 on a
// 112x112 plane 0.03x.
inline constexpr int64_t kPackedPlanarPoints = 56 * 56;

// Output points of the largest plane whose windowed convolutions (3x3 and the like)
// default_packing packs, in panels of 32. Measured (one-node models, Zen 5, 2 threads,
// docs/experiments.md "Packed 3x3 weights on small planes"): 3x3 512 -> 512 at 7x7
// 0.68 -> 0.50 ms, 256 -> 512 stride 2 to 7x7 0.36 -> 0.27; at 14x14 and larger planes
// 0.7x-0.95x (256 at 14x14 0.56 -> 0.78, 128 at 28x28 0.59 -> 0.81).
inline constexpr int64_t kPackedWindowPoints = 7 * 7;

// Returns the number of nodes whose weights were packed.
int pack_weights(Graph &g, const PackOptions &options = {});

// OIHW [oc][c][kh][kw] -> [oc/b][c][kh][kw][b], the last panel's missing channels zero.
TensorData pack_conv_weights(const TensorData &oihw, int64_t block);

// A grouped convolution's OIHW weights [oc][c/group][kh][kw] (c/group = oc/group
// dividing b) as those of c/b groups of b channels, [oc][b][kh][kw]: each output
// channel's weights for the channels of its block outside its group are zero. The
// same convolution, b/(c/group) times the multiply-adds, one block per group.
TensorData widen_groups_to_block(const TensorData &oihw, int64_t group_width, int64_t block);

// The block a node's weights were packed with, 0 when they were not.
int64_t packed_block(const Node &node);

}  // namespace tessera::graph
