#include "compile_model.h"

#include "child_process.h"
#include "tune_fusion.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace tessera::cli {

std::string default_library_name(const std::string &model) {
    std::string stem = std::filesystem::path(model).stem().string(), name;
    for (char c : stem) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "model_" + name;
    return name;
}

graph::EmitReport compile_model(OpenedModel &model, const ModelOptions &options, const CompileSettings &settings,
                                const std::function<void(const std::string &)> &progress) {
    const int jobs = settings.jobs > 0 ? settings.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
    graph::EmitOptions e;
    e.name = settings.name.empty() ? default_library_name(options.model) : settings.name;
    e.out_dir = settings.out_dir;
    e.target = model.target;
    e.model_path = options.model;
    e.scheduler = options.scheduler;
    e.embed_weights = settings.embed_weights;
    // Partitions compile in parallel, a forked process each, `jobs` at a time.
    e.run_tasks = [jobs](const std::vector<std::function<std::string()>> &tasks,
                         const std::function<void(size_t, const std::string &)> &done) {
        run_in_children(tasks, jobs, 0, false, [&](size_t k, const ChildOutcome &c) {
            if (!c.ok) throw std::runtime_error("compiling partition " + std::to_string(k + 1) + ": " +
                                                (c.threw ? c.text : c.failure()));
            done(k, c.text);
        });
    };
    e.halide_include_dir = TESSERA_HALIDE_INCLUDE_DIR;
    e.cxx = settings.cxx;
    // Tuning JIT-compiles and times here, before any partition compiles in a fork.
    if (settings.tune) {
        TuneSettings partitions = settings.tuning;
        if (settings.tuning.fusion) {
            const FusionTuning fusion = tune_fusion(model, settings.tuning, progress);
            model.plan = fusion.plan;
            // One budget for both: the partitions get what the fusion decisions left.
            if (partitions.budget_s > 0) partitions.budget_s = std::max(1e-3, partitions.budget_s - fusion.measured_s);
        }
        e.measured = tune_partitions(model, partitions, progress);
    }
    return graph::emit_model(model.graph, model.plan, tuned_schedule(model, e.measured), e, progress);
}

}  // namespace tessera::cli
