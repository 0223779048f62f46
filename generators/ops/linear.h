// matmul and batch_matmul as Halide Funcs. Inputs are in Halide order: a logical
// A[M,K] is a Func a(k, m); see halide_axes.h.
#pragma once

#include "op_params.h"

#include <Halide.h>

#include <string>

namespace tessera::ops {

// `bias` is used only when p.bias is set; packed B (p.packed) is pack_panels'
// [N/block][K][block].
Halide::Func matmul(const MatmulParams &p, const Halide::Func &a, const Halide::Func &b, const Halide::Func &bias);

// Names in a product's Func: the Func, its column Var (its rows are `m`, its batch
// `batch`) and its reduction.
struct ProductNames {
    std::string func;
    std::string col = "n";
    std::string reduction = "k";
};

// The product alone (p.bias ignored): a Func zeroed by its pure stage and summed by
// its update over the reduction, the GEMM stage matmul and the chains build on.
Halide::Func matmul_sum(const MatmulParams &p, const Halide::Func &a, const Halide::Func &b, const ProductNames &names);

}  // namespace tessera::ops
