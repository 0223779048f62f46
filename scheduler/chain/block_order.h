// Chimera's inter-block analysis (Chimera (HPCA'23) §IV) over an OperatorChain: for a block
// execution order (a permutation of the chain's loops) and block sizes, the data
// movement volume DV and memory usage MU (Algorithm 1: a tensor's tile moves again
// under every loop from the innermost one that indexes it outward, counting only
// loops of the op that reads it, so the producer's private loops cost the
// consumer's tensors nothing); per memory level the cost DV / bandwidth under the
// level's capacity (Eq. 2), and the order and sizes that minimise the slowest
// level (Eq. 3). Block sizes are grown greedily per order and level from aligned
// candidates (powers of two from a vector, and the whole extent), as Roller grows
// an rTile, while the level's capacity holds and DV falls.
#pragma once

#include "device_spec.h"
#include "operator_chain.h"

#include <string>
#include <vector>

namespace tessera::chain {

struct Movement {
    double dv_elements = 0;  // moved across the level's boundary, whole chain
    double mu_elements = 0;  // resident at once (the largest op's tiles)
};

// Algorithm 1 for the chain's tensors of the ops in `ops` (0, 1 or both), loops
// `perm` outermost first, block `tile` per chain loop. `intermediate_in_memory`:
// the intermediate is written by the producer and read back by the consumer (the
// ops run one by one) instead of staying on chip.
Movement data_movement(const OperatorChain &c, const std::vector<int> &ops, const std::vector<size_t> &perm,
                       const std::vector<int64_t> &tile, bool intermediate_in_memory);

struct LevelBlocks {
    std::string level;          // the memory layer the blocks fit ("L1", "L2", "LLC")
    std::vector<int64_t> tile;  // block per chain loop
    double dv_bytes = 0, mu_bytes = 0;
    double cost_ms = 0;  // DV over the bandwidth into the level (Eq. 2)
};

struct BlockOrder {
    std::vector<size_t> perm;  // chain loops, outermost first
    std::vector<LevelBlocks> levels;
    double cost_ms = 0;                                   // the slowest level (Eq. 3)
    std::string to_string(const OperatorChain &c) const;  // "b m l n k"
};

struct ChainAnalysis {
    std::vector<BlockOrder> orders;  // fused, best first (at most a few kept)
    BlockOrder unfused;              // the two ops one by one, each in its best order
    double predicted_gain = 0;       // unfused cost / best fused cost
    int orders_considered = 0;
};

ChainAnalysis analyse_chain(const OperatorChain &c, const hal::DeviceSpec &d, int keep = 3);

}  // namespace tessera::chain
