// tessera-suite: JIT-compiles every operator of a suite with one autoscheduler,
// checks each against the plain C++ reference, and prints a table of schedule,
// code-generation and run times. Each op runs in a forked child: one that
// crashes or hangs is reported (status "crashed (signal)" or "timed out") and
// the rest of the suite still runs. Exit status: 0 all correct, 1 a mismatch,
// failure or crash, 2 a usage error or a bad suite file.
#include "child_process.h"
#include "op_check.h"
#include "schedulers.h"
#include "tool_environment.h"
#include "suite_file.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

void usage(std::FILE *to) {
    std::fprintf(to,
                 "usage: tessera-suite [--scheduler NAME] [--suite NAME | --suite-file FILE] [--reps N] [--seed N]\n"
                 "                    [--timeout S] [--tune]\n"
                 "  --scheduler   none, Tessera, Mullapudi2016, Adams2019, Li2018 (default %s)\n"
                 "  --suite       built-in suite (default: default)\n"
                 "  --suite-file  your own suite: one op per line, e.g.\n"
                 "                  conv2d n=1 c=64 h=56 w=56 oc=64 kh=3 kw=3 stride=1 pad=1\n"
                 "  --reps        timed runs per op, at most (default 20; stops after ~1 s)\n"
                 "  --seed        seed of the random inputs (default 1)\n"
                 "  --timeout     seconds an op may take before it is stopped and reported (default 600)\n"
                 "  --tune        Tessera: its top 3 rPrograms of each op timed, the fastest kept\n"
                 "                (TESSERA_MEASURE=1 with TESSERA_TOPK=K: the top K)\n",
                 tessera::default_scheduler().c_str());
}

int usage_error(const std::string &message) {
    std::fprintf(stderr, "tessera-suite: %s\n", message.c_str());
    usage(stderr);
    return 2;
}

std::string format_rate(const tessera::OpCheck &r) {
    char buf[64];
    double seconds = r.run_ms_median / 1e3;
    if (seconds <= 0) return "-";
    if (r.compute_bound) {
        std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", r.flops / seconds / 1e9);
    } else {
        std::snprintf(buf, sizeof buf, "%.1f GB/s", r.bytes / seconds / 1e9);
    }
    return buf;
}

// check_op in a child process: a crash or a hang becomes the op's error.
tessera::OpCheck check_op_isolated(const tessera::SuiteEntry &entry, const tessera::SchedulerChoice &scheduler,
                                   int measured_candidates, uint64_t seed, int reps, int timeout_s) {
    const tessera::ChildOutcome child = tessera::run_in_child(
        [&] {
            const tessera::OpCheck r = tessera::check_op(entry.config, scheduler, seed, reps, measured_candidates);
            return nlohmann::json{{"schedule_ms", r.schedule_ms}, {"compile_ms", r.compile_ms},
                                  {"run_ms_median", r.run_ms_median}, {"run_ms_min", r.run_ms_min},
                                  {"flops", r.flops}, {"bytes", r.bytes}, {"compute_bound", r.compute_bound},
                                  {"rel_error", r.rel_error}, {"ok", r.ok}, {"error", r.error}}
                .dump();
        },
        timeout_s, false);
    tessera::OpCheck r;
    if (child.ok) {
        const nlohmann::json j = nlohmann::json::parse(child.text);
        r.schedule_ms = j.at("schedule_ms");
        r.compile_ms = j.at("compile_ms");
        r.run_ms_median = j.at("run_ms_median");
        r.run_ms_min = j.at("run_ms_min");
        r.flops = j.at("flops");
        r.bytes = j.at("bytes");
        r.compute_bound = j.at("compute_bound");
        r.rel_error = j.at("rel_error");
        r.ok = j.at("ok");
        r.error = j.at("error");
    } else {
        r.error = child.threw ? child.text : child.failure();
        if (child.timed_out) r.error += " after " + std::to_string(timeout_s) + " s";
        r.crashed = !child.threw;
    }
    return r;
}

}  // namespace

int main(int argc, char **argv) {
    std::string scheduler = tessera::default_scheduler(), suite = "default", suite_file;
    int reps = 20, timeout_s = 600;
    bool tune = false;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        auto next = [&](const char *flag) -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(std::string(flag) + " needs a value");
            return argv[++i];
        };
        try {
            if (arg == "--scheduler") scheduler = tessera::canonical_scheduler(next("--scheduler"));
            else if (arg == "--suite") suite = next("--suite");
            else if (arg == "--suite-file") suite_file = next("--suite-file");
            else if (arg == "--reps") reps = std::stoi(next("--reps"));
            else if (arg == "--seed") seed = std::stoull(next("--seed"));
            else if (arg == "--timeout") timeout_s = std::stoi(next("--timeout"));
            else if (arg == "--tune") tune = true;
            else if (arg == "--help" || arg == "-h") {
                usage(stdout);
                return 0;
            } else {
                return usage_error("unknown argument '" + arg + "'");
            }
        } catch (const std::exception &e) {
            return usage_error(e.what());
        }
    }
    if (reps < 0) return usage_error("--reps must not be negative");
    if (timeout_s <= 0) return usage_error("--timeout must be positive");
    tessera::SchedulerChoice choice;
    int measured_candidates = 0;
    try {
        choice = tessera::scheduler_choice_from_environment(scheduler);
        measured_candidates = tessera::measured_candidates_from_environment();
        if (tune && measured_candidates == 0) measured_candidates = tessera::kDefaultTuneCandidates;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-suite: %s\n", e.what());
        return 2;
    }

    std::vector<tessera::SuiteEntry> entries;
    std::string source;
    try {
        source = suite_file.empty() ? tessera::builtin_suite_path(suite) : suite_file;
        entries = tessera::load_suite_file(source);
    } catch (const tessera::SuiteError &e) {
        std::fprintf(stderr, "tessera-suite: %s\n", e.what());
        return 2;
    }

    std::printf("tessera-suite: %zu ops from %s, scheduler %s, %d threads, seed %llu\n", entries.size(),
                source.c_str(), scheduler.c_str(), tessera::machine_params(choice.options).parallelism,
                (unsigned long long)seed);
    std::printf("%-17s %-60s %9s %9s %10s %15s %9s  %s\n", "op", "shape", "sched ms", "cg ms", "run ms", "rate",
                "rel err", "status");
    int failed = 0, crashed = 0;
    for (const tessera::SuiteEntry &entry : entries) {
        tessera::OpCheck r = check_op_isolated(entry, choice, measured_candidates, seed + entry.line, reps, timeout_s);
        std::string status = r.ok ? "ok" : r.crashed ? r.error + " (" + source + ":" + std::to_string(entry.line) + ")"
                             : r.error.empty() ? "MISMATCH" : "FAIL: " + r.error;
        std::printf("%-17s %-60s %9.1f %9.1f %10.3f %15s %9.1e  %s\n", entry.config.op.c_str(),
                    entry.config.attrs_string().c_str(), r.schedule_ms, r.compile_ms, r.run_ms_median,
                    format_rate(r).c_str(), r.rel_error, status.c_str());
        std::fflush(stdout);
        failed += r.ok ? 0 : 1;
        crashed += r.crashed ? 1 : 0;
    }
    std::printf("%zu ops: %zu correct, %d failed (tolerance %.0e relative)", entries.size(),
                entries.size() - failed, failed, tessera::kRelTolerance);
    if (crashed) std::printf(", %d of them crashed or timed out", crashed);
    std::printf("\n");
    return failed ? 1 : 0;
}
