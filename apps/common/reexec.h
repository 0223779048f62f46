// Re-executing the running program with variables set in its new environment: how
// a command-line tool gives libraries that read their settings only from the
// environment, and only when they start (OpenMP's thread count, Halide's JIT
// runtime's HL_NUM_THREADS), a value, without setting variables in this process.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tessera {

// Returns when this process's environment already has `settings` (an empty value:
// unset); else re-executes /proc/self/exe with `argv` and an environment of this
// one's variables with `settings` applied and `marker`=1 added. Throws
// std::runtime_error when the re-exec fails, or when `marker` is set but the
// settings are not (the environment did not stick).
void reexec_with_environment(char **argv, const std::vector<std::pair<std::string, std::string>> &settings,
                             const std::string &marker);

}  // namespace tessera
