#include "measured_layouts.h"

#include "assign_layouts.h"
#include "device_profile.h"
#include "graph_error.h"
#include "partition_timing.h"
#include "shape.h"
#include "tuning_log.h"

#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace tessera::cli {

std::string node_form(const graph::Graph &g, int node) {
    const graph::Node &n = g.nodes[size_t(node)];
    const graph::Layout l = graph::node_layout(n);
    return graph::layout_name(l, graph::layout_block(n));
}

namespace {

// What the predictor closure keeps between calls: the times by signature (the log's
// and this run's), the log, and the thread pool the nodes run on (made at first use).
struct NodeTimes {
    SchedulerChoice untuned;
    NodeTimingSettings settings;
    std::string target, profile, figures;
    bool log_read = false;
    std::map<std::string, double> ms;  // "node-" signature -> measured
    std::unique_ptr<graph::JitThreadPool> pool;

    void read_log() {
        if (log_read) return;
        log_read = true;
        if (settings.log_path.empty()) return;
        for (const TuningRecord &r : read_tuning_log(settings.log_path, target, profile).records) {
            if (r.signature.rfind("node-", 0) == 0) ms[r.signature] = r.measured_ms.at(size_t(r.chosen));
        }
    }

    double measure(const graph::Graph &g, int node) {
        read_log();
        graph::Partition alone;
        alone.nodes = {node};
        const std::string signature = "node-" + partition_signature(g, alone);
        if (const auto seen = ms.find(signature); seen != ms.end()) return seen->second;
        const graph::Node &n = g.nodes[size_t(node)];
        const std::string form = node_form(g, node);
        ScheduledPartition s = schedule_lowered(graph::lower_single_node(g, node), untuned);
        const std::vector<std::string> failures = compile_partitions({&s}, untuned.target, 1);
        if (!failures[0].empty()) {
            // A form that does not compile is no alternative (the layout pass skips it).
            if (settings.progress) settings.progress("layout: " + n.name + " " + form + " not compiled (" +
                                                     failures[0].substr(0, 80) + ")");
            return ms[signature] = -1;
        }
        double t = 0;
        if (settings.timer_override) {
            t = settings.timer_override(n.name, form);
        } else {
            if (!pool) pool = std::make_unique<graph::JitThreadPool>(settings.threads);
            t = time_partitions(g, {&s}, *pool, untuned.target, settings.rounds)[0];
        }
        ms[signature] = t;
        if (settings.progress) {
            char line[96];
            std::snprintf(line, sizeof line, " %s %.3f ms (predicted %.3f)", form.c_str(), t, s.predicted_ms);
            settings.progress("layout: " + n.name + line);
        }
        if (!settings.log_path.empty() && settings.append_to_log) {
            TuningRecord r;
            r.signature = signature;
            r.ops = n.op_type + "@" + form;
            r.shape = graph::shape_string(g.value(n.outputs[0]).shape);
            r.partition = n.name;
            r.target = target;
            r.profile = profile;
            r.figures = figures;
            r.names = {"Tessera:0"};
            r.predicted_ms = {s.predicted_ms};
            r.measured_ms = {t};
            r.stages = {s.terms};
            append_tuning_log(settings.log_path, {r});
        }
        return t;
    }
};

}  // namespace

std::function<double(const graph::Graph &, int node)> measured_node_ms(const SchedulerChoice &untuned,
                                                                      const NodeTimingSettings &settings) {
    auto times = std::make_shared<NodeTimes>();
    times->untuned = untuned;
    times->untuned.name = "Tessera";
    times->untuned.options.explain = false;
    times->settings = settings;
    times->target = untuned.target.to_string();
    const hal::DeviceProfile profile = profile_or_builtin(untuned.options);
    times->profile = hal::profile_fingerprint(profile);
    times->figures = hal::figures_fingerprint(profile);
    return [times](const graph::Graph &g, int node) { return times->measure(g, node); };
}

}  // namespace tessera::cli
