// The safe schedule of a stage the constructor cannot analyse: valid for any
// definition, with a warning from the caller naming the stage.
#pragma once

#include "device_spec.h"
#include "schedule_builder.h"

#include <string>
#include <vector>

namespace tessera::rules {

// A stage the constructor cannot analyse: computed at root, outer loop parallel
// (its pure stage: the outer loops fused until they give each core two tasks),
// innermost pure var vectorised (guarded) when it has `extents[0]` >= a vector,
// also in updates that write along it -- valid for any definition. `extents`: per
// pure var, Halide order (empty when unknown).
void schedule_safe(schedule::ScheduleBuilder &script, const Halide::Internal::Function &f,
                   const std::vector<int64_t> &extents, const hal::DeviceSpec &d);

}  // namespace tessera::rules
