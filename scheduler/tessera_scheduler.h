// The Tessera autoscheduler, independent of Halide's plugin interface: analyse
// the pipeline, construct an rProgram for every compute-intensive stage, schedule
// the memory-intensive ones by rule, apply it all to the live Funcs and return
// the equivalent schedule source. plugin.cpp adapts this to Halide 14.
#pragma once

#include "pipeline_schedule.h"

#include <Halide.h>

#include <string>

namespace tessera {

struct SchedulerOptions {
    int parallelism = 0;  // cores to use; 0: from the device profile
    bool explain = false; // TESSERA_EXPLAIN: print the decisions to stderr
    int top_k = 1;        // TESSERA_TOPK: candidates kept per compute-intensive stage
    int candidate = 0;    // TESSERA_CANDIDATE: apply the n-th best rProgram (how TESSERA_MEASURE
                          // in the JIT tools tries the top K; see apps/common/jit_op.cpp)
    bool fuse_chains = true;  // TESSERA_FUSE_CHAINS=0: chains of compute-intensive stages one by one

    // From the TESSERA_* environment variables.
    static SchedulerOptions from_environment(int parallelism);
};

struct ScheduleOutcome {
    schedule::PipelineSchedule schedule;  // the decisions, as data
    // C++ equivalent of the applied schedule (for .schedule.h). Where rPrograms were
    // chosen it opens with "// Tessera predicts X ms for N compute-intensive stage(s)".
    std::string source;
    std::string explanation;  // what TESSERA_EXPLAIN prints
};

ScheduleOutcome schedule_pipeline(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                  const SchedulerOptions &options);

}  // namespace tessera
