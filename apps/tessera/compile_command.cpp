// tessera compile MODEL.onnx -o DIR: the model ahead of time, one library per model
// (graph/emit/emit_model.h), with the fusion plan and progress per partition.
#include "commands.h"

#include "child_process.h"
#include "emit_model.h"
#include "opened_model.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace tessera::cli {

namespace {

// The library's name: the model file's stem as a C identifier.
std::string default_name(const std::string &model) {
    std::string stem = std::filesystem::path(model).stem().string(), name;
    for (char c : stem) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "model_" + name;
    return name;
}

}  // namespace

int compile_command(const std::vector<std::string> &args) {
    ModelOptions o;
    std::string out, name;
    bool explain = false, embed = false;
    int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            return args[++i];
        };
        if (a == "-o" || a == "--out") out = value();
        else if (a == "--name") name = value();
        else if (a == "--target") o.target = value();
        else if (a == "--scheduler") o.scheduler = value();
        else if (a == "--input-shape") add_input_shape(o, value());
        else if (a == "--no-fusion") o.fuse = false;
        else if (a == "--explain") explain = true;
        else if (a == "--embed-weights") embed = true;
        else if (a == "-j" || a == "--jobs") {
            jobs = std::atoi(value().c_str());
            if (jobs < 1) throw UsageError(a + " needs a positive count");
        }
        else if (!a.empty() && a[0] == '-') throw UsageError("compile: unknown option '" + a + "'");
        else if (o.model.empty()) o.model = a;
        else throw UsageError("compile: one model at a time ('" + a + "' is a second)");
    }
    if (o.model.empty()) throw UsageError("compile: which model? (tessera compile MODEL.onnx -o DIR)");
    if (out.empty()) throw UsageError("compile: -o DIR is required");
    if (name.empty()) name = default_name(o.model);
    if (explain) setenv("TESSERA_EXPLAIN", "1", 1);  // the plugin's rProgram summary per stage

    OpenedModel s = open_model(o);
    std::printf("tessera compile: %s (opset %d, %zu nodes after the passes), target %s, scheduler %s\n",
                o.model.c_str(), s.graph.opset, s.graph.nodes.size(), s.target.to_string().c_str(),
                o.scheduler.c_str());
    std::printf("passes: %s\n", s.prepared.summary().c_str());
    if (explain) std::printf("%s", graph::describe_plan(s.graph, s.plan).c_str());
    std::fflush(stdout);

    graph::EmitOptions e;
    e.name = name;
    e.out_dir = out;
    e.target = s.target;
    e.model_path = o.model;
    e.scheduler = o.scheduler;
    e.embed_weights = embed;
    // Partitions compile in parallel, a forked process each, one per core (-j N).
    e.run_tasks = [jobs](const std::vector<std::function<std::string()>> &tasks,
                         const std::function<void(size_t, const std::string &)> &done) {
        run_in_children(tasks, jobs, 0, false, [&](size_t k, const ChildOutcome &c) {
            if (!c.ok) throw std::runtime_error("compiling partition " + std::to_string(k + 1) + ": " +
                                                (c.threw ? c.text : c.failure()));
            done(k, c.text);
        });
    };
    e.halide_include_dir = TESSERA_HALIDE_INCLUDE_DIR;
    if (const char *cxx = std::getenv("CXX")) e.cxx = cxx;
    const graph::EmitReport r = graph::emit_model(s.graph, s.plan, s.schedule, e, [](const std::string &line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    });
    std::printf("%s", graph::fusion_summary(s.plan).c_str());
    std::printf("compiled %zu partitions: schedule %.1f ms, codegen %.1f ms, wrapper %.1f ms; %.2f MB of weights\n",
                s.plan.partitions.size(), r.schedule_ms, r.codegen_ms, r.wrapper_ms, 4.0 * double(r.weight_floats) / 1e6);
    for (const std::string &f : r.files) std::printf("wrote %s\n", f.c_str());
    return 0;
}

}  // namespace tessera::cli
