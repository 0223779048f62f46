// emit_model: a whole model ahead of time, one library per model. Every partition
// of the fusion plan is lowered, scheduled and compiled to an object; a generated
// C++ wrapper strings them together behind a small C API; weights go to a file of
// their own (bound as inputs at run time, not baked into code). Written to
// `out_dir`:
//   lib<name>.a      the kernels, the wrapper and Halide's runtime (link with -lpthread -ldl)
//   lib<name>.so     the same as a shared library (what `tessera run out/` loads)
//   <name>.h         the C API: <name>_create(weights_path) (or <name>_create_embedded() with
//                    embed_weights), <name>_run(...), <name>_destroy
//   <name>.weights   every constant the kernels read, fp32
//   <name>.plan.json the partitions, their nodes, class, predicted bytes and times, and
//                    the memory plan (arena and peak bytes, each intermediate's offset)
// Everything is built in a scratch folder first and moved into place at the end, so a
// failure leaves no half-written output.
#pragma once

#include "graph.h"
#include "memory_plan.h"
#include "partition.h"

#include <Halide.h>

#include <functional>
#include <string>
#include <vector>

namespace tessera::graph {

// Runs independent tasks (each returns a short text) and calls `done(k, text)` for
// each as it completes, in order; throws when one fails. A runner may run them in
// parallel processes (their effects are files); without one they run here in turn.
using TaskRunner = std::function<void(const std::vector<std::function<std::string()>> &tasks,
                                      const std::function<void(size_t, const std::string &)> &done)>;

// A partition's candidate schedules as a tuner measured them (tessera compile --tune):
// recorded in plan.json.
struct MeasuredCandidates {
    std::string partition;
    std::vector<std::string> names;    // each candidate's: "Tessera:0" (the untuned), "Tessera:1", "Mullapudi2016"
    std::vector<double> candidate_ms;  // best of the timed rounds, per candidate (index = candidate)
    std::vector<double> predicted_ms;  // the scheduler's prediction, per candidate
    int chosen = 0;                    // the fastest, the one compiled
    bool from_log = false;             // taken from a tuning log, not measured in this compile
};

// Schedules partition `k` of the plan (its lowered pipeline).
using PartitionScheduler = std::function<void(Halide::Pipeline &, size_t k)>;

struct EmitOptions {
    std::string name;       // the library's name: a C identifier
    std::string out_dir;
    Halide::Target target;
    std::string model_path; // for the header's comment
    std::string scheduler;  // for plan.json
    bool embed_weights = false;        // also link the weights into the library (<name>_create_embedded)
    std::string cxx = "c++";           // compiles the wrapper
    std::string halide_include_dir;    // HalideBuffer.h, HalideRuntime.h
    TaskRunner run_tasks;              // schedules and compiles the partitions (default: in turn, here)
    std::vector<MeasuredCandidates> measured;  // for plan.json (tessera compile --tune)
};

struct EmitReport {
    double schedule_ms = 0, codegen_ms = 0, wrapper_ms = 0;
    size_t weight_floats = 0;
    MemoryPlan memory;               // the intermediate values' arena
    std::vector<std::string> files;  // written, full paths
};

// `schedule` schedules each partition's pipeline; `progress` gets a line per step.
// Throws GraphError (the model) or std::runtime_error (files, the C++ compiler).
EmitReport emit_model(const Graph &g, const FusionPlan &plan, const PartitionScheduler &schedule,
                      const EmitOptions &options, const std::function<void(const std::string &)> &progress = {});

}  // namespace tessera::graph
