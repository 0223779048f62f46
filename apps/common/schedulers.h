// The autoschedulers a JIT pipeline can be scheduled with: "none" (Halide's
// default schedule), Halide's Mullapudi2016, Adams2019 and Li2018 plugins (loaded
// on first use), and Tessera's own, called directly with typed options.
#pragma once

#include "host_target.h"
#include "scheduler_options.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera {

// Canonical names, e.g. {"none", "Mullapudi2016", "Adams2019", "Li2018"}.
const std::vector<std::string> &scheduler_names();
std::string default_scheduler();

// Case-insensitive lookup; throws std::invalid_argument naming the known ones.
std::string canonical_scheduler(const std::string &name);

// A scheduler and what it is given: its name, the target the pipeline is compiled
// for, and Tessera's typed options (whose threads and device profile also give
// Halide's own autoschedulers their machine parameters).
struct SchedulerChoice {
    std::string name = "Tessera";
    Halide::Target target = hal::host_target();
    SchedulerOptions options;
};

// Halide's machine parameters for `options`: its threads (0: all hardware
// threads), the last-level cache of its device profile, Halide's default balance.
Halide::MachineParams machine_params(const SchedulerOptions &options);

// Loads the scheduler's plugin once (nothing for "none" and "Tessera"). Throws
// std::runtime_error when it cannot load.
void load_scheduler(const std::string &scheduler);

// How many of Tessera's top rPrograms the tools' --tune times by default (the fastest
// is kept).
constexpr int kDefaultTuneCandidates = 3;

// Schedules `pipeline` in place. Tessera prints its explanation to stderr when
// options.explain is set. Throws std::runtime_error when a plugin cannot load.
void apply_scheduler(Halide::Pipeline &pipeline, const SchedulerChoice &choice);

}  // namespace tessera
