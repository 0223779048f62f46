#include "emit_model.h"

#include "embedded_runtime.h"
#include "graph_error.h"
#include "halide_name.h"
#include "lower_partition.h"
#include "plan_fusion.h"
#include "plan_json.h"
#include "wrapper_source.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tessera::graph {

namespace fs = std::filesystem;

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void write_text(const fs::path &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
    if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

// Runs a shell command; on failure throws with its output.
void run_command(const std::string &command, const fs::path &log) {
    const std::string full = command + " > '" + log.string() + "' 2>&1";
    if (std::system(full.c_str()) != 0) {
        std::ifstream in(log);
        const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        throw std::runtime_error("command failed: " + command + "\n" + output);
    }
}

// A scratch folder beside the output, removed on every exit path.
struct ScratchDir {
    fs::path path;
    explicit ScratchDir(const fs::path &parent) {
        fs::create_directories(parent);
        std::string pattern = (parent / ".tessera-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error(parent.string() + ": cannot create a scratch folder");
        path = pattern;
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

EmitReport emit_model(const Graph &g, const FusionPlan &plan, const PartitionScheduler &schedule,
                      const EmitOptions &o, const std::function<void(const std::string &)> &progress) {
    if (o.name.empty() || halide_name(o.name) != o.name) {
        throw GraphError("'" + o.name + "' is not a valid library name (letters, digits and '_', not first a digit)");
    }
    EmitReport report;
    const ScratchDir scratch(o.out_dir);
    std::vector<LoweredPartition> parts;
    std::vector<std::string> functions, headers, objects;
    std::vector<PartitionTimes> times;
    // UserContext: every kernel takes the model's thread pool as its first argument.
    const Halide::Target target = o.target.with_feature(Halide::Target::NoRuntime).with_feature(Halide::Target::UserContext);
    // Lowering is cheap and done here (the wrapper needs every partition's inputs);
    // scheduling and code generation are the tasks, run by o.run_tasks (in parallel
    // processes from the CLI), each writing its object and header.
    std::vector<std::function<std::string()>> tasks;
    LowerOptions lower_options;
    // A GPU library keeps values on the device in their own shapes, shared by kernels.
    lower_options.planes_as_rows = !o.target.has_gpu_feature();
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        parts.push_back(lower_partition(g, plan.partitions[k], lower_options));
        const std::string fn = o.name + "_" + parts.back().name;
        functions.push_back(fn);
        headers.push_back(fn + ".h");
        objects.push_back((scratch.path / (fn + ".o")).string());
        tasks.push_back([&, k, fn]() {
            LoweredPartition &lp = parts[k];
            auto start = std::chrono::steady_clock::now();
            schedule(lp.pipeline, k);
            const double schedule_ms = ms_since(start);
            start = std::chrono::steady_clock::now();
            std::vector<Halide::Argument> args(lp.params.begin(), lp.params.end());
            lp.pipeline.compile_to({{Halide::OutputFileType::object, objects[k]},
                                    {Halide::OutputFileType::c_header, (scratch.path / headers[k]).string()}},
                                   args, fn, target);
            return std::to_string(schedule_ms) + " " + std::to_string(ms_since(start));
        });
    }
    times.resize(tasks.size());
    auto finished = [&](size_t k, const std::string &text) {
        PartitionTimes &t = times[k];
        std::sscanf(text.c_str(), "%lf %lf", &t.schedule_ms, &t.codegen_ms);
        report.schedule_ms += t.schedule_ms;
        report.codegen_ms += t.codegen_ms;
        if (!progress) return;
        const std::string ops = partition_op_types(g, plan.partitions[k]);
        char line[512];
        std::snprintf(line, sizeof line, "[%zu/%zu] %-28s %-40s schedule %7.1f ms, codegen %7.1f ms", k + 1,
                      plan.partitions.size(), parts[k].name.c_str(), ops.substr(0, 40).c_str(), t.schedule_ms,
                      t.codegen_ms);
        progress(line);
    };
    if (o.run_tasks) {
        o.run_tasks(tasks, finished);
    } else {
        for (size_t k = 0; k < tasks.size(); k++) finished(k, tasks[k]());
    }
    // Halide's runtime, once for every partition.
    const fs::path runtime = scratch.path / (o.name + "_runtime.o");
    Halide::compile_standalone_runtime(runtime.string(), o.target);
    objects.push_back(runtime.string());

    // The C API wrapper, compiled with the system's C++ compiler.
    const auto start = std::chrono::steady_clock::now();
    const WrapperSource w = generate_wrapper(g, parts, functions, headers, o.name, o.model_path, o.embed_weights,
                                             o.target.has_gpu_feature());
    write_text(scratch.path / (o.name + ".h"), w.header);
    const fs::path wrapper = scratch.path / (o.name + "_wrapper.cpp"), wrapper_o = scratch.path / (o.name + "_wrapper.o");
    write_text(wrapper, w.source);
    write_text(scratch.path / "model_thread_pool.h", kModelThreadPoolHeader);
    write_text(scratch.path / "model_block_cache.h", kModelBlockCacheHeader);
    run_command(o.cxx + " -std=c++17 -O2 -fPIC -pthread -c '" + wrapper.string() + "' -o '" + wrapper_o.string() + "' -I '" +
                    scratch.path.string() + "' -I '" + o.halide_include_dir + "'",
                scratch.path / "cxx.log");
    objects.push_back(wrapper_o.string());
    report.wrapper_ms = ms_since(start);
    const fs::path weights = scratch.path / (o.name + ".weights");
    write_weights_file(g, w.weights, weights.string());
    report.weight_floats = w.weight_floats;
    if (o.embed_weights) {
        // The weights file's bytes as an object: ld names its symbols after the file.
        const std::string bin = o.name + "_weights.bin";
        fs::copy_file(weights, scratch.path / bin);
        run_command("cd '" + scratch.path.string() + "' && ld -r -z noexecstack -b binary -o " + o.name + "_weights.o " + bin,
                    scratch.path / "ld.log");
        objects.push_back((scratch.path / (o.name + "_weights.o")).string());
    }

    const std::string lib = "lib" + o.name;
    Halide::create_static_library(objects, o.target, (scratch.path / (lib + ".a")).string());
    std::string object_list;
    for (const std::string &obj : objects) object_list += " '" + obj + "'";
    run_command(o.cxx + " -shared -o '" + (scratch.path / (lib + ".so")).string() + "'" + object_list +
                    " -lpthread -ldl",
                scratch.path / "link.log");
    report.memory = w.memory;
    write_plan_json(g, plan, times, w.lifetimes, w.memory, o, (scratch.path / (o.name + ".plan.json")).string());

    // Into place: the product files only (the partition objects live in the archive).
    for (const std::string &file : {lib + ".a", lib + ".so", o.name + ".h", o.name + ".weights", o.name + ".plan.json"}) {
        const fs::path to = fs::path(o.out_dir) / file;
        fs::rename(scratch.path / file, to);
        report.files.push_back(to.string());
    }
    return report;
}

}  // namespace tessera::graph
