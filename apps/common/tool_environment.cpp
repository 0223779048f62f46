#include "tool_environment.h"

#include "host_target.h"
#include "options_from_environment.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

namespace tessera {

int threads_from_environment() {
    if (const char *env = std::getenv("TESSERA_NUM_THREADS"); env && *env) return std::max(1, std::atoi(env));
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

SchedulerChoice scheduler_choice_from_environment(const std::string &name) {
    SchedulerChoice choice;
    choice.name = canonical_scheduler(name);
    const char *jit = std::getenv("HL_JIT_TARGET");  // Halide's own variable, "host" when unset
    choice.target = hal::target_named(jit && *jit ? jit : "host");
    choice.options = scheduler_options_from_environment(threads_from_environment());
    return choice;
}

int measured_candidates_from_environment() {
    const char *measure = std::getenv("TESSERA_MEASURE");
    if (!measure || std::string(measure) == "0" || !*measure) return 0;
    const char *topk = std::getenv("TESSERA_TOPK");
    return std::max(1, topk && *topk ? std::atoi(topk) : 4);
}

std::string cxx_from_environment() {
    const char *cxx = std::getenv("CXX");
    return cxx && *cxx ? cxx : "c++";
}

}  // namespace tessera
