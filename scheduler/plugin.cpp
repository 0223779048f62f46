// The Halide 14 adapter: registers the "Tessera" autoscheduler from a static
// initialiser when the plugin library is loaded (generator -p, load_plugin, or
// add_halide_library(... AUTOSCHEDULER Tessera::Tessera)). Only this file knows
// Halide 14's MachineParams; a move to Halide 16's AutoschedulerParams touches
// nothing else. Halide users steer the plugin through TESSERA_* variables, read
// here (options_from_environment.h); Tessera's own tools call schedule_pipeline
// with their options instead.
#include "diagnostics.h"
#include "options_from_environment.h"
#include "stopwatch_ms.h"
#include "tessera_scheduler.h"

#include <Halide.h>

#include <cstdio>

namespace tessera {
namespace {

void tessera_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                          const Halide::MachineParams &params, Halide::AutoSchedulerResults *results) {
    SchedulerOptions options;
    try {
        options = scheduler_options_from_environment(params.parallelism);
    } catch (const std::exception &e) {
        user_error << "Tessera: " << e.what() << "\n";
    }
    double start = now_ms();
    ScheduleOutcome outcome = schedule_pipeline(pipeline, target, options);
    double elapsed = now_ms() - start;
    if (options.explain) {
        std::fprintf(stderr, "%sTessera: scheduled in %.2f ms\n", outcome.explanation.c_str(), elapsed);
    }
    results->scheduler_name = "Tessera";
    results->target = target;
    results->machine_params_string = params.to_string();
    results->schedule_source = outcome.source;
}

struct RegisterTessera {
    RegisterTessera() { Halide::Pipeline::add_autoscheduler("Tessera", tessera_autoschedule); }
} register_tessera;

}  // namespace
}  // namespace tessera
