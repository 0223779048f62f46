#include "plan_chains.h"

#include "node_cost.h"
#include "plan_fusion.h"

#include <algorithm>
#include <set>

namespace tessera::graph {

namespace {

bool matrix_product(const Node &n) {
    return n.op_type == "MatMul" || n.op_type == "Gemm";
}

// What may stand between (and around) the two products of a chain: the stages
// the plugin computes per block of the consumer's rows, or data movements.
bool chain_filler(const Node &n) {
    static const std::set<std::string> movements = {"Softmax", "Transpose", "Slice"};
    return is_elementwise(n) || is_shape_only(n) || movements.count(n.op_type) > 0;
}

// Whether partition `p` holds exactly one matrix product and otherwise fillers.
bool one_product(const Graph &g, const Partition &p) {
    int products = 0;
    for (int n : p.nodes) {
        const Node &node = g.nodes[size_t(n)];
        if (matrix_product(node)) products++;
        else if (!chain_filler(node)) return false;
    }
    return products == 1;
}

// An attention: the softmax between the products. A GEMM -> activation -> GEMM
// (a transformer's feed-forward block) stays two partitions: fused, BERT-base's
// (128 x 768 -> 3072 -> 768) took 3x longer, and even as one pipeline scheduled
// one stage after the other it lost to two partitions (docs/results.md).
bool has_softmax(const Graph &g, const Partition &a, const Partition &b) {
    for (const Partition *p : {&a, &b}) {
        for (int n : p->nodes) {
            if (g.nodes[size_t(n)].op_type == "Softmax") return true;
        }
    }
    return false;
}

void recount(const Graph &g, Partition &p) {
    std::set<std::string> produced;
    for (int n : p.nodes) {
        for (const std::string &out : g.nodes[size_t(n)].outputs) produced.insert(out);
    }
    p.inputs.clear();
    p.flops = p.dram_bytes = 0;
    for (int n : p.nodes) {
        const Node &node = g.nodes[size_t(n)];
        p.flops += node_cost(g, node).flops;
        for (const std::string &in : node.inputs) {
            if (in.empty() || produced.count(in) || std::count(p.inputs.begin(), p.inputs.end(), in)) continue;
            p.inputs.push_back(in);
            if (g.value(in).dtype == DType::f32) p.dram_bytes += 4.0 * double(num_elements(g.value(in).shape));
        }
    }
    p.dram_bytes += 4.0 * double(num_elements(g.value(p.output).shape));
}

} // namespace

FusionPlan plan_chains(const Graph &g, FusionPlan plan) {
    std::vector<Partition> &parts = plan.partitions;
    for (size_t b = 0; b < parts.size(); b++) {
        if (parts[b].chain || !one_product(g, parts[b])) continue;
        for (size_t a = 0; a < b; a++) {
            const Partition &first = parts[a];
            if (first.chain || !one_product(g, first) || g.is_output(first.output)) continue;
            bool only_b = true;
            for (int c : g.consumers(first.output)) {
                only_b &= std::count(parts[b].nodes.begin(), parts[b].nodes.end(), c) > 0;
            }
            if (!only_b || !has_softmax(g, first, parts[b])) continue;
            Partition merged = parts[b];
            merged.nodes.insert(merged.nodes.end(), first.nodes.begin(), first.nodes.end());
            std::sort(merged.nodes.begin(), merged.nodes.end());
            merged.compute_intensive = first.compute_intensive || parts[b].compute_intensive;
            merged.chain = true;
            recount(g, merged);
            plan.dram_bytes_after += merged.dram_bytes - first.dram_bytes - parts[b].dram_bytes;
            parts[b] = merged;
            parts.erase(parts.begin() + long(a));
            b--;  // parts[b] moved down by one
            break;
        }
    }
    number_partitions(parts);
    return plan;
}

} // namespace tessera::graph
