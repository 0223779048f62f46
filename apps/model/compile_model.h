// `tessera compile`'s work without its command line: an opened model emitted ahead of
// time into one library (graph/emit/emit_model.h), its partitions compiled in
// parallel forked processes. Shared by the tessera command and tessera-bench --model.
#pragma once

#include "emit_model.h"
#include "opened_model.h"
#include "tune_partitions.h"

#include <functional>
#include <string>

namespace tessera::cli {

struct CompileSettings {
    std::string out_dir;
    std::string name;          // the library's name; empty: default_library_name(model)
    bool embed_weights = false;
    int jobs = 0;              // partitions compiled at once; 0: one per core
    bool tune = false;         // measure fusion decisions and Tessera's top candidates per partition first
    TuneSettings tuning;
    std::string cxx = "c++";   // compiles the generated wrapper
};

// The library's name for a model file: its stem as a C identifier.
std::string default_library_name(const std::string &model);

// Compiles `model` (opened from options.model) into settings.out_dir; `progress` gets a
// line per partition. With settings.tune (and tuning.fusion), model.plan becomes the
// plan compiled: the fused partitions whose pieces ran faster split (tune_fusion.h). The calling process must not have started Halide's thread pool
// (each partition compiles in a forked child). Throws GraphError (the model) or
// std::runtime_error (a partition that failed or crashed, files, the C++ compiler).
graph::EmitReport compile_model(OpenedModel &model, const ModelOptions &options, const CompileSettings &settings,
                                const std::function<void(const std::string &)> &progress = {});

}  // namespace tessera::cli
