// einsum_as_matmul: an Einsum of two operands rewritten as the batched matrix product
// it is: each operand transposed to [batch, free, contracted] (B to [batch,
// contracted, free]) and flattened to three axes, one MatMul (the op library's
// batch_matmul), and the result reshaped and transposed to the output's order; one
// operand, a permutation, becomes a Transpose. Indices summed in only one operand (a
// reduction inside the product) are left to the evaluator: the lowering names them.
#pragma once

#include "graph.h"

namespace tessera::graph {

// Returns how many Einsums were rewritten.
int einsum_as_matmul(Graph &g);

} // namespace tessera::graph
