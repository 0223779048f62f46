// Emits a PipelineSchedule: its steps replayed, in order, onto the pipeline's live
// Funcs and into the equivalent C++ (what Halide writes into a .schedule.h), so
// the source is by construction what was applied.
#pragma once

#include "pipeline_schedule.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::apply {

// `order`: the pipeline's Functions in Halide's topological order (Pipeline::get_func),
// the same the schedule was built for. Returns the schedule source.
std::string emit_schedule(const schedule::PipelineSchedule &schedule,
                          const std::vector<Halide::Internal::Function> &order);

}  // namespace tessera::apply
