// Signatures of each op registry row (op_registry.def): an op's input and output
// tensors, the ranges its test data is drawn from, and its flops. Each validates
// the configuration through its parse_*(); describe_op adds the bytes.
#pragma once

#include "op_catalog.h"

namespace tessera::ops {

OpSignature matmul_signature(const OpConfig &config);
OpSignature conv_signature(const OpConfig &config);
OpSignature pool_signature(const OpConfig &config);
OpSignature reduce_signature(const OpConfig &config);
OpSignature unary_signature(const OpConfig &config);
OpSignature binary_signature(const OpConfig &config);
OpSignature bias_add_signature(const OpConfig &config);
OpSignature softmax_signature(const OpConfig &config);
OpSignature norm_signature(const OpConfig &config);
OpSignature transpose_signature(const OpConfig &config);
OpSignature pad_signature(const OpConfig &config);
OpSignature pack_signature(const OpConfig &config);
OpSignature attention_signature(const OpConfig &config);
OpSignature gemm_chain_signature(const OpConfig &config);
OpSignature conv_chain_signature(const OpConfig &config);

}  // namespace tessera::ops
