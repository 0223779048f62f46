// The C API wrapper of an emitted model: its public header and the C++ source that
// calls each partition's compiled function in plan order on the caller's input and
// output arrays, the weights (read from the weights file by <name>_create) and the
// intermediate values in one arena allocated once per handle (memory_plan.h), with
// the handle's own thread pool (runtime/model_thread_pool.h) as every kernel's user
// context.
#pragma once

#include "graph.h"
#include "lower_partition.h"
#include "memory_plan.h"

#include <string>
#include <vector>

namespace tessera::graph {

struct WrapperSource {
    std::string header;                 // <name>.h
    std::string source;                 // <name>_wrapper.cpp
    std::vector<std::string> weights;   // constant values in the weights file's order
    size_t weight_floats = 0;
    std::vector<BufferLifetime> lifetimes;  // the intermediate values, in plan order
    MemoryPlan memory;                      // their places in the handle's arena
};

// `function_names[k]` is the compiled function of partitions[k]; `partition_headers[k]`
// the header Halide wrote for it. `embedded`: the weights are also linked into the
// library (symbols of `ld -r -b binary <name>_weights.bin`), <name>_create_embedded().
// `on_gpu`: the partitions run on a GPU; weights and intermediate values keep their
// device copies in the model between runs (weights copied once), the caller's inputs
// are copied over and the outputs back on every run.
WrapperSource generate_wrapper(const Graph &g, const std::vector<LoweredPartition> &partitions,
                               const std::vector<std::string> &function_names,
                               const std::vector<std::string> &partition_headers, const std::string &name,
                               const std::string &model_path, bool embedded, bool on_gpu = false);

// The weights file: "TSRWGT01", the float count (uint64, little-endian), the floats.
void write_weights_file(const Graph &g, const std::vector<std::string> &weights, const std::string &path);

}  // namespace tessera::graph
