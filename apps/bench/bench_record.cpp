#include "bench_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tessera::bench {

nlohmann::json to_json(const BenchRecord &r) {
    return {{"op", r.op},
            {"shape", r.shape},
            {"scheduler", r.scheduler},
            {"status", r.status},
            {"error", r.error},
            {"impl", r.impl},
            {"optimised_impl", r.optimised_impl},
            {"ok", r.ok},
            {"rel_error", std::isfinite(r.rel_error) ? nlohmann::json(r.rel_error) : nlohmann::json(nullptr)},
            {"schedule_ms", r.schedule_ms},
            {"compile_ms", r.compile_ms},
            {"time_ms_min", r.time_ms_min},
            {"time_ms_median", r.time_ms_median},
            {"rounds", r.rounds},
            {"threads", r.threads},
            {"flops", r.flops},
            {"bytes", r.bytes},
            {"compute_bound", r.compute_bound},
            {"gflops", r.gflops},
            {"gbytes_per_s", r.gbytes_per_s},
            {"percent_of_peak", r.percent_of_peak},
            {"speedup_vs_onednn", r.speedup_vs_onednn},
            {"peak_gflops", r.peak_gflops},
            {"peak_dram_gbs", r.peak_dram_gbs},
            {"peak_llc_gbs", r.peak_llc_gbs},
            {"peak_transpose_gbs", r.peak_transpose_gbs},
            {"profile_source", r.profile_source}};
}

BenchRecord record_from_json(const nlohmann::json &j) {
    BenchRecord r;
    r.op = j.at("op");
    r.shape = j.at("shape");
    r.scheduler = j.at("scheduler");
    r.status = j.at("status");
    r.error = j.at("error");
    r.impl = j.at("impl");
    r.optimised_impl = j.value("optimised_impl", true);
    r.ok = j.at("ok");
    r.rel_error = j.at("rel_error").is_null() ? INFINITY : j.at("rel_error").get<double>();
    r.schedule_ms = j.at("schedule_ms");
    r.compile_ms = j.at("compile_ms");
    r.time_ms_min = j.at("time_ms_min");
    r.time_ms_median = j.at("time_ms_median");
    r.rounds = j.at("rounds");
    r.threads = j.at("threads");
    r.flops = j.at("flops");
    r.bytes = j.at("bytes");
    r.compute_bound = j.at("compute_bound");
    return r;
}

void derive_rates(BenchRecord &r, const hal::DeviceProfile &profile, int threads) {
    r.threads = threads;
    const double share = std::min(1.0, double(threads) / std::max(1, profile.cores));
    r.peak_gflops = profile.fma_gflops_per_core * std::min(threads, profile.cores);
    r.peak_dram_gbs = profile.dram_copy_gbs * share;
    const hal::MemoryLayerProfile *llc = profile.layer("LLC");
    r.peak_llc_gbs = llc ? llc->read_gbs_all_cores * share : 0;
    r.peak_transpose_gbs = profile.dram_transpose_gbs * share;
    r.profile_source = profile.source;
    if (r.time_ms_median <= 0) return;
    const double seconds = r.time_ms_median / 1e3;
    r.gflops = r.flops / seconds / 1e9;
    r.gbytes_per_s = r.bytes / seconds / 1e9;
    const double peak = r.compute_bound ? r.peak_gflops : r.peak_dram_gbs;
    if (peak > 0) r.percent_of_peak = 100.0 * (r.compute_bound ? r.gflops : r.gbytes_per_s) / peak;
}

void derive_speedups(std::vector<BenchRecord> &records) {
    std::map<std::string, double> onednn_ms;
    for (const BenchRecord &r : records) {
        if (r.scheduler == kOnednn && r.ok && r.time_ms_median > 0) onednn_ms[r.op + " " + r.shape] = r.time_ms_median;
    }
    for (BenchRecord &r : records) {
        auto it = onednn_ms.find(r.op + " " + r.shape);
        r.speedup_vs_onednn = (it != onednn_ms.end() && r.ok && r.time_ms_median > 0) ? it->second / r.time_ms_median : 0;
    }
}

void write_json(const std::vector<BenchRecord> &records, const std::string &path) {
    nlohmann::json all = nlohmann::json::array();
    for (const BenchRecord &r : records) all.push_back(to_json(r));
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    out << all.dump(2) << "\n";
}

