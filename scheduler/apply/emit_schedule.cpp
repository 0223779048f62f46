#include "emit_schedule.h"

#include "diagnostics.h"
#include "step_applier.h"

namespace tessera::apply {

std::string emit_schedule(const schedule::PipelineSchedule &schedule,
                          const std::vector<Halide::Internal::Function> &order) {
    ScheduleScript script(order);
    StepApplier applier(script);
    for (const schedule::Step &step : schedule.steps()) applier.apply(step);
    internal_assert(applier.all_closed()) << "a stage block of the schedule was never closed\n";
    return script.source();
}

}  // namespace tessera::apply
