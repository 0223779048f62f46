#include "reexec.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

extern char **environ;

namespace tessera {

namespace {

bool env_is(const std::string &name, const std::string &value) {
    const char *v = std::getenv(name.c_str());
    return value.empty() ? v == nullptr : v && value == v;
}

}  // namespace

void reexec_with_environment(char **argv, const std::vector<std::pair<std::string, std::string>> &settings,
                             const std::string &marker) {
    bool right = true;
    for (const auto &[name, value] : settings) right = right && env_is(name, value);
    if (right) return;
    // A second pass through here would mean the environment did not stick: stop.
    if (env_is(marker, "1")) throw std::runtime_error("environment not applied after re-exec");
    std::vector<std::pair<std::string, std::string>> wanted = settings;
    wanted.push_back({marker, "1"});
    // The new process's environment: this one's without the variables above, then
    // those that have a value.
    std::vector<std::string> entries;
    for (char **e = environ; *e; e++) {
        bool replaced = false;
        for (const auto &[name, value] : wanted) {
            replaced = replaced || (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=');
        }
        if (!replaced) entries.push_back(*e);
    }
    for (const auto &[name, value] : wanted) {
        if (!value.empty()) entries.push_back(name + "=" + value);
    }
    std::vector<char *> envp;
    for (std::string &entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    execve("/proc/self/exe", argv, envp.data());
    throw std::runtime_error(std::string("re-exec of /proc/self/exe failed: ") + std::strerror(errno));
}

}  // namespace tessera
