#include "split_partitions.h"

#include "graph_error.h"
#include "plan_fusion.h"

#include <algorithm>
#include <set>

namespace tessera::graph {

std::vector<std::vector<Partition>> fusion_pieces(const Graph &g, const FusionPlan &plan) {
    const FusionPlan unfused = plan_fusion(g, {plan.balance, false});
    std::vector<int> piece_of(g.nodes.size(), -1);  // node -> unfused partition
    for (size_t u = 0; u < unfused.partitions.size(); u++) {
        for (int n : unfused.partitions[u].nodes) piece_of[size_t(n)] = int(u);
    }
    std::vector<std::vector<Partition>> pieces(plan.partitions.size());
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        const Partition &p = plan.partitions[k];
        const std::set<int> inside(p.nodes.begin(), p.nodes.end());
        std::set<int> used;
        for (int n : p.nodes) used.insert(piece_of[size_t(n)]);
        if (used.size() < 2) continue;
        bool within = true;
        for (int u : used) {
            for (int n : unfused.partitions[size_t(u)].nodes) within &= inside.count(n) > 0;
        }
        if (!within) continue;
        for (int u : used) pieces[k].push_back(unfused.partitions[size_t(u)]);
    }
    return pieces;
}

FusionPlan split_partitions(const FusionPlan &plan, const std::vector<std::vector<Partition>> &pieces,
                            const std::vector<bool> &split) {
    FusionPlan out = plan;
    out.partitions.clear();
    out.dram_bytes_after = 0;
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        if (k < split.size() && split[k]) {
            if (k >= pieces.size() || pieces[k].empty()) {
                throw GraphError("split_partitions: " + plan.partitions[k].name + " is one piece already");
            }
            out.partitions.insert(out.partitions.end(), pieces[k].begin(), pieces[k].end());
        } else {
            out.partitions.push_back(plan.partitions[k]);
        }
    }
    // Each partition reads only partitions whose last node comes earlier: in that order
    // the pieces stay topological among the others (as plan_fusion orders them).
    std::stable_sort(out.partitions.begin(), out.partitions.end(),
                     [](const Partition &a, const Partition &b) { return a.nodes.back() < b.nodes.back(); });
    for (const Partition &p : out.partitions) out.dram_bytes_after += p.dram_bytes;
    number_partitions(out.partitions);
    return out;
}

} // namespace tessera::graph
