#include "plan_fusion.h"

#include "assign_layouts.h"
#include "device_profile.h"
#include "graph_error.h"
#include "node_cost.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace tessera::graph {

namespace {

struct Builder {
    const Graph &g;
    const FusionOptions &options;
    std::vector<Partition> parts; // may hold merged-away (empty) entries until the end
    std::vector<int> part_of;     // node -> index into parts
    std::vector<int> contractions; // per partition: Conv, MatMul and Gemm nodes in it

    bool compute_intensive(const Node &n) const {
        if (is_shape_only(n)) return false;
        const NodeCost cost = node_cost(g, n);
        return hal::compute_bound(cost.flops, cost.bytes, options.balance);
    }

    // The partition whose output is `value` and which only `node` reads, or -1.
    int fusable_producer(const std::string &value, int node) const {
        const int p = g.producer(value);
        if (p < 0 || g.is_output(value)) return -1;
        for (int c : g.consumers(value)) {
            if (c != node) return -1;
        }
        const Partition &part = parts[size_t(part_of[size_t(p)])];
        if (part.output != value) return -1;
        if (converts_back(part) && !is_shape_only(g.nodes[size_t(node)])) return -1;
        return part_of[size_t(p)];
    }

    // A conversion back to NCHW (assign_layouts) is a kernel of its own, as its cost
    // assumed: its divisions make any stage around it unanalysable. Only shape-only
    // readers (a Flatten after a pooled vector) join it.
    bool converts_back(const Partition &part) const {
        for (int n : part.nodes) {
            if (g.nodes[size_t(n)].op_type == kFromBlockedOp) return true;
        }
        return false;
    }

    // Fan-out inside a memory-bound region: a memory-bound partition whose output
    // several nodes read joins once every reader is in a partition joining node i
    // (a normalisation: d = x - mean read by its square and by the division). No
    // partition outside then reads a joining one, so the merge makes no cycle, and
    // the value becomes internal.
    void join_fan_out(int i, std::set<int> &merge, int &contracting) const {
        for (bool grown = true; grown;) {
            grown = false;
            std::vector<std::string> values = g.nodes[size_t(i)].inputs;
            for (int p : merge) {
                for (int n : parts[size_t(p)].nodes) {
                    const std::vector<std::string> &in = g.nodes[size_t(n)].inputs;
                    values.insert(values.end(), in.begin(), in.end());
                }
            }
            for (const std::string &v : values) {
                const int producer = v.empty() ? -1 : g.producer(v);
                if (producer < 0 || g.is_output(v)) continue;
                const int p = part_of[size_t(producer)];
                const Partition &part = parts[size_t(p)];
                if (merge.count(p) || part.output != v || part.compute_intensive ||
                    contracting + contractions[size_t(p)] > 1 || converts_back(part)) {
                    continue;
                }
                bool inside = true;
                for (int c : g.consumers(v)) {
                    inside &= c == i || (part_of[size_t(c)] >= 0 && merge.count(part_of[size_t(c)]));
                }
                if (!inside) continue;
                contracting += contractions[size_t(p)];
                merge.insert(p);
                grown = true;
            }
        }
    }

