// The tessera subcommands; each returns the process's exit status and throws
// UsageError (exit 2 with usage), graph::GraphError (a bad model or input file:
// exit 2) or another std::exception (exit 1).
#pragma once

#include <string>
#include <vector>

namespace tessera::cli {

int compile_command(const std::vector<std::string> &args);
int run_command(const std::vector<std::string> &args);
int inspect_command(const std::vector<std::string> &args);

}  // namespace tessera::cli
