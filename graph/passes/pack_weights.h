// pack_weights: constant weights laid out once, at compile time, as the panels the
// op library's packed conv2d and matmul read (pack_panels' layout), so no compiled
// call packs them again (ALT, EuroSys'23: constant weights are transformed at compile time).
//   Conv (2-D, groups 1) with constant OIHW weights -> [oc/b][c][kh][kw][b], b = conv_block
//   Gemm / MatMul with a constant 2-D B (Gemm's transB: [N,K]) -> [N/b][K][b], b the widest
//   power of two from matmul_block down to 8 that divides N (else matmul_block)
// Each packed node gets a new constant (the old one is left for remove_dead, it may be
// shared) and the attribute kPackedBlockAttr = b, which the lowering reads; the node keeps
// its ONNX op type and other attributes. A packed graph is for the compiled path: the
// reference evaluator runs the graph before this pass.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Not an ONNX attribute: set only by this pass.
inline constexpr const char *kPackedBlockAttr = "tessera_packed_block";

struct PackOptions {
    int64_t conv_block = 16;    // conv2d's packed default (generators/ops/op_params.cpp says why)
    int64_t matmul_block = 64;  // matmul's widest
    bool convolutions = true;
    // Matrix products with at most this many rows of A (0: any). Matrix-vector products
    // (a classifier's Gemm, transB) gain the most: the plugin streams an [N,K] B by
    // rows of K, a packed one by contiguous panels.
    int64_t max_rows = 0;
};

// What `tessera compile --layout auto` packs: the matrix-vector products only.
// Packed, the convolutions and larger GEMMs ran slower in the models (graph/README.md).
PackOptions matrix_vector_products();

// Returns the number of nodes whose weights were packed.
int pack_weights(Graph &g, const PackOptions &options = {});

// OIHW [oc][c][kh][kw] -> [oc/b][c][kh][kw][b], the last panel's missing channels zero.
TensorData pack_conv_weights(const TensorData &oihw, int64_t block);

// The block a node's weights were packed with, 0 when they were not.
int64_t packed_block(const Node &node);

}  // namespace tessera::graph
