#include "tune_graph.h"

#include "compiled_library.h"
#include "device_profile.h"
#include "graph_error.h"
#include "jit_model.h"
#include "stopwatch.h"
#include "tuning_log.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>

namespace tessera::cli {

namespace {

std::string name_of(const ModelOptions &o) {
    return "layout=" + o.layout + (o.channel_block > 0 ? ",block=" + std::to_string(o.channel_block) : "") +
           (o.fuse ? "" : ",no-fusion");
}

// The target's channel block (8 or 16) for the options' target string.
int64_t target_block(const ModelOptions &o) {
    try {
        return channel_block_for(target_of(o));
    } catch (const UsageError &) {
        return 0;  // open_model says what is wrong with the target
    }
}

// Whether an alternative would compile to the same partitions as the model asked for.
bool same_graph(const OpenedModel &asked, const OpenedModel &other) {
    if (asked.plan.partitions.size() != other.plan.partitions.size()) return false;
    if (asked.layouts.blocked_nodes != other.layouts.blocked_nodes) return false;
    if (asked.layouts.nhwc_nodes != other.layouts.nhwc_nodes) return false;
    for (size_t k = 0; k < asked.plan.partitions.size(); k++) {
        if (asked.plan.partitions[k].nodes != other.plan.partitions[k].nodes) return false;
    }
    return asked.graph.nodes.size() == other.graph.nodes.size();
}

// An alternative's options, with --layout measured timing its nodes as the tuning
// measures (its threads, rounds and log: a later compile reads the times back).
ModelOptions alternative_options(const ModelOptions &asked, const std::string &name, const TuneSettings &settings,
                                 const std::function<void(const std::string &)> &progress) {
    ModelOptions o = graph_alternative(asked, name);
    if (o.layout == "measured") {
        o.layout_timing.threads = settings.threads;
        o.layout_timing.rounds = settings.rounds;
        o.layout_timing.log_path = settings.log_path;
        if (settings.timer_override) {
            o.layout_timing.timer_override = [override = settings.timer_override](const std::string &node,
                                                                                   const std::string &form) {
                return override("node " + node, form);
            };
        }
        // A copy: the options outlive this call (a compile may open them again).
        o.layout_timing.progress = [progress](const std::string &line) {
            if (progress) progress("tune graph: " + line);
        };
    }
    return o;
}

}  // namespace

std::string graph_signature(const OpenedModel &m) {
    graph::Partition all;
    for (size_t n = 0; n < m.graph.nodes.size(); n++) all.nodes.push_back(int(n));
    return "graph-" + partition_signature(m.graph, all);
}

std::vector<std::string> graph_alternative_names(const ModelOptions &asked) {
    std::vector<std::string> names = {name_of(asked)};
    // Each convolution's predicted layout, every one channel-blocked, and each one's
    // measured: the model kept MobileNetV2's blocks NCHW where blocked they ran
    // 1.2-1.4x faster, and ResNet-18 ran 1.2-1.8x slower all blocked.
    for (const char *layout : {"chosen", "nchwc", "measured"}) {
        if (asked.layout == layout) continue;
        ModelOptions alternative = asked;
        alternative.layout = layout;
        alternative.channel_block = 0;
        names.push_back(name_of(alternative));
    }
    // Where a vector holds 8 floats (AVX2), every convolution blocked by 16 too: the
    // blocked 3x3 convolutions then take register tiles two vectors wide, 1.1-1.3x
    // faster on ResNet-18, while ResNet-50's 1x1 convolutions and conversions lost as
    // much (docs/experiments.md, "Blocks of 16 channels on AVX2").
    if (target_block(asked) == 8 && !(asked.layout == "nchwc" && asked.channel_block == 16)) {
        ModelOptions wide = asked;
        wide.layout = "nchwc";
        wide.channel_block = 16;
        names.push_back(name_of(wide));
    }
    if (asked.fuse) {
        ModelOptions unfused = asked;
        unfused.fuse = false;
        names.push_back(name_of(unfused));
    }
    return names;
}

ModelOptions graph_alternative(const ModelOptions &asked, const std::string &name) {
    ModelOptions o = asked;
    o.fuse = true;
    o.channel_block = 0;
    size_t start = 0;
    bool layout = false;
    while (start <= name.size()) {
        const size_t comma = std::min(name.find(',', start), name.size());
        const std::string part = name.substr(start, comma - start);
        if (part.rfind("layout=", 0) == 0) {
            try {
                set_layout(o, part.substr(7));
            } catch (const UsageError &e) {
                throw graph::GraphError("'" + name + "' is not a graph alternative (" + e.what() + ")");
            }
            layout = true;
        } else if (part.rfind("block=", 0) == 0) {
            try {
                set_channel_block(o, part.substr(6));
            } catch (const UsageError &e) {
                throw graph::GraphError("'" + name + "' is not a graph alternative (" + e.what() + ")");
            }
        } else if (part == "no-fusion") {
            o.fuse = false;
        } else {
            throw graph::GraphError("'" + name + "' is not a graph alternative (layout=L[,block=B][,no-fusion])");
        }
        start = comma + 1;
    }
    if (!layout) throw graph::GraphError("'" + name + "' is not a graph alternative (layout=L[,block=B][,no-fusion])");
    return o;
}

ModelOptions logged_alternative(const ModelOptions &asked, const std::string &name, const std::string &log_path) {
    try {
        ModelOptions o = graph_alternative(asked, name);
        o.layout_timing.log_path = log_path;
        o.layout_timing.append_to_log = false;
        return o;
    } catch (const graph::GraphError &e) {
        throw graph::GraphError(log_path + ": " + e.what());
    }
}

GraphTuning tune_graph(const ModelOptions &asked, const TuneSettings &settings,
                       const std::function<void(const std::string &)> &progress) {
    auto say = [&](const std::string &line) {
        if (progress) progress(line);
    };
    GraphTuning result;
    result.chosen = asked;
    // Opened quietly: the alternatives' schedules are not the ones to explain.
    ModelOptions quiet = asked;
    quiet.scheduler_options.explain = false;
    auto base = std::make_shared<OpenedModel>(open_model(quiet));
    if (base->target.has_gpu_feature()) {
        say("tune graph: not on a GPU target (its alternatives would be timed in this process)");
        result.opened = base;
        return result;
    }
    const std::string signature = graph_signature(*base);
    const std::string target = base->target.to_string();
    const hal::DeviceProfile profile = profile_or_builtin(asked.scheduler_options);
    TuningLog log;
    if (!settings.log_path.empty()) log = read_tuning_log(settings.log_path, target, hal::profile_fingerprint(profile));
    if (const TuningRecord *r = log.find(signature)) {
        try {
            result.chosen = alternative_options(asked, r->names.at(size_t(r->chosen)), settings, progress);
        } catch (const graph::GraphError &e) {
            throw graph::GraphError(settings.log_path + ": " + e.what());
        }
        result.names = r->names;
        result.measured_ms = r->measured_ms;
        result.choice = r->chosen;
        result.from_log = true;
        if (r->names[size_t(r->chosen)] == name_of(asked)) result.opened = base;
        say("tune graph: from the log: " + r->names[size_t(r->chosen)]);
        return result;
    }

    // The alternatives opened and JIT-compiled, the one asked for first.
    std::vector<std::shared_ptr<OpenedModel>> opened;
    std::vector<std::unique_ptr<graph::JitModel>> jit;
    std::vector<ModelOptions> options;
    std::string skipped;
    for (const std::string &name : graph_alternative_names(asked)) {
        const ModelOptions o = alternative_options(asked, name, settings, progress);
        auto m = opened.empty() ? base
                                : std::make_shared<OpenedModel>(open_model(alternative_options(quiet, name, settings, progress)));
        if (!opened.empty() && same_graph(*opened[0], *m)) {
            skipped += " (" + name + ": the same partitions)";
            continue;
        }
        result.names.push_back(name);
        options.push_back(o);
        opened.push_back(std::move(m));
    }
    if (opened.size() > 1) {
        for (size_t a = 0; a < opened.size(); a++) {
            const OpenedModel &m = *opened[a];
            say("tune graph: compiling " + result.names[a] + " (" + std::to_string(m.plan.partitions.size()) +
                " partitions)");
            jit.push_back(std::make_unique<graph::JitModel>(m.graph, m.plan, m.schedule, m.target,
                                                            std::function<void(const std::string &)>{}, settings.threads,
                                                            settings.jobs));
        }
        std::vector<graph::TensorMap> inputs(opened.size());
        for (size_t a = 0; a < opened.size(); a++) {
            const graph::Graph &g = opened[a]->graph;
            for (size_t k = 0; k < g.inputs.size(); k++) {
                inputs[a][g.inputs[k]] = random_input(graph_tensor_spec(g, g.inputs[k]), unsigned(k + 1));
            }
        }
        if (settings.timer_override) {
            for (const std::string &name : result.names) result.measured_ms.push_back(settings.timer_override("graph", name));
        } else {
            const std::vector<std::vector<double>> times =
                time_interleaved(opened.size(), 1, settings.rounds, settings.rounds,
                                 std::numeric_limits<double>::infinity(), [&](size_t a) {
                                     jit[a]->run(inputs[a]);
                                     return true;
                                 });
            for (const std::vector<double> &ms : times) result.measured_ms.push_back(*std::min_element(ms.begin(), ms.end()));
        }
        result.choice = int(std::min_element(result.measured_ms.begin(), result.measured_ms.end()) -
                            result.measured_ms.begin());
    } else {
        result.measured_ms.push_back(0);
    }
    result.chosen = options[size_t(result.choice)];
    result.opened = opened[size_t(result.choice)];
    std::string line = "tune graph: ";
    char buf[96];
    for (size_t a = 0; a < result.names.size() && opened.size() > 1; a++) {
        std::snprintf(buf, sizeof buf, "%s%s %.3f ms", a ? ", " : "", result.names[a].c_str(), result.measured_ms[a]);
        line += buf;
    }
    say(line + (opened.size() > 1 ? " -> " : "no alternative: ") + result.names[size_t(result.choice)] + skipped);

    if (!settings.log_path.empty()) {
        TuningRecord r;
        r.signature = signature;
        r.ops = "graph";
        r.partition = "(the graph: layout and fusion)";
        r.target = target;
        r.profile = hal::profile_fingerprint(profile);
        r.figures = hal::figures_fingerprint(profile);
        r.names = result.names;
        r.predicted_ms.assign(result.names.size(), 0.0);
        r.measured_ms = result.measured_ms;
        r.chosen = result.choice;
        append_tuning_log(settings.log_path, {r});
    }
    return result;
}

}  // namespace tessera::cli
