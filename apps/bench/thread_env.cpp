#include "thread_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

extern char **environ;

namespace tessera::bench {

namespace {

// An empty `value` means: unset.
bool env_is(const char *name, const std::string &value) {
    const char *v = std::getenv(name);
    return value.empty() ? v == nullptr : v && value == v;
}

}  // namespace

void ensure_thread_environment(int threads, const char *omp_wait, char **argv) {
    const std::string n = std::to_string(threads);
    const std::pair<const char *, std::string> wanted[] = {
        {"HL_NUM_THREADS", n},          {"OMP_NUM_THREADS", n},      {"TESSERA_NUM_THREADS", n},
        // "default": libgomp's own policy (spin a while, then sleep): the variable unset.
        {"OMP_WAIT_POLICY", std::string(omp_wait) == "default" ? "" : omp_wait}, {"OMP_PROC_BIND", "false"},
        {"TESSERA_BENCH_REEXEC", "1"},
    };
    bool right = true;
    for (const auto &[name, value] : wanted) {
        if (std::string(name) != "TESSERA_BENCH_REEXEC") right = right && env_is(name, value);
    }
    if (right) return;
    // A second pass through here would mean the environment did not stick: stop.
    if (env_is("TESSERA_BENCH_REEXEC", "1")) throw std::runtime_error("thread environment not applied after re-exec");
    // The new process's environment: this one's without the variables above, then
    // those that have a value.
    std::vector<std::string> entries;
    for (char **e = environ; *e; e++) {
        bool replaced = false;
        for (const auto &[name, value] : wanted) {
            const size_t length = std::strlen(name);
            replaced = replaced || (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=');
        }
        if (!replaced) entries.push_back(*e);
    }
    for (const auto &[name, value] : wanted) {
        if (!value.empty()) entries.push_back(std::string(name) + "=" + value);
    }
    std::vector<char *> envp;
    for (std::string &entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    execve("/proc/self/exe", argv, envp.data());
    throw std::runtime_error(std::string("re-exec of /proc/self/exe failed: ") + std::strerror(errno));
}

}  // namespace tessera::bench