    void add_node(int i) {
        const Node &node = g.nodes[size_t(i)];
        std::set<int> merge;
        // A shape-only node moves no data: it stays with its producer even without
        // fusion, or --no-fusion would add a copy kernel per reshape.
        if (!options.fuse && is_shape_only(node) && !node.inputs.empty()) {
            const int p = fusable_producer(node.inputs[0], i);
            if (p >= 0) merge.insert(p);
        } else if (node.op_type == kFromBlockedOp || node.op_type == kToBlockedOp) {
            // A kernel of its own (converts_back). A conversion into the blocked layout
            // too: fused into its producer, the producer was computed per block of the
            // conversion's transposed rows (ResNet's stem MaxPool with it 0.67 ms, alone
            // 0.26; MobileNetV2's libraries in NCHW16c 4.44-4.53 -> 3.92-4.08 ms,
            // ResNet-50's 33.4-36.2 -> 32.7-34.3, Intel Xeon, interleaved).
        } else if (options.fuse && !compute_intensive(node)) {
            // Epilogues (elementwise or shape-only) join one compute-intensive producer
            // whose output they do not broadcast up; memory-bound producers all join.
            // A memory-bound contraction joins no other: two of them in one pipeline
            // are a chain of compute stages, which is the chain analysis's to fuse.
            const bool epilogue = is_elementwise(node) || is_shape_only(node);
            int anchor = -1, contracting = is_contraction(node) ? 1 : 0;
            for (const std::string &in : node.inputs) {
                if (in.empty()) continue;
                const int p = fusable_producer(in, i);
                if (p < 0 || merge.count(p)) continue;
                if (!parts[size_t(p)].compute_intensive) {
                    if (contracting + contractions[size_t(p)] > 1) continue;
                    contracting += contractions[size_t(p)];
                    merge.insert(p);
                } else if (epilogue && anchor < 0 && !is_shape_only(node) &&
                           g.value(in).shape == g.value(node.outputs[0]).shape) {
                    // A reshape does not end a compute-intensive partition: read through
                    // it, the product is no longer computed per tile of an epilogue and
                    // its tiles must divide its extents (ViT's 197-row out-projection
                    // took one-row tiles: 41 ms against 3.1). It joins its readers.
                    anchor = p;
                }
            }
            // A compute-intensive anchor takes the epilogue alone: a memory-bound
            // region fused in front of it would be recomputed per tile.
            bool after_conversion = false;
            for (int p : merge) after_conversion |= converts_back(parts[size_t(p)]);
            if (anchor >= 0) merge = {anchor};
            else if (!after_conversion) join_fan_out(i, merge, contracting);
        } else if (options.fuse) {
            // A compute-intensive node takes cheap prologues: a memory-bound producer
            // partition only it reads, made of pointwise nodes (elementwise, shape-only,
            // Transpose), so the scheduler packs the operand straight from the
            // producer's inputs instead of a round trip through memory.
            for (const std::string &in : node.inputs) {
                if (in.empty()) continue;
                const int p = fusable_producer(in, i);
                if (p < 0 || parts[size_t(p)].compute_intensive || contractions[size_t(p)] > 0) continue;
                bool pointwise = true;
                for (int n : parts[size_t(p)].nodes) {
                    const Node &m = g.nodes[size_t(n)];
                    pointwise &= is_elementwise(m) || is_shape_only(m) || m.op_type == "Transpose";
                }
                if (pointwise) merge.insert(p);
            }
        }
        Partition merged;
        merged.compute_intensive = compute_intensive(node);
        int merged_contractions = is_contraction(node) ? 1 : 0;
        for (int p : merge) {
            merged_contractions += contractions[size_t(p)];
            Partition &old = parts[size_t(p)];
            merged.compute_intensive |= old.compute_intensive;
            merged.nodes.insert(merged.nodes.end(), old.nodes.begin(), old.nodes.end());
            old.nodes.clear();
        }
        std::sort(merged.nodes.begin(), merged.nodes.end());
        merged.nodes.push_back(i);
        merged.output = node.outputs[0];
        parts.push_back(merged);
        contractions.push_back(merged_contractions);
        for (int n : parts.back().nodes)
            part_of[size_t(n)] = int(parts.size()) - 1;
    }
};

} // namespace

