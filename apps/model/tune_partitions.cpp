#include "tune_partitions.h"

#include "device_profile.h"
#include "jit_thread_pool.h"
#include "partition_timing.h"
#include "plan_fusion.h"
#include "schedulers.h"
#include "graph_error.h"
#include "stopwatch.h"
#include "tuning_log.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <map>
#include <optional>

namespace tessera::cli {

namespace {

constexpr const char *kTesseraPrefix = "Tessera:";

// The candidates of a partition, by name: "Tessera:N" (Tessera's N-th rProgram for every
// compute stage), then the Halide autoschedulers asked for.
std::vector<std::string> candidate_names(const TuneSettings &settings) {
    std::vector<std::string> names;
    for (int n = 0; n < std::max(1, settings.candidates); n++) names.push_back(kTesseraPrefix + std::to_string(n));
    for (const std::string &s : settings.halide_schedulers) names.push_back(canonical_scheduler(s));
    return names;
}

}  // namespace

SchedulerChoice candidate_choice(const SchedulerChoice &base, const std::string &name) {
    SchedulerChoice c = base;
    const std::string prefix = kTesseraPrefix;
    if (name.compare(0, prefix.size(), prefix) == 0) {
        char *end = nullptr;
        const long n = std::strtol(name.c_str() + prefix.size(), &end, 10);
        if (*end || n < 0 || name.size() == prefix.size()) throw graph::GraphError("'" + name + "' is not a tuning candidate");
        c.name = "Tessera";
        c.options.candidate = int(n);
        c.options.top_k = std::max(c.options.top_k, int(n) + 1);
        return c;
    }
    std::string scheduler;
    try {
        scheduler = canonical_scheduler(name);
    } catch (const std::invalid_argument &) {
        scheduler = "none";
    }
    if (scheduler == "Tessera" || scheduler == "none") {
        throw graph::GraphError("'" + name + "' is not a tuning candidate (Tessera:N or a Halide autoscheduler)");
    }
    c.name = scheduler;
    return c;
}

namespace {

// Partitions with a matrix product or a convolution: where Tessera's candidates differ.
bool has_compute_node(const graph::Graph &g, const graph::Partition &p) {
    for (int n : p.nodes) {
        if (graph::is_contraction_op(g.nodes[size_t(n)].op_type)) return true;
    }
    return p.compute_intensive;
}

}  // namespace

std::vector<graph::MeasuredCandidates> tune_partitions(const OpenedModel &model, const TuneSettings &settings,
                                                       const std::function<void(const std::string &)> &progress) {
    std::vector<graph::MeasuredCandidates> tuning;
    if (canonical_scheduler(model.choice.name) != "Tessera") return tuning;
    auto say = [&](const std::string &line) {
        if (progress) progress(line);
    };
    const std::vector<std::string> names = candidate_names(settings);
    std::vector<SchedulerChoice> choices;
    for (const std::string &n : names) {
        choices.push_back(candidate_choice(model.choice, n));
        choices.back().options.top_k = std::max(choices.back().options.top_k, settings.candidates);
        choices.back().options.explain = false;
    }
    const graph::Graph &g = model.graph;
    const std::string target = model.target.to_string();
    const hal::DeviceProfile device_profile = profile_or_builtin(model.choice.options);
    const std::string profile = hal::profile_fingerprint(device_profile);
    TuningLog log;
    if (!settings.log_path.empty()) {
        log = read_tuning_log(settings.log_path, target, profile);
        say("tune log " + settings.log_path + ": " + std::to_string(log.records.size()) +
            " record(s) for this target and profile" +
            (log.elsewhere ? ", " + std::to_string(log.elsewhere) + " for another target or device profile ignored" : ""));
    }
    graph::JitThreadPool pool(settings.threads);
    std::vector<const graph::Partition *> todo;
    for (const graph::Partition &p : model.plan.partitions) {
        if (has_compute_node(g, p)) todo.push_back(&p);
    }
    std::vector<TuningRecord> measured;
    // Partitions measured in this run by signature (a model's repeated blocks are measured once).
    std::map<std::string, size_t> measured_here;  // signature -> index in `tuning`
    Stopwatch clock;
    double spent_ms = 0;  // measuring, for the estimate of what is left
    for (size_t i = 0; i < todo.size(); i++) {
        const graph::Partition &p = *todo[i];
        const std::string head = "tune [" + std::to_string(i + 1) + "/" + std::to_string(todo.size()) + "] " + p.name + ": ";
        const std::string signature = partition_signature(g, p);
        graph::MeasuredCandidates t;
        t.partition = p.name;
        if (const TuningRecord *r = log.find(signature)) {
            try {
                candidate_choice(model.choice, r->names[size_t(r->chosen)]);  // a name this build knows
            } catch (const graph::GraphError &e) {
                throw graph::GraphError(settings.log_path + ": " + e.what());
            }
            t.names = r->names;
            t.candidate_ms = r->measured_ms;
            t.predicted_ms = r->predicted_ms;
            t.chosen = r->chosen;
            t.from_log = true;
            say(head + "from the log: " + t.names[size_t(t.chosen)]);
            tuning.push_back(t);
            clock.lap_ms();
            continue;
        }
        if (const auto seen = measured_here.find(signature); seen != measured_here.end()) {
            graph::MeasuredCandidates same = tuning[seen->second];
            say(head + "as " + same.partition + " (the same ops and shapes): " + same.names[size_t(same.chosen)]);
            same.partition = p.name;
            tuning.push_back(same);
            clock.lap_ms();
            continue;
        }
        if (settings.budget_s > 0 && spent_ms / 1e3 >= settings.budget_s) {
            say(head + "untuned: the tuning budget of " + std::to_string(int(settings.budget_s)) + " s is spent");
            continue;
        }
        // Every candidate built first (fresh Funcs each), then timed in interleaved rounds.
        // One that cannot be scheduled or compiled is left out (said so); Tessera:0, what
        // an untuned compile builds, always is. Scheduling is quick and runs here, one
        // candidate after another; LLVM's compiles, the bulk of the time, run `jobs` at a
        // time (Halide compiles independent pipelines on separate threads).
        std::vector<std::optional<ScheduledPartition>> scheduled(choices.size());
        std::vector<std::string> failed(choices.size());
        for (size_t c = 0; c < choices.size(); c++) {
            try {
                scheduled[c] = schedule_partition(g, p, choices[c]);
            } catch (const std::exception &e) {
                if (c == 0) throw;
                failed[c] = e.what();
            }
        }
        std::vector<ScheduledPartition *> built;
        std::vector<size_t> of;  // the candidate each built one is
        for (size_t c = 0; c < scheduled.size(); c++) {
            if (!scheduled[c]) continue;
            built.push_back(&*scheduled[c]);
            of.push_back(c);
        }
        Stopwatch compile_clock;
        const std::vector<std::string> compile_failures = compile_partitions(built, model.target, settings.jobs);
        const double compile_ms = compile_clock.lap_ms();
        for (size_t k = 0; k < compile_failures.size(); k++) {
            if (compile_failures[k].empty()) continue;
            if (of[k] == 0) throw std::runtime_error(compile_failures[k]);
            failed[of[k]] = compile_failures[k];
            scheduled[of[k]].reset();
        }
        built.clear();
        std::vector<std::vector<hal::ModelTerms>> stage_terms;  // per candidate built
        std::string dropped;
        for (size_t c = 0; c < choices.size(); c++) {
            if (!scheduled[c]) {
                dropped += " (" + names[c] + " left out: " + failed[c].substr(0, 80) + ")";
                continue;
            }
            t.names.push_back(names[c]);
            t.predicted_ms.push_back(scheduled[c]->predicted_ms);
            stage_terms.push_back(scheduled[c]->terms);
            built.push_back(&*scheduled[c]);
        }
        if (settings.timer_override) {
            for (const std::string &name : t.names) t.candidate_ms.push_back(settings.timer_override(p.name, name));
        } else {
            t.candidate_ms = time_partitions(g, built, pool, model.target, settings.rounds);
        }
        t.chosen = int(std::min_element(t.candidate_ms.begin(), t.candidate_ms.end()) - t.candidate_ms.begin());
        std::string line = head;
        char buf[192];
        for (size_t c = 0; c < t.candidate_ms.size(); c++) {
            std::snprintf(buf, sizeof buf, "%s%s %.3f ms", c ? ", " : "", t.names[c].c_str(), t.candidate_ms[c]);
            line += buf;
        }
        const double partition_ms = clock.lap_ms();
        spent_ms += partition_ms;
        const double left_s = spent_ms / 1e3 / double(measured.size() + 1) * double(todo.size() - i - 1);
        std::snprintf(buf, sizeof buf, " -> %s (%.2fx the untuned; compiled in %.1f s of %.1f), about %.0f s left",
                      t.names[size_t(t.chosen)].c_str(), t.candidate_ms[0] / t.candidate_ms[size_t(t.chosen)],
                      compile_ms / 1e3, partition_ms / 1e3, left_s);
        say(line + buf + dropped);

        TuningRecord r;
        r.signature = signature;
        r.ops = graph::partition_op_types(g, p);
        r.shape = graph::shape_string(g.value(p.output).shape);
        r.partition = p.name;
        r.target = target;
        r.profile = profile;
        r.figures = hal::figures_fingerprint(device_profile);
        r.stages = stage_terms;
        r.names = t.names;
        r.predicted_ms = t.predicted_ms;
        r.measured_ms = t.candidate_ms;
        r.chosen = t.chosen;
        measured.push_back(r);
        measured_here[signature] = tuning.size();
        tuning.push_back(t);
    }
    if (!settings.log_path.empty() && !measured.empty()) {
        append_tuning_log(settings.log_path, measured);
        say("tune log " + settings.log_path + ": " + std::to_string(measured.size()) + " record(s) added");
    }
    return tuning;
}

std::function<void(Halide::Pipeline &, size_t)> tuned_schedule(const OpenedModel &model,
                                                              const std::vector<graph::MeasuredCandidates> &tuning) {
    std::map<std::string, std::string> chosen;
    for (const graph::MeasuredCandidates &t : tuning) chosen[t.partition] = t.names.at(size_t(t.chosen));
    std::vector<SchedulerChoice> choices;
    for (const graph::Partition &p : model.plan.partitions) {
        auto it = chosen.find(p.name);
        choices.push_back(it == chosen.end() ? model.choice : candidate_choice(model.choice, it->second));
    }
    return [choices](Halide::Pipeline &pipeline, size_t k) { apply_scheduler(pipeline, choices.at(k)); };
}

}  // namespace tessera::cli
