// Partitions measured on this machine, as the tuner measures them: each lowered with
// fresh Funcs and scheduled, JIT-compiled `jobs` at once, then timed side by side in
// interleaved rounds on random inputs of their shapes (constants as they are), with the
// model's thread pool. tune_partitions times a partition's candidate schedules this
// way, tune_fusion a fused partition against its pieces.
#pragma once

#include "jit_thread_pool.h"
#include "lower_partition.h"
#include "model_calibration.h"
#include "schedulers.h"

#include <string>
#include <vector>

namespace tessera::cli {

struct ScheduledPartition {
    graph::LoweredPartition lowered;
    double predicted_ms = 0;             // Tessera's prediction (0: another scheduler's)
    std::vector<hal::ModelTerms> terms;  // the chosen programs' model terms (Tessera's)
};

// Lowers `p` and schedules it with `choice`; throws what the scheduler throws.
ScheduledPartition schedule_partition(const graph::Graph &g, const graph::Partition &p, const SchedulerChoice &choice);
// The same for a pipeline lowered already (a node alone: lower_single_node).
ScheduledPartition schedule_lowered(graph::LoweredPartition lowered, const SchedulerChoice &choice);

// JIT-compiles them, `jobs` at once (0: one per core); per partition its failure
// message, empty where it compiled.
std::vector<std::string> compile_partitions(const std::vector<ScheduledPartition *> &partitions,
                                            const Halide::Target &target, int jobs);

// The fastest of `rounds` interleaved rounds (after one warm-up) per partition, ms.
std::vector<double> time_partitions(const graph::Graph &g, const std::vector<ScheduledPartition *> &partitions,
                                    graph::JitThreadPool &pool, const Halide::Target &target, int rounds);

}  // namespace tessera::cli
