// OperatorChain: two compute-intensive stages connected producer -> consumer,
// with only memory-bound stages (scale, mask, softmax, bias, activation) between
// them: GEMM -> softmax -> GEMM, GEMM -> GEMM, conv -> conv (Chimera, HPCA'23).
// Found by what the stages do, not by their names: the pipeline of a graph
// partition, a user's generator or an op of the library.
//
// The chain's loops are the consumer's loop dims plus the producer's private ones
// (its reduction dims); each of the producer's pure dims is the consumer loop that
// indexes the intermediate with coefficient 1. Every tensor the chain reads from
// outside or writes gets its access map in the chain's loops.
#pragma once

#include "stage_plan.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::chain {

struct ChainLoop {
    std::string name;
    int64_t extent = 1;
    bool in_producer = false, in_consumer = false;
    bool reduction = false;  // a reduction loop of the op it belongs to
};

// A tensor read from outside the chain or written by it, in the chain's loops.
struct ChainTensor {
    std::string name;
    int op = 0;  // 0: the producer's, 1: the consumer's
    bool written = false;
    analysis::AccessMap access;  // coefficients over OperatorChain::loops
};

struct OperatorChain {
    std::string producer, consumer;         // the two compute-intensive Functions
    std::vector<std::string> between;       // memory-bound Functions on the path between them, in pipeline order
    std::string intermediate;               // the producer's output (kept on chip when fused)
    analysis::AccessMap intermediate_read;  // the consumer's read of it, in the chain's loops
    std::vector<ChainLoop> loops;
    std::vector<ChainTensor> tensors;  // the chain's IO tensors (the intermediate excluded)
    int64_t element_bytes = 4;
    // A stage between reduces the intermediate along a dim (softmax's max and sum
    // over each row): fused, each block must hold that dim whole, since a Halide
    // schedule cannot turn the statistic into its running (online) form (the
    // attention op's key_block builds that form into the definition instead).
    bool row_statistic_between = false;

    std::string describe() const;  // "attention_scores -> attention_out over b m n l k"
};

// The chains in a pipeline, each consumer at most once, producers first.
std::vector<OperatorChain> find_chains(const analysis::FunctionDag &dag, const analysis::StagePlan &plan);

}  // namespace tessera::chain
