#include "block_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace tessera::chain {

namespace {

// Loops at least this long are blocked and take part in the order. Shorter
// reduction loops (a 3x3 window) stay whole inside every block; shorter pure loops
// (a batch of 12 heads) run outside the blocks, one point per block.
constexpr int64_t kBlockedLoop = 16;
// Share of a level's capacity the blocks may fill (the rest: what the micro-kernel
// and the hardware prefetchers bring in beside them), as the rTile model's L2.
constexpr double kUsableFraction = 0.75;

double trips(int64_t extent, int64_t tile) {
    return double((extent + tile - 1) / std::max<int64_t>(1, tile));
}

bool in_op(const ChainLoop &l, int op) {
    return op == 0 ? l.in_producer : l.in_consumer;
}

// A tensor's traffic under Algorithm 1: its tile, once more per iteration of
// every op loop from the innermost one that indexes it outward.
double moved(const OperatorChain &c, const analysis::AccessMap &m, int op, const std::vector<size_t> &perm,
             const std::vector<int64_t> &tile) {
    double dm = double(m.tile_elements(tile));
    bool keep_reuse = true;
    for (auto it = perm.rbegin(); it != perm.rend(); ++it) {
        const ChainLoop &l = c.loops[*it];
        if (!in_op(l, op)) continue;  // another op's private loop: no movement here
        if (m.depends_on(*it)) keep_reuse = false;
        if (!keep_reuse) dm *= trips(l.extent, tile[*it]);
    }
    return dm;
}

// Aligned block sizes of a loop, smallest first: powers of two from a vector's
// lanes, and the whole extent.
std::vector<int64_t> candidates(int64_t extent, int lanes) {
    std::vector<int64_t> out;
    for (int64_t s = lanes; s < extent; s *= 2)
        out.push_back(s);
    out.push_back(extent);
    return out;
}

struct Level {
    std::string name;
    double capacity_elements;
    double gbs;  // bandwidth into the level, all cores
};

std::vector<Level> levels_of(const hal::DeviceSpec &d, int64_t element_bytes) {
    std::vector<Level> out;
    for (size_t i = 1; i + 1 < d.layers.size(); i++) {
        const hal::MemoryLayer &l = d.layers[i];
        const double cores = l.role == hal::MemoryRole::SharedCache ? d.cores : 1;  // the LLC's shares together
        out.push_back({l.name, double(l.capacity_bytes) * cores * kUsableFraction / double(element_bytes),
                       d.layers[i + 1].gbs_per_core * d.cores});
    }
    return out;
}

// Blocks for `perm` at one level: grown greedily from the smallest aligned sizes,
// each step the one that saves the most movement per element of capacity, while
// the ops' tiles fit.
LevelBlocks grow_blocks(const OperatorChain &c, const std::vector<int> &ops, const std::vector<size_t> &perm,
                        const std::vector<size_t> &blocked, const std::vector<size_t> &outside, const Level &level,
                        int lanes, bool in_memory) {
    std::vector<int64_t> tile(c.loops.size());
    for (size_t i = 0; i < c.loops.size(); i++)
        tile[i] = c.loops[i].extent;
    for (size_t i : blocked)
        tile[i] = candidates(c.loops[i].extent, lanes).front();
    for (size_t i : outside)
        tile[i] = 1;
    Movement now = data_movement(c, ops, perm, tile, in_memory);
    for (;;) {
        int best = -1;
        int64_t best_size = 0;
        double best_score = 0;
        Movement best_m;
        for (size_t i : blocked) {
            const std::vector<int64_t> sizes = candidates(c.loops[i].extent, lanes);
            auto next = std::upper_bound(sizes.begin(), sizes.end(), tile[i]);
            if (next == sizes.end()) continue;
            std::vector<int64_t> trial = tile;
            trial[i] = *next;
            const Movement m = data_movement(c, ops, perm, trial, in_memory);
            if (m.mu_elements > level.capacity_elements || m.dv_elements >= now.dv_elements) continue;
            const double score = (now.dv_elements - m.dv_elements) / std::max(1.0, m.mu_elements - now.mu_elements);
            if (best < 0 || score > best_score) best = int(i), best_size = *next, best_score = score, best_m = m;
        }
        if (best < 0) break;
        tile[size_t(best)] = best_size;
        now = best_m;
    }
    LevelBlocks b;
    b.level = level.name;
    b.tile = tile;
    b.dv_bytes = now.dv_elements * double(c.element_bytes);
    b.mu_bytes = now.mu_elements * double(c.element_bytes);
    b.cost_ms = b.dv_bytes / (level.gbs * 1e9) * 1e3;
    return b;
}

// A pure loop that every tensor of the `ops` (the intermediate included) is indexed
// by, such as attention's heads: blocking it never saves a move, so it runs outside
// the blocks at any extent. Blocked, a batch of 16 heads started at a block of 16
// (the lanes), every block then held all heads, and the fused order was predicted
// slower than one by one (attention B=16 M=512 ran 13-14 ms one by one, B=12 4.6-5.1
// fused).
bool indexes_every_tensor(const OperatorChain &c, const std::vector<int> &ops, size_t loop) {
    if (c.loops[loop].reduction || !c.intermediate_read.depends_on(loop)) return false;
    for (const ChainTensor &t : c.tensors) {
        if (std::find(ops.begin(), ops.end(), t.op) != ops.end() && !t.access.depends_on(loop)) return false;
    }
    return true;
}

// The best order of the `ops`' blocked loops and its blocks per level.
std::vector<BlockOrder> best_orders(const OperatorChain &c, const std::vector<int> &ops, const hal::DeviceSpec &d,
                                    bool in_memory, int keep, int *considered) {
    std::vector<size_t> blocked, whole, outside;
    for (size_t i = 0; i < c.loops.size(); i++) {
        bool used = false;
        for (int op : ops)
            used |= in_op(c.loops[i], op);
        if (!used) continue;
        // Under a row statistic, fused blocks keep the intermediate's reduced dim
        // (the consumer's reduction over the producer's columns) whole.
        const bool row_dim = ops.size() == 2 && c.row_statistic_between && c.loops[i].in_producer &&
                             c.loops[i].in_consumer && c.loops[i].reduction;
        if (row_dim) {
            whole.push_back(i);
        } else if (indexes_every_tensor(c, ops, i)) {
            outside.push_back(i);
        } else if (c.loops[i].extent >= kBlockedLoop)
            blocked.push_back(i);
        else
            (c.loops[i].reduction ? whole : outside).push_back(i);
    }
    // At most six loops take part in the order (720 permutations); the shortest
    // of the rest stay whole.
    std::sort(blocked.begin(), blocked.end(),
              [&](size_t a, size_t b) { return c.loops[a].extent > c.loops[b].extent; });
    while (blocked.size() > 6) {
        whole.push_back(blocked.back());
        blocked.pop_back();
    }
    std::sort(blocked.begin(), blocked.end());
    const std::vector<Level> levels = levels_of(d, c.element_bytes);
    std::vector<BlockOrder> orders;
    std::vector<size_t> order = blocked;
    do {
        BlockOrder o;
        o.perm = outside;
        o.perm.insert(o.perm.end(), order.begin(), order.end());
        o.perm.insert(o.perm.end(), whole.begin(), whole.end());  // whole loops innermost
        for (const Level &level : levels) {
            o.levels.push_back(grow_blocks(c, ops, o.perm, blocked, outside, level, d.vector_lanes, in_memory));
            o.cost_ms = std::max(o.cost_ms, o.levels.back().cost_ms);
        }
        orders.push_back(o);
        if (considered) (*considered)++;
    } while (std::next_permutation(order.begin(), order.end()));
    // The slowest level first (Eq. 3); between equals, the less time at the others.
    auto total = [](const BlockOrder &o) {
        double t = 0;
        for (const LevelBlocks &l : o.levels)
            t += l.cost_ms;
        return t;
    };
    std::stable_sort(orders.begin(), orders.end(), [&](const BlockOrder &a, const BlockOrder &b) {
        return a.cost_ms != b.cost_ms ? a.cost_ms < b.cost_ms : total(a) < total(b);
    });
    if (int(orders.size()) > keep) orders.resize(size_t(keep));
    return orders;
}

}  // namespace

