// tessera compile MODEL.onnx -o DIR: the model ahead of time, one library per model
// (graph/emit/emit_model.h), with the fusion plan and progress per partition; with
// --tune, the layout and fusion alternatives timed whole (apps/model/tune_graph.h), each
// fused partition against its pieces (apps/model/tune_fusion.h), then each
// compute-intensive partition's top candidates measured (apps/model/tune_partitions.h).
#include "commands.h"

#include "compile_model.h"
#include "opened_model.h"
#include "tune_graph.h"

#include <cstdio>

namespace tessera::cli {

int compile_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler, const std::string &cxx) {
    ModelOptions o;
    o.scheduler_options = scheduler;
    o.ahead_of_time = true;
    CompileSettings c;
    c.cxx = cxx;
    bool explain = false;
    bool tune_graph_alternatives = true;  // --tune times the layout and fusion alternatives too
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            return args[++i];
        };
        if (a == "-o" || a == "--out") c.out_dir = value();
        else if (a == "--name") c.name = value();
        else if (a == "--target") o.target = value();
        else if (a == "--scheduler") o.scheduler = value();
        else if (a == "--input-shape") add_input_shape(o, value());
        else if (a == "--no-fusion") o.fuse = false;
        else if (a == "--no-chains") o.chains = false;
        else if (a == "--layout") set_layout(o, value());
        else if (a == "--channel-block") set_channel_block(o, value());
        else if (a == "--explain") explain = true;
        else if (a == "--embed-weights") c.embed_weights = true;
        else if (a == "--tune") c.tune = true;
        else if (a == "--no-tune-graph") tune_graph_alternatives = false;
        else if (a == "--tune-with") {
            c.tuning.halide_schedulers.clear();
            std::string list = value();
            for (size_t start = 0; start <= list.size();) {
                const size_t comma = std::min(list.find(',', start), list.size());
                const std::string name = list.substr(start, comma - start);
                if (name != "none") c.tuning.halide_schedulers.push_back(name);
                start = comma + 1;
            }
            for (const std::string &name : c.tuning.halide_schedulers) {
                try {
                    candidate_choice(SchedulerChoice{}, name);
                } catch (const std::exception &e) {
                    throw UsageError(std::string("--tune-with: ") + e.what());
                }
            }
            c.tune = true;
        }
        else if (a == "--tune-budget") {
            c.tuning.budget_s = std::atof(value().c_str());
            if (!(c.tuning.budget_s > 0)) throw UsageError(a + " needs a number of seconds > 0");
            c.tune = true;
        }
        else if (a == "--tune-log") {
            c.tuning.log_path = value();
            c.tune = true;
        }
        else if (a == "--tune-candidates") {
            c.tuning.candidates = std::atoi(value().c_str());
            if (c.tuning.candidates < 1) throw UsageError(a + " needs a positive count");
            c.tune = true;
        }
        else if (a == "--threads") {
            c.tuning.threads = std::atoi(value().c_str());
            if (c.tuning.threads < 1) throw UsageError(a + " needs a positive count");
        }
        else if (a == "-j" || a == "--jobs") {
            c.jobs = std::atoi(value().c_str());
            if (c.jobs < 1) throw UsageError(a + " needs a positive count");
        }
        else if (!a.empty() && a[0] == '-') throw UsageError("compile: unknown option '" + a + "'");
        else if (o.model.empty()) o.model = a;
        else throw UsageError("compile: one model at a time ('" + a + "' is a second)");
    }
    if (o.model.empty()) throw UsageError("compile: which model? (tessera compile MODEL.onnx -o DIR)");
    if (c.out_dir.empty()) throw UsageError("compile: -o DIR is required");
    if (explain) o.scheduler_options.explain = true;  // the scheduler's rProgram summary per stage
    if (c.tune && o.scheduler != "Tessera") throw UsageError("compile: --tune measures Tessera's candidates (--scheduler Tessera)");
    if (c.tuning.threads && !c.tune && o.layout != "measured") {
        throw UsageError("compile: --threads is the thread count --tune (or --layout measured) measures with");
    }
    if (c.tune && c.tuning.log_path.empty()) {
        c.tuning.log_path = c.out_dir + "/" + (c.name.empty() ? default_library_name(o.model) : c.name) + ".tune.jsonl";
    }

    if (o.layout == "measured") {  // each convolution's forms timed as --tune times, logged where it logs
        o.layout_timing.threads = c.tuning.threads;
        o.layout_timing.log_path = c.tuning.log_path;
        o.layout_timing.progress = [](const std::string &line) {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
        };
    }
    c.tuning.jobs = c.jobs;  // -j: the candidates compiled at once too
    c.tuning.fusion = tune_graph_alternatives;
    if (!tune_graph_alternatives && !c.tune) throw UsageError("compile: --no-tune-graph goes with --tune");
    std::shared_ptr<OpenedModel> tuned;  // the graph alternative tune_graph chose, opened
    if (c.tune && tune_graph_alternatives) {
        GraphTuning g = tune_graph(o, c.tuning, [](const std::string &line) {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
        });
        o = g.chosen;
        if (!explain) tuned = g.opened;  // opened quietly: with --explain, opened again to explain
    }
    OpenedModel s = tuned ? std::move(*tuned) : open_model(o);
    const std::string opset = s.graph.model_opset && s.graph.model_opset != s.graph.opset
                                  ? std::to_string(s.graph.model_opset) + ", read as opset " + std::to_string(s.graph.opset)
                                  : std::to_string(s.graph.opset);
    std::printf("tessera compile: %s (opset %s, %zu nodes after the passes), target %s, scheduler %s\n",
                o.model.c_str(), opset.c_str(), s.graph.nodes.size(), s.target.to_string().c_str(),
                o.scheduler.c_str());
    std::printf("passes: %s\n", s.prepared.summary().c_str());
    std::printf("%s\n", describe_layouts(o, s).c_str());
    if (explain) std::printf("%s%s", s.layouts.describe().c_str(), graph::describe_plan(s.graph, s.plan).c_str());
    std::fflush(stdout);

    const graph::EmitReport r = compile_model(s, o, c, [](const std::string &line) {
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
