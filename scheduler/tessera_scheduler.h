// The Tessera autoscheduler, independent of Halide's plugin interface: analyse
// the pipeline, construct an rProgram for every compute-intensive stage, schedule
// the memory-intensive ones by rule, apply it all to the live Funcs and return
// the equivalent schedule source. plugin.cpp adapts this to Halide 14.
#pragma once

#include "decisions.h"
#include "pipeline_schedule.h"
#include "scheduler_options.h"

#include <Halide.h>

#include <string>

namespace tessera {

struct ScheduleOutcome {
    schedule::PipelineSchedule schedule;  // the steps carrying the decisions out, and the loop nests
    ScheduleDecisions decisions;          // what was chosen per stage and chain, and the alternatives
    // C++ equivalent of the applied schedule (for .schedule.h), opening with the
    // device figures it was built for and, where rPrograms were chosen, the
    // predicted time (comments for the reader; callers read the fields below).
    std::string source;
    std::string explanation;  // what explain prints
    // The chosen rPrograms' predicted times, summed, and how many stages they
    // cover (0: no compute-intensive stage; predicted_ms is then 0).
    double predicted_ms = 0;
    int predicted_stages = 0;
};

// Schedules `pipeline` in place (its live Funcs) for `target` under `options`.
ScheduleOutcome schedule_pipeline(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                  const SchedulerOptions &options);

}  // namespace tessera
