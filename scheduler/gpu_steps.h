// The driver's steps on a GPU target: every stage the plan keeps becomes one or
// more kernels. A compute-intensive stage follows its GpuProgram (rtile/
// gpu_program.h), computed per block of the pure output it is the epilogue of, or
// of a wrapper its other consumers read; every other stage at root with its loops
// on blocks and threads (rules/gpu_schedules.h).
#pragma once

#include "stage_steps.h"

namespace tessera {

void schedule_gpu_stages(SchedulingContext &c);

}  // namespace tessera
