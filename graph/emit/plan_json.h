// <name>.plan.json: the fusion plan as data, for `--explain`, tests and benchmarks:
// per partition its nodes (name, op type), class, flops, predicted DRAM bytes,
// inputs, output, the schedule and codegen times and, when tuned, each candidate's
// measured time and the one chosen; the model's inputs and
// outputs; kernels and bytes before and after fusion; the memory plan (arena and
// peak bytes, and each intermediate value's offset, bytes and lifetime in steps).
#pragma once

#include "emit_model.h"
#include "memory_plan.h"

#include <string>
#include <vector>

namespace tessera::graph {

struct PartitionTimes {
    double schedule_ms = 0, codegen_ms = 0;
};

void write_plan_json(const Graph &g, const FusionPlan &plan, const std::vector<PartitionTimes> &times,
                     const std::vector<BufferLifetime> &intermediates, const MemoryPlan &memory,
                     const EmitOptions &options, const std::string &path);

}  // namespace tessera::graph
