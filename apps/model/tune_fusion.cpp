#include "tune_fusion.h"

#include "device_profile.h"
#include "graph_error.h"
#include "partition_timing.h"
#include "plan_fusion.h"
#include "split_partitions.h"
#include "stopwatch.h"
#include "tuning_log.h"

#include <cstdio>
#include <map>
#include <numeric>

namespace tessera::cli {

namespace {

constexpr const char *kFused = "fused";
constexpr const char *kPieces = "pieces";
// A fusion is taken back only when its pieces ran clearly faster: a tie keeps the
// fewer kernels (and the form the untuned compile builds).
constexpr double kSplitBelow = 0.97;

}  // namespace

std::string fusion_signature(const graph::Graph &g, const graph::Partition &p) {
    return "fusion-" + partition_signature(g, p);
}

bool splits(const TuningRecord &decision, const std::string &log_path) {
    const std::string &name = decision.names.at(size_t(decision.chosen));
    if (decision.names != std::vector<std::string>{kFused, kPieces}) {
        throw graph::GraphError(log_path + ": '" + name + "' is not a fusion decision (fused or pieces), partition " +
                                decision.partition);
    }
    return name == kPieces;
}

FusionTuning tune_fusion(const OpenedModel &model, const TuneSettings &settings,
                         const std::function<void(const std::string &)> &progress) {
    auto say = [&](const std::string &line) {
        if (progress) progress(line);
    };
    FusionTuning result;
    result.plan = model.plan;
    if (model.target.has_gpu_feature()) return result;
    const graph::Graph &g = model.graph;
    const std::vector<std::vector<graph::Partition>> pieces = graph::fusion_pieces(g, model.plan);
    std::vector<size_t> todo;
    for (size_t k = 0; k < pieces.size(); k++) {
        if (!pieces[k].empty()) todo.push_back(k);
    }
    if (todo.empty()) return result;

    const std::string target = model.target.to_string();
    const hal::DeviceProfile device_profile = profile_or_builtin(model.choice.options);
    const std::string profile = hal::profile_fingerprint(device_profile);
    TuningLog log;
    if (!settings.log_path.empty()) log = read_tuning_log(settings.log_path, target, profile);
    SchedulerChoice untuned = model.choice;
    untuned.options.explain = false;
    graph::JitThreadPool pool(settings.threads);
    std::vector<bool> split(pieces.size(), false);
    std::map<std::string, bool> decided_here;  // signature -> split (a model's repeated blocks measured once)
    std::vector<TuningRecord> measured;
    Stopwatch clock;
    double spent_ms = 0;
    for (size_t i = 0; i < todo.size(); i++) {
        const size_t k = todo[i];
        const graph::Partition &p = model.plan.partitions[k];
        const std::vector<graph::Partition> &parts = pieces[k];
        const std::string head = "fuse [" + std::to_string(i + 1) + "/" + std::to_string(todo.size()) + "] " + p.name +
                                 " (" + graph::partition_op_types(g, p) + "): ";
        const std::string signature = fusion_signature(g, p);
        if (const TuningRecord *r = log.find(signature)) {
            split[k] = splits(*r, settings.log_path);
            result.decisions++;
            say(head + "from the log: " + (split[k] ? kPieces : kFused));
            continue;
        }
        if (const auto seen = decided_here.find(signature); seen != decided_here.end()) {
            split[k] = seen->second;
            result.decisions++;
            say(head + "as before (the same ops and shapes): " + (split[k] ? kPieces : kFused));
            continue;
        }
        if (settings.budget_s > 0 && spent_ms / 1e3 >= settings.budget_s) {
            say(head + "fused, unmeasured: the tuning budget of " + std::to_string(int(settings.budget_s)) + " s is spent");
            continue;
        }
        // The fused partition first, then its pieces, all with their untuned schedules.
        // A piece that cannot be built leaves the fusion as it is; the fused partition
        // is what the untuned compile builds, so its failure is the compile's.
        std::vector<ScheduledPartition> scheduled;
        std::string failure;
        scheduled.push_back(schedule_partition(g, p, untuned));
        for (const graph::Partition &piece : parts) {
            try {
                scheduled.push_back(schedule_partition(g, piece, untuned));
            } catch (const std::exception &e) {
                failure = piece.name + ": " + e.what();
                break;
            }
        }
        std::vector<ScheduledPartition *> built;
        for (ScheduledPartition &s : scheduled) built.push_back(&s);
        if (failure.empty()) {
            const std::vector<std::string> failures = compile_partitions(built, model.target, settings.jobs);
            if (!failures[0].empty()) throw std::runtime_error(p.name + ": " + failures[0]);
            for (size_t c = 1; c < failures.size() && failure.empty(); c++) {
                if (!failures[c].empty()) failure = parts[c - 1].name + ": " + failures[c];
            }
        }
        if (!failure.empty()) {
            say(head + "fused, its pieces not measured (" + failure.substr(0, 100) + ")");
            continue;
        }
        double fused_ms = 0, pieces_ms = 0;
        if (settings.timer_override) {
            fused_ms = settings.timer_override(p.name, kFused);
            pieces_ms = settings.timer_override(p.name, kPieces);
        } else {
            const std::vector<double> ms = time_partitions(g, built, pool, model.target, settings.rounds);
            fused_ms = ms[0];
            pieces_ms = std::accumulate(ms.begin() + 1, ms.end(), 0.0);
        }
        split[k] = pieces_ms < kSplitBelow * fused_ms;
        decided_here[signature] = split[k];
        result.decisions++;
        spent_ms += clock.lap_ms();
        char line[160];
        std::snprintf(line, sizeof line, "fused %.3f ms, %zu pieces %.3f ms -> %s", fused_ms, parts.size(), pieces_ms,
                      split[k] ? kPieces : kFused);
        say(head + line);

        TuningRecord r;
        r.signature = signature;
        r.ops = graph::partition_op_types(g, p);
        r.shape = graph::shape_string(g.value(p.output).shape);
        r.partition = p.name;
        r.target = target;
        r.profile = profile;
        r.figures = hal::figures_fingerprint(device_profile);
        r.names = {kFused, kPieces};
        double pieces_predicted = 0;
        for (size_t c = 1; c < scheduled.size(); c++) pieces_predicted += scheduled[c].predicted_ms;
        r.predicted_ms = {scheduled[0].predicted_ms, pieces_predicted};
        r.measured_ms = {fused_ms, pieces_ms};
        r.chosen = split[k] ? 1 : 0;
        measured.push_back(r);
    }
    result.measured_s = spent_ms / 1e3;
    for (bool s : split) result.split += s ? 1 : 0;
    if (result.split) result.plan = graph::split_partitions(model.plan, pieces, split);
    if (!settings.log_path.empty() && !measured.empty()) append_tuning_log(settings.log_path, measured);
    say("fusion: " + std::to_string(result.split) + " of " + std::to_string(result.decisions) +
        " fused partitions split (their pieces ran faster)");
    return result;
}

}  // namespace tessera::cli
