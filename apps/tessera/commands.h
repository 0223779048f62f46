// The tessera subcommands; each returns the process's exit status and throws
// UsageError (exit 2 with usage), graph::GraphError (a bad model or input file:
// exit 2) or another std::exception (exit 1).
#pragma once

#include "scheduler_options.h"

#include <string>
#include <vector>

namespace tessera::cli {

// `scheduler` holds the options main read from the environment; flags go on top.
// `cxx`: the C++ compiler of the generated wrapper ($CXX, read by main).
int compile_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler, const std::string &cxx);
int run_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler);
int inspect_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler);

}  // namespace tessera::cli
