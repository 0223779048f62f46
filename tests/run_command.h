// Runs a shell command for the command-line tests and captures its exit code and
// output (stdout and stderr together).
#pragma once

#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace tessera::test {

struct CommandResult {
    int exit_code = -1;  // 128 + signal when killed
    std::string output;
};

inline CommandResult run_command(const std::string &command) {
    CommandResult r;
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace tessera::test
