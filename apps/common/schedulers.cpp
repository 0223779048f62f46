#include "schedulers.h"

#include "options_from_environment.h"
#include "tessera_scheduler.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tessera {

namespace {

// Plugin paths come from CMake (the imported Halide::<name> targets).
const std::map<std::string, std::string> &plugin_paths() {
    static const std::map<std::string, std::string> paths = {
        {"Mullapudi2016", TESSERA_PLUGIN_MULLAPUDI2016},
        {"Adams2019", TESSERA_PLUGIN_ADAMS2019},
        {"Li2018", TESSERA_PLUGIN_LI2018},
    };
    return paths;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

}  // namespace

const std::vector<std::string> &scheduler_names() {
    static const std::vector<std::string> names = {"none", "Tessera", "Mullapudi2016", "Adams2019", "Li2018"};
    return names;
}

std::string default_scheduler() {
    return "Tessera";
}

std::string canonical_scheduler(const std::string &name) {
    for (const std::string &known : scheduler_names()) {
        if (lower(known) == lower(name)) return known;
    }
    std::string list;
    for (const std::string &known : scheduler_names()) list += " " + known;
    throw std::invalid_argument("unknown scheduler '" + name + "' (known:" + list + ")");
}

Halide::MachineParams machine_params(const SchedulerOptions &options) {
    const int threads =
        options.parallelism > 0 ? options.parallelism : int(std::max(1u, std::thread::hardware_concurrency()));
    // The LLC size the HAL finds (sysfs, or the measured profile).
    const hal::DeviceProfile profile = profile_or_builtin(options);
    const hal::MemoryLayerProfile *llc = profile.layer("LLC");
    return Halide::MachineParams(threads, llc ? llc->capacity_bytes : (16ull << 20), 40);
}

void load_scheduler(const std::string &scheduler) {
    const std::string name = canonical_scheduler(scheduler);
    if (name == "none" || name == "Tessera") return;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    static std::map<std::string, bool> loaded;
    if (!loaded[name]) {
        Halide::load_plugin(plugin_paths().at(name));
        loaded[name] = true;
    }
}

void apply_scheduler(Halide::Pipeline &pipeline, const SchedulerChoice &choice) {
    const std::string name = canonical_scheduler(choice.name);
    if (name == "none") return;
    if (name == "Tessera") {
        const ScheduleOutcome outcome = schedule_pipeline(pipeline, choice.target, choice.options);
        if (choice.options.explain) std::fprintf(stderr, "%s", outcome.explanation.c_str());
        return;
    }
    load_scheduler(name);
    pipeline.auto_schedule(name, choice.target, machine_params(choice.options));
}

}  // namespace tessera
