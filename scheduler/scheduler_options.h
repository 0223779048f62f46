// SchedulerOptions: everything a Tessera schedule depends on besides the pipeline
// and the target, as typed values, so that a schedule is reproducible from
// (pipeline, target, options). The apps and the graph layer pass them in; only the
// plugin entry (plugin.cpp, for Halide users) and the command-line tools' main
// functions fill them from the environment (options_from_environment.h).
#pragma once

#include "device_profile.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

struct SchedulerOptions {
    int parallelism = 0;       // cores to use; 0: the device profile's
    bool explain = false;      // print the decisions to stderr
    int top_k = 1;             // candidates kept per compute-intensive stage
    int candidate = 0;         // apply the n-th best rProgram of each stage (the JIT tools' measured pick)
    // Per compute stage (its Func's name without Halide's "$N" suffix), the n-th best
    // rProgram to apply instead of `candidate`: how a tuner applies what it measured
    // (the candidates are ScheduleOutcome::decisions).
    std::map<std::string, int> stage_candidates;
    bool fuse_chains = true;   // false: chains of compute-intensive stages one by one
    // The CPU's figures (tessera-profile's measurements, or a pinned machine's);
    // nullopt: this host's built-in figures (hal::builtin_profile).
    std::optional<hal::DeviceProfile> device_profile;
    // A GPU target's figures: "" for the table's (the target's CUDA capability, or
    // a generic OpenCL GPU), or a name or JSON file hal::gpu_figures_for_target takes.
    std::string gpu_profile;
};

// Sets one option from text, as a command line or a bench variant writes it
// ("fuse_chains", "0"): explain, top_k, candidate, stage_candidate (FUNC:N, one
// stage's; repeatable), fuse_chains, threads, device_profile (a profile file, read
// now) and gpu_profile. Throws
// std::invalid_argument naming the option and the value.
void set_scheduler_option(SchedulerOptions &options, const std::string &name, const std::string &value);

// The profile `options` hold, or this host's built-in figures: what the scheduler
// builds for, and what the tools report and classify against.
hal::DeviceProfile profile_or_builtin(const SchedulerOptions &options);

// The option names set_scheduler_option takes, for usage messages.
const std::vector<std::string> &scheduler_option_names();

}  // namespace tessera