Movement data_movement(const OperatorChain &c, const std::vector<int> &ops, const std::vector<size_t> &perm,
                       const std::vector<int64_t> &tile, bool intermediate_in_memory) {
    Movement out;
    for (int op : ops) {
        double resident = double(c.intermediate_read.tile_elements(tile));  // written by op 0, read by op 1
        if (intermediate_in_memory) out.dv_elements += moved(c, c.intermediate_read, op, perm, tile);
        for (const ChainTensor &t : c.tensors) {
            if (t.op != op) continue;
            resident += double(t.access.tile_elements(tile));
            out.dv_elements += moved(c, t.access, op, perm, tile);
        }
        out.mu_elements = std::max(out.mu_elements, resident);
    }
    return out;
}

std::string BlockOrder::to_string(const OperatorChain &c) const {
    std::string s;
    for (size_t i : perm)
        s += (s.empty() ? "" : " ") + c.loops[i].name;
    return s;
}

ChainAnalysis analyse_chain(const OperatorChain &c, const hal::DeviceSpec &d, int keep) {
    ChainAnalysis a;
    a.orders = best_orders(c, {0, 1}, d, false, keep, &a.orders_considered);
    // One by one: each op in its own best order, the intermediate through memory.
    const BlockOrder first = best_orders(c, {0}, d, true, 1, nullptr).front();
    const BlockOrder second = best_orders(c, {1}, d, true, 1, nullptr).front();
    // They run one after the other: each is as slow as its slowest level.
    a.unfused = first;
    a.unfused.cost_ms = first.cost_ms + second.cost_ms;
    for (size_t l = 0; l < a.unfused.levels.size(); l++) {
        LevelBlocks &both = a.unfused.levels[l];
        both.dv_bytes += second.levels[l].dv_bytes;
        both.mu_bytes = std::max(both.mu_bytes, second.levels[l].mu_bytes);
        both.cost_ms += second.levels[l].cost_ms;
    }
    a.predicted_gain =
        a.orders.empty() || a.orders.front().cost_ms <= 0 ? 0 : a.unfused.cost_ms / a.orders.front().cost_ms;
    return a;
}

}  // namespace tessera::chain
