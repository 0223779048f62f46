#include "options_from_environment.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace tessera {

std::string default_profile_path() {
    if (const char *env = std::getenv("TESSERA_DEVICE_PROFILE"); env && *env) return env;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
        return std::string(xdg) + "/tessera/device_profile.json";
    }
    const char *home = std::getenv("HOME");
    return std::string(home ? home : "/tmp") + "/.cache/tessera/device_profile.json";
}

std::optional<hal::DeviceProfile> device_profile_from_environment() {
    const char *named = std::getenv("TESSERA_DEVICE_PROFILE");
    const std::string path = default_profile_path();
    const bool explicit_file = named && *named;
    if (!explicit_file && !std::filesystem::exists(path)) return std::nullopt;
    std::string error;
    std::optional<hal::DeviceProfile> profile = hal::load_profile(path, &error);
    if (profile && !explicit_file && hal::peak_measured_by_an_old_loop(*profile)) {
        std::fprintf(stderr,
                     "Tessera: warning: the device profile %s was measured by an older tessera-profile, whose FMA "
                     "peak was 1.5-3x too high; run tessera-profile to measure again\n",
                     path.c_str());
    }
    if (profile) return profile;
    if (explicit_file) throw std::runtime_error("TESSERA_DEVICE_PROFILE: " + error);
    std::fprintf(stderr, "Tessera: warning: the device profile %s does not load; built-in figures are used\n",
                 error.c_str());
    return std::nullopt;
}

SchedulerOptions scheduler_options_from_environment(int parallelism) {
    SchedulerOptions o;
    o.parallelism = parallelism;
    static const std::pair<const char *, const char *> variables[] = {
        {"TESSERA_EXPLAIN", "explain"},         {"TESSERA_TOPK", "top_k"},
        {"TESSERA_CANDIDATE", "candidate"},     {"TESSERA_FUSE_CHAINS", "fuse_chains"},
        {"TESSERA_GPU_PROFILE", "gpu_profile"},
    };
    for (const auto &[variable, option] : variables) {
        const char *value = std::getenv(variable);
        if (!value || !*value) continue;
        try {
            set_scheduler_option(o, option, value);
        } catch (const std::invalid_argument &e) {
            throw std::invalid_argument(std::string(variable) + "=" + value + ": " + e.what());
        }
    }
    o.device_profile = device_profile_from_environment();
    return o;
}

}  // namespace tessera
