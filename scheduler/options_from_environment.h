// The environment variables Tessera reads, all in one place, and read only at the
// outermost edges: the plugin entry (plugin.cpp, for Halide users who load the
// plugin into a generator or a JIT program) and the command-line tools' main
// functions. Everything below them takes SchedulerOptions as a value.
//
//   TESSERA_EXPLAIN=1          explain (print the decisions to stderr)
//   TESSERA_TOPK=K             top_k
//   TESSERA_CANDIDATE=N        candidate
//   TESSERA_FUSE_CHAINS=0      fuse_chains off
//   TESSERA_DEVICE_PROFILE=F   the CPU profile (default: tessera-profile's file, below)
//   TESSERA_GPU_PROFILE=NAME   gpu_profile
#pragma once

#include "scheduler_options.h"

#include <optional>
#include <string>

namespace tessera {

// Where tessera-profile writes and the tools look for the CPU profile:
// $TESSERA_DEVICE_PROFILE, else $XDG_CACHE_HOME/tessera/device_profile.json, else
// ~/.cache/tessera/device_profile.json.
std::string default_profile_path();

// The CPU profile the environment gives: the file $TESSERA_DEVICE_PROFILE names (a
// std::runtime_error naming it when it does not load), else tessera-profile's file
// where it exists (a warning on stderr and the built-in figures when it does not
// load), else nullopt: the built-in figures.
std::optional<hal::DeviceProfile> device_profile_from_environment();

// Every option from its variable (unset: the default). Throws std::runtime_error or
// std::invalid_argument naming the variable when a value is malformed.
SchedulerOptions scheduler_options_from_environment(int parallelism);

}  // namespace tessera
