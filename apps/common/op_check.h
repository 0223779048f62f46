// Checks one JIT-compiled operator against the plain C++ reference on fresh random
// inputs (output poisoned with NaN first), then times it.
#pragma once

#include "op_config.h"
#include "schedulers.h"

#include <string>
#include <vector>

namespace tessera {

// Norm-wise relative error bound for fp32 kernels against the double reference.
constexpr double kRelTolerance = 1e-4;

struct OpCheck {
    double schedule_ms = 0, compile_ms = 0;
    double run_ms_median = 0, run_ms_min = 0;
    double flops = 0, bytes = 0;
    bool compute_bound = false;
    double rel_error = 0;
    bool ok = false;
    std::string error;  // set when scheduling, compiling or running failed
    bool crashed = false;  // the process running it crashed or timed out (isolated runs)
};

// reps = 0: correctness only. Otherwise up to `reps` timed runs (at least 3, stopping
// after about a second). `measured_candidates`: as JitOp's. `pool_threads`: the kernel
// also runs on a model thread pool of each of these sizes (a fresh poisoned output
// each time); rel_error is the worst of all runs.
OpCheck check_op(const ops::OpConfig &config, const SchedulerChoice &choice, uint64_t seed, int reps,
                 int measured_candidates = 0, const std::vector<int> &pool_threads = {});

}  // namespace tessera
