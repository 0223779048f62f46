// Chains of compute-intensive operators as one pipeline each (op_params.h has their
// conventions): attention (GEMM, scale and mask, softmax, GEMM), gemm_chain (GEMM,
// an elementwise step, GEMM) and conv_chain (conv, bias and relu, conv, bias). Each
// stage is a Func of its own, named after the chain, built from the same blocks as
// the single ops (matmul_sum, softmax, conv2d), so the pipeline a chain scheduler
// sees is the single ops' pipelines joined:
//   attention:  attention_scores (update over k) -> attention_logits (scale, mask)
//               -> attention_max, attention_exp, attention_sum -> attention_probs
//               -> attention_out (update over l) -> attention
//               key_block > 0, the online-softmax form: attention_scores (l, m, j,
//               batch: key block j) -> attention_logits -> attention_block_max,
//               attention_block_exp, attention_block_sum -> attention_block_out
//               (update over l) -> attention_running (max, sum, out; update over
//               j) -> attention
//   gemm_chain: gemm_chain_first (update over k) -> gemm_chain_relu|gelu|scale
//               -> gemm_chain_second (update over l) -> gemm_chain
//   conv_chain: conv_chain_first_sum -> conv_chain_first -> conv_chain_relu (bias
//               and relu) -> conv_chain_second_sum -> conv_chain_second -> conv_chain
//               (bias); zero padding through a boundary Func before each convolution
// Inputs are in Halide order (halide_axes.h).
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

// `mask` is used only when p.mask is set.
Halide::Func attention(const AttentionParams &p, const Halide::Func &q, const Halide::Func &k, const Halide::Func &v,
                       const Halide::Func &mask);
Halide::Func gemm_chain(const GemmChainParams &p, const Halide::Func &a, const Halide::Func &b1,
                        const Halide::Func &b2);
Halide::Func conv_chain(const ConvChainParams &p, const Halide::Func &input, const Halide::Func &w1,
                        const Halide::Func &b1, const Halide::Func &w2, const Halide::Func &b2);

}  // namespace tessera::ops
