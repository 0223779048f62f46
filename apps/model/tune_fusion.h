// Measured fusion decisions (`tessera compile --tune`, after the graph's alternatives,
// before the partitions' candidates): each fused partition is timed against its pieces
// (graph/passes/split_partitions.h: the partitions --no-fusion makes of its nodes), all
// with their untuned schedules, JIT-compiled and run side by side in interleaved rounds
// on random inputs; a partition whose pieces ran faster in sum (by 3%: a tie keeps
// the fusion) is split. So fusion never
// makes a partition slower than its pieces beyond noise, where the whole-graph
// alternative (tune_graph.h) could only take fusion back everywhere at once.
// Decisions are logged like a partition's candidates (signature "fusion-" and the
// partition's; candidates "fused" and "pieces") and taken unmeasured by a later compile.
#pragma once

#include "opened_model.h"
#include "tune_partitions.h"
#include "tuning_log.h"

#include <functional>
#include <string>

namespace tessera::cli {

struct FusionTuning {
    graph::FusionPlan plan;  // the plan to compile: the partitions whose pieces ran faster split
    int decisions = 0;       // fused partitions with pieces, measured or from the log
    int split = 0;           // of them, split
    double measured_s = 0;   // spent measuring (counted against the tuning budget)
};

// The log's name for a partition's fusion decision.
std::string fusion_signature(const graph::Graph &g, const graph::Partition &p);

// Whether a fusion decision read from the log at `log_path` splits its partition.
// Throws graph::GraphError naming the log for a decision this build does not write.
bool splits(const TuningRecord &decision, const std::string &log_path);

// Times the model's fused partitions against their pieces, or takes the log's records
// (settings.log_path), and returns the plan with the losing fusions split. Uses
// settings.threads, rounds, jobs, budget_s (the rest keep their fusion once it is spent)
// and timer_override (called with the partition's name and "fused" or "pieces").
// A GPU target is left as it is (its partitions would be timed in this process).
// Throws graph::GraphError for a malformed log.
FusionTuning tune_fusion(const OpenedModel &model, const TuneSettings &settings,
                         const std::function<void(const std::string &)> &progress = {});

}  // namespace tessera::cli
