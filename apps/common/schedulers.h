// The autoschedulers a JIT pipeline can be scheduled with: "none" (Halide's
// default schedule), Halide's Mullapudi2016, Adams2019 and Li2018 plugins, and
// Tessera's own once it is built. Plugins are loaded on first use.
#pragma once

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera {

// Canonical names, e.g. {"none", "Mullapudi2016", "Adams2019", "Li2018"}.
const std::vector<std::string> &scheduler_names();
std::string default_scheduler();

// Case-insensitive lookup; throws std::invalid_argument naming the known ones.
std::string canonical_scheduler(const std::string &name);

// Machine parameters for this host: all hardware threads (or TESSERA_NUM_THREADS),
// the last-level cache size of the device profile, Halide's default balance.
Halide::MachineParams host_machine_params();

// Loads the scheduler's plugin once (nothing for "none"). Throws std::runtime_error
// when it cannot load.
void load_scheduler(const std::string &scheduler);

// Schedules `pipeline` in place. Throws std::runtime_error when the plugin cannot load.
void apply_scheduler(Halide::Pipeline &pipeline, const std::string &scheduler, const Halide::Target &target,
                     const Halide::MachineParams &params);

}  // namespace tessera