namespace {

std::string csv_field(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

void write_csv(const std::vector<BenchRecord> &records, const std::string &path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    const char *columns[] = {"op", "shape", "scheduler", "status", "ok", "time_ms_min", "time_ms_median",
                             "gflops", "gbytes_per_s", "percent_of_peak", "speedup_vs_onednn", "rel_error",
                             "schedule_ms", "compile_ms", "threads", "impl", "error"};
    for (size_t i = 0; i < std::size(columns); i++) out << (i ? "," : "") << columns[i];
    out << "\n";
    for (const BenchRecord &r : records) {
        nlohmann::json j = to_json(r);
        for (size_t i = 0; i < std::size(columns); i++) {
            const nlohmann::json &v = j.at(columns[i]);
            out << (i ? "," : "") << (v.is_string() ? csv_field(v.get<std::string>()) : v.dump());
        }
        out << "\n";
    }
}

std::string format_rows(const std::vector<BenchRecord> &records) {
    std::ostringstream out;
    char line[512];
    for (const BenchRecord &r : records) {
        if (r.status != "ok" && r.status != "mismatch") {
            std::snprintf(line, sizeof line, "  %-14s %-8s %s\n", r.scheduler.c_str(), r.status.c_str(),
                          r.error.c_str());
            out << line;
            continue;
        }
        char rate[32], ratio[16] = "-";
        std::snprintf(rate, sizeof rate, r.compute_bound ? "%.1f GFLOP/s" : "%.1f GB/s",
                      r.compute_bound ? r.gflops : r.gbytes_per_s);
        if (r.speedup_vs_onednn > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.speedup_vs_onednn);
        std::snprintf(line, sizeof line, "  %-14s %-8s %9.3f %9.3f %15s %6.1f%% %9s %9.1f %9.1f %9.1e  %s%s\n",
                      r.scheduler.c_str(), r.status.c_str(), r.time_ms_min, r.time_ms_median, rate,
                      r.percent_of_peak, ratio, r.schedule_ms, r.compile_ms, r.rel_error, r.impl.c_str(),
                      r.optimised_impl ? "" : "  (a oneDNN slow path: not in the headline geomeans)");
        out << line;
    }
    // A transpose's % of DRAM copy means little without what a transpose can reach here.
    for (const BenchRecord &r : records) {
        if (r.op != "transpose" || r.compute_bound || r.peak_transpose_gbs <= 0 || r.peak_dram_gbs <= 0) continue;
        std::snprintf(line, sizeof line,
                      "  (a hand-written blocked transpose reaches %.1f GB/s here, %.0f%% of DRAM copy: "
                      "tessera-profile)\n",
                      r.peak_transpose_gbs, 100 * r.peak_transpose_gbs / r.peak_dram_gbs);
        out << line;
        break;
    }
    return out.str();
}

namespace {

std::string op_key(const BenchRecord &r) {
    return r.op + " " + r.shape;
}

// base_ms / other_ms per op where both are ok (and, when only_optimised, where the
// base's record is an optimised kernel), split by the op's compute-boundness.
struct Ratios {
    std::vector<double> compute, memory;
    std::vector<double> all() const {
        std::vector<double> a = compute;
        a.insert(a.end(), memory.begin(), memory.end());
        return a;
    }
};

Ratios ratios(const std::vector<BenchRecord> &records, const std::string &base, const std::string &other,
              bool only_optimised) {
    std::map<std::string, double> base_ms;
    for (const BenchRecord &r : records) {
        if (r.scheduler == base && r.ok && r.time_ms_median > 0 && (r.optimised_impl || !only_optimised)) {
            base_ms[op_key(r)] = r.time_ms_median;
        }
    }
    Ratios out;
    for (const BenchRecord &r : records) {
        auto it = base_ms.find(op_key(r));
        if (r.scheduler != other || !r.ok || r.time_ms_median <= 0 || it == base_ms.end()) continue;
        (r.compute_bound ? out.compute : out.memory).push_back(it->second / r.time_ms_median);
    }
    return out;
}

double geomean(const std::vector<double> &v) {
    double log_sum = 0;
    for (double x : v) log_sum += std::log(x);
    return v.empty() ? 0 : std::exp(log_sum / double(v.size()));
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// "compute-bound 0.99x (9 ops), memory-bound 1.23x (8), all 1.10x, median 1.05x"
std::string describe(const Ratios &r) {
    char buf[256];
    const std::vector<double> all = r.all();
    std::snprintf(buf, sizeof buf, "compute-bound %.2fx (%zu ops), memory-bound %.2fx (%zu), all %.2fx, median %.2fx",
                  geomean(r.compute), r.compute.size(), geomean(r.memory), r.memory.size(), geomean(all),
                  median_of(all));
    return buf;
}

}  // namespace

std::string format_summary(const std::vector<BenchRecord> &records, const std::vector<std::string> &schedulers) {
    std::ostringstream out;
    char line[512];
    std::map<std::string, int> ok, total;
    for (const BenchRecord &r : records) {
        total[r.scheduler]++;
        ok[r.scheduler] += r.ok ? 1 : 0;
    }
    const bool have_onednn = std::find(schedulers.begin(), schedulers.end(), kOnednn) != schedulers.end();
    std::vector<const BenchRecord *> slow_paths;
    for (const BenchRecord &r : records) {
        if (r.scheduler == kOnednn && r.ok && !r.optimised_impl) slow_paths.push_back(&r);
    }
    out << "summary (speedup = oneDNN median time / contender median time; >1 is faster than oneDNN;\n"
           "         geomeans and medians over ops where oneDNN ran an optimised kernel)\n";
    for (const std::string &s : schedulers) {
        std::snprintf(line, sizeof line, "  %-14s %d/%d correct", s.c_str(), ok[s], total[s]);
        out << line;
        const Ratios r = have_onednn && s != kOnednn ? ratios(records, kOnednn, s, true) : Ratios();
        if (!r.all().empty()) out << "; vs oneDNN: " << describe(r);
        out << "\n";
    }
    if (!slow_paths.empty()) {
        out << "  not in the geomeans: oneDNN took a slow path on " << slow_paths.size() << " op(s)\n";
        for (const BenchRecord *o : slow_paths) {
            std::string speedups;
            for (const BenchRecord &r : records) {
                if (r.scheduler == kOnednn || op_key(r) != op_key(*o) || r.speedup_vs_onednn <= 0) continue;
                std::snprintf(line, sizeof line, " %s %.2fx", r.scheduler.c_str(), r.speedup_vs_onednn);
                speedups += line;
            }
            std::snprintf(line, sizeof line, "    %s %s: %s;%s\n", o->op.c_str(), o->shape.c_str(), o->impl.c_str(),
                          speedups.c_str());
            out << line;
        }
    }
    if (std::find(schedulers.begin(), schedulers.end(), "Tessera") != schedulers.end()) {
        for (const std::string &s : schedulers) {
            if (s == "Tessera" || s == kOnednn) continue;
            const Ratios r = ratios(records, s, "Tessera", false);
            if (!r.all().empty()) out << "  Tessera vs " << s << ": " << describe(r) << "\n";
        }
    }
    return out.str();
}

}  // namespace tessera::bench
