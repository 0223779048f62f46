// tessera run MODEL.onnx|DIR: runs a model (JIT in process for .onnx, the compiled
// library for a folder tessera compile wrote, or the reference evaluator with
// --reference), times it, and compares its outputs with --expect files.
#include "commands.h"

#include "compare.h"
#include "compiled_library.h"
#include "evaluate.h"
#include "graph_error.h"
#include "jit_model.h"
#include "opened_model.h"
#include "npy.h"
#include "stopwatch.h"
#include "tensor_files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>

namespace tessera::cli {

namespace {

// Each partition's median wall time over `reps` runs, slowest first, with its ops.
void print_partition_profile(const OpenedModel &s, const graph::JitModel &jit, const graph::TensorMap &inputs,
                             int reps) {
    std::vector<std::vector<double>> ms(s.plan.partitions.size());
    std::vector<double> one;
    for (int r = 0; r < reps; r++) {
        jit.run(inputs, &one);
        for (size_t k = 0; k < one.size(); k++) ms[k].push_back(one[k]);
    }
    std::vector<std::pair<double, size_t>> order;
    double total = 0;
    for (size_t k = 0; k < ms.size(); k++) {
        order.push_back({median(ms[k]), k});
        total += order.back().first;
    }
    std::sort(order.rbegin(), order.rend());
    std::printf("partitions by median time (%d runs; the sum %.3f ms):\n", reps, total);
    for (const auto &[t, k] : order) {
        const graph::Partition &p = s.plan.partitions[k];
        const std::string ops = graph::partition_op_types(s.graph, p);
        std::printf("  %8.3f ms %5.1f%%  %-13s %-30s %s\n", t, 100 * t / total,
                    p.compute_intensive ? "compute-bound" : "memory-bound", p.name.c_str(), ops.c_str());
    }
}

struct Runner {
    std::vector<TensorSpec> inputs, outputs;
    std::function<graph::TensorMap(const graph::TensorMap &)> run;
    std::string mode;
};

}  // namespace

int run_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler) {
    ModelOptions o;
    o.scheduler_options = scheduler;
    std::vector<std::string> input_args, expect_args, output_args;
    int reps = 10, threads = 0;
    double tolerance = 1e-3;
    bool reference = false, profile = false;
    std::string json;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            return args[++i];
        };
        auto number = [&](double lo) {
            const std::string v = value();
            char *end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(d >= lo)) throw UsageError(a + " needs a number >= " + std::to_string(lo));
            return d;
        };
        if (a == "--input") input_args.push_back(value());
        else if (a == "--expect") expect_args.push_back(value());
        else if (a == "--output") output_args.push_back(value());
        else if (a == "--reps") reps = int(number(1));
        else if (a == "--threads") threads = int(number(1));
        else if (a == "--tolerance") tolerance = number(0);
        else if (a == "--json") json = value();
        else if (a == "--reference") reference = true;
        else if (a == "--profile") profile = true;
        else if (a == "--no-fusion") o.fuse = false;
        else if (a == "--no-chains") o.chains = false;
        else if (a == "--layout") set_layout(o, value());
        else if (a == "--channel-block") set_channel_block(o, value());
        else if (a == "--scheduler") o.scheduler = value();
        else if (a == "--input-shape") add_input_shape(o, value());
        else if (!a.empty() && a[0] == '-') throw UsageError("run: unknown option '" + a + "'");
        else if (o.model.empty()) o.model = a;
        else throw UsageError("run: one model at a time ('" + a + "' is a second)");
    }
    if (o.model.empty()) throw UsageError("run: which model? (tessera run MODEL.onnx|DIR --input x.npy)");
    // --threads sizes the model's own thread pool: a compiled library's through its C
    // API, a JIT model's as JitModel's (0: every core this process may use).

    Runner r;
    std::unique_ptr<OpenedModel> opened;
    std::unique_ptr<graph::JitModel> jit;
    std::unique_ptr<CompiledLibrary> library;
    if (std::filesystem::is_directory(o.model)) {
        if (reference) throw UsageError("run: --reference needs the .onnx model, not a compiled folder");
        library = std::make_unique<CompiledLibrary>(o.model, threads > 0 ? threads : 0);
        if (library->on_gpu()) {
            // Its GPU runtime would load the driver (PoCL's LLVM) into a process that
            // links libHalide's.
            throw UsageError("run: " + o.model + " was compiled for " + library->target() +
                             ": run it with tessera-run-library " + o.model);
        }
        r.inputs = library->inputs();
        r.outputs = library->outputs();
        r.mode = "compiled library lib" + library->name() + ".so, " + std::to_string(library->threads()) + " thread" +
                 (library->threads() == 1 ? "" : "s");
        r.run = [&](const graph::TensorMap &in) {
            std::vector<const graph::TensorData *> ins;
            for (const TensorSpec &t : r.inputs) ins.push_back(&in.at(t.name));
            std::vector<graph::TensorData> outs;
            for (const TensorSpec &t : r.outputs) outs.emplace_back(t.dtype, t.shape);
            library->run(ins, outs);
            graph::TensorMap m;
            for (size_t k = 0; k < outs.size(); k++) m[r.outputs[k].name] = std::move(outs[k]);
            return m;
        };
    } else {
        // The reference evaluator runs the model as written (pack_weights is for the compiled path).
        if (reference) o.layout = "fixed";
        o.layout_timing.threads = threads;  // --layout measured: with the model's threads
        opened = std::make_unique<OpenedModel>(open_model(o));
        const graph::Graph &g = opened->graph;
        for (const std::string &n : g.inputs) r.inputs.push_back(graph_tensor_spec(g, n));
        for (const std::string &n : g.outputs) r.outputs.push_back(graph_tensor_spec(g, n));
        if (reference) {
            r.mode = "reference evaluator (plain C++, no Halide)";
            r.run = [&g](const graph::TensorMap &in) { return graph::evaluate(g, in); };
        } else {
            std::printf("%s", graph::fusion_summary(opened->plan).c_str());
            jit = std::make_unique<graph::JitModel>(g, opened->plan, opened->schedule, opened->target,
                                                    [](const std::string &line) {
                                                        std::printf("%s\n", line.c_str());
                                                        std::fflush(stdout);
                                                    },
                                                    threads);
            r.mode = "JIT, scheduler " + o.scheduler + (o.fuse ? "" : ", --no-fusion") + ", " +
                     std::to_string(jit->threads()) + " thread" + (jit->threads() == 1 ? "" : "s");
            r.run = [&](const graph::TensorMap &in) { return jit->run(in); };
        }
    }

    // Inputs: the files given, checked against the model; random (seeded) otherwise.
    graph::TensorMap inputs;
    const std::map<std::string, std::string> input_files = bind_files(input_args, r.inputs, "--input");
    for (size_t k = 0; k < r.inputs.size(); k++) {
        const TensorSpec &t = r.inputs[k];
        auto it = input_files.find(t.name);
        if (it == input_files.end()) {
            inputs[t.name] = random_input(t, unsigned(k + 1));
            if (t.is_float()) {
                std::printf("input '%s': no --input given, random normal values (seed %zu)\n", t.name.c_str(), k + 1);
            } else {
                std::printf("input '%s': no --input given, random integers in [%lld, %lld) (seed %zu)\n", t.name.c_str(),
                            (long long)t.range.lo, (long long)t.range.hi, k + 1);
            }
            continue;
        }
        inputs[t.name] = read_tensor_file("--input", it->second, t);
    }
    const std::map<std::string, std::string> expect_files = bind_files(expect_args, r.outputs, "--expect");
    const std::map<std::string, std::string> output_files = bind_files(output_args, r.outputs, "--output");

    graph::TensorMap outputs = r.run(inputs);  // first run: warm-up (and JIT's lazy init)
    std::vector<double> times;
    for (int k = 0; k < (reference ? 1 : reps); k++) {
        Stopwatch watch;
        outputs = r.run(inputs);
        times.push_back(watch.lap_ms());
    }
    const double median_ms = median(times), min_ms = *std::min_element(times.begin(), times.end());
    if (profile) {
        if (!jit) throw UsageError("run: --profile times the partitions of a JIT run (an .onnx, no --reference)");
        print_partition_profile(*opened, *jit, inputs, reps);
    }
    std::printf("%s: %s, median %.3f ms, min %.3f ms over %zu runs\n", o.model.c_str(), r.mode.c_str(), median_ms,
                min_ms, times.size());

    bool ok = true;
    double worst = 0;
    nlohmann::json errors = nlohmann::json::object();
    for (const TensorSpec &t : r.outputs) {
        const graph::TensorData &out = outputs.at(t.name);
        const bool finite = std::all_of(out.f.begin(), out.f.end(), [](float v) { return std::isfinite(v); });
        if (!finite) {
            std::printf("output '%s': NaN or infinity\n", t.name.c_str());
            ok = false;
        }
        auto it = expect_files.find(t.name);
        if (it != expect_files.end()) {
            graph::TensorData want = graph::read_npy(it->second);
            if (want.is_float() != out.is_float() || want.shape != out.shape) {
                throw graph::GraphError("--expect " + it->second + ": '" + t.name + "' is " + t.describe() +
                                        ", the file holds " + graph::dtype_name(want.dtype) + "[" +
                                        graph::shape_string(want.shape) + "]");
            }
            want.dtype = out.dtype;  // integer-like types compare by value
            const double err = graph::relative_error(out, want);
            worst = std::max(worst, err);
            errors[t.name] = std::isfinite(err) ? nlohmann::json(err) : nlohmann::json(nullptr);
            std::printf("output '%s': max relative error %.3g against %s (tolerance %.1g)%s\n", t.name.c_str(), err,
                        it->second.c_str(), tolerance, err <= tolerance ? "" : "  FAILED");
            ok &= err <= tolerance;
        }
        auto of = output_files.find(t.name);
        if (of != output_files.end()) graph::write_npy(of->second, out);
    }
    if (!json.empty()) {
        const nlohmann::json j = {{"model", o.model},       {"mode", r.mode},       {"time_ms_median", median_ms},
                                  {"time_ms_min", min_ms},  {"runs", times.size()}, {"rel_error", errors},
                                  {"max_rel_error", worst}, {"ok", ok},             {"tolerance", tolerance}};
        std::ofstream(json) << j.dump(2) << "\n";
    }
    return ok ? 0 : 1;
}

}  // namespace tessera::cli
