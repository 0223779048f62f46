// The driver's steps: one function per kind of stage. Each asks the analysis what
// the stage's reads need, lets the rTile construction or the rules decide, and
// says what it did in the explanation. They share a SchedulingContext.
#pragma once

#include "compute_schedules.h"
#include "decisions.h"
#include "device_spec.h"
#include "read_patterns.h"
#include "schedule_builder.h"
#include "stage_plan.h"
#include "tessera_scheduler.h"

#include <map>
#include <set>
#include <sstream>
#include <string>

namespace tessera {

struct SchedulingContext {
    SchedulingContext(const analysis::FunctionDag &dag, const analysis::StagePlan &plan, const hal::DeviceSpec &device,
                      const SchedulerOptions &options, schedule::ScheduleBuilder &builder)
        : dag(dag), plan(plan), device(device), options(options), builder(builder) {}

    const analysis::FunctionDag &dag;
    const analysis::StagePlan &plan;
    const hal::DeviceSpec &device;
    const SchedulerOptions &options;
    schedule::ScheduleBuilder &builder;
    std::ostringstream explain;
    // Each scheduled Func's row loop: where the producers it reads attach.
    std::map<std::string, rules::Attachment> row_of;
    // Producers scheduled with their consumer (packed operands, a fused stage).
    std::set<std::string> handled;
    // Consumers of fused convolution chains: the producer's epilogue (and the
    // producer with it) is computed per L2 tile of the consumer.
    std::set<std::string> fused_chain_consumers;
    ScheduleDecisions decisions;
    // The chosen rPrograms' predicted times, summed (the schedule source's first line).
    double predicted_ms = 0;
    int predicted_stages = 0;
};

// Records that `func` was scheduled in `role` (no candidates: a rule's schedule).
void record_decision(SchedulingContext &c, const std::string &func, StageRole role);

// Where a non-output producer attaches: the row loop its readers share, or none
// (root) when they run in different loops (1-D softmax: the output's rows and its
// sum at root both read the exponentials).
rules::Attachment shared_row_of(SchedulingContext &c, const analysis::FunctionNode &node);

// A compute-intensive stage with one update: decided whole first (its rPrograms
// constructed and one chosen, each producer placed, the compute stages under
// them decided in turn: an epilogue's own stage at root, a fused chain's
// producer per band of this stage's L2 tiles, its programs built for one band,
// its loops serial), then lowered into steps; with `epilogue`, computed per tile
// of that pure output. Returns the loop its consumers' producers attach to.
rules::Attachment schedule_compute_stage(SchedulingContext &c, const analysis::FunctionNode &node,
                                         const analysis::TensorExpr &compute, const analysis::TensorExpr *epilogue);
// A scalar (a full reduction, a 0-D output): computed at root, serially.
void schedule_scalar(SchedulingContext &c, const analysis::FunctionNode &node);
// A stage the analysis cannot read: the rules' safe schedule, with a warning.
void schedule_unanalysable(SchedulingContext &c, const analysis::FunctionNode &node, const std::string &reason);
// A pure output that is no compute stage's epilogue: rows shaped by what it reads.
void schedule_memory_output(SchedulingContext &c, const analysis::FunctionNode &node);
// A reduction without reuse, at its consumer's row `at` (or root, or as an output).
void schedule_reduction_stage(SchedulingContext &c, const analysis::FunctionNode &node, rules::Attachment at);
// A pure producer kept out of line, at its consumers' row `at`.
void schedule_shared_producer_stage(SchedulingContext &c, const analysis::FunctionNode &node,
                                    const rules::Attachment &at);

}  // namespace tessera
