// The graph layer's alternatives measured whole, before the partitions are tuned
// (`tessera compile --tune`): the model opened as asked, with `--layout chosen` (each
// convolution in the layout the model predicts fastest) and without fusion, each
// JIT-compiled with its untuned schedules and run on random inputs in interleaved
// rounds; the fastest one's options are compiled. The one asked for is always among
// them, so neither a layout nor fusion makes the model slower than its alternative
// beyond noise. The choice is logged like a partition's (tuning_log.h; its signature
// is the model's, prefixed "graph-") and taken unmeasured by a later compile.
#pragma once

#include "opened_model.h"
#include "tune_partitions.h"

#include <functional>
#include <memory>
#include <string>

namespace tessera::cli {

struct GraphTuning {
    ModelOptions chosen;             // the options to compile with
    std::vector<std::string> names;  // the alternatives timed ("layout=auto", "layout=chosen", "layout=auto,no-fusion")
    std::vector<double> measured_ms;
    int choice = 0;
    bool from_log = false;
    // The chosen alternative as tune_graph opened it, its scheduler quiet (null: open
    // `chosen` again), so a compile that takes the log's choice opens the model once.
    std::shared_ptr<OpenedModel> opened;
};

// The model's identity in the log: "graph-" and the signature of all its nodes as
// opened (tuning_log.h's partition_signature).
std::string graph_signature(const OpenedModel &m);

// The alternatives' names for `asked`: the options as given, then those that differ.
std::vector<std::string> graph_alternative_names(const ModelOptions &asked);

// The options an alternative's name stands for, from `asked`. Throws graph::GraphError
// for a name this build does not write.
ModelOptions graph_alternative(const ModelOptions &asked, const std::string &name);

// The options of an alternative the log at `log_path` chose, read back without timing:
// with layout=measured its nodes' times come from the same log, as the compile took
// them (timed afresh, the layouts and so every partition's signature could differ),
// and nothing is appended. Throws graph::GraphError naming the log for a bad name.
ModelOptions logged_alternative(const ModelOptions &asked, const std::string &name, const std::string &log_path);

// Times the alternatives of `asked` (skipping those whose graph is the same as the
// one asked for) and returns the fastest, or takes the log's record. Uses
// settings.threads, rounds, log_path and timer_override (called with partition
// "graph"). Throws graph::GraphError for a malformed log.
GraphTuning tune_graph(const ModelOptions &asked, const TuneSettings &settings,
                       const std::function<void(const std::string &)> &progress = {});

}  // namespace tessera::cli
