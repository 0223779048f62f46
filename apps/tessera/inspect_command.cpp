// tessera inspect MODEL.onnx: the graph after the passes, its fusion plan and the
// compiled library's memory plan; with --tune-log F, the partitions the log tunes.
#include "commands.h"

#include "memory_plan.h"
#include "opened_model.h"
#include "split_partitions.h"
#include "tune_fusion.h"
#include "tune_graph.h"
#include "tuning_log.h"

#include "device_profile.h"
#include "graph_error.h"

#include <cstdio>
#include <optional>
#include <iostream>

namespace tessera::cli {

int inspect_command(const std::vector<std::string> &args, const SchedulerOptions &scheduler) {
    ModelOptions o;
    std::string tune_log;
    o.scheduler_options = scheduler;
    o.ahead_of_time = true;  // inspects what compile would do, runs nothing
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a == "--input-shape") {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            add_input_shape(o, args[++i]);
        } else if (a == "--no-fusion") {
            o.fuse = false;
        } else if (a == "--no-chains") {
            o.chains = false;
        } else if (a == "--tune-log") {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            tune_log = args[++i];
        } else if (!a.empty() && a[0] == '-') {
            throw UsageError("inspect: unknown option '" + a + "'");
        } else if (o.model.empty()) {
            o.model = a;
        } else {
            throw UsageError("inspect: one model at a time");
        }
    }
    if (o.model.empty()) throw UsageError("inspect: which model?");
    OpenedModel s = open_model(o);
    std::printf("passes: %s\n", s.prepared.summary().c_str());
    s.graph.print(std::cout);
    std::cout << graph::describe_plan(s.graph, s.plan);
    // The compiled library's arena for the intermediate values (memory_plan.h).
    std::vector<std::vector<std::string>> step_inputs;
    std::vector<std::string> step_outputs;
    for (const graph::Partition &p : s.plan.partitions) {
        step_inputs.push_back(p.inputs);
        step_outputs.push_back(p.output);
    }
    const std::vector<graph::BufferLifetime> values = graph::intermediate_lifetimes(s.graph, step_inputs, step_outputs);
    const graph::MemoryPlan memory = graph::plan_memory(values);
    std::printf("memory: %zu intermediate values in an arena of %.3f MB (peak live %.3f MB; one buffer each: %.3f MB)\n",
                values.size(), memory.arena_bytes / 1e6, memory.peak_live_bytes / 1e6, memory.separate_bytes / 1e6);
    // What `tessera compile --tune-log F` would take from the log, unmeasured.
    if (!tune_log.empty()) {
        const TuningLog log = read_tuning_log(tune_log, s.target.to_string(),
                                              hal::profile_fingerprint(profile_or_builtin(s.choice.options)));
        std::printf("tune log %s: %zu record(s) for this target and profile, %d for others\n", tune_log.c_str(),
                    log.records.size(), log.elsewhere);
        // A compile takes the graph's alternative from the log first, then its partitions'.
        std::optional<OpenedModel> alternative;
        if (const TuningRecord *r = log.find(graph_signature(s))) {
            std::printf("  the graph: %s from the log (as asked, %s)\n", r->names[size_t(r->chosen)].c_str(),
                        r->names[0].c_str());
            if (r->chosen != 0) {
                alternative = open_model(logged_alternative(o, r->names[size_t(r->chosen)], tune_log));
                std::printf("  its %zu partitions:\n", alternative->plan.partitions.size());
            }
        }
        const OpenedModel &compiled = alternative ? *alternative : s;
        // Then each fusion decision: a partition the log says ran faster as its pieces is split.
        const std::vector<std::vector<graph::Partition>> pieces = graph::fusion_pieces(compiled.graph, compiled.plan);
        std::vector<bool> split(pieces.size(), false);
        for (size_t k = 0; k < pieces.size(); k++) {
            if (pieces[k].empty()) continue;
            const graph::Partition &p = compiled.plan.partitions[k];
            if (const TuningRecord *r = log.find(fusion_signature(compiled.graph, p))) {
                split[k] = splits(*r, tune_log);
                std::printf("  %s: %s from the log (fused %.3f ms, its %zu pieces %.3f ms)\n", p.name.c_str(),
                            split[k] ? "split" : "fused", r->measured_ms[0], pieces[k].size(), r->measured_ms[1]);
            }
        }
        const graph::FusionPlan plan = graph::split_partitions(compiled.plan, pieces, split);
        for (const graph::Partition &p : plan.partitions) {
            if (const TuningRecord *r = log.find(partition_signature(compiled.graph, p))) {
                std::printf("  %s: %s from the log (measured %.3f ms; the untuned %.3f ms)\n", p.name.c_str(),
                            r->names[size_t(r->chosen)].c_str(), r->measured_ms[size_t(r->chosen)], r->measured_ms[0]);
            }
        }
    }
    return 0;
}

}  // namespace tessera::cli
