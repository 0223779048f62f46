#include "model_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tessera::bench {

nlohmann::json to_json(const ModelRecord &r) {
    auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return {{"model", r.model},
            {"scheduler", r.scheduler},
            {"status", r.status},
            {"error", r.error},
            {"impl", r.impl},
            {"reference", r.reference},
            {"ok", r.ok},
            {"rel_error", number(r.rel_error)},
            {"time_ms_min", r.time_ms_min},
            {"time_ms_median", r.time_ms_median},
            {"rounds", r.rounds},
            {"threads", r.threads},
            {"timing", r.timing},
            {"compile_s", r.compile_s},
            {"speedup_vs_onnxruntime", r.speedup_vs_onnxruntime}};
}

ModelRecord model_record_from_json(const nlohmann::json &j) {
    ModelRecord r;
    r.model = j.at("model");
    r.scheduler = j.at("scheduler");
    r.status = j.at("status");
    r.error = j.value("error", "");
    r.impl = j.value("impl", "");
    r.reference = j.value("reference", "");
    r.ok = j.at("ok");
    r.rel_error = j.at("rel_error").is_null() ? INFINITY : j.at("rel_error").get<double>();
    r.time_ms_min = j.at("time_ms_min");
    r.time_ms_median = j.at("time_ms_median");
    r.rounds = j.value("rounds", 0);
    r.threads = j.at("threads");
    r.timing = j.value("timing", "");
    r.compile_s = j.value("compile_s", 0.0);
    r.speedup_vs_onnxruntime = j.at("speedup_vs_onnxruntime");
    return r;
}

void derive_model_speedups(std::vector<ModelRecord> &records) {
    std::map<std::string, double> onnxruntime_ms;
    for (const ModelRecord &r : records) {
        if (r.scheduler == kOnnxRuntime && r.ok && r.time_ms_median > 0) onnxruntime_ms[r.model] = r.time_ms_median;
    }
    for (ModelRecord &r : records) {
        auto it = onnxruntime_ms.find(r.model);
        r.speedup_vs_onnxruntime =
            it != onnxruntime_ms.end() && r.ok && r.time_ms_median > 0 ? it->second / r.time_ms_median : 0;
    }
}

std::string model_status(double rel_error, double tolerance) {
    return rel_error <= tolerance ? "ok" : "mismatch";  // false for NaN
}

void write_model_json(const std::vector<ModelRecord> &records, const std::string &path) {
    nlohmann::json all = nlohmann::json::array();
    for (const ModelRecord &r : records) all.push_back(to_json(r));
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    out << all.dump(2) << "\n";
    if (!out) throw std::runtime_error(path + ": cannot write");
}

std::string format_model_table(const std::vector<ModelRecord> &records) {
    std::ostringstream out;
    char line[1024];
    std::snprintf(line, sizeof line, "  %-12s %9s %9s %9s %-4s %14s  %s\n", "contender", "min ms", "median ms",
                  "rel err", "ok", "vs onnxruntime", "impl");
    out << line;
    for (const ModelRecord &r : records) {
        if (r.status != "ok" && r.status != "mismatch") {
            std::snprintf(line, sizeof line, "  %-12s %s: %s\n", r.scheduler.c_str(), r.status.c_str(), r.error.c_str());
            out << line;
            continue;
        }
        char err[32] = "-", ratio[32] = "-";
        if (r.reference == r.scheduler) std::snprintf(err, sizeof err, "reference");
        else if (!r.reference.empty()) std::snprintf(err, sizeof err, "%.1e", r.rel_error);
        if (r.speedup_vs_onnxruntime > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.speedup_vs_onnxruntime);
        std::snprintf(line, sizeof line, "  %-12s %9.3f %9.3f %9s %-4s %14s  %s%s%s\n", r.scheduler.c_str(),
                      r.time_ms_min, r.time_ms_median, err, r.ok ? "yes" : "NO", ratio, r.impl.c_str(),
                      r.error.empty() ? "" : "; ", r.error.c_str());
        out << line;
    }
    return out.str();
}

std::string format_model_summary(const std::vector<ModelRecord> &records) {
    std::vector<std::string> models, contenders;
    std::map<std::pair<std::string, std::string>, const ModelRecord *> by;
    for (const ModelRecord &r : records) {
        if (std::find(models.begin(), models.end(), r.model) == models.end()) models.push_back(r.model);
        if (std::find(contenders.begin(), contenders.end(), r.scheduler) == contenders.end()) {
            contenders.push_back(r.scheduler);
        }
        by[{r.model, r.scheduler}] = &r;
    }
    std::ostringstream out;
    char cell[128];
    out << "summary: median ms (speedup = onnxruntime median / median; above 1: faster than onnxruntime)\n";
    std::snprintf(cell, sizeof cell, "  %-24s", "model");
    out << cell;
    for (const std::string &c : contenders) {
        std::snprintf(cell, sizeof cell, " %20s", c.c_str());
        out << cell;
    }
    out << "\n";
    std::map<std::string, std::vector<double>> speedups;
    for (const std::string &m : models) {
        std::snprintf(cell, sizeof cell, "  %-24s", std::filesystem::path(m).filename().string().c_str());
        out << cell;
        for (const std::string &c : contenders) {
            auto it = by.find({m, c});
            std::string text = "-";
            if (it != by.end()) {
                const ModelRecord &r = *it->second;
                if (r.status == "ok" || r.status == "mismatch") {
                    std::snprintf(cell, sizeof cell, "%.2f%s", r.time_ms_median, r.ok ? "" : " (wrong)");
                    text = cell;
                    if (r.speedup_vs_onnxruntime > 0) {
                        std::snprintf(cell, sizeof cell, " (%.2fx)", r.speedup_vs_onnxruntime);
                        text += cell;
                        speedups[c].push_back(r.speedup_vs_onnxruntime);
                    }
                } else {
                    text = r.status;
                }
            }
            std::snprintf(cell, sizeof cell, " %20s", text.c_str());
            out << cell;
        }
        out << "\n";
    }
    std::snprintf(cell, sizeof cell, "  %-24s", "geomean speedup");
    out << cell;
    for (const std::string &c : contenders) {
        const std::vector<double> &v = speedups[c];
        double log_sum = 0;
        for (double x : v) log_sum += std::log(x);
        if (v.empty()) std::snprintf(cell, sizeof cell, "-");
        else std::snprintf(cell, sizeof cell, "%.2fx (%zu)", std::exp(log_sum / double(v.size())), v.size());
        std::string text = cell;
        std::snprintf(cell, sizeof cell, " %20s", text.c_str());
        out << cell;
    }
    out << "\n";
    return out.str();
}

}  // namespace tessera::bench
