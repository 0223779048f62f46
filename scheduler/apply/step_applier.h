// StepApplier: the one place a typed step (schedule/schedule_steps.h) becomes a
// Halide directive. It replays steps through a ScheduleScript, which applies each
// to its Funcs and writes the equivalent C++; the ScheduleBuilder's sandbox and the
// live replay of a finished schedule (emit_schedule) both go through it, so a new
// directive is dispatched here once.
#pragma once

#include "schedule_script.h"
#include "schedule_steps.h"

#include <map>
#include <memory>

namespace tessera::apply {

class StepApplier {
public:
    explicit StepApplier(ScheduleScript &script);
    ~StepApplier();
    StepApplier(const StepApplier &) = delete;
    StepApplier &operator=(const StepApplier &) = delete;

    void apply(const schedule::Step &step);
    // Whether every stage block opened has been closed.
    bool all_closed() const { return open_.empty(); }

private:
    void apply_directive(StageScript &stage, const schedule::LoopDirective &directive);

    ScheduleScript &script_;
    std::map<int, std::unique_ptr<StageScript>> open_;  // stage blocks by number
};

}  // namespace tessera::apply
