// Catalogue entries of each op registry row (op_registry.def): the ops' names,
// families, docs and keys with defaults, in catalogue order.
#pragma once

#include "op_catalog.h"

#include <vector>

namespace tessera::ops {

std::vector<OpInfo> matmul_entries();
std::vector<OpInfo> conv_entries();
std::vector<OpInfo> pool_entries();
std::vector<OpInfo> reduce_entries();
std::vector<OpInfo> unary_entries();
std::vector<OpInfo> binary_entries();
std::vector<OpInfo> bias_add_entries();
std::vector<OpInfo> softmax_entries();
std::vector<OpInfo> norm_entries();
std::vector<OpInfo> transpose_entries();
std::vector<OpInfo> pad_entries();
std::vector<OpInfo> pack_entries();
std::vector<OpInfo> attention_entries();
std::vector<OpInfo> gemm_chain_entries();
std::vector<OpInfo> conv_chain_entries();

}  // namespace tessera::ops
