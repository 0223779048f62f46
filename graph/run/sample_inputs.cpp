#include "sample_inputs.h"

#include <algorithm>
#include <random>
#include <set>

namespace tessera::graph {

namespace {

// Ops that carry their input's values to their output unchanged (input 0 only).
bool passes_values_through(const std::string &op) {
    static const std::set<std::string> ops = {"Reshape", "Flatten", "Squeeze",   "Unsqueeze", "Identity",
                                              "Expand",  "Concat",  "Slice",     "Transpose", "Tile",
                                              "Split"};
    return ops.count(op) > 0;
}

void collect_gather_extents(const Graph &g, const std::string &value, std::set<std::string> &seen,
                            int64_t &smallest) {
    if (!seen.insert(value).second) return;
    for (const Node &n : g.nodes) {
        for (size_t k = 0; k < n.inputs.size(); k++) {
            if (n.inputs[k] != value) continue;
            if (n.op_type == "Gather" && k == 1) {
                const Shape &data = g.value(n.inputs[0]).shape;
                int64_t axis = n.get_int("axis", 0);
                if (axis < 0) axis += int64_t(data.size());
                if (axis >= 0 && axis < int64_t(data.size())) smallest = std::min(smallest, data[size_t(axis)]);
            } else if (passes_values_through(n.op_type) && (k == 0 || n.op_type == "Concat")) {
                for (const std::string &out : n.outputs) collect_gather_extents(g, out, seen, smallest);
            }
        }
    }
}

}  // namespace

ValueRange sample_range(const Graph &g, const std::string &value) {
    std::set<std::string> seen;
    int64_t smallest = INT64_MAX;
    collect_gather_extents(g, value, seen, smallest);
    if (smallest == INT64_MAX || smallest < 1) return {};
    return {0, smallest};
}

TensorData random_integers(DType dtype, const Shape &shape, ValueRange range, uint64_t seed) {
    if (dtype == DType::boolean) range = {0, 2};
    TensorData t(dtype, shape);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> uniform(range.lo, std::max(range.lo, range.hi - 1));
    for (int64_t &v : t.i) v = uniform(rng);
    return t;
}

}  // namespace tessera::graph
