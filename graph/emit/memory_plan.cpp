#include "memory_plan.h"

#include "lower_partition.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace tessera::graph {

namespace {

size_t aligned(size_t bytes) {
    return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

bool alive_together(const BufferLifetime &a, const BufferLifetime &b) {
    return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

}  // namespace

std::vector<BufferLifetime> intermediate_lifetimes(const Graph &g, const std::vector<std::vector<std::string>> &step_inputs,
                                                   const std::vector<std::string> &step_outputs) {
    std::vector<BufferLifetime> lifetimes;
    std::map<std::string, size_t> index;
    for (size_t k = 0; k < step_outputs.size(); k++) {
        for (const std::string &v : step_inputs[k]) {
            auto it = index.find(v);
            if (it != index.end()) lifetimes[it->second].last_step = int(k);
        }
        const std::string &out = step_outputs[k];
        if (g.is_output(out) || index.count(out)) continue;
        index[out] = lifetimes.size();
        const size_t bytes = size_t(num_elements(g.value(out).shape)) * boundary_type(g.value(out).dtype).bytes();
        lifetimes.push_back({out, bytes, int(k), int(k)});
    }
    return lifetimes;
}

MemoryPlan plan_memory(const std::vector<BufferLifetime> &buffers) {
    MemoryPlan plan;
    plan.offsets.assign(buffers.size(), 0);
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
    std::vector<size_t> placed;
    for (size_t k : order) {
        const BufferLifetime &b = buffers[k];
        // The placed buffers alive with this one, by offset: take the first gap that fits.
        std::vector<size_t> neighbours;
        for (size_t p : placed) {
            if (alive_together(b, buffers[p])) neighbours.push_back(p);
        }
        std::sort(neighbours.begin(), neighbours.end(),
                  [&](size_t x, size_t y) { return plan.offsets[x] < plan.offsets[y]; });
        size_t offset = 0;
        for (size_t p : neighbours) {
            if (offset + b.bytes <= plan.offsets[p]) break;
            offset = std::max(offset, aligned(plan.offsets[p] + buffers[p].bytes));
        }
        plan.offsets[k] = offset;
        plan.arena_bytes = std::max(plan.arena_bytes, aligned(offset + b.bytes));
        plan.separate_bytes += aligned(b.bytes);
        placed.push_back(k);
    }
    // The most bytes alive at one step.
    std::map<int, size_t> live;
    for (const BufferLifetime &b : buffers) {
        for (int s = b.first_step; s <= b.last_step; s++) live[s] += aligned(b.bytes);
    }
    for (const auto &[step, bytes] : live) plan.peak_live_bytes = std::max(plan.peak_live_bytes, bytes);
    return plan;
}

std::optional<std::pair<size_t, size_t>> find_aliasing(const std::vector<BufferLifetime> &buffers,
                                                       const MemoryPlan &plan) {
    for (size_t a = 0; a < buffers.size(); a++) {
        for (size_t b = a + 1; b < buffers.size(); b++) {
            if (!alive_together(buffers[a], buffers[b]) || !buffers[a].bytes || !buffers[b].bytes) continue;
            const size_t a0 = plan.offsets[a], a1 = a0 + buffers[a].bytes;
            const size_t b0 = plan.offsets[b], b1 = b0 + buffers[b].bytes;
            if (a0 < b1 && b0 < a1) return std::make_pair(a, b);
        }
    }
    return std::nullopt;
}

}  // namespace tessera::graph
