#include "thread_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace tessera::bench {

namespace {

// An empty `value` means: unset.
bool env_is(const char *name, const std::string &value) {
    const char *v = std::getenv(name);
    return value.empty() ? v == nullptr : v && value == v;
}

}  // namespace

int configured_threads() {
    const char *v = std::getenv("HL_NUM_THREADS");
    return v ? std::max(1, std::atoi(v)) : 1;
}

void ensure_thread_environment(int threads, const char *omp_wait, char **argv) {
    const std::string n = std::to_string(threads);
    const std::pair<const char *, std::string> wanted[] = {
        {"HL_NUM_THREADS", n},          {"OMP_NUM_THREADS", n},      {"TESSERA_NUM_THREADS", n},
        // "default": libgomp's own policy (spin a while, then sleep): the variable unset.
        {"OMP_WAIT_POLICY", std::string(omp_wait) == "default" ? "" : omp_wait}, {"OMP_PROC_BIND", "false"},
    };
    bool right = true;
    for (const auto &[name, value] : wanted) right = right && env_is(name, value);
    if (right) return;
    // A second pass through here would mean the environment did not stick: stop.
    if (env_is("TESSERA_BENCH_REEXEC", "1")) throw std::runtime_error("thread environment not applied after re-exec");
    for (const auto &[name, value] : wanted) {
        if (value.empty()) unsetenv(name);
        else setenv(name, value.c_str(), 1);
    }
    setenv("TESSERA_BENCH_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);
    throw std::runtime_error(std::string("re-exec of /proc/self/exe failed: ") + std::strerror(errno));
}

}  // namespace tessera::bench
