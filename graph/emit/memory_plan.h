// Memory planning for an emitted model: every intermediate value (a partition's
// output that later partitions read) gets an offset in one arena, and values that are
// never alive at the same step share bytes, so a run's working set is the peak of
// what is alive rather than the sum of every buffer: it stays in cache longer and a
// model handle holds less memory.
#pragma once

#include "graph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::graph {

// A buffer alive from the step that writes it to the last step that reads it, both
// included (a partition never writes over one of its own inputs).
struct BufferLifetime {
    std::string value;
    size_t bytes = 0;
    int first_step = 0, last_step = 0;
};

struct MemoryPlan {
    std::vector<size_t> offsets;   // bytes from the arena's start, one per buffer, aligned
    size_t arena_bytes = 0;        // what the arena needs
    size_t peak_live_bytes = 0;    // the most bytes alive at one step (no plan can need less)
    size_t separate_bytes = 0;     // what one buffer per value would need
};

// Alignment of every offset: a cache line, also what Halide's vector loads like.
constexpr size_t kArenaAlignment = 64;

// The intermediate values of a model run as steps (step k reads step_inputs[k] and
// writes step_outputs[k]): every step output that is not a graph output (those go to
// the caller's arrays), alive from its step to the last step that reads it.
std::vector<BufferLifetime> intermediate_lifetimes(const Graph &g, const std::vector<std::vector<std::string>> &step_inputs,
                                                   const std::vector<std::string> &step_outputs);

// Places the buffers greedily, largest first, each at the lowest offset where it
// overlaps no buffer alive at the same time.
MemoryPlan plan_memory(const std::vector<BufferLifetime> &buffers);

// The first pair of buffers that are alive at a common step and overlap in the arena,
// or none: the check the tests run on every plan.
std::optional<std::pair<size_t, size_t>> find_aliasing(const std::vector<BufferLifetime> &buffers,
                                                       const MemoryPlan &plan);

}  // namespace tessera::graph