FusionPlan plan_fusion(const Graph &g, const FusionOptions &options) {
    if (!g.is_topologically_sorted()) throw GraphError("plan_fusion: the graph is not topologically sorted");
    Builder b{g, options, {}, std::vector<int>(g.nodes.size(), -1), {}};
    FusionPlan plan;
    plan.balance = options.balance;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const Node &node = g.nodes[i];
        for (const std::string &out : node.outputs) {
            if (!g.value(out).shape_known) {
                throw GraphError(node_label(node, g.opset) + ": the shape of '" + out + "' is not known");
            }
        }
        if (node.outputs.size() != 1) {
            throw GraphError(node_label(node, g.opset) + ": nodes with " + std::to_string(node.outputs.size()) +
                             " outputs are not supported by the fusion plan yet");
        }
        b.add_node(int(i));
        if (!is_shape_only(node)) {
            plan.kernels_before++;
            plan.dram_bytes_before += node_cost(g, node).bytes;
        }
    }
    // Partitions in the order of their last node: a partition only reads values of
    // partitions whose last node comes earlier, so this order is topological.
    for (Partition &p : b.parts) {
        if (p.nodes.empty()) continue;
        std::set<std::string> produced;
        for (int n : p.nodes) {
            for (const std::string &out : g.nodes[size_t(n)].outputs)
                produced.insert(out);
        }
        for (int n : p.nodes) {
            const Node &node = g.nodes[size_t(n)];
            const NodeCost cost = node_cost(g, node);
            p.flops += cost.flops;
            for (const std::string &in : node.inputs) {
                if (in.empty() || produced.count(in) ||
                    std::find(p.inputs.begin(), p.inputs.end(), in) != p.inputs.end()) {
                    continue;
                }
                p.inputs.push_back(in);
                if (g.value(in).dtype == DType::f32) p.dram_bytes += 4.0 * double(num_elements(g.value(in).shape));
            }
        }
        p.dram_bytes += 4.0 * double(num_elements(g.value(p.output).shape));
        plan.partitions.push_back(p);
    }
    std::sort(plan.partitions.begin(), plan.partitions.end(),
              [](const Partition &a, const Partition &b) { return a.nodes.back() < b.nodes.back(); });
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        Partition &p = plan.partitions[k];
        const Node &anchor = g.nodes[size_t(p.nodes.front())];
        std::string base = anchor.name.empty() ? anchor.op_type : anchor.name;
        for (char &c : base) {
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        }
        p.name = "p" + std::to_string(k) + "_" + base;
        plan.dram_bytes_after += p.dram_bytes;
    }
    return plan;
}

std::string partition_op_types(const Graph &g, const Partition &p) {
    std::string ops;
    for (int n : p.nodes) ops += (ops.empty() ? "" : "+") + g.nodes[size_t(n)].op_type;
    return ops;
}

void number_partitions(std::vector<Partition> &partitions) {
    for (size_t k = 0; k < partitions.size(); k++) {
        const std::string &name = partitions[k].name;
        const size_t underscore = name.find('_');
        partitions[k].name = "p" + std::to_string(k) + (underscore == std::string::npos ? "" : name.substr(underscore));
    }
}

std::string fusion_summary(const FusionPlan &plan) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "fusion: %d kernels -> %zu, predicted DRAM traffic %.2f MB -> %.2f MB (balance %.1f FLOP/B)\n",
                  plan.kernels_before, plan.partitions.size(), plan.dram_bytes_before / 1e6,
                  plan.dram_bytes_after / 1e6, plan.balance);
    return line;
}

std::string describe_plan(const Graph &g, const FusionPlan &plan) {
    std::ostringstream out;
    char line[512];
    for (const Partition &p : plan.partitions) {
        const std::string ops = partition_op_types(g, p);
        const double intensity = p.dram_bytes > 0 ? p.flops / p.dram_bytes : 0;
        std::snprintf(line, sizeof line, "  %-28s %-16s %-44s -> %-18s %8.2f MFLOP %8.3f MB  %6.1f FLOP/B\n",
                      p.name.c_str(), p.chain ? "chain" : p.compute_intensive ? "compute-bound" : "memory-bound", ops.c_str(),
                      g.value(p.output).type_string().c_str(), p.flops / 1e6, p.dram_bytes / 1e6, intensity);
        out << line;
    }
    out << fusion_summary(plan);
    return out.str();
}

} // namespace tessera::graph
